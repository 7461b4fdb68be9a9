#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
Boot images made by dracut and mkinitramfs, with and without the waitdev
hooks of hooks/, in QEMU (waitdevtest.harness), with the root file
system on a USB stick by root=UUID=.

    distro.py [--waitdev PATH] [--kernel VMLINUZ --modules TREE]
              [--work DIR] [--list] SCENARIO...

The scenarios (the meson suite 'distro', one test each):
  dracut-waitdev-late, mkinitramfs-waitdev-late
        the stick is plugged once waitdev has said it waits for the root
        ("not there yet, waiting"), however long the tool took to start
        it; the root's /sbin/init runs, and
        waitdev is what found the root: it was waiting before the plug
        and found the disk after it;
  dracut-stock-late, mkinitramfs-stock-late
        the same images without waitdev, the stick plugged 10 s after
        init starts: the stock waits still work (and these images hold no waitdev);
  dracut-waitdev-never, mkinitramfs-waitdev-never
        the stick never comes: waitdev's diagnosis is in the log, then
        the tool's own rescue (dracut's emergency shell after rd.retry,
        initramfs-tools' "ALERT! ... Dropping to a shell!") follows
        promptly, not after another stock wait;
  dracut-waitdev-fallback, mkinitramfs-waitdev-fallback
        waitdev fails (an unknown waitdev.* key with waitdev.strict=1:
        exit 2): the hook says so and the stock wait boots the late stick;
  mkinitramfs-waitdev-rootdelay
        rootdelay=40 with the stick 3 s late: root's init comes seconds
        after the plug, not after init's 40 s sleep;
  mkinitramfs-waitdev-rootdelay-fallback
        rootdelay=20 and waitdev fails (exit 2): the hook sleeps the
        rootdelay= it had moved aside, as stock init would have;
  dracut-waitdev-step-aside, mkinitramfs-waitdev-step-aside
        an image that can assemble roots (a stand-in /sbin/lvm, a
        local-top script) with no device of the root's stack named (no
        waitdev.stack=, rd.luks.uuid=, cryptopts=; stacked.py boots those):
        the hook says it steps aside, waitdev does not wait, and the stock
        wait boots the late stick;
  mkinitramfs-waitdev-off
        waitdev=0 on the command line: the hook says it is off and does
        not run waitdev, and the stock wait boots the late stick (dracut's
        job: the hooks suite, test/hooks);
  mkinitramfs-waitdev-resume-absent
        resume=UUID= of a device that does not exist, the root stick there
        from the start: the hook waits for the resume device at most 5 s
        after the root was found, then empties $resume, and the stock
        local-premount/resume does not look: no "Waiting for
        suspend/resume device", no "Gave up waiting for suspend/resume
        device", root's init under 30 s after /init started;
  mkinitramfs-stock-resume-absent
        the same boot without waitdev, to show what the test above
        would catch: the stock script polls until max(30, rootdelay) s
        after starttime and says "Gave up waiting for suspend/resume
        device", root's init 30 s and more after /init started;
  mkinitramfs-waitdev-resume-present
        resume=UUID= of a swap partition on the root's disk, plugged
        late: the hook finds it at once after the root, and the stock
        script hands it to the kernel without a wait of its own (the
        kernel logs 8:2 as the image partition; there is no image, the
        boot goes on);
  mkinitramfs-waitdev-nfs-late-nic
        root=/dev/nfs ip=dhcp BOOTIF=01-<MAC> waitdev.net=lo, QEMU's
        usb-net NIC with that MAC plugged once waitdev says it waits for
        it: the kernel registers the NIC, waitdev finds it (and lo: its
        waitdev.net= is kept), then configure_networking's ipconfig
        configures that NIC by DHCP (QEMU's user network), in that
        order, with no "no devices to configure" and no "Network device
        did not appear in time"; the NFS mount that follows has no
        server, and the boot is ended there;
  dracut-waitdev-netroot
        a block root on a network disk: root=UUID= of the file system
        the host's nbd-server exports, netroot=nbd:10.0.2.2:PORT:...
        rd.neednet=1 ip=dhcp (dracut-network's network-legacy and nbd
        modules, QEMU's usb-net NIC on its user network): the waitdev job
        says it steps aside for netroot=, waits for nothing, and dracut's
        ifup and NBD jobs connect the disk; root's init runs within 60 s
        of /init (17 s here), where a job that waited in dracut's main
        loop would hold those jobs for its whole deadline (2/3 of
        rd.retry: 120 s; with the step-aside removed from the job, this
        boot failed so on 2026-12-06: waitdev waited 120 s, "missing",
        then ifup and the NBD connection ran, root's init after 138 s);
  dracut-waitdev-nobinary, mkinitramfs-waitdev-nobinary
        the hooks installed and enabled (dracut: add_dracutmodules in a
        conf file) with no waitdev binary: the build succeeds with a
        warning naming the binary, and the image holds no waitdev (built,
        not booted);
  dracut-hermetic, mkinitramfs-hermetic
        what goes into the images above does not depend on the host: the
        image built on this host, which has mdadm, cryptsetup-initramfs
        and lvm2 installed (tools/install-deps), holds the same files
        with the same contents as the one built as on a host without
        them (and without every other package with initramfs files of
        its own: an overlay whites their files out); an image that asks
        for them (images.STACKED) gets their scripts and tools (built,
        not booted).

Times are the host's (time.monotonic() of the hot-plug and of each console
line as it arrived), with tolerances for TCG on a loaded machine. Exit 0
when every scenario passed; each failure says which assertion.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

from waitdevtest import harness, images
from waitdevtest.harness import ROOT_UUID, Check, usb_stick
from waitdevtest.images import (APPEND, OTHER_STICK, PLUG_AT, boot,
                                boot_late, both, check_late_boot, plug_on,
                                plug_to_init, quit_at, quit_on)

# The stock *-late scenarios plug later: under TCG both tools take more
# than 3 s from init's start to their wait for root (udev, module
# loading), so a stick plugged at 3 s is there before anything waits.
LATE_PLUG_AT = 10.0
# The waitdev *-late scenarios plug when waitdev says it runs: no fixed
# time can, on a loaded 2-core machine udevd's start alone once took 13 s
# of a TCG boot (CI, 2026-12-04), and the stick came before waitdev did.
# waitdev logs that line after its initial scan, subscribed to uevents
# already, so the stick's events cannot come before its wait.
WAITDEV_RUNNING = r"waitdev: root \S+: not there yet, waiting"
# What each tool prints when it starts its rescue shell.
RESCUE = {
    "dracut": "Dropping to debug shell.",
    "mkinitramfs": "Dropping to a shell!",
}
# Short deadlines for the stick that never comes: dracut's own rd.retry
# (the hook waits 2/3 of it, dracut's timeout jobs the rest); for
# initramfs-tools, whose stock wait is at least 30 s, waitdev.timeout=.
NEVER = {
    "dracut": ("rd.retry=6", 4.0),
    "mkinitramfs": ("waitdev.timeout=4", 4.0),
}


def s_late(env, tool, with_waitdev):
    name = "%s-%s-late" % (tool, "waitdev" if with_waitdev else "stock")
    c = Check(name)
    # initramfs-tools' script passes --root, which replaces what the
    # command line names: waitdev.net= must be passed on (lo: always
    # there)
    append = APPEND[tool] + (" waitdev.net=lo" if tool == "mkinitramfs"
                             else "")
    if with_waitdev:
        b = boot(env, name, append, react=plug_on(WAITDEV_RUNNING))
        took = check_late_boot(c, b, "waitdev said it runs (%s)"
                               % WAITDEV_RUNNING)
    else:
        b, _ = boot_late(env, tool, name, LATE_PLUG_AT)
        took = check_late_boot(c, b)
    text = b.text()
    if with_waitdev:
        lines = b.lines(r"waitdev: root \S+: found /dev/sda1 after "
                        r"([0-9.]+) s")
        c.that(lines, "waitdev's log says it found the root")
        plugged, _ = plug_to_init(b)
        if lines and plugged:
            found = lines[0][0]
            waited = float(re.search(r"after ([0-9.]+) s",
                                     lines[0][1]).group(1))
            # "after N s" counts from waitdev's start: it was waiting
            # before the stick was plugged, and the wait ended on the
            # disk's event, not on a look that found it already there
            c.that(found - waited < plugged,
                   "waitdev was waiting before the plug (started %.2f s "
                   "before it)" % (plugged - (found - waited)))
            c.that(found > plugged,
                   "waitdev found the root after the plug (%.2f s)"
                   % (found - plugged))
            c.that(found - plugged < 15,
                   "waitdev found it within 15 s of the plug (%.2f s)"
                   % (found - plugged))
        c.that(not b.lines(r"Gave up waiting|Could not boot|"
                           r"waitdev: failed|waitdev: .*missing"),
               "no stock wait, fallback or rescue")
        if tool == "mkinitramfs":
            c.that(b.lines(r"waitdev: net lo: found"),
                   "waitdev.net= survives the script's --root: lo found")
    else:
        c.that("waitdev:" not in text,
               "the stock image does not run waitdev")
    harness.log("%s: plug to root's init: %s s" % (name, took))
    return c, b


def s_never(env, tool):
    name = "%s-waitdev-never" % tool
    c = Check(name)
    arg, deadline = NEVER[tool]
    # a stick that is not the root is there from the start, for the
    # diagnosis to list
    b = boot(env, name, APPEND[tool] + " " + arg,
             react=quit_at(RESCUE[tool]), timeout=300, extra=OTHER_STICK)
    start = b.first(r"WAITDEV-INIT-START")
    diag = b.first(r"waitdev: root \S+: missing after %.1f" % deadline)
    rescue = b.first(re.escape(RESCUE[tool]))
    c.that(diag is not None,
           "waitdev's diagnosis: root missing after %.1f s" % deadline)
    c.that(b.lines(r"waitdev: +seen block sda \(8:0, 4\.0 MiB"),
           "the diagnosis lists the other stick, seen instead")
    c.that(rescue is not None,
           "the tool's rescue shell starts (%r)" % RESCUE[tool])
    c.that(diag is not None and start is not None and
           deadline - 0.5 < diag - start < deadline + 20,
           "the diagnosis came after the deadline, not before (%s s "
           "after init started)" % (diag - start if diag and start
                                    else None))
    if tool == "dracut":
        # rd.retry=6: the hook waited 4 s, dracut's timeout jobs run
        # for the remaining third; its emergency message then
        c.that(b.lines(r"Could not boot"), "dracut says it could not boot")
        c.that(b.lines(r'/dev/disk/by-uuid/%s"? does not exist'
                       % ROOT_UUID), "dracut's emergency hook names the root")
        bound = 30
    else:
        c.that(b.lines(r"Gave up waiting for root file system device"),
               "initramfs-tools gave up waiting")
        c.that(b.lines(r"ALERT!  UUID=%s does not exist" % ROOT_UUID),
               "initramfs-tools' ALERT names the root")
        # its loop looks once more (sleep 1) and gives up: no 30 s wait
        bound = 15
    c.that(rescue is not None and diag is not None and
           0 <= rescue - diag < bound,
           "rescue within %d s of waitdev giving up, not after another "
           "stock wait (%s s)" % (bound, rescue - diag if rescue and diag
                                  else None))
    c.that("ROOT-INIT-OK" not in b.text(), "no root was mounted")
    return c, b


def s_fallback(env, tool):
    """waitdev fails (exit 2: a waitdev.* key it does not know, as a
    newer command line might hold, read strictly: waitdev.strict=1): the
    hook says so and the stock wait boots the late stick."""
    name = "%s-waitdev-fallback" % tool
    c = Check(name)
    b = boot(env, name,
             APPEND[tool] + " waitdev.nosuchkey=1 waitdev.strict=1",
             [(PLUG_AT, *usb_stick())])
    c.that(b.lines(r"waitdev: failed \(exit 2"),
           "the hook says waitdev failed and the stock wait takes over")
    c.that(b.lines(r"waitdev: kernel command line: waitdev\.nosuchkey: "
                   r"unknown waitdev key"),
           "and shows waitdev's own message")
    c.that("ROOT-INIT-OK" in b.text(), "the stock wait booted the root")
    c.that(not b.lines(r"waitdev: root \S+: found"),
           "waitdev did not find the root (it never waited)")
    return c, b


def s_step_aside(env, tool):
    """An image that can assemble roots (lvm, cryptroot: here stand-ins
    that assemble nothing) and a command line that names no device of
    the root's stack: the hook leaves the wait to the tool, since its
    jobs may have to run before the root appears."""
    name = "%s-waitdev-step-aside" % tool
    c = Check(name)
    b = boot(env, name, APPEND[tool], [(PLUG_AT, *usb_stick())])
    # the script or tool that may assemble it, by name: the stand-in
    # (initramfs-tools' ORDER list is not one)
    who = {"dracut": "lvm", "mkinitramfs": "local-top/assembler"}[tool]
    c.that(b.lines(r"waitdev: %s may assemble the root" % re.escape(who)),
           "the hook says it steps aside, naming %s" % who)
    c.that(not b.lines(r"waitdev: root \S+: found"),
           "waitdev did not wait for the root")
    c.that("ROOT-INIT-OK" in b.text(), "the stock wait booted the root")
    return c, b


def s_off(env):
    """waitdev=0: the hook leaves the root to the stock wait."""
    name = "mkinitramfs-waitdev-off"
    c = Check(name)
    b = boot(env, name, APPEND["mkinitramfs"] + " waitdev=0",
             [(PLUG_AT, *usb_stick())])
    c.that(b.lines(r"waitdev: off by waitdev=0 on the command line"),
           "the hook says waitdev=0 turned it off")
    c.that(not b.lines(r"waitdev: root \S+: found"),
           "waitdev did not wait for the root")
    c.that("ROOT-INIT-OK" in b.text(), "the stock wait booted the root")
    return c, b


def s_rootdelay(env):
    """initramfs-tools' init sleeps rootdelay= seconds before init-premount
    whatever the device; with waitdev it is only an upper bound."""
    name = "mkinitramfs-waitdev-rootdelay"
    c = Check(name)
    b = boot(env, name, APPEND["mkinitramfs"] + " rootdelay=40",
             [(PLUG_AT, *usb_stick())])
    _, took = plug_to_init(b)
    c.that(b.lines(r"waitdev: root \S+: found /dev/sda1"),
           "waitdev found the root")
    # without the hook: 40 s of sleep from before the plug, then the mount
    c.that(took is not None and took < 25,
           "rootdelay=40 is a bound, not a sleep: root's init %s s after "
           "the plug" % took)
    return c, b


def s_nobinary(env, tool):
    """The hooks are installed and enabled the way a user does it
    (dracut: add_dracutmodules+=" waitdev " in a conf file), but there
    is no waitdev binary: the image still builds, the build warns naming
    the binary it looked for, and the image has no waitdev in it (the
    two initramfs-tools scripts are in it: they see no /sbin/waitdev and
    do nothing). Only built, not booted."""
    name = "%s-waitdev-nobinary" % tool
    c = Check(name)
    out = env["output"]
    harness.log("%s: build output:\n%s" % (name, out.strip()))
    c.that(re.search(r"waitdev: no waitdev binary \(%s\)"
                     % re.escape(env["nobinary"]), out),
           "the build warns that there is no waitdev binary, naming it")
    files = images.image_files(env["initrd"])
    c.that(not any(f.endswith("sbin/waitdev") for f in files),
           "no waitdev binary in the image")
    if tool == "dracut":
        # the test's own start marker is 00-waitdev-test-start.sh
        hooks = [f for f in files if "/hooks/" in "/" + f and
                 "waitdev" in os.path.basename(f) and
                 "waitdev-test-start" not in f]
        c.that(not hooks, "no waitdev hook in the image (%s)" % hooks)
        c.that("cannot be found or installed" not in out,
               "dracut does not call the module missing")
    return c, None


def s_rootdelay_fallback(env):
    """init-top/waitdev moves rootdelay= aside so that init does not
    sleep it; when waitdev then fails (exit 2) and the stock wait takes
    over, rootdelay= must still be the stock sleep: root's init not
    before ROOTDELAY s after init started, though the stick came at 3 s."""
    name = "mkinitramfs-waitdev-rootdelay-fallback"
    c = Check(name)
    delay = 20
    b = boot(env, name, APPEND["mkinitramfs"] +
             " waitdev.nosuchkey=1 waitdev.strict=1 rootdelay=%d" % delay,
             [(PLUG_AT, *usb_stick())])
    start = b.first(r"WAITDEV-INIT-START")
    init = b.first(r"ROOT-INIT-OK")
    c.that(b.lines(r"waitdev: failed \(exit 2"),
           "the hook says waitdev failed and the stock wait takes over")
    c.that(b.lines(r"waitdev: sleeping rootdelay=%d as init would have"
                   % delay), "the hook sleeps the moved-aside rootdelay=")
    c.that(init is not None, "the stock wait booted the root")
    c.that(init is not None and start is not None and
           init - start >= delay,
           "root's init came after the stock rootdelay=%d sleep (%s s "
           "after init started)" % (delay, init - start if init and start
                                    else None))
    return c, b


def s_hermetic(env, tool):
    """The image does not change with the host's packages; asked-for
    packages come in."""
    name = "%s-hermetic" % tool
    c = Check(name)
    work = os.path.join(env["work"], name)
    hide, with_them, without = images.hermetic_manifests(
        tool, work, env["waitdev"], env["kernel"], env["modules"])
    missing = [p for p in images.STACKED if p not in hide]
    c.that(not missing, "this host has %s installed, so that the image "
           "is built beside them (tools/install-deps installs them; "
           "missing: %s)" % (", ".join(images.STACKED),
                             ", ".join(missing)))
    differ = sorted(p for p in set(with_them) | set(without)
                    if with_them.get(p) != without.get(p))
    harness.log("%s: %d entries as built here, %d as built without %s; "
                "%d differ%s" % (name, len(with_them), len(without),
                                 ", ".join(hide), len(differ),
                                 (": " + " ".join(differ[:20]))
                                 if differ else ""))
    c.that(with_them and not differ, "the same image with and without "
           "the host's other packages (%d entries differ: %s)"
           % (len(differ), " ".join(differ[:20])))
    # asked for, they come in
    env2 = images.build(tool, work, env["waitdev"], env["kernel"],
                        env["modules"], packages=tuple(images.STACKED))
    files = images.image_files(env2["initrd"])
    want = {
        "mkinitramfs": ("scripts/local-block/mdadm", "scripts/local-top/cryptroot",
                        "sbin/mdadm", "sbin/lvm", "sbin/cryptsetup"),
        "dracut": ("sbin/mdadm", "sbin/lvm", "sbin/cryptsetup"),
    }[tool]
    for f in want:
        c.that(any(x == f or x.endswith("/" + f) or
                   x == "usr/" + f for x in files),
               "an image that asks for %s holds %s"
               % (", ".join(images.STACKED), f))
    return c, None


# A resume device that no disk has
ABSENT_UUID = "0badc0de-dead-4bad-8bad-0000deadbeef"
# the hook's wait for the resume device once the root is found
# (init-premount/waitdev's RESUME_WAIT)
RESUME_WAIT = 5.0
# the root stick, there from the start
STICK_AT_START = ["-device", "usb-storage,bus=xhci.0,drive=rootdisk,id=stick"]


def s_resume_absent(env, with_waitdev):
    """An absent resume device costs the stock script's whole poll
    (max(30, rootdelay) s after starttime); with the hook, RESUME_WAIT s
    after the root was found."""
    name = "mkinitramfs-%s-resume-absent" % ("waitdev" if with_waitdev
                                             else "stock")
    c = Check(name)
    b = boot(env, name, APPEND["mkinitramfs"] + " resume=UUID=" + ABSENT_UUID,
             extra=STICK_AT_START)
    start = b.first(r"WAITDEV-INIT-START")
    init = b.first(r"ROOT-INIT-OK")
    took = init - start if init and start else None
    # init sets starttime just before this line: the stock poll ends
    # 30 s after it, however long udev's start took before it
    premount = b.first(r"Begin: Running /scripts/init-premount")
    after_premount = init - premount if init and premount else None
    c.that(init is not None, "the root's /sbin/init ran")
    c.that("Kernel panic" not in b.text(), "no kernel panic")
    gave_up = b.lines(r"Gave up waiting for suspend/resume device")
    if with_waitdev:
        c.that(b.lines(r"waitdev: root UUID=%s: found /dev/sda1" % ROOT_UUID),
               "waitdev found the root")
        waiting = b.first(r"waitdev: waiting 5 s at most for the resume "
                          r"device UUID=%s" % ABSENT_UUID)
        c.that(waiting is not None, "the hook waits for the resume device, "
               "%g s at most" % RESUME_WAIT)
        missing = b.lines(r"waitdev: resume UUID=%s: missing after ([0-9.]+) s"
                          % ABSENT_UUID)
        c.that(missing and abs(float(re.search(
            r"after ([0-9.]+) s", missing[0][1]).group(1)) - RESUME_WAIT)
            < 0.01, "waitdev gave up on it at its %g s deadline" % RESUME_WAIT)
        c.that(b.lines(r"waitdev: resume device UUID=%s did not come; "
                       r"booting without resuming" % ABSENT_UUID),
               "the hook says it boots without resuming")
        c.that(not gave_up and
               not b.lines(r"Waiting for suspend/resume device"),
               "the stock script did not wait for the resume device")
        # the hook's wait, then fsck, mount and switch_root: seconds
        after = init - waiting if init and waiting else None
        c.that(after is not None and after < RESUME_WAIT + 15,
               "root's init within %g s of the resume wait's start (%s s)"
               % (RESUME_WAIT + 15, after))
        # the stock poll alone ends 30 s after starttime, which is after
        # /init started
        c.that(took is not None and took < 30,
               "root's init under 30 s after /init started (%s s)" % took)
        c.that(after_premount is not None and after_premount < 20,
               "root's init under 20 s after init-premount began (%s s)"
               % after_premount)
    else:
        c.that(gave_up, "the stock script gave up waiting for the resume "
               "device")
        c.that(took is not None and took >= 30,
               "root's init 30 s or more after /init started (%s s)" % took)
        c.that(after_premount is not None and after_premount >= 28,
               "root's init 28 s or more after init-premount began (%s s)"
               % after_premount)
    harness.log("%s: /init to root's init: %s s, from init-premount: %s s"
                % (name, took, after_premount))
    return c, b


# The resume partition of mkinitramfs-waitdev-resume-present: swap in
# the root disk's second partition ("spare")
SWAP_UUID = "5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d"


def disk_with_swap(env):
    """A copy of the root disk whose second partition holds swap
    (SWAP_UUID), as an installed system's disk would."""
    copy = os.path.join(env["work"], "disk-swap.img")
    shutil.copyfile(env["disk"], copy)
    out = harness.run(["sgdisk", "-i", "2", copy], capture_output=True,
                      text=True).stdout
    first = int(re.search(r"First sector: (\d+)", out).group(1))
    last = int(re.search(r"Last sector: (\d+)", out).group(1))
    swap = os.path.join(env["work"], "swap.img")
    with open(swap, "wb") as f:
        f.truncate((last - first + 1) * 512)
    harness.run(["mkswap", "-U", SWAP_UUID, swap], stdout=subprocess.DEVNULL)
    with open(swap, "rb") as src, open(copy, "r+b") as dst:
        dst.seek(first * 512)
        shutil.copyfileobj(src, dst)
    os.unlink(swap)
    return copy


def s_resume_present(env):
    """The resume device is a swap partition on the root's disk, which
    comes late: the hook finds it as soon as the root, hands its node on,
    and the stock script resumes from it (there is no image: the boot
    goes on) without a wait of its own."""
    name = "mkinitramfs-waitdev-resume-present"
    c = Check(name)
    env = dict(env, disk=disk_with_swap(env))
    # pm_debug_messages, at loglevel 8: the kernel's word that
    # /bin/resume gave it the partition
    b = boot(env, name, APPEND["mkinitramfs"] + " resume=UUID=" + SWAP_UUID +
             " pm_debug_messages loglevel=8",
             react=plug_on(WAITDEV_RUNNING))
    text = b.text()
    c.that(b.events, "the stick was plugged once waitdev waited for the "
           "root")
    c.that(b.lines(r"waitdev: root UUID=%s: found /dev/sda1" % ROOT_UUID),
           "waitdev found the root")
    found = b.lines(r"waitdev: resume UUID=%s: found (/dev/sda2) after "
                    r"([0-9.]+) s" % SWAP_UUID)
    c.that(found, "waitdev found the resume device, /dev/sda2")
    c.that(found and float(re.search(r"after ([0-9.]+) s",
                                     found[0][1]).group(1)) < 1,
           "at once: it came with the root")
    c.that(not b.lines(r"did not come|Waiting for suspend/resume device|"
                       r"Gave up waiting for suspend/resume device"),
           "neither the hook nor the stock script waited for it")
    # /bin/resume wrote 8:2 to /sys/power/resume: the kernel looked
    # there for an image (and found none)
    told = b.first(r"PM: hibernation: Hibernation image partition 8:2 "
                   r"present")
    c.that(told is not None and found and told > found[0][0],
           "then the stock script gave the kernel sda2 (8:2) to resume "
           "from")
    c.that("ROOT-INIT-OK" in text, "the root's /sbin/init ran")
    c.that("Kernel panic" not in text, "no kernel panic")
    return c, b


# The late NIC of the network boot: QEMU's usb-net (RNDIS/CDC Ethernet)
# with this address, on QEMU's user network (DHCP from 10.0.2.2)
NIC_MAC = "52:54:00:12:34:99"
NFS_APPEND = ("console=ttyS0 root=/dev/nfs nfsroot=10.0.2.2:/waitdev-none "
              "ip=dhcp BOOTIF=01-%s waitdev.net=lo ro"
              % NIC_MAC.replace(":", "-"))


def s_nfs_late_nic(env):
    """BOOT=nfs: the hook waits for the NIC of BOOTIF= before
    configure_networking looks, and ipconfig then configures it."""
    name = "mkinitramfs-waitdev-nfs-late-nic"
    c = Check(name)
    spec = NIC_MAC.replace(":", "-")
    nic = ("device_add", {"driver": "usb-net", "bus": "xhci.0",
                          "netdev": "n0", "mac": NIC_MAC, "id": "unic0"})
    # ipconfig done, the NFS mount (no server) follows: enough seen; a
    # boot that never gets there ends at the timeout, failing
    b = boot(env, name, NFS_APPEND,
             react=both(plug_on(r"waitdev: net %s: not there yet, waiting"
                                % spec, nic),
                        quit_on(r"IP-Config: \S+ complete")),
             timeout=150, extra=["-netdev", "user,id=n0"])
    text = b.text()
    plugged = b.events[0][0] if b.events else None
    c.that(plugged is not None, "waitdev said it waits for the NIC of "
           "BOOTIF= and the NIC was plugged")
    # the USB device's own line: the kernel logs the interface only
    # after its uevent went out (test/qemu's net-late-usb takes the same)
    appeared = b.first(r"usb \S+: Product: RNDIS/QEMU USB Network Device")
    found = b.lines(r"waitdev: net %s: found (\S+) after" % spec)
    found_at = found[0][0] if found else None
    ipconf = b.lines(r"IP-Config: (\S+) hardware address %s" % NIC_MAC)
    ipconf_at = ipconf[0][0] if ipconf else None
    c.that(appeared is not None, "the kernel saw the USB NIC")
    c.that(found_at is not None, "waitdev found the NIC by BOOTIF='s "
           "address")
    c.that(b.lines(r"waitdev: net lo: found lo"),
           "waitdev.net= is kept: lo found too")
    c.that(b.lines(r"waitdev: network interface .* is there; "
                   r"configure_networking takes it from here"),
           "the hook says the interface is there")
    c.that(ipconf_at is not None, "ipconfig ran on the NIC (%s)" % NIC_MAC)
    c.that(plugged and appeared and found_at and ipconf_at and
           plugged < appeared <= found_at <= ipconf_at,
           "in that order: plugged, the kernel saw it, waitdev found "
           "it, ipconfig ran on it")
    c.that(b.lines(r"IP-Config: \S+ complete"),
           "ipconfig configured it (DHCP)")
    c.that(found_at and ipconf_at and ipconf_at - found_at < 20,
           "ipconfig within 20 s of waitdev finding the NIC (%s s)"
           % (ipconf_at - found_at if found_at and ipconf_at else None))
    c.that("no devices to configure" not in text,
           "no \"ipconfig: no devices to configure\"")
    c.that("Network device did not appear in time" not in text,
           "configure_networking did not give up")
    c.that("Kernel panic" not in text, "no kernel panic")
    harness.log("%s: plug to waitdev's find %s s, to ipconfig %s s"
                % (name, found_at - plugged if found_at and plugged else None,
                   ipconf_at - plugged if ipconf_at and plugged else None))
    return c, b


# dracut's network root over NBD: the root's file system exported by
# the host's nbd-server on 127.0.0.1, which the guest reaches as
# 10.0.2.2 through QEMU's user network. root=UUID= names it as a block
# root, the way a user whose root is on an NBD (or iSCSI) disk does;
# netroot= tells dracut to connect the disk once ifup has configured the
# NIC, both jobs of dracut's main loop.
NBD_EXPORT = "waitdevroot"
# QEMU's usb-net on the root's xHCI: its drivers are in every image
# (kernel-network-modules; virtio-net needs virtio_pci, which dracut's
# qemu-net module adds only when the host itself runs under QEMU)
NBD_NIC = ["-netdev", "user,id=n0", "-device",
           "usb-net,bus=xhci.0,netdev=n0"]


def nbd_append(port):
    return ("console=ttyS0 panic=-1 root=UUID=%s rootfstype=ext4 ro "
            "netroot=nbd:10.0.2.2:%d:ext4::-N,%s rd.neednet=1 ip=dhcp"
            % (ROOT_UUID, port, NBD_EXPORT))


def free_port():
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


class NbdServer:
    """nbd-server exporting the root file system of @disk (partition 1
    of harness.build_root_disk()'s GPT disk, copied out: the guest's
    NBD device then holds the file system itself) on 127.0.0.1:PORT,
    copy-on-write (dracut's e2fsck opens it for writing; the guest's
    writes stay in nbd-server's diff file); stopped by its pid file."""

    def __init__(self, work, disk):
        images.need("nbd-server", "nbd-server")
        self.export = os.path.join(work, "nbd-root.img")
        with open(disk, "rb") as src, open(self.export, "wb") as dst:
            src.seek(2048 * 512)
            dst.write(src.read(16 << 20))
        self.port = free_port()
        self.conf = os.path.join(work, "nbd-server.conf")
        self.pidfile = os.path.join(work, "nbd-server.pid")
        with open(self.conf, "w") as f:
            f.write("[generic]\n\tuser = root\n\tgroup = root\n"
                    "\tlistenaddr = 127.0.0.1\n\tport = %d\n"
                    "[%s]\n\texportname = %s\n\tcopyonwrite = true\n"
                    % (self.port, NBD_EXPORT, self.export))

    def __enter__(self):
        if os.path.exists(self.pidfile):
            os.unlink(self.pidfile)
        # it forks into the background once it listens, writing its pid
        harness.run(["nbd-server", "-C", self.conf, "-p", self.pidfile],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(50):
            if os.path.exists(self.pidfile):
                break
            time.sleep(0.1)
        else:
            raise harness.HarnessError("nbd-server wrote no pid file")
        return self

    def __exit__(self, *exc):
        try:
            with open(self.pidfile) as f:
                os.kill(int(f.read().strip()), signal.SIGTERM)
        except (OSError, ValueError):
            pass


def s_netroot(env):
    """A block root= on an NBD disk with netroot=nbd:, rd.neednet=1 and
    ip=dhcp: the waitdev job steps aside (it would hold dracut's main
    loop, where ifup and the NBD connection run, for 2/3 of rd.retry),
    and the root on the NBD disk boots with no stall."""
    name = "dracut-waitdev-netroot"
    c = Check(name)
    with NbdServer(env["work"], env["disk"]) as srv:
        b = boot(env, name, nbd_append(srv.port), timeout=200,
                 extra=NBD_NIC)
    text = b.text()
    start = b.first(r"WAITDEV-INIT-START")
    init = b.first(r"ROOT-INIT-OK")
    c.that(b.lines(r"waitdev: netroot= needs dracut's network jobs first; "
                   r"dracut waits the stock way"),
           "the waitdev job says it steps aside for netroot=")
    c.that(not b.lines(r"waitdev: root \S+: not there yet"),
           "waitdev did not wait for the root in dracut's main loop")
    c.that(b.lines(r"nbd\d+: detected capacity change|nbd0"),
           "the kernel attached the NBD disk")
    c.that(init is not None, "the root's /sbin/init ran (from the NBD "
           "disk)")
    # what the stall would cost: the job's deadline, 2/3 of rd.retry
    # (180 s by default); ifup, DHCP and the NBD connection take some
    # seconds under TCG
    took = init - start if init and start else None
    c.that(took is not None and took < 60,
           "root's init within 60 s of dracut's start, no 120 s stall "
           "(%s s)" % took)
    c.that(not b.lines(r"Could not boot|dracut-initqueue.*timeout"),
           "no dracut timeout")
    c.that("Kernel panic" not in text, "no kernel panic")
    harness.log("%s: /init to root's init: %s s" % (name, took))
    return c, b


SCENARIOS = {
    "dracut-waitdev-late": ("dracut", True, lambda e: s_late(e, "dracut",
                                                             True)),
    "mkinitramfs-waitdev-late": ("mkinitramfs", True,
                                 lambda e: s_late(e, "mkinitramfs", True)),
    "dracut-stock-late": ("dracut", False,
                          lambda e: s_late(e, "dracut", False)),
    "mkinitramfs-stock-late": ("mkinitramfs", False,
                               lambda e: s_late(e, "mkinitramfs", False)),
    "dracut-waitdev-never": ("dracut", True,
                             lambda e: s_never(e, "dracut")),
    "mkinitramfs-waitdev-never": ("mkinitramfs", True,
                                  lambda e: s_never(e, "mkinitramfs")),
    "dracut-waitdev-fallback": ("dracut", True,
                                lambda e: s_fallback(e, "dracut")),
    "mkinitramfs-waitdev-fallback": ("mkinitramfs", True,
                                     lambda e: s_fallback(e, "mkinitramfs")),
    "mkinitramfs-waitdev-rootdelay": ("mkinitramfs", True, s_rootdelay),
    "mkinitramfs-waitdev-off": ("mkinitramfs", True, s_off),
    "mkinitramfs-waitdev-rootdelay-fallback": ("mkinitramfs", True,
                                               s_rootdelay_fallback),
    "dracut-waitdev-netroot": ("dracut", "netroot", s_netroot),
    "dracut-waitdev-step-aside": ("dracut", "assembler",
                                  lambda e: s_step_aside(e, "dracut")),
    "mkinitramfs-waitdev-step-aside": (
        "mkinitramfs", "assembler", lambda e: s_step_aside(e, "mkinitramfs")),
    "mkinitramfs-waitdev-resume-absent": (
        "mkinitramfs", True, lambda e: s_resume_absent(e, True)),
    "mkinitramfs-stock-resume-absent": (
        "mkinitramfs", False, lambda e: s_resume_absent(e, False)),
    "mkinitramfs-waitdev-resume-present": ("mkinitramfs", True,
                                           s_resume_present),
    "mkinitramfs-waitdev-nfs-late-nic": ("mkinitramfs", "net",
                                         s_nfs_late_nic),
    "dracut-waitdev-nobinary": ("dracut", "nobinary",
                                lambda e: s_nobinary(e, "dracut")),
    "mkinitramfs-waitdev-nobinary": (
        "mkinitramfs", "nobinary", lambda e: s_nobinary(e, "mkinitramfs")),
    # these build their own images
    "dracut-hermetic": ("dracut", "self", lambda e: s_hermetic(e, "dracut")),
    "mkinitramfs-hermetic": ("mkinitramfs", "self",
                             lambda e: s_hermetic(e, "mkinitramfs")),
}


def image_for(name, a, work, waitdev, built):
    """The image of scenario @name, each built once (images.scenario_main)."""
    tool, with_waitdev, _ = SCENARIOS[name]
    key = (tool, with_waitdev)
    if with_waitdev == "self":
        built[key] = {"work": work, "waitdev": waitdev, "kernel": a.kernel,
                      "modules": a.modules, "output": ""}
    elif key not in built:
        built[key] = images.build(
            tool, work, waitdev if with_waitdev else None, a.kernel,
            a.modules, with_waitdev == "assembler",
            with_waitdev == "nobinary", net=with_waitdev == "net",
            packages=("dracut-network",) if with_waitdev == "netroot"
            else ())
    return built[key]


def main():
    return images.scenario_main("distro.py", __doc__.split("\n\n")[1],
                                SCENARIOS, image_for)


if __name__ == "__main__":
    sys.exit(main())
