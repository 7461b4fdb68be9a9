#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
loop-timeout: the root device never gets a medium. The wait ends with
status 1 at the deadline (not before, not much after), and stderr says
what is missing and lists what was seen: loop102 itself, "no medium".

Then loop102 gets a medium that carries no filesystem (zeros). A waitdev
built with libblkid must not take that as a root either (probed, nothing
recognised): status 1 at the deadline, whether the zeros were there from
the start or arrive while it waits. Without libblkid (probe: none) size
> 0 is all it can check, and that build must take it at once.
"""
import os
import re
import sys
sys.dont_write_bytecode = True
from waitdevtest import host  # noqa: E402

N = 102
NODE = "/dev/loop%d" % N


def body(h):
    h.loop(N)
    maj, mnr = h.devt("loop%d" % N)

    with h.case("waitdev --timeout 1 on a loop device without medium"):
        p = h.start([h.waitdev, "--cmdline", "", "--root", NODE,
                     "--timeout", "1"])
        rc = p.wait(10)
        h.check(rc == 1, "expected exit status 1", p)
        h.check(p.elapsed >= 0.9, "expected it to take at least 0.9 s, "
                "took %.3f s" % p.elapsed, p)
        h.within(p.elapsed, 3.0 * h.scale, "the 1 s timeout", p)
        err = p.stderr
        h.check(any("%s: not ready after" % NODE in line and
                    "loop%d has no medium" % N in line
                    for line in err.splitlines()),
                "expected a stderr line saying %s is not ready, having "
                "no medium" % NODE, p)
        h.check(re.search(r"^waitdev:   seen block loop%d \(%d:%d, no medium"
                          r"\)$" % (N, maj, mnr), err, re.M),
                "expected 'seen block loop%d (%d:%d, no medium)' on stderr"
                % (N, maj, mnr), p)
        h.check(p.stdout == "", "expected nothing on stdout (plain format, "
                "nothing found)", p)
        host.log("  took %.3f s" % p.elapsed)

    lacks = "this kernel does not say when USB has settled"
    for how, args in (("--settle", ["--cmdline", "", "--settle"]),
                      ("waitdev.settle=1", ["--cmdline", "waitdev.settle=1"])):
        with h.case("%s on a kernel without /sys/bus/usb/settle: said "
                    "once, and the 1 s deadline holds" % how):
            h.check(not os.path.exists("/sys/bus/usb/settle"),
                    "this host's kernel has /sys/bus/usb/settle: the case "
                    "needs one without it")
            p = h.start([h.waitdev] + args + ["--root", "/dev/wdnone0",
                                              "--timeout", "1"])
            rc = p.wait(10)
            h.check(rc == 1, "expected exit status 1", p)
            h.check(p.elapsed >= 0.9, "expected it to wait out the "
                    "deadline (0.9 s at least), took %.3f s" % p.elapsed, p)
            h.check(p.stderr.count(lacks) == 1,
                    "expected '%s' once on stderr" % lacks, p)
            h.check("missing after" in p.stderr and
                    "USB settled" not in p.stderr,
                    "expected 'missing after', no give-up", p)

    with h.case("waitdev --format shell reports WAITDEV_MISSING"):
        p = h.start([h.waitdev, "--cmdline", "", "--root", NODE,
                     "--timeout", "0.5", "--format", "shell"])
        rc = p.wait(10)
        h.check(rc == 1, "expected exit status 1", p)
        h.check(p.stdout.splitlines() == ["WAITDEV_MISSING='root=%s'"
                                          % NODE],
                "expected exactly WAITDEV_MISSING='root=%s'" % NODE, p)

    with h.case("waitdev --format json reports a timeout"):
        p = h.start([h.waitdev, "--cmdline", "", "--root", NODE,
                     "--timeout", "0.5", "--format", "json"])
        rc = p.wait(10)
        h.check(rc == 1, "expected exit status 1", p)
        j = host.parse_json(p.stdout)
        t = j.get("targets") or [{}]
        h.check(j.get("status") == "timeout" and len(t) == 1 and
                t[0].get("state") == "timeout" and
                # detached: there, but not ready
                t[0].get("device") == NODE and
                t[0].get("why") == "not_ready" and
                t[0].get("spec") == NODE and
                isinstance(t[0].get("waited_ms"), int) and
                400 <= t[0]["waited_ms"] <= 3000,
                "unexpected JSON", p)

    with h.case("rootwait --timeout 1: status 1, nothing on stdout"):
        p = h.start([h.rootwait, "--cmdline", "", NODE, "--timeout", "1"])
        rc = p.wait(10)
        h.check(rc == 1, "expected exit status 1", p)
        h.check(p.elapsed >= 0.9, "expected it to take at least 0.9 s, "
                "took %.3f s" % p.elapsed, p)
        h.within(p.elapsed, 3.0 * h.scale, "the 1 s timeout", p)
        h.check(p.stdout == "", "expected nothing on stdout", p)
        h.check(any("not ready" in line and NODE in line
                    for line in p.stderr.splitlines()) and
                re.search(r"seen block loop%d \(.*no medium" % N, p.stderr),
                "expected the missing/seen diagnosis on stderr", p)

    with h.case("waitdev --timeout 0 looks once and gives up at once"):
        p = h.start([h.waitdev, "--cmdline", "", "--root", NODE,
                     "--timeout", "0"])
        rc = p.wait(10)
        h.check(rc == 1, "expected exit status 1", p)
        h.within(p.elapsed, 0.5 * h.scale, "an immediate answer", p)

    zeros = h.image("zeros", fs=None, size=8 << 20)
    if h.blkid:
        no_fs_cases(h, zeros, maj, mnr)
    else:
        with h.case("probe: none: a medium without a filesystem is ready "
                    "(size > 0 is all this build checks)"):
            h.attach(N, zeros)
            p = h.start([h.waitdev, "--cmdline", "", "--root", NODE,
                         "--timeout", "10", "--format", "shell"])
            h.expect_exit(p, 0, 1.0)
            h.check("WAITDEV_ROOT='%s'" % NODE in p.stdout.splitlines(),
                    "expected WAITDEV_ROOT='%s'" % NODE, p)


def no_fs_cases(h, zeros, maj, mnr):
    with h.case("libblkid: a medium of zeros arriving during the wait is "
                "not a root"):
        p = h.start([h.waitdev, "--cmdline", "", "--root", NODE,
                     "--timeout", "2", "--format", "shell"])
        h.expect_running(p, 0.5, "loop%d has no medium" % N)
        h.attach(N, zeros)
        h.expect_running(p, 0.5, "loop%d got 8 MiB of zeros: no "
                         "filesystem, so not ready" % N)
        rc = p.wait(10)
        h.check(rc == 1, "expected exit status 1 (deadline) -- a medium "
                "without a filesystem was taken as the root", p)
        h.check(p.elapsed >= 1.9, "it ended early, after %.3f s"
                % p.elapsed, p)
        h.check(p.stdout.splitlines() == ["WAITDEV_MISSING='root=%s'"
                                          % NODE],
                "expected exactly WAITDEV_MISSING='root=%s'" % NODE, p)

    with h.case("libblkid: zeros there from the start: not ready, and "
                "the diagnosis says it has no filesystem"):
        h.check(h.loop_size(N) > 0, "loop%d should still be attached" % N)
        p = h.start([h.waitdev, "--cmdline", "", "--root", NODE,
                     "--timeout", "1"])
        rc = p.wait(10)
        h.check(rc == 1, "expected exit status 1 -- a medium without a "
                "filesystem was taken as the root", p)
        h.check(p.elapsed >= 0.9, "expected it to take at least 0.9 s, "
                "took %.3f s" % p.elapsed, p)
        h.within(p.elapsed, 3.0 * h.scale, "the 1 s timeout", p)
        h.check(p.stdout == "", "expected nothing on stdout", p)
        err = p.stderr
        why = [line for line in err.splitlines()
               if "%s: not ready after" % NODE in line]
        h.check(len(why) == 1, "expected one stderr line saying %s is "
                "not ready (it matches, it is not usable)" % NODE, p)
        h.check(re.search(r"^waitdev:   seen block loop%d \(%d:%d, 8\.0 MiB"
                          % (N, maj, mnr), err, re.M),
                "expected 'seen block loop%d (%d:%d, 8.0 MiB' on stderr"
                % (N, maj, mnr), p)
        # the reason: a medium, but no filesystem recognised on it --
        # not "no medium (size 0)", which the 8.0 MiB above contradicts
        h.check(re.search(r"loop%d has no filesystem" % N, why[0]) and
                not re.search(r"no medium|size 0", why[0]),
                "expected the reason 'loop%d has no filesystem ...', not "
                "'no medium'" % N, p)


host.main("loop-timeout", body)
