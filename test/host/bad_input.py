#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
bad input: every usage error and bad spec ends with exit status 2, at
once (a problem on the kernel command line only with --strict: without it
the problem is logged and ignored, see loop-present) (before any waiting: --timeout 30 is given where a wait could
start), nothing on stdout, and exactly one line on stderr that starts
with the program's name and names the problem. consolewait given
"-- CMD" does not run CMD then.

UUID=, LABEL=, PARTUUID=, /dev/disk/by-uuid/X and /dev/disk/by-label/X
are bad input only for a build without libblkid ("probe: none" in
waitdev --version): that must refuse them naming libblkid. A libblkid
build must accept them: status 1 at --timeout 0, not 2.
"""
import re
import sys
sys.dont_write_bytecode = True
import os  # noqa: E402
from waitdevtest import host  # noqa: E402


def cases(h):
    w, r, c = h.waitdev, h.rootwait, h.consolewait
    n = ["--cmdline", ""]       # never the host's /proc/cmdline
    t = ["--timeout", "30"]     # a wait that started would show
    # (argv, every one of these regexes must match the stderr line)
    return [
        ([w] + n + ["--root", ""] + t, [r"--root", r"empty"]),
        ([w] + n + ["--root", "a b"] + t, [r"a b", r"blank"]),
        ([w] + n + ["--net", "eth0:down"] + t,
         [r"eth0:down", r"'down'", r":up or :carrier"]),
        ([w] + n + ["--timeout", "abc"], [r"--timeout abc", r"seconds"]),
        ([w] + n + ["--format", "xml"] + t,
         [r"--format xml", r"plain, shell or json"]),
        ([w] + n + ["--bogus"] + t, [r"--bogus", r"unknown option"]),
        ([w, "--strict", "--cmdline", "waitdev.bogus=1"] + t,
         [r"waitdev\.bogus", r"unknown"]),
        ([w, "--strict", "--cmdline", "rootdelay=x"] + t,
         [r"rootdelay=x", r"the kernel reads 0 s"]),
        ([w, "--strict", "--cmdline", "console=ttyS0n"] + t,
         [r"console=ttyS0n", r"the kernel reads ttyS0"]),
    ] + ([] if h.blkid else [
        # probe: none -- these need libblkid; a libblkid build takes them
        # (see accepted() below)
        ([w] + n + ["--root", "UUID=1234"] + t, [r"UUID=1234", r"libblkid"]),
        ([w] + n + ["--root", "LABEL=wdt"] + t, [r"LABEL=wdt", r"libblkid"]),
        ([w] + n + ["--root", "PARTUUID=1234"] + t,
         [r"PARTUUID=1234", r"libblkid"]),
        ([w] + n + ["--root", "/dev/disk/by-uuid/1234"] + t,
         [r"/dev/disk/by-uuid/1234", r"libblkid"]),
        ([w] + n + ["--root", "/dev/disk/by-label/wdt\\x20x"] + t,
         [r"/dev/disk/by-label/wdt\\x20x", r"libblkid"]),
    ]) + [
        # with no udevd running (the host tests assume none): a build
        # with libudev wants the udev source, one without names libudev
        ([w] + n + ["--root", "/dev/disk/by-id/foo"] + t,
         [r"/dev/disk/by-id/foo",
          r"needs the udev source" if h.features.get("udev source") == "yes"
          else r"libudev"]),
        ([w] + n + ["--root", "4096:1"] + t, [r"4096:1", r"range"]),
        ([w] + n + ["--net", "wdt/x"] + t, [r"wdt/x", r"interface"]),
        ([w] + n + ["--console", "tty S0"] + t, [r"tty S0", r"blank"]),
        ([w] + n + ["unexpected-operand"] + t,
         [r"unexpected-operand", r"unexpected argument"]),
        ([w, "--strict", "--cmdline", "root="] + t, [r"root", r"empty"]),
        ([w, "--strict", "--cmdline", "consolewait=1"] + t,
         [r"consolewait=1", r"no value"]),
        ([w, "--cmdline-file", "/nonexistent/wdt-cmdline"] + t,
         [r"/nonexistent/wdt-cmdline", r"No such file"]),
        ([r] + n, [r"no root device", r"SPEC|root="]),
        ([r] + n + ["/dev/loop100", "/dev/loop101"] + t,
         [r"/dev/loop101", r"only one SPEC"]),
        ([r] + n + ["--timeout", "-1", "/dev/loop100"],
         [r"--timeout -1", r"seconds"]),
        ([r, "--strict", "--cmdline", "root=/dev/loop100 rootwait=abc"],
         [r"rootwait=abc", r"invalid value"]),
        # control characters, typed or decoded from a by-* link name's
        # \xNN, come back as \xNN: one line, nothing for the terminal
        ([w, "--strict", "--cmdline", "root=/dev/sda\x1b[2J"] + t,
         [r"root=/dev/sda\\x1b\[2J", r"control characters"]),
        ([w] + n + ["--root", "/dev/disk/by-partuuid/a\\x0ab"] + t,
         [r"'a\\x0ab'", r"not hexadecimal"]),
        ([c] + n + t, [r"no console named"]),
        ([c] + n + t + ["ttyS0", "--"], [r"--", r"no command"]),
        # consolewait(8): a usage error ends it without running CMD
        # (CMD's "cmd-ran" on stdout, or its status 0, fails the case)
        ([c] + n + ["--bogus"] + t + ["ttyS0", "--", "echo", "cmd-ran"],
         [r"--bogus", r"unknown option"]),
        ([c] + n + t + ["tty S0", "--", "echo", "cmd-ran"],
         [r"tty S0", r"blank"]),
        ([c] + n + ["--timeout", "abc", "ttyS0", "--", "echo", "cmd-ran"],
         [r"--timeout abc", r"seconds"]),
        ([c, "--strict", "--cmdline", "root="] + t +
         ["ttyS0", "--", "echo", "cmd-ran"],
         [r"root", r"empty"]),
        ([c, "--cmdline-file", "/nonexistent/wdt-cmdline"] + t +
         ["ttyS0", "--", "echo", "cmd-ran"],
         [r"/nonexistent/wdt-cmdline", r"No such file"]),
    ]


def accepted(h):
    """Specs a libblkid build must take, not refuse: with --timeout 0 it
    looks once, finds nothing (no device carries these) and says so
    with status 1 -- never 2."""
    w = h.waitdev
    return [[w, "--cmdline", "", "--root", spec, "--timeout", "0"]
            for spec in ("UUID=1234", "LABEL=wdt", "PARTUUID=1234",
                         "/dev/disk/by-uuid/1234",
                         "/dev/disk/by-label/wdt\\x20x")]


def body(h):
    if h.blkid:
        for argv in accepted(h):
            spec = argv[argv.index("--root") + 1]
            with h.case("libblkid: waitdev --root %s is accepted (status 1 "
                        "at --timeout 0, not 2)" % spec):
                p = h.run(argv, timeout=10)
                h.check(p.rc == 1, "expected exit status 1: nothing "
                        "carries %s, but a libblkid build must accept it"
                        % spec, p)
                h.within(p.elapsed, 2.0 * h.scale, "the answer at once", p)
                h.check(p.stdout == "", "expected nothing on stdout", p)
                h.check(re.search(r"^waitdev: root %s: missing after "
                                  % re.escape(spec), p.stderr, re.M),
                        "expected 'waitdev: root %s: missing after' on "
                        "stderr" % spec, p)
                h.check("libblkid" not in p.stderr and
                        "built without" not in p.stderr,
                        "it claims to lack libblkid", p)
    for argv, want in cases(h):
        prog = os.path.basename(argv[0])
        with h.case("%s %s" % (prog, " ".join(
                repr(a) if (not a or " " in a) else a for a in argv[1:]))):
            p = h.run(argv, timeout=10)
            h.check(p.rc == 2, "expected exit status 2", p)
            h.within(p.elapsed, 2.0 * h.scale, "the error at once", p)
            h.check(p.stdout == "", "expected nothing on stdout", p)
            lines = p.stderr.splitlines()
            h.check(len(lines) == 1 and p.stderr.endswith("\n"),
                    "expected exactly one line on stderr", p)
            h.check(not re.search(r"[\x00-\x09\x0b-\x1f\x7f]", p.stderr),
                    "a control character on stderr", p)
            h.check(lines[0].startswith(prog + ": "),
                    "expected the line to start with '%s: '" % prog, p)
            for rx in want:
                h.check(re.search(rx, lines[0]), "expected the line to "
                        "match /%s/" % rx, p)


host.main("bad-input", body)
