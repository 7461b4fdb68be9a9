#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
Writes the seed corpus of fuzz-report (fuzz/corpus/report/) and the
input of issue 13's crash (fuzz/crashes/report/): device tables built
from uevents, udev properties, link messages and sizes, in the input
format fuzz-report.c describes. Run from anywhere; it rewrites them.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SEQ = [1000]


def uevent(action, subsystem, name, *fields, kind="U"):
    devpath = b"/devices/virtual/%s/%s" % (subsystem, name)
    SEQ[0] += 1
    parts = [b"%s@%s" % (action, devpath), b"ACTION=" + action,
             b"DEVPATH=" + devpath, b"SUBSYSTEM=" + subsystem]
    parts += list(fields) + [b"SEQNUM=%d" % SEQ[0]]
    # no trailing NUL: two NULs end a record
    return kind.encode() + b"\0".join(parts)


def link(ifindex, flags, operstate, mac, name):
    return b"L%d %x %d %s " % (ifindex, flags, operstate,
                               mac.hex().encode() or b"-") + name


def size(sectors, bits=0):
    return b"Z%d %d" % (sectors, bits)


def write(path, mask, records):
    data = bytes([mask]) + b"\0\0".join(records)
    assert b"\0\0" not in b"".join(r for r in records), path
    with open(os.path.join(HERE, path), "wb") as f:
        f.write(data)


MAC1 = bytes([2, 0, 0, 0, 0, 1])
seeds = {
    "block-disk-partitions": (0xff, [
        uevent(b"add", b"block", b"sda", b"MAJOR=8", b"MINOR=0",
               b"DEVNAME=sda", b"DEVTYPE=disk"),
        size(2097152),
        uevent(b"add", b"block", b"sda1", b"MAJOR=8", b"MINOR=1",
               b"DEVNAME=sda1", b"DEVTYPE=partition", b"PARTN=1",
               b"PARTNAME=rootfs"),
        size(2095104),
        uevent(b"change", b"block", b"sda1", b"MAJOR=8", b"MINOR=1",
               b"DEVNAME=sda1", b"DEVTYPE=partition",
               b"ID_FS_TYPE=ext4",
               b"ID_FS_UUID=0b7c0d7a-7b1e-4f6c-9d4e-2f1a9a3c5e11",
               b"ID_FS_LABEL=rootfs",
               b"ID_PART_ENTRY_UUID=11111111-01",
               b"DEVLINKS=/dev/disk/by-label/rootfs", kind="P"),
        uevent(b"add", b"block", b"sr0", b"MAJOR=11", b"MINOR=0",
               b"DEVNAME=sr0", b"DEVTYPE=disk"),
        uevent(b"add", b"block", b"loop0", b"MAJOR=7", b"MINOR=0",
               b"DEVNAME=loop0", b"DEVTYPE=disk"),
        uevent(b"add", b"block", b"dm-0", b"MAJOR=254", b"MINOR=0",
               b"DEVNAME=dm-0", b"DEVTYPE=disk"),
        size(8192, 1),
    ]),
    "ttys": (0x18, [
        uevent(b"add", b"tty", b"ttyS0", b"MAJOR=4", b"MINOR=64",
               b"DEVNAME=ttyS0"),
        uevent(b"add", b"tty", b"tty1", b"MAJOR=4", b"MINOR=1",
               b"DEVNAME=tty1"),
        uevent(b"add", b"tty", b"tty2", b"MAJOR=4", b"MINOR=2",
               b"DEVNAME=tty2"),
        uevent(b"add", b"tty", b"ttyUSB0", b"MAJOR=188", b"MINOR=0",
               b"DEVNAME=ttyUSB0"),
        uevent(b"remove", b"tty", b"ttyUSB0", b"MAJOR=188", b"MINOR=0",
               b"DEVNAME=ttyUSB0"),
    ]),
    "net-renamed": (0xe0, [
        uevent(b"add", b"net", b"eth0", b"INTERFACE=eth0", b"IFINDEX=2"),
        link(2, 0x1043, 6, MAC1, b"eth0"),
        uevent(b"move", b"net", b"enp0s3",
               b"DEVPATH_OLD=/devices/virtual/net/eth0",
               b"INTERFACE=enp0s3", b"IFINDEX=2"),
        uevent(b"add", b"net", b"wdz0", b"INTERFACE=wdz0", b"IFINDEX=3"),
        link(3, 0x1003, 2, bytes([2, 0, 0, 0, 0, 3]), b"wdz1"),
        uevent(b"add", b"net", b"lo", b"INTERFACE=lo", b"IFINDEX=1"),
        link(1, 0x49, 0, bytes(6), b"lo"),
    ]),
    "hostile-names": (0xff, [
        uevent(b"add", b"block", b"sdq", b"MAJOR=8", b"MINOR=1",
               b"DEVNAME=sdq\nroot /dev/forged\x1b[2J'$(id)\\x0a\xff",
               b"DEVTYPE=partition", b"PARTNAME=a\"b\x9b\xc2\x9b"),
        size(4096),
        uevent(b"change", b"block", b"sdq", b"MAJOR=8", b"MINOR=1",
               b"ID_FS_TYPE=ext4\x07", b"ID_FS_LABEL=" + b"\xe9" * 300,
               b"ID_FS_UUID=\n", kind="P"),
        uevent(b"add", b"tty", b"ttyE", b"MAJOR=4", b"MINOR=66",
               b"DEVNAME=ttyE\nconsole found\x1b[2J"),
        uevent(b"add", b"net", b"wdz9", b"INTERFACE=wdz'\n\xc3\xa9\xed\xa0\x80",
               b"IFINDEX=9"),
        link(9, 0x1, 2, bytes([2, 0, 0, 0, 0, 1]), b"wdz\x1b\xff"),
    ]),
    "long-names": (0xff, [
        uevent(b"add", b"block", b"sdl", b"MAJOR=8", b"MINOR=1",
               b"DEVNAME=" + b"l" * 1900, b"DEVTYPE=disk"),
        size(100),
        uevent(b"add", b"net", b"wdzl", b"INTERFACE=" + b"n" * 1000,
               b"IFINDEX=4"),
        uevent(b"add", b"tty", b"ttyL", b"MAJOR=4", b"MINOR=67",
               b"DEVNAME=" + b"t\xe2\x82\xac" * 400),
    ]),
}
for name, (mask, records) in seeds.items():
    write(os.path.join("corpus", "report", name), mask, records)

# issue 13, item 1: a tty named by 1,500 bytes crashed seen_ttys()
write(os.path.join("crashes", "report", "seen-ttys-1500-byte-name"), 0x10, [
    uevent(b"add", b"tty", b"ttyS0", b"MAJOR=4", b"MINOR=64",
           b"DEVNAME=ttyS0"),
    uevent(b"add", b"tty", b"ttyLONG", b"MAJOR=4", b"MINOR=65",
           b"DEVNAME=" + b"x" * 1500),
])
