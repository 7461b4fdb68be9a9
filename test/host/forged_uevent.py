#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
forged uevent: a root process can multicast a well-formed uevent to the
kernel's group 1 of NETLINK_KOBJECT_UEVENT. It arrives with uid 0 but a
non-zero sender port id; only the kernel (port 0) may be believed.

  * loop104 (no medium) and a made-up loop109: the forgeries are counted
    ("N forged" in the -v statistics line), waitdev times out with 1 at
    its deadline, and loop109 is not among the block devices it saw.
  * the decisive one: loop108 has a medium; a forged "change" for its
    DEVPATH claims DEVNAME=loop109 while waitdev waits for /dev/loop109.
    Believed, it would end the wait with WAITDEV_ROOT='/dev/loop109'.
    A positive control feeds the very same datagram through --uevent-fd
    (a socketpair, where uid-0 credentials are all that is checked) and
    must be believed, which proves the datagram itself is convincing.
  * then loop104 gets a medium for real and a second run finds it.
"""
import socket
import sys
sys.dont_write_bytecode = True
import re  # noqa: E402
import time  # noqa: E402
from waitdevtest import host  # noqa: E402

NETLINK_KOBJECT_UEVENT = 15
seqnum = 999990


def uevent(action, devpath, **env):
    """A datagram as the kernel formats it: header, then KEY=VALUE\\0."""
    global seqnum
    seqnum += 1
    fields = [("ACTION", action), ("DEVPATH", devpath),
              ("SUBSYSTEM", "block")] + list(env.items()) + \
        [("SEQNUM", str(seqnum))]
    return ("%s@%s\0" % (action, devpath) +
            "".join("%s=%s\0" % kv for kv in fields)).encode()


def forge(h, datagrams):
    try:
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM,
                          NETLINK_KOBJECT_UEVENT)
        s.bind((0, 0))
        for d in datagrams:
            host.log("+ forge %r" % d.split(b"\0", 1)[0].decode())
            s.sendto(d, (0, 1))
        s.close()
    except OSError as e:
        raise host.Fatal("cannot multicast on NETLINK_KOBJECT_UEVENT "
                         "group 1 (%s): needs root/CAP_NET_ADMIN" % e)


def loop_uevent(n, name_n=None, major=7):
    name_n = n if name_n is None else name_n
    return uevent("change", "/devices/virtual/block/loop%d" % n,
                  MAJOR=str(major), MINOR=str(name_n),
                  DEVNAME="loop%d" % name_n, DEVTYPE="disk")


def counters_of(h, p):
    c = host.counters(p.stderr)
    h.check(c is not None, "expected the -v statistics line "
            "('uevents: N received, N accepted, N forged, ...') on stderr",
            p)
    host.log("  counters: %s" % c)
    return c


def body(h):
    h.loop(104)
    h.loop(108)
    h.loop_remove(109)
    h.attach(108, h.image("img108", "ext4"))

    with h.case("forged uevents for loop104 and loop109 are ignored"):
        p = h.start([h.waitdev, "-v", "--cmdline", "", "--root",
                     "/dev/loop104", "--timeout", "2"])
        h.wait_subscribed(p)
        forge(h, [loop_uevent(104),
                  uevent("add", "/devices/virtual/block/loop109",
                         MAJOR="7", MINOR="109", DEVNAME="loop109",
                         DEVTYPE="disk")])
        rc = p.wait(6)
        h.check(rc == 1, "expected exit status 1 (deadline passed)", p)
        h.check(p.elapsed >= 1.9, "it ended early, after %.3f s"
                % p.elapsed, p)
        c = counters_of(h, p)
        h.check(c["forged"] >= 2, "expected >= 2 forged uevents counted, "
                "got %d" % c["forged"], p)
        h.check(not re.search(r"seen block loop109\b", p.stderr),
                "the forged 'add' of loop109 made it into the device "
                "table", p)

    with h.case("a forged rename of loop108 to loop109 does not end a wait "
                "for /dev/loop109"):
        p = h.start([h.waitdev, "-v", "--cmdline", "", "--root",
                     "/dev/loop109", "--timeout", "2", "--format", "shell"])
        h.wait_subscribed(p)
        forge(h, [loop_uevent(108, name_n=109)])
        rc = p.wait(6)
        h.check(rc == 1, "expected exit status 1: the forged uevent was "
                "believed", p)
        h.check(p.elapsed >= 1.9, "it ended early, after %.3f s"
                % p.elapsed, p)
        c = counters_of(h, p)
        h.check(c["forged"] >= 1, "expected >= 1 forged uevent counted, "
                "got %d" % c["forged"], p)

    with h.case("control: the same datagram from a trusted --uevent-fd "
                "is believed"):
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        # what waitdev sets on it too, but only once it runs: a datagram
        # sent before carries no credentials (and is dropped as forged)
        theirs.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        try:
            p = h.start([h.waitdev, "-v", "--cmdline", "", "--root",
                         "/dev/loop109", "--timeout", "5", "--format",
                         "shell", "--uevent-fd", str(theirs.fileno())],
                        pass_fds=(theirs.fileno(),))
            theirs.close()
            h.expect_running(p, 0.5, "loop109 does not exist")
            t = time.monotonic()
            mine.send(loop_uevent(108, name_n=109))
            h.expect_exit(p, 0, 3, since=t, why="(the control datagram "
                          "should be accepted)")
            h.check("WAITDEV_ROOT='/dev/loop109'" in p.stdout.splitlines(),
                    "expected WAITDEV_ROOT='/dev/loop109'", p)
        finally:
            mine.close()
            if theirs.fileno() >= 0:
                theirs.close()

    with h.case("loop104 attached for real: a second run finds it"):
        h.attach(104, h.image("img104", "ext4"))
        p = h.start([h.waitdev, "-v", "--cmdline", "", "--root",
                     "/dev/loop104", "--timeout", "2", "--format", "shell"])
        h.expect_exit(p, 0, 1.5)
        h.check("WAITDEV_ROOT='/dev/loop104'" in p.stdout.splitlines(),
                "expected WAITDEV_ROOT='/dev/loop104'", p)


host.main("forged-uevent", body)
