#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
The Debian package, as a user gets it (meson test --suite package; root):

 1. the source tree as git has it (tracked files, and untracked ones
    not ignored: a clean clone gives exactly HEAD) is copied to a
    scratch directory, and dpkg-buildpackage -us -uc -b builds it there;
 2. lintian on the .changes: no error, and every warning's tag named in
    debian/README.source (where each one left is explained);
 3. apt-get install ./waitdev_*.deb: /usr/sbin/waitdev is the one
    program, rootwait and consolewait are links to it and answer to
    their names, the man pages, the dracut module and the initramfs-tools
    hook and scripts are where the tools read them, the package carries
    the update-initramfs trigger and dpkg ran it;
 4. mkinitramfs for Debian's kernel (the one test/qemu and test/distro
    boot, fetched once into /var/cache/waitdev-qemu), in a private mount
    namespace that sees the installed package's hook and scripts and
    nothing of the host's other packages (waitdevtest.images): the image
    holds waitdev, its two links and the scripts, and the waitdev in it
    runs there (chroot: its libraries came along);
 5. apt-get purge waitdev: every file dpkg listed for it is gone (a
    directory may stay only when another package owns it), dpkg knows
    the package no more, and the trigger ran again.

On a host without a kernel of its own (CI) the trigger's update-initramfs
has no image to update: step 4 is the image check. On a host with one, the
trigger does what it does for any user: update-initramfs -u rebuilds the
newest kernel's image at the install (with waitdev) and again at the
purge (without it).

The package is never left installed: it is purged in a finally block
whatever failed. A waitdev package installed before the test is not
touched: the test refuses to run. Every problem is a loud failure, never
a skip.

Usage: package.py [--kernel VMLINUZ --modules TREE] [--keep]
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

from waitdevtest import TOP, images, log as _log
from waitdevtest.harness import HarnessError, obtain_kernel

PKG = "waitdev"
# what each check needs, and the package that has it (tools/install-deps
# installs them all)
TOOLS = {
    "dpkg-buildpackage": "dpkg-dev",
    "dh": "debhelper",
    "lintian": "lintian",
    "fakeroot": "fakeroot",
    "mkinitramfs": "initramfs-tools-core",
    "lsinitramfs": "initramfs-tools-core",
    "unmkinitramfs": "initramfs-tools-core",
    "git": "git",
    "scdoc": "scdoc",
    "unshare": "util-linux",
}
# The installed files that must be there (besides /usr/sbin/waitdev).
WANT_FILES = [
    "/usr/share/man/man8/waitdev.8.gz",
    "/usr/share/man/man8/rootwait.8.gz",
    "/usr/share/man/man8/consolewait.8.gz",
    "/usr/share/man/man7/waitdev.7.gz",
    "/usr/share/man/man7/waitdev-hooks.7.gz",
    "/usr/lib/dracut/modules.d/90waitdev/module-setup.sh",
    "/usr/lib/dracut/modules.d/90waitdev/waitdev-root.sh",
    "/usr/lib/dracut/modules.d/90waitdev/waitdev-systemd.sh",
    "/usr/lib/dracut/modules.d/90waitdev/waitdev-diagnose.service",
    "/usr/lib/dracut/modules.d/90waitdev/waitdev-net.service",
    "/usr/share/initramfs-tools/hooks/waitdev",
    "/usr/share/initramfs-tools/scripts/init-top/waitdev",
    "/usr/share/initramfs-tools/scripts/init-premount/waitdev",
    "/usr/share/doc/waitdev/copyright",
]
TRIGGER = "activate-noawait update-initramfs"
TRIGGERED = "Processing triggers for initramfs-tools"

failures = []


def log(msg):
    _log(msg, tag="package")


def check(cond, what):
    """One assertion: logged either way, kept when it fails."""
    if cond:
        log("ok: " + what)
    else:
        failures.append(what)
        log("FAILED: " + what)
    return cond


def run(argv, cwd=None, env=None, what=None, logfile=None):
    """Runs @argv; its output goes to @logfile (and its tail to the log
    on failure) or is returned. Fails the test when it fails."""
    what = what or " ".join(argv)
    log("run: %s%s" % (" ".join(argv), " (in %s)" % cwd if cwd else ""))
    t0 = time.monotonic()
    p = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    log("  %s: exit %d in %.1f s" % (what, p.returncode,
                                    time.monotonic() - t0))
    if logfile:
        with open(logfile, "w") as f:
            f.write(p.stdout)
    if p.returncode != 0:
        raise HarnessError("%s failed (exit %d)%s:\n%s" % (
            what, p.returncode, "; whole output in " + logfile
            if logfile else "", p.stdout[-6000:]))
    return p.stdout


def clean_env():
    """The environment for the package build: this meson test's own
    variables (MESON_*, the test library's PYTHONPATH) stay out of the
    meson that dpkg-buildpackage runs."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MESON") and k not in ("PYTHONPATH",)}
    env["DEBIAN_FRONTEND"] = "noninteractive"
    env["LC_ALL"] = "C.UTF-8"
    return env


def status(pkg=PKG):
    """dpkg's status of @pkg ("install ok installed", "deinstall ok
    config-files", ...), "" when dpkg has no record of it."""
    r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


def installed(pkg=PKG):
    """Anything of @pkg on the system, configuration files included."""
    return status(pkg) not in ("", "unknown ok not-installed")


def preconditions():
    if os.geteuid() != 0:
        raise HarnessError("needs root (apt-get install and purge, "
                           "mount namespaces)")
    missing = sorted({pkg for tool, pkg in TOOLS.items()
                      if shutil.which(tool) is None})
    if missing:
        raise HarnessError("missing packages: %s (tools/install-deps "
                           "installs them)" % " ".join(missing))
    if installed():
        raise HarnessError("a %s package is on this host already (%s); "
                           "this test installs and purges its own, so it "
                           "will not run here: purge it first"
                           % (PKG, status()))


def copy_source(dest):
    """The tree as git has it: tracked files present in the work tree and
    untracked ones not ignored (a clean clone: HEAD). Returns the HEAD
    commit and whether the work tree differs from it."""
    files = subprocess.run(["git", "-C", TOP, "ls-files", "-z", "-c", "-o",
                            "--exclude-standard"], capture_output=True,
                           check=True).stdout.split(b"\0")
    n = 0
    for rel in files:
        if not rel:
            continue
        src = os.path.join(TOP.encode(), rel)
        if not os.path.lexists(src):
            continue  # deleted in the work tree
        dst = os.path.join(dest.encode(), rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.islink(src):
            os.symlink(os.readlink(src), dst)
        else:
            shutil.copy2(src, dst)
        n += 1
    head = subprocess.run(["git", "-C", TOP, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", TOP, "status", "--porcelain"],
                           capture_output=True, text=True).stdout.strip()
    log("source: %d files of %s at %s%s copied to %s" % (
        n, TOP, head or "(no commit)",
        " with uncommitted changes" if dirty else "", dest))


def changelog_version(src):
    return subprocess.run(["dpkg-parsechangelog", "-l",
                           os.path.join(src, "debian/changelog"), "-S",
                           "Version"], capture_output=True, text=True,
                          check=True).stdout.strip()


def meson_version(src):
    with open(os.path.join(src, "meson.build")) as f:
        for line in f:
            line = line.strip()
            if line.startswith("version:"):
                return line.split("'")[1]
    return None


def build(work):
    """Step 1: the package, from the copied tree. Returns (src, .changes,
    .deb)."""
    src = os.path.join(work, "src", PKG)
    os.makedirs(src)
    copy_source(src)
    version = changelog_version(src)
    check(version == meson_version(src),
          "debian/changelog's version %s is meson.build's project version "
          "(%s)" % (version, meson_version(src)))
    run(["dpkg-buildpackage", "-us", "-uc", "-b",
         "-j%d" % (os.cpu_count() or 1)],
        cwd=src, env=clean_env(), what="dpkg-buildpackage",
        logfile=os.path.join(work, "dpkg-buildpackage.log"))
    changes = glob.glob(os.path.join(work, "src", "%s_*.changes" % PKG))
    debs = glob.glob(os.path.join(work, "src", "%s_*.deb" % PKG))
    if len(changes) != 1 or len(debs) != 1:
        raise HarnessError("dpkg-buildpackage made %s and %s; want one "
                           ".changes and one %s .deb" % (changes, debs, PKG))
    log("built: %s" % ", ".join(sorted(os.path.basename(f) for f in
                                       glob.glob(os.path.join(work, "src",
                                                              "*.*deb")))))
    return src, changes[0], debs[0]


def lintian(src, changes):
    """Step 2: no E:, and each W: tag named in debian/README.source."""
    p = subprocess.run(["lintian", "--info", changes], capture_output=True,
                       text=True)
    lines = p.stdout.splitlines()
    for line in lines:
        log("lintian: " + line)
    if p.returncode not in (0, 1):
        raise HarnessError("lintian failed to run (exit %d): %s"
                           % (p.returncode, p.stderr.strip()))
    errors = [l for l in lines if l.startswith("E:")]
    warnings = [l for l in lines if l.startswith("W:")]
    check(not errors, "lintian: no errors (%d)" % len(errors))
    with open(os.path.join(src, "debian", "README.source")) as f:
        explained = f.read()
    for line in warnings:
        tag = line.split()[2]
        check(tag in explained, "lintian warning %s is explained in "
              "debian/README.source" % tag)
    log("lintian: %d errors, %d warnings, %d other lines"
        % (len(errors), len(warnings), len(lines) - len(errors) -
           len(warnings)))


def install(deb, version):
    """Step 3: apt-get install the .deb; what it put where."""
    triggers = subprocess.run(["dpkg-deb", "-I", deb, "triggers"],
                              capture_output=True, text=True).stdout
    check(TRIGGER in triggers.splitlines(),
          "the package's triggers file has '%s' (once: %d)"
          % (TRIGGER, triggers.splitlines().count(TRIGGER)))
    check(triggers.splitlines().count(TRIGGER) == 1,
          "the trigger is named once")
    out = run(["apt-get", "install", "-y", "--no-install-recommends",
               "-o", "DPkg::Lock::Timeout=300", "./" + os.path.basename(deb)],
              cwd=os.path.dirname(deb), env=clean_env(),
              what="apt-get install")
    log("apt-get install said:\n" + quiet(out))
    check(TRIGGERED in out, "installing ran initramfs-tools' trigger "
          "(apt-get: '%s')" % TRIGGERED)
    got = subprocess.run(["dpkg-query", "-W", "-f=${Version}", PKG],
                         capture_output=True, text=True).stdout.strip()
    check(got == version, "dpkg has %s %s installed (got '%s')"
          % (PKG, version, got))
    wd = "/usr/sbin/waitdev"
    check(os.path.isfile(wd) and not os.path.islink(wd)
          and os.access(wd, os.X_OK), "%s is an executable file" % wd)
    for name in ("rootwait", "consolewait"):
        path = "/usr/sbin/" + name
        check(os.path.islink(path) and os.readlink(path) == "waitdev",
              "%s is a symlink to waitdev (%s)" % (
                  path, os.readlink(path) if os.path.islink(path)
                  else "not a link"))
    for name in ("waitdev", "rootwait", "consolewait"):
        r = subprocess.run(["/usr/sbin/" + name, "--version"],
                           capture_output=True, text=True)
        first = (r.stdout.splitlines() or [""])[0]
        check(r.returncode == 0 and first.startswith("%s %s " %
                                                     (name, version)),
              "/usr/sbin/%s --version says '%s %s ...' (got '%s', exit %d)"
              % (name, name, version, first, r.returncode))
    r = subprocess.run(["/usr/sbin/waitdev", "--version"],
                       capture_output=True, text=True)
    check("libblkid" in r.stdout and "libkmod" in r.stdout
          and "udev source: yes" in r.stdout,
          "the packaged waitdev has every back end (%s)" % r.stdout.strip())
    for f in WANT_FILES:
        check(os.path.isfile(f), "%s is installed" % f)
    return dpkg_list()


def quiet(apt_output):
    """apt's output without dpkg's progress lines."""
    return "\n".join(l for l in apt_output.strip().splitlines()
                     if not l.startswith("(Reading database ..."))


def dpkg_list():
    out = subprocess.run(["dpkg-query", "-L", PKG], capture_output=True,
                         text=True, check=True).stdout
    return [l for l in out.splitlines() if l.startswith("/") and l != "/."]


def image(work, kernel, modules):
    """Step 4: mkinitramfs with the installed package's hook."""
    vmlinuz, tree, kver = obtain_kernel(kernel, modules)
    log("kernel %s (modules from %s)" % (kver, tree))
    conf = images.fresh_dir(os.path.join(work, "initramfs-tools"), "conf.d",
                            "hooks", "scripts")
    with open(os.path.join(conf, "initramfs.conf"), "w") as f:
        # a small image: the listed modules, not "most"
        f.write("MODULES=list\nBUSYBOX=y\nCOMPRESS=gzip\nRUNSIZE=10%\n"
                "FSTYPE=ext4\n")
    with open(os.path.join(conf, "modules"), "w") as f:
        f.write("\n".join(images.DRIVERS) + "\n")
    out = os.path.join(work, "initrd.img-" + kver)
    # no WAITDEV_BINARY: the hook finds the package's /usr/sbin/waitdev
    env = {"WAITDEV_BINARY": ""}
    t0 = time.monotonic()
    text = images.in_namespace(
        work, tree, kver,
        "mkinitramfs -d {c} -o {o} {k}\n".format(c=conf, o=out, k=kver),
        env, "mkinitramfs", packages=(PKG,))
    log("mkinitramfs: %.1f s, %d KiB; it said:\n%s" % (
        time.monotonic() - t0, os.path.getsize(out) // 1024, text.strip()))
    listing = set(l.strip() for l in subprocess.run(
        ["lsinitramfs", out], capture_output=True, text=True,
        check=True).stdout.splitlines())
    for f in ("usr/sbin/waitdev", "usr/sbin/rootwait", "usr/sbin/consolewait",
              "scripts/init-top/waitdev", "scripts/init-premount/waitdev"):
        check(f in listing, "lsinitramfs lists %s" % f)
    root = os.path.join(work, "unpacked")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    images.unpack(out, root)
    if os.path.isdir(os.path.join(root, "main")):
        root = os.path.join(root, "main")
    for name in ("rootwait", "consolewait"):
        p = os.path.join(root, "usr/sbin", name)
        check(os.path.islink(p) and os.readlink(p) == "waitdev",
              "in the image, usr/sbin/%s is a link to waitdev" % name)
    for name in ("waitdev", "rootwait"):
        r = subprocess.run(["chroot", root, "/usr/sbin/" + name,
                            "--version"], capture_output=True, text=True)
        check(r.returncode == 0 and r.stdout.startswith(name + " "),
              "%s runs inside the image (chroot; exit %d: %s%s)" % (
                  name, r.returncode, r.stdout.strip()[:60],
                  r.stderr.strip()[:200]))


def purge(files):
    """Step 5: apt-get purge; nothing of the package left."""
    out = run(["apt-get", "purge", "-y", "-o", "DPkg::Lock::Timeout=300",
               PKG], env=clean_env(), what="apt-get purge")
    log("apt-get purge said:\n" + quiet(out))
    check(TRIGGERED in out, "purging ran initramfs-tools' trigger")
    check(not installed(), "dpkg knows %s no more (status: '%s')"
          % (PKG, status()))
    left = []
    for f in files:
        if not os.path.lexists(f):
            continue
        if os.path.isdir(f) and not os.path.islink(f):
            r = subprocess.run(["dpkg-query", "-S", f], capture_output=True,
                               text=True)
            if r.returncode == 0 and r.stdout.strip():
                continue  # shared with another package
        left.append(f)
    check(not left, "every one of the %d paths dpkg listed is gone or "
          "another package's directory (left: %s)" % (len(files),
                                                      " ".join(left)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", help="a vmlinuz of one's own (with --modules)")
    ap.add_argument("--modules", help="the tree holding lib/modules/VERSION")
    ap.add_argument("--keep", action="store_true",
                    help="keep the scratch directory even on success")
    args = ap.parse_args()
    t_start = time.monotonic()
    times = []

    def stage(name, t0):
        times.append((name, time.monotonic() - t0))

    preconditions()
    work = tempfile.mkdtemp(prefix="waitdev-package-", dir="/var/tmp")
    ours = False
    try:
        t0 = time.monotonic()
        src, changes, deb = build(work)
        stage("dpkg-buildpackage", t0)
        t0 = time.monotonic()
        lintian(src, changes)
        stage("lintian", t0)
        t0 = time.monotonic()
        ours = True
        files = install(deb, changelog_version(src))
        stage("apt-get install", t0)
        t0 = time.monotonic()
        image(work, args.kernel, args.modules)
        stage("mkinitramfs", t0)
        t0 = time.monotonic()
        purge(files)
        ours = False
        stage("apt-get purge", t0)
    except HarnessError as e:
        failures.append(str(e).splitlines()[0])
        log("FAILED: %s" % e)
    finally:
        if ours and installed():
            log("cleanup: purging the %s package this test installed" % PKG)
            r = subprocess.run(["apt-get", "purge", "-y", "-o",
                                "DPkg::Lock::Timeout=300", PKG],
                               env=clean_env(), capture_output=True,
                               text=True)
            if r.returncode != 0 or installed():
                log("FAILED: cleanup: apt-get purge %s: exit %d\n%s"
                    % (PKG, r.returncode, r.stdout + r.stderr))
                failures.append("cleanup purge failed")
    log("times: " + ", ".join("%s %.0f s" % t for t in times) +
        ", total %.0f s" % (time.monotonic() - t_start))
    if failures or args.keep:
        log("scratch directory kept: %s" % work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        log("%d FAILED:\n  %s" % (len(failures), "\n  ".join(failures)))
        return 1
    log("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
