#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
/sys not mounted (issue 13, item 12): in a mount namespace of its own
(unshare -m, mounts private), an empty tmpfs hides /sys, as the empty
mount point of an initramfs that forgot "mount -t sysfs" would. waitdev
must fail at once with exit status 3 and one error line naming sysfs,
not report the net target found or a root "not ready" after the
deadline. Then, as a control, the same command with the real /sys finds
lo. Touches no device: no loop, no veth, no uevent.

Out of descriptors (issue 13, item 11): with ulimit -n 6 to 12, waitdev
either finds tty1 or fails with exit status 3 and one line ("Too many
open files"); before, a limit that ran out at a device's uevent file took
the device for gone: exit 1, "seen: none".
"""
import shutil
import sys
sys.dont_write_bytecode = True
import os
import re  # noqa: E402
from waitdevtest import host  # noqa: E402


def body(h):
    unshare = shutil.which("unshare")
    if not unshare:
        raise host.Fatal("unshare (util-linux) is needed")
    cmd = [h.waitdev, "--cmdline", "", "--source", "kernel", "--net", "lo",
           "--root", "/dev/nonexistent-wdt", "--timeout", "2"]

    with h.case("an empty /sys: exit 3, one line naming sysfs"):
        p = h.run([unshare, "-m", "--propagation", "private", "sh", "-c",
                   'mount -t tmpfs wdt-empty /sys && exec "$@"', "sh"] +
                  cmd, timeout=10)
        h.check(p.rc == 3, "expected exit status 3 (system error)", p)
        lines = p.stderr.strip().splitlines()
        h.check(len(lines) == 1 and "sysfs" in lines[0],
                "expected one error line naming sysfs", p)
        h.check(p.stdout == "", "expected nothing on standard output", p)
        h.within(p.elapsed, 1.0, "failing without waiting", p)

    with h.case("out of descriptors: found, or exit 3 with one line"):
        errors = 0
        if not os.path.exists("/sys/class/tty/tty1"):
            raise host.Fatal("no /sys/class/tty/tty1 on this host")
        for n in range(6, 13):
            p = h.run(["sh", "-c", 'ulimit -n %d && exec "$@"' % n, "sh",
                       h.waitdev, "--cmdline", "", "--source", "kernel",
                       "--console", "tty1", "--timeout", "1"], timeout=10)
            lines = p.stderr.strip().splitlines()
            if p.rc == 3:
                errors += 1
                # EMFILE as glibc and musl (the static build) say it
                h.check(len(lines) == 1 and
                        re.search("Too many open files|No file descriptors "
                                  "available", lines[0]),
                        "ulimit -n %d: expected one error line "
                        "naming the cause" % n, p)
            else:
                h.check(p.rc == 0 and p.stdout.strip() ==
                        "console /dev/tty1", "ulimit -n %d: neither found "
                        "nor a system error" % n, p)
        h.check(errors > 0, "no limit from 6 to 12 made it fail: the test "
                "no longer reaches the descriptor shortage")

    with h.case("control: the real /sys finds lo"):
        p = h.run([h.waitdev, "--cmdline", "", "--source", "kernel",
                   "--net", "lo", "--timeout", "2"], timeout=10)
        h.check(p.rc == 0 and p.stdout.strip() == "net lo",
                "expected lo found", p)


host.main("sysfs-missing", body)
