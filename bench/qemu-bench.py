#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""waitdev against the waits used today, in one QEMU guest, side by side.

Two parts, both on Debian's kernel with the harness of test/qemu:

Latency (one boot, --plugs rounds).  Each round the guest (bench/qemu-init.sh
under `guest-stamp race`) starts together, before the stick is plugged:
  waitdev          --root /dev/sda1 --source kernel (libblkid: ready when
                   ext4 is recognised on it)
  waitdev-nolibs   the same without libblkid (ready at size > 0), if given
  poll-1000ms-findfs  initramfs-tools: every 1 s, fork a prober
                   (busybox findfs UUID=..., as `blkid -t UUID=...`)
  poll-500ms       dracut's non-systemd main loop: /dev/sda1 exists?
  poll-50ms        tiny-initramfs: /dev/sda1 exists?
  poll-5ms         the kernel's rootwait: /sys/class/block/sda1 exists?
  rootdelay-10s    sleep 10 s, then /dev/sda1 exists?
then prints BENCH-READY; the host waits a random --plug-delay (so the loops
are at a random phase) and plugs a USB stick by QMP device_add.  The guest
stamps with CLOCK_MONOTONIC the kernel's "add" uevent for sda1 and the exit
of each waiter; delay = exit - uevent.  The host unplugs (device_del) and
the guest waits for sda to go before the next round.  Round 1 also warms
the caches and is left out of the figures (--warmup).

Boot time (--boots pairs of boots): the stick plugged 3 s after /init
starts; the harness's /init with waitdev, against /init doing what the
kernel does with rootdelay=10 (drivers loaded, sleep 10 s, mount).  The
figure is the guest's uptime at switch_root.

Writes OUT/qemu-YYYY-MM-DD.txt (the command, the machine, every round,
the tables) and, with gnuplot, OUT/qemu-latency.png.  Needs root (the
harness: depmod into its cache) and the static build (tools/build-static).
Exit: 0 done, 1 a boot or a waiter failed, 2 usage.
"""
import argparse
import datetime
import functools
import math
import os
import platform
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import waitdevtest
from waitdevtest import TOP, harness, probe_lines
from waitdevtest.harness import ROOT_UUID, HarnessError, usb_stick

BASE = "console=ttyS0 panic=-1 rdinit=/init rootfstype=ext4"

# name in the guest -> what it stands for (the table's order), plot label
METHODS = [
    ("waitdev", "waitdev (libblkid: ext4 recognised)", "waitdev"),
    ("waitdev-nolibs", "waitdev without libblkid (size > 0)",
     "waitdev\\nno libblkid"),
    ("poll-1000ms-findfs", "1 s loop forking findfs (initramfs-tools)",
     "1 s loop\\n+ findfs"),
    ("poll-500ms", "500 ms loop (dracut, no systemd)",
     "500 ms loop\\n(dracut)"),
    ("poll-50ms", "50 ms loop (tiny-initramfs)",
     "50 ms loop\\n(tiny-initramfs)"),
    ("poll-5ms", "5 ms loop (kernel rootwait)", "5 ms loop\\n(rootwait)"),
    ("rootdelay-10s", "rootdelay=10", "rootdelay=10"),
]


log = functools.partial(waitdevtest.log, tag="qemu-bench")


def p95(vals):
    """Nearest rank."""
    s = sorted(vals)
    return s[max(0, math.ceil(0.95 * len(s)) - 1)]


def strip_copy(src, dst):
    subprocess.run(["strip", "-o", dst, src], check=True)
    harness.check_static(dst)
    return dst


# ------------------------------------------------------------------ latency

def race_boot(a, env, rng):
    rounds = a.plugs + a.warmup
    # the stick: one read-only block node, plugged and unplugged each round
    # (a -drive would be deleted with its device at the first device_del)
    blockdev = ("driver=raw,node-name=stick,read-only=on,file.driver=file,"
                "file.filename=%s,file.locking=off" % env["disk"])
    append = ("%s quiet root=/dev/sda1 bench=race benchplugs=%d "
              "benchuuid=%s" % (BASE, rounds, ROOT_UUID))
    state = {"round": 0, "plugged": {}}

    def react(boot, qmp, t, line):
        m = re.search(r"BENCH-ROUND (\d+)", line)
        if m:
            state["round"] = int(m.group(1))
            log("round %d of %d" % (state["round"], rounds))
        r = state["round"]
        if "BENCH-READY" in line:
            time.sleep(rng.uniform(a.plug_delay[0], a.plug_delay[1]))
            qmp.cmd("device_add", driver="usb-storage", bus="xhci.0",
                    drive="stick", id="s%d" % r)
            state["plugged"][r] = time.monotonic()
        elif "BENCH-DONE" in line:
            qmp.cmd("device_del", id="s%d" % r)
        elif "BENCH-ERROR" in line:
            log("guest: " + line)

    b = harness.Boot(env["work"], env["vmlinuz"], env["initrd"], append,
                     ["-blockdev", blockdev,
                      "-device", "qemu-xhci,id=xhci"],
                     timeout=120 + rounds * 45, name="race", react=react)
    b.run()
    return b, append


def parse_probes(boot, warmup):
    """waitdev -v's probe lines per device, rounds after the warm-up:
    {dev: [probe dict]} (waitdevtest.probe_lines())."""
    out = {}
    for _, line in boot.serial:
        m = re.search(r"BENCH-PROBE (\d+) (.*)$", line)
        if not m or int(m.group(1)) <= warmup:
            continue
        for p in probe_lines(m.group(2)):
            out.setdefault(p["dev"], []).append(p)
    return out


def probe_table(probes):
    """Per device waitdev probed: medians of reads, KiB and ms."""
    rows = ["| device | probes | reads | KiB | ms | found |",
            "|---|---:|---:|---:|---:|---|"]
    for dev in sorted(probes):
        ps = probes[dev]
        io = [p for p in ps if p["reads"] is not None]
        rows.append("| %s | %d | %s | %s | %.1f | %s |" % (
            dev, len(ps),
            "%g" % statistics.median(p["reads"] for p in io) if io else "?",
            "%g" % (statistics.median(p["bytes"] for p in io) / 1024)
            if io else "?",
            statistics.median(p["ms"] for p in ps),
            ", ".join(sorted({p["what"] for p in ps}))))
    return rows


def parse_rounds(boot):
    """[(round, start_ns, uevent_ns, {name: (status, exit_ns)},
    {block device: its add uevent ns})]"""
    out, r, seen = [], None, {}
    for _, line in boot.serial:
        m = re.search(r"BENCH-ROUND (\d+)", line)
        if m:
            r, seen = int(m.group(1)), {}
        m = re.search(r"BENCH-UEVENTS((?: \S+:\d+)*)", line)
        if m:
            seen = {k: int(v) for k, v in
                    (item.split(":") for item in m.group(1).split())}
        m = re.search(r"BENCH-RESULT (\d+) (\d+)((?: \S+:\S+:\d+)+)", line)
        if m:
            res = {}
            for item in m.group(3).split():
                name, status, ns = item.split(":")
                res[name] = (status, int(ns))
            out.append((r, int(m.group(1)), int(m.group(2)), res, seen))
    return out


# ---------------------------------------------------------------- boot time

def boot_pair(a, env, i):
    out = {}
    for mode in ("waitdev", "rootdelay"):
        if mode == "waitdev":
            append = "%s root=/dev/sda1 waitdev.timeout=30" % BASE
        else:
            append = "%s root=/dev/sda1 rootdelay=10 bench=rootdelay" % BASE
        b = harness.Boot(env["work"], env["vmlinuz"], env["initrd"], append,
                         ["-drive", "if=none,id=rootdisk,format=raw,"
                          "readonly=on,file=" + env["disk"],
                          "-device", "qemu-xhci,id=xhci"],
                         [(3.0, *usb_stick())], 150,
                         "boot-%s-%d" % (mode, i))
        b.run()
        init = b.guest_time("WAITDEV-INIT-START")
        sw = b.guest_time("WAITDEV-SWITCH-ROOT")
        ok = "ROOT-INIT-OK" in b.text()
        out[mode] = (init, sw, ok, append)
    return out


# ------------------------------------------------------------------- report

def fmt_ms(v):
    return "%.1f" % v if abs(v) >= 10 else "%.2f" % v


def ratio(a, b):
    """a / b, or a dash when either is not above 0 (a loop that saw the
    node before the uevent: no meaningful ratio)."""
    if not (a > 0 and b > 0):
        return "–"
    return "%.1f×" % (a / b) if a / b >= 0.95 else "%.2f×" % (a / b)


def latency_table(delays, fails):
    def ref(name):
        v = delays.get(name)
        return (statistics.median(v), p95(v)) if v else (math.nan,) * 2
    wd_med, wd_p95 = ref("waitdev")
    nl_med, _ = ref("waitdev-nolibs")
    rows = ["| method | n | failed | median ms | p95 ms | min ms | max ms "
            "| median / waitdev | p95 / waitdev | median / waitdev "
            "no libblkid |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, what, _ in METHODS:
        v = delays.get(name)
        if v is None and not fails.get(name):
            continue
        if not v:
            rows.append("| %s | 0 | %d | | | | | | | |"
                        % (what, fails[name]))
            continue
        med, q = statistics.median(v), p95(v)
        rows.append("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            what, len(v), fails.get(name, 0), fmt_ms(med), fmt_ms(q),
            fmt_ms(min(v)), fmt_ms(max(v)), ratio(med, wd_med),
            ratio(q, wd_p95), ratio(med, nl_med)))
    return rows


def boot_table(pairs):
    rows = ["| /init waits with | boots | switch_root at (median s) "
            "| all switch_root times (s) | /init started at (median s) |",
            "|---|---:|---:|---|---:|"]
    meds = {}
    for mode, what in (("waitdev", "waitdev (`root=/dev/sda1`)"),
                       ("rootdelay", "rootdelay=10")):
        sw = [p[mode][1] for p in pairs if p[mode][1] is not None]
        init = [p[mode][0] for p in pairs if p[mode][0] is not None]
        if not sw:
            rows.append("| %s | 0 | | | |" % what)
            continue
        meds[mode] = statistics.median(sw)
        rows.append("| %s | %d | %.2f | %s | %.2f |" % (
            what, len(sw), meds[mode], " ".join("%.2f" % s for s in sw),
            statistics.median(init)))
    return rows, meds


FLOOR_MS = 0.1     # the plot's bottom: delays at or below it are drawn there


def plot(png, delays, data_path):
    """Every delay, one column per method, log scale; the median as a bar;
    delays <= FLOOR_MS (loops that saw the node before the kernel sent
    the uevent) as triangles on the bottom line."""
    gp = shutil.which("gnuplot")
    if not gp:
        log("no gnuplot (apt-get install gnuplot-nox): no PNG")
        return False
    cols = [(n, label) for n, _, label in METHODS if delays.get(n)]
    rng = random.Random(1)
    with open(data_path, "w") as f:
        for block in ("above", "floor"):
            for i, (n, _) in enumerate(cols):
                for v in delays[n]:
                    if (v > FLOOR_MS) == (block == "above"):
                        f.write("%.3f %.4f\n" % (
                            i + rng.uniform(-0.2, 0.2), max(v, FLOOR_MS)))
            f.write("-9 1\n\n\n")    # keeps the block non-empty
        for i, (n, _) in enumerate(cols):
            f.write("%d %.4f\n" % (i, max(statistics.median(delays[n]),
                                          FLOOR_MS)))
    labels = ", ".join('"%s" %d' % (label, i)
                       for i, (_, label) in enumerate(cols))
    script = """
set terminal pngcairo size 1000,600 font "sans,10"
set output "%s"
set title "From the kernel's uevent for the stick's partition to the waiter's exit\\n(one QEMU guest, %d plugs, all waiters started together)"
set ylabel "delay (ms, log scale)"
set logscale y
set yrange [%g:30000]
set format y "%%g"
set grid ytics mytics lc rgb "#dddddd"
set xrange [-0.6:%f]
set xtics (%s) nomirror
set bmargin 4
set key top left box opaque
plot "%s" index 0 using 1:2 with points pt 7 ps 0.6 lc rgb "#3070b0" title "one plug", \\
     "" index 1 using 1:2 with points pt 9 ps 0.9 lc rgb "#30a050" title "one plug, at or before the uevent (<= %g ms)", \\
     "" index 2 using 1:2:(0.3) with xerrorbars pt -1 lw 3 lc rgb "#c03020" title "median"
""" % (png, len(delays[cols[0][0]]), FLOOR_MS, len(cols) - 0.4, labels,
       data_path, FLOOR_MS)
    subprocess.run([gp], input=script.encode(), check=True)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--waitdev", default=harness.STATIC_WAITDEV)
    ap.add_argument("--waitdev-min",
                    default=os.path.join(TOP, "build-static/bin-min/waitdev"),
                    help="waitdev built without libraries ('' for none)")
    ap.add_argument("--guest-stamp", default=os.path.join(
        TOP, "build-static/build/bench/guest-stamp"))
    ap.add_argument("--plugs", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--boots", type=int, default=3,
                    help="boots of each kind for the boot time (0: none)")
    ap.add_argument("--plug-delay", default="0.5:2.0",
                    help="seconds between READY and the plug, uniform")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--out", default=os.path.join(TOP, "bench/results"))
    ap.add_argument("--work")
    ap.add_argument("--kernel")
    ap.add_argument("--modules")
    a = ap.parse_args()
    try:
        a.plug_delay = [float(x) for x in a.plug_delay.split(":")]
        assert len(a.plug_delay) == 2 and 0 <= a.plug_delay[0] <= \
            a.plug_delay[1]
    except (ValueError, AssertionError):
        ap.error("--plug-delay MIN:MAX")
    if a.plugs < 1 or a.warmup < 0 or a.boots < 0:
        ap.error("--plugs >= 1, --warmup and --boots >= 0")
    if os.geteuid() != 0:
        print("qemu-bench: needs root (the QEMU harness)", file=sys.stderr)
        return 1
    if a.seed is None:
        a.seed = random.SystemRandom().randrange(1 << 31)
    rng = random.Random(a.seed)
    command = " ".join(shlex.quote(x) for x in [
        "tools/py", os.path.relpath(os.path.abspath(sys.argv[0]), TOP)]
        + sys.argv[1:])

    work = a.work or tempfile.mkdtemp(prefix="waitdev-bench-")
    os.makedirs(work, exist_ok=True)
    extra = {
        "/bench/init": os.path.join(TOP, "bench/qemu-init.sh"),
        "/bench/guest-stamp": strip_copy(a.guest_stamp,
                                         os.path.join(work, "guest-stamp")),
    }
    if a.waitdev_min and os.path.exists(a.waitdev_min):
        extra["/bench/waitdev-min"] = strip_copy(
            a.waitdev_min, os.path.join(work, "waitdev-min"))
    try:
        env = harness.setup(work, a.waitdev, a.kernel, a.modules, extra)
    except (HarnessError, OSError, subprocess.CalledProcessError) as e:
        print("qemu-bench: setup failed: %s" % e, file=sys.stderr)
        return 1
    accel = "kvm" if harness.kvm_works(env["vmlinuz"]) else "tcg"
    versions = subprocess.run([a.waitdev, "--version"], capture_output=True,
                              text=True).stdout.strip()
    qemu_v = subprocess.run(["qemu-system-x86_64", "--version"],
                            capture_output=True,
                            text=True).stdout.splitlines()[0]
    t_start = time.monotonic()
    failed = False

    # -------- latency
    rounds, append = [], ""
    try:
        b, append = race_boot(a, env, rng)
        rounds = parse_rounds(b)
        if "BENCH-FINISHED" not in b.text():
            log("the guest did not finish its rounds")
            failed = True
    except HarnessError as e:
        log("race boot failed: %s" % e)
        failed = True
        b = None
    probes = parse_probes(b, a.warmup) if b is not None else {}
    delays, fails, raw, disk_gap = {}, {}, [], []
    for r, start, uevent, res, seen in rounds:
        line = "round %3d  uevent at +%8.1f ms" % (r, (uevent - start) / 1e6)
        if "sda" in seen and uevent:
            # the disk is announced first, then its partitions
            line += " (sda's %s)" % fmt_ms((seen["sda"] - uevent) / 1e6)
            if r > a.warmup:
                disk_gap.append((uevent - seen["sda"]) / 1e6)
        for name, (status, ns) in res.items():
            if status == "0" and uevent:
                d = (ns - uevent) / 1e6
                line += "  %s %s" % (name, fmt_ms(d))
                if r > a.warmup:
                    delays.setdefault(name, []).append(d)
            else:
                line += "  %s FAILED(%s)" % (name, status)
                if r > a.warmup:
                    fails[name] = fails.get(name, 0) + 1
        raw.append(line + ("  (warm-up)" if r <= a.warmup else ""))
    if not uevent_ok(rounds, a):
        failed = True
    if any(fails.values()) or len(delays.get("waitdev", [])) < a.plugs:
        failed = True

    # -------- boot time
    pairs = []
    for i in range(a.boots):
        try:
            pairs.append(boot_pair(a, env, i + 1))
        except HarnessError as e:
            log("boot pair %d failed: %s" % (i + 1, e))
            failed = True
    for p in pairs:
        for mode in p:
            if not p[mode][2]:
                log("%s boot: the root's /sbin/init did not run" % mode)
                failed = True

    # -------- report
    today = datetime.date.today().isoformat()
    os.makedirs(a.out, exist_ok=True)
    txt = os.path.join(a.out, "qemu-%s.txt" % today)
    png = os.path.join(a.out, "qemu-latency.png")
    lines = [
        "command:  " + command,
        "date:     " + datetime.datetime.now().astimezone().strftime(
            "%Y-%m-%d %H:%M:%S %z"),
        "host:     %s %s, %d CPUs, %s" % (platform.system(),
                                          platform.release(),
                                          os.cpu_count(), cpu_model()),
        "qemu:     %s, -accel %s, -smp 1, -m 512" % (qemu_v, accel),
        "guest:    Debian %s" % env["kver"],
        "waitdev:  " + versions,
        "seed:     %d (plug %.1f..%.1f s after READY)" % (
            a.seed, a.plug_delay[0], a.plug_delay[1]),
        "race boot command line: " + append,
        "elapsed:  %.0f s" % (time.monotonic() - t_start),
        "",
        "uevent -> exit, ms, guest CLOCK_MONOTONIC, per round "
        "(first %d: warm-up, not counted):" % a.warmup,
    ] + raw + [
        "",
        "Delay from the kernel's \"add\" uevent of sda1 to the waiter's "
        "exit, %d plugs:" % a.plugs,
        "",
    ] + latency_table(delays, fails)
    if disk_gap:
        lines += ["", "The disk's own uevent (sda) came before sda1's by "
                  "%s ms (median; min %s, max %s)." % (
                      fmt_ms(statistics.median(disk_gap)),
                      fmt_ms(min(disk_gap)), fmt_ms(max(disk_gap)))]
    lines += ["", "waitdev's probes (waitdev -v: read requests each "
              "device completed while its probe ran, the bytes they "
              "read, the probe's duration; medians):", ""]
    lines += probe_table(probes) if probes else [
        "(none logged: a waitdev without libblkid, or an older one)"]
    if pairs:
        rows, meds = boot_table(pairs)
        lines += ["", "Boot time to switch_root, stick plugged 3 s after "
                  "/init started (guest uptime):", ""] + rows
        if len(meds) == 2:
            lines.append("")
            lines.append("rootdelay=10 reaches switch_root %.2f s later "
                         "than waitdev." % (meds["rootdelay"] -
                                            meds["waitdev"]))
        lines.append("")
        lines.append("boot command lines: %s | %s" % (
            pairs[0]["waitdev"][3], pairs[0]["rootdelay"][3]))
    report = "\n".join(lines) + "\n"
    print(report)
    with open(txt + ".tmp", "w") as f:
        f.write(report)
    os.replace(txt + ".tmp", txt)
    log("wrote %s" % txt)
    if delays.get("waitdev") and plot(png, delays,
                                      os.path.join(work, "latency.dat")):
        log("wrote %s" % png)
    if failed and b is not None:
        log("guest console, last 40 lines:")
        for _, l in b.serial[-40:]:
            print("  | " + l, file=sys.stderr)
    if failed:
        log("kept the work directory %s" % work)
    elif not a.work:
        shutil.rmtree(work, ignore_errors=True)    # ~50 MB of images
    return 1 if failed else 0


def uevent_ok(rounds, a):
    ok = True
    for r, _, uevent, _, _ in rounds:
        if not uevent:
            log("round %d: no add uevent for sda1 seen" % r)
            ok = False
    if len(rounds) < a.plugs + a.warmup:
        log("only %d of %d rounds reported" % (len(rounds),
                                               a.plugs + a.warmup))
        ok = False
    return ok


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


if __name__ == "__main__":
    sys.exit(main())
