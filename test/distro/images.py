#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
Initramfs images made by the distribution's own generators, Debian's
dracut (non-systemd) and initramfs-tools' mkinitramfs, with and without
the waitdev hooks of hooks/, for the kernel test/qemu/harness.py boots.

The generators read their modules from /lib/modules/KVER and their hooks
from /usr/lib/dracut and /usr/share/initramfs-tools. Nothing is written
there: each build runs in a private mount namespace (unshare -m) in which
an overlay over /usr/lib and /usr/share/initramfs-tools adds the cached
kernel's module tree and, for the images with waitdev, the hooks from
this source tree, in the places meson installs them. The host sees none
of it, and builds running side by side do not see each other's.

Both images print "WAITDEV-INIT-START <uptime>" early (a dracut cmdline
hook, an initramfs-tools init-top script), the marker harness.Boot times
its hot-plugs from. Standard library only.
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRCDIR, "test", "qemu"))
import harness  # noqa: E402
from harness import HarnessError, log, run  # noqa: E402

TOOLS = ("dracut", "mkinitramfs")

# What a root on a USB stick needs, with dependencies from modules.dep;
# the same for both tools and both variants.
DRIVERS = ["xhci-pci", "xhci-hcd", "usb-storage", "uas", "sd_mod", "ext4",
           "crc32c_generic"]

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


def in_namespace(work, tree, kver, script, env):
    """Run @script (sh) in a private mount namespace where
    /lib/modules/KVER and /boot/config-KVER (mkinitramfs checks the
    compression) are the cached kernel's, and /usr/lib,
    /usr/share/initramfs-tools and /boot are writable overlays."""
    ovl = os.path.join(work, "overlay")
    shutil.rmtree(ovl, ignore_errors=True)
    for d in ("lib-up", "lib-work", "itd-up", "itd-work", "boot-up",
              "boot-work"):
        os.makedirs(os.path.join(ovl, d))
    prologue = r"""set -eu
mount -t overlay overlay -o lowerdir=/usr/lib,upperdir={o}/lib-up,workdir={o}/lib-work /usr/lib
mount -t overlay overlay -o lowerdir=/usr/share/initramfs-tools,upperdir={o}/itd-up,workdir={o}/itd-work /usr/share/initramfs-tools
mount -t overlay overlay -o lowerdir=/boot,upperdir={o}/boot-up,workdir={o}/boot-work /boot
mkdir -p /usr/lib/modules
ln -sf {tree}/boot/config-{kver} /boot/config-{kver}
rm -rf /usr/lib/modules/{kver}
ln -s {tree}/lib/modules/{kver} /usr/lib/modules/{kver}
""".format(o=ovl, kver=kver, tree=tree)
    p = subprocess.run(["unshare", "-m", "--propagation", "private",
                        "sh", "-c", prologue + script],
                       env=dict(os.environ, **env),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    shutil.rmtree(ovl, ignore_errors=True)
    if p.returncode != 0:
        raise HarnessError("image build failed (exit %d):\n%s"
                           % (p.returncode, p.stdout[-4000:]))
    return p.stdout


def build_dracut(work, tree, kver, waitdev, out, assembler=False,
                 hooks=None):
    """dracut's shell initrd; with waitdev when @waitdev is a path; with
    a stand-in /sbin/lvm when @assembler. The module comes in the way a
    user asks for it, add_dracutmodules+=" waitdev " in a dracut.conf.d
    file, with the hooks installed when @hooks (default: with waitdev);
    @waitdev may then name a binary that does not exist. Returns
    dracut's output."""
    need("dracut", "dracut-core")
    if hooks is None:
        hooks = bool(waitdev)
    d = os.path.join(work, "dracut-files")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "confdir"))
    marker = os.path.join(d, "00-waitdev-test-start.sh")
    with open(marker, "w") as f:
        f.write(DRACUT_MARKER)
    if hooks:
        with open(os.path.join(d, "confdir", "waitdev.conf"), "w") as f:
            f.write('add_dracutmodules+=" waitdev "\n')
    modules = DRACUT_MODULES
    lvm = ""
    if assembler:
        path = os.path.join(d, "lvm")
        with open(path, "w") as f:
            f.write(ASSEMBLER)
        os.chmod(path, 0o755)
        lvm = "--include %s /sbin/lvm " % path
    script = ""
    if hooks:
        script += "cp -r %s /usr/lib/dracut/modules.d/90waitdev\n" % (
            os.path.join(SRCDIR, "hooks/dracut/90waitdev"))
    script += (
        "dracut --force --quiet --no-hostonly --no-hostonly-cmdline "
        "--conf /dev/null --confdir {d}/confdir --no-early-microcode "
        "--gzip --kver {kver} -m '{modules}' --drivers '{drivers}' "
        "--include {marker} /lib/dracut/hooks/cmdline/00-waitdev-test-start.sh "
        "{lvm}{out}\n").format(d=d, kver=kver, modules=modules,
                               drivers=" ".join(DRIVERS), marker=marker,
                               out=out, lvm=lvm)
    env = {"WAITDEV_BINARY": waitdev} if waitdev else {}
    text = in_namespace(work, tree, kver, script, env)
    check_image(out, waitdev and os.path.exists(waitdev))
    return text


def build_mkinitramfs(work, tree, kver, waitdev, out, assembler=False,
                      hooks=None):
    """initramfs-tools' image (busybox, udev); with waitdev when
    @waitdev is a path; with a local-top script when @assembler; with
    the hooks installed when @hooks (default: with waitdev), @waitdev may
    then name a binary that does not exist. Returns mkinitramfs's
    output."""
    need("mkinitramfs", "initramfs-tools-core")
    if hooks is None:
        hooks = bool(waitdev)
    conf = os.path.join(work, "initramfs-tools")
    shutil.rmtree(conf, ignore_errors=True)
    os.makedirs(os.path.join(conf, "conf.d"))
    os.makedirs(os.path.join(conf, "hooks"))
    os.makedirs(os.path.join(conf, "scripts", "init-top"))
    with open(os.path.join(conf, "initramfs.conf"), "w") as f:
        # list: only the modules below, not "most" (a big image that TCG
        # unpacks slowly); listed modules are also loaded at boot
        f.write("MODULES=list\nBUSYBOX=y\nCOMPRESS=gzip\nRUNSIZE=10%\n"
                "FSTYPE=ext4\n")
    with open(os.path.join(conf, "modules"), "w") as f:
        f.write("\n".join(DRIVERS) + "\n")
    marker = os.path.join(conf, "scripts", "init-top",
                          "00-waitdev-test-start")
    with open(marker, "w") as f:
        f.write(MKINITRAMFS_MARKER)
    os.chmod(marker, 0o755)
    if assembler:
        os.makedirs(os.path.join(conf, "scripts", "local-top"))
        path = os.path.join(conf, "scripts", "local-top", "assembler")
        with open(path, "w") as f:
            f.write(ASSEMBLER)
        os.chmod(path, 0o755)
    script = ""
    if hooks:
        src = os.path.join(SRCDIR, "hooks/initramfs-tools")
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
    text = in_namespace(work, tree, kver, script, env)
    check_image(out, waitdev and os.path.exists(waitdev))
    return text


def image_files(image):
    """The paths in an image (several concatenated cpio archives, as both
    tools may write), with lsinitrd/unmkinitramfs-free cpio listing."""
    tmp = image + ".d"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    try:
        run(["unmkinitramfs", image, tmp], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
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
          nobinary=False):
    """Build the image of @tool (with waitdev when @waitdev is a path;
    able to assemble roots, as with lvm2 or cryptroot, when @assembler;
    with the hooks installed but no waitdev binary to be found when
    @nobinary); returns the harness environment for booting it, with
    the generator's output under "output"."""
    vmlinuz, tree, kver = harness.obtain_kernel(kernel, modules)
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "%s-%s%s.img" % (
        tool, "nobinary" if nobinary else "waitdev" if waitdev else "stock",
        "-assembler" if assembler else ""))
    if nobinary:
        # where the hooks are told to look, and find nothing
        waitdev = os.path.join(work, "no-such-dir", "waitdev")
    elif waitdev:
        harness.check_static(waitdev)
    text = BUILDERS[tool](work, tree, kver, waitdev, out, assembler,
                          hooks=bool(waitdev))
    return {"vmlinuz": vmlinuz, "kver": kver, "initrd": out, "work": work,
            "output": text, "nobinary": waitdev if nobinary else None}
