#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
A stale /run/udev/control (issue 13, item 7): udevd killed or exited
leaves its control socket behind. --source auto must not take that for a
running udevd: it would read udev's events, get none, and report a tty
that exists "missing" after the whole deadline.

In a mount namespace of its own (unshare -m, mounts private) a tmpfs on
/run holds a /run/udev/control nobody listens on; waitdev --source auto
must take the kernel source and find tty1 at once. The control: the same
socket with a listener (which waitdev inherits) is taken for udevd
("source: udev" with -vv). Touches no device: no loop, no veth, no uevent.
"""
import shutil
import sys
sys.dont_write_bytecode = True
import os  # noqa: E402
from waitdevtest import host  # noqa: E402

# run inside the namespace: makes the socket, stale or listening, then
# execs waitdev (the listening socket inherited, so it stays alive)
HELPER = r"""
import os, socket, sys
os.makedirs("/run/udev", exist_ok=True)
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind("/run/udev/control")
if sys.argv[1] == "listening":
    s.listen(8)
    os.set_inheritable(s.fileno(), True)
else:
    s.close()
os.execv(sys.argv[2], sys.argv[2:])
"""


def body(h):
    unshare = shutil.which("unshare")
    if not unshare:
        raise host.Fatal("unshare (util-linux) is needed")
    if h.features.get("udev source") != "yes":
        raise host.Fatal("this waitdev has no udev source: the test "
                         "is for builds with libudev")
    if not os.path.exists("/sys/class/tty/tty1"):
        raise host.Fatal("no /sys/class/tty/tty1 on this host")

    def run(kind, timeout):
        return h.run([unshare, "-m", "--propagation", "private", "sh",
                      "-c", 'mount -t tmpfs wdt-run /run && exec "$@"',
                      "sh", sys.executable, "-c", HELPER, kind, h.waitdev,
                      "-vv", "--cmdline", "", "--source", "auto",
                      "--console", "tty1", "--timeout", str(timeout)],
                     timeout=10)

    with h.case("a stale /run/udev/control: the kernel source finds tty1"):
        p = run("stale", 2)
        h.check("source: kernel" in p.stderr,
                "expected 'source: kernel' in the -vv log", p)
        h.check(p.rc == 0 and p.stdout.strip() == "console /dev/tty1",
                "expected tty1 found (exit 0)", p)

    with h.case("control: a listening /run/udev/control means udev"):
        p = run("listening", 0.3)
        h.check("source: udev" in p.stderr,
                "expected 'source: udev' in the -vv log", p)


host.main("udev-stale", body)
