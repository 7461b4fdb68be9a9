#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
loop-detach-reattach: a device that was found and then loses its medium
is no longer found. waitdev waits for /dev/loop106 and interface wdt5a
together, so it keeps running after the root is found:

  attach loop106      -> root found, still waiting for wdt5a
  detach loop106      -> root lost ("change" uevent, size 0)
  create wdt5a        -> must NOT exit: the root is gone again
  attach loop106      -> exit 0 with both
"""
import sys
sys.dont_write_bytecode = True
import time  # noqa: E402
from waitdevtest import host  # noqa: E402

N = 106
NODE = "/dev/loop%d" % N


def body(h):
    h.loop(N)
    h.require_veth()
    img = h.image("img", "ext4")     # libblkid: a root needs a filesystem

    with h.case("a root that loses its medium is waited for again"):
        p = h.start([h.waitdev, "--cmdline", "", "--root", NODE,
                     "--net", "wdt5a", "--timeout", "15", "--format",
                     "shell"])
        h.expect_running(p, 0.5, "neither loop%d nor wdt5a is there" % N)
        h.attach(N, img)
        h.expect_running(p, 0.5, "wdt5a is not there yet")
        h.detach(N)
        time.sleep(0.3)
        h.veth("wdt5a", "wdt5b")
        h.expect_running(p, 0.7, "wdt5a appeared but loop%d lost its "
                         "medium, so the root is missing again" % N)
        t = h.attach(N, img)
        h.expect_exit(p, 0, 3, since=t, why="after the second losetup")
        lines = p.stdout.splitlines()
        h.check("WAITDEV_ROOT='%s'" % NODE in lines and
                "WAITDEV_NET='wdt5a'" in lines,
                "expected WAITDEV_ROOT='%s' and WAITDEV_NET='wdt5a'" % NODE,
                p)
        h.check("waiting again" in p.stderr,
                "expected stderr to say the root is waited for again", p)

    h.detach(N)
    with h.case("rootwait on a just-detached device waits for the re-attach"):
        # rootwait ends at the first attach; then a fresh one must wait
        # again for the detached device, and end on the re-attach
        p = h.start([h.rootwait, "--cmdline", "", NODE, "--timeout", "10"])
        h.expect_running(p, 0.5)
        t = h.attach(N, img)
        h.expect_exit(p, 0, 3, since=t)
        h.detach(N)
        p = h.start([h.rootwait, "--cmdline", "", NODE, "--timeout", "10"])
        h.expect_running(p, 0.5, "loop%d was detached again" % N)
        t = h.attach(N, img)
        h.expect_exit(p, 0, 3, since=t)
        h.check(p.stdout == NODE + "\n", "expected stdout %s" % NODE, p)


host.main("loop-detach-reattach", body)
