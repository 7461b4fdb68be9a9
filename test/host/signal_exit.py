#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
signal: SIGTERM and SIGINT end a wait with exit status 128+N (143, 130),
promptly, printing no result; consolewait does not run its CMD then.
"""
import signal
import sys
sys.dont_write_bytecode = True
import time  # noqa: E402
from waitdevtest import host  # noqa: E402

N = 103
NODE = "/dev/loop%d" % N


def default_signals():
    # the child must not inherit an ignored SIGINT (meson, nohup, ...):
    # the test is about what waitdev does with a signal it receives
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def interrupt(h, argv, signo, forbidden_out=None):
    p = h.start(argv, preexec_fn=default_signals)
    # give it time to block the signals and subscribe: before that, the
    # default action would kill it, which is not what is tested here
    # (scaled: a slow start, under valgrind, takes over a second)
    h.expect_running(p, 0.5 * h.scale, "%s has no medium and the timeout "
                     "is 30 s" % NODE)
    host.log("+ kill -%s %d" % (signal.Signals(signo).name, p.pid))
    t = time.monotonic()
    p.p.send_signal(signo)
    h.expect_exit(p, 128 + signo, 2, since=t,
                  why="after %s" % signal.Signals(signo).name)
    if forbidden_out is None:
        h.check(p.stdout == "", "expected no result on stdout", p)
    else:
        h.check(forbidden_out not in p.stdout,
                "expected CMD not to run after a signal", p)


def body(h):
    h.loop(N)
    wd = [h.waitdev, "--cmdline", "", "--root", NODE, "--timeout", "30",
          "--format", "shell"]

    with h.case("waitdev: SIGTERM -> 143"):
        interrupt(h, wd, signal.SIGTERM)

    with h.case("waitdev: SIGINT -> 130"):
        interrupt(h, wd, signal.SIGINT)

    with h.case("waitdev --timeout forever: SIGTERM -> 143"):
        interrupt(h, [h.waitdev, "--cmdline", "", "--root", NODE,
                      "--timeout", "forever"], signal.SIGTERM)

    with h.case("rootwait: SIGTERM -> 143"):
        interrupt(h, [h.rootwait, "--cmdline", "", NODE, "--timeout", "30"],
                  signal.SIGTERM)

    with h.case("rootwait: SIGINT -> 130"):
        interrupt(h, [h.rootwait, "--cmdline", "", NODE, "--timeout", "30"],
                  signal.SIGINT)

    with h.case("consolewait -- CMD: SIGTERM -> 143 and CMD does not run"):
        interrupt(h, [h.consolewait, "--cmdline", "", "--timeout", "30",
                      "ttyWDT8", "--", "echo", "cmd-ran"], signal.SIGTERM,
                  forbidden_out="cmd-ran")


host.main("signal", body)
