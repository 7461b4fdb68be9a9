#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
modload-stall: a module load that cannot be interrupted holds neither the
deadline, nor SIGTERM, nor the exit as waitdev's parent sees it (issue
14, item 6). With --modprobe, waitdev loads the modules of every MODALIAS
it hears of. Here the module tree is test/modload/make-fixture.sh's, and
its fake_a.ko (the module of a PCI alias) is a link to a FUSE file
(host.StalledFile) whose reads hang: libkmod's read of the module waits
for the answer, and once a fatal signal came (the exit's SIGKILL to every
thread) it waits uninterruptibly (D state), as a finit_module() of a
module whose init sleeps does. The uevent comes through --uevent-fd.

- --timeout 1 with the load hanging: exit status 1 at the deadline, seen
  by waitpid() then, and the loader ("waitdev-modload") still in its
  read after it; once the read answers, the loader finishes (the fake module
  is refused by the kernel: "cannot load fake_a") and exits;
- SIGTERM while the load hangs: 143, promptly.

Before the fix a thread loaded the modules: a thread in D state holds
the process's exit (the kernel reports a thread group dead only when every
thread is), so waitdev ended when the read answered.
"""
import os
import shutil
import socket
import subprocess
import sys
sys.dont_write_bytecode = True
from waitdevtest import host  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "..", "modload", "make-fixture.sh")
# fake_a's alias is pci:v00008086d00001234sv*sd*bc*sc*i*
MODALIAS = b"pci:v00008086d00001234sv00000000sd00000000bc02sc00i00"


def blocked_tasks(pid):
    """The tids of @pid's threads waiting for a FUSE answer."""
    tids = []
    try:
        names = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return tids
    for tid in names:
        try:
            with open("/proc/%d/task/%s/wchan" % (pid, tid)) as f:
                if f.read() == "request_wait_answer":
                    tids.append(int(tid))
        except OSError:
            pass
    return tids


def loaders():
    """The pids of the processes named waitdev-modload."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/comm" % pid) as f:
                if f.read().strip() == "waitdev-modload":
                    found.append(int(pid))
        except OSError:
            continue
    return found


def module_tree(h):
    """The fixture's tree: its directory, and fake_a.ko moved out of it
    (the FUSE file's backing)."""
    r = subprocess.run(["sh", FIXTURE, os.path.join(h.tmp, "mods")],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise host.Fatal("make-fixture.sh: %s" % r.stderr.strip())
    moddir = r.stdout.strip().splitlines()[-1]
    backing = os.path.join(h.tmp, "fake_a.ko")
    shutil.move(os.path.join(moddir, "kernel", "fake_a.ko"), backing)
    return moddir, backing


def start(h, moddir, timeout, **kw):
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    try:
        p = h.start([h.waitdev, "-v", "--source", "kernel", "--cmdline", "",
                     "--modprobe", "--moddir", moddir,
                     "--root", "/dev/wdt-none", "--timeout", str(timeout),
                     "--uevent-fd", str(theirs.fileno())],
                    pass_fds=(theirs.fileno(),), **kw)
        theirs.close()
        h.expect_running(p, 0.3)
        mine.send(host.uevent_datagram(
            b"pci", b"", b"MODALIAS=" + MODALIAS,
            devpath=b"/devices/pci0000:00/0000:00:1f.7"))
        return p
    finally:
        mine.close()
        if theirs.fileno() >= 0:
            theirs.close()


def stuck_loader(h, before, p):
    """The process this case's waitdev reads the module in, once that
    read waits for the FUSE file: (pid, what it is). A thread of waitdev
    itself counts too (how it was before the fix), so that this holds on
    the old code and the exit is what fails there."""
    found = []

    def stuck():
        if blocked_tasks(p.pid):
            found[:] = [(p.pid, "a thread of waitdev")]
        else:
            found[:] = [(k, "waitdev-modload") for k in loaders()
                        if k not in before and blocked_tasks(k)]
        return bool(found)
    h.check(host.poll(stuck, 3 * host.SCALE), "precondition: a task of "
            "waitdev reading the stalled module (waiting in "
            "request_wait_answer)", p)
    host.log("  reading the module: %s %d" % (found[0][1], found[0][0]))
    return found[0]


def ended(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(") ")[1][0] == "Z"
    except OSError:
        return True


def body(h):
    if h.features.get("modload") != "libkmod":
        raise host.Fatal("this waitdev has no libkmod: --modprobe cannot "
                         "be tested")
    moddir, backing = module_tree(h)
    stalled = host.StalledFile(backing, h.tmp)
    try:
        os.symlink(stalled.path, os.path.join(moddir, "kernel", "fake_a.ko"))
        cases(h, stalled, moddir)
    finally:
        stalled.close()


def cases(h, stalled, moddir):
    with h.case("--timeout 1 with the module load hanging: status 1 at "
                "the deadline; the loader, still reading, is left behind"):
        before = loaders()
        stalled.stall()
        try:
            p = start(h, moddir, 1 * h.scale)
            pid, who = stuck_loader(h, before, p)
            h.expect_exit(p, 1, 1 + 1.5, since=p.t0,
                          why="at the deadline, the load still hanging")
            h.check(who == "waitdev-modload" and not ended(pid),
                    "expected the loader still in its load after "
                    "waitdev's exit; the load was in %s %d" % (who, pid), p)
        finally:
            host.log("+ rm %s (reads answer again)" % stalled.flag)
            stalled.release()
        h.check(host.poll(lambda: ended(pid), 10 * host.SCALE),
                "expected the loader %d to exit once its read answered"
                % pid, p)
        h.check("cannot load fake_a (for %s)" % MODALIAS.decode()
                in p.stderr,
                "expected the loader's 'cannot load fake_a' (the kernel "
                "refuses the fake module) on the stderr it shares", p)

    with h.case("--settle, USB settled, the module load hanging: no "
                "give-up while the loader loads (the driver it binds "
                "would make USB busy), then 'USB settled ... not there'"):
        fake = os.path.join(h.tmp, "settle-sysfs")
        for d in ("class", "devices", "bus/usb"):
            os.makedirs(os.path.join(fake, d), exist_ok=True)
        fifo = os.path.join(fake, "bus/usb/settle")
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
        hold = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
        os.write(hold, b"settled\n")
        before = loaders()
        stalled.stall()
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        theirs.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        try:
            # queued before waitdev starts: it reads it before it can
            # see the settle as final
            mine.send(host.uevent_datagram(
                b"pci", b"", b"MODALIAS=" + MODALIAS,
                devpath=b"/devices/pci0000:00/0000:00:1f.7"))
            p = h.start([h.waitdev, "-v", "--source", "kernel", "--cmdline",
                         "", "--settle", "--sysfs", fake, "--modprobe",
                         "--moddir", moddir, "--root", "/dev/wdt-none",
                         "--timeout", str(30 * h.scale),
                         "--uevent-fd", str(theirs.fileno())],
                        pass_fds=(theirs.fileno(),))
            theirs.close()
            pid, who = stuck_loader(h, before, p)
            h.expect_running(p, 1.0, "the loader is still loading")
            h.check("USB settled" not in p.stderr, "gave up while the "
                    "loader was loading", p)
        finally:
            host.log("+ rm %s (reads answer again)" % stalled.flag)
            stalled.release()
            mine.close()
        try:
            h.expect_exit(p, 1, 5, why="given up once the loader is idle")
        finally:
            os.close(hold)  # the FIFO's writer: open until the end
        h.check("USB settled at" in p.stderr and "not there" in p.stderr,
                "expected 'USB settled at T s; not there'", p)

    with h.case("SIGTERM while the module load hangs: 143, promptly"):
        before = loaders()
        stalled.stall()
        try:
            p = start(h, moddir, 30, preexec_fn=host.default_signals)
            pid, who = stuck_loader(h, before, p)
            h.expect_sigterm_ends(p)
        finally:
            stalled.release()
        h.check(host.poll(lambda: ended(pid), 10 * host.SCALE),
                "expected the loader %d to exit once its read answered"
                % pid, p)


if __name__ == "__main__":
    host.main("modload-stall", body)
