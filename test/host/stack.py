#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
stack: waitdev.stack= waits for the bottom of a stacked root (issue 15
item 2) - the devices cryptsetup, lvm or mdadm assemble the root from,
which carry no filesystem of their own. On loop104 a LUKS2 container
(cryptsetup luksFormat, a key file, no prompt), on loop105 an LVM2
physical volume (pvcreate on the loop device, then detached):

  * both attached late, one after the other: the wait does not end on
    the first, it ends on the second, and --format shell's WAITDEV_STACK
    names both devices in the order of the specs;
  * one never comes (rootwait=2): exit 1 at the root's deadline, the
    diagnosis names the missing spec, and JSON has both as role "stack",
    the container found and the PV timed out;
  * rootfstype=ext4 (the root's type, inside the container) does not
    hide the container or the PV: both found at once when present;
  * --stack, the option, is the same list.

blkid(8) -p checks each image first, so a failure is waitdev's.
"""
import subprocess
import sys
sys.dont_write_bytecode = True
import json  # noqa: E402
from waitdevtest import host  # noqa: E402

LUKS, PV = 104, 105
# no udev here, no devices file, no metadata backups in /etc/lvm
LVM_CONFIG = ("devices { obtain_device_list_from_udev=0 use_devicesfile=0 } "
              "activation { udev_sync=0 udev_rules=0 } "
              "backup { backup=0 archive=0 }")


def run_tool(argv, what, stdin=None):
    host.log("+ " + " ".join(argv))
    r = subprocess.run(argv, input=stdin, capture_output=True)
    if r.returncode != 0:
        raise host.Fatal("%s: status %d: %s" % (what, r.returncode,
                                                r.stderr.decode().strip()))


def expect_type(img, fs_type):
    rc, vals = host.blkid_p(img)
    if rc != 0 or vals.get("TYPE") != fs_type or not vals.get("UUID"):
        raise host.Fatal("blkid -p %s: expected TYPE=%s with a UUID, got "
                         "status %d %s" % (img, fs_type, rc, vals))
    return vals["UUID"]


def images(h):
    """The LUKS container's and the PV's backing files and UUIDs."""
    luks = h.image("luks", None, size=16 << 20)
    run_tool(["cryptsetup", "luksFormat", "--batch-mode", "--pbkdf",
              "pbkdf2", "--pbkdf-force-iterations", "1000",
              "--key-file", "-", luks],
             "cryptsetup luksFormat (package cryptsetup-bin)", b"wdt")
    pv = h.image("pv", None, size=16 << 20)
    h.attach(PV, pv)
    run_tool(["pvcreate", "--yes", "--config", LVM_CONFIG,
              "/dev/loop%d" % PV], "pvcreate (package lvm2)")
    h.detach(PV)
    return (luks, expect_type(luks, "crypto_LUKS"),
            pv, expect_type(pv, "LVM2_member"))


def stack_var(p):
    """The devices in --format shell's WAITDEV_STACK (blank-separated in
    one quoted word), in the order of the specs."""
    return (host.shell_vars(p.stdout).get("WAITDEV_STACK") or "").split()


def body(h):
    if not h.blkid:
        raise host.Fatal("this waitdev has no libblkid probe (%s): a "
                         "container or a PV is recognised by it"
                         % h.features["probe"])
    for n in (LUKS, PV):
        h.loop(n)
    luks, luks_uuid, pv, pv_uuid = images(h)
    stack = "waitdev.stack=UUID=%s,UUID=%s" % (luks_uuid, pv_uuid)

    with h.case("LUKS and PV attached late: the wait ends on the second"):
        p = h.start([h.waitdev, "--source", "kernel", "--cmdline",
                     stack + " rootwait=10", "--format", "shell"])
        h.expect_running(p, 0.5, "neither device has a medium")
        h.attach(LUKS, luks)
        h.expect_running(p, 0.7, "the PV is still missing")
        t = h.attach(PV, pv)
        h.expect_exit(p, 0, 3, since=t, why="after the PV's losetup")
        h.check(stack_var(p) == ["/dev/loop%d" % LUKS, "/dev/loop%d" % PV],
                "expected WAITDEV_STACK to name both, got %r"
                % stack_var(p), p)

    with h.case("present, with the root's rootfstype=ext4: found at once"):
        p = h.run([h.waitdev, "--source", "kernel", "--cmdline",
                   stack + " rootwait=10 rootfstype=ext4", "--format",
                   "shell"], timeout=5)
        h.check(p.rc == 0, "expected exit 0", p)
        h.check("found /dev/loop%d" % LUKS in p.stderr and
                "found /dev/loop%d" % PV in p.stderr,
                "expected both found", p)

    h.detach(PV)
    with h.case("the PV never comes (rootwait=2): exit 1 at the deadline, "
                "the missing spec named"):
        p = h.start([h.waitdev, "--source", "kernel", "--cmdline",
                     stack + " rootwait=2", "--format", "json"])
        took = h.expect_exit(p, 1, 4)
        h.check(took >= 1.9, "exited after %.3f s, before rootwait=2"
                % took, p)
        h.check("stack UUID=%s: missing after" % pv_uuid in p.stderr,
                "expected the PV's spec named missing", p)
        targets = json.loads(p.stdout)["targets"]
        states = [(t["role"], t["spec"], t["state"]) for t in targets]
        h.check(states == [("stack", "UUID=" + luks_uuid, "found"),
                           ("stack", "UUID=" + pv_uuid, "timeout")],
                "expected the container found and the PV timed out, got "
                "%r" % states, p)

    with h.case("--stack, the option: the same list"):
        h.attach(PV, pv)
        p = h.run([h.waitdev, "--source", "kernel", "--cmdline", "",
                   "--stack", "UUID=%s,UUID=%s" % (luks_uuid, pv_uuid),
                   "--timeout", "5", "--format", "shell"], timeout=8)
        h.check(p.rc == 0, "expected exit 0", p)
        h.check(stack_var(p) == ["/dev/loop%d" % LUKS, "/dev/loop%d" % PV],
                "expected WAITDEV_STACK to name both, got %r"
                % stack_var(p), p)


host.main("stack", body)
