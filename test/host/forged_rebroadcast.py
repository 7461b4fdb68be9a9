#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
forged re-broadcast (issue 13, item 2): since Linux 4.18 a uevent that a
root process sends *to the kernel* on NETLINK_KOBJECT_UEVENT comes back
re-broadcast on group 1 from port id 0 with uid 0 (uevent_net_rcv()),
which is what the kernel's own uevents look like; only the pid in the
credentials differs (the sender's, where the kernel's carry 0).

Two such "add"s for devices that do not exist, an interface rtghost and a
tty ttyRT9, must not end a wait for --net rtghost --console ttyRT9: exit 1
at the deadline, the forgeries counted. A control socket of our own shows
that the re-broadcast does arrive from port id 0.

The whole script runs in a network namespace of its own: the kernel
re-broadcasts in the sender's namespace only, so nothing else on the host
(another test run, udevd) sees these uevents.
"""
import ctypes
import socket
import struct
import sys
sys.dont_write_bytecode = True
import os  # noqa: E402
from waitdevtest import host  # noqa: E402

NETLINK_KOBJECT_UEVENT = 15
CLONE_NEWNET = 0x40000000
NLM_F_REQUEST = 1
NLMSG_MIN_TYPE = 0x10


def own_netns():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise host.Fatal("unshare(CLONE_NEWNET): %s" % os.strerror(e))


def uevent(action, devpath, subsystem, **env):
    """The payload the kernel re-broadcasts (it appends SEQNUM itself)."""
    fields = [("ACTION", action), ("DEVPATH", devpath),
              ("SUBSYSTEM", subsystem)] + list(env.items())
    return ("%s@%s\0" % (action, devpath) +
            "".join("%s=%s\0" % kv for kv in fields)).encode()


def send_to_kernel(payloads):
    """Each payload in a netlink message to port id 0 (the kernel)."""
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM,
                      NETLINK_KOBJECT_UEVENT)
    try:
        for p in payloads:
            host.log("+ send to the kernel %r"
                     % p.split(b"\0", 1)[0].decode())
            hdr = struct.pack("=IHHII", 16 + len(p), NLMSG_MIN_TYPE,
                              NLM_F_REQUEST, 1, 0)
            s.sendto(hdr + p, (0, 0))
    except OSError as e:
        raise host.Fatal("cannot send a uevent to the kernel (%s): "
                         "needs root and Linux >= 4.18" % e)
    finally:
        s.close()


FORGED = [
    uevent("add", "/devices/virtual/net/rtghost", "net",
           INTERFACE="rtghost", IFINDEX="4242"),
    uevent("add", "/devices/virtual/tty/ttyRT9", "tty",
           MAJOR="4", MINOR="73", DEVNAME="ttyRT9"),
]


def body(h):
    own_netns()

    with h.case("control: the kernel re-broadcasts them from port id 0"):
        c = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM,
                          NETLINK_KOBJECT_UEVENT)
        try:
            c.bind((0, 1))
            c.settimeout(2)
            send_to_kernel(FORGED[:1])
            data, addr = c.recvfrom(4096)
            host.log("  received %r from %r" % (data[:40], addr))
            h.check(addr[0] == 0 and data.startswith(b"add@/devices/"
                                                     b"virtual/net/rtghost"),
                    "expected the re-broadcast from port id 0, got %r "
                    "from %r" % (data[:40], addr))
        except socket.timeout:
            raise host.Failure("no re-broadcast within 2 s: is this "
                               "kernel older than 4.18?")
        finally:
            c.close()

    with h.case("forged adds of rtghost and ttyRT9 end no wait"):
        p = h.start([h.waitdev, "-v", "--cmdline", "", "--source",
                     "kernel", "--net", "rtghost", "--console", "ttyRT9",
                     "--timeout", "2"])
        h.wait_subscribed(p)
        send_to_kernel(FORGED)
        rc = p.wait(6)
        h.check(rc == 1, "expected exit status 1 (deadline passed): the "
                "forged uevents were believed", p)
        c = host.counters(p.stderr)
        h.check(c is not None, "expected the -v statistics line", p)
        host.log("  counters: %s" % c)
        h.check(c["forged"] >= 2, "expected >= 2 forged uevents counted, "
                "got %d" % c["forged"], p)
        h.check(c["accepted"] == 0, "expected none accepted, got %d"
                % c["accepted"], p)


host.main("forged-rebroadcast", body)
