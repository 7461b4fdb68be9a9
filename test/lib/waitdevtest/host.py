# SPDX-License-Identifier: LGPL-2.1-or-later
"""
Helpers for the real-kernel host tests (meson suite 'host') and the
benchmarks that use loop devices (bench/latency.py).

Every test script is run as
    python3 SCRIPT WAITDEV ROOTWAIT CONSOLEWAIT
and needs root, loop devices and veth. A missing precondition is a loud
FAILURE (exit 1), never a skip: these tests exist to run on this host.

Resources a test may touch, and nothing else:
  * loop devices 100..109 (created with LOOP_CTL_ADD when missing,
    detached - and removed again if this test created them - on exit);
  * network interfaces whose names start with "wdt" (deleted on exit).
A test may name other ranges through main(..., loops=, ifprefix=): the
storm test uses loop300-339 and wds*, so that it never touches what the
other host tests (or the benchmarks' loop200-209) use.

Under a tool such as valgrind (tools/valgrind):
  WAITDEV_WRAPPER     a command prefix (split like a shell would) put
                      before every run of waitdev, rootwait and consolewait;
  WAITDEV_WRAPPER_FDS a path prefix: descriptors open on files under it
                      are the wrapper's own (valgrind's --log-file, which
                      it leaves open across exec), not the program's;
  WAITDEV_TIME_SCALE  a factor (default 1) for the times a test gives
                      the program under test: the --timeout it waits
                      with, how long it may take to start. Lower bounds
                      ("not before the deadline") stay as they are.
  WAITDEV_TIMING      "assert" (default) or "report": whether an upper
                      bound on how long something took is a test
                      assertion. The sanitizer and valgrind passes set
                      "report" (meson for a -Db_sanitize build,
                      tools/valgrind): there the tool's own work (ASan's
                      exit-time checks, valgrind's leak check) and the
                      load of a shared machine decide such figures, not
                      waitdev, and a bound would be a flake by
                      construction. They are then logged as figures, and
                      only a liveness limit (Host.liveness()) stops a
                      program that hangs.
"""
import contextlib
import errno
import fcntl
import json
import os
import re
import select
import shlex
import shutil
import signal
import socket
import subprocess
import struct
import sys
import tempfile
import threading
import time
import traceback
import uuid

from waitdevtest import log

LOOP_CTL_ADD = 0x4C80
LOOP_CTL_REMOVE = 0x4C81
LOOP_SET_FD = 0x4C00
LOOP_CLR_FD = 0x4C01
NETLINK_KOBJECT_UEVENT = 15
SO_RCVBUFFORCE = 33
LOOP_RANGE = range(100, 110)
IFPREFIX = "wdt"
WRAPPER = shlex.split(os.environ.get("WAITDEV_WRAPPER", ""))
WRAPPER_FDS = os.environ.get("WAITDEV_WRAPPER_FDS", "")
SCALE = float(os.environ.get("WAITDEV_TIME_SCALE", "1"))
TIMING = os.environ.get("WAITDEV_TIMING", "assert")
if TIMING not in ("assert", "report"):
    raise SystemExit("WAITDEV_TIMING=%s: expected assert or report" % TIMING)
# report mode: how long a program may take before it counts as hung
LIVENESS_MIN = 30.0         # s
LIVENESS_FACTOR = 10


class Fatal(Exception):
    """A precondition failed: the test cannot run at all."""


class Failure(Exception):
    """An assertion failed."""


class Proc:
    """A front end running in the background, output captured in files."""

    def __init__(self, host, argv, **kw):
        self.host = host
        self.argv = [str(a) for a in argv]
        if WRAPPER and self.argv[0] in (host.waitdev, host.rootwait,
                                        host.consolewait):
            self.argv = WRAPPER + self.argv
        self._out = tempfile.TemporaryFile()
        self._err = tempfile.TemporaryFile()
        self.rc = None
        self.elapsed = None
        log("+ " + shlex.join(self.argv) + " &")
        self.t0 = time.monotonic()
        # a test may give its own stdout or stderr (a pipe it fills, say):
        # then that one is not captured
        kw.setdefault("stdout", self._out)
        kw.setdefault("stderr", self._err)
        self.p = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, **kw)
        host.procs.append(self)

    @property
    def pid(self):
        return self.p.pid

    def running(self):
        return self.p.poll() is None

    def wait(self, timeout):
        """Waits up to @timeout s (times WAITDEV_TIME_SCALE); returns the
        exit status or None."""
        try:
            self.rc = self.p.wait(timeout=timeout * SCALE)
        except subprocess.TimeoutExpired:
            return None
        self.elapsed = time.monotonic() - self.t0
        return self.rc

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()

    def _read(self, f):
        f.flush()
        f.seek(0)
        return f.read().decode("utf-8", "replace")

    @property
    def stderr_fd(self):
        return self._err.fileno()

    @property
    def stdout(self):
        return self._read(self._out)

    @property
    def stderr(self):
        return self._read(self._err)

    def describe(self):
        rc = self.p.poll()
        state = "still running" if rc is None else (
            "killed by signal %d" % -rc if rc < 0 else "exit status %d" % rc)
        return ("  command: %s\n  state:   %s\n  stdout:  %r\n  stderr:  %r"
                % (shlex.join(self.argv), state, self.stdout, self.stderr))


class UeventCounter:
    """Counts the kernel's uevents whose header ("ACTION@DEVPATH")
    matches @pattern (with whole=True: anywhere in the message, e.g.
    rb"\\0SUBSYSTEM=block\\0"), on a netlink socket of our own with a
    buffer large enough for a storm (SO_RCVBUFFORCE, as root), read all
    along by a thread of its own: however long the test is busy
    elsewhere (a run under valgrind takes many seconds), the counting
    socket never sits unread while the storm fills it. A loss (ENOBUFS)
    is still possible in principle, and then fatal: the counts would
    lie."""

    def __init__(self, pattern, whole=False):
        self.pattern = re.compile(pattern)
        self.whole = whole
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM,
                               NETLINK_KOBJECT_UEVENT)
        self.s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
        self.s.bind((0, 1))
        self.s.setblocking(False)
        self.lock = threading.Lock()
        self.count = 0
        self.error = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._reader, daemon=True)
        self.thread.start()

    def _read_queued(self):
        """Reads what is queued now (with the lock held)."""
        while self.error is None:
            try:
                d = self.s.recv(8192)
            except BlockingIOError:
                return
            except OSError as e:
                self.error = e
                return
            if self.pattern.search(d if self.whole
                                   else d.split(b"\0", 1)[0]):
                self.count += 1

    def _reader(self):
        while not self.stop.is_set() and self.error is None:
            select.select([self.s], [], [], 0.05)
            with self.lock:
                self._read_queued()

    def drain(self):
        """The matching uevents queued since the last call, every one
        queued until now included."""
        with self.lock:
            self._read_queued()
            n, self.count = self.count, 0
        if self.error is not None:
            raise Fatal("the counting socket itself lost uevents "
                        "(%s): the counts would lie" % self.error)
        return n

    def close(self):
        self.stop.set()
        self.thread.join(5)
        self.s.close()


def loop_size(n):
    """loop@n's size in sectors (sysfs); FileNotFoundError if it does not
    exist."""
    with open("/sys/class/block/loop%d/size" % n) as f:
        return int(f.read())


def loop_attached(n):
    return os.path.exists("/sys/class/block/loop%d/loop/backing_file" % n)


def poll(cond, timeout, step=0.02):
    """Whether @cond() came true within @timeout seconds: for the kernel's
    own asynchronous teardown, in the tests' set-up, never in a waiter."""
    end = time.monotonic() + timeout
    while True:
        if cond():
            return True
        if time.monotonic() >= end:
            return False
        time.sleep(step)


def ioctls(path, calls, tolerate=()):
    """Opens @path, makes the ioctls @calls ([(request, argument)]) on it
    in order, closes it: True. An errno in @tolerate ends them early:
    False."""
    fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    try:
        for request, arg in calls:
            fcntl.ioctl(fd, request, arg)
    except OSError as e:
        if e.errno not in tolerate:
            raise
        return False
    finally:
        os.close(fd)
    return True


def loop_add(n):
    """Makes loop@n exist (LOOP_CTL_ADD); True if it was created here."""
    if os.path.exists("/sys/class/block/loop%d" % n):
        return False
    return ioctls("/dev/loop-control", [(LOOP_CTL_ADD, n)], (errno.EEXIST,))


def loop_detach(n, timeout=3):
    """Detaches loop@n (LOOP_CLR_FD, no fork) and waits until sysfs shows
    it size 0 with no backing file; False if it still has one after
    @timeout s. Since Linux 6.x LOOP_CLR_FD may only mark the device for
    auto-clear, the teardown happening on the last close: so close, then
    look. ENXIO: it was not attached."""
    ioctls("/dev/loop%d" % n, [(LOOP_CLR_FD, 0)], (errno.ENXIO,))
    return poll(lambda: loop_size(n) == 0 and not loop_attached(n), timeout)


def loop_cycle(n, backing_fd):
    """Attaches and detaches loop@n (3 uevents) with ioctls, no fork. The
    detach completes when the last opener closes, so a device someone
    else holds open (a udevd probing it) stays bound: False then."""
    return ioctls("/dev/loop%d" % n, [(LOOP_SET_FD, backing_fd),
                                      (LOOP_CLR_FD, 0)], (errno.EBUSY,))


def loop_attach(n, backing_fd):
    """Attaches loop@n to the open file @backing_fd (no fork)."""
    ioctls("/dev/loop%d" % n, [(LOOP_SET_FD, backing_fd)])


# CMD of consolewait in the consolewait and hygiene tests (sh -c
# FD_SCRIPT sh FILE): sh writes to FILE its own fds 0-2 and any fd >= 3
# it inherited (a leak: CMD is init's child and must get nothing but
# stdio); read_fds() reads FILE back. $(...) runs in a subshell, so
# /proc/$$ is still the outer sh, whose stdio is untouched.
FD_SCRIPT = r'''
a=$(readlink /proc/$$/fd/0); b=$(readlink /proc/$$/fd/1)
c=$(readlink /proc/$$/fd/2); leak=
for n in 3 4 5 6 7 8 9; do
    [ -e /proc/$$/fd/$n ] && leak="$leak $n:$(readlink /proc/$$/fd/$n)"
done
printf 'fd0=%s\nfd1=%s\nfd2=%s\nleak=%s\n' "$a" "$b" "$c" "$leak" > "$1"
'''


def fd_leaks(fds):
    """The fds CMD inherited beyond stdio, less those the wrapper itself
    left open (WAITDEV_WRAPPER_FDS: valgrind's log), which are said."""
    out = []
    for item in fds["leak"].split():
        n, _, target = item.partition(":")
        if WRAPPER_FDS and target.startswith(WRAPPER_FDS):
            log("  fd %s on %s: the wrapper's own, not ours"
                % (n, target))
        else:
            out.append(item)
    return " ".join(out)


def read_fds(path):
    """FD_SCRIPT's report as a dict (fd0, fd1, fd2, leak), or None when
    it never ran."""
    try:
        with open(path) as f:
            return dict(line.rstrip("\n").split("=", 1) for line in f
                        if "=" in line)
    except FileNotFoundError:
        return None


class StderrWatch:
    """Counts lines holding given strings in a running Proc's stderr,
    reading only what is new each time (pread: the child shares the file
    offset, which must not move)."""

    def __init__(self, proc, needles):
        self.p = proc
        self.off = 0
        self.partial = ""
        self.counts = dict.fromkeys(needles, 0)
        self.first = {}     # needle -> the first line holding it
        self.last = None    # the needle of the last line holding one

    def count(self, needle):
        fd = self.p.stderr_fd
        while True:
            b = os.pread(fd, 1 << 16, self.off)
            if not b:
                return self.counts[needle]
            self.off += len(b)
            lines = (self.partial + b.decode("ascii", "replace")).split("\n")
            self.partial = lines.pop()
            for line in lines:
                for n in self.counts:
                    if n in line:
                        self.counts[n] += 1
                        self.first.setdefault(n, line)
                        self.last = n

    def seen(self, needle):
        return self.count(needle) > 0


class Host:
    def __init__(self, name, argv, loops=LOOP_RANGE, ifprefix=IFPREFIX):
        self.name = name
        self.loop_range = loops
        self.ifprefix = ifprefix
        self.scale = SCALE          # see WAITDEV_TIME_SCALE above
        self.failures = []
        self.procs = []
        self.loops = set()          # loop numbers this test uses
        self.created_loops = set()  # ... of which it created
        self.links = []             # interfaces to delete on exit
        self.images = {}            # image name -> how it was made
        self._features = None       # see features
        self.tmp = None
        if len(argv) != 4:
            raise Fatal("usage: %s WAITDEV ROOTWAIT CONSOLEWAIT" % argv[0])
        self.waitdev, self.rootwait, self.consolewait = (
            os.path.abspath(a) for a in argv[1:4])
        for exe in (self.waitdev, self.rootwait, self.consolewait):
            if not os.access(exe, os.X_OK):
                raise Fatal("%s: not an executable (build first)" % exe)
        if os.geteuid() != 0:
            raise Fatal("the host tests need root (loop devices, veth, "
                        "netlink); run them as root or configure with "
                        "-Dhost_tests=false")
        self.tmp = tempfile.mkdtemp(prefix="waitdev-host-")

    # ---- assertions -------------------------------------------------
    def check(self, cond, what, proc=None):
        if cond:
            return
        msg = what
        if proc is not None:
            msg += "\n" + proc.describe()
        raise Failure(msg)

    @contextlib.contextmanager
    def case(self, title):
        """One sub-case: a failure is recorded and the next case runs."""
        log("=== %s: %s" % (self.name, title))
        try:
            yield
        except Failure as e:
            self.failures.append(title)
            log("FAIL: %s\n%s" % (title, e))
        else:
            log("ok: %s" % title)
        finally:
            for p in self.procs:
                p.kill()
            self.procs = []

    # ---- processes --------------------------------------------------
    def start(self, argv, **kw):
        return Proc(self, argv, **kw)

    def run(self, argv, timeout=10, **kw):
        """Runs @argv to its end; @timeout (scaled) is a liveness limit
        (see liveness()), not a figure the test asserts."""
        p = Proc(self, argv, **kw)
        limit = self.liveness(timeout)
        if p.wait(limit / SCALE) is None:
            p.kill()
            raise Failure("did not exit within %g s\n%s"
                          % (limit, p.describe()))
        return p

    def expect_running(self, p, after=0.5, why=""):
        """Still running @after s from now. Not scaled: @after is set
        against the --timeout the test gave, which is real time."""
        time.sleep(after)
        self.check(p.running(),
                   "expected it to be still waiting after %.1f s%s"
                   % (after, (": " + why) if why else ""), p)

    def wait_subscribed(self, p, timeout=10):
        """Until @p has bound its uevent socket (NETLINK_KOBJECT_UEVENT,
        a multicast group, port id = its pid as for the first netlink
        socket of a process, in /proc/net/netlink): what is sent from
        then on reaches it. A fixed sleep is not enough under valgrind,
        where starting takes over a second."""
        def bound():
            with open("/proc/net/netlink") as f:
                for line in f.readlines()[1:]:
                    col = line.split()
                    if col[1] == "15" and col[2] == str(p.pid) and \
                            int(col[3], 16) != 0:
                        return True
            return not p.running()
        t = time.monotonic()
        if not poll(bound, timeout * SCALE) or not p.running():
            raise Failure("it did not subscribe to uevents within %g s"
                          % (timeout * SCALE) + "\n" + p.describe())
        log("  subscribed after %.3f s" % (time.monotonic() - t))

    @staticmethod
    def liveness(bound):
        """How long to wait for what should take @bound s (scaled) before
        calling it hung: @bound itself when timing is asserted, a
        generous multiple of it when it is only reported."""
        bound *= SCALE
        if TIMING == "assert":
            return bound
        return max(LIVENESS_MIN, LIVENESS_FACTOR * bound)

    def within(self, took, bound, what, proc=None):
        """An upper bound on a duration: @took s, at most @bound s
        (already scaled by the caller where it should be). Asserted when
        WAITDEV_TIMING=assert; a logged figure otherwise."""
        if TIMING == "assert":
            self.check(took <= bound, "%s: took %.3f s, at most %.3f s "
                       "allowed" % (what, took, bound), proc)
        else:
            log("  figure: %s: %.3f s (bound %.3f s, asserted only in "
                "the plain build)%s" % (what, took, bound,
                                        "" if took <= bound else
                                        " -- over it"))

    def expect_stdio_on(self, out, want, p):
        """CMD ran FD_SCRIPT, which wrote @out, with stdin, stdout and
        stderr all on @want; returns its report (read_fds())."""
        fds = read_fds(out)
        self.check(fds is not None, "CMD did not run (no %s)" % out, p)
        self.check(fds["fd0"] == want and fds["fd1"] == want and
                   fds["fd2"] == want, "expected stdin, stdout and stderr "
                   "on %s, got %r" % (want, fds), p)
        return fds

    def expect_exit(self, p, status, within, since=None, why=""):
        """Exit status @status within @within s (scaled) of @since
        (default now). With WAITDEV_TIMING=report the bound is a logged
        figure, and only liveness() stops the wait. Returns the seconds
        from @since to the exit."""
        t = time.monotonic() if since is None else since
        limit = self.liveness(within)
        rc = p.wait(max(0.0, t + limit - time.monotonic()) / SCALE)
        if rc is None:
            raise Failure("expected exit status %d within %.1f s%s; it is "
                          "still running\n%s" % (status, limit,
                                                 (" " + why) if why else "",
                                                 p.describe()))
        took = time.monotonic() - t
        self.check(rc == status, "expected exit status %d%s, got %s"
                   % (status, (" " + why) if why else "",
                      rc if rc >= 0 else "death by signal %d" % -rc), p)
        self.within(took, within * SCALE, "exit status %d%s"
                    % (status, (" " + why) if why else ""), p)
        return took

    def expect_sigterm_ends(self, p):
        """Sends @p SIGTERM: status 143 within 1 s, "interrupted" in its
        log (start it with preexec_fn=default_signals)."""
        log("+ kill -TERM %d" % p.pid)
        t = time.monotonic()
        p.p.send_signal(signal.SIGTERM)
        self.expect_exit(p, 143, 1.0, since=t, why="after SIGTERM")
        self.check("interrupted" in p.stderr,
                   "expected 'interrupted' in the log", p)

    # ---- the build under test ----------------------------------------
    @property
    def features(self):
        """The back ends of the waitdev under test, from --version:
        {'probe': 'libblkid' or 'none', 'modload': ..., 'udev source':
        'yes' or 'no'}."""
        if self._features is None:
            r = subprocess.run(WRAPPER + [self.waitdev, "--version"],
                               capture_output=True, text=True,
                               timeout=10 * SCALE)
            m = re.fullmatch(r"waitdev \S+ \((.*)\)\n", r.stdout)
            if r.returncode != 0 or not m:
                raise Fatal("%s --version: expected 'waitdev VERSION "
                            "(probe: ..., ...)', got status %d, %r"
                            % (self.waitdev, r.returncode, r.stdout))
            feats = {}
            for item in m.group(1).split(", "):
                key, sep, val = item.partition(": ")
                if not sep:
                    raise Fatal("%s --version: cannot parse %r in %r"
                                % (self.waitdev, item, r.stdout))
                feats[key] = val
            if "probe" not in feats:
                raise Fatal("%s --version does not name its probe back "
                            "end: %r" % (self.waitdev, r.stdout))
            self._features = feats
            log("  build: %s" % r.stdout.strip())
        return self._features

    @property
    def blkid(self):
        """True when waitdev probes block devices with libblkid: then a
        root is ready only with a filesystem on it, and UUID=/LABEL= work
        without udev."""
        return self.features["probe"] == "libblkid"

    # ---- loop devices -----------------------------------------------
    # mkfs programs and what provides them (tools/install-deps has them)
    MKFS = {
        "ext4": ("mkfs.ext4", "e2fsprogs"),
        "vfat": ("mkfs.vfat", "dosfstools"),
        "btrfs": ("mkfs.btrfs", "btrfs-progs"),
        "xfs": ("mkfs.xfs", "xfsprogs"),
    }
    # image sizes: 8 MiB, or about the least mkfs accepts (sparse files:
    # mkfs writes little of them)
    MKFS_SIZE = {"ext4": 8 << 20, "vfat": 8 << 20, "btrfs": 128 << 20,
                 "xfs": 16 << 20}

    def have_mkfs(self, fs):
        return shutil.which(self.MKFS[fs][0]) is not None

    def mkfs(self, path, fs, *args, env=None):
        """Runs mkfs.@fs on the file @path (quiet, forced, no discard)."""
        prog, pkg = self.MKFS[fs]
        if not self.have_mkfs(fs):
            raise Fatal("%s is missing: install %s (tools/install-deps)"
                        % (prog, pkg))
        quiet = {"ext4": ["-q", "-F"], "vfat": [], "btrfs": ["-q", "-f", "-K"],
                 "xfs": ["-q", "-f", "-K"]}[fs]
        argv = [prog] + quiet + [str(a) for a in args] + [path]
        log("+ " + shlex.join(argv))
        r = subprocess.run(argv, capture_output=True, text=True,
                           env=None if env is None else dict(os.environ,
                                                             **env))
        return r

    def image(self, name="img", fs="ext4", size=None, mkfs_args=()):
        """A backing file for a loop device, made once per test: @size
        bytes (sparse) carrying a @fs filesystem made with mkfs.@fs and
        @mkfs_args, or only zeros with fs=None.

        A root is ready only with a filesystem on it when waitdev probes
        with libblkid, so every image that should make a device ready
        needs one; fs=None is "a medium without a filesystem"."""
        if size is None:
            size = self.MKFS_SIZE.get(fs, 1 << 20)
        key = (fs, size, tuple(str(a) for a in mkfs_args))
        path = os.path.join(self.tmp, name)
        if name in self.images:
            if self.images[name] != key:
                raise Fatal("image %s: asked for again, differently" % name)
            return path
        with open(path, "wb") as f:
            f.truncate(size)
        if fs is not None:
            env = None
            if fs == "xfs" and size < 300 << 20:
                # mkfs.xfs refuses < 300 MiB except for fstests
                env = {"TEST_DIR": "1", "TEST_DEV": "1",
                       "QA_CHECK_FS": "1"}
            r = self.mkfs(path, fs, *mkfs_args, env=env)
            if r.returncode != 0:
                raise Fatal("mkfs.%s on a %d MiB file failed (status %d): "
                            "%s" % (fs, size >> 20, r.returncode,
                                    (r.stderr or r.stdout).strip()))
        self.images[name] = key
        return path

    def loop(self, n):
        """Makes loop@n exist and be detached (size 0); returns /dev/loopN."""
        self._own_loop(n)
        if not os.path.exists("/dev/loop-control"):
            raise Fatal("/dev/loop-control is missing: the kernel has no "
                        "loop driver (CONFIG_BLK_DEV_LOOP) or /dev is not "
                        "devtmpfs")
        self.loops.add(n)
        try:
            if loop_add(n):
                self.created_loops.add(n)
        except OSError as e:
            raise Fatal("LOOP_CTL_ADD %d: %s" % (n, e))
        node = "/dev/loop%d" % n
        if not poll(lambda: os.path.exists(node), 2):
            # no devtmpfs: make the node ourselves
            maj, mnr = self.devt("loop%d" % n)
            os.mknod(node, 0o600 | 0o060000, os.makedev(maj, mnr))
        self.detach(n)
        return node

    def loop_remove(self, n):
        """Makes loop@n not exist (LOOP_CTL_REMOVE); loop() re-creates it."""
        self._own_loop(n)
        sysdir = "/sys/class/block/loop%d" % n
        if os.path.exists(sysdir):
            self.detach(n)
            fd = os.open("/dev/loop-control", os.O_RDWR | os.O_CLOEXEC)
            try:
                if not poll(lambda: self._ctl_remove(fd, n), 2, 0.1):
                    raise Fatal("loop%d exists and cannot be removed" % n)
            finally:
                os.close(fd)
        if not poll(lambda: not os.path.exists(sysdir), 2):
            raise Fatal("loop%d still exists after LOOP_CTL_REMOVE" % n)
        self.created_loops.discard(n)

    def _own_loop(self, n):
        r = self.loop_range
        if n not in r:
            raise Fatal("loop%d: this test may only use loop%d-%d"
                        % (n, r[0], r[-1]))

    @staticmethod
    def _ctl_remove(fd, n):
        try:
            fcntl.ioctl(fd, LOOP_CTL_REMOVE, n)
            return True
        except OSError:
            return False

    @staticmethod
    def devt(name):
        with open("/sys/class/block/%s/dev" % name) as f:
            maj, mnr = f.read().strip().split(":")
        return int(maj), int(mnr)

    loop_size = staticmethod(loop_size)
    loop_attached = staticmethod(loop_attached)

    def attach(self, n, img, partscan=False):
        """losetup of @img to loop@n (-P with @partscan: its partitions
        loop@np1... made by the kernel too)."""
        args = ["losetup"] + (["-P"] if partscan else []) + \
            ["/dev/loop%d" % n, img]
        log("+ " + shlex.join(args))
        t = time.monotonic()
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            raise Fatal("losetup /dev/loop%d %s: %s" % (n, img,
                                                        r.stderr.strip()))
        if not poll(lambda: self.loop_size(n) > 0, 2):
            raise Fatal("loop%d: still size 0 after losetup" % n)
        return t

    def detach(self, n):
        if self.loop_attached(n) or self.loop_size(n) > 0:
            log("+ detach /dev/loop%d (LOOP_CLR_FD)" % n)
        if not loop_detach(n, 3):
            raise Fatal("loop%d: cannot detach it (still size %d)"
                        % (n, self.loop_size(n)))

    # ---- network interfaces -----------------------------------------
    @staticmethod
    def link_exists(name):
        return os.path.exists("/sys/class/net/" + name)

    def ip(self, *args, fatal=True):
        log("+ ip " + shlex.join(args))
        r = subprocess.run(["ip"] + list(args), capture_output=True,
                           text=True)
        if r.returncode != 0 and fatal:
            raise Fatal("ip %s: %s" % (shlex.join(args), r.stderr.strip()))
        return r

    def veth(self, a, b, address=None):
        for name in (a, b):
            if not name.startswith(self.ifprefix) or len(name) > 15:
                raise Fatal("%s: test interfaces must be named %s*"
                            % (name, self.ifprefix))
        for name in (a, b):   # leftovers of an interrupted run
            if self.link_exists(name):
                self.ip("link", "del", name, fatal=False)
        self.links.append(a)
        args = ["link", "add", a]
        if address:
            args += ["address", address]
        args += ["type", "veth", "peer", "name", b]
        r = self.ip(*args, fatal=False)
        if r.returncode != 0:
            raise Fatal("cannot create a veth pair (%s): %s -- is veth "
                        "available (CONFIG_VETH)?" % (shlex.join(args),
                                                      r.stderr.strip()))
        return time.monotonic()

    def require_veth(self):
        self.veth(self.ifprefix + "9p", self.ifprefix + "9q")
        self.ip("link", "del", self.ifprefix + "9p")

    # ---- cleanup ----------------------------------------------------
    def cleanup(self):
        for p in self.procs:
            with contextlib.suppress(Exception):
                p.kill()
        for name in self.links:
            if self.link_exists(name):
                subprocess.run(["ip", "link", "del", name],
                               capture_output=True)
        for n in sorted(self.loops):
            with contextlib.suppress(Exception):
                if self.loop_attached(n) or self.loop_size(n):
                    loop_detach(n, 0)
        for n in sorted(self.created_loops):
            with contextlib.suppress(Exception):
                poll(lambda: not self.loop_attached(n), 2)
                fd = os.open("/dev/loop-control", os.O_RDWR | os.O_CLOEXEC)
                try:
                    fcntl.ioctl(fd, LOOP_CTL_REMOVE, n)
                except OSError:
                    pass
                finally:
                    os.close(fd)
        if self.tmp:
            with contextlib.suppress(Exception):
                for f in os.listdir(self.tmp):
                    os.unlink(os.path.join(self.tmp, f))
                os.rmdir(self.tmp)


def _on_signal(signo, frame):
    raise SystemExit("interrupted by signal %d" % signo)


# Host tests of two runs at once (two build directories, CI beside a
# developer) would share loop devices, interface names and the uevent
# stream, and fail each other: they take turns on this lock instead.
LOCK = "/run/lock/waitdev-host-tests"


def take_turn(name):
    """Holds LOCK until the process exits; says so when it must wait."""
    os.makedirs(os.path.dirname(LOCK), exist_ok=True)
    fd = os.open(LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        log("%s: another run's host test holds %s: waiting for it"
            % (name, LOCK))
        fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def main(name, body, **host_kw):
    """Runs body(host); exit 0 only when every sub-case passed. @host_kw
    go to Host (loops=, ifprefix=)."""
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, _on_signal)
    h = None
    status = 1
    take_turn(name)
    try:
        h = Host(name, sys.argv, **host_kw)
        body(h)
        if h.failures:
            log("%s: %d sub-case(s) FAILED: %s"
                % (name, len(h.failures), "; ".join(h.failures)))
        else:
            log("%s: all sub-cases passed" % name)
            status = 0
    except Fatal as e:
        log("FATAL (not skipped -- this is a test failure): %s: %s"
            % (name, e))
    except Failure as e:
        log("FAIL: %s: %s" % (name, e))
    except SystemExit as e:
        log("%s: %s" % (name, e))
    except BaseException:
        traceback.print_exc()
    finally:
        if h is not None:
            h.cleanup()
    sys.exit(status)


# ---- small parsers shared by the tests --------------------------------
def shell_vars(text):
    """WAITDEV_X='...' lines of --format shell output, unquoted."""
    out = {}
    for line in text.splitlines():
        m = re.fullmatch(r"(WAITDEV_[A-Z]+)=(.*)", line)
        if m:
            words = shlex.split(m.group(2))
            out[m.group(1)] = words[0] if len(words) == 1 else ""
    return out


def blkid_p(img):
    """(status, {KEY: value}) of blkid -p -o export IMG (low-level probe,
    no cache): status 0 found, 2 nothing, 8 ambivalent."""
    r = subprocess.run(["blkid", "-p", "-o", "export", img],
                       capture_output=True, text=True)
    vals = {}
    for line in r.stdout.splitlines():     # KEY=value, shell-escaped
        key, sep, val = line.partition("=")
        if sep:
            vals[key] = "".join(shlex.split(val))
    log("  blkid -p %s: status %d %s" % (os.path.basename(img),
                                         r.returncode, vals))
    return r.returncode, vals


_MD_MAGIC = 0xa92b4efc


def md_member(img, version, size=None):
    """Writes an md superblock of @version ("0.90" or "1.0": both at the
    end of the device) onto @img, as mdadm --create would, for a one-disk
    RAID1 whose data (an ext4 made on @img before) starts at sector 0.
    The layouts are the kernel's (include/uapi/linux/raid/md_p.h); blkid
    -p must then call the image linux_raid_member. @size: the size of
    the device the superblock is for (default: @img's), so that a device
    of @img shrunk to @size is the member and @img whole is not."""
    if size is None:
        size = os.path.getsize(img)
    if version == "0.90":
        off = (size & ~(65536 - 1)) - 65536       # MD_NEW_SIZE_SECTORS
        u = uuid.uuid4().bytes
        sb = bytearray(4096)
        # md_magic, major, minor, patch, gvalid_words, set_uuid0, ctime,
        # level, size, nr_disks, raid_disks
        struct.pack_into("<6I", sb, 0, _MD_MAGIC, 0, 90, 0, 0,
                         struct.unpack("<I", u[:4])[0])
        struct.pack_into("<5I", sb, 24, 0, 1, 0, 1, 1)
        struct.pack_into("<3I", sb, 52, *struct.unpack("<3I", u[4:]))
    else:
        sectors = size >> 9
        sb_off = (sectors - 8 * 2) & ~(4 * 2 - 1)  # 1.0: 8 KiB from the end
        off = sb_off * 512
        sb = bytearray(256 + 2)                    # one dev_roles entry
        struct.pack_into("<4I", sb, 0, _MD_MAGIC, 1, 0, 0)
        sb[16:32] = uuid.uuid4().bytes             # set_uuid
        sb[32:64] = b"wdt:0".ljust(32, b"\0")      # set_name
        struct.pack_into("<i", sb, 72, 1)          # level
        struct.pack_into("<Q", sb, 80, sb_off)     # size
        struct.pack_into("<I", sb, 92, 1)          # raid_disks
        struct.pack_into("<Q", sb, 136, sb_off)    # data_size
        struct.pack_into("<Q", sb, 144, sb_off)    # super_offset
        sb[168:184] = uuid.uuid4().bytes           # device_uuid
        struct.pack_into("<I", sb, 220, 1)         # max_dev
        csum = sum(struct.unpack_from("<%dI" % (len(sb) // 4), sb))
        csum += struct.unpack_from("<H", sb, len(sb) - 2)[0]
        csum = (csum & 0xffffffff) + (csum >> 32)  # calc_sb_1_csum()
        struct.pack_into("<I", sb, 216, csum & 0xffffffff)
    with open(img, "r+b") as f:
        f.seek(off)
        f.write(sb)


def graft_ext_superblock(donor, img):
    """Copies the ext2/3/4 superblock of image @donor (1 KiB at 1 KiB)
    into image @img: on a vfat image with its FAT past 4 KiB, two intact
    signatures, which libblkid calls ambivalent."""
    with open(donor, "rb") as f:
        f.seek(1024)
        sb = f.read(1024)
    with open(img, "r+b") as f:
        f.seek(1024)
        f.write(sb)


def parse_json(text):
    try:
        return json.loads(text)
    except ValueError as e:
        raise Failure("not JSON (%s): %r" % (e, text))


def counters(stderr):
    """The -v statistics line: {'received': N, 'forged': N, ...,
    'overflows': N, 'rescans': N}."""
    m = re.search(r"uevents: (\d+) received, (\d+) accepted, (\d+) forged, "
                  r"(\d+) malformed, (\d+) overflows; (\d+) rescans", stderr)
    if not m:
        return None
    return dict(zip(("received", "accepted", "forged", "malformed",
                     "overflows", "rescans"), map(int, m.groups())))


def default_signals():
    """preexec_fn: SIGINT and SIGTERM at their defaults, not as meson or
    nohup may have left them."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


_SEQNUM = [90000]


def uevent_datagram(subsystem, name, *fields, devpath=None):
    """An "add" uevent as the kernel multicasts it, for --uevent-fd:
    bytes; DEVPATH /devices/virtual/SUBSYSTEM/NAME unless @devpath."""
    if devpath is None:
        devpath = b"/devices/virtual/%s/%s" % (subsystem, name)
    _SEQNUM[0] += 1
    parts = [b"add@" + devpath, b"ACTION=add", b"DEVPATH=" + devpath,
             b"SUBSYSTEM=" + subsystem] + list(fields)
    return b"\0".join(parts + [b"SEQNUM=%d" % _SEQNUM[0]]) + b"\0"


class StalledFile:
    """The file @backing (.backing) served by test/host/fuse_stall.c
    ($WAITDEV_FUSE_STALL) at .path, under @tmp: reads of it hang while
    stall() is in effect (the reader sleeps in D state, and no signal
    but the answer gets it out), and fail with EIO while fail() is;
    release() makes them answer again. Its size follows the backing
    file's. close() unmounts it."""

    def __init__(self, backing, tmp):
        helper = os.environ.get("WAITDEV_FUSE_STALL", "")
        if not helper or not os.access(helper, os.X_OK):
            raise Fatal(
                "fuse-stall helper missing ($WAITDEV_FUSE_STALL=%r): the "
                "build needs libfuse3 (tools/install-deps: libfuse3-dev "
                "fuse3)" % helper)
        if not os.path.exists("/dev/fuse"):
            raise Fatal("/dev/fuse is missing (CONFIG_FUSE_FS)")
        self.backing = backing
        self.mnt = os.path.join(tmp, "mnt")
        self.flag = os.path.join(tmp, "stall-flag")
        self.path = os.path.join(self.mnt, "disk")
        os.mkdir(self.mnt)
        log("+ %s %s %s %s &" % (helper, backing, self.flag, self.mnt))
        self.fuse = subprocess.Popen([helper, backing, self.flag, self.mnt],
                                     stdin=subprocess.DEVNULL)
        if not poll(lambda: os.path.exists(self.path), 5):
            raise Fatal("fuse-stall: %s did not appear" % self.path)

    def stall(self):
        open(self.flag, "w").close()

    def fail(self):
        open(self.flag + ".eio", "w").close()

    def stalled(self):
        return os.path.exists(self.flag)

    def release(self):
        for flag in (self.flag, self.flag + ".eio"):
            if os.path.exists(flag):
                os.unlink(flag)

    def close(self):
        self.release()
        subprocess.run(["umount", self.mnt], capture_output=True)
        try:
            self.fuse.wait(5)
        except subprocess.TimeoutExpired:
            self.fuse.kill()
            self.fuse.wait()
        os.rmdir(self.mnt)
