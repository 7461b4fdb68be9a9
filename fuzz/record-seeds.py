#!/usr/bin/env python3
"""Records real kernel messages for the uevent and rtnl seed corpora.

As root: listens on NETLINK_KOBJECT_UEVENT group 1 and on NETLINK_ROUTE
RTMGRP_LINK while it creates loop devices 110..111 (LOOP_CTL_ADD),
attaches a GPT image with two named partitions to loop110 and a plain
file to loop111, detaches and removes them, and creates, toggles and
deletes a veth pair wdf0a/wdf0b. Only messages about those devices are
kept, a few of each kind, as raw datagrams in fuzz/corpus/uevent/ and
fuzz/corpus/rtnl/ (plus the sysfs "uevent" files of the same devices,
which uevent_parse_file() reads). Usage: fuzz/record-seeds.py [OUTDIR]
"""
import fcntl
import os
import select
import socket
import struct
import subprocess
import sys
import tempfile
import time

NETLINK_KOBJECT_UEVENT = 15
RTMGRP_LINK = 1
RTM_NEWLINK, RTM_DELLINK = 16, 17
LOOP_CTL_ADD, LOOP_CTL_REMOVE = 0x4C80, 0x4C81
LOOPS = (110, 111)
VETH = ("wdf0a", "wdf0b")
MAX_PER_KIND = 2

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "corpus")


def sh(*argv):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


ue = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM,
                   NETLINK_KOBJECT_UEVENT)
ue.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
ue.bind((0, 1))
rt = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
rt.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
rt.bind((0, RTMGRP_LINK))

uevents, links, files = [], [], {}


def drain(seconds=0.3):
    end = time.monotonic() + seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return
        r, _, _ = select.select([ue, rt], [], [], left)
        for s in r:
            data, addr = s.recvfrom(65536)
            if addr[0] != 0:
                continue  # only the kernel's
            (uevents if s is ue else links).append(data)


ctl = os.open("/dev/loop-control", os.O_RDWR)
created = []
tmp = tempfile.mkdtemp(prefix="waitdev-seeds-")
try:
    for n in LOOPS:
        if not os.path.exists("/sys/devices/virtual/block/loop%d" % n):
            fcntl.ioctl(ctl, LOOP_CTL_ADD, n)
            created.append(n)
    drain()
    gpt = os.path.join(tmp, "gpt.img")
    with open(gpt, "wb") as f:
        f.truncate(4 << 20)
    sh("sgdisk", "-n", "1:2048:+1M", "-c", "1:EFI System Partition",
       "-t", "1:ef00", "-n", "2:0:0", "-c", "2:root", gpt)
    plain = os.path.join(tmp, "plain.img")
    with open(plain, "wb") as f:
        f.truncate(1 << 20)
    sh("losetup", "-P", "/dev/loop110", gpt)
    sh("losetup", "/dev/loop111", plain)
    drain(1.0)
    # loop110p1 only where the kernel reads partition tables
    for dev in ("loop110", "loop110/loop110p1", "loop111"):
        try:
            with open("/sys/devices/virtual/block/%s/uevent" % dev,
                      "rb") as f:
                files["sysfs-" + dev.split("/")[-1]] = f.read()
        except FileNotFoundError:
            pass
    sh("losetup", "-d", "/dev/loop110")
    sh("losetup", "-d", "/dev/loop111")
    drain(1.0)

    sh("ip", "link", "add", VETH[0], "type", "veth", "peer", "name", VETH[1])
    drain()
    with open("/sys/class/net/%s/uevent" % VETH[0], "rb") as f:
        files["sysfs-" + VETH[0]] = f.read()
    sh("ip", "link", "set", VETH[0], "address", "52:54:00:12:34:56")
    sh("ip", "link", "set", VETH[0], "up")
    sh("ip", "link", "set", VETH[1], "up")  # carrier on both ends
    drain()
    sh("ip", "link", "set", VETH[1], "down")
    sh("ip", "link", "set", VETH[0], "down")
    drain()
    sh("ip", "link", "del", VETH[0])
    drain()
    if os.path.exists("/sys/class/tty/ttyS0/uevent"):
        with open("/sys/class/tty/ttyS0/uevent", "rb") as f:
            files["sysfs-ttyS0"] = f.read()
finally:
    for n in LOOPS:
        subprocess.run(["losetup", "-d", "/dev/loop%d" % n],
                       stderr=subprocess.DEVNULL)
    for n in created:
        try:
            fcntl.ioctl(ctl, LOOP_CTL_REMOVE, n)
        except OSError:
            pass
    drain()
    subprocess.run(["ip", "link", "del", VETH[0]], stderr=subprocess.DEVNULL)
    subprocess.run(["rm", "-rf", tmp])


def fields(d):
    parts = d.split(b"\0")
    kv = dict(p.split(b"=", 1) for p in parts[1:] if b"=" in p)
    return parts[0], kv


kept = {}
for d in uevents:
    head, kv = fields(d)
    path = kv.get(b"DEVPATH", b"")
    if not any(w in path for w in (b"loop110", b"loop111", b"7:110",
                                   b"7:111", b"wdf0")):
        continue
    kind = (kv.get(b"ACTION", b"?") + b"-" + kv.get(b"SUBSYSTEM", b"?") +
            b"-" + kv.get(b"DEVTYPE", b"")).decode().strip("-")
    kept.setdefault(kind, [])
    if len(kept[kind]) < MAX_PER_KIND:
        kept[kind].append(d)
os.makedirs(os.path.join(out, "uevent"), exist_ok=True)
for kind, ds in sorted(kept.items()):
    for i, d in enumerate(ds):
        with open(os.path.join(out, "uevent", "host-%s-%d" % (kind, i)),
                  "wb") as f:
            f.write(d)
for name, d in files.items():
    with open(os.path.join(out, "uevent", name), "wb") as f:
        f.write(d)

os.makedirs(os.path.join(out, "rtnl"), exist_ok=True)
n = 0
seen = set()
kept_links = []
for d in links:
    if len(d) < 32 or not any(v.encode() + b"\0" in d for v in VETH):
        continue
    mtype = struct.unpack_from("=H", d, 4)[0]
    flags = struct.unpack_from("=I", d, 24)[0]  # ifi_flags
    name = {RTM_NEWLINK: "newlink", RTM_DELLINK: "dellink"}.get(mtype)
    if not name or (mtype, flags) in seen:
        continue  # one of each kind and IFF_* set is enough
    seen.add((mtype, flags))
    with open(os.path.join(out, "rtnl", "host-%s-%02d" % (name, n)),
              "wb") as f:
        f.write(d)
    n += 1
    kept_links.append(d)
# a datagram of two messages, as a dump reply would be (each message of
# the kernel's is a multiple of 4 bytes long, so they simply follow)
if len(kept_links) >= 2:
    with open(os.path.join(out, "rtnl", "host-two-messages"), "wb") as f:
        f.write(kept_links[0] + kept_links[-1])
    n += 1
print("uevent: %d kept of %d; rtnl: %d kept of %d; %d sysfs files"
      % (sum(len(v) for v in kept.values()), len(uevents), n, len(links),
         len(files)))
