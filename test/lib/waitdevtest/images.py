#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
Initramfs images made by the distribution's own generators, Debian's
dracut (non-systemd) and initramfs-tools' mkinitramfs, with and without
the waitdev hooks of hooks/, for the kernel the harness boots, and
their boots (boot(), boot_late()).

The generators read their modules from /lib/modules/KVER and their hooks
from /usr/lib/dracut and /usr/share/initramfs-tools. Nothing is written
there: each build runs in a private mount namespace (unshare -m) in which
an overlay over /usr/lib adds the cached kernel's module tree, and the
hooks from this source tree go in the places meson installs them. The
host sees none of it, and builds running side by side do not see each
other's.

What goes into an image does not depend on what the host has installed.
mkinitramfs copies in every hook and script any installed package put in
/usr/share/initramfs-tools (with mdadm installed, its local-block script
alone makes the waitdev hook step aside), and dracut reads every
package's dracut.conf.d. So the namespace sees, in those places, only the
files of the packages an image is made of (BASE, plus those a test asks
for: STACKED), and nothing of /etc/udev/rules.d, /etc/modprobe.d or
/etc/systemd/network; the log names what was taken in and what was left
out. hermetic_manifests() builds the same images once more with every
other contributing package hidden (an overlay whiting out its files), as
on a host without them: the test distro-hermetic compares the two.

Both images print "WAITDEV-INIT-START <uptime>" early (a dracut cmdline
hook, an initramfs-tools init-top script), the marker harness.Boot times
its hot-plugs from. Standard library only.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from waitdevtest import TOP, harness
from waitdevtest.harness import (DRIVE, ROOT_UUID, XHCI, HarnessError, log,
                                 run, usb_stick)

TOOLS = ("dracut", "mkinitramfs")
# panic=: initramfs-tools reads it too, and would reboot instead of
# starting its shell, so only dracut gets it (for a kernel panic)
APPEND = {
    "dracut": "console=ttyS0 panic=-1 root=UUID=%s rootfstype=ext4 ro"
              % ROOT_UUID,
    "mkinitramfs": "console=ttyS0 root=UUID=%s rootfstype=ext4 ro"
                   % ROOT_UUID,
}
# when boot_late() plugs the root's stick: seconds after init started
PLUG_AT = 3.0

# What a root on a USB stick needs, with dependencies from modules.dep;
# the same for both tools and both variants.
DRIVERS = ["xhci-pci", "xhci-hcd", "usb-storage", "uas", "sd_mod", "ext4",
           "crc32c_generic"]
# What a network boot's NIC needs on top (build(net=True)): QEMU's usb-net
# (RNDIS and CDC Ethernet) and virtio-net
NET_DRIVERS = ["usbnet", "cdc_ether", "rndis_host", "virtio_net"]

# dracut modules: its shell initrd (no systemd), udevd, block roots
DRACUT_MODULES = "bash base fs-lib rootfs-block udev-rules kernel-modules"

MARKER = 'read -r up _ </proc/uptime; echo "WAITDEV-INIT-START $up" >/dev/console\n'

DRACUT_MARKER = "#!/bin/sh\n# test: when init starts\n" + MARKER

MKINITRAMFS_MARKER = """#!/bin/sh
# test: when init starts
case $1 in prereqs) exit 0 ;; esac
""" + MARKER


# An image that can assemble roots from other devices (the hooks then
# step aside): a stand-in for lvm2/cryptroot that assembles nothing.
ASSEMBLER = """#!/bin/sh
# test: a root assembler that assembles nothing (lvm2, cryptroot stand-in)
case $1 in prereqs) exit 0 ;; esac
exit 0
"""


def need(program, package):
    if shutil.which(program) is None:
        raise HarnessError("%s is not installed (apt-get install %s; "
                           "tools/install-deps does)" % (program, package))


# The packages whose initramfs-tools files an image is made of: the
# generator itself and what its image runs on (udev, kmod, klibc, busybox).
# dracut's modules all come from dracut-core, and -m names those used.
BASE = {
    "mkinitramfs": ("initramfs-tools-core", "udev", "kmod", "klibc-utils",
                    "busybox-static|busybox"),
    "dracut": ("dracut-core",),
}
# Where each generator reads other packages' contributions from.
CONTRIB_DIRS = {
    "mkinitramfs": ("/usr/share/initramfs-tools",),
    "dracut": ("/usr/lib/dracut/modules.d", "/usr/lib/dracut/dracut.conf.d"),
}
# What an image may ask for on top (a stacked or a network root): the
# package, and the dracut modules that use it (dracut-core ships the
# first three, the package the tools they install; dracut-network ships
# its modules itself, and nbd's needs nbd-client, NETROOT_TOOLS).
STACKED = {
    "mdadm": ("mdraid",),
    "lvm2": ("lvm",),
    "cryptsetup-initramfs": ("crypt",),
    "dracut-network": ("network-legacy", "nbd"),
    # device-mapper's udev rules (initramfs-tools' dmsetup hook), which
    # lvm2 and cryptsetup depend on: without 95-dm-notify.rules their udev
    # sync waits for a cookie forever (dracut's dm module has its own)
    "dmsetup": (),
}
# The programs a network root's dracut modules install: (program,
# package), checked before a build (dracut would leave the module out).
NETROOT_TOOLS = (("nbd-client", "nbd-client"), ("dhclient",
                                                "isc-dhcp-client"))
# Host directories no image may take anything from: rules, options and
# link files of the host's own (both generators copy them in).
MASKED = ("/etc/udev/rules.d", "/etc/modprobe.d", "/etc/systemd/network")


def installed(pkg):
    """The installed package of @pkg ("a|b": the first installed)."""
    for alt in pkg.split("|"):
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", alt],
                           capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.endswith("ok installed"):
            return alt
    return None


def package_files(pkg):
    """The paths dpkg says @pkg installed, as they resolve on this host
    (/lib/... is /usr/lib/... where /lib is a link)."""
    out = subprocess.run(["dpkg-query", "-L", pkg], capture_output=True,
                         text=True, check=True).stdout
    paths = []
    for line in out.splitlines():
        if not line.startswith("/") or line == "/.":
            continue
        d, base = os.path.split(line)
        paths.append(os.path.join(os.path.realpath(d), base))
    return paths


def owners(paths):
    """{path: package} for @paths (dpkg -S); unowned paths are left out."""
    res = {}
    for i in range(0, len(paths), 200):
        r = subprocess.run(["dpkg-query", "-S"] + paths[i:i + 200],
                           capture_output=True, text=True)
        for line in r.stdout.splitlines():
            pkgs, _, path = line.partition(": ")
            for p in pkgs.split(", "):
                res.setdefault(path, p.split(":")[0])
    return res


def files_under(top):
    """Every file and link below @top (not directories)."""
    found = []
    for root, dirs, names in os.walk(top):
        for n in names + [d for d in dirs
                          if os.path.islink(os.path.join(root, d))]:
            found.append(os.path.join(root, n))
    return sorted(found)


def composition(tool, packages=()):
    """What an image of @tool is made of: (packages, {dir: [files]},
    {package: [files left out]}) for the directories of CONTRIB_DIRS.
    Fails when a package asked for is not installed."""
    pkgs = []
    for want in BASE[tool] + tuple(packages):
        got = installed(want)
        if got is None:
            raise HarnessError("package %s is not installed; an image asks "
                               "for it (tools/install-deps installs it)"
                               % want)
        pkgs.append(got)
    taken = set()
    for p in pkgs:
        taken.update(package_files(p))
    keep, left = {}, {}
    for top in CONTRIB_DIRS[tool]:
        if not os.path.isdir(top):
            keep[top] = []
            continue
        here = files_under(top)
        keep[top] = [f for f in here if f in taken]
        rest = [f for f in here if f not in taken]
        own = owners(rest)
        for f in rest:
            left.setdefault(own.get(f, "no package"), []).append(f)
    return pkgs, keep, left


def stage(work, keep):
    """Copies the files of @keep ({dir: [files]}) into @work/stage/DIR;
    returns {dir: staged copy}."""
    staged = {}
    for top, files in keep.items():
        dst = os.path.join(work, "stage", top.strip("/").replace("/", "_"))
        shutil.rmtree(dst, ignore_errors=True)
        os.makedirs(dst)
        for f in files:
            rel = os.path.relpath(f, top)
            os.makedirs(os.path.dirname(os.path.join(dst, rel)),
                        exist_ok=True)
            if os.path.islink(f):
                os.symlink(os.readlink(f), os.path.join(dst, rel))
            else:
                shutil.copy2(f, os.path.join(dst, rel))
        staged[top] = dst
    return staged


def log_composition(tool, pkgs, keep, left):
    log("%s image: made of the files of %s (%d in %s)"
        % (tool, ", ".join(pkgs), sum(len(v) for v in keep.values()),
           ", ".join(keep)))
    for p in sorted(left):
        log("%s image: left out, the host's %s: %s"
            % (tool, p, " ".join(sorted(left[p]))))


def whiteouts(work, packages):
    """An overlay upper directory for / per top directory (usr, etc) that
    whites out every file of @packages: mounted over the host's, it is a
    host on which they are not installed. Returns {top: upper dir}."""
    base = os.path.join(work, "hide")
    shutil.rmtree(base, ignore_errors=True)
    uppers = {}
    for p in packages:
        for f in package_files(p):
            if not os.path.lexists(f) or (os.path.isdir(f) and
                                          not os.path.islink(f)):
                continue
            top = f.split("/")[1]
            if top not in ("usr", "etc"):
                continue
            upper = uppers.setdefault(top, os.path.join(base, top, "up"))
            os.makedirs(os.path.join(base, top, "work"), exist_ok=True)
            w = os.path.join(upper, os.path.relpath(f, "/" + top))
            os.makedirs(os.path.dirname(w), exist_ok=True)
            if not os.path.lexists(w):
                os.mknod(w, 0o600 | 0o020000, os.makedev(0, 0))
    return uppers


def in_namespace(work, tree, kver, script, env, tool, packages=(),
                 hide=()):
    """Run @script (sh) in a private mount namespace where
    /lib/modules/KVER and /boot/config-KVER (mkinitramfs checks the
    compression) are the cached kernel's, /usr/lib and /boot are writable
    overlays, and @tool's CONTRIB_DIRS hold only the files of BASE and
    @packages (writable copies: the hooks go there). With @hide, the
    files of those packages are whited out first (hermetic_manifests()).
    Returns the script's output."""
    ovl = os.path.join(work, "overlay")
    shutil.rmtree(ovl, ignore_errors=True)
    for d in ("lib-up", "lib-work", "boot-up", "boot-work", "empty"):
        os.makedirs(os.path.join(ovl, d))
    pkgs, keep, left = composition(tool, packages)
    log_composition(tool, pkgs, keep, left)
    staged = stage(work, keep)
    prologue = "set -eu\n"
    for top, upper in sorted(whiteouts(work, hide).items()):
        prologue += ("mount -t overlay overlay -o lowerdir=/{t},upperdir={u},"
                     "workdir={w} /{t}\n").format(
                         t=top, u=upper,
                         w=os.path.join(os.path.dirname(upper), "work"))
    prologue += r"""mount -t overlay overlay -o lowerdir=/usr/lib,upperdir={o}/lib-up,workdir={o}/lib-work /usr/lib
mount -t overlay overlay -o lowerdir=/boot,upperdir={o}/boot-up,workdir={o}/boot-work /boot
mkdir -p /usr/lib/modules
ln -sf {tree}/boot/config-{kver} /boot/config-{kver}
rm -rf /usr/lib/modules/{kver}
ln -s {tree}/lib/modules/{kver} /usr/lib/modules/{kver}
""".format(o=ovl, kver=kver, tree=tree)
    for top, copy in sorted(staged.items()):
        prologue += "mkdir -p {t}\nmount --bind {c} {t}\n".format(t=top,
                                                                  c=copy)
    for d in MASKED:
        prologue += "if [ -d {d} ]; then mount --bind {e} {d}; fi\n".format(
            d=d, e=os.path.join(ovl, "empty"))
    p = subprocess.run(["unshare", "-m", "--propagation", "private",
                        "sh", "-c", prologue + script],
                       env=dict(os.environ, **env),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    shutil.rmtree(ovl, ignore_errors=True)
    shutil.rmtree(os.path.join(work, "stage"), ignore_errors=True)
    shutil.rmtree(os.path.join(work, "hide"), ignore_errors=True)
    if p.returncode != 0:
        raise HarnessError("image build failed (exit %d):\n%s"
                           % (p.returncode, p.stdout[-4000:]))
    return p.stdout


def fresh_dir(path, *subdirs):
    """@path, emptied (removed and made again) with @subdirs in it."""
    shutil.rmtree(path, ignore_errors=True)
    for sub in subdirs:
        os.makedirs(os.path.join(path, sub))
    return path


def dracut_files(work, hooks):
    """The files of a dracut run: a fresh directory with the test's
    cmdline hook (DRACUT_MARKER) and a confdir that asks for the waitdev
    module when @hooks. Returns (directory, marker)."""
    d = fresh_dir(os.path.join(work, "dracut-files"), "confdir")
    marker = os.path.join(d, "00-waitdev-test-start.sh")
    with open(marker, "w") as f:
        f.write(DRACUT_MARKER)
    if hooks:
        with open(os.path.join(d, "confdir", "waitdev.conf"), "w") as f:
            f.write('add_dracutmodules+=" waitdev "\n')
    return d, marker


def dracut_script(d, marker, kver, modules, out, hooks, extra=""):
    """The shell lines that run dracut in the image namespace: the
    module of hooks/ installed when @hooks, then dracut with the conf
    of dracut_files() @d, @modules, the test's drivers and @extra
    arguments, into @out."""
    script = ""
    if hooks:
        script += "cp -r %s /usr/lib/dracut/modules.d/90waitdev\n" % (
            os.path.join(TOP, "hooks/dracut/90waitdev"))
    return script + (
        "dracut --force --quiet --no-hostonly --no-hostonly-cmdline "
        "--conf /dev/null --confdir {d}/confdir --no-early-microcode "
        "--gzip --kver {kver} -m '{modules}' --drivers '{drivers}' "
        "--include {marker} /lib/dracut/hooks/cmdline/00-waitdev-test-start.sh "
        "{extra}{out}\n").format(d=d, kver=kver, modules=modules,
                                 drivers=" ".join(DRIVERS), marker=marker,
                                 extra=extra, out=out)


def build_dracut(work, tree, kver, waitdev, out, assembler=False,
                 hooks=None, packages=(), hide=(), include=None, conf="",
                 devices=()):
    """dracut's shell initrd; with waitdev when @waitdev is a path; with
    a stand-in /sbin/lvm when @assembler; with the dracut modules of the
    STACKED @packages; with the files of @include ({path in the image:
    host file}); with @conf, lines for a dracut.conf.d file; with
    --add-device for each of the host's block @devices. The module
    comes in the way a user asks for it, add_dracutmodules+=" waitdev "
    in a dracut.conf.d file, with the hooks installed when @hooks
    (default: with waitdev); @waitdev may then name a binary that does
    not exist. Returns dracut's output."""
    need("dracut", "dracut-core")
    if "dracut-network" in packages:
        for program, package in NETROOT_TOOLS:
            need(program, package)
    if hooks is None:
        hooks = bool(waitdev)
    d, marker = dracut_files(work, hooks)
    modules = DRACUT_MODULES
    for pkg in packages:
        modules += " " + " ".join(STACKED[pkg])
    lvm = ""
    if assembler:
        path = os.path.join(d, "lvm")
        with open(path, "w") as f:
            f.write(ASSEMBLER)
        os.chmod(path, 0o755)
        lvm = "--include %s /sbin/lvm " % path
    for dest, src in sorted((include or {}).items()):
        lvm += "--include %s %s " % (src, dest)
    for dev in devices:
        lvm += "--add-device %s " % dev
    if conf:
        with open(os.path.join(d, "confdir", "test.conf"), "w") as f:
            f.write(conf)
    script = dracut_script(d, marker, kver, modules, out, hooks, lvm)
    env = {"WAITDEV_BINARY": waitdev} if waitdev else {}
    text = in_namespace(work, tree, kver, script, env, "dracut", packages,
                        hide)
    check_image(out, waitdev and os.path.exists(waitdev))
    return text


def build_mkinitramfs(work, tree, kver, waitdev, out, assembler=False,
                      hooks=None, packages=(), hide=(), net=False,
                      include=None, drivers=()):
    """initramfs-tools' image (busybox, udev); with waitdev when
    @waitdev is a path; with a local-top script when @assembler; with
    the initramfs-tools hooks and scripts of the STACKED @packages; with
    the hooks installed when @hooks (default: with waitdev), @waitdev may
    then name a binary that does not exist; with the NET_DRIVERS too
    when @net, and @drivers; with the files of @include ({path in the
    image: host file}, copied by a hook of the test's configuration
    directory). Returns mkinitramfs's output."""
    need("mkinitramfs", "initramfs-tools-core")
    if hooks is None:
        hooks = bool(waitdev)
    conf = fresh_dir(os.path.join(work, "initramfs-tools"), "conf.d",
                     "hooks", os.path.join("scripts", "init-top"))
    with open(os.path.join(conf, "initramfs.conf"), "w") as f:
        # list: only the modules below, not "most" (a big image that TCG
        # unpacks slowly); listed modules are also loaded at boot
        f.write("MODULES=list\nBUSYBOX=y\nCOMPRESS=gzip\nRUNSIZE=10%\n"
                "FSTYPE=ext4\n")
    with open(os.path.join(conf, "modules"), "w") as f:
        f.write("\n".join(DRIVERS + (NET_DRIVERS if net else []) +
                          list(drivers)) + "\n")
    marker = os.path.join(conf, "scripts", "init-top",
                          "00-waitdev-test-start")
    with open(marker, "w") as f:
        f.write(MKINITRAMFS_MARKER)
    os.chmod(marker, 0o755)
    if include:
        path = os.path.join(conf, "hooks", "waitdev-test-include")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n# test: files the boot needs\n"
                    "case $1 in prereqs) exit 0 ;; esac\n")
            for dest, src in sorted(include.items()):
                f.write('mkdir -p "$DESTDIR%s"\ncp %s "$DESTDIR%s"\n'
                        % (os.path.dirname(dest), src, dest))
        os.chmod(path, 0o755)
    if assembler:
        os.makedirs(os.path.join(conf, "scripts", "local-top"))
        path = os.path.join(conf, "scripts", "local-top", "assembler")
        with open(path, "w") as f:
            f.write(ASSEMBLER)
        os.chmod(path, 0o755)
    script = ""
    if hooks:
        src = os.path.join(TOP, "hooks/initramfs-tools")
        script += ("cp {s}/hooks/waitdev /usr/share/initramfs-tools/hooks/\n"
                   "mkdir -p /usr/share/initramfs-tools/scripts/init-premount\n"
                   "cp {s}/scripts/init-top/waitdev "
                   "/usr/share/initramfs-tools/scripts/init-top/\n"
                   "cp {s}/scripts/init-premount/waitdev "
                   "/usr/share/initramfs-tools/scripts/init-premount/\n"
                   ).format(s=src)
    script += "mkinitramfs -d {conf} -o {out} {kver}\n".format(
        conf=conf, out=out, kver=kver)
    env = {"WAITDEV_BINARY": waitdev} if waitdev else {}
    text = in_namespace(work, tree, kver, script, env, "mkinitramfs",
                        packages, hide)
    check_image(out, waitdev and os.path.exists(waitdev))
    return text


def unpack(image, dest):
    run(["unmkinitramfs", image, dest], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)


# Files whose contents differ from one build to the next on the same host:
# dracut runs ldconfig -r on the image, and ldconfig's auxiliary cache
# records the device, inode and ctime of each library it scanned (files
# dracut has just copied), not anything a package put there. Seen: CI,
# 2026-12-04, dracut-hermetic's two builds differed in this file alone.
BUILD_VOLATILE = {
    "var/cache/ldconfig/aux-cache": "ldconfig's aux-cache (inodes, ctimes)",
}


def image_manifest(image):
    """{path: what it is} for every entry of @image: "dir", "link:TARGET"
    or the sha256 of a file's contents (for BUILD_VOLATILE files, only
    that they are there)."""
    tmp = image + ".m"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    try:
        unpack(image, tmp)
        res = {}
        for root, dirs, names in os.walk(tmp):
            for n in names + dirs:
                path = os.path.join(root, n)
                rel = os.path.relpath(path, tmp)
                for part in ("main/", "early/"):
                    if rel.startswith(part):
                        rel = rel[len(part):]
                if os.path.islink(path):
                    res[rel] = "link:" + os.readlink(path)
                elif os.path.isdir(path):
                    res[rel] = "dir"
                elif rel in BUILD_VOLATILE:
                    res[rel] = BUILD_VOLATILE[rel]
                elif os.path.isfile(path):
                    with open(path, "rb") as f:
                        res[rel] = hashlib.sha256(f.read()).hexdigest()
                else:
                    res[rel] = "special"
        return res
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def image_files(image):
    """The paths in an image (several concatenated cpio archives, as both
    tools may write), with lsinitrd/unmkinitramfs-free cpio listing."""
    tmp = image + ".d"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    try:
        unpack(image, tmp)
        files = set()
        for root, dirs, names in os.walk(tmp):
            for n in names + dirs:
                rel = os.path.relpath(os.path.join(root, n), tmp)
                # unmkinitramfs puts multi-part images under main/, early/
                for part in ("main/", "early/"):
                    if rel.startswith(part):
                        rel = rel[len(part):]
                files.add(rel)
        return files
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_image(image, waitdev, files=None):
    """The image holds waitdev exactly when it was meant to: a test of a
    stock image that contained waitdev after all would prove nothing."""
    files = files if files is not None else image_files(image)
    has = any(f.endswith("sbin/waitdev") for f in files)
    if has != bool(waitdev):
        raise HarnessError("%s: waitdev %s in the image" %
                           (image, "found" if has else "missing"))
    log("%s: %d files, %d KiB%s" % (os.path.basename(image), len(files),
                                    os.path.getsize(image) // 1024,
                                    ", with waitdev" if has else ""))


BUILDERS = {"dracut": build_dracut, "mkinitramfs": build_mkinitramfs}


def build(tool, work, waitdev, kernel=None, modules=None, assembler=False,
          nobinary=False, packages=(), hide=(), net=False, include=None,
          drivers=(), conf="", devices=()):
    """Build the image of @tool (with waitdev when @waitdev is a path;
    able to assemble roots, as with lvm2 or cryptroot, when @assembler;
    with the hooks installed but no waitdev binary to be found when
    @nobinary; with what the STACKED @packages add; on a host without
    the packages @hide; with the drivers of a late NIC, NET_DRIVERS,
    when @net, and the modules @drivers: mkinitramfs only; with the
    files of @include, {path in the image: host file}; with @conf, lines
    of a dracut.conf.d file, and dracut's --add-device for each of the
    host's block @devices: dracut only); returns the harness
    environment for booting it, with the generator's output under
    "output"."""
    vmlinuz, tree, kver = harness.obtain_kernel(kernel, modules)
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "%s-%s%s%s%s.img" % (
        tool, "nobinary" if nobinary else "waitdev" if waitdev else "stock",
        "-assembler" if assembler else "", "-net" if net else "",
        "".join("-" + p for p in packages)))
    if nobinary:
        # where the hooks are told to look, and find nothing
        waitdev = os.path.join(work, "no-such-dir", "waitdev")
    elif waitdev:
        harness.check_static(waitdev)
    for p in packages:
        if p not in STACKED:
            raise HarnessError("%s: not a package an image can ask for "
                               "(one of %s)" % (p, ", ".join(STACKED)))
    if (net or drivers) and tool != "mkinitramfs":
        raise HarnessError("build(net=, drivers=): only for mkinitramfs")
    if (conf or devices) and tool != "dracut":
        raise HarnessError("build(conf=, devices=): only for dracut")
    extra = {"include": include} if include else {}
    if net:
        extra["net"] = True
    if drivers:
        extra["drivers"] = drivers
    if conf:
        extra["conf"] = conf
    if devices:
        extra["devices"] = devices
    text = BUILDERS[tool](work, tree, kver, waitdev, out, assembler,
                          hooks=bool(waitdev), packages=packages, hide=hide,
                          **extra)
    return {"vmlinuz": vmlinuz, "kver": kver, "initrd": out, "work": work,
            "output": text, "nobinary": waitdev if nobinary else None}


def foreign_packages(tool):
    """The installed packages an image of @tool must not depend on: every
    other package with files where the generator looks (CONTRIB_DIRS),
    and the stacked-root packages and their tools."""
    base = {installed(p) for p in BASE[tool]}
    found = set()
    for top in CONTRIB_DIRS[tool]:
        if os.path.isdir(top):
            found.update(owners(files_under(top)).values())
    for p in STACKED:
        found.add(p)
    found.update(("cryptsetup", "cryptsetup-bin", "dmeventd"))
    return sorted(p for p in found - base if installed(p))


def hermetic_manifests(tool, work, waitdev, kernel=None, modules=None):
    """The image of @tool with waitdev built twice: on this host as it is,
    and as on a host without foreign_packages() (whited out). Returns
    (the packages hidden, manifest as is, manifest without them)."""
    hide = foreign_packages(tool)
    log("%s: building as on this host, then as on a host without %s"
        % (tool, ", ".join(hide) or "(nothing to hide)"))
    env = build(tool, work, waitdev, kernel, modules)
    with_them = image_manifest(env["initrd"])
    env = build(tool, work, waitdev, kernel, modules, hide=hide)
    without = image_manifest(env["initrd"])
    return hide, with_them, without


def boot(env, name, append, plan=(), react=None, timeout=240, extra=()):
    """Boots the image of @env (build(), with setup()'s disks added) with
    the root disk behind an xhci controller; extra: more QEMU arguments."""
    b = harness.Boot(env["work"], env["vmlinuz"], env["initrd"], append,
                     [a % env for a in DRIVE + XHCI + list(extra)], plan,
                     timeout, name, react)
    b.run()
    return b


def plug_to_init(b):
    """When @b's first plug happened, and the seconds from it to the
    root's /sbin/init: (plugged, took), None where either did not
    happen."""
    plugged = b.events[0][0] if b.events else None
    init = b.first(r"ROOT-INIT-OK")
    return plugged, (init - plugged if init and plugged else None)


def boot_late(env, tool, name, plug_at=PLUG_AT):
    """Plug the stick @plug_at s after init started; returns the boot and
    the seconds from the plug to the root's /sbin/init (None if it never
    ran). The distro suite's late boots and bench/distro-bench.py."""
    b = boot(env, name, APPEND[tool], [(plug_at, *usb_stick())])
    return b, plug_to_init(b)[1]


def check_late_boot(c, b, plugged_on=None):
    """What every boot with a late stick asserts on Check @c: that it was
    plugged (@plugged_on: what it was plugged on, a phrase; None: at a
    set time, not checked), that the root's /sbin/init ran within 30 s
    of the plug, and no kernel panic. Returns those seconds (None: the
    init never ran)."""
    plugged, took = plug_to_init(b)
    if plugged_on is not None:
        c.that(plugged is not None, "%s and the stick was plugged"
               % plugged_on)
    c.that(b.first(r"ROOT-INIT-OK") is not None, "the root's /sbin/init ran")
    # TCG: USB enumeration, the tool's udev and mount take seconds here
    c.that(took is not None and 0 < took < 30,
           "root's init within 30 s of the plug (took %s s)" % took)
    c.that("Kernel panic" not in b.text(), "no kernel panic")
    return took


# dracut modules of a systemd initrd: DRACUT_MODULES and dracut's systemd
# modules, as dracut picks them by default wherever systemd is installed
# (Fedora, RHEL, openSUSE, Debian with systemd)
DRACUT_SYSTEMD_MODULES = (DRACUT_MODULES + " systemd systemd-initrd "
                          "systemd-udevd systemd-journald "
                          "systemd-tmpfiles dracut-systemd")


def build_dracut_systemd(work, waitdev, kernel=None, modules=None,
                         initqueue=False):
    """dracut's systemd initrd, with the waitdev module (add_dracutmodules
    in a dracut.conf.d file, as build_dracut()) when @waitdev is a path,
    else the stock one; with @initqueue, one whose dracut-initqueue.service
    runs (/lib/dracut/need-initqueue: what a hostonly image with its
    host's devices on the command line, lvm, crypt, mdraid and the
    network modules ask for; it gives up after rd.retry).
    test/distro/systemd.py. Returns the harness environment for booting
    it, as build()."""
    need("dracut", "dracut-core")
    need("/usr/lib/systemd/systemd", "systemd")
    vmlinuz, tree, kver = harness.obtain_kernel(kernel, modules)
    os.makedirs(work, exist_ok=True)
    if waitdev:
        harness.check_static(waitdev)
    out = os.path.join(work, "dracut-systemd-%s%s.img"
                       % ("waitdev" if waitdev else "stock",
                          "-initqueue" if initqueue else ""))
    d, marker = dracut_files(work, bool(waitdev))
    extra = ""
    if initqueue:
        flag = os.path.join(d, "need-initqueue")
        open(flag, "w").close()
        extra = "--include %s /lib/dracut/need-initqueue " % flag
    script = dracut_script(d, marker, kver, DRACUT_SYSTEMD_MODULES, out,
                           bool(waitdev), extra)
    env = {"WAITDEV_BINARY": waitdev} if waitdev else {}
    text = in_namespace(work, tree, kver, script, env, "dracut")
    files = image_files(out)
    check_image(out, waitdev, files)
    return {"vmlinuz": vmlinuz, "kver": kver, "initrd": out, "work": work,
            "output": text, "files": files}


# ------------------------------------------------- the boots' helpers

# a second USB stick (harness.build_other_disk()): what the diagnosis
# lists when the root never comes
OTHER_STICK = ["-drive", "if=none,id=other,format=raw,file=%(other)s",
               "-device", "usb-storage,bus=xhci.0,drive=other"]


def quit_at(marker):
    """A Boot react function: end QEMU once @marker was printed (a rescue
    shell waits for a human otherwise)."""
    def react(boot, qmp, t, line):
        if marker in line and not getattr(boot, "quit_sent", False):
            boot.quit_sent = True
            try:
                qmp.cmd("quit")
            except (HarnessError, ValueError, OSError):
                pass    # QEMU went away before it answered
    return react


def quit_on(pattern):
    """quit_at() for a console line that matches the regular expression
    @pattern."""
    rx = re.compile(pattern)

    def react(boot, qmp, t, line):
        if rx.search(line):
            quit_at(line)(boot, qmp, t, line)
    return react


def plug_on(pattern, device=None):
    """A Boot react function: plug the stick (or @device, a (qmp command,
    arguments) pair) once a console line matches @pattern (recorded in
    boot.events, as a plan's plug is)."""
    rx = re.compile(pattern)

    def react(boot, qmp, t, line):
        if boot.events or not rx.search(line):
            return
        cmd, args = device or usb_stick()
        qmp.cmd(cmd, **args)
        boot.events.append((time.monotonic(), cmd, args))
        harness.log("%.2f s after /init, on \"%s\": %s %s"
                    % (time.monotonic() - boot.init_at, line.strip(), cmd,
                       args["driver"]))
    return react


def both(*reacts):
    """A Boot react function that calls each of @reacts in turn."""
    def react(boot, qmp, t, line):
        for r in reacts:
            r(boot, qmp, t, line)
    return react


def scenario_main(prog, description, scenarios, image_for, prepare_disk=None):
    """main() of an image boot script (test/distro): its command line
    (harness.scenario_args()), then each scenario named there, whose
    @scenarios entry ends with run(env) -> (Check, Boot or None), on the
    image image_for(name, args, work, waitdev, built) returns (built: the
    images so far, for reuse) with the root disk (after @prepare_disk(disk))
    and the other stick. Exit 0 when every scenario passed."""
    a = harness.scenario_args(description).parse_args()
    if a.list:
        print("\n".join(scenarios))
        return 0
    unknown = [s for s in a.scenarios if s not in scenarios]
    if unknown or not a.scenarios:
        print("%s: %s; one or more of: %s" % (
            prog, "unknown scenario " + ", ".join(unknown) if unknown
            else "no scenario given", " ".join(scenarios)), file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("%s: needs root (mount namespace and overlayfs for the image "
              "builds, as the qemu suite's module tree)" % prog,
              file=sys.stderr)
        return 1
    work = a.work or tempfile.mkdtemp(prefix="waitdev-%s-" % prog[:-3])
    os.makedirs(work, exist_ok=True)
    waitdev = os.path.abspath(a.waitdev)
    failed = []
    try:
        disk = harness.build_root_disk(work)[0]
        if prepare_disk:
            prepare_disk(disk)
        other = harness.build_other_disk(work)
        built = {}
        for name in a.scenarios:
            env = dict(image_for(name, a, work, waitdev, built), disk=disk,
                       other=other)
            c, b = scenarios[name][-1](env)
            text = b.text() if b else env.get("output", "")
            with open(os.path.join(work, name + ".log"), "w") as f:
                f.write(text + "\n")
            if c.failures:
                failed.append(name)
                print("--- %s %s ---\n%s\n---" % (
                    name, "console" if b else "build output", text[-8000:]))
            print("%s: %s" % (name, "FAIL: " + "; ".join(c.failures)
                              if c.failures else "ok"), flush=True)
    except HarnessError as e:
        print("%s: %s" % (prog, e), file=sys.stderr)
        return 1
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0
