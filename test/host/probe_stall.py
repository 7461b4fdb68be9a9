#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
probe-stall: a block device whose reads do not answer holds up neither
the deadline nor SIGTERM (issue 13, item 4). loop109 is backed by a file
on a FUSE filesystem (test/host/fuse_stall.c, $WAITDEV_FUSE_STALL) whose
reads wait while a flag file exists: a task reading the loop device then
sleeps in D state, and no signal gets it out. waitdev probes the device
for LABEL= in a child process, so:

- --timeout 2: exit status 1 at the deadline, not when the read ends;
- SIGTERM while the probe hangs: status 143 and "interrupted", promptly;
- control: the flag removed while waitdev waits, the read answers and
  the label is found (the stall was all that stood in the way);
- reads that fail (EIO, issue 14 item 4): --root /dev/loop109 is not
  ready, and the diagnosis and the JSON say that it cannot be read.
  Before, a device the probe could not read was judged by its size
  alone, and found;
- the device shrinks while the probe hangs (truncate and losetup -c; its
  new end holds an md 1.0 superblock): the hung probe's ext4 is for the
  old medium, the device is read again and is an md member, no root.

Before the fix waitdev read the device itself and stayed in D state until
the read ended (here: until the flag was removed).
"""
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
sys.dont_write_bytecode = True
import time  # noqa: E402
from waitdevtest import host  # noqa: E402

N = 109
NODE = "/dev/loop%d" % N
LABEL = "wdt-stall"


class Stall:
    """The FUSE file (host.StalledFile) of an ext4 image; the loop device
    attached per case, so that nothing a case read is cached for the
    next one."""

    def __init__(self, h):
        self.h = h
        img = h.image("stall", "ext4", mkfs_args=["-L", LABEL])
        self.file = host.StalledFile(img, h.tmp)
        self.flag = self.file.flag
        self.readers = []

    def attach(self, stalled=True, failing=False):
        """Attaches loop109 to the FUSE file; with @stalled, reads of it
        hang until release(), with @failing they fail (EIO). Checks that
        they do."""
        if failing:
            self.file.fail()
            self.h.attach(N, self.file.path)
            dd = subprocess.run(["dd", "if=" + NODE, "of=/dev/null",
                                 "bs=4096", "count=1", "iflag=direct"],
                                stdin=subprocess.DEVNULL,
                                capture_output=True, text=True)
            self.h.check(dd.returncode != 0 and
                         "Input/output error" in dd.stderr,
                         "precondition: a read of %s should fail with "
                         "EIO; dd: status %d, %r" % (NODE, dd.returncode,
                                                     dd.stderr.strip()))
            return
        if stalled:
            self.file.stall()
        self.h.attach(N, self.file.path)
        if not stalled:
            return
        dd = subprocess.Popen(["dd", "if=" + NODE, "of=/dev/null",
                               "bs=4096", "count=1", "iflag=direct"],
                              stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        self.readers.append(dd)
        time.sleep(0.5)
        self.h.check(dd.poll() is None, "precondition: a read of %s "
                     "should hang while the flag exists; dd ended with "
                     "status %s" % (NODE, dd.poll()))

    @contextlib.contextmanager
    def attached(self):
        """The stalled device attached for the body, released after."""
        try:
            self.attach()
            yield
        finally:
            self.release()

    def release(self):
        """Lets the hanging reads answer, waits for them, detaches."""
        self.file.release()
        for dd in self.readers:
            try:
                dd.wait(15)
            except subprocess.TimeoutExpired:
                dd.kill()
        self.readers = []
        self.h.detach(N)

    def close(self):
        self.release()
        self.file.close()


def waitdev(h, timeout):
    # -vv: the log says that the probe of loop109 started and never ended
    return [h.waitdev, "-vv", "--source", "kernel", "--cmdline", "",
            "--root", "LABEL=" + LABEL, "--timeout", str(timeout)]


def probing(h, p):
    h.check("%s: probing" % NODE in p.stderr,
            "expected '%s: probing' in the log (-vv)" % NODE, p)


def body(h):
    if h.features.get("probe") != "libblkid":
        raise host.Fatal("this waitdev has no libblkid probe: LABEL= "
                         "cannot be tested")
    h.loop(N)
    s = Stall(h)
    try:
        cases(h, s)
    finally:
        s.close()


def cases(h, s):
    with h.case("--timeout 2 with the probe of %s hanging: status 1 at "
                "the deadline" % NODE):
        with s.attached():
            p = h.start(waitdev(h, 2 * h.scale))
            took = h.expect_exit(p, 1, 2 + 1.5,
                                 why="at the deadline, the read still "
                                 "hanging")
            h.check(took >= 1.9, "gave up after %.3f s, before the 2 s "
                    "deadline" % took, p)
            probing(h, p)
            h.check("%s: type" % NODE not in p.stderr,
                    "the probe of %s cannot have answered" % NODE, p)
            h.check("seen block loop%d (" % N in p.stderr and
                    "not read: the probe did not answer)" in p.stderr,
                    "expected the diagnosis to say loop%d was not read"
                    % N, p)
            h.check(p.stdout == "", "expected no root on stdout (plain "
                    "output lists only what was found)", p)

    with h.case("SIGTERM while the probe of %s hangs: 143, "
                "\"interrupted\", promptly" % NODE):
        with s.attached():
            p = h.start(waitdev(h, 30), preexec_fn=host.default_signals)
            h.wait_subscribed(p)
            time.sleep(1.0)     # the scan found loop109: its probe hangs
            h.expect_sigterm_ends(p)
            probing(h, p)
            h.check(p.stdout == "", "expected no result on stdout", p)

    with h.case("control: the read answers while waitdev waits: %s "
                "found" % NODE):
        with s.attached():
            p = h.start(waitdev(h, 20 * h.scale))
            h.expect_running(p, 1.0, "the probe of %s hangs" % NODE)
            host.log("+ rm %s (reads answer again)" % s.flag)
            t = time.monotonic()
            os.unlink(s.flag)
            h.expect_exit(p, 0, 3.0, since=t, why="once reads answer")
            h.check(p.stdout == "root %s\n" % NODE,
                    "expected 'root %s' on stdout" % NODE, p)

    with h.case("reads of %s fail (EIO): not ready, and the diagnosis "
                "and the JSON say it cannot be read" % NODE):
        try:
            s.attach(failing=True)
            p = h.start([h.waitdev, "--source", "kernel", "--cmdline", "",
                         "--root", NODE, "--timeout", str(1 * h.scale),
                         "--format", "json"])
            h.expect_exit(p, 1, 1 * h.scale + 1.5,
                          why="at the deadline: the device is not ready")
            try:
                t = json.loads(p.stdout)["targets"][0]
            except (ValueError, KeyError, IndexError):
                t = {}
            h.check(t.get("state") == "timeout" and
                    t.get("why") == "not_ready" and
                    t.get("device") == NODE,
                    "expected root %s not ready in the JSON" % NODE, p)
            # strerror(EIO): "Input/output error" (glibc), "I/O error"
            # (musl, the static build)
            said = r"cannot be read \((Input/output|I/O) error\)"
            h.check(re.search(r"loop%d " % N + said, t.get("reason") or "")
                    and re.search(said, p.stderr),
                    "expected the reason 'cannot be read (Input/output "
                    "error)' in the JSON and the diagnosis", p)
        finally:
            s.release()

    shrink(h, s)


def shrink(h, s):
    """The device shrinks while its probe hangs (issue 14 item 3): what
    the probe then returns was read from the medium as it was; the device
    is read again. The image is an ext4 volume (LABEL=wdt-stall) whose
    last 2 MiB, once cut, leave an md 1.0 superblock at the new end: a
    RAID member, no root. Last: it changes the image for good."""
    img = s.file.backing
    size = os.path.getsize(img)
    small = size - (2 << 20)
    host.md_member(img, "1.0", size=small)
    cut = os.path.join(h.tmp, "stall-cut")
    shutil.copyfile(img, cut)
    os.truncate(cut, small)
    rc, whole = host.blkid_p(img)
    rc_cut, part = host.blkid_p(cut)
    if whole.get("LABEL") != LABEL or part.get("TYPE") != "linux_raid_member":
        raise host.Fatal("the image should be ext4 LABEL=%s whole and an md "
                         "member cut to %d bytes (blkid -p: %s, %s)"
                         % (LABEL, small, whole, part))
    with h.case("%s shrinks while its probe hangs: read again, and the md "
                "member it now is is no root" % NODE):
        with s.attached():
            p = h.start(waitdev(h, 4 * h.scale))
            h.expect_running(p, 1.0, "the probe of %s hangs" % NODE)
            host.log("+ truncate -s %d %s; losetup -c %s"
                     % (small, img, NODE))
            os.truncate(img, small)
            os.stat(s.file.path)        # FUSE: the new size, at once
            subprocess.run(["losetup", "-c", NODE], check=True)
            h.check(h.loop_size(N) == small // 512, "precondition: %s "
                    "should have shrunk to %d sectors, has %d"
                    % (NODE, small // 512, h.loop_size(N)))
            time.sleep(0.3)             # its change uevent is read
            host.log("+ rm %s (reads answer again)" % s.flag)
            os.unlink(s.flag)
            h.expect_exit(p, 1, 4 * h.scale + 1.5,
                          why="at the deadline: no ext4 volume now")
            h.check(re.search(r"probe \d+ superseded", p.stderr),
                    "expected the hung probe's result superseded (-vv)", p)
            h.check("linux_raid_member" in p.stderr,
                    "expected the diagnosis to show linux_raid_member", p)
            h.check(p.stdout == "", "expected no root on stdout", p)


if __name__ == "__main__":
    host.main("probe-stall", body)
