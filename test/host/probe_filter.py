#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
probe-filter: rootfstype= narrows waitdev's libblkid probe to the types
the kernel will mount the root as (issue 14 item 2), and what the whole
probe refuses is still refused. On loop106, attached before each start
(waitdev --timeout 0 looks once: the scan and its probes), with
--cmdline "root=... [rootfstype=...]":

  * ext4: found as root=/dev/loop106 and root=UUID= with rootfstype=ext4,
    rootfstype=ext3 (the ext4 driver mounts every ext2/3/4 volume: the
    name stands for all three) and rootfstype=nosuchfs,ext4 (a type
    libblkid does not know: the whole probe decides, as without
    rootfstype=); not ready with rootfstype=xfs (the kernel would not
    mount it), and the JSON then says no filesystem;
  * md RAID members whose superblock is at the end of the device, with
    ext4 at the start (0.90, 1.0): the ext4's UUID= and LABEL= never
    match, with or without rootfstype=ext4, and "seen" names
    linux_raid_member; a LUKS2 container is crypto_LUKS with
    rootfstype=ext4 too (its UUID= matches, as without): the RAID and
    crypto probers stay in the filtered probe;
  * two signatures (vfat, and an ext4 superblock copied into its
    reserved sectors): with rootfstype=ext4,vfat still ambivalent (never
    a root); with rootfstype=ext4 alone it is the ext4 volume the kernel
    would mount (the vfat signature is not looked for);
  * rootfstype= is the root's: a swap partition waited for as the resume
    device (waitdev.resume=UUID=) is found with rootfstype=ext4 on the
    same command line, alone and beside a root (before the fix every
    probe looked for ext4 only, and no resume device was ever found on a
    command line that named the root's type: the distro boot
    mkinitramfs-waitdev-resume-present failed so).

The md superblocks are written by this script (the host kernel has no md
driver for mdadm --create: see md_member()); every image is checked with
blkid(8) -p first, so a failure is waitdev's and not a wrong image. The
read counts with and without rootfstype= are logged (figures, never
asserted: the device's stat counts every reader).
"""
import json
import os
import random
import struct
import subprocess
import sys
sys.dont_write_bytecode = True
import uuid  # noqa: E402
from waitdevtest import host  # noqa: E402

N = 106
NODE = "/dev/loop%d" % N
MD_MAGIC = 0xa92b4efc


def expect_blkid(img, status=0, **want):
    rc, vals = host.blkid_p(img)
    if rc != status or any(vals.get(k) != v for k, v in want.items()):
        raise host.Fatal("blkid -p %s: expected status %d %s, got %d %s "
                         "(the image is not what this test needs)"
                         % (img, status, want, rc, vals))


def md_member(img, version):
    """Writes an md superblock of @version ("0.90" or "1.0": both at the
    end of the device) onto @img, as mdadm --create would, for a one-disk
    RAID1 whose data (an ext4 made on @img before) starts at sector 0.
    The layouts are the kernel's (include/uapi/linux/raid/md_p.h); blkid
    -p must then call the image linux_raid_member."""
    size = os.path.getsize(img)
    if version == "0.90":
        off = (size & ~(65536 - 1)) - 65536       # MD_NEW_SIZE_SECTORS
        u = uuid.uuid4().bytes
        sb = bytearray(4096)
        # md_magic, major, minor, patch, gvalid_words, set_uuid0, ctime,
        # level, size, nr_disks, raid_disks
        struct.pack_into("<6I", sb, 0, MD_MAGIC, 0, 90, 0, 0,
                         struct.unpack("<I", u[:4])[0])
        struct.pack_into("<5I", sb, 24, 0, 1, 0, 1, 1)
        struct.pack_into("<3I", sb, 52, *struct.unpack("<3I", u[4:]))
    else:
        sectors = size >> 9
        sb_off = (sectors - 8 * 2) & ~(4 * 2 - 1)  # 1.0: 8 KiB from the end
        off = sb_off * 512
        sb = bytearray(256 + 2)                    # one dev_roles entry
        struct.pack_into("<4I", sb, 0, MD_MAGIC, 1, 0, 0)
        sb[16:32] = uuid.uuid4().bytes             # set_uuid
        sb[32:64] = b"wdt:0".ljust(32, b"\0")      # set_name
        struct.pack_into("<i", sb, 72, 1)          # level
        struct.pack_into("<Q", sb, 80, sb_off)     # size
        struct.pack_into("<I", sb, 92, 1)          # raid_disks
        struct.pack_into("<Q", sb, 136, sb_off)    # data_size
        struct.pack_into("<Q", sb, 144, sb_off)    # super_offset
        sb[168:184] = uuid.uuid4().bytes           # device_uuid
        struct.pack_into("<I", sb, 220, 1)         # max_dev
        csum = sum(struct.unpack_from("<%dI" % (len(sb) // 4), sb))
        csum += struct.unpack_from("<H", sb, len(sb) - 2)[0]
        csum = (csum & 0xffffffff) + (csum >> 32)  # calc_sb_1_csum()
        struct.pack_into("<I", sb, 216, csum & 0xffffffff)
    with open(img, "r+b") as f:
        f.seek(off)
        f.write(sb)


def look(h, img, cmdline, status, fs_type=None):
    """@img attached to loop@N, waitdev --cmdline @cmdline --timeout 0:
    exit @status; not found: the device in "seen" has @fs_type. Returns
    the probe's read count (None when not logged)."""
    h.detach(N)
    h.attach(N, img)
    p = h.start([h.waitdev, "-v", "--source", "kernel", "--cmdline", cmdline,
                 "--timeout", "0", "--format", "json"])
    h.expect_exit(p, status, 3)
    t = json.loads(p.stdout)["targets"][0]
    if status == 0:
        h.check(t["device"] == NODE, "expected %s found" % NODE, p)
        cost = t.get("probe") or {}
    else:
        seen = [d for d in t["seen"] if d["name"] == "loop%d" % N]
        h.check(seen, "loop%d is not in \"seen\"" % N, p)
        h.check(seen[0]["fs_type"] == fs_type,
                "expected fs_type %r in \"seen\", got %r"
                % (fs_type, seen[0]["fs_type"]), p)
        cost = seen[0].get("probe") or {}
    host.log("  %s: exit %d, probe %r" % (cmdline, status, cost))
    h.detach(N)
    return cost.get("reads")


def body(h):
    if not h.blkid:
        raise host.Fatal("this waitdev has no libblkid probe (%s): "
                         "rootfstype= narrows that probe"
                         % h.features["probe"])
    h.loop(N)
    size = 64 << 20

    # ---- ext4 ---------------------------------------------------------
    u = str(uuid.uuid4())
    img = h.image("ext4", "ext4", size=size, mkfs_args=["-U", u])
    expect_blkid(img, TYPE="ext4", UUID=u)
    with h.case("ext4: found with rootfstype=ext4, =ext3, =nosuchfs,ext4, "
                "by name and UUID="):
        full = look(h, img, "root=%s" % NODE, 0)
        narrow = look(h, img, "root=%s rootfstype=ext4" % NODE, 0)
        look(h, img, "root=UUID=%s rootfstype=ext4" % u, 0)
        look(h, img, "root=UUID=%s rootfstype=ext3" % u, 0)
        look(h, img, "root=%s rootfstype=nosuchfs,ext4" % NODE, 0)
        host.log("  reads: %s without rootfstype=, %s with rootfstype=ext4 "
                 "(figures, not asserted)" % (full, narrow))
    with h.case("ext4 with rootfstype=xfs: not a root the kernel would "
                "mount"):
        look(h, img, "root=%s rootfstype=xfs" % NODE, 1, None)
        look(h, img, "root=UUID=%s rootfstype=xfs" % u, 1, None)

    # ---- md members, superblock at the end ------------------------------
    for version in ("0.90", "1.0"):
        u = str(uuid.uuid4())
        img = h.image("md" + version, "ext4", size=size,
                      mkfs_args=["-U", u, "-L", "md" + version])
        expect_blkid(img, TYPE="ext4", UUID=u)
        md_member(img, version)
        expect_blkid(img, TYPE="linux_raid_member")
        with h.case("md %s member with ext4 inside: its UUID= and LABEL= "
                    "never match, with or without rootfstype=ext4"
                    % version):
            for cmdline in ("root=UUID=%s" % u,
                            "root=UUID=%s rootfstype=ext4" % u,
                            "root=LABEL=md%s" % version,
                            "root=LABEL=md%s rootfstype=ext4" % version):
                look(h, img, cmdline, 1, "linux_raid_member")

    # ---- LUKS -----------------------------------------------------------
    img = h.image("luks", None, size=16 << 20)
    r = subprocess.run(["cryptsetup", "luksFormat", "--batch-mode",
                        "--pbkdf", "pbkdf2", "--pbkdf-force-iterations",
                        "1000", "--key-file", "-", img], input=b"wdt",
                       capture_output=True)
    if r.returncode != 0:
        raise host.Fatal("cryptsetup luksFormat: status %d: %s (package "
                         "cryptsetup-bin)" % (r.returncode, r.stderr))
    rc, vals = host.blkid_p(img)
    if rc != 0 or vals.get("TYPE") != "crypto_LUKS":
        raise host.Fatal("blkid -p %s: not crypto_LUKS" % img)
    with h.case("LUKS2 container: recognised as crypto_LUKS with "
                "rootfstype=ext4 too, its UUID= still matches"):
        look(h, img, "root=LABEL=wdt-none", 1, "crypto_LUKS")
        look(h, img, "root=LABEL=wdt-none rootfstype=ext4", 1,
             "crypto_LUKS")
        look(h, img, "root=UUID=%s rootfstype=ext4" % vals["UUID"], 0)

    # ---- two signatures -------------------------------------------------
    u = str(uuid.uuid4())
    donor = h.image("two-ext4", "ext4", size=8 << 20,
                    mkfs_args=["-U", u, "-L", "wdt-two"])
    img = h.image("two", "vfat", size=8 << 20, mkfs_args=[
        "-R", "8", "-i", "%08X" % random.getrandbits(32)])
    host.graft_ext_superblock(donor, img)
    expect_blkid(img, status=8)                     # ambivalent
    with h.case("vfat + ext4 signatures: ambivalent without rootfstype= "
                "and with rootfstype=ext4,vfat"):
        look(h, img, "root=%s" % NODE, 1, None)
        look(h, img, "root=%s rootfstype=ext4,vfat" % NODE, 1, None)
    with h.case("vfat + ext4 signatures, rootfstype=ext4: the ext4 volume "
                "the kernel would mount"):
        look(h, img, "root=UUID=%s rootfstype=ext4" % u, 0)

    # ---- swap, the resume device ----------------------------------------
    u = str(uuid.uuid4())
    img = h.image("swap", None, size=4 << 20)
    r = subprocess.run(["mkswap", "-U", u, img], capture_output=True)
    if r.returncode != 0:
        raise host.Fatal("mkswap: status %d: %s" % (r.returncode, r.stderr))
    expect_blkid(img, TYPE="swap", UUID=u)
    with h.case("swap as the resume device: found with rootfstype=ext4 on "
                "the command line, which is the root's"):
        look(h, img, "waitdev.resume=UUID=%s" % u, 0)
        look(h, img, "waitdev.resume=UUID=%s rootfstype=ext4" % u, 0)
        # beside a root that is not there (exit 1 for it), the resume
        # target is found all the same
        h.attach(N, img)
        p = h.start([h.waitdev, "--source", "kernel", "--cmdline",
                     "waitdev.resume=UUID=%s root=UUID=%s rootfstype=ext4"
                     % (u, uuid.uuid4()), "--timeout", "0", "--format",
                     "json"])
        h.expect_exit(p, 1, 3)
        t = {x["role"]: x for x in json.loads(p.stdout)["targets"]}
        h.check(t.get("resume", {}).get("state") == "found" and
                t["resume"].get("device") == NODE and
                t.get("root", {}).get("why") == "missing",
                "expected the resume device found on %s, the root "
                "missing" % NODE, p)
        h.detach(N)


host.main("probe-filter", body)
