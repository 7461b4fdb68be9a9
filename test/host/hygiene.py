#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
hygiene: what every program does at start-up, whatever state it is
started in (issue 13: mdevd's fd_sanitize(), signals blocked before any
child exists, output that cannot block past the deadline).

No loop device and no veth: the programs wait for ttys that never appear
(ttyWDT*) or for the host's ttyS0, which is there (as in
consolewait_tty.py).
"""
import fcntl
import os
import shutil
import signal
import sys
import time
sys.dont_write_bytecode = True
from waitdevtest import host  # noqa: E402

TTY = "ttyS0"
MISSING = "ttyWDT7"


def interrupted(h, p, signo):
    """@p, waiting, gets @signo: it ends at once with 128 + @signo and
    says "interrupted", and its CMD (echo cmd-ran) never runs."""
    h.wait_subscribed(p)
    t = time.monotonic()
    p.p.send_signal(signo)
    name = signal.Signals(signo).name
    h.expect_exit(p, 128 + signo, 2, since=t, why="after " + name)
    h.check("interrupted by signal %d" % signo in p.stderr,
            "expected 'interrupted by signal %d' on stderr" % signo, p)
    h.check("cmd-ran" not in p.stdout, "CMD ran after " + name, p)


def close_stdio():
    """preexec_fn: the program starts with 0, 1 and 2 closed."""
    for fd in (0, 1, 2):
        os.close(fd)


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


def default_signals():
    """preexec_fn: SIGINT, SIGTERM and SIGHUP as a boot would give them,
    not as meson or nohup may have left them."""
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


def full_pipe():
    """A pipe (r, w) whose buffer is full: a write to w blocks."""
    r, w = os.pipe()
    fl = fcntl.fcntl(w, fcntl.F_GETFL)
    fcntl.fcntl(w, fcntl.F_SETFL, fl | os.O_NONBLOCK)
    try:
        while True:
            os.write(w, b"x" * 4096)
    except BlockingIOError:
        pass
    try:
        while True:
            os.write(w, b"x")
    except BlockingIOError:
        pass
    fcntl.fcntl(w, fcntl.F_SETFL, fl)
    return r, w


def drain(fd):
    """Everything in the pipe @fd until its writers are gone."""
    out = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return out
        out += chunk


def wait_for(cond, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def signal_cases(h):
    moddir = os.path.join(h.tmp, "modules")
    os.makedirs(moddir, exist_ok=True)
    opts = ["--cmdline", "", "--timeout", "30", "--no-kmsg", "--modprobe",
            "--moddir", moddir]
    for argv in ([h.waitdev] + opts + ["--console", MISSING],
                 [h.rootwait] + opts + ["/dev/disk/by-partlabel/"
                                        "wdt-hygiene-none"],
                 [h.consolewait] + opts + [MISSING, "--", "echo",
                                           "cmd-ran"]):
        name = os.path.basename(argv[0])
        with h.case("%s --modprobe: SIGTERM -> 143 and 'interrupted'"
                    % name):
            # an empty module directory: libkmod finds no index, but the
            # loader starts all the same (modload-stall: with a module
            # load in flight)
            interrupted(h, h.start(argv, preexec_fn=default_signals),
                        signal.SIGTERM)

    # The outcome is decided, printed and stands: a SIGTERM after it must
    # not turn it into 143. To send it at that moment without a race,
    # stdout is a full pipe: the program has found the tty (its notice is
    # on stderr) and waits to write the result; the signal comes then,
    # and only then is the pipe read. (rootwait shares the code; a block
    # device present on every host is not at hand without a loop device.)
    for argv, want in (
            ([h.waitdev, "--cmdline", "", "--console", TTY],
             "console /dev/%s\n" % TTY),
            ([h.consolewait, "--cmdline", "", TTY], "/dev/%s\n" % TTY)):
        name = os.path.basename(argv[0])
        with h.case("%s: SIGTERM after the result was decided -> exit 0 "
                    "and the result" % name):
            r, w = full_pipe()
            try:
                p = h.start(argv + ["--timeout", "30", "--no-kmsg"],
                            stdout=w, preexec_fn=default_signals)
            finally:
                os.close(w)
            try:
                found = wait_for(lambda: "found /dev/%s" % TTY in p.stderr,
                                 10 * h.scale)
                h.check(found, "expected the 'found' notice", p)
                time.sleep(0.2)
                host.log("+ kill -TERM %d, then read its stdout" % p.pid)
                p.p.send_signal(signal.SIGTERM)
                out = drain(r).lstrip(b"x").decode()
            finally:
                os.close(r)
            rc = p.wait(10)
            h.check(rc == 0, "expected exit status 0 (found, printed), got "
                    "%s" % (rc if rc is None or rc >= 0 else
                            "death by signal %d" % -rc), p)
            h.check(out == want, "expected %r on stdout, got %r"
                    % (want, out), p)


def cmd_after_found_case(h):
    """consolewait -- CMD: the console was found, so CMD runs, even when a
    SIGTERM comes between that and the exec. strace sends it at the one
    open() of the tty, in reopen_stdio(), deterministically."""
    with h.case("consolewait -- CMD: SIGTERM after the console was found "
                "-> CMD runs all the same"):
        if host.WRAPPER:
            # strace would inject into the wrapper's (valgrind's) syscall
            host.log("  not under %s: strace injects into the wrapper"
                     % " ".join(host.WRAPPER))
            return
        strace = shutil.which("strace")
        if not strace:
            raise host.Fatal("strace is not installed "
                             "(tools/install-deps)")
        out = os.path.join(h.tmp, "cmd-after-found")
        p = h.run([strace, "-qq", "-o", "/dev/null", "-P", "/dev/" + TTY,
                   "-e", "trace=openat", "-e", "inject=openat:signal=TERM",
                   h.consolewait, "--cmdline", "", "--timeout", "5",
                   "--no-kmsg", TTY, "--", "sh", "-c",
                   "echo cmd-ran > \"$1\"", "sh", out],
                  preexec_fn=default_signals)
        ran = os.path.exists(out)
        h.check(ran and p.rc == 0, "expected CMD to run (exit 0, %s "
                "written), got %s, %s" % (out, p.rc, "ran" if ran else
                                          "CMD did not run"), p)


def output_cases(h):
    """Output cannot hold a program past its deadline (a stalled serial
    console is a full pipe to it), a reader that went away is an error
    like any other (not a death by SIGPIPE), and SIGHUP ends a wait like
    SIGTERM does."""
    wd = [h.waitdev, "--cmdline", "", "--no-kmsg"]

    with h.case("stderr a full pipe nobody reads: exit 1 at the 0.5 s "
                "deadline all the same"):
        r, w = full_pipe()
        try:
            p = h.start(wd + ["--console", MISSING, "--timeout", "0.5"],
                        stderr=w, preexec_fn=default_signals)
        finally:
            os.close(w)
        try:
            h.expect_exit(p, 1, 1.5, since=p.t0, why="(stderr full)")
        finally:
            os.close(r)

    with h.case("stdout a full pipe nobody reads: no result, exit 3 soon "
                "after the 0.5 s deadline"):
        r, w = full_pipe()
        try:
            p = h.start(wd + ["--console", MISSING, "--timeout", "0.5",
                              "--format", "shell"],
                        stdout=w, preexec_fn=default_signals)
        finally:
            os.close(w)
        try:
            h.expect_exit(p, 3, 1.5, since=p.t0, why="(stdout full)")
            h.check("standard output" in p.stderr, "expected an error "
                    "naming standard output", p)
        finally:
            os.close(r)

    with h.case("stderr a pipe without reader: no SIGPIPE, exit 1"):
        r, w = os.pipe()
        os.close(r)
        try:
            p = h.run(wd + ["--console", MISSING, "--timeout", "0.3"],
                      stderr=w, preexec_fn=default_signals)
        finally:
            os.close(w)
        h.check(p.rc == 1, "expected exit status 1, got %s" % p.rc, p)

    with h.case("stdout a pipe without reader: no SIGPIPE, exit 3 and why"):
        r, w = os.pipe()
        os.close(r)
        try:
            p = h.run(wd + ["--console", TTY, "--timeout", "5"], stdout=w,
                      preexec_fn=default_signals)
        finally:
            os.close(w)
        h.check(p.rc == 3, "expected exit status 3, got %s" % p.rc, p)
        h.check("standard output" in p.stderr, "expected an error naming "
                "standard output", p)

    for argv in (wd + ["--console", MISSING, "--timeout", "30"],
                 [h.consolewait, "--cmdline", "", "--no-kmsg", "--timeout",
                  "30", MISSING, "--", "echo", "cmd-ran"]):
        name = os.path.basename(argv[0])
        with h.case("%s: SIGHUP during the wait -> 129 and 'interrupted'"
                    % name):
            interrupted(h, h.start(argv, preexec_fn=default_signals),
                        signal.SIGHUP)


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
            # under valgrind its --log-file takes the first closed one
            # before the program runs (WAITDEV_WRAPPER_FDS): not ours
            wrapper = [fd for fd, v in fds.items() if host.WRAPPER_FDS
                       and v.startswith(host.WRAPPER_FDS)]
            for fd in wrapper:
                host.log("  fd %d on %s: the wrapper's own" % (fd, fds[fd]))
            h.check(all(v == "/dev/null" for fd, v in fds.items()
                        if fd not in wrapper),
                    "expected /dev/null on 0, 1 and 2, got %r" % fds, p)

    with h.case("consolewait -- CMD started with 0-2 closed: CMD gets the "
                "console on all three"):
        out = os.path.join(h.tmp, "fds-closed")
        p = h.run([h.consolewait, "--cmdline", "", "--timeout", "5",
                   "--no-kmsg", TTY, "--", "sh", "-c", host.FD_SCRIPT, "sh",
                   out], preexec_fn=close_stdio)
        fds = h.expect_stdio_on(out, "/dev/" + TTY, p)
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
        raise host.Fatal("/sys/class/tty/%s does not exist on this host"
                         % TTY)
    for name in (MISSING,):
        if os.path.exists("/sys/class/tty/" + name):
            raise host.Fatal("%s exists?" % name)
    stdio_cases(h)
    signal_cases(h)
    cmd_after_found_case(h)
    output_cases(h)


host.main("hygiene", body)
