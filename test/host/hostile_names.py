#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
hostile names: devices whose names are what a uevent may carry (up to
2047 bytes, any byte but NUL), fed through --uevent-fd from a socketpair
(no loop device, no interface is created), with --sysfs a tree of this
test's own that has their directories: waitdev believes a net or tty
"add" only for a device sysfs has (issue 13, items 2 and 10). A
DEVNAME is not a file name (the directory is named by DEVPATH), so it
can be 1,500 bytes; an interface's directory name can hold a newline. The timeout diagnosis must
not crash on a 1,500-byte tty name (issue 13, item 1: it overflowed a
900-byte line) and stays bounded and one line per entry; a name with a
newline cannot forge a line of plain output, JSON stays valid and the
shell output evals to the exact name.
"""
import json
import shutil
import socket
import subprocess
import sys
sys.dont_write_bytecode = True
import os  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from waitdevtest import host  # noqa: E402

EVIL = b"wdtq\nnet eth0\x1b[2J'$(id)"


def fake_sysfs(top):
    """A sysfs tree with the tty wdtlong and the interface named EVIL."""
    root = os.path.join(top, b"sys")
    for c in (b"block", b"tty", b"net"):
        os.makedirs(os.path.join(root, b"class", c))
    tty = os.path.join(root, b"devices/virtual/tty/wdtlong")
    net = os.path.join(root, b"devices/virtual/net", EVIL)
    files = {tty: {b"uevent": b"MAJOR=4\nMINOR=99\n"},
             net: {b"uevent": b"INTERFACE=" + EVIL + b"\nIFINDEX=99999\n",
                   b"flags": b"0x1003\n", b"address": b"02:00:00:00:00:99\n",
                   b"operstate": b"up\n", b"carrier": b"1\n"}}
    for d, contents in files.items():
        os.makedirs(d)
        for name, data in contents.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
    return root.decode("utf-8", "surrogateescape")


def run_fed(h, args, datagrams, status, within):
    """waitdev ARGS --uevent-fd N, fed DATAGRAMS once it runs."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    # waitdev sets it too, but only once it runs (see forged_uevent.py)
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    try:
        p = h.start([h.waitdev, "--cmdline", "", "--sysfs", SYSFS[0]] + args +
                    ["--uevent-fd", str(theirs.fileno())],
                    pass_fds=(theirs.fileno(),))
        theirs.close()
        h.expect_running(p, 0.3)
        t = time.monotonic()
        for d in datagrams:
            mine.send(d)
        h.expect_exit(p, status, within, since=t)
        return p
    finally:
        mine.close()
        if theirs.fileno() >= 0:
            theirs.close()


SYSFS = [None]


def body(h):
    top = tempfile.mkdtemp(prefix="waitdev-hostile-names-").encode()
    try:
        SYSFS[0] = fake_sysfs(top)
        cases(h)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def cases(h):
    with h.case("--console ttyNOPE0: a tty named by 1,500 bytes is "
                "listed cut, the diagnosis does not crash"):
        p = run_fed(h, ["--console", "ttyNOPE0", "--timeout", "1"],
                    [host.uevent_datagram(b"tty", b"wdtlong", b"MAJOR=4",
                                          b"MINOR=99",
                                          b"DEVNAME=" + b"x" * 1500)], 1, 3)
        h.check("seen ttys:" in p.stderr and
                "xxxx...(truncated)" in p.stderr,
                "expected the long name in 'seen ttys:', cut", p)
        longest = max(len(line) for line in p.stderr.splitlines())
        h.check(longest <= 700, "a diagnosis line of %d bytes" % longest,
                p)

    evil = EVIL
    nets = [host.uevent_datagram(b"net", evil, b"INTERFACE=" + evil,
                                 b"IFINDEX=99999")]
    with h.case("--net 'wdtq*': a newline in the name cannot forge a "
                "line of plain output"):
        p = run_fed(h, ["--net", "wdtq*", "--timeout", "5"], nets, 0, 3)
        h.check(p.stdout == "net wdtq\\x0anet eth0\\x1b[2J'$(id)\n",
                "expected one line, the name escaped", p)

    with h.case("--net 'wdtq*' --format json: valid JSON, the exact name"):
        p = run_fed(h, ["--net", "wdtq*", "--timeout", "5", "--format",
                        "json"], nets, 0, 3)
        try:
            got = json.loads(p.stdout)["targets"][0]["device"]
        except ValueError as e:
            got = "invalid JSON: %s" % e
        h.check(got == evil.decode(), "device is %r" % got, p)

    with h.case("--net 'wdtq*' --format shell: eval gives the exact name"):
        p = run_fed(h, ["--net", "wdtq*", "--timeout", "5", "--format",
                        "shell"], nets, 0, 3)
        r = subprocess.run(["sh", "-c", p.stdout + 'printf %s "$WAITDEV_NET"'],
                           capture_output=True)
        h.check(r.stdout == evil, "WAITDEV_NET is %r" % r.stdout, p)


host.main("hostile-names", body)
