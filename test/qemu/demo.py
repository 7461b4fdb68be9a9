#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
The main job, shown live: Debian's kernel boots in QEMU with the waitdev
initramfs, the USB stick holding the root filesystem is plugged 3 s after
/init started, waitdev loads its drivers, finds the root by UUID the
moment it appears, and the root's /sbin/init runs. Ends with a timeline
in the guest's clock.

    tools/py test/qemu/demo.py [--waitdev PATH] [--plug-after S] [--quiet]
                               [--kernel VMLINUZ --modules TREE]

(./demo runs it after the static build.)
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

from waitdevtest import harness
from waitdevtest.harness import ROOT_UUID, usb_stick

APPEND = ("console=ttyS0 panic=-1 rdinit=/init rootfstype=ext4 "
          "root=UUID=%s rootdelay=60 initverbose=1 printk.devkmsg=on"
          % ROOT_UUID)
# initverbose=1: waitdev --verbose, so that the kernel log shows the
# modules it loads; printk.devkmsg=on, so that the kernel keeps all of
# its lines (it drops a writer's lines beyond 10 in 5 s otherwise)


def kernel_time(boot, pattern):
    """The kernel timestamp ([   5.123456]) of the first line matching."""
    hits = boot.kmsg(pattern)
    return hits[0][0] if hits else None


def probe_steps(boot):
    """Each of waitdev's probes (its -v line: the device's read requests,
    KiB and the probe's time), stamped when its result came."""
    rx = re.compile(r"waitdev: (\S+): probe: (.*)")
    return [("waitdev: %s probed: %s" % rx.search(l).groups(), t)
            for t, l in boot.kmsg(r"waitdev: \S+: probe: ")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--waitdev", default=harness.STATIC_WAITDEV)
    ap.add_argument("--plug-after", type=float, default=3.0)
    ap.add_argument("--quiet", action="store_true",
                    help="do not show the guest console live")
    ap.add_argument("--kernel", help="boot this kernel instead of "
                    "Debian's (with --modules)")
    ap.add_argument("--modules", help="the tree holding its "
                    "lib/modules/VERSION")
    a = ap.parse_args()
    if not a.quiet:
        os.environ["WAITDEV_QEMU_VERBOSE"] = "1"
    work = tempfile.mkdtemp(prefix="waitdev-demo-")
    try:
        return demo(a, work)
    except harness.HarnessError as e:
        print("demo: %s" % e, file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


def demo(a, work):
    env = harness.setup(work, a.waitdev, a.kernel, a.modules)
    print("kernel command line: %s\n" % APPEND, flush=True)
    b = harness.Boot(work, env["vmlinuz"], env["initrd"], APPEND,
                     ["-drive", "if=none,id=rootdisk,format=raw,file="
                      + env["disk"], "-device", "qemu-xhci,id=xhci"],
                     [(a.plug_after, *usb_stick())], 150, "demo")
    b.run()

    init = b.guest_time("WAITDEV-INIT-START")
    plugged = None
    if b.events and init is not None:
        plugged = init + (b.events[0][0] - b.init_at)
    steps = [
        ("kernel start", 0.0),
        ("/init start", init),
        ("stick plugged (QMP device_add)", plugged),
        ("kernel: new USB device (its uevent goes out)",
         kernel_time(b, r"usb \S+: new .*USB device")),
        # usb-storage's init binds the stick before the load returns
        ("kernel: usb-storage bound to the stick", kernel_time(
            b, r"USB Mass Storage device detected")),
        ("waitdev: uevent seen, usb-storage loaded", kernel_time(
            b, r"waitdev: loaded usb_storage for ")),
        ("disk and partition read", kernel_time(b, r"\bsda: sda1")),
    ] + probe_steps(b) + [
        ("waitdev: root found", kernel_time(b, r"waitdev: root .*: found")),
        ("switch_root", b.guest_time("WAITDEV-SWITCH-ROOT")),
        ("the root's /sbin/init runs", b.guest_time("ROOT-INIT-OK")),
    ]
    print("\ntimeline (guest clock, seconds since the kernel started):")
    for name, t in steps:
        print("  %8s  %s" % ("%.3f" % t if t is not None else "?", name))
    found = dict(steps)["waitdev: root found"]
    if found is not None and plugged is not None:
        print("\nwaitdev returned %.2f s after the plug; rootdelay=60 alone "
              "would have slept until %.1f s." % (found - plugged,
                                                  (init or 0) + 60))
    parted = dict(steps)["disk and partition read"]
    if found is not None and parted is not None:
        print("the kernel's partition line to waitdev's \"root found\": "
              "%.0f ms (the uevents, the probe, the result)."
              % ((found - parted) * 1000))
    ok = "ROOT-INIT-OK" in b.text()
    print("\n%s" % ("the late USB root booted." if ok else
                    "FAILED: the root's /sbin/init did not run"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
