#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What waitdev's readiness probe costs, per filesystem and command line.

For each filesystem (ext4, vfat, xfs, btrfs: the mkfs tools that are
installed) one 512 MiB sparse image is made; for each sample it is
attached to /dev/loop202 (LOOP_SET_FD on a freshly detached device, so the
loop device's page cache is cold), then

    waitdev -v --source kernel --cmdline "CMDLINE" --timeout 5

runs with each command line of --variant (default: root=/dev/loop202,
root=UUID=..., and root=UUID=... rootfstype=FS), and the -v line
"loop202: probe: N reads, N KiB, N.N ms: TYPE" is read. The reads are
the requests the loop device completed while the probe ran (its sysfs
stat before and after, every reader counted: run it on a quiet machine,
without udevd). Medians over --samples; the script fails only when a
waitdev does not exit 0 or logs no probe.

Needs root, /dev/loop-control and the static or dynamic waitdev built with
libblkid. Uses loop202 only (bench/latency.py's range, 200-209) and
/run/waitdev-bench.lock.
"""

import argparse
import fcntl
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

from waitdevtest import TOP, log, probe_lines
from waitdevtest.host import LOOP_SET_FD, loop_add, loop_detach

LOOP = 202
LOCK_PATH = "/run/waitdev-bench.lock"
SIZE = 512 << 20
# mkfs options setting the UUID
MKFS = {
    "ext4": lambda u: ["mkfs.ext4", "-q", "-F", "-U", u],
    "vfat": lambda u: ["mkfs.vfat", "-i", u.replace("-", "")[:8]],
    "xfs": lambda u: ["mkfs.xfs", "-q", "-f", "-m", "uuid=" + u],
    "btrfs": lambda u: ["mkfs.btrfs", "-q", "-f", "-U", u],
}
DEFAULT_VARIANTS = ["root=/dev/loop{n}", "root=UUID={uuid}",
                    "root=UUID={uuid} rootfstype={fs}"]


def blkid_uuid(img):
    r = subprocess.run(["blkid", "-p", "-s", "UUID", "-o", "value", img],
                       capture_output=True, text=True)
    return r.stdout.strip()


def make_image(work, fs):
    if not shutil.which(MKFS[fs]("")[0]):
        return None, None
    img = os.path.join(work, fs + ".img")
    with open(img, "wb") as f:
        f.truncate(SIZE)
    subprocess.run(MKFS[fs](str(uuid.uuid4())) + [img], check=True,
                   stdout=subprocess.DEVNULL)
    return img, blkid_uuid(img)


def one(args, img, cmdline):
    """Attaches @img cold, runs waitdev with @cmdline: the probe dict."""
    if not loop_detach(LOOP, 5):
        raise SystemExit("loop%d: cannot detach" % LOOP)
    dev = "/dev/loop%d" % LOOP
    bfd = os.open(img, os.O_RDWR | os.O_CLOEXEC)
    lfd = os.open(dev, os.O_RDWR | os.O_CLOEXEC)
    try:
        fcntl.ioctl(lfd, LOOP_SET_FD, bfd)
    finally:
        os.close(lfd)
        os.close(bfd)
    argv = [args.waitdev, "-v", "--source", "kernel", "--cmdline", cmdline,
            "--timeout", "5"]
    r = subprocess.run(argv, capture_output=True, text=True)
    loop_detach(LOOP, 5)
    probes = probe_lines(r.stderr, "loop%d" % LOOP)
    if r.returncode != 0 or not probes:
        raise SystemExit("%s: status %d, %d probe lines\n%s"
                         % (shlex.join(argv), r.returncode, len(probes),
                            r.stderr))
    return probes[-1]


def med(vals, fmt="%g"):
    vals = [v for v in vals if v is not None]
    return fmt % statistics.median(vals) if vals else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--waitdev",
                    default=os.path.join(TOP, "build/src/waitdev/waitdev"))
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--fs", default="ext4,vfat,xfs,btrfs")
    ap.add_argument("--variant", action="append",
                    help="a command line; {n}, {uuid} and {fs} are "
                         "replaced (repeatable; default: %s)"
                         % " | ".join(DEFAULT_VARIANTS))
    args = ap.parse_args()
    if os.geteuid() != 0 or not os.path.exists("/dev/loop-control"):
        log("probe-reads: needs root and /dev/loop-control")
        return 77
    variants = args.variant or DEFAULT_VARIANTS
    lock = open(LOCK_PATH, "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    loop_add(LOOP)
    version = subprocess.run([args.waitdev, "--version"], capture_output=True,
                             text=True).stdout.strip()
    print("command: %s" % shlex.join(getattr(sys, "orig_argv", sys.argv)))
    print("date:    %s" % time.strftime("%Y-%m-%d %H:%M:%S %z"))
    print("kernel:  %s" % os.uname().release)
    print("waitdev: %s (%s)" % (args.waitdev, version))
    print("images:  %d MiB sparse, attached cold to /dev/loop%d per sample"
          % (SIZE >> 20, LOOP))
    print()
    rows = []
    with tempfile.TemporaryDirectory(prefix="waitdev-probe-",
                                     dir="/var/tmp") as work:
        for fs in args.fs.split(","):
            img, u = make_image(work, fs)
            if not img:
                log("probe-reads: mkfs for %s missing, skipped" % fs)
                continue
            for v in variants:
                cmdline = v.format(n=LOOP, uuid=u, fs=fs)
                ps = [one(args, img, cmdline) for _ in range(args.samples)]
                rows.append((fs, v.format(n=LOOP, uuid="U", fs=fs), ps))
                log("  %s %s: %s reads" % (fs, cmdline,
                                          med(p["reads"] for p in ps)))
    print("| fs | command line (U: its UUID) | n | reads | KiB | ms | "
          "found |")
    print("|---|---|---:|---:|---:|---:|---|")
    for fs, v, ps in rows:
        print("| %s | `%s` | %d | %s | %s | %s | %s |" % (
            fs, v, len(ps), med(p["reads"] for p in ps),
            med((p["bytes"] / 1024 if p["bytes"] is not None else None
                 for p in ps)),
            med((p["ms"] for p in ps), "%.1f"),
            ", ".join(sorted({p["what"] for p in ps}))))
    print("\n(medians; reads: requests the device completed while the "
          "probe ran, all readers counted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
