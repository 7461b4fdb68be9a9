#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
loop-late: the root device appears (gets a medium) while we wait.

A detached loop device exists but has size 0: it must NOT satisfy the
wait. Attaching a file makes the kernel send a "change" uevent, and the
wait must end on it, for /dev/NAME (waitdev), a bare SPEC (rootwait) and
the MAJ:MIN form. The files carry an ext4 filesystem: a waitdev built
with libblkid takes a root as ready only when it recognises one.
"""
import sys
sys.dont_write_bytecode = True
from waitdevtest import host  # noqa: E402


def late(h, n, argv, expect_line):
    """Starts @argv with loop@n detached, attaches, expects @expect_line."""
    img = h.image("img%d" % n, "ext4")
    p = h.start(argv)
    h.expect_running(p, 0.5, "loop%d has size 0 (no medium), which is not "
                     "ready" % n)
    t = h.attach(n, img)
    took = h.expect_exit(p, 0, 3, since=t, why="after losetup")
    lines = p.stdout.splitlines()
    h.check(expect_line in lines, "expected the line %r on stdout"
            % expect_line, p)
    host.log("  found %.3f s after losetup" % took)


def body(h):
    for n in (100, 101, 107):
        h.loop(n)

    with h.case("waitdev --root /dev/loop100: waits for the medium"):
        late(h, 100, [h.waitdev, "--cmdline", "", "--root", "/dev/loop100",
                      "--timeout", "10", "--format", "shell"],
             "WAITDEV_ROOT='/dev/loop100'")

    with h.case("rootwait /dev/loop101: waits for the medium"):
        late(h, 101, [h.rootwait, "--cmdline", "", "/dev/loop101",
                      "--timeout", "10"], "/dev/loop101")

    maj, mnr = h.devt("loop107")
    devt = "%d:%d" % (maj, mnr)
    with h.case("waitdev --root %s (loop107 by MAJ:MIN)" % devt):
        late(h, 107, [h.waitdev, "--cmdline", "", "--root", devt,
                      "--timeout", "10", "--format", "shell"],
             "WAITDEV_ROOT='/dev/loop107'")

    h.detach(107)
    with h.case("rootwait from the kernel command line root=%s rootwait"
                % devt):
        late(h, 107, [h.rootwait, "--cmdline", "root=%s rootwait" % devt],
             "/dev/loop107")

    h.loop_remove(107)
    with h.case("waitdev --root /dev/loop107: the device is created "
                "(LOOP_CTL_ADD, size 0) and then attached while waiting"):
        p = h.start([h.waitdev, "--cmdline", "", "--root", "/dev/loop107",
                     "--timeout", "10", "--format", "shell"])
        h.expect_running(p, 0.5, "loop107 does not exist")
        h.loop(107)     # the "add" uevent: size 0, not ready
        h.expect_running(p, 0.5, "loop107 was added without a medium")
        t = h.attach(107, h.image("img107", "ext4"))
        h.expect_exit(p, 0, 3, since=t, why="after losetup")
        h.check("WAITDEV_ROOT='/dev/loop107'" in p.stdout.splitlines(),
                "expected WAITDEV_ROOT='/dev/loop107'", p)


host.main("loop-late", body)
