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
    tools/py test/qemu/demo.py --no-stick [--base 6.1|6.12] [--quiet]

--no-stick boots kernel/'s patched kernel instead (the USB settle
series; kernel/build makes it) with a virtio disk and no stick, and
waitdev.root=LABEL=KSTICK|LABEL=KDISK waitdev.settle=1: the timeline
shows the certain give-up on the stick once USB has settled and the
fallback to the disk, against the 30 s deadline it did not wait out.

(./demo runs it after the static build.)
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

from waitdevtest import TOP, harness
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
    ap.add_argument("--no-stick", action="store_true",
                    help="no stick: the give-up once USB has settled and "
                    "the fallback to the disk (kernel/'s patched kernel)")
    ap.add_argument("--base", default="6.12", choices=("6.1", "6.12"),
                    help="--no-stick: the kernel base (default 6.12)")
    a = ap.parse_args()
    if not a.quiet:
        os.environ["WAITDEV_QEMU_VERBOSE"] = "1"
    work = tempfile.mkdtemp(prefix="waitdev-demo-")
    try:
        return no_stick(a, work) if a.no_stick else demo(a, work)
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


def no_stick(a, work):
    """The --no-stick demo, with test/kernel/boot.py's boot (its /init
    runs waitdev -v with the keys below and watches the attribute)."""
    sys.path.insert(0, os.path.join(TOP, "test", "kernel"))
    import boot as kboot
    kboot.BASE = a.base
    append = ("ktest.kmsg=1 waitdev.settle=1 "
              "waitdev.root=LABEL=%s|LABEL=KDISK waitdev.timeout=30"
              % kboot.STICK_LABEL)
    print("kernel command line (patched %s): ... %s\n" % (a.base, append),
          flush=True)
    try:
        w = kboot.WaitdevBoot(
            work, "demo-no-stick", a.waitdev, append,
            ["-device", "qemu-xhci,id=xhci0",
             "-drive", "file=%s,if=virtio,format=raw"
             % kboot.disk_image(work)])
    except kboot.TestFailure as e:
        raise harness.HarnessError(str(e))
    r = w.result
    steps = [
        ("kernel start", 0.0),
        ("kernel: the virtio disk vda (LABEL=KDISK)",
         r.stamp(r"virtio_blk .*\[vda\]")),
        ("kernel: the xHCI root hubs", r.stamp(r"hub 2-0:1.0: USB hub found")),
        ("/init start", r.time_to_init()),
        ("waitdev starts", r.stamp(r"ktest: waitdev starts")),
        ("waitdev: the disk found (alternative 2: waits for the stick)",
         r.stamp(r"waitdev: root LABEL=KDISK: found /dev/vda")),
        ("/sys/bus/usb/settle reads \"settled\" (a 10 ms watch)",
         r.stamp(r"ktest: the watch read settled")),
        ("waitdev: the stick given up: USB settled, not there",
         r.stamp(r"waitdev: root LABEL=%s: USB settled at" % kboot.STICK_LABEL)),
        ("waitdev: the disk taken", r.stamp(r"waitdev: root LABEL=KDISK: taken")),
        ("waitdev exits, status %d" % w.rc, r.stamp(r"ktest: waitdev exited")),
        ("the 30 s deadline it did not wait for",
         (r.stamp(r"ktest: waitdev starts") or w.t0) + 30),
    ]
    print("\ntimeline (the kernel log's clock, seconds since the kernel "
          "started):")
    steps.sort(key=lambda s: (s[1] is None, s[1] or 0))
    for name, t in steps:
        print("  %8s  %s" % ("%.3f" % t if t is not None else "?", name))
    print("\nwaitdev: %s" % " ".join(w.out))
    ok = w.rc == 0 and "WAITDEV_ROOT='/dev/vda'" in w.out and w.gave_up()
    if ok and w.settled_at is not None:
        print("the stick was given up %.2f s after the watch saw the settle, "
              "%.1f s before the deadline; the disk is the root."
              % (w.t1 - w.settled_at, w.t0 + 30 - w.t1))
    print("\n%s" % ("no stick: the disk, without a timeout." if ok else
                    "FAILED: expected the stick given up and /dev/vda"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
