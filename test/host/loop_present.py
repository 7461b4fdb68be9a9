#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
loop-present: the root device is there (attached, size > 0, an ext4
filesystem on it: a libblkid build wants one) before the wait starts, so
every front end and every output format answers at once from the sysfs
scan, without any uevent.
"""
import sys
sys.dont_write_bytecode = True
import os  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostlib  # noqa: E402

N = 105
NODE = "/dev/loop%d" % N
QUICK = 1.0     # "at once": well under the 10 s timeout given


def body(h):
    h.loop(N)
    h.attach(N, h.image("img", "ext4"))
    maj, mnr = h.devt("loop%d" % N)

    with h.case("waitdev --format shell: found at once"):
        p = h.start([h.waitdev, "--cmdline", "", "--root", NODE,
                     "--timeout", "10", "--format", "shell"])
        h.expect_exit(p, 0, QUICK)
        h.check(p.stdout.splitlines() == ["WAITDEV_ROOT='%s'" % NODE,
                                          "WAITDEV_MISSING=''"],
                "expected exactly WAITDEV_ROOT='%s' and WAITDEV_MISSING=''"
                % NODE, p)

    with h.case("waitdev (plain): prints 'root %s'" % NODE):
        p = h.start([h.waitdev, "--cmdline", "", "--root", NODE,
                     "--timeout", "10"])
        h.expect_exit(p, 0, QUICK)
        h.check(p.stdout == "root %s\n" % NODE,
                "expected stdout 'root %s'" % NODE, p)

    with h.case("waitdev --format json: status found, device %s" % NODE):
        p = h.start([h.waitdev, "--cmdline", "", "--root", "loop%d" % N,
                     "--timeout", "10", "--format", "json"])
        h.expect_exit(p, 0, QUICK)
        j = hostlib.parse_json(p.stdout)
        t = j.get("targets") or [{}]
        h.check(j.get("status") == "found" and len(t) == 1 and
                t[0].get("role") == "root" and
                t[0].get("spec") == "loop%d" % N and
                t[0].get("state") == "found" and
                t[0].get("device") == NODE and
                isinstance(t[0].get("waited_ms"), int),
                "unexpected JSON", p)

    with h.case("waitdev --timeout 0 looks once and finds it"):
        p = h.start([h.waitdev, "--cmdline", "", "--root", NODE,
                     "--timeout", "0"])
        h.expect_exit(p, 0, QUICK)

    with h.case("rootwait SPEC prints %s" % NODE):
        p = h.start([h.rootwait, "--cmdline", "", NODE, "--timeout", "10"])
        h.expect_exit(p, 0, QUICK)
        h.check(p.stdout == NODE + "\n", "expected stdout %s" % NODE, p)

    with h.case("rootwait from root=%s on the command line" % NODE):
        p = h.start([h.rootwait, "--cmdline",
                     "quiet root=%s rootwait=10 ro" % NODE])
        h.expect_exit(p, 0, QUICK)
        h.check(p.stdout == NODE + "\n", "expected stdout %s" % NODE, p)

    # the kernel's hexadecimal form: root=MMmm (major 7, minor N)
    hexdevt = "%x%02x" % (maj, mnr)
    with h.case("rootwait from root=%s (hexadecimal dev_t)" % hexdevt):
        p = h.start([h.rootwait, "--cmdline", "root=%s rootdelay=10"
                     % hexdevt])
        h.expect_exit(p, 0, QUICK)
        h.check(p.stdout == NODE + "\n", "expected stdout %s" % NODE, p)

    with h.case("waitdev.root=%d:%d overrides root=" % (maj, mnr)):
        p = h.start([h.waitdev, "--cmdline",
                     "root=/dev/wdt-nonexistent waitdev.root=%d:%d "
                     "waitdev.timeout=10" % (maj, mnr), "--format", "shell"])
        h.expect_exit(p, 0, QUICK)
        h.check("WAITDEV_ROOT='%s'" % NODE in p.stdout.splitlines(),
                "expected WAITDEV_ROOT='%s'" % NODE, p)


hostlib.main("loop-present", body)
