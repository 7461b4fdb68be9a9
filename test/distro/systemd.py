#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
Boot dracut's systemd initrd (Debian's dracut with its systemd modules,
images.build_dracut_systemd()) with and without the waitdev module, in
QEMU (waitdevtest.harness), with the root file system on a USB stick by
root=UUID=.

    systemd.py [--waitdev PATH] [--kernel VMLINUZ --modules TREE]
               [--work DIR] [--list] SCENARIO...

The scenarios (the meson suite 'distro', one test each):
  dracut-systemd-waitdev-late
        the waitdev module in a systemd initrd, waitdev.net=lo on the
        command line; the stick is plugged once udev's coldplug has
        finished (systemd waits for the root's device unit by then): the
        root's /sbin/init runs within 30 s of the plug, with no device
        timeout, no emergency shell and no diagnosis (nothing of waitdev
        on the way of a boot that succeeds), and waitdev-net.service
        found lo. Logs the seconds from the kernel's partition line to
        systemd's "Found device" (udev's work, all that waitdev ending
        the device wait itself could save) and from the plug to root's
        init;
  dracut-systemd-stock-late
        the same without waitdev: the baseline of those figures;
  dracut-systemd-waitdev-never
        the root never comes (another stick is there from the start);
        rd.timeout=40 gives the root's device job a limit (dracut's
        generator makes it JobTimeoutSec=; without it there is none):
        systemd's "Timed out waiting for device", then waitdev's
        diagnosis on the console and in the kernel log (so in the
        journal): the root UUID= missing, the block devices seen, the
        other stick among them; then the emergency shell
        (emergency.target), after the diagnosis; no root mounted;
  dracut-systemd-waitdev-retry
        the same without rd.timeout, as by default, in an image whose
        initqueue runs (/lib/dracut/need-initqueue, as hostonly images
        and those with lvm, crypt, mdraid or network modules have; without
        it and without rd.timeout= the boot waits for the root forever):
        dracut's initqueue gives up after rd.retry=30 ("Could not
        boot.") and starts dracut-emergency.service alone; the diagnosis
        comes before its shell too.

Times are the host's (time.monotonic() of the plug and of each console
line as it arrived). Exit 0 when every scenario passed.
"""
import os
import subprocess
import sys

from waitdevtest import harness, images
from waitdevtest.harness import ROOT_UUID, Check, HarnessError
from waitdevtest.images import (APPEND, OTHER_STICK, boot, check_late_boot,
                               plug_on, quit_at)


# systemd's line when udev's coldplug is done: the root's device unit
# has been waited for since before it (initrd.target wants it), so a
# stick plugged now is a late one for systemd
COLDPLUG_DONE = r"Finished .*Coldplug All udev Devices"
# dracut-emergency.sh, when the emergency shell starts (emergency.service
# and dracut-emergency.service both run it)
EMERGENCY = "Entering emergency mode"
# systemd's own message when the root's device job times out
TIMED_OUT = r"Timed out waiting for device"
# dracut's initqueue when rd.retry has passed (the default path: the
# root's device job has no limit unless rd.timeout= sets one)
COULD_NOT_BOOT = r"Could not boot"
# rd.timeout= and rd.retry= of the boots whose root never comes: the
# device job's timeout counts from systemd's start, and under TCG on a
# loaded machine udev had not even loaded the USB drivers 10 s later
# (2026-12-05), so the diagnosis could list no stick yet
NEVER_TIMEOUT = 40
# rd.retry= counts from the initqueue's start, after udev's coldplug, in
# rounds of at least 0.5 s (more under TCG)
NEVER_RETRY = 30


def add_os_release(disk):
    """systemd's switch-root wants an OS tree (an os-release file) in
    the new root: the harness's root file system (partition 1 of @disk,
    at 1 MiB) gets /etc/os-release."""
    osr = disk + ".os-release"
    with open(osr, "w") as f:
        f.write("ID=waitdevtest\nNAME=\"waitdev test root\"\n")
    target = "%s?offset=%d" % (disk, 2048 * 512)
    for cmd in ("mkdir etc", "write %s etc/os-release" % osr):
        harness.run(["debugfs", "-w", "-R", cmd, target],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = harness.run(["debugfs", "-R", "stat etc/os-release", target],
                      capture_output=True, text=True).stdout
    if "Type: regular" not in out:
        raise HarnessError("%s: could not add /etc/os-release" % disk)
    os.unlink(osr)


def s_late(env, with_waitdev):
    name = "dracut-systemd-%s-late" % ("waitdev" if with_waitdev
                                       else "stock")
    c = Check(name)
    append = APPEND["dracut"] + (" waitdev.net=lo" if with_waitdev else "")
    b = boot(env, name, append, react=plug_on(COLDPLUG_DONE), timeout=300)
    took = check_late_boot(c, b, "udev's coldplug finished (%s)"
                           % COLDPLUG_DONE)
    c.that(not b.lines(TIMED_OUT), "no device timeout")
    c.that(not b.lines(EMERGENCY), "no emergency shell")
    # what systemd's wait took after the kernel had the disk: udev's
    # work (blkid, the by-uuid link), the most that waitdev ending the
    # wait itself could save
    part = b.first(r"\] +sda: sda1")
    found = b.first(r"Found device .*(waitdevroot|%s)" % ROOT_UUID)
    c.that(found is not None, "systemd's device unit of the root came")
    udev = found - part if found and part else None
    if with_waitdev:
        files = env["files"]
        for f in ("usr/sbin/waitdev", "usr/bin/waitdev-systemd",
                  "usr/lib/systemd/system/waitdev-diagnose.service",
                  "etc/systemd/system/emergency.target.wants/"
                  "waitdev-diagnose.service",
                  "etc/systemd/system/dracut-emergency.service.wants/"
                  "waitdev-diagnose.service",
                  "etc/systemd/system/initrd.target.wants/"
                  "waitdev-net.service"):
            c.that(f in files, "the image holds %s" % f)
        c.that(b.lines(r"waitdev: net lo: found"),
               "waitdev-net.service waited for waitdev.net=lo and found it")
        c.that(not b.lines(r"waitdev: root \S+: (missing|found)|"
                           r"waitdev: block devices seen"),
               "waitdev does not look for the root in a boot that "
               "succeeds (no diagnosis, no wait)")
    else:
        # (the root's label, waitdevroot, is in systemd's lines)
        c.that(not b.lines(r"waitdev:|waitdev-(diagnose|net)"),
               "the stock image runs no waitdev")
    harness.log("%s: plug to root's init %s s; kernel's partition line to "
                "systemd's Found device %s s" % (
                    name, "%.2f" % took if took else None,
                    "%.2f" % udev if udev is not None else None))
    return c, b


def s_never(env, how):
    """The root never comes; @how: "timeout" (rd.timeout=, systemd's
    device job times out, emergency.target) or "retry" (rd.retry=,
    dracut's initqueue gives up, dracut-emergency.service)."""
    name = "dracut-systemd-waitdev-%s" % ("never" if how == "timeout"
                                          else how)
    c = Check(name)
    secs = NEVER_TIMEOUT if how == "timeout" else NEVER_RETRY
    arg = "rd.%s=%d" % (how, secs)
    b = boot(env, name, APPEND["dracut"] + " " + arg,
             react=quit_at(EMERGENCY), timeout=300, extra=OTHER_STICK)
    start = b.first(r"WAITDEV-INIT-START")
    gave_up_rx = TIMED_OUT if how == "timeout" else COULD_NOT_BOOT
    gave_up = b.first(gave_up_rx)
    missing = r"waitdev: root UUID=%s: missing" % ROOT_UUID
    diag = b.first(missing)
    emergency = b.first(EMERGENCY)
    c.that(gave_up is not None, "%s gave up (%s)" % (
        "systemd's device job" if how == "timeout" else
        "dracut's initqueue", gave_up_rx))
    if how == "retry":
        c.that(not b.lines(TIMED_OUT), "the device job had no limit")
    c.that(diag is not None, "waitdev's diagnosis on the console: %s"
           % missing)
    c.that(b.lines(r"waitdev: block devices seen"),
           "the diagnosis lists the block devices seen")
    c.that(b.lines(r"waitdev: +seen block sda \(8:0, 4\.0 MiB"),
           "the diagnosis lists the other stick, seen instead")
    c.that(b.kmsg(missing),
           "the diagnosis went to the kernel log (--kmsg: the journal "
           "has it)")
    c.that(emergency is not None, "dracut's emergency shell starts (%r)"
           % EMERGENCY)
    c.that(diag is not None and emergency is not None and
           diag <= emergency, "the diagnosis came before the emergency "
           "shell's banner")
    c.that(diag is not None and gave_up is not None and
           0 <= diag - gave_up < 20,
           "the diagnosis within 20 s after giving up (%s s)"
           % ("%.2f" % (diag - gave_up) if diag and gave_up else None))
    c.that(start is not None and gave_up is not None and
           gave_up - start < 3 * secs + 30,
           "gave up about %s after the start (%s s)" % (
               arg, "%.2f" % (gave_up - start) if start and gave_up
               else None))
    c.that("ROOT-INIT-OK" not in b.text(), "no root was mounted")
    harness.log("%s: start to giving up %s s, giving up to diagnosis "
                "%s s, diagnosis to emergency shell %s s" % (
                    name,
                    "%.2f" % (gave_up - start) if start and gave_up
                    else None,
                    "%.2f" % (diag - gave_up) if diag and gave_up
                    else None,
                    "%.2f" % (emergency - diag) if diag and emergency
                    else None))
    return c, b


# name: ((with waitdev, an initqueue that runs), scenario)
SCENARIOS = {
    "dracut-systemd-waitdev-late": ((True, False),
                                    lambda e: s_late(e, True)),
    "dracut-systemd-stock-late": ((False, False),
                                  lambda e: s_late(e, False)),
    "dracut-systemd-waitdev-never": ((True, False),
                                     lambda e: s_never(e, "timeout")),
    "dracut-systemd-waitdev-retry": ((True, True),
                                     lambda e: s_never(e, "retry")),
}


def image_for(name, a, work, waitdev, built):
    """The image of scenario @name, each built once (images.scenario_main)."""
    key = SCENARIOS[name][0]
    if key not in built:
        built[key] = images.build_dracut_systemd(
            work, waitdev if key[0] else None, a.kernel, a.modules,
            initqueue=key[1])
    return built[key]


def main():
    return images.scenario_main("systemd.py", __doc__.split("\n\n")[1],
                                SCENARIOS, image_for,
                                prepare_disk=add_os_release)


if __name__ == "__main__":
    sys.exit(main())
