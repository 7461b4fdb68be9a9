#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
Would waitdev end the root's device wait sooner than systemd in dracut's
systemd initrd? (issue 15 item 1.) Boots dracut's systemd initrd
(waitdevtest.images.DRACUT_SYSTEMD_MODULES, without the waitdev module)
with one unit added, an observer that runs the static waitdev with the
kernel source (its own uevents and blkid probe, not udev's) for the
root, beside systemd and ordered against nothing; the stick is plugged
once udev's coldplug has finished.

    tools/py bench/dracut-systemd-observe.py [--waitdev PATH] [--boots N]
                                             [--work DIR]

Per boot, seconds after the plug (host clock of the QMP device_add and
of each console line as it arrived): the kernel's partition line
(" sda: sda1"), waitdev's "found", systemd's "Found device", the root's
init; and systemd's "Found device" minus waitdev's "found": the most that
waitdev ending the wait itself could save. A measurement, never
pass/fail.
"""
import argparse
import os
import shutil
import sys
import tempfile

from waitdevtest import TOP, harness, images
from waitdevtest.harness import ROOT_UUID
from waitdevtest.images import APPEND, boot

sys.path.insert(0, os.path.join(TOP, "test", "distro"))
import systemd as sd  # noqa: E402
from distro import plug_on  # noqa: E402

OBSERVER = """[Unit]
Description=waitdev observing the root beside systemd (a measurement)
DefaultDependencies=no

[Service]
ExecStart=/usr/sbin/waitdev --kmsg --source kernel --root UUID=%s --timeout 120
StandardOutput=null
StandardError=null
""" % ROOT_UUID


def build(work, waitdev):
    vmlinuz, tree, kver = harness.obtain_kernel()
    unit = os.path.join(work, "waitdev-observe.service")
    with open(unit, "w") as f:
        f.write(OBSERVER)
    wants = os.path.join(work, "wants")
    os.makedirs(wants, exist_ok=True)
    link = os.path.join(wants, "waitdev-observe.service")
    if not os.path.lexists(link):
        os.symlink("/usr/lib/systemd/system/waitdev-observe.service", link)
    out = os.path.join(work, "observe.img")
    d = images.fresh_dir(os.path.join(work, "dracut-files"), "confdir")
    marker = os.path.join(d, "00-waitdev-test-start.sh")
    with open(marker, "w") as f:
        f.write(images.DRACUT_MARKER)
    script = (
        "dracut --force --quiet --no-hostonly --no-hostonly-cmdline "
        "--conf /dev/null --confdir {d}/confdir --no-early-microcode "
        "--gzip --kver {kver} -m '{m}' --drivers '{dr}' "
        "--include {marker} /lib/dracut/hooks/cmdline/00-waitdev-test-start.sh "
        "--include {wd} /usr/sbin/waitdev "
        "--include {unit} /usr/lib/systemd/system/waitdev-observe.service "
        "--include {wants} /etc/systemd/system/initrd.target.wants "
        "{out}\n").format(d=d, kver=kver, m=images.DRACUT_SYSTEMD_MODULES,
                          dr=" ".join(images.DRIVERS), marker=marker,
                          wd=waitdev, unit=unit, wants=wants, out=out)
    images.in_namespace(work, tree, kver, script, {}, "dracut")
    disk = harness.build_root_disk(work)[0]
    sd.add_os_release(disk)
    return {"vmlinuz": vmlinuz, "kver": kver, "initrd": out, "work": work,
            "disk": disk}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    ap.add_argument("--waitdev", default=harness.STATIC_WAITDEV)
    ap.add_argument("--boots", type=int, default=3)
    ap.add_argument("--work")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="waitdev-observe-")
    os.makedirs(work, exist_ok=True)
    harness.check_static(a.waitdev)
    try:
        env = build(work, os.path.abspath(a.waitdev))
        for i in range(a.boots):
            b = boot(env, "observe-%d" % i, APPEND["dracut"],
                     react=plug_on(sd.COLDPLUG_DONE), timeout=300)
            plug = b.events[0][0] if b.events else None
            part = b.first(r"\] +sda: sda1")
            wd = b.first(r"waitdev: root \S+: found")
            found = b.first(r"Found device .*waitdevroot")
            init = b.first("ROOT-INIT-OK")

            def after(t):
                return "%.2f" % (t - plug) if t and plug else None
            print("boot %d: after the plug: kernel's partition line %s, "
                  "waitdev found %s, systemd Found device %s, root init "
                  "%s; systemd - waitdev %s s"
                  % (i, after(part), after(wd), after(found), after(init),
                     "%.2f" % (found - wd) if found and wd else None),
                  flush=True)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
