#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
loop-timeout: the root device never gets a medium. The wait ends with
status 1 at the deadline (not before, not much after), and stderr says
what is missing and lists what was seen: loop102 itself, "no medium".
"""
import re
import sys
sys.dont_write_bytecode = True
import os  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostlib  # noqa: E402

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
        h.check(0.9 <= p.elapsed <= 3.0, "expected it to take 0.9-3 s, "
                "took %.3f s" % p.elapsed, p)
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
        hostlib.log("  took %.3f s" % p.elapsed)

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
        j = hostlib.parse_json(p.stdout)
        t = j.get("targets") or [{}]
        h.check(j.get("status") == "timeout" and len(t) == 1 and
                t[0].get("state") == "timeout" and
                t[0].get("device", "x") is None and
                t[0].get("spec") == NODE and
                isinstance(t[0].get("waited_ms"), int) and
                400 <= t[0]["waited_ms"] <= 3000,
                "unexpected JSON", p)

    with h.case("rootwait --timeout 1: status 1, nothing on stdout"):
        p = h.start([h.rootwait, "--cmdline", "", NODE, "--timeout", "1"])
        rc = p.wait(10)
        h.check(rc == 1, "expected exit status 1", p)
        h.check(0.9 <= p.elapsed <= 3.0, "expected it to take 0.9-3 s, "
                "took %.3f s" % p.elapsed, p)
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
        h.check(p.elapsed < 0.5, "expected an immediate answer, took %.3f s"
                % p.elapsed, p)


hostlib.main("loop-timeout", body)
