#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
storm: waitdev waits for /dev/loop339 while the kernel sends thousands of
real uevents - loop300-338 attached and detached (3 uevents a cycle),
veth pairs wds*a/wds*b created and deleted (about 20 a pair) - into a
receive buffer made small with --rcvbuf (which the man page documents for
this). The buffer overflows, the kernel reports ENOBUFS, and waitdev must
rescan sysfs and find loop339 every time: attached in the middle of the
storm, its own uevent is often one of those the kernel drops.

Two kinds of repetition, alternating:
  * live: --rcvbuf 1 (about 4 KiB, two uevents) and a reader that runs;
    the buffer overflows all the time. Once waitdev has logged an
    overflow, loop339 is attached at a random cycle within the storm or,
    half the time, at its very end (0-63 cycles before it stops, the veth
    pairs done), where no later overflow report can rescue a lost uevent.
  * stalled: --rcvbuf 65536 (128 KiB, about 157 uevents) and a reader
    stopped twice (SIGSTOP): first while 300 cycles overflow its buffer;
    resumed until it has logged the ENOBUFS; stopped again at once, with
    its queue not yet read empty, while 200 more cycles refill it and
    loop339 is attached, then resumed with the storm over. The kernel
    reports one overflow and then drops silently until the queue has
    been read empty (netlink_overrun(): the socket is "congested"), so
    loop339's dropped uevent is never reported: only a rescan after the
    queue was drained can find it. (waitdev before that second rescan
    missed it here.)

Per repetition it asserts: status 0, WAITDEV_ROOT='/dev/loop339', at
least one overflow and one rescan in the statistics line, and "found" at
most LATENCY_MAX s after the attach (waitdev's own clock). Over all, it
asserts that the storms were storms (>= 1000 uevents) and that the rescan
really did save some repetitions (loop339's own uevent never reached
waitdev and a rescan found it). A netlink socket of our own, with a large
buffer, counts the uevents each storm made (loop3* and wds* only).

Environment: WAITDEV_STORM_REPS (default 100), WAITDEV_STORM_SEED (the
random attach points; default 6), WAITDEV_TIME_SCALE (slow runs such as
valgrind: scales the waits, not the counts).
"""
import random
import re
import signal
import statistics
import subprocess
import sys
sys.dont_write_bytecode = True
import os  # noqa: E402
import time  # noqa: E402
from waitdevtest import host  # noqa: E402

LOOPS = range(300, 340)
TARGET = 339
STORM_LOOPS = [n for n in LOOPS if n != TARGET]
IFPREFIX = "wds"
LOOP_CYCLES = 1000          # attach + detach: 3 uevents each
VETH_PAIRS = 10             # create + delete: about 20 uevents each
RCVBUF_LIVE = 1             # the least the kernel allows (about 4 KiB)
RCVBUF_STALLED = 65536      # the kernel doubles it: 128 KiB
STALL_CYCLES = 300          # 900 uevents into a stopped reader
REFILL_CYCLES = 200         # 600 more while it is stopped again
LATENCY_MAX = 1.0           # s from the attach to "found", at most
REPS = int(os.environ.get("WAITDEV_STORM_REPS", "100"))
SEED = int(os.environ.get("WAITDEV_STORM_SEED", "6"))

OVERFLOWED = "uevent receive buffer overflowed"
DRAINED = "uevent queue read empty after an overflow"


def veth_script():
    return "".join("link add %s%da type veth peer name %s%db\n"
                   "link del %s%da\n" % (IFPREFIX, i, IFPREFIX, i,
                                         IFPREFIX, i)
                   for i in range(VETH_PAIRS))


class LoopCycler:
    """Attaches and detaches loop300-338 in turn, counting cycles."""

    def __init__(self, backing_fd):
        self.fd = backing_fd
        self.i = self.busy = 0
        self.attached_at = None

    def attach(self, n, target_fd):
        """Attaches the target; returns when (time.monotonic())."""
        t = time.monotonic()
        host.loop_attach(n, target_fd)
        self.attached_at = self.i
        return t

    def cycle(self):
        n = STORM_LOOPS[(self.i + self.busy) % len(STORM_LOOPS)]
        if host.loop_cycle(n, self.fd):
            self.i += 1
            return
        self.busy += 1
        if self.busy > LOOP_CYCLES // 10:
            raise host.Fatal("loop300-338 are busy (held open by "
                             "another process?): %d EBUSY" % self.busy)


def live_storm(h, rep, p, ip, watch, loops, target_fd, rng, scale, rcvbuf,
               t0):
    """Cycles until the storm is over, attaching loop339 on the way;
    returns (at the end?, when attached or None)."""
    late = rng.random() < 0.5
    pos = rng.randrange(LOOP_CYCLES // 10, LOOP_CYCLES)
    tail = rng.randrange(0, 64)
    t_attach = None
    while True:
        veth_done = ip.poll() is not None
        i = loops.i
        if t_attach is None:
            due = (i >= LOOP_CYCLES and veth_done) if late else i >= pos
            if due and watch.seen(OVERFLOWED):
                t_attach = loops.attach(TARGET, target_fd)
            elif time.monotonic() - t0 > 10 * scale:
                ip.kill()
                raise host.Failure(
                    "rep %d: no overflow logged after %d loop cycles: the "
                    "storm does not overflow --rcvbuf %d\n%s"
                    % (rep, i, rcvbuf, p.describe()))
            elif not p.running():
                return late, None
        elif i >= LOOP_CYCLES and veth_done and \
                (not late or i - loops.attached_at >= tail):
            return late, t_attach
        loops.cycle()


def stop_reader(p, rep, when):
    """SIGSTOPs waitdev; a Failure that says how it ended if it has (it
    was reaped then, and its pid may be another process's)."""
    if not p.running():
        raise host.Failure("rep %d: waitdev ended %s, while loop%d was "
                           "not attached\n%s" % (rep, when, TARGET,
                                                  p.describe()))
    os.kill(p.pid, signal.SIGSTOP)


def stalled_storm(h, rep, p, ip, watch, loops, target_fd, rng, scale):
    """The storm with the veth pairs and a running reader, then the two
    stops; returns when loop339 was attached."""
    while loops.i < LOOP_CYCLES - STALL_CYCLES - REFILL_CYCLES or \
            ip.poll() is None:
        loops.cycle()
    # A reader still congested from the storm above (it overflowed and
    # has not yet read its queue empty; a slow one, under valgrind or on
    # a loaded machine) is told of no new overflow: the kernel reports
    # one per congestion. Stop it only once its last overflow, if any,
    # was followed by its queue read empty.
    def caught_up():
        watch.count(OVERFLOWED)     # reads what is new
        return watch.last != OVERFLOWED or not p.running()
    if not host.poll(caught_up, 30 * scale, 0.001):
        raise host.Failure("rep %d: the reader did not catch up with "
                           "the storm (%d overflows logged, %d queues "
                           "read empty)\n%s"
                           % (rep, watch.count(OVERFLOWED),
                              watch.count(DRAINED), p.describe()))
    before = watch.count(OVERFLOWED)
    stop_reader(p, rep, "before its first stop")
    try:
        for _ in range(STALL_CYCLES):
            loops.cycle()
    finally:
        os.kill(p.pid, signal.SIGCONT)
    if not host.poll(lambda: watch.count(OVERFLOWED) > before or
                     not p.running(), 10 * scale, 0.0002):
        raise host.Failure("rep %d: %d cycles into a stopped reader: "
                           "no overflow logged after it resumed\n%s"
                           % (rep, STALL_CYCLES, p.describe()))
    stop_reader(p, rep, "before its second stop")
    try:
        for _ in range(REFILL_CYCLES):
            loops.cycle()
        t_attach = loops.attach(TARGET, target_fd)
        for _ in range(rng.randrange(0, 64)):
            loops.cycle()
    finally:
        os.kill(p.pid, signal.SIGCONT)
    return t_attach


def one_storm(h, rep, rng, mon, storm_fd, target_fd, scale):
    """One repetition, live or stalled (see the top); returns its
    figures, raises Failure on a miss."""
    node = "/dev/loop%d" % TARGET
    stalled = rep % 2 == 1
    rcvbuf = RCVBUF_STALLED if stalled else RCVBUF_LIVE
    p = h.start([h.waitdev, "-vv", "--cmdline", "", "--root", node,
                 "--rcvbuf", str(rcvbuf), "--timeout", "%g" % (30 * scale),
                 "--format", "shell"])
    watch = host.StderrWatch(p, ("subscribed at", OVERFLOWED, DRAINED))
    if not host.poll(lambda: watch.seen("subscribed at") or not p.running(),
                     10 * scale, 0.005) or not p.running():
        raise host.Failure("rep %d: waitdev did not subscribe\n%s"
                           % (rep, p.describe()))
    mon.drain()
    ip = subprocess.Popen(["ip", "-force", "-batch", "-"], text=True,
                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    t0 = time.monotonic()
    ip.stdin.write(veth_script())
    ip.stdin.close()
    loops = LoopCycler(storm_fd)
    if stalled:
        late, t_attach = True, stalled_storm(h, rep, p, ip, watch, loops,
                                             target_fd, rng, scale)
    else:
        late, t_attach = live_storm(h, rep, p, ip, watch, loops, target_fd,
                                    rng, scale, rcvbuf, t0)
    attached_at = None if t_attach is None else loops.attached_at
    err = ip.stderr.read()
    ip.wait(60)
    t_end = time.monotonic()
    if ip.returncode != 0:
        raise host.Fatal("ip -batch (veth pairs): status %d: %s"
                         % (ip.returncode, err.strip()))
    rc = p.wait(10)    # Proc.wait scales it
    time.sleep(0.02)   # the last uevents of the storm reach the counter
    events = mon.drain()
    h.check(rc is not None, "rep %d: MISSED - waitdev still waits 10 s "
            "after the storm, loop%d attached at cycle %s"
            % (rep, TARGET, attached_at), p)
    h.check(attached_at is not None, "rep %d: waitdev ended before the "
            "target was attached" % rep, p)
    h.check(rc == 0, "rep %d: expected exit status 0" % rep, p)
    h.check("WAITDEV_ROOT='%s'" % node in p.stdout.splitlines(),
            "rep %d: expected WAITDEV_ROOT='%s'" % (rep, node), p)
    c = host.counters(p.stderr)
    h.check(c is not None, "rep %d: no statistics line" % rep, p)
    h.check(c["overflows"] >= 1, "rep %d: no ENOBUFS counted" % rep, p)
    h.check(c["rescans"] >= 1, "rep %d: no rescan counted" % rep, p)
    by_rescan = "found by the rescan after an overflow" in p.stderr
    own = re.search(r"uevent change block /devices/virtual/block/loop%d$"
                    % TARGET, p.stderr, re.M) is not None
    # waitdev's own clock: when it started, and how long until found
    m = re.search(r"started at (\d+) ms", p.stderr)
    f = re.search(r"found %s after (\d+)\.(\d+) s" % node, p.stderr)
    h.check(m and f, "rep %d: expected 'started at N ms' and 'found %s "
            "after S s' on stderr" % (rep, node), p)
    found = (int(m.group(1)) + int(f.group(1)) * 1000 +
             int(f.group(2))) / 1000.0
    # lost or not, the target is a rescan away, not a later storm away
    h.within(found - t_attach, LATENCY_MAX * scale,
             "rep %d: from the attach to found" % rep, p)
    h.detach(TARGET)
    return {"events": events, "storm_s": t_end - t0, "cycles": loops.i,
            "rcvbuf": rcvbuf, "stalled": stalled,
            "attached_at": attached_at, "late": late,
            "overflows": c["overflows"],
            "rescans": c["rescans"], "by_rescan": by_rescan,
            "own_lost": by_rescan and not own,
            "latency_s": found - t_attach}


def body(h):
    scale = h.scale
    for n in LOOPS:
        h.loop(n)
    h.require_veth()
    storm_img = h.image("storm", fs=None, size=1 << 20)
    target_img = h.image("target", "ext4")
    storm_fd = os.open(storm_img, os.O_RDWR | os.O_CLOEXEC)
    target_fd = os.open(target_img, os.O_RDWR | os.O_CLOEXEC)
    for i in range(VETH_PAIRS):
        h.links.append("%s%da" % (IFPREFIX, i))
    mon = host.UeventCounter(rb"/(loop3\d\d|wds[^/]*)(/|$)")
    rng = random.Random(SEED)
    host.log("  %d repetitions, %d loop cycles and %d veth pairs a "
             "storm, seed %d" % (REPS, LOOP_CYCLES, VETH_PAIRS, SEED))
    with h.case("%d storms into a small receive buffer: ENOBUFS, rescan, "
                "loop%d found every time" % (REPS, TARGET)):
        t = time.monotonic()
        res = []
        missed = []
        for rep in range(REPS):
            try:
                r = one_storm(h, rep, rng, mon, storm_fd, target_fd, scale)
            except host.Failure as e:
                missed.append("%d (%s)" % (rep, str(e).split("\n")[0]))
                host.log("FAIL: %s" % e)
                h.detach(TARGET)
                continue
            finally:
                for p in h.procs:
                    p.kill()
                h.procs = []
            res.append(r)
            host.log("  rep %3d: --rcvbuf %d%s: %5d uevents in %.3f s, "
                     "%d cycles, "
                     "loop%d at cycle %d%s, %d overflows, %d rescans, "
                     "found by %s%s %.1f ms after the attach"
                     % (rep, r["rcvbuf"], ", stalled" if r["stalled"]
                        else "", r["events"], r["storm_s"], r["cycles"],
                        TARGET, r["attached_at"],
                        " (the end)" if r["late"] else "", r["overflows"],
                        r["rescans"], "rescan" if r["by_rescan"]
                        else "uevent", " (its uevent was lost)"
                        if r["own_lost"] else "",
                        r["latency_s"] * 1000))
        wall = time.monotonic() - t
        ev = [r["events"] for r in res] or [0]
        lat = [r["latency_s"] for r in res] or [0]
        host.log(
            "storm figures: %d repetitions, %d found, %d missed; uevents "
            "per storm min %d median %d max %d (%d in all); overflows "
            "per storm median %d; found by a rescan %d times, %d of them "
            "after the target's own uevent was lost (%d of them in the "
            "stalled runs); found after the attach in median %.1f ms, max "
            "%.1f ms; %.1f s in all"
            % (REPS, len(res), len(missed), min(ev), statistics.median(ev),
               max(ev), sum(ev),
               statistics.median([r["overflows"] for r in res] or [0]),
               sum(r["by_rescan"] for r in res),
               sum(r["own_lost"] for r in res),
               sum(r["own_lost"] for r in res if r["stalled"]),
               statistics.median(lat) * 1000, max(lat) * 1000, wall))
        host.log("  command: meson test -C build --suite host storm "
                 "(WAITDEV_STORM_REPS=%d WAITDEV_STORM_SEED=%d)"
                 % (REPS, SEED))
        h.check(not missed, "missed or failed in %d of %d repetitions: %s"
                % (len(missed), REPS, "; ".join(missed)))
        h.check(min(ev) >= 1000, "a storm made only %d uevents: not a "
                "storm" % min(ev))
        h.check(any(r["own_lost"] for r in res),
                "in no repetition was the target's own uevent lost: the "
                "rescan path was never what found it")
    mon.close()
    os.close(storm_fd)
    os.close(target_fd)


host.main("storm", body, loops=LOOPS, ifprefix=IFPREFIX)
