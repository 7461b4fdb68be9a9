#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
With and without waitdev, in the images the distributions' own generators
make: dracut (shell initrd) and initramfs-tools' mkinitramfs, each built
once with the hooks of hooks/ and once without (waitdevtest.images),
booted in QEMU with the root file system (root=UUID=) on a USB stick
plugged 3 s (--plug-at) after init started (waitdevtest.images' late
boot).

    tools/py bench/distro-bench.py [--waitdev PATH] [--boots N] [--plug-at S]
                                   [--out DIR]

Per boot, from the host's clock (time.monotonic() of the QMP device_add
and of the console lines as they arrived):
  plug->init   the hot-plug to the root's /sbin/init ("ROOT-INIT-OK",
               printed right after switch_root);
  disk->init   the kernel's partition line for the stick (" sda: sda1")
               to the root's init: the same minus USB enumeration, which
               neither variant can change.
The four images boot round-robin in a new shuffled order each round, so
that the machine's load falls on all of them alike. Prints a table of
medians (and min-max) and the command line; with --out, also writes it to
DIR/distro-DATE.txt. A measurement, never pass/fail: it exits 1 only when
a boot did not reach the root's init.
"""
import argparse
import datetime
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

from waitdevtest import harness, images

VARIANTS = [(t, w) for t in images.TOOLS for w in (False, True)]


def label(tool, with_waitdev):
    return "%s %s" % (tool, "with waitdev" if with_waitdev else "stock")


def one_boot(env, tool, with_waitdev, i, plug_at):
    name = "bench-%s-%s-%d" % (tool, "waitdev" if with_waitdev else "stock",
                               i)
    b, plug_init = images.boot_late(env, tool, name, plug_at)
    disk = b.first(r" sda: sda1")
    init = b.first(r"ROOT-INIT-OK")
    if plug_init is None or disk is None:
        raise harness.HarnessError("%s: no root init or no disk line; "
                                   "console tail:\n%s"
                                   % (name, b.text()[-3000:]))
    return plug_init, init - disk


def fmt(xs):
    return "%6.2f (%5.2f-%5.2f)" % (statistics.median(xs), min(xs), max(xs))


def report(results, boots, plug_at, argv, waitdev, kver):
    ver = subprocess.run([waitdev, "--version"], capture_output=True,
                         text=True).stdout.strip()
    out = []
    out.append("# bench/distro-bench.py: plug of the root's USB stick to "
               "the root's /sbin/init")
    out.append("# command: %s" % " ".join(argv))
    out.append("# date: %s UTC" % datetime.datetime.utcnow()
               .strftime("%Y-%m-%d %H:%M"))
    out.append("# host: %s, %d CPUs, load %s; QEMU %s; guest kernel %s"
               % (platform.node(), os.cpu_count(),
                  " ".join("%.2f" % x for x in os.getloadavg()),
                  "KVM" if harness._kvm_works else "TCG", kver))
    out.append("# waitdev: %s" % ver)
    out.append("# stick plugged %.1f s after init started; %d boots per "
               "image; seconds: median (min-max), host clock"
               % (plug_at, boots))
    out.append("")
    out.append("%-26s %-22s %-22s" % ("image", "plug->init", "disk->init"))
    for tool, w in VARIANTS:
        r = results[(tool, w)]
        out.append("%-26s %-22s %-22s" % (label(tool, w),
                                          fmt([x[0] for x in r]),
                                          fmt([x[1] for x in r])))
    out.append("")
    for tool in images.TOOLS:
        s = statistics.median(x[0] for x in results[(tool, False)])
        w = statistics.median(x[0] for x in results[(tool, True)])
        out.append("%s: waitdev saves %.2f s of the median plug->init "
                   "(%.2f -> %.2f s)" % (tool, s - w, s, w))
    out.append("")
    out.append("# every boot (plug->init, disk->init), in the order run:")
    for tool, w in VARIANTS:
        out.append("# %-24s %s" % (label(tool, w), "  ".join(
            "%.2f/%.2f" % x for x in results[(tool, w)])))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    ap.add_argument("--waitdev", default=harness.STATIC_WAITDEV)
    ap.add_argument("--boots", type=int, default=5,
                    help="boots per image (default 5)")
    ap.add_argument("--plug-at", type=float, default=images.PLUG_AT,
                    help="seconds after init started (default %.0f)"
                    % images.PLUG_AT)
    ap.add_argument("--out", help="also write DIR/distro-DATE[-plugN].txt")
    ap.add_argument("--work", help="keep images and logs here")
    ap.add_argument("--seed", type=int, default=None,
                    help="seed of the boot order (default: random)")
    a = ap.parse_args()
    if a.boots < 1:
        print("distro-bench.py: --boots must be at least 1",
              file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("distro-bench.py: needs root (as test/distro)",
              file=sys.stderr)
        return 1
    work = a.work or tempfile.mkdtemp(prefix="waitdev-distro-bench-")
    waitdev = os.path.abspath(a.waitdev)
    rng = random.Random(a.seed)
    try:
        disk = harness.build_root_disk(work)[0]
        envs = {}
        for tool, w in VARIANTS:
            env = images.build(tool, os.path.join(work, "img"),
                               waitdev if w else None)
            envs[(tool, w)] = dict(env, disk=disk, work=work)
        results = {v: [] for v in VARIANTS}
        for i in range(a.boots):
            order = VARIANTS[:]
            rng.shuffle(order)
            for tool, w in order:
                r = one_boot(envs[(tool, w)], tool, w, i, a.plug_at)
                results[(tool, w)].append(r)
                harness.log("%s #%d: plug->init %.2f s, disk->init %.2f s"
                            % (label(tool, w), i + 1, r[0], r[1]))
        text = report(results, a.boots, a.plug_at, sys.argv, waitdev,
                      envs[VARIANTS[0]]["kver"])
    except harness.HarnessError as e:
        print("distro-bench.py: %s" % e, file=sys.stderr)
        return 1
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    print(text, end="")
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        suffix = "" if a.plug_at == images.PLUG_AT else \
            "-plug%g" % a.plug_at
        path = os.path.join(a.out, "distro-%s%s.txt"
                            % (datetime.date.today().isoformat(), suffix))
        with open(path, "w") as f:
            f.write(text)
        print("written to %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
