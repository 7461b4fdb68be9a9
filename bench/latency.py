#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Latency and idle-wakeup benchmark: waitdev against the polling loops,
systemd's `udevadm wait` and (with --waitdev-noprobe) waitdev without
its probe.

Measures, on real loop devices, how long after a block device becomes ready
each waiter exits, and how often each waiter wakes up while nothing happens.

Latency: a waiter is started on /dev/loopN (detached, size 0); after a random
delay (so the waiter is surely idle and a poll loop is at a random phase) the
script takes t0 = time.monotonic_ns() and attaches a small backing file with
the LOOP_SET_FD ioctl (the kernel emits the "change" uevent inside that
ioctl); t1 is when os.waitpid() returns for the waiter; latency = t1 - t0.
The backing file is a 1 MiB ext4 image (made once with mkfs.ext4): a waitdev
built with libblkid takes a root as ready only when it recognises a
filesystem, so its latency includes that probe of the superblock.
Methods are interleaved round-robin so machine noise hits them all alike.
`udevadm wait /dev/disk/by-uuid/UUID` needs udevd: the script starts a
systemd-udevd of its own for the whole run (refusing to if one runs) and
stops it by its pid at the end; every method then runs beside it, as in a
systemd initrd, and waitdev is told --source kernel. --no-udevadm leaves
udevd and that method out.

Idle wakeups: a waiter is started on a loop device that is never attached;
after it settles, voluntary + nonvoluntary context switches are read from
/proc/PID/status twice, --idle-seconds apart.

Needs root and /dev/loop-control.  Uses only loop devices 200..209 (created
with LOOP_CTL_ADD if missing, left in place afterwards); never touches
loop0..199.  Python standard library only.

Exit: 0 done, 1 a waiter failed or a --check threshold was missed,
2 usage or setup error, 77 not root / no loop support (meson "skipped").
"""

import argparse
import fcntl
import os
import platform
import random
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from waitdevtest import TOP, log, probe_lines
from waitdevtest.host import (LOOP_SET_FD, Failure, Fatal, UeventCounter,
                              loop_add, loop_detach, loop_size)
from waitdevtest.udevd import Udevd

LOOP_FIRST, LOOP_LAST = 200, 209      # reserved for this benchmark
LOOP_LATENCY = 200                    # attached and detached every sample
LOOP_IDLE = 201                       # never attached

LOCK_PATH = "/run/waitdev-bench.lock"  # serialises concurrent runs

# name, poll interval in ms, or what else it is (None: waitdev); run()
# adds "udevadm-wait" and "waitdev-noprobe" as asked
METHODS = [
    ("waitdev", None),
    ("poll-1000ms", 1000),
    ("poll-50ms", 50),
    ("poll-5ms", 5),
]
UDEVADM = ("udevadm-wait", "udevadm")
NOPROBE = ("waitdev-noprobe", "noprobe")
# the backing image's filesystem UUID: udevadm waits for its link
FS_UUID = "5a1d1e55-0000-4000-8000-00000000be4c"
BY_UUID = "/dev/disk/by-uuid/" + FS_UUID

# --check: the project's acceptance thresholds
CHECK_MAX_MEDIAN_MS = 1.0
CHECK_MIN_SPEEDUP_VS_50MS = 20.0
CHECK_MAX_IDLE_WAKEUPS = 2


class BenchError(Exception):
    """A waiter misbehaved or the set-up failed: abort loudly."""


# ---------------------------------------------------------------- loop devices

def loop_path(n):
    return "/dev/loop%d" % n


def ensure_loop_devices():
    """Creates loop200..209 if missing; returns the numbers created."""
    created = [n for n in range(LOOP_FIRST, LOOP_LAST + 1) if loop_add(n)]
    for n in range(LOOP_FIRST, LOOP_LAST + 1):
        if not os.path.exists(loop_path(n)):
            raise BenchError("%s missing after LOOP_CTL_ADD (no devtmpfs?)"
                             % loop_path(n))
    return created


def detach(n):
    """Detaches loopN and waits until sysfs shows size 0. This is the
    harness, not a waiter: a short poll here is fine."""
    if not loop_detach(n, 5):
        raise BenchError("%s: still attached (size %d) after LOOP_CLR_FD"
                         % (loop_path(n), loop_size(n)))


# --------------------------------------------------------------------- waiters

def waiter_argv(args, method, dev, timeout_s):
    name, interval = method
    if interval in (None, "noprobe"):
        # -v: the probe's line ("loop200: probe: N reads, ..."); a few
        # lines more to stderr, a file. --source kernel: udevd may run
        # (udevadm-wait's), and waitdev would take its events instead
        return [args.waitdev if interval is None else args.waitdev_noprobe,
                "-v", "--source", "kernel", "--root", dev,
                "--timeout", str(timeout_s)]
    if interval == "udevadm":
        # the link udevd makes once blkid found the UUID on @dev (for the
        # idle window's never-attached device: never)
        return [shutil.which("udevadm") or "/usr/bin/udevadm", "wait",
                "--timeout", str(timeout_s),
                BY_UUID if dev == loop_path(LOOP_LATENCY) else
                "/dev/disk/by-uuid/never-%s" % os.path.basename(dev)]
    return [args.pollwait, str(interval), dev, str(timeout_s)]


def spawn(argv, errfile):
    """posix_spawn: stdin/stdout /dev/null, stderr to errfile."""
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
        (os.POSIX_SPAWN_DUP2, errfile.fileno(), 2),
    ]
    return os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)


def describe_status(status):
    if os.WIFEXITED(status):
        return "exit status %d" % os.WEXITSTATUS(status)
    if os.WIFSIGNALED(status):
        return "killed by signal %d" % os.WTERMSIG(status)
    return "wait status 0x%x" % status


def waiter_stderr(errfile):
    errfile.flush()
    errfile.seek(0)
    text = errfile.read().decode(errors="replace").strip()
    errfile.seek(0)
    errfile.truncate()
    return text


def ended(pid, name, when, argv, errfile):
    """None while the waiter @pid runs; once it has exited (reaped here),
    the BenchError that says so, @when."""
    done, status = os.waitpid(pid, os.WNOHANG)
    if not done:
        return None
    return BenchError("%s exited %s (%s): %s\n  stderr: %s"
                      % (name, when, describe_status(status),
                         shlex.join(argv), waiter_stderr(errfile)))


def kill_and_reap(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)


def waiter_start_delay(args, interval):
    """Uniform settle delay plus a random poll phase, in seconds."""
    d = random.uniform(args.min_delay_ms, args.max_delay_ms)
    if isinstance(interval, int):
        d += random.uniform(0, interval)
    return d / 1000.0


def settled(args):
    """With udevd running: its work on the last detach is done (the
    by-uuid link is gone), so that the next sample starts clean."""
    if not args.udevd:
        return
    r = subprocess.run(["udevadm", "settle", "--timeout=10"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise BenchError("udevadm settle: status %d: %s"
                         % (r.returncode, r.stderr.strip()))
    if os.path.lexists(BY_UUID):
        raise BenchError("%s still exists after the detach and udevadm "
                         "settle" % BY_UUID)


def one_sample(args, method, backing_fd, errfile):
    """Returns (latency, ioctl duration) in ns for one attach, and the
    waiter's probe of the device as waitdev -v logged it (None for the
    others, or when it did not probe); raises BenchError."""
    name, interval = method
    n = LOOP_LATENCY
    dev = loop_path(n)
    if loop_size(n) != 0:
        raise BenchError("%s is not detached before the sample" % dev)
    loopfd = os.open(dev, os.O_RDWR | os.O_CLOEXEC)
    pid = None
    try:
        argv = waiter_argv(args, method, dev, args.timeout)
        pid = spawn(argv, errfile)
        time.sleep(waiter_start_delay(args, interval))
        err = ended(pid, name, "before the device was attached", argv,
                    errfile)
        if err:
            pid = None
            raise err

        t0 = time.monotonic_ns()
        fcntl.ioctl(loopfd, LOOP_SET_FD, backing_fd)
        t_ioctl = time.monotonic_ns()
        _, status = os.waitpid(pid, 0)
        t1 = time.monotonic_ns()
        pid = None

        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            raise BenchError("%s failed (%s): %s\n  stderr: %s"
                             % (name, describe_status(status),
                                shlex.join(argv), waiter_stderr(errfile)))
        probes = probe_lines(waiter_stderr(errfile), "loop%d" % n)
        return t1 - t0, t_ioctl - t0, probes[-1] if probes else None
    finally:
        if pid is not None:
            kill_and_reap(pid)
        os.close(loopfd)
        detach(n)
        settled(args)


# ------------------------------------------------------------- idle wakeups

def ctxt_switches(pid):
    total = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(("voluntary_ctxt_switches:",
                                "nonvoluntary_ctxt_switches:")):
                total += int(line.split()[1])
    return total


def peak_rss_kib(pid):
    """VmHWM: the most resident memory the waiter ever had, in KiB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return None


def idle_wakeups(args, method, errfile):
    """Returns (wakeups, uevents, block_uevents, peak RSS KiB) over
    args.idle_seconds."""
    name, _ = method
    n = LOOP_IDLE
    dev = loop_path(n)
    detach(n)
    timeout = int(max(30, args.idle_seconds + args.idle_settle + 10))
    argv = waiter_argv(args, method, dev, timeout)
    # every uevent, and the block ones, during the window: a waitdev
    # wakeup told apart from background activity
    counter = UeventCounter(rb"")
    block_counter = UeventCounter(rb"\0SUBSYSTEM=block\0", whole=True)
    pid = spawn(argv, errfile)
    try:
        time.sleep(args.idle_settle)
        counter.drain()
        block_counter.drain()
        before = ctxt_switches(pid)
        time.sleep(args.idle_seconds)
        after = ctxt_switches(pid)
        rss = peak_rss_kib(pid)
        uevents, block = counter.drain(), block_counter.drain()
        err = ended(pid, name, "during the idle window", argv, errfile)
        if err:
            pid = None
            raise err
        return after - before, uevents, block, rss
    finally:
        if pid is not None:
            kill_and_reap(pid)
        waiter_stderr(errfile)
        counter.close()
        block_counter.close()


# ------------------------------------------------------------------ reporting

def percentile(sorted_vals, p):
    """Nearest-rank percentile (p99 of 50 samples is the maximum)."""
    k = max(1, -(-len(sorted_vals) * p // 100))
    return sorted_vals[int(k) - 1]


def system_info(args):
    lines = []
    u = platform.uname()
    lines.append("kernel:  %s %s %s" % (u.system, u.release, u.version))
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    lines.append("cpu:     %s, %d online CPU(s) (%s)"
                 % (model, os.cpu_count() or 0, u.machine))
    try:
        gov = open("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
        lines.append("cpufreq: %s" % gov.read().strip())
        gov.close()
    except OSError:
        lines.append("cpufreq: no cpufreq (governor not exposed)")
    try:
        with open("/proc/loadavg") as f:
            lines.append("loadavg: %s" % " ".join(f.read().split()[:3]))
    except OSError:
        pass
    lines.append("python:  %s" % sys.version.split()[0])
    try:
        version = subprocess.run([args.waitdev, "--version"],
                                 capture_output=True, text=True,
                                 timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        version = "--version failed: %s" % e
    lines.append("waitdev: %s (%s)" % (args.waitdev, version or "?"))
    lines.append("pollwait: %s" % args.pollwait)
    return lines


def fmt_ms(ns):
    return "%.3f" % (ns / 1e6)


def print_latency_table(results, ioctl_ns):
    """@results: {method name: [ns]}, in the order to print."""
    wd_median = statistics.median(results["waitdev"])
    hdr = ("%-15s %4s %10s %10s %10s %10s %10s %10s  %14s"
           % ("method", "n", "median", "p99", "min", "max", "mean",
              "ioctl", "median/waitdev"))
    print(hdr)
    print("-" * len(hdr))
    for name in results:
        vals = sorted(results[name])
        med = statistics.median(vals)
        ratio = "1" if name == "waitdev" else "%.1fx" % (med / wd_median)
        print("%-15s %4d %10s %10s %10s %10s %10s %10s  %14s"
              % (name, len(vals), fmt_ms(med), fmt_ms(percentile(vals, 99)),
                 fmt_ms(vals[0]), fmt_ms(vals[-1]),
                 fmt_ms(statistics.fmean(vals)),
                 fmt_ms(statistics.median(ioctl_ns[name])), ratio))
    print("(ms; latency = LOOP_SET_FD issued -> waiter reaped by waitpid(); "
          "p99 is nearest-rank;\n ioctl = median time LOOP_SET_FD itself "
          "took, already included in the latency)")
    for peer in ("waitdev-noprobe", "udevadm-wait"):
        if peer in results:
            print("waitdev median / %s median: %.2f"
                  % (peer, wd_median / statistics.median(results[peer])))


def print_probe_table(probes):
    """waitdev's probe of the attached device, from its -v line."""
    vals = probes["waitdev"]
    if not vals:
        print("waitdev logged no probe (a build without libblkid: "
              "probe: none)")
        return
    io = [p for p in vals if p["reads"] is not None]
    print("%-12s %4s %14s %14s %14s  %s"
          % ("method", "n", "reads median", "KiB median", "ms median",
             "reads min..max"))
    print("%-12s %4d %14s %14s %14.1f  %s"
          % ("waitdev", len(vals),
             "%g" % statistics.median(p["reads"] for p in io) if io else "?",
             "%g" % (statistics.median(p["bytes"] for p in io) / 1024)
             if io else "?",
             statistics.median(p["ms"] for p in vals),
             "%d..%d" % (min(p["reads"] for p in io),
                         max(p["reads"] for p in io)) if io else "?"))
    print("(waitdev -v: read requests the loop device completed while the "
          "probe ran, all readers\n counted; the probe's own duration, "
          "part of the latency above)")


def print_idle_table(args, idle):
    hdr = ("%-15s %26s %24s %15s"
           % ("method", "wakeups in %g s idle" % args.idle_seconds,
              "uevents seen (block)", "peak RSS KiB"))
    print(hdr)
    print("-" * len(hdr))
    for name in idle:
        w, ue, blk, rss = idle[name]
        seen = "n/a" if ue is None else "%d (%d)" % (ue, blk)
        print("%-15s %26d %24s %15s" % (name, w, seen,
                                        "n/a" if rss is None else rss))
    print("(wakeups = voluntary + nonvoluntary context switches of the waiter "
          "from /proc/PID/status; uevents = all kernel uevents on the system "
          "during the same window; peak RSS = VmHWM of the waiter, dynamic "
          "glibc build)")


def check(args, results, idle):
    """The project's acceptance thresholds; returns the list of failures."""
    fails = []
    wd = statistics.median(results["waitdev"]) / 1e6
    p50 = statistics.median(results["poll-50ms"]) / 1e6
    w = idle["waitdev"][0]
    if not wd < CHECK_MAX_MEDIAN_MS:
        fails.append("waitdev median %.3f ms is not < %g ms"
                     % (wd, CHECK_MAX_MEDIAN_MS))
    if not wd * CHECK_MIN_SPEEDUP_VS_50MS <= p50:
        fails.append("waitdev median %.3f ms is not %gx lower than "
                     "poll-50ms median %.3f ms (only %.1fx)"
                     % (wd, CHECK_MIN_SPEEDUP_VS_50MS, p50, p50 / wd))
    if not w <= CHECK_MAX_IDLE_WAKEUPS:
        ue = idle["waitdev"][1]
        fails.append("waitdev woke %d times in %g s idle (limit %d)%s"
                     % (w, args.idle_seconds, CHECK_MAX_IDLE_WAKEUPS,
                        "; %d uevents happened on the system meanwhile "
                        "(waitdev reads every one): rerun on a quiet machine"
                        % ue if ue else ""))
    return fails


# ------------------------------------------------------------------------ main

def parse_args():
    p = argparse.ArgumentParser(
        description="Wake-up latency and idle wakeups of waitdev against "
                    "1000/50/5 ms polling loops, on real loop devices.")
    p.add_argument("--samples", type=int, default=50,
                   help="latency samples per method (default 50)")
    p.add_argument("--idle-seconds", type=float, default=10.0,
                   help="idle window for the wakeup count (default 10)")
    p.add_argument("--idle-settle", type=float, default=0.5,
                   help=argparse.SUPPRESS)
    p.add_argument("--min-delay-ms", type=float, default=150.0,
                   help="least delay between starting a waiter and the "
                        "attach (default 150)")
    p.add_argument("--max-delay-ms", type=float, default=400.0,
                   help="most delay, before the random poll phase "
                        "(default 400)")
    p.add_argument("--timeout", type=int, default=20,
                   help="the waiters' own deadline in seconds (default 20)")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (default: from the clock; printed)")
    p.add_argument("--waitdev",
                   default=os.path.join(TOP, "build/src/waitdev/waitdev"),
                   help="waitdev binary (default: build/src/waitdev/waitdev)")
    p.add_argument("--pollwait",
                   default=os.path.join(TOP, "build/bench/pollwait"),
                   help="pollwait binary (default: build/bench/pollwait)")
    p.add_argument("--waitdev-noprobe", default=None, metavar="PATH",
                   help="also a waitdev built without libblkid (probe: "
                        "none), e.g. build-static/bin-min/waitdev")
    p.add_argument("--no-udevadm", action="store_true",
                   help="leave out udevadm wait (and the udevd it needs)")
    p.add_argument("--check", action="store_true",
                   help="exit 1 unless waitdev's median is < 1 ms and 20x "
                        "below poll-50ms's, and it woke <= 2 times idle")
    args = p.parse_args()
    args.waitdev = os.path.abspath(args.waitdev)
    args.pollwait = os.path.abspath(args.pollwait)
    if args.waitdev_noprobe:
        args.waitdev_noprobe = os.path.abspath(args.waitdev_noprobe)
    if args.samples < 1:
        p.error("--samples must be at least 1")
    if args.idle_seconds <= 0:
        p.error("--idle-seconds must be positive")
    if not 0 <= args.min_delay_ms <= args.max_delay_ms:
        p.error("need 0 <= --min-delay-ms <= --max-delay-ms")
    return args


BACKING_SIZE = 1 << 20                  # bytes; mkfs.ext4 takes 1 MiB


def make_backing():
    """The file attached in every sample: a small ext4 image, made once.
    A libblkid build of waitdev wants a filesystem on a root; pollwait only
    looks at the size. Returns the open NamedTemporaryFile."""
    backing = tempfile.NamedTemporaryFile(prefix="waitdev-bench-",
                                          dir="/var/tmp")
    os.truncate(backing.fileno(), BACKING_SIZE)
    argv = ["mkfs.ext4", "-q", "-F", "-L", "wdbench", "-U", FS_UUID,
            backing.name]
    try:
        r = subprocess.run(argv, capture_output=True, text=True)
    except FileNotFoundError:
        backing.close()
        raise BenchError("mkfs.ext4 is missing (install e2fsprogs, see "
                         "tools/install-deps): the backing file needs a "
                         "filesystem")
    if r.returncode != 0:
        backing.close()
        raise BenchError("%s: status %d: %s" % (shlex.join(argv),
                                                r.returncode,
                                                (r.stderr or
                                                 r.stdout).strip()))
    return backing


def run(args):
    methods = list(METHODS)
    if args.waitdev_noprobe:
        methods.append(NOPROBE)
    if not args.no_udevadm:
        methods.append(UDEVADM)
    for path in (args.waitdev, args.pollwait, args.waitdev_noprobe):
        if path is None:
            continue
        if not os.access(path, os.X_OK):
            log("latency.py: %s: not an executable (build first: "
                "ninja -C build)" % path)
            return 2
    if os.geteuid() != 0 or not os.path.exists("/dev/loop-control"):
        log("latency.py: needs root and /dev/loop-control; skipping")
        return 77

    lock = open(LOCK_PATH, "w")
    fcntl.flock(lock, fcntl.LOCK_EX)    # one benchmark run at a time

    seed = args.seed if args.seed is not None else time.time_ns() % 2**32
    random.seed(seed)

    print("command: %s" % shlex.join(getattr(sys, "orig_argv", sys.argv)))
    print("cwd:     %s" % os.getcwd())
    print("date:    %s" % time.strftime("%Y-%m-%d %H:%M:%S %z"))
    print("seed:    %d" % seed)
    for line in system_info(args):
        print(line)
    created = ensure_loop_devices()
    print("loop:    latency on %s, idle on %s%s"
          % (loop_path(LOOP_LATENCY), loop_path(LOOP_IDLE),
             " (created loop%d..loop%d)" % (created[0], created[-1])
             if created else ""))
    print("delay:   waiter start -> attach uniform %g..%g ms "
          "+ uniform 0..interval" % (args.min_delay_ms, args.max_delay_ms))
    print("backing: %d KiB ext4 image (mkfs.ext4 once), attached with "
          "LOOP_SET_FD" % (BACKING_SIZE >> 10))
    print("methods: %s" % ", ".join(name for name, _ in methods))
    args.udevd = None
    if UDEVADM in methods:
        tmp = tempfile.mkdtemp(prefix="waitdev-bench-udevd-")
        args.udevd = Udevd(tmp, node=loop_path(LOOP_LATENCY), debug=False)
        try:
            args.udevd.start()
        except (Fatal, Failure) as e:
            args.udevd.stop()
            raise BenchError("udevadm-wait needs a udevd of its own "
                             "(--no-udevadm leaves it out): %s" % e)
        print("udevd:   %s (pid %d), for the whole run"
              % (args.udevd.p.args[0], args.udevd.p.pid))
    print(flush=True)
    try:
        return measure(args, methods)
    finally:
        if args.udevd:
            args.udevd.stop()


def measure(args, methods):
    detach(LOOP_LATENCY)
    detach(LOOP_IDLE)
    settled(args)

    # A small ext4 image; LOOP_SET_FD only needs an open fd.
    backing = make_backing()
    errfile = tempfile.TemporaryFile()
    backing_fd = os.open(backing.name, os.O_RDWR | os.O_CLOEXEC)

    results = {name: [] for name, _ in methods}
    ioctl_ns = {name: [] for name, _ in methods}
    probes = {name: [] for name, _ in methods}
    try:
        log("latency: %d samples x %d methods, round-robin"
            % (args.samples, len(methods)))
        for i in range(args.samples):
            order = list(methods)
            random.shuffle(order)       # no fixed predecessor per method
            for method in order:
                lat, io, probe = one_sample(args, method, backing_fd,
                                            errfile)
                results[method[0]].append(lat)
                ioctl_ns[method[0]].append(io)
                if probe:
                    probes[method[0]].append(probe)
            if (i + 1) % 10 == 0 or i + 1 == args.samples:
                log("  %d/%d" % (i + 1, args.samples))

        idle = {}
        log("idle: %g s per method" % args.idle_seconds)
        for method in methods:
            idle[method[0]] = idle_wakeups(args, method, errfile)
    finally:
        os.close(backing_fd)
        backing.close()
        errfile.close()
        detach(LOOP_LATENCY)

    print("== wake-up latency (%d samples per method, interleaved) =="
          % args.samples)
    print_latency_table(results, ioctl_ns)
    print()
    print("== waitdev's probe of the attached device ==")
    print_probe_table(probes)
    print()
    print("== idle wakeups ==")
    print_idle_table(args, idle)
    print()

    if args.check:
        fails = check(args, results, idle)
        for f in fails:
            print("check FAILED: %s" % f)
        if fails:
            return 1
        print("check passed: waitdev median < %g ms, >= %gx below poll-50ms, "
              "<= %d idle wakeups"
              % (CHECK_MAX_MEDIAN_MS, CHECK_MIN_SPEEDUP_VS_50MS,
                 CHECK_MAX_IDLE_WAKEUPS))
    return 0


def main():
    sys.stdout.reconfigure(line_buffering=True)  # keep order with stderr
    args = parse_args()
    try:
        return run(args)
    except BenchError as e:
        sys.stdout.flush()
        log("latency.py: ABORTED: %s" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main())
