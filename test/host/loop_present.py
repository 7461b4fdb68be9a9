#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
loop-present: the root device is there (attached, size > 0, an ext4
filesystem on it: a libblkid build wants one) before the wait starts, so
every front end and every output format answers at once from the sysfs
scan, without any uevent; and a kernel command line with problems
(tolerant) still finds it.
"""
import sys
sys.dont_write_bytecode = True
import os  # noqa: E402
from waitdevtest import host  # noqa: E402

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
        j = host.parse_json(p.stdout)
        t = j.get("targets") or [{}]
        h.check(j.get("status") == "found" and len(t) == 1 and
                t[0].get("role") == "root" and
                t[0].get("spec") == "loop%d" % N and
                t[0].get("state") == "found" and
                t[0].get("device") == NODE and
                isinstance(t[0].get("waited_ms"), int),
                "unexpected JSON", p)

    alts = "/dev/wdnone0|%s" % NODE
    with h.case("--root '%s': the first there once the one before it "
                "cannot come (its 1 s deadline): %s, in every format"
                % (alts, NODE)):
        p = h.start([h.waitdev, "--cmdline", "", "--root", alts,
                     "--timeout", "1", "--format", "shell"])
        h.expect_exit(p, 0, 3.0 * h.scale)
        h.check(p.elapsed >= 0.9, "taken before the better alternative's "
                "deadline: %.3f s" % p.elapsed, p)
        h.check(p.stdout.splitlines() == ["WAITDEV_ROOT='%s'" % NODE,
                                          "WAITDEV_MISSING=''"],
                "expected WAITDEV_ROOT='%s', nothing missing" % NODE, p)
        p = h.start([h.waitdev, "--cmdline", "waitdev.root=" + alts,
                     "--timeout", "0.5", "--format", "json"])
        h.expect_exit(p, 0, 3.0 * h.scale)
        j = host.parse_json(p.stdout)
        t = j.get("targets") or []
        h.check(j.get("status") == "found" and len(t) == 2 and
                t[0].get("alternative") == 1 and
                t[0].get("taken") is False and
                t[0].get("state") == "timeout" and
                t[1].get("alternative") == 2 and t[1].get("taken") is True and
                t[1].get("device") == NODE, "unexpected JSON", p)
        p = h.start([h.waitdev, "--cmdline", "", "--root",
                     "%s|/dev/wdnone0" % NODE, "--timeout", "10"])
        h.expect_exit(p, 0, QUICK)
        h.check(p.stdout == "root %s\n" % NODE, "the best one there at "
                "once: expected stdout 'root %s' without waiting" % NODE, p)
        p = h.start([h.waitdev, "--cmdline", "", "--root", "sda||vda"])
        h.expect_exit(p, 2, QUICK)
        h.check("empty alternative" in p.stderr, "expected the usage "
                "error to say 'empty alternative'", p)

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

    tolerant(h, NODE)


def tolerant(h, node):
    """The kernel command line at boot: each problem logged, naming its
    key, and the rest still found; a malformed spec fails only its own
    target (status 1 at once, the root still printed)."""
    line = ("waitdev.bogus=1 waitdev.timeout=abc rootdelay=0x10 "
            "console=ttyS0n root=%s" % node)
    with h.case("tolerant: %s" % line):
        # console=ttyS0n is ttyS0 to the kernel, and to waitdev: the
        # 8250 driver's first port, there on every x86 machine
        h.check(os.path.exists("/sys/class/tty/ttyS0"), "this case needs "
                "ttyS0 (/sys/class/tty/ttyS0), which this machine lacks")
        p = h.start([h.waitdev, "--cmdline", line, "--timeout", "10"])
        h.expect_exit(p, 0, QUICK)
        h.check(p.stdout == "root %s\nconsole /dev/ttyS0\n" % node,
                "expected stdout 'root %s', 'console /dev/ttyS0'" % node, p)
        for key in ("waitdev.bogus: unknown waitdev key; ignored",
                    "waitdev.timeout=abc: not a number of seconds; ignored",
                    "rootdelay=0x10: the kernel reads 16 s",
                    "console=ttyS0n: the kernel reads ttyS0"):
            h.check("waitdev: kernel command line: %s" % key in p.stderr,
                    "expected 'kernel command line: %s' on stderr" % key, p)

    with h.case("tolerant: --strict makes the same line exit 2"):
        p = h.start([h.waitdev, "--strict", "--cmdline", line,
                     "--timeout", "10"])
        h.expect_exit(p, 2, QUICK)
        h.check(p.stdout == "", "expected nothing on stdout", p)

    line = "root=%s console=tty/0 waitdev.timeout=10" % node
    with h.case("tolerant: %s: root found, console failed, status 1" % line):
        p = h.start([h.waitdev, "--cmdline", line])
        h.expect_exit(p, 1, QUICK)
        h.check(p.stdout == "root %s\n" % node,
                "expected stdout 'root %s'" % node, p)
        h.check("console=tty/0" in p.stderr and
                "console: malformed on the kernel command line, not waited "
                "for" in p.stderr, "expected the console problem named", p)

    with h.case("tolerant: rootwait with root=UUID= (malformed): status 1 "
                "at once"):
        p = h.start([h.rootwait, "--cmdline", "root=UUID= rootwait"])
        h.expect_exit(p, 1, QUICK)
        h.check(p.stdout == "", "expected nothing on stdout", p)
        h.check("root=UUID=" in p.stderr and "root: malformed" in p.stderr,
                "expected the root problem named", p)

    with h.case("off: waitdev=0 and rd.waitdev=0: status 0 at once, nothing "
                "waited for, for all three programs"):
        for argv, out in (
                ([h.waitdev, "--cmdline", "root=/dev/wdt-nonexistent "
                  "waitdev=0", "--format", "shell"], "WAITDEV_MISSING=''\n"),
                ([h.rootwait, "--cmdline", "rd.waitdev=0 rootwait "
                  "root=/dev/wdt-nonexistent"], ""),
                ([h.consolewait, "--cmdline", "waitdev=0 console=ttyWDT9",
                  "--", "echo", "cmd-ran"], "cmd-ran\n")):
            p = h.start(argv)
            h.expect_exit(p, 0, QUICK)
            h.check(p.stdout == out, "expected stdout %r" % out, p)
            h.check("off: waitdev=0 or rd.waitdev=0" in p.stderr,
                    "expected 'off' said on stderr", p)

    with h.case("tolerant: consolewait with console=tty/0 still runs CMD"):
        p = h.start([h.consolewait, "--cmdline", "console=tty/0", "--",
                     "echo", "cmd-ran"])
        h.expect_exit(p, 0, QUICK)
        h.check(p.stdout == "cmd-ran\n", "expected CMD's output", p)


host.main("loop-present", body)
