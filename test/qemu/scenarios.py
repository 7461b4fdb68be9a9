#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
The QEMU boot scenarios: each boots Debian's kernel with the waitdev
initramfs (waitdevtest.harness) and asserts on what the guest printed.

    tools/py test/qemu/scenarios.py [--waitdev PATH]
        [--kernel VMLINUZ --modules TREE] [--work DIR] [--list] SCENARIO...

Times are measured in the guest (/proc/uptime printed by /init around
the wait) so that TCG's slowness and the host's load do not distort them.
Exit 0 when every scenario passed; each failure says which assertion.
"""
import os
import re
import shutil
import sys
import tempfile
import time

from waitdevtest import TOP, harness
from waitdevtest.harness import (DRIVE, MBR_ID, ROOT_LABEL, ROOT_PARTLABEL,
                                 ROOT_PARTUUID, ROOT_UUID, SECOND_PARTUUID,
                                 XHCI, Check, HarnessError, usb_stick)

BASE = "console=ttyS0 panic=-1 rdinit=/init rootfstype=ext4"


# the root's stick plugged in from the start
STICK = DRIVE + XHCI + ["-device", "usb-storage,bus=xhci.0,drive=rootdisk"]


def boot(env, name, append, args=(), plan=(), timeout=150):
    b = harness.Boot(env["work"], env["vmlinuz"], env["initrd"],
                     BASE + " " + append,
                     [a % env for a in args], plan, timeout, name)
    b.run()
    return b


def chardev_file(env, name):
    """A chardev backend writing to a new file in the work directory:
    (its path, the QMP chardev-add arguments)."""
    out = os.path.join(env["work"], name + ".out")
    if os.path.exists(out):
        os.unlink(out)
    return out, {"id": name, "backend": {"type": "file",
                                         "data": {"out": out}}}


def contents(path):
    return open(path, errors="replace").read() if os.path.exists(path) \
        else ""


def root_late(env, spec, name, plug_at=3.0):
    c = Check(name)
    b = boot(env, name, "waitdev.root=%s waitdev.timeout=30" % spec,
             DRIVE + XHCI, [(plug_at, *usb_stick())])
    c.exit_status(b)
    c.root_ran(b)
    c.waited_within(b, plug_at - 0.5, plug_at + 4,
                    "waited about %.0f s for the late stick" % plug_at)
    c.promptly(b, r"\bsda: sda1", r"waitdev: root .*: found /dev/sda1")
    return c, b


def s_root_dev(env):
    return root_late(env, "/dev/sda1", "root-late-sda1")


def s_root_uuid(env):
    return root_late(env, "UUID=" + ROOT_UUID, "root-late-uuid")


def s_root_partuuid(env):
    return root_late(env, "PARTUUID=" + ROOT_PARTUUID, "root-late-partuuid")


def s_root_label(env):
    return root_late(env, "LABEL=" + ROOT_LABEL, "root-late-label")


def s_root_partlabel(env):
    return root_late(env, "PARTLABEL=" + ROOT_PARTLABEL,
                     "root-late-partlabel")


def s_root_partnroff(env):
    # the partition one before the spare one: the root
    return root_late(env, "PARTUUID=%s/PARTNROFF=-1" % SECOND_PARTUUID,
                     "root-late-partnroff")


def s_root_mbr(env):
    # an MBR disk: PARTUUID is the disk signature and partition number
    env = dict(env, disk=env["disk_mbr"])
    return root_late(env, "PARTUUID=%s-01" % MBR_ID, "root-late-mbr")


def s_root_virtio(env):
    # a virtio disk hot-plugged into a PCI slot: the driver comes from
    # the PCI uevent's MODALIAS, the root by its filesystem UUID
    c = Check("root-late-virtio-blk")
    b = boot(env, "root-late-virtio-blk",
             "root=UUID=%s waitdev.timeout=30" % ROOT_UUID, DRIVE,
             [(3.0, "device_add", {"driver": "virtio-blk-pci",
                                   "drive": "rootdisk", "id": "vblk"})])
    c.exit_status(b)
    c.promptly(b, r"\bvda: vda1", r"waitdev: root .*: found /dev/vda1")
    c.waited_within(b, 2.5, 7, "waited about 3 s for the late disk")
    c.root_ran(b)
    return c, b


def s_root_dm(env):
    # an LVM-style root, /dev/VG/LV: the stick comes at 3 s, /init makes
    # the device-mapper device on its partition (as lvm would), and the
    # kernel's uevents only ever say dm-0
    c = Check("root-late-dm")
    b = boot(env, "root-late-dm", "root=/dev/wdt-vg/root waitdev.timeout=30 "
             "dmlinear=/dev/sda1:wdt--vg-root",
             DRIVE + XHCI, [(3.0, *usb_stick())])
    made = b.guest_time("WAITDEV-DM-CREATED")
    end = b.guest_time("WAITDEV-RC")
    c.exit_status(b)
    c.that(b.kmsg(r"waitdev: root /dev/wdt-vg/root: found /dev/dm-0"),
           "the kernel log says the root was found as the device-mapper "
           "device dm-0")
    c.that(made is not None and end is not None and end >= made,
           "found after the device-mapper device was made (%s, %s)"
           % (made, end))
    c.waited_within(b, 2.5, 9, "waited about 3 s")
    c.root_ran(b)
    return c, b


MD_UUID = "0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"


def s_md_member(env):
    # issue 14 item 3: an md 1.0 member made by mdadm in the guest
    # (scripts/md-member): its ext4 from sector 0 carries the array's
    # UUID, and only the assembled array is the root
    c = Check("md-member")
    img = os.path.join(env["work"], "md.img")
    with open(img, "wb") as f:
        f.truncate(20 << 20)
    harness.run(["mkfs.ext4", "-q", "-F", "-U", MD_UUID, img, "16M"])
    b = boot(env, "md-member", "testscript=md-member mdmember.uuid=%s"
             % MD_UUID, ["-drive", "if=virtio,format=raw,file=" + img])
    text = b.text()
    c.that("WDT-MD-CREATED 0" in text and "WDT-MD-STOPPED 0" in text,
           "mdadm made an md 1.0 RAID1 over vda, and stopped it")
    c.that("WDT-MEMBER-RC 1" in text, "the member alone: waitdev exits "
           "1 (the root UUID= not found)")
    c.that("WDT-MEMBER-SEEN" in text and "WDT-MEMBER-EXT4" not in text,
           "the member is seen as linux_raid_member, not as ext4")
    c.that("WDT-MD-ASSEMBLED 0" in text and
           re.search(r"WDT-ARRAY-RC 0 .*WAITDEV_ROOT='?/dev/md0", text, re.S),
           "the array assembled: waitdev exits 0 with /dev/md0 as the root")
    return c, b


def s_root_present(env):
    c = Check("root-present")
    b = boot(env, "root-present", "root=/dev/sda1", STICK)
    w = c.waited(b)
    c.exit_status(b)
    c.root_ran(b)
    # enumeration of a stick that is there still takes the kernel a
    # moment under TCG; no fixed delay is paid on top
    c.that(w is not None and w < 3, "no wait beyond enumeration (%s s)" % w)
    c.promptly(b, r"\bsda: sda1", r"waitdev: root .*: found /dev/sda1")
    return c, b


def root_never(env, name, append, secs):
    """The root never comes; waitdev gives up after @secs (the deadline
    @append sets), says what it saw instead, and /init goes on to its
    rescue message."""
    c = Check(name)
    b = boot(env, name, "root=/dev/sda1 " + append,
             DRIVE + XHCI + ["-drive", "if=virtio,format=raw,file=%(other)s"])
    c.exit_status(b, 1, " at the deadline")
    c.waited_within(b, secs - 0.1, secs + 1.5, "gave up at about %d s" % secs)
    c.that(b.kmsg(r"waitdev: root /dev/sda1: missing after %d\.0" % secs),
           "the diagnosis in the kernel log names the missing root")
    c.that(b.kmsg(r"waitdev: +seen block vda \(254:0, 4\.0 MiB"),
           "and lists what was seen instead (the virtio disk)")
    c.that("WAITDEV-RESCUE" in b.text(), "rescue message, not a panic")
    c.that("Kernel panic" not in b.text(), "no kernel panic")
    return c, b


def s_root_never(env):
    return root_never(env, "root-never", "waitdev.timeout=3", 3)


def s_rootdelay(env):
    c = Check("rootdelay-early")
    b = boot(env, "rootdelay-early", "root=/dev/sda1 rootdelay=10",
             DRIVE + XHCI, [(2.0, *usb_stick())])
    w = c.waited(b)
    c.exit_status(b)
    c.that(w is not None and w < 6, "rootdelay=10 is a bound, not a sleep:"
           " continued at %s s" % w)
    c.promptly(b, r"\bsda: sda1", r"waitdev: root .*: found /dev/sda1")
    c.root_ran(b)
    return c, b


def s_rootdelay_bound(env):
    # rootdelay= without waitdev.timeout= is waitdev's deadline: the
    # wait ends at 4 s, not at the default
    return root_never(env, "rootdelay-bound", "rootdelay=4", 4)


def late_console(env, name, append, qemu_args, device, tty):
    """A console device (@device, QMP device_add arguments) plugged 2 s
    after /init started, its output into a file: waitdev finds @tty, and
    consolewait's program writes to it."""
    c = Check(name)
    out, chardev = chardev_file(env, tty)
    b = boot(env, name, append, STICK + qemu_args,
             [(2.0, "chardev-add", chardev),
              (2.0, "device_add", dict(device, chardev=chardev["id"]))])
    c.exit_status(b)
    c.waited_within(b, 1.5, 7, "waited about 2 s for the late console")
    data = contents(out)
    c.that("WAITDEV-CONSOLE-HELLO on /dev/%s" % tty in data,
           "consolewait's program wrote to /dev/%s (%r)" % (tty, data[-200:]))
    return c, b


def s_console(env):
    c, b = late_console(
        env, "console-usb-serial",
        "root=/dev/sda1 waitdev.console=ttyUSB0 consoledelay=20000", [],
        {"driver": "usb-serial", "bus": "xhci.0", "id": "serial0"},
        "ttyUSB0")
    c.promptly(b, r"now attached to ttyUSB0",
               r"waitdev: console .*: found /dev/ttyUSB0")
    return c, b


def s_console_virtio(env):
    # a virtio-serial controller is there from the start; its console
    # port (hvc0) is plugged 2 s after /init started
    c, b = late_console(
        env, "console-virtio-serial",
        "root=/dev/sda1 waitdev.console=hvc0 waitdev.timeout=30",
        ["-device", "virtio-serial-pci,id=vser"],
        {"driver": "virtconsole", "bus": "vser.0", "id": "vcon0"}, "hvc0")
    c.that(b.kmsg(r"waitdev: console .*: found /dev/hvc0"),
           "the kernel log says hvc0 was found")
    return c, b


def s_net_usb(env):
    # a USB network adapter (QEMU's usb-net: RNDIS/CDC Ethernet) plugged
    # late, waited for by its MAC address
    c = Check("net-late-usb")
    mac = "52:54:00:12:34:99"
    b = boot(env, "net-late-usb",
             "root=/dev/sda1 waitdev.net=%s waitdev.timeout=30" % mac,
             STICK + ["-netdev", "user,id=n0"],
             [(3.0, "device_add", {"driver": "usb-net", "bus": "xhci.0",
                                   "netdev": "n0", "mac": mac,
                                   "id": "unic0"})])
    c.exit_status(b)
    c.waited_within(b, 2.5, 8, "waited about 3 s for the USB NIC")
    # the kernel logs the interface only after its uevent went out, so
    # the arrival is the USB device's: the time includes loading and
    # binding cdc_ether
    c.promptly(b, r"usb \S+: Product: RNDIS/QEMU USB Network Device",
               r"waitdev: net %s: found " % mac)
    c.that(b.lines(r"WAITDEV-OUT WAITDEV_NET='\w+'"),
           "the interface name was reported")
    c.root_ran(b)
    return c, b


def s_net(env):
    c = Check("net-late")
    b = boot(env, "net-late", "root=/dev/sda1 waitdev.net=any:up netup=1",
             STICK + ["-netdev", "user,id=n0"],
             [(3.0, "device_add", {"driver": "virtio-net-pci",
                                   "netdev": "n0", "id": "nic0"})])
    c.exit_status(b)
    c.waited_within(b, 2.5, 8, "waited for the NIC")
    c.that(b.lines(r"WAITDEV-OUT WAITDEV_NET='eth0'|WAITDEV-OUT "
                   r"WAITDEV_NET='en"), "the interface was reported")
    c.that(b.kmsg(r"waitdev: net any:up: found "),
           "the kernel log says it was found once /init brought it up "
           "(any:up)")
    return c, b


def s_replug(env):
    c = Check("root-replug")
    # the console comes last, so the wait is still on when the stick
    # goes away and comes back
    # unplugging a stick deletes its drive: the second plug is a second
    # drive on a copy of the same disk
    copy = os.path.join(env["work"], "disk2.img")
    shutil.copyfile(env["disk"], copy)
    b = boot(env, "root-replug",
             "root=/dev/sda1 waitdev.net=any waitdev.timeout=40",
             DRIVE + XHCI + ["-drive", "if=none,id=rootdisk2,format=raw,"
                             "file=" + copy, "-netdev", "user,id=n0"],
             [(2.0, *usb_stick(id="s1")),
              (4.0, "device_del", {"id": "s1"}),
              (6.0, *usb_stick(id="s2", drive="rootdisk2")),
              (9.0, "device_add", {"driver": "virtio-net-pci",
                                   "netdev": "n0", "id": "nic0"})])
    c.exit_status(b)
    c.waited_within(b, 8.5, 15, "the wait lasted until the NIC came at 9 s")
    c.that(b.kmsg(r"waitdev: root .*(was removed|no longer ready)"),
           "the unplug was noticed")
    # the second stick may come back as sdb if sda's name is still taken
    c.that(len(b.kmsg(r"waitdev: root .*: found /dev/sd[a-z]+1")) >= 2,
           "found again after the second plug")
    c.promptly(b, r"\bsd[a-z]+: sd[a-z]+1",
               r"waitdev: root .*: found /dev/sd[a-z]+1")
    c.root_ran(b, "booted from the re-plugged stick")
    return c, b


def s_many_controllers(env):
    c = Check("many-controllers")
    args = DRIVE[:]
    for i in range(4):
        args += ["-device", "qemu-xhci,id=xhci%d" % i]
    args += ["-device", "usb-ehci,id=ehci"]
    b = boot(env, "many-controllers", "root=/dev/sda1 waitdev.timeout=30",
             args, [(3.0, *usb_stick(bus="ehci.0"))])
    c.exit_status(b)
    c.waited_within(b, 2.5, 8, "waited about 3 s for the stick on ehci")
    c.promptly(b, r"\bsda: sda1", r"waitdev: root .*: found /dev/sda1")
    c.root_ran(b, "booted from the stick on ehci")
    return c, b


SCENARIOS = {
    "root-late-sda1": s_root_dev,
    "root-late-uuid": s_root_uuid,
    "root-late-partuuid": s_root_partuuid,
    "root-late-label": s_root_label,
    "root-late-partlabel": s_root_partlabel,
    "root-late-partnroff": s_root_partnroff,
    "root-late-mbr": s_root_mbr,
    "root-late-virtio-blk": s_root_virtio,
    "root-late-dm": s_root_dm,
    "root-present": s_root_present,
    "md-member": s_md_member,
    "root-never": s_root_never,
    "rootdelay-early": s_rootdelay,
    "rootdelay-bound": s_rootdelay_bound,
    "console-usb-serial": s_console,
    "console-virtio-serial": s_console_virtio,
    "net-late": s_net,
    "net-late-usb": s_net_usb,
    "root-replug": s_replug,
    "many-controllers": s_many_controllers,
}


# the guest's steps of scenarios that run their own (testscript=NAME)
SCRIPTS = {"/scripts/" + n: os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "scripts", n) for n in ("md-member",)}


def newer_sources(binary, src):
    """A source file under @src newer than @binary, or None: the static
    binary is built by tools/build-static, which meson does not run."""
    try:
        built = os.path.getmtime(binary)
    except OSError:
        return None     # the harness says it is missing
    for d, _, files in os.walk(src):
        for f in files:
            if f.endswith((".c", ".h")) and \
                    os.path.getmtime(os.path.join(d, f)) > built:
                return os.path.join(d, f)
    return None


def main():
    ap = harness.scenario_args()
    a = ap.parse_args()
    if a.list:
        print("\n".join(SCENARIOS))
        return 0
    names = a.scenarios or list(SCENARIOS)
    for n in names:
        if n not in SCENARIOS:
            print("unknown scenario %s (--list)" % n, file=sys.stderr)
            return 2
    if os.geteuid() != 0:
        print("scenarios: needs root (depmod into the cache, QEMU); "
              "FAILING", file=sys.stderr)
        return 1
    stale = newer_sources(a.waitdev, os.path.join(TOP, "src"))
    if stale:
        print("scenarios: %s is older than %s: it would boot old code; "
              "run tools/build-static first. FAILING"
              % (a.waitdev, stale), file=sys.stderr)
        return 1
    work = a.work or tempfile.mkdtemp(prefix="waitdev-qemu-")
    os.makedirs(work, exist_ok=True)
    try:
        failed = run_scenarios(names, harness.setup(
            work, a.waitdev, a.kernel, a.modules, extra=SCRIPTS))
    except (HarnessError, OSError) as e:
        print("scenarios: setup failed: %s" % e, file=sys.stderr)
        failed = 1
    if not a.work:      # a --work directory is the caller's to keep
        if failed:
            print("scenarios: images and disks kept in %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


def run_scenarios(names, env):
    """Runs @names, prints each outcome; returns how many failed."""
    failed = 0
    for n in names:
        t = time.monotonic()
        try:
            c, b = SCENARIOS[n](env)
        except HarnessError as e:
            print("%s: FAILED: %s" % (n, e))
            failed += 1
            continue
        ok = not c.failures
        failed += not ok
        print("%s: %s (%.1f s; /init waited %s s%s)"
              % (n, "ok" if ok else "FAILED", time.monotonic() - t,
                 "%.2f" % c.w if c.w is not None else "?",
                 "; found %.3f s after the kernel logged the device"
                 % c.lag if c.lag is not None else ""))
        if not ok:
            for f in c.failures:
                print("    " + f)
            print("    --- guest console (last 60 lines) ---")
            for _, l in b.serial[-60:]:
                print("    | " + l)
    print("%d passed, %d failed" % (len(names) - failed, failed))
    return failed


if __name__ == "__main__":
    sys.exit(main())
