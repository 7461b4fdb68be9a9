# SPDX-License-Identifier: LGPL-2.1-or-later
"""
A systemd-udevd of a test's or a benchmark's own (package "udev"), for the
host tests of the udev source and bench/latency.py's udevadm wait: started
in its own session, refused if another udevd runs (never touched), and
stopped by its pid with its workers, its control socket, rules and
/dev/disk links removed again.
"""
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time

from waitdevtest import log
from waitdevtest.host import Failure, Fatal

UDEVD_PATHS = ("/lib/systemd/systemd-udevd", "/usr/lib/systemd/systemd-udevd")
RUN_UDEV = "/run/udev"
CONTROL = "/run/udev/control"
RULES_DIR = "/run/udev/rules.d"
RULES_FILE = os.path.join(RULES_DIR, "99-waitdev-test.rules")
DEV_DISK = "/dev/disk"


def udevd_pids():
    """Processes that are a udevd (its workers included), by comm."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        with contextlib.suppress(OSError):
            with open("/proc/%s/comm" % d) as f:
                comm = f.read().strip()
            if comm in ("systemd-udevd", "udevd", "(udev-worker)"):
                pids.append(int(d))
    return pids


def control_listening():
    """True when something accepts connections on /run/udev/control."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        s.settimeout(1)
        s.connect(CONTROL)
        return True
    except OSError:
        return False
    finally:
        s.close()


class Udevd:
    """A systemd-udevd of the caller's own, in its own session, logging
    to @tmp/udevd.log (with @debug, everything it does); @rules: a rules
    file's text, installed in /run/udev/rules.d while it runs; @node: the
    device whose /dev/disk links stop() removes when /dev/disk was there
    before (else it removes /dev/disk)."""

    def __init__(self, tmp, rules=None, node=None, debug=True):
        self.rules = rules
        self.node = node
        self.debug = debug
        self.p = None
        self.logf = None
        self.log_path = os.path.join(tmp, "udevd.log")
        self.owned = False          # /run/udev/control etc. are ours
        self.made_run_udev = False
        self.made_dev_disk = False

    def log_excerpt(self, lines=40, grep=None):
        try:
            with open(self.log_path, errors="replace") as f:
                text = f.read().splitlines()
        except OSError as e:
            return "  (no udevd log: %s)" % e
        # a forged uevent (another test, another program) is noise here
        text = [ln for ln in text if "message from PID" not in ln]
        if grep:
            text = [ln for ln in text if any(g in ln for g in grep)]
        if len(text) > lines:
            text = ["  ... %d lines left off ..." % (len(text) - lines)] + \
                text[-lines:]
        return "\n".join("  | " + ln for ln in text) or "  (udevd log empty)"

    def start(self):
        exe = next((p for p in UDEVD_PATHS if os.access(p, os.X_OK)), None)
        if exe is None:
            raise Fatal("no systemd-udevd (%s): install the package 'udev' "
                        "(tools/install-deps does)" % " or ".join(UDEVD_PATHS))
        if not shutil.which("udevadm"):
            raise Fatal("no udevadm: install the package 'udev'")
        pids = udevd_pids()
        if pids or control_listening():
            raise Fatal("a udevd is already running here (pids %s, %s "
                        "%s): a test or benchmark starts its own udevd "
                        "and never touches another one; stop it, or run "
                        "them where no udevd runs"
                        % (pids or "none visible", CONTROL,
                           "accepting connections" if control_listening()
                           else "absent or stale"))
        if os.path.lexists(CONTROL):
            # no udevd listens on it: a leftover (of a killed run?)
            log("  removing a stale %s (no udevd listens on it)" % CONTROL)
            os.unlink(CONTROL)
        self.owned = True
        self.made_run_udev = not os.path.exists(RUN_UDEV)
        self.made_dev_disk = not os.path.exists(DEV_DISK)
        if self.rules:
            os.makedirs(RULES_DIR, exist_ok=True)
            with open(RULES_FILE, "w") as f:
                f.write(self.rules)
        argv = [exe] + (["--debug"] if self.debug else [])
        log("+ %s > %s 2>&1 &" % (" ".join(argv), self.log_path))
        self.logf = open(self.log_path, "wb")
        self.p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                  stdout=self.logf, stderr=subprocess.STDOUT,
                                  start_new_session=True)
        t = time.monotonic()
        # it binds /run/udev/control once it listens to the kernel
        while not os.path.exists(CONTROL):
            if self.p.poll() is not None:
                raise Fatal("systemd-udevd cannot run here: it exited at "
                            "once with status %d; its log:\n%s"
                            % (self.p.returncode, self.log_excerpt()))
            if time.monotonic() - t > 5:
                raise Fatal("systemd-udevd did not create %s within 5 s; "
                            "its log:\n%s" % (CONTROL, self.log_excerpt()))
            time.sleep(0.02)
        # ... and answers a ping once its rules are loaded
        r = subprocess.run(["udevadm", "control", "--ping", "--timeout=5"],
                           capture_output=True, text=True)
        if r.returncode != 0 or self.p.poll() is not None:
            raise Fatal("systemd-udevd is not answering (udevadm control "
                        "--ping: status %d %s; udevd %s); its log:\n%s"
                        % (r.returncode, r.stderr.strip(),
                           "running" if self.p.poll() is None else
                           "exited with status %d" % self.p.returncode,
                           self.log_excerpt()))
        log("  systemd-udevd (pid %d) ready after %.3f s"
            % (self.p.pid, time.monotonic() - t))

    def check_alive(self):
        if self.p.poll() is not None:
            raise Failure("systemd-udevd died (status %d); its log:\n%s"
                          % (self.p.returncode, self.log_excerpt()))

    def stop(self):
        if not self.owned:
            return      # another udevd's: not ours to touch
        if self.p is not None:
            if self.p.poll() is None:
                log("+ kill -TERM %d  # systemd-udevd" % self.p.pid)
                self.p.terminate()
                try:
                    self.p.wait(3)
                except subprocess.TimeoutExpired:
                    log("+ kill -KILL -%d  # systemd-udevd" % self.p.pid)
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(self.p.pid, signal.SIGKILL)
                    self.p.wait()
            # workers left in its process group (its pid is not reused
            # while the group has members)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.p.pid, signal.SIGKILL)
            self.p = None
        if self.logf:
            self.logf.close()
            self.logf = None
        # it leaves its socket behind; the others must see no udevd
        with contextlib.suppress(FileNotFoundError):
            os.unlink(CONTROL)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(RULES_FILE)
        if self.made_run_udev:
            shutil.rmtree(RUN_UDEV, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.rmdir(RULES_DIR)
        # /dev/disk: if the test's udevd made it, only its links are in
        # there: remove them and the dirs; else only those to our node
        # (by-diskseq/N stays after a detach)
        for top, dirs, files in os.walk(DEV_DISK, topdown=False):
            for f in files + dirs:
                path = os.path.join(top, f)
                with contextlib.suppress(OSError):
                    if os.path.islink(path) and (
                            self.made_dev_disk or
                            os.path.realpath(path) == self.node):
                        os.unlink(path)
                    elif os.path.isdir(path) and self.made_dev_disk:
                        os.rmdir(path)
        if self.made_dev_disk:
            with contextlib.suppress(OSError):
                os.rmdir(DEV_DISK)
        self.owned = False
