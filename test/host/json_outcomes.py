#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
json-outcomes: waitdev --format json prints one JSON document for every
way a wait ends, and each target in it says its state, the device, why it
is not found (a word: missing, not_ready, lost, interrupted, invalid)
and the devices of its class that were seen (waitdev(8), "JSON"):
found, timeout with nothing matching, not ready (a detached loop device:
no medium), lost (found, then detached), interrupted (SIGTERM), a
malformed root= on the kernel command line (invalid; shell format lists
it in WAITDEV_MISSING too), a root= this build cannot wait for (invalid
at boot, a usage error as an option or with --strict) and usage errors, --format json before or
after the bad option.
"""
import sys
sys.dont_write_bytecode = True
import os  # noqa: E402
import signal  # noqa: E402
from waitdevtest import host  # noqa: E402

FOUND, LATE = 107, 108
QUICK = 2.0
TARGET_KEYS = {"role", "spec", "state", "device", "why", "reason",
               "waited_ms", "lost"}


def document(h, p, status, exit_code):
    """The one JSON document on @p's stdout, checked against the schema's
    top level; returns it."""
    j = host.parse_json(p.stdout)
    h.check(j.get("status") == status and j.get("exit") == exit_code,
            "expected status %r, exit %d" % (status, exit_code), p)
    h.check(isinstance(j.get("targets"), list), "no targets list", p)
    for t in j["targets"]:
        h.check(TARGET_KEYS <= set(t), "target lacks %s"
                % sorted(TARGET_KEYS - set(t)), p)
        h.check(("seen" in t) == (t["state"] != "found"),
                "'seen' is for targets not found", p)
    return j


def body(h):
    h.loop(FOUND)
    h.attach(FOUND, h.image("img", "ext4"))
    h.loop(LATE)
    found = "/dev/loop%d" % FOUND
    late = "/dev/loop%d" % LATE

    with h.case("found: state found, device, why and reason null"):
        p = h.start([h.waitdev, "--cmdline", "", "--root", found,
                     "--timeout", "10", "--format", "json"])
        h.expect_exit(p, 0, QUICK)
        t = document(h, p, "found", 0)["targets"]
        h.check(len(t) == 1 and t[0]["state"] == "found" and
                t[0]["device"] == found and t[0]["why"] is None and
                t[0]["reason"] is None, "unexpected target", p)

    with h.case("--resume: its own role, WAITDEV_RESUME, JSON role resume, "
                "5 s by default"):
        p = h.start([h.waitdev, "--cmdline", "", "--resume", found,
                     "--format", "shell"])
        h.expect_exit(p, 0, QUICK)
        h.check(p.stdout.splitlines() == ["WAITDEV_RESUME='%s'" % found,
                                          "WAITDEV_MISSING=''"],
                "expected WAITDEV_RESUME='%s' alone" % found, p)
        p = h.start([h.waitdev, "--cmdline", "waitdev.resume=/dev/wdt-none",
                     "--format", "json"])
        h.expect_exit(p, 1, 5 + QUICK)
        t = document(h, p, "timeout", 1)["targets"]
        h.check(len(t) == 1 and t[0]["role"] == "resume" and
                t[0]["why"] == "missing" and
                4900 <= t[0]["waited_ms"] <= 5000 + 1000 * QUICK,
                "expected the resume device missing at its 5 s default", p)
        h.check("waitdev: resume /dev/wdt-none: missing after" in p.stderr,
                "expected the log to name the role resume", p)

    with h.case("timeout, nothing matches: why missing, the disks seen"):
        p = h.start([h.waitdev, "--cmdline", "", "--root", "/dev/wdt-none",
                     "--timeout", "0.3", "--format", "json"])
        h.expect_exit(p, 1, QUICK + 0.3)
        t = document(h, p, "timeout", 1)["targets"][0]
        h.check(t["state"] == "timeout" and t["why"] == "missing" and
                t["device"] is None, "expected why missing", p)
        seen = {d.get("name"): d for d in t["seen"]}
        d = seen.get("loop%d" % FOUND, {})
        h.check(d.get("node") == found and d.get("sectors", 0) > 0 and
                d.get("devt") == "%d:%d" % h.devt("loop%d" % FOUND),
                "loop%d not in 'seen' as it is" % FOUND, p)

    with h.case("not ready: a detached loop device, why not_ready, no medium"):
        p = h.start([h.waitdev, "--cmdline", "", "--root", late,
                     "--timeout", "0.3", "--format", "json"])
        h.expect_exit(p, 1, QUICK + 0.3)
        t = document(h, p, "timeout", 1)["targets"][0]
        h.check(t["why"] == "not_ready" and t["device"] == late and
                "no medium" in (t["reason"] or ""),
                "expected not_ready on %s, 'no medium'" % late, p)

    with h.case("lost: found, then detached while another target waits"):
        p = h.start([h.waitdev, "--cmdline", "", "--root", late,
                     "--net", "wdt-nonet0", "--timeout", "4",
                     "--format", "json"])
        h.wait_subscribed(p)
        h.attach(LATE, h.image("img", "ext4"))
        h.expect_running(p, 0.7, "wdt-nonet0 never comes")
        h.detach(LATE)
        h.expect_exit(p, 1, 4 + QUICK)
        t = {x["role"]: x for x in document(h, p, "timeout", 1)["targets"]}
        r = t.get("root", {})
        h.check(r.get("why") == "lost" and r.get("lost", 0) >= 1 and
                "no medium" in (r.get("reason") or ""),
                "expected root lost, now without medium", p)
        h.check(t.get("net", {}).get("why") == "missing",
                "expected net missing", p)

    with h.case("interrupted: SIGTERM, status interrupted, exit 143"):
        p = h.start([h.waitdev, "--cmdline", "", "--root", "/dev/wdt-none",
                     "--timeout", "20", "--format", "json"])
        h.wait_subscribed(p)
        os.kill(p.pid, signal.SIGTERM)
        h.expect_exit(p, 128 + signal.SIGTERM, QUICK)
        t = document(h, p, "interrupted", 143)["targets"][0]
        h.check(t["state"] == "waiting" and t["why"] == "interrupted",
                "expected the target interrupted", p)

    with h.case("invalid: a malformed root= fails at once, said in JSON "
                "and in WAITDEV_MISSING"):
        line = "root=UUID= console=ttyS0"
        p = h.start([h.waitdev, "--cmdline", line, "--timeout", "0.3",
                     "--format", "json"])
        h.expect_exit(p, 1, QUICK + 0.3)
        t = {x["role"]: x for x in document(h, p, "timeout", 1)["targets"]}
        r = t.get("root", {})
        h.check(r.get("state") == "invalid" and r.get("why") == "invalid"
                and r.get("spec") == "UUID=" and
                "root=UUID=" in (r.get("reason") or ""),
                "expected root invalid, with its reason", p)
        p = h.start([h.waitdev, "--cmdline", line, "--timeout", "0.3",
                     "--format", "shell"])
        h.expect_exit(p, 1, QUICK + 0.3)
        h.check("WAITDEV_MISSING='root=UUID='" in p.stdout,
                "expected the invalid root in WAITDEV_MISSING", p)

    with h.case("unsupported at boot: root=/dev/disk/by-id/... without "
                "udev fails the root at once (status 1), the console is "
                "still found; --strict and --root make it a usage error"):
        spec = "/dev/disk/by-id/usb-wdt-x-part1"
        line = "root=%s console=ttyS0" % spec
        p = h.start([h.waitdev, "--source", "kernel", "--cmdline", line,
                     "--timeout", "0.3", "--format", "json"])
        h.expect_exit(p, 1, QUICK + 0.3)
        t = {x["role"]: x for x in document(h, p, "timeout", 1)["targets"]}
        # a build with libudev wants the udev source (no udevd runs in
        # the host tests); one without (the static build) names libudev
        need = ("needs the udev source"
                if h.features.get("udev source") == "yes" else "libudev")
        h.check(t.get("root", {}).get("state") == "invalid" and
                t["root"].get("spec") == spec and
                need in (t["root"].get("reason") or ""),
                "expected root invalid: %s" % need, p)
        h.check(t.get("console", {}).get("state") == "found",
                "expected the console still found", p)
        h.check("root: unsupported on the kernel command line" in p.stderr,
                "expected the log to say so", p)
        for argv in (["--cmdline", line, "--strict"],
                     ["--cmdline", "", "--root", spec]):
            p = h.start([h.waitdev, "--source", "kernel", "--timeout", "0.3"]
                        + argv)
            h.expect_exit(p, 2, QUICK)

    for argv, what in ((["--format", "json", "--bogus"], "--bogus"),
                       (["--timeout", "abc", "--format=json"], "--timeout abc")):
        with h.case("usage error %s: JSON all the same" % " ".join(argv)):
            p = h.start([h.waitdev, "--cmdline", ""] + argv)
            h.expect_exit(p, 2, QUICK)
            j = document(h, p, "usage_error", 2)
            h.check(what in (j.get("error") or "") and j["targets"] == [],
                    "expected the error naming %s, no targets" % what, p)


host.main("json-outcomes", body)
