#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
udev source: waitdev listens to udevd's processed events (netlink group
"udev") and enumerates udev's database, instead of the kernel's uevents
and libblkid.

The test starts its own systemd-udevd (package "udev", installed by
tools/install-deps; nothing is installed here) as a child process with
a rules file of its own in /run/udev/rules.d, and stops it again on
exit, leaving no /run/udev/control behind (the other host tests run
waitdev in auto mode and must stay in kernel mode). A udevd that is
already running is never touched: the test then refuses to run.

  * loop108 gets an 8 MiB ext4 (UUID <uuid>, label "udev test") while
    `waitdev --source udev` waits for it as UUID=, /dev/disk/by-uuid/,
    LABEL= and /dev/disk/by-label/ (the label escaped as udev does):
    exit 0, WAITDEV_ROOT='/dev/loop108', and -- the point of udev mode
    -- at the very moment waitdev exited (seen through a pidfd, before
    it is reaped), udevd's /dev/disk/by-uuid and by-label links already
    existed: the event came from udevd after it had run its rules;
  * /dev/disk/by-id/ and /dev/disk/by-path/ (only udev knows those)
    match through DEVLINKS: the test's rule gives loop108 one of each;
  * a device that udevd processed before waitdev started is found by
    the initial enumeration, at once;
  * --source auto picks udev while udevd runs, --source kernel does not
    (and refuses /dev/disk/by-id/ with status 2, naming libudev);
  * once the test's udevd is stopped, /run/udev/control is gone and
    --source auto picks the kernel again.
"""
import contextlib
import os
import select
import shutil
import subprocess
import sys
import time
import uuid as uuidlib
sys.dont_write_bytecode = True
from waitdevtest import host  # noqa: E402
from waitdevtest.host import Fatal, Failure, log  # noqa: E402
from waitdevtest.udevd import CONTROL, Udevd, udevd_pids  # noqa: E402

LOOP = 108
NODE = "/dev/loop%d" % LOOP
LABEL = "udev test"
LABEL_ENC = "udev\\x20test"     # how udev names the by-label link
BY_ID = "waitdev-test-loop%d" % LOOP
# loop devices get no by-id or by-path links of their own: this rule
# gives loop108 one of each while it has a backing file
RULES = ('KERNEL=="loop%d", ENV{DEVTYPE}=="disk", TEST=="loop/backing_file", '
         'SYMLINK+="disk/by-id/%s", SYMLINK+="disk/by-path/%s"\n'
         % (LOOP, BY_ID, BY_ID))


def make_ext4(h, fsuuid):
    if not shutil.which("mkfs.ext4"):
        raise Fatal("no mkfs.ext4: install the package 'e2fsprogs'")
    img = os.path.join(h.tmp, "udev-ext4.img")
    with open(img, "wb") as f:
        f.truncate(8 << 20)
    argv = ["mkfs.ext4", "-q", "-F", "-U", fsuuid, "-L", LABEL, img]
    log("+ " + " ".join(repr(a) if " " in a else a for a in argv))
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        raise Fatal("mkfs.ext4 failed (status %d): %s"
                    % (r.returncode, r.stderr.strip()))
    return img


def links_of(fsuuid):
    return ["/dev/disk/by-uuid/" + fsuuid,
            "/dev/disk/by-label/" + LABEL_ENC,
            "/dev/disk/by-id/" + BY_ID,
            "/dev/disk/by-path/" + BY_ID]


def poll(cond, timeout, step=0.02):
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() >= end:
            return False
        time.sleep(step)
    return True


def detach_settled(h, u, fsuuid):
    """Detaches loop108 and waits until udevd removed its links, so that
    a link seen later is one udevd made for the next attach."""
    h.detach(LOOP)
    if not poll(lambda: not any(os.path.lexists(ln)
                                for ln in links_of(fsuuid)), 5):
        u.check_alive()
        raise Failure("udevd did not remove the links of loop%d within "
                      "5 s of losetup -d: %s\nudevd log:\n%s"
                      % (LOOP, [ln for ln in links_of(fsuuid)
                                if os.path.lexists(ln)],
                         u.log_excerpt(grep=["loop%d" % LOOP])))


def attach_settled(h, u, img, fsuuid):
    """Attaches loop108 and waits until udevd made its links."""
    h.attach(LOOP, img)
    if not poll(lambda: all(os.path.lexists(ln)
                            for ln in links_of(fsuuid)), 5):
        u.check_alive()
        raise Failure("udevd did not make the links of loop%d within 5 s "
                      "of losetup: missing %s\nudevd log:\n%s"
                      % (LOOP, [ln for ln in links_of(fsuuid)
                                if not os.path.lexists(ln)],
                         u.log_excerpt(grep=["loop%d" % LOOP])))


def wait_exit_seeing(h, p, within, since, paths):
    """Waits for @p to exit (a pidfd: woken at its exit, before it is
    reaped) and returns which of @paths existed at that moment (None if
    it did not exit within @within s of @since) and the time since."""
    fd = os.pidfd_open(p.pid)
    try:
        left = max(0.0, since + within - time.monotonic())
        ready, _, _ = select.select([fd], [], [], left)
        seen = {path: os.path.lexists(path) for path in paths}
        took = time.monotonic() - since
    finally:
        os.close(fd)
    if not ready:
        seen = None
    return seen, took


def waitdev(h, source, spec, *extra, timeout="10"):
    return [h.waitdev, "--source", source, "--cmdline", "", "--root", spec,
            "--timeout", timeout, "--format", "shell", "-vv"] + list(extra)


def check_found(h, p, source="udev"):
    got = host.shell_vars(p.stdout).get("WAITDEV_ROOT")
    h.check(got == NODE, "expected WAITDEV_ROOT='%s', got %r" % (NODE, got),
            p)
    h.check("source: %s" % source in p.stderr,
            "expected 'source: %s' in the -vv log" % source, p)


def late(h, u, img, fsuuid, spec):
    """waitdev waits for @spec; loop108 gets the ext4 meanwhile."""
    detach_settled(h, u, fsuuid)
    links = links_of(fsuuid)
    p = h.start(waitdev(h, "udev", spec))
    h.expect_running(p, 0.5, "loop%d has no medium yet" % LOOP)
    t = h.attach(LOOP, img)
    seen, took = wait_exit_seeing(h, p, 5, t, links)
    h.expect_exit(p, 0, 0 if seen is None else 2, why="within 5 s of "
                  "losetup")
    check_found(h, p)
    missing = [ln for ln, there in seen.items() if not there]
    h.check(not missing, "expected udevd to have made %s by the time "
            "waitdev exited (udev mode reports a device only after udevd "
            "processed it); missing then: %s\nudevd log:\n%s"
            % (links, missing, u.log_excerpt(grep=["loop%d" % LOOP])), p)
    for ln in links:
        h.check(os.path.realpath(ln) == NODE, "expected %s -> %s, it is "
                "-> %s" % (ln, NODE, os.path.realpath(ln)), p)
    host.log("  found %.3f s after losetup; the links were there at exit"
             % took)


def at_once(h, argv, source="udev"):
    p = h.run(argv, timeout=10)
    h.check(p.rc == 0, "expected exit status 0 (loop%d is there)" % LOOP, p)
    h.within(p.elapsed, 1.5 * h.scale, "the answer at once", p)
    check_found(h, p, source)
    return p


def body(h):
    v = subprocess.run([h.waitdev, "--version"], capture_output=True,
                       text=True)
    if "udev source: yes" not in v.stdout:
        raise Fatal("%s was built without libudev (%r): this test is "
                    "registered only for builds with it"
                    % (h.waitdev, v.stdout.strip()))
    fsuuid = str(uuidlib.uuid4())
    img = make_ext4(h, fsuuid)
    h.loop(LOOP)
    u = Udevd(h.tmp, rules=RULES, node=NODE)
    try:
        u.start()
        specs = ["UUID=" + fsuuid,
                 "/dev/disk/by-uuid/" + fsuuid,
                 "LABEL=" + LABEL,
                 "/dev/disk/by-label/" + LABEL_ENC,
                 "/dev/disk/by-id/" + BY_ID,
                 "/dev/disk/by-path/" + BY_ID]
        for spec in specs:
            with h.case("--source udev --root %r: waits until udevd "
                        "processed the attach" % spec):
                late(h, u, img, fsuuid, spec)

        with h.case("--source udev: a device udevd processed before "
                    "waitdev started is found by the enumeration"):
            if h.loop_size(LOOP) == 0:
                attach_settled(h, u, img, fsuuid)
            for spec in ("UUID=" + fsuuid, "LABEL=" + LABEL,
                         "/dev/disk/by-id/" + BY_ID):
                at_once(h, waitdev(h, "udev", spec))

        with h.case("--source udev: another UUID is not taken for it"):
            other = str(uuidlib.uuid4())
            p = h.run(waitdev(h, "udev", "UUID=" + other, timeout="1"))
            h.check(p.rc == 1, "expected exit status 1 (no such UUID)", p)

        with h.case("--source auto picks udev while udevd runs"):
            at_once(h, waitdev(h, "auto", "UUID=" + fsuuid), "udev")

        with h.case("--source kernel does not (and probes with libblkid)"):
            at_once(h, waitdev(h, "kernel", "UUID=" + fsuuid), "kernel")

        with h.case("--source kernel refuses /dev/disk/by-id/ (udev only)"):
            p = h.run(waitdev(h, "kernel", "/dev/disk/by-id/" + BY_ID))
            h.check(p.rc == 2, "expected exit status 2", p)
            h.check("needs the udev source" in p.stderr,
                    "expected it to say the udev source is needed", p)

        u.check_alive()
    finally:
        # detached while udevd runs, so that it removes the links
        with contextlib.suppress(Exception):
            if u.p is not None and u.p.poll() is None:
                h.detach(LOOP)
                poll(lambda: not any(os.path.lexists(ln)
                                     for ln in links_of(fsuuid)), 3)
        u.stop()

    with h.case("after the test's udevd is stopped: no udevd, no %s, and "
                "--source auto picks the kernel" % CONTROL):
        h.check(not udevd_pids(), "expected no udevd process, found %s"
                % udevd_pids())
        h.check(not os.path.lexists(CONTROL), "expected %s to be gone"
                % CONTROL)
        p = h.run(waitdev(h, "auto", NODE, timeout="0.2"))
        h.check(p.rc == 1, "expected exit status 1 (loop%d detached)"
                % LOOP, p)
        h.check("source: kernel" in p.stderr,
                "expected 'source: kernel' in the -vv log", p)


host.main("udev-source", body)
