#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
consolewait: with "-- CMD", CMD always runs: on the console tty when it
is there (stdin, stdout and stderr reopened on it), on the inherited
stdio when the deadline passes first. Without CMD, the node is printed.

The present tty is the host's ttyS0 (listed in /sys/class/tty here); a
pseudo-terminal cannot stand in for it, because /dev/pts/N never appears
in sysfs, so without ttyS0 the test fails loudly instead.
"""
import os
import sys
sys.dont_write_bytecode = True
from waitdevtest import host  # noqa: E402

TTY = "ttyS0"
MISSING = "ttyWDT9"


def body(h):
    if not os.path.exists("/sys/class/tty/" + TTY):
        raise host.Fatal("/sys/class/tty/%s does not exist on this host:"
                         " the present-tty sub-cases need a real tty "
                         "that sysfs lists" % TTY)
    try:
        fd = os.open("/dev/" + TTY, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        os.close(fd)
    except OSError as e:
        raise host.Fatal("/dev/%s cannot be opened (%s): the present-tty "
                         "sub-cases need it" % (TTY, e))
    if os.path.exists("/sys/class/tty/" + MISSING):
        raise host.Fatal("%s exists?" % MISSING)

    with h.case("%s never appears: CMD runs anyway after ~1 s" % MISSING):
        p = h.run([h.consolewait, "--cmdline", "", "--timeout", "1", MISSING,
                   "--", "sh", "-c", "echo ran; ls -l /proc/self/fd"])
        h.check(p.rc == 0, "expected exit status 0 (that of sh)", p)
        h.check(p.stdout.startswith("ran\n"), "expected CMD's 'ran' on the "
                "inherited stdout", p)
        h.check(p.elapsed >= 0.9, "expected CMD to start after the 1 s "
                "deadline, took %.3f s" % p.elapsed, p)
        h.within(p.elapsed, 3.0 * h.scale, "CMD after the 1 s deadline", p)

    with h.case("%s never appears: CMD keeps the inherited stdio, no "
                "leaked fds" % MISSING):
        out = os.path.join(h.tmp, "fds-missing")
        p = h.run([h.consolewait, "--cmdline", "", "--timeout", "0.3",
                   MISSING, "--", "sh", "-c", host.FD_SCRIPT, "sh", out])
        h.check(p.rc == 0, "expected exit status 0", p)
        fds = host.read_fds(out)
        h.check(fds is not None, "CMD did not run (no %s)" % out, p)
        h.check(fds["fd0"] == "/dev/null" and
                not fds["fd1"].startswith("/dev/tty"),
                "expected the inherited stdio, got %r" % fds, p)
        h.check(host.fd_leaks(fds) == "", "CMD inherited fds beyond stdio: %s"
                % host.fd_leaks(fds), p)

    with h.case("CMD's exit status is consolewait's"):
        p = h.run([h.consolewait, "--cmdline", "", "--timeout", "0",
                   MISSING, "--", "sh", "-c", "exit 7"])
        h.check(p.rc == 7, "expected exit status 7 (exec'd CMD)", p)

    with h.case("/dev/%s is there: CMD runs on it at once" % TTY):
        out = os.path.join(h.tmp, "fds-tty")
        p = h.run([h.consolewait, "--cmdline", "", "--timeout", "5",
                   "/dev/" + TTY, "--", "sh", "-c", host.FD_SCRIPT, "sh", out])
        h.check(p.rc == 0, "expected exit status 0", p)
        h.within(p.elapsed, 1.0 * h.scale, "CMD at once", p)
        fds = h.expect_stdio_on(out, "/dev/" + TTY, p)
        h.check(host.fd_leaks(fds) == "", "CMD inherited fds beyond stdio: %s"
                % host.fd_leaks(fds), p)

    with h.case("consolewait %s (no CMD) prints /dev/%s" % (TTY, TTY)):
        p = h.run([h.consolewait, "--cmdline", "", "--timeout", "5", TTY])
        h.check(p.rc == 0 and p.stdout == "/dev/%s\n" % TTY,
                "expected exit 0 and stdout /dev/%s" % TTY, p)

    with h.case("consolewait takes the last tty console= of the command "
                "line"):
        p = h.run([h.consolewait, "--cmdline",
                   "console=%s console=%s,115200n8" % (MISSING, TTY),
                   "--timeout", "5"])
        h.check(p.rc == 0 and p.stdout == "/dev/%s\n" % TTY,
                "expected exit 0 and stdout /dev/%s" % TTY, p)

    with h.case("consolewait %s (no CMD) times out with status 1"
                % MISSING):
        p = h.run([h.consolewait, "--cmdline", "", "--timeout", "0.5",
                   MISSING])
        h.check(p.rc == 1 and p.stdout == "",
                "expected exit 1 and nothing on stdout", p)
        h.check("seen ttys:" in p.stderr and TTY in p.stderr,
                "expected stderr to list the ttys seen, %s among them" % TTY,
                p)

    # rootwait and waitdev take options anywhere (permuting getopt, and
    # the brief's own "rootwait --cmdline '' /dev/loopN --timeout 10");
    # CMD is already cut off at "--", so nothing needs getopt's "+" here
    with h.case("consolewait SPEC --timeout S: an option after SPEC, as "
                "rootwait SPEC --timeout S accepts"):
        p = h.run([h.consolewait, "--cmdline", "", TTY, "--timeout", "5"])
        h.check(p.rc == 0 and p.stdout == "/dev/%s\n" % TTY,
                "expected exit 0 and stdout /dev/%s, as for rootwait "
                "/dev/loopN --timeout S" % TTY, p)


host.main("consolewait", body)
