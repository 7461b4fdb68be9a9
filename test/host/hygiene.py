#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
hygiene: what every program does at start-up, whatever state it is
started in (issue 13: mdevd's fd_sanitize(), signals blocked before any
thread exists, output that cannot block past the deadline).

No loop device and no veth: the programs wait for ttys that never appear
(ttyWDT*) or for the host's ttyS0, which is there (as in
consolewait_tty.py).
"""
import os
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostlib  # noqa: E402

TTY = "ttyS0"
MISSING = "ttyWDT7"

# as in consolewait_tty.py: CMD's own fds 0-2 and any fd >= 3 it inherited
FD_SCRIPT = r'''
a=$(readlink /proc/$$/fd/0); b=$(readlink /proc/$$/fd/1)
c=$(readlink /proc/$$/fd/2); leak=
for n in 3 4 5 6 7 8 9; do
    [ -e /proc/$$/fd/$n ] && leak="$leak $n:$(readlink /proc/$$/fd/$n)"
done
printf 'fd0=%s\nfd1=%s\nfd2=%s\nleak=%s\n' "$a" "$b" "$c" "$leak" > "$1"
'''


def close_stdio():
    """preexec_fn: the program starts with 0, 1 and 2 closed."""
    for fd in (0, 1, 2):
        os.close(fd)


def read_fds(path):
    try:
        with open(path) as f:
            return dict(line.rstrip("\n").split("=", 1) for line in f
                        if "=" in line)
    except FileNotFoundError:
        return None


def own_fds(pid):
    out = {}
    for fd in (0, 1, 2):
        try:
            out[fd] = os.readlink("/proc/%d/fd/%d" % (pid, fd))
        except OSError as e:
            out[fd] = "(%s)" % e.strerror
    return out


class Kmsg:
    """The records written to /dev/kmsg from now on."""

    def __init__(self):
        self.fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(self.fd, 0, os.SEEK_END)

    def read(self):
        out = []
        while True:
            try:
                out.append(os.read(self.fd, 8192).decode("utf-8",
                                                         "replace"))
            except BlockingIOError:
                return "".join(out)
            except OSError:     # EPIPE: overwritten records; go on
                continue

    def close(self):
        os.close(self.fd)


def stdio_cases(h):
    for argv in ([h.waitdev, "--cmdline", "", "--console", MISSING],
                 [h.rootwait, "--cmdline", "", "/dev/disk/by-partlabel/"
                  "wdt-hygiene-none"],
                 [h.consolewait, "--cmdline", "", MISSING]):
        name = os.path.basename(argv[0])
        with h.case("%s started with 0-2 closed: /dev/null on them, not "
                    "its own sockets" % name):
            p = h.start(argv + ["--timeout", "30", "--no-kmsg"],
                        preexec_fn=close_stdio)
            h.wait_subscribed(p)
            fds = own_fds(p.pid)
            h.check(all(v == "/dev/null" for v in fds.values()),
                    "expected /dev/null on 0, 1 and 2, got %r" % fds, p)

    with h.case("consolewait -- CMD started with 0-2 closed: CMD gets the "
                "console on all three"):
        out = os.path.join(h.tmp, "fds-closed")
        p = h.run([h.consolewait, "--cmdline", "", "--timeout", "5",
                   "--no-kmsg", TTY, "--", "sh", "-c", FD_SCRIPT, "sh", out],
                  preexec_fn=close_stdio)
        fds = read_fds(out)
        h.check(fds is not None, "CMD did not run (no %s)" % out, p)
        want = "/dev/" + TTY
        h.check(fds["fd0"] == want and fds["fd1"] == want and
                fds["fd2"] == want, "expected stdin, stdout and stderr on "
                "%s, got %r" % (want, fds), p)
        h.check(fds["leak"] == "", "CMD inherited fds beyond stdio: %s"
                % fds["leak"], p)

    with h.case("consolewait --kmsg started with 0-2 closed: the kmsg "
                "descriptor is not replaced by the console"):
        marker = "/nonexistent/wdt-hygiene-%d" % os.getpid()
        kmsg = Kmsg()
        try:
            # CMD cannot be run: the error goes to stderr (the console)
            # and to /dev/kmsg, if that is still /dev/kmsg
            p = h.run([h.consolewait, "--cmdline", "", "--timeout", "5",
                       "--kmsg", TTY, "--", marker], preexec_fn=close_stdio)
            log = kmsg.read()
        finally:
            kmsg.close()
        h.check(p.rc == 3, "expected exit status 3 (CMD not found)", p)
        h.check(marker in log, "expected the 'cannot run %s' line in "
                "/dev/kmsg; it has: %r" % (marker, log[-500:]), p)


def body(h):
    if not os.path.exists("/sys/class/tty/" + TTY):
        raise hostlib.Fatal("/sys/class/tty/%s does not exist on this host"
                            % TTY)
    for name in (MISSING,):
        if os.path.exists("/sys/class/tty/" + name):
            raise hostlib.Fatal("%s exists?" % name)
    stdio_cases(h)


hostlib.main("hygiene", body)
