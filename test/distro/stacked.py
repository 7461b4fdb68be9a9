#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
Boot stacked roots, LUKS and LVM on a USB stick plugged late, through
the images of both generators with the waitdev hooks (images.build(),
with the packages of images.STACKED), and MD RAID through initramfs-tools',
in QEMU (waitdevtest.harness).

    stacked.py [--waitdev PATH] [--kernel VMLINUZ --modules TREE]
               [--work DIR] [--list] SCENARIO...

The disks hold the harness's root file system (its UUID, its /sbin/init
that prints ROOT-INIT-OK) inside the stack:
  - LUKS: partition 1 is a LUKS2 container (cryptsetup luksFormat, a key
    file, PBKDF2 at 1000 iterations so that TCG unlocks it at once);
    the file system is encrypted into its data segment here (AES-XTS,
    python3-cryptography), since this host has no device-mapper;
  - LVM: partition 1 is a PV (pvcreate, a fixed PV UUID) of the volume
    group wdtvg, whose LV root holds the file system (written at the
    LV's first extent);
  - MD: partition 1 is the file system with an md 1.0 superblock at its
    end (host.md_member()), and a mdadm.conf names the array.

The scenarios (the meson suite 'distro', one test each):
  mkinitramfs-luks-late
        cryptopts=target=wdtroot,source=UUID=<container>,key=/etc/wdt.key
        root=/dev/mapper/wdtroot; the hook takes cryptroot's source as the
        stack ("stack ...: not there yet, waiting"), the stick is plugged
        then, waitdev finds the container, cryptroot unlocks it with the
        key in the image (no prompt) and the root's init runs;
  mkinitramfs-lvm-late
        root=/dev/mapper/wdtvg-root; lvm2 has no local-top script (its
        udev rules activate the VG as the PV comes), so the hook waits for
        the root itself: waitdev finds the LV, dm-0;
  mkinitramfs-md-late
        root=UUID=<file system>; partition 1 is a one-disk RAID1 member
        with metadata 1.0 (host.md_member(): the superblock at the end,
        the file system from sector 0, so the member itself looks like
        the root too), named by the image's mdadm.conf: the hook takes its
        ARRAY UUID= as the stack, udev's incremental assembly starts the
        array, and the array is mounted, not the member;
  dracut-luks-late
        rd.luks.uuid=luks-<container> root=UUID=<file system>, the key in
        /etc/crypttab of the image: the job waits for the container as the
        stack and leaves the root to dracut's cryptroot-ask;
  dracut-lvm-late
        root=/dev/mapper/wdtvg-root; an LVM command line names no PV, so
        the image was built with the PV's partition (a loop device of the
        disk here) as --add-device, whose UUID= the module records (a
        hostonly image records the host root's stack the same way), and
        with waitdev_stack="PARTLABEL=stacked" in its dracut.conf: the
        job waits for both, then dracut's lvm_scan activates the VG.

In each, the root's /sbin/init runs within 30 s of the plug, waitdev's
log says what it found, and neither the hook's step-aside nor the
stock scripts' own waits ("Waiting for encrypted source device", "Gave
up waiting") appear. Exit 0 when every scenario passed.
"""
import contextlib
import os
import shutil
import subprocess
import sys
import time

from waitdevtest import harness, host, images
from waitdevtest.harness import ROOT_UUID, Check, HarnessError
from waitdevtest.images import (APPEND, boot, both, check_late_boot, plug_on,
                               quit_on)

LUKS_UUID = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"
PV_UUID = "wdtPV1-aaaa-bbbb-cccc-dddd-eeee-ffffff"
VG, LV = "wdtvg", "root"
# the file system in the harness's root disk: partition 1, at 1 MiB
FS_OFFSET, FS_SIZE = 1 << 20, 16 << 20
# where the LUKS2 data segment starts (luksFormat --offset, in sectors)
LUKS_OFFSET = 8192
KEY_IN_IMAGE = "/etc/wdt.key"
# LVM on a host with no device-mapper and no udevd: only metadata is
# written (no activation, no udev), nothing of the host's is kept
LVM_CONFIG = ("global { activation=0 } devices { "
              "obtain_device_list_from_udev=0 use_devicesfile=0 } "
              "activation { udev_sync=0 udev_rules=0 } "
              "backup { backup=0 archive=0 }")
# the hooks' line when waitdev waits (the stick is plugged then)
STACK_WAITING = r"waitdev: stack \S+: not there yet, waiting"
ROOT_WAITING = r"waitdev: root \S+: not there yet, waiting"
# the tools' rescue shells: a failed boot ends there, not at the timeout
RESCUE = r"Dropping to a shell|Entering emergency mode"
# what the stock scripts print when they poll or give up themselves
STOCK_WAITS = (r"Waiting for encrypted source device|Gave up waiting|"
               r"may assemble the root")


def root_fs(disk):
    """The harness's root file system, read out of its disk @disk."""
    with open(disk, "rb") as f:
        f.seek(FS_OFFSET)
        return f.read(FS_SIZE)


def partitioned(path, part, size_mib):
    """A GPT disk @path of @size_mib MiB whose partition 1 (from 1 MiB,
    exactly as big: an md 1.0 superblock sits at its end) is the file
    @part."""
    with open(path, "wb") as f:
        f.truncate(size_mib << 20)
    size = os.path.getsize(part)
    harness.run(["sgdisk", "-n", "1:2048:+%dK" % (size >> 10), "-t", "1:8300",
                 "-c", "1:stacked", path], stdout=subprocess.DEVNULL)
    with open(part, "rb") as src, open(path, "r+b") as dst:
        dst.seek(FS_OFFSET)
        shutil.copyfileobj(src, dst)
    os.unlink(part)
    return path


def xts_encrypt(key, data):
    """@data encrypted as dm-crypt's aes-xts-plain64 with 512-byte
    sectors does: the tweak of each sector is its number from the data
    segment's start, 64-bit little endian, zero-padded to 16 bytes."""
    try:
        from cryptography.hazmat.backends import default_backend
        from cryptography.hazmat.primitives.ciphers import (Cipher,
                                                            algorithms,
                                                            modes)
    except ImportError:
        raise HarnessError("python3-cryptography is not installed "
                           "(tools/install-deps installs it)")
    out = bytearray()
    for n in range(len(data) // 512):
        enc = Cipher(algorithms.AES(key),
                     modes.XTS(n.to_bytes(16, "little")),
                     backend=default_backend()).encryptor()
        out += enc.update(data[n * 512:(n + 1) * 512]) + enc.finalize()
    return bytes(out)


def build_luks_disk(work, disk):
    """The LUKS disk and its key file: returns (disk, key file)."""
    images.need("cryptsetup", "cryptsetup-bin")
    part = os.path.join(work, "luks-part.img")
    key = os.path.join(work, "wdt.key")
    vkey = os.path.join(work, "wdt.volume-key")
    with open(key, "wb") as f:
        f.write(os.urandom(32))
    with open(vkey, "wb") as f:
        f.write(os.urandom(64))
    data_at = LUKS_OFFSET * 512
    with open(part, "wb") as f:
        f.truncate(data_at + FS_SIZE)
    harness.run(["cryptsetup", "luksFormat", "--batch-mode",
                 "--type", "luks2", "--cipher", "aes-xts-plain64",
                 "--key-size", "512", "--sector-size", "512",
                 "--volume-key-file", vkey, "--pbkdf", "pbkdf2",
                 "--pbkdf-force-iterations", "1000",
                 "--offset", str(LUKS_OFFSET), "--uuid", LUKS_UUID,
                 "--key-file", key, part], stdout=subprocess.DEVNULL)
    dump = harness.run(["cryptsetup", "luksDump", part],
                       capture_output=True, text=True).stdout
    if "offset: %d [bytes]" % data_at not in dump:
        raise HarnessError("LUKS data segment not at %d:\n%s"
                           % (data_at, dump))
    with open(vkey, "rb") as f:
        volume_key = f.read()
    os.unlink(vkey)
    with open(part, "r+b") as f:
        f.seek(data_at)
        f.write(xts_encrypt(volume_key, root_fs(disk)))
    return partitioned(os.path.join(work, "disk-luks.img"), part,
                       (data_at + FS_SIZE >> 20) + 2), key


def lvm(*args, **kw):
    return harness.run(["lvm"] + list(args[:1]) + ["--config", LVM_CONFIG]
                       + list(args[1:]), **kw)


def build_lvm_disk(work, disk):
    """The LVM disk: returns its path."""
    images.need("lvm", "lvm2")
    part = os.path.join(work, "lvm-part.img")
    with open(part, "wb") as f:
        f.truncate(24 << 20)
    loop = harness.run(["losetup", "--find", "--show", part],
                       capture_output=True, text=True).stdout.strip()
    try:
        q = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        lvm("pvcreate", "--uuid", PV_UUID, "--norestorefile", loop, **q)
        lvm("vgcreate", VG, loop, **q)
        lvm("lvcreate", "-an", "-Zn", "-L", "%dM" % (FS_SIZE >> 20),
            "-n", LV, VG, **q)
        pe_start = int(lvm("pvs", "--noheadings", "--units", "b",
                           "--nosuffix", "-o", "pe_start", loop,
                           capture_output=True, text=True).stdout)
        ranges = lvm("lvs", "--noheadings", "-o", "seg_pe_ranges",
                     "%s/%s" % (VG, LV), capture_output=True,
                     text=True).stdout.strip()
        extent = int(lvm("vgs", "--noheadings", "--units", "b",
                         "--nosuffix", "-o", "vg_extent_size", VG,
                         capture_output=True, text=True).stdout)
    finally:
        harness.run(["losetup", "-d", loop])
    # "/dev/loopN:0-3": the LV's first extent on this PV
    first = int(ranges.rsplit(":", 1)[1].split("-")[0])
    with open(part, "r+b") as f:
        f.seek(pe_start + first * extent)
        f.write(root_fs(disk))
    return partitioned(os.path.join(work, "disk-lvm.img"), part, 28)


def build_md_disk(work, disk):
    """The MD RAID disk and its mdadm.conf: returns (disk, mdadm.conf)."""
    part = os.path.join(work, "md-part.img")
    with open(part, "wb") as f:
        f.write(root_fs(disk))
        f.truncate(FS_SIZE + (4 << 20))
    # metadata 1.0, at the end: the data (the file system) from sector 0
    host.md_member(part, "1.0")
    uuid = harness.run(["blkid", "-p", "-o", "value", "-s", "UUID", part],
                       capture_output=True, text=True).stdout.strip()
    hexd = uuid.replace("-", "")
    if len(hexd) != 32:
        raise HarnessError("md member: blkid read UUID %r" % uuid)
    conf = os.path.join(work, "mdadm.conf")
    with open(conf, "w") as f:
        # mdadm's form of the array's UUID
        f.write("ARRAY /dev/md/wdt UUID=%s\n" % ":".join(
            hexd[i:i + 8] for i in range(0, 32, 8)))
    return partitioned(os.path.join(work, "disk-md.img"), part,
                       (FS_SIZE >> 20) + 6), (conf, uuid)


@contextlib.contextmanager
def attached(disk):
    """@disk as a loop device of this host with its partitions (losetup
    -P), for dracut's --add-device; yields partition 1's node. dracut
    walks a device and its slaves through /dev/block/MAJ:MIN, links that
    udevd makes and this host (no udevd) may lack, as it may lack the
    partition's node (a /dev that is not the kernel's devtmpfs): they
    are made for the while, and removed with whatever else was made
    here."""
    loop = harness.run(["losetup", "--find", "--show", "--partscan", disk],
                       capture_output=True, text=True).stdout.strip()
    made = []
    try:
        part = loop + "p1"
        sysdir = "/sys/class/block/" + os.path.basename(part)
        for _ in range(20):
            if os.path.exists(sysdir):
                break
            time.sleep(0.1)
        else:
            # the kernel's own scan did not add it here (2026-12-07, this
            # host's 6.1 kernel, the same GPT the guest reads): BLKPG
            harness.run(["partx", "--add", loop])
        if not os.path.exists(sysdir):
            raise HarnessError("%s: no partition 1 after losetup -P and "
                               "partx --add" % loop)
        if not os.path.exists(part):
            with open(os.path.join(sysdir, "dev")) as f:
                maj, mnr = map(int, f.read().split(":"))
            os.mknod(part, 0o600 | 0o060000, os.makedev(maj, mnr))
            made.append(part)
        if not os.path.isdir("/dev/block"):
            os.mkdir("/dev/block")
            made.append("/dev/block")
        for node in (loop, part):
            rdev = os.stat(node).st_rdev
            link = "/dev/block/%d:%d" % (os.major(rdev), os.minor(rdev))
            if not os.path.lexists(link):
                os.symlink("../" + os.path.basename(node), link)
                made.append(link)
        yield part
    finally:
        harness.run(["partx", "--delete", loop], check=False,
                    stderr=subprocess.DEVNULL)
        harness.run(["losetup", "-d", loop])
        for path in reversed(made):
            (os.rmdir if path == "/dev/block" else os.unlink)(path)


# how each scenario's image and command line are made: (tool, stack,
# the STACKED packages; those the stack's package depends on too)
SCENARIOS = {
    "mkinitramfs-luks-late": ("mkinitramfs", "luks",
                              ("cryptsetup-initramfs", "dmsetup")),
    "mkinitramfs-lvm-late": ("mkinitramfs", "lvm", ("lvm2", "dmsetup")),
    "mkinitramfs-md-late": ("mkinitramfs", "md", ("mdadm",)),
    "dracut-luks-late": ("dracut", "luks", ("cryptsetup-initramfs",)),
    "dracut-lvm-late": ("dracut", "lvm", ("lvm2",)),
}


def append_for(tool, stack):
    """The kernel command line of a boot."""
    base = APPEND[tool].replace("root=UUID=%s " % ROOT_UUID, "")
    if stack == "lvm":
        return base + " root=/dev/mapper/%s-%s" % (VG, LV)
    if stack == "md":
        return APPEND[tool]
    if tool == "mkinitramfs":
        return base + (" cryptopts=target=wdtroot,source=UUID=%s,key=%s,"
                       "luks root=/dev/mapper/wdtroot" % (LUKS_UUID,
                                                          KEY_IN_IMAGE))
    return base + " rd.luks.uuid=luks-%s root=UUID=%s" % (LUKS_UUID,
                                                          ROOT_UUID)


def image_for(name, a, work, waitdev, built):
    """The image and the disk of scenario @name: images.build() with the
    stack's package, its key file and, for dracut, its crypttab or
    waitdev_stack= (images.scenario_main)."""
    tool, stack, packages = SCENARIOS[name]
    disk = os.path.join(work, "disk.img")
    if stack not in built:
        if stack == "luks":
            built[stack] = build_luks_disk(work, disk)
        elif stack == "md":
            built[stack] = build_md_disk(work, disk)
        else:
            built[stack] = (build_lvm_disk(work, disk), None)
    sdisk, key = built[stack]
    include, drivers = {}, ()
    if stack == "luks":
        include[KEY_IN_IMAGE] = key
        if tool == "dracut":
            tab = os.path.join(work, "crypttab")
            with open(tab, "w") as f:
                f.write("luks-%s UUID=%s %s luks\n" % (LUKS_UUID, LUKS_UUID,
                                                       KEY_IN_IMAGE))
            include["/etc/crypttab"] = tab
        else:
            # the cipher's modules (MODULES=list: only what is named)
            drivers = ("dm_crypt", "xts", "ecb", "algif_skcipher")
    elif stack == "md":
        include["/etc/mdadm/mdadm.conf"] = key[0]
        drivers = ("md_mod", "raid1")
    elif tool == "dracut":
        # the PV's partition as dracut's --add-device: the module records
        # its UUID= (a hostonly image gets the host root's stack so);
        # and waitdev_stack= of dracut.conf, the same partition by its
        # PARTLABEL: both end up in the job's stack
        conf = 'waitdev_stack="PARTLABEL=stacked"\n'
        with attached(sdisk) as part:
            env = images.build(tool, os.path.join(work, name), waitdev,
                               a.kernel, a.modules, packages=packages,
                               conf=conf, devices=(part,))
        env["stacked_disk"] = sdisk
        return env
    env = images.build(tool, os.path.join(work, name), waitdev, a.kernel,
                       a.modules, packages=packages, include=include,
                       drivers=drivers)
    env["stacked_disk"] = sdisk
    # the LUKS key file, or (mdadm.conf, the array's UUID)
    env["stack_key"] = key
    return env


def s_late(env, name):
    tool, stack, _ = SCENARIOS[name]
    c = Check(name)
    # the stick holds the stack, not the harness's plain root disk
    env = dict(env, disk=env["stacked_disk"])
    # LVM on initramfs-tools: the hook waits for the root itself
    waiting = ROOT_WAITING if (tool, stack) == ("mkinitramfs", "lvm") \
        else STACK_WAITING
    b = boot(env, name, append_for(tool, stack),
             react=both(plug_on(waiting), quit_on(RESCUE)), timeout=300)
    took = check_late_boot(c, b, "waitdev said it waits (%s)" % waiting)
    c.that(not b.lines(RESCUE), "no rescue shell")
    c.that(not b.lines(STOCK_WAITS), "no step-aside and no stock wait "
           "(/%s/)" % STOCK_WAITS)
    if (tool, stack) == ("mkinitramfs", "lvm"):
        found = r"waitdev: root /dev/mapper/%s-%s: found /dev/dm-0" % (VG, LV)
    elif stack == "lvm":
        found = r"waitdev: stack UUID=%s: found /dev/sda1" % PV_UUID
        c.that(b.lines(r"waitdev: stack PARTLABEL=stacked: found /dev/sda1"),
               "the stack has dracut.conf's waitdev_stack= too")
    elif stack == "md":
        found = r"waitdev: stack UUID=%s: found /dev/sda1" % (
            env["stack_key"][1])
        c.that(b.lines(r"md/raid1:md\S+: active with 1 out of 1 mirrors"),
               "udev's incremental assembly started the array")
        c.that(b.lines(r"EXT4-fs \(md\d+\): mounted") and
               not b.lines(r"EXT4-fs \(sda1\): mounted"),
               "the array was mounted, not its member")
        c.that(b.lines(r"waitdev: stack \S+ found \(/dev/sda1\); the root "
                       r"is assembled by local-block/mdadm"),
               "the hook leaves the root to mdadm")
    else:
        found = r"waitdev: stack UUID=%s: found /dev/sda1" % LUKS_UUID
    c.that(b.lines(found), "waitdev's log says /%s/" % found)
    if tool == "mkinitramfs" and stack == "luks":
        c.that(b.lines(r"wdtroot: set up successfully"),
               "cryptroot unlocked the container with the key file")
    if tool == "dracut":
        c.that(b.lines(r"waitdev: stack \S+ found \(/dev/sda1( /dev/sda1)*"
                       r"\); dracut assembles the root"),
               "the job leaves the root to dracut")
    elif stack == "luks":
        c.that(b.lines(r"waitdev: stack \S+ found \(/dev/sda1\); the root "
                       r"is assembled by local-top/cryptroot "
                       r"local-block/cryptroot"),
               "the hook leaves the root to cryptroot")
    harness.log("%s: plug to root's init %s s" % (
        name, "%.2f" % took if took else None))
    return c, b


def main():
    scenarios = {n: (lambda e, n=n: s_late(e, n)) for n in SCENARIOS}
    scenarios = {n: (SCENARIOS[n], f) for n, f in scenarios.items()}
    return images.scenario_main("stacked.py", __doc__.split("\n\n")[1],
                                scenarios, image_for)


if __name__ == "__main__":
    sys.exit(main())
