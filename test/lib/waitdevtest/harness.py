#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
Boot a real kernel in QEMU with devices that arrive late, and watch
waitdev catch them.

The pieces, in the order a boot needs them:
  kernel     Debian's linux-image-*-amd64, fetched with apt-get download
             and unpacked once into a cache (or --kernel/--modules);
  initramfs  busybox-static, the static waitdev binary (also rootwait,
             consolewait and modprobe by name), only the modules the
             scenarios need plus their dependencies (depmod on the tree),
             and an /init that runs waitdev --modprobe --coldplug, mounts
             the root it reports and switch_roots into it;
  root disk  a GPT disk whose one partition is a small ext4 filesystem
             with a fixed UUID, PARTUUID and labels; its /sbin/init says
             ROOT-INIT-OK and powers off;
  qemu       qemu-system-x86_64 (KVM only when a probe boot shows it
             works, TCG otherwise), the serial console captured, QMP to
             hot-plug devices at chosen moments after /init started.

Standard library only. Used by test/qemu/scenarios.py (the meson tests),
the top-level ./demo, test/distro, test/kernel, bench/qemu-bench.py and
fuzz/record-qemu-seeds.py.
"""
import argparse
import functools
import glob
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time

import waitdevtest
from waitdevtest import TOP

CACHE = os.environ.get("WAITDEV_QEMU_CACHE", "/var/cache/waitdev-qemu")
ROOT_UUID = "5e1f7a0e-8d2c-4b8e-9c51-0a7e3b1d2c44"
ROOT_PARTUUID = "6a3b9f2e-1c4d-4e8f-a7b6-2d9c0e1f3a55"
ROOT_LABEL = "waitdevroot"
ROOT_PARTLABEL = "waitdev-root"
SECOND_PARTUUID = "7b4c0a3f-2d5e-4f90-b8c7-3e0d1f2a4b66"
MBR_ID = "1234abcd"
# what tools/build-static makes: the waitdev the boots take by default
STATIC_WAITDEV = os.path.join(TOP, "build-static", "bin", "waitdev")
# the root disk (setup()'s "disk") and the xhci controller a stick plugs
# into: arguments of Boot(qemu_args=...), "%(disk)s" from setup()'s dict
DRIVE = ["-drive", "if=none,id=rootdisk,format=raw,file=%(disk)s"]
XHCI = ["-device", "qemu-xhci,id=xhci"]
# how long after the kernel logged a device waitdev may log it found:
# the benchmark measures about 20 ms from the uevent under TCG
# (bench/README.md); a polling wait would take up to its period
PROMPT = 0.5

# What the scenarios use; dependencies come from modules.dep.
MODULES = [
    "xhci-pci", "ehci-pci", "usb-storage", "uas", "sd_mod",
    "usbserial", "ftdi_sio", "cdc-acm",
    "virtio_pci", "virtio_blk", "virtio_net", "virtio_console",
    "usbnet", "cdc_ether", "rndis_host",
    "ext4", "crc32c_generic", "crc32c-intel", "libcrc32c",
    "dm-mod", "md-mod", "raid1",
]


class HarnessError(Exception):
    pass


log = functools.partial(waitdevtest.log, tag="harness")


def run(argv, **kw):
    kw.setdefault("check", True)
    return subprocess.run(argv, **kw)


# ---------------------------------------------------------------- kernel

def newest_kernel_package():
    """The newest linux-image-6.1.0-N-amd64 apt knows, after one
    apt-get update if it knows none."""
    for attempt in range(2):
        out = run(["apt-cache", "search", "--names-only",
                   r"^linux-image-6\.1\.0-[0-9]+-amd64$"],
                  capture_output=True, text=True).stdout
        names = [l.split()[0] for l in out.splitlines() if l.strip()]
        if names:
            return max(names, key=lambda n: int(n.split("-")[3]))
        if attempt == 0:
            run(["apt-get", "update", "-qq"])
    raise HarnessError("apt knows no linux-image-6.1.0-*-amd64 package "
                       "(not Debian bookworm?); give --kernel and "
                       "--modules instead")


def given_kernel(kernel, modules):
    """(vmlinuz, tree, KVER) for a kernel of the user's own: the version
    is the one vmlinuz-KVER names, else the only one the tree has; the
    tree gets modules.dep from depmod if it has none."""
    if not modules:
        raise HarnessError("--kernel needs --modules (a tree with "
                           "lib/modules/VERSION)")
    if not os.path.isfile(kernel):
        raise HarnessError("--kernel %s: no such file" % kernel)
    try:
        versions = sorted(os.listdir(os.path.join(modules, "lib/modules")))
    except OSError as e:
        raise HarnessError("--modules %s: no lib/modules in it (%s)"
                           % (modules, e.strerror))
    name = os.path.basename(kernel)
    named = name[len("vmlinuz-"):] if name.startswith("vmlinuz-") else None
    if named in versions:
        kver = named
    elif len(versions) == 1:
        kver = versions[0]
    else:
        raise HarnessError("--modules %s has %d kernel versions (%s); name "
                           "the kernel vmlinuz-VERSION to choose one"
                           % (modules, len(versions), " ".join(versions)))
    if not os.path.exists(os.path.join(modules, "lib/modules", kver,
                                       "modules.dep")):
        run(["depmod", "-b", modules, kver])
    return kernel, modules, kver


def obtain_kernel(kernel=None, modules=None):
    """Returns (vmlinuz, modules tree root with lib/modules/KVER, KVER)."""
    if kernel:
        return given_kernel(kernel, modules)
    pkg = newest_kernel_package()
    kver = pkg[len("linux-image-"):]
    tree = os.path.join(CACHE, pkg)
    vmlinuz = os.path.join(tree, "boot", "vmlinuz-" + kver)
    stamp = os.path.join(tree, ".unpacked")
    if not os.path.exists(stamp):
        os.makedirs(CACHE, exist_ok=True)
        log("fetching %s (cached in %s)" % (pkg, CACHE))
        run(["apt-get", "download", "-q", pkg], cwd=CACHE,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deb = sorted(glob.glob(os.path.join(CACHE, pkg + "_*.deb")))[-1]
        shutil.rmtree(tree, ignore_errors=True)
        run(["dpkg-deb", "-x", deb, tree])
        run(["depmod", "-b", tree, kver])
        with open(os.path.join(tree, "VERSION"), "w") as f:
            f.write("%s %s\n" % (pkg, os.path.basename(deb)))
        open(stamp, "w").close()
    return vmlinuz, tree, kver


def kernel_version(vmlinuz, tree, kver):
    """What to log about the kernel a run boots: the Debian package and
    its .deb (recorded when it was fetched), else the path given."""
    try:
        with open(os.path.join(tree, "VERSION")) as f:
            return f.read().strip()
    except OSError:
        return "%s %s (given)" % (kver, vmlinuz)


def module_closure(tree, kver, names):
    """Paths (relative to lib/modules/KVER) of @names and what they need
    by modules.dep (softdeps are not followed: MODULES names crc32c,
    which ext4 wants, itself)."""
    base = os.path.join(tree, "lib/modules", kver)
    deps, by_name = {}, {}
    with open(os.path.join(base, "modules.dep")) as f:
        for line in f:
            path, _, rest = line.partition(":")
            deps[path] = rest.split()
            by_name[os.path.basename(path)[:-3].replace("-", "_")] = path
    want, todo = set(), [n.replace("-", "_") for n in names]
    while todo:
        name = todo.pop()
        path = by_name.get(name)
        if path is None or path in want:
            continue    # built in, or done
        want.add(path)
        todo.extend(os.path.basename(d)[:-3].replace("-", "_")
                    for d in deps[path])
    return sorted(want)


# -------------------------------------------------------------- initramfs

# How every /init here starts (this harness's INIT below, test/kernel's):
# busybox's applets as commands, /proc, /sys and /dev mounted. What
# follows it is the boot's own.
INIT_START = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
"""

INIT = INIT_START + r"""# the kernel asks this for modules (the root's filesystem, its
# checksum)
echo /sbin/modprobe > /proc/sys/kernel/modprobe
fstype=ext4
testscript=
bench=
netup=
dmlinear=
verbose=
for arg in $(cat /proc/cmdline); do
	case $arg in
	rootfstype=*) fstype=${arg#rootfstype=} ;;
	bench=*) bench=${arg#bench=} ;;
	netup=1) netup=1 ;;
	dmlinear=*) dmlinear=${arg#dmlinear=} ;;
	initverbose=1) verbose=--verbose ;;
	testscript=*) testscript=${arg#testscript=} ;;
	esac
done
# netup=1: what a network initramfs does, bring the first interface up
# as soon as it exists, so that waitdev.net=any:up can be satisfied
if [ -n "$netup" ]; then
	(
		ifc=$(/sbin/waitdev --cmdline '' --net any --timeout 60 \
			--format plain --no-kmsg 2>/dev/null) &&
			ip link set "${ifc#net }" up
	) &
fi
# dmlinear=DEV:NAME: what lvm or cryptsetup in an initramfs do, make a
# device-mapper device NAME on top of DEV once DEV exists
if [ -n "$dmlinear" ]; then
	(
		dev=${dmlinear%%:*}
		/sbin/waitdev --cmdline '' --root "$dev" --timeout 60 \
			--no-kmsg >/dev/null 2>&1 || exit
		modprobe dm-mod
		DM_DISABLE_UDEV=1 dmsetup create "${dmlinear#*:}" --table \
			"0 $(blockdev --getsz "$dev") linear $dev 0" &&
			echo "WAITDEV-DM-CREATED $(cut -d' ' -f1 /proc/uptime)"
	) &
fi
echo "WAITDEV-INIT-START $(cut -d' ' -f1 /proc/uptime)"
# testscript=NAME: a scenario's own steps (/scripts/NAME, given to
# setup() as an extra file) instead of the wait below
if [ -n "$testscript" ]; then
	exec /scripts/"$testscript"
fi
# bench/qemu-bench.py: its own init, in an initramfs built with it
if [ -n "$bench" ] && [ -x /bench/init ]; then
	export fstype
	exec /bench/init "$bench"
fi
# initverbose=1 (the demo): also the modules it loads, and why
out=$(/sbin/waitdev --modprobe --coldplug --format shell --kmsg $verbose)
rc=$?
echo "WAITDEV-RC $rc $(cut -d' ' -f1 /proc/uptime)"
echo "$out" | sed 's/^/WAITDEV-OUT /'
eval "$out"
if [ -n "$WAITDEV_CONSOLE" ]; then
	/sbin/consolewait --timeout 0 "$WAITDEV_CONSOLE" -- \
		sh -c 'echo "WAITDEV-CONSOLE-HELLO on $(readlink /proc/$$/fd/1)"'
fi
for ifc in $WAITDEV_NET; do
	ip link set "$ifc" up
	/sbin/waitdev --net "$ifc:carrier" --timeout 5 --format shell
done
exec /sbin/switch-to-root "$WAITDEV_ROOT" "$fstype"
"""

# /sbin/switch-to-root: how INIT ends, and the benchmark's rootdelay mode
# (bench/qemu-init.sh)
SWITCH_TO_ROOT = r"""#!/bin/busybox sh
# switch-to-root DEV FSTYPE: mounts DEV read-only on /root and runs its
# /sbin/init; without DEV, or when the mount fails, says so and powers
# off where a rescue shell would start. Exec it: switch_root must run as
# PID 1.
if [ -n "$1" ]; then
	mkdir -p /root
	if mount -t "$2" -o ro "$1" /root; then
		echo "WAITDEV-SWITCH-ROOT $(cut -d' ' -f1 /proc/uptime)"
		exec switch_root /root /sbin/init
	fi
	echo "WAITDEV-MOUNT-FAILED"
fi
echo "WAITDEV-RESCUE: no root device; this is where a rescue shell starts"
poweroff -f
"""

ROOT_INIT = r"""#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
echo "ROOT-INIT-OK $(/bin/busybox cut -d' ' -f1 /proc/uptime)"
/bin/busybox poweroff -f
"""


def find_busybox():
    for p in ("/bin/busybox", "/usr/bin/busybox"):
        if os.path.exists(p) and b"statically linked" in run(
                ["file", "-L", p], capture_output=True).stdout:
            return p
    raise HarnessError("busybox-static is not installed "
                       "(apt-get install busybox-static)")


DMSETUP = "/sbin/dmsetup"
MDADM = "/sbin/mdadm"


def copy_dynamic(path, root, dest, package):
    """Copies the dynamically linked @path (of Debian's @package) to
    @root/@dest, and the shared libraries ldd lists to the same paths
    under @root (dmsetup, for the device-mapper root: what lvm does in a
    real initramfs; mdadm, for test/qemu's md member)."""
    if not os.path.exists(path):
        raise HarnessError("%s is missing (apt-get install %s)"
                           % (path, package))
    shutil.copy2(path, os.path.join(root, dest))
    out = run(["ldd", path], capture_output=True, text=True).stdout
    for lib in re.findall(r"(/\S+) \(0x", out):
        target = os.path.join(root, lib.lstrip("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(os.path.realpath(lib), target)


def check_static(path):
    out = run(["file", "-L", path], capture_output=True, text=True).stdout
    if "statically linked" not in out and "static-pie" not in out:
        raise HarnessError("%s is not a static binary (%s); build it with "
                           "tools/build-static" % (path, out.strip()))


def initramfs_tree(root, init, waitdev=None,
                   names=("rootwait", "consolewait", "modprobe")):
    """Starts the initramfs tree @root of every boot here: busybox-static,
    @init as /init (INIT_START and what the boot does), and, when given,
    the static @waitdev, stripped (the initramfs carries code, not debug
    info), in /sbin also by @names (links)."""
    shutil.rmtree(root, ignore_errors=True)
    for d in ("bin", "sbin", "proc", "sys", "dev", "root", "etc"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    shutil.copy2(find_busybox(), os.path.join(root, "bin/busybox"))
    if waitdev:
        check_static(waitdev)
        run(["strip", "-o", os.path.join(root, "sbin/waitdev"), waitdev])
        for name in names:
            os.symlink("waitdev", os.path.join(root, "sbin", name))
    with open(os.path.join(root, "init"), "w") as f:
        f.write(init)
    os.chmod(os.path.join(root, "init"), 0o755)


def pack_initramfs(root, image):
    """The tree @root as the gzip'd newc cpio archive @image."""
    files = run(["find", "."], cwd=root, capture_output=True).stdout
    cpio = run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root,
               input=files, capture_output=True).stdout
    with open(image, "wb") as f:
        run(["gzip", "-1"], input=cpio, stdout=f)
    return image


def build_initramfs(work, waitdev, tree, kver, extra=None):
    """The initramfs of the waitdev boots: INIT, the static @waitdev,
    dmsetup, the MODULES of the kernel @tree/lib/modules/@kver with what
    they depend on. extra: {path in the initramfs: file to copy there}
    (the benchmark's /bench/init and helpers; INIT runs /bench/init when
    the command line says bench=MODE)."""
    root = os.path.join(work, "initramfs")
    initramfs_tree(root, INIT, waitdev)
    switch = os.path.join(root, "sbin", "switch-to-root")
    with open(switch, "w") as f:
        f.write(SWITCH_TO_ROOT)
    os.chmod(switch, 0o755)
    copy_dynamic(DMSETUP, root, "sbin/dmsetup", "dmsetup")
    copy_dynamic(MDADM, root, "sbin/mdadm", "mdadm")
    for dest, src in sorted((extra or {}).items()):
        path = os.path.join(root, dest.lstrip("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        shutil.copy2(src, path)

    src = os.path.join(tree, "lib/modules", kver)
    dst = os.path.join(root, "lib/modules", kver)
    mods = module_closure(tree, kver, MODULES)
    for rel in mods:
        os.makedirs(os.path.dirname(os.path.join(dst, rel)), exist_ok=True)
        shutil.copy2(os.path.join(src, rel), os.path.join(dst, rel))
    for f in ("modules.order", "modules.builtin", "modules.builtin.modinfo"):
        if os.path.exists(os.path.join(src, f)):  # a tree of one's own
            shutil.copy2(os.path.join(src, f), os.path.join(dst, f))
    run(["depmod", "-b", root, kver])

    image = pack_initramfs(root, os.path.join(work, "initramfs.cpio.gz"))
    log("initramfs: %d modules, %d KiB" % (len(mods),
                                           os.path.getsize(image) // 1024))
    return image


def build_root_disk(work):
    """Two disks with the same ext4 root (UUID, LABEL; its /sbin/init
    reports and powers off): GPT, where partition 1 (PARTUUID,
    PARTLABEL) holds the root and a small partition 2 follows it (for
    PARTNROFF), and MBR (disk signature MBR_ID, so the root's PARTUUID
    is MBR_ID-01). Returns (gpt, mbr) paths."""
    tree = os.path.join(work, "rootfs")
    shutil.rmtree(tree, ignore_errors=True)
    # sys and run: dracut's and initramfs-tools' inits move their
    # mounts there before switch_root (test/distro)
    for d in ("bin", "sbin", "proc", "dev", "sys", "run"):
        os.makedirs(os.path.join(tree, d), exist_ok=True)
    shutil.copy2(find_busybox(), os.path.join(tree, "bin/busybox"))
    with open(os.path.join(tree, "sbin/init"), "w") as f:
        f.write(ROOT_INIT)
    os.chmod(os.path.join(tree, "sbin/init"), 0o755)
    part = os.path.join(work, "part.img")
    gpt = os.path.join(work, "disk.img")
    mbr = os.path.join(work, "disk-mbr.img")
    run(["mkfs.ext4", "-q", "-F", "-U", ROOT_UUID, "-L", ROOT_LABEL,
         "-d", tree, part, "16M"])
    for disk in (gpt, mbr):
        with open(disk, "wb") as f:
            f.truncate(20 << 20)
    run(["sgdisk", "-n", "1:2048:+16M", "-t", "1:8300",
         "-u", "1:" + ROOT_PARTUUID, "-c", "1:" + ROOT_PARTLABEL,
         "-n", "2:0:+1M", "-t", "2:8300", "-u", "2:" + SECOND_PARTUUID,
         "-c", "2:spare", gpt], stdout=subprocess.DEVNULL)
    run(["sfdisk", "-q", mbr], input=("label: dos\nlabel-id: 0x%s\n"
                                      "start=2048, size=32768, type=83\n"
                                      % MBR_ID).encode())
    for disk in (gpt, mbr):
        with open(part, "rb") as src, open(disk, "r+b") as dst:
            dst.seek(2048 * 512)
            shutil.copyfileobj(src, dst)
    os.unlink(part)
    return gpt, mbr


def build_other_disk(work):
    """A blank disk that is not the root: something for the diagnosis
    to list when the root never comes."""
    other = os.path.join(work, "other.img")
    with open(other, "wb") as f:
        f.truncate(4 << 20)
    return other


# ------------------------------------------------------------------- qemu

class QMP:
    def __init__(self, path, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise HarnessError("QMP socket never came up")
                time.sleep(0.05)
        self.f = self.sock.makefile("rw")
        json.loads(self.f.readline())           # greeting
        self.cmd("qmp_capabilities")

    def cmd(self, name, **args):
        self.f.write(json.dumps({"execute": name, "arguments": args}) + "\n")
        self.f.flush()
        while True:
            msg = json.loads(self.f.readline())
            if "return" in msg:
                return msg["return"]
            if "error" in msg:
                raise HarnessError("QMP %s: %s" % (name, msg["error"]))
            # asynchronous events: ignore

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


_kvm_works = None


def kvm_works(vmlinuz):
    """KVM hung here once: use it only when a probe boot prints the
    kernel banner within a few seconds."""
    global _kvm_works
    if _kvm_works is not None:
        return _kvm_works
    _kvm_works = False
    if os.environ.get("WAITDEV_QEMU_ACCEL") == "tcg" or \
            not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False
    try:
        p = subprocess.run(
            ["qemu-system-x86_64", "-accel", "kvm", "-m", "256",
             "-nographic", "-no-reboot", "-kernel", vmlinuz,
             "-append", "console=ttyS0 panic=-1 rdinit=/nonexistent"],
            capture_output=True, timeout=8)
        _kvm_works = b"Linux version" in p.stdout
    except subprocess.TimeoutExpired:
        _kvm_works = False
    log("KVM %s" % ("works" if _kvm_works else "does not work here: TCG"))
    return _kvm_works


class Boot:
    """One QEMU boot. plan: [(seconds after the start marker, qmp command,
    arguments)]; the start marker is a console line, by default the one
    the harness's /init prints first (a kernel test may start its plan
    at a kernel message instead); qemu_args: extra -device/-drive
    arguments at start.
    react: None, or a function called as react(boot, qmp, t, line) for
    every console line (t: host monotonic time it arrived), in order, from
    the thread that drives QMP, after the plan is done and until QEMU
    exits: hot-plugging in answer to what the guest says."""

    def __init__(self, work, vmlinuz, initrd, append, qemu_args=(),
                 plan=(), timeout=120, name="boot", react=None,
                 start="WAITDEV-INIT-START"):
        self.work, self.name = work, name
        self.start = start
        self.react = react
        self._new_line = threading.Condition()
        self.serial = []
        self.events = []
        self.qmp_path = os.path.join(work, name + ".qmp")
        accel = "kvm" if kvm_works(vmlinuz) else "tcg"
        self.argv = ["qemu-system-x86_64", "-accel", accel, "-m", "512",
                     "-smp", "1", "-nographic", "-no-reboot",
                     "-kernel", vmlinuz, "-initrd", initrd,
                     "-append", append,
                     "-qmp", "unix:%s,server=on,wait=off" % self.qmp_path,
                     ] + list(qemu_args)
        self.plan = sorted(plan, key=lambda p: p[0])
        self.timeout = timeout

    def _reader(self, stream):
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            with self._new_line:
                self.serial.append((time.monotonic(), line))
                self._new_line.notify_all()
            if os.environ.get("WAITDEV_QEMU_VERBOSE"):
                print("  | " + line, flush=True)

    def run(self):
        log("booting %s" % self.name)
        self.t0 = time.monotonic()
        p = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)
        reader = threading.Thread(target=self._reader, args=(p.stdout,),
                                  daemon=True)
        reader.start()
        qmp = None
        try:
            qmp = QMP(self.qmp_path)
            init_at = self.wait_for(self.start, p)
            self.init_at = init_at      # for react functions
            for at, cmd, args in self.plan:
                delay = init_at + at - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                qmp.cmd(cmd, **args)
                self.events.append((time.monotonic(), cmd, args))
                log("%.2f s after %s: %s %s"
                    % (time.monotonic() - init_at,
                       "/init" if self.start == "WAITDEV-INIT-START"
                       else "the start", cmd,
                       args.get("driver", args.get("id", ""))))
            if self.react:
                self._react_loop(p, qmp)
            p.wait(timeout=max(1, self.t0 + self.timeout - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            raise HarnessError("%s: no poweroff within %d s"
                               % (self.name, self.timeout))
        finally:
            if qmp:
                qmp.close()
            if p.poll() is None:
                p.kill()
                p.wait()
            reader.join(timeout=5)
        self.init_at = init_at
        return self

    def _react_loop(self, p, qmp):
        seen = 0
        deadline = self.t0 + self.timeout
        while time.monotonic() < deadline:
            with self._new_line:
                if seen == len(self.serial):
                    if p.poll() is not None:
                        return
                    self._new_line.wait(0.2)
                new = self.serial[seen:]
            seen += len(new)
            for t, line in new:
                self.react(self, qmp, t, line)

    def wait_for(self, marker, p, timeout=None):
        deadline = self.t0 + (timeout or self.timeout)
        while time.monotonic() < deadline:
            for t, line in self.serial:
                if marker in line:
                    return t
            if p.poll() is not None:
                raise HarnessError("%s: QEMU exited before %s"
                                   % (self.name, marker))
            time.sleep(0.02)
        raise HarnessError("%s: %s never appeared" % (self.name, marker))

    def lines(self, pattern):
        rx = re.compile(pattern)
        return [(t, l) for t, l in self.serial if rx.search(l)]

    def first(self, pattern):
        """Host time of the first console line matching @pattern, or
        None."""
        lines = self.lines(pattern)
        return lines[0][0] if lines else None

    def text(self):
        return "\n".join(l for _, l in self.serial)

    def kmsg(self, pattern):
        """[(guest seconds, line)] for the kernel log lines on the console
        that match @pattern after their "[ seconds]" stamp: what reached
        /dev/kmsg, with the kernel's time of it (waitdev's stderr copy of
        a line has no stamp)."""
        rx = re.compile(r"\[\s*(\d+\.\d+)\] (?:.*?)" + pattern)
        found = []
        for _, l in self.serial:
            m = rx.search(l)
            if m:
                found.append((float(m.group(1)), l))
        return found

    def rc(self):
        """waitdev's exit status in /init (its WAITDEV-RC line), or None."""
        m = re.search(r"WAITDEV-RC (\d+)", self.text())
        return int(m.group(1)) if m else None

    def guest_time(self, marker):
        """The guest's uptime printed after @marker."""
        for _, l in self.serial:
            m = re.search(re.escape(marker) + r"\S* (?:\d+ )?([\d.]+)", l)
            if m:
                return float(m.group(1))
        return None


class Check:
    """The assertions of one boot: each failure is logged at once and
    kept (failures); the scenario goes on, so that one run shows them
    all."""

    def __init__(self, name):
        self.name, self.failures, self.w, self.lag = name, [], None, None

    def that(self, cond, what):
        if not cond:
            self.failures.append(what)
            log("FAILED: %s: %s" % (self.name, what))

    def promptly(self, boot, appeared, found):
        """Every waitdev line @found in the kernel log came within PROMPT
        seconds of the kernel's own line @appeared before it (the device's
        arrival), both stamped by the kernel's clock."""
        devs = [t for t, _ in boot.kmsg(appeared)]
        hits = [t for t, _ in boot.kmsg(found)]
        self.that(hits, "waitdev's line /%s/ reached the kernel log"
                  % found)
        for t in hits:
            before = [d for d in devs if d <= t]
            if not before:
                self.that(False, "the kernel logged /%s/ before waitdev's "
                          "/%s/ at %.3f" % (appeared, found, t))
                continue
            lag = t - before[-1]
            self.lag = max(self.lag or 0, lag)
            self.that(lag <= PROMPT, "waitdev logged /%s/ %.3f s after the "
                      "kernel logged /%s/ (at most %.1f s)"
                      % (found, lag, appeared, PROMPT))

    def waited(self, boot):
        """Seconds /init spent in waitdev, from the guest's clock."""
        start = boot.guest_time("WAITDEV-INIT-START")
        end = boot.guest_time("WAITDEV-RC")
        if start is None or end is None:
            return None
        self.w = end - start
        return self.w

    def waited_within(self, boot, low, high, what):
        """/init spent @low to @high seconds in waitdev."""
        w = self.waited(boot)
        self.that(w is not None and low <= w <= high,
                  "%s (waited %s s)" % (what, w))

    def exit_status(self, boot, want=0, what=""):
        """waitdev in /init exited with @want."""
        rc = boot.rc()
        self.that(rc == want, "waitdev exit %d%s (got %s)" % (want, what, rc))

    def root_ran(self, boot, what="the root's /sbin/init ran"):
        self.that("ROOT-INIT-OK" in boot.text(), what)


def scenario_args(description=None):
    """The command line of the boot test scripts (test/qemu/scenarios.py,
    test/distro/distro.py): the static waitdev, a kernel of one's own, a
    work directory to keep, --list, the scenarios to run."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--waitdev", default=STATIC_WAITDEV,
                    help="static waitdev (default build-static/bin/waitdev)")
    ap.add_argument("--kernel", help="a vmlinuz of one's own (with --modules)")
    ap.add_argument("--modules", help="the tree holding lib/modules/VERSION")
    ap.add_argument("--work", help="keep the images and logs here")
    ap.add_argument("--list", action="store_true",
                    help="list the scenarios")
    ap.add_argument("scenarios", nargs="*")
    return ap


def usb_stick(bus="xhci.0", id="stick", drive="rootdisk"):
    return ("device_add", {"driver": "usb-storage", "bus": bus,
                           "drive": drive, "id": id})


def setup(work, waitdev, kernel=None, modules=None, extra=None):
    """Kernel, initramfs and root disk for a run; returns a dict.
    extra: more files for the initramfs (see build_initramfs)."""
    vmlinuz, tree, kver = obtain_kernel(kernel, modules)
    log("kernel: %s" % kernel_version(vmlinuz, tree, kver))
    disks = build_root_disk(work)
    return {
        "vmlinuz": vmlinuz,
        "kver": kver,
        "initrd": build_initramfs(work, waitdev, tree, kver, extra),
        "disk": disks[0],
        "disk_mbr": disks[1],
        "other": build_other_disk(work),
        "work": work,
    }
