#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
The dracut initqueue job hooks/dracut/90waitdev/waitdev-root.sh, sourced
the way dracut's init sources it, by every POSIX shell at hand (dash,
bash, busybox sh), with dracut's functions stubbed and the real waitdev
waiting on a fake sysfs and an injected (here silent) uevent feed:

    dracut_root.py WAITDEV HOOK

- "--" on the command line (init's arguments follow) with a plain
  rootwait before it: the job's own settings (waitdev.root=, rootwait=)
  still count, so waitdev gives up at the job's deadline instead of
  waiting forever; also with a "--" inside quotes, which is no separator;
- the root there: the job hands dracut the node found;
- waitdev.net= with :up and :carrier: waitdev waits only for the
  interfaces to exist (dracut's network jobs, which the job holds up,
  would bring them up), so a down interface does not hold the job for
  waitdev's net deadline;
- the off switch (rd.waitdev=0, waitdev=0: the last one wins), an
  explicit empty waitdev.root=, which the job's own waitdev.root= would
  otherwise override, and a block root over the network (netroot=,
  rd.iscsi.*, fcoe=, rd.nvmf.*, rd.neednet=1), whose network jobs this
  job would hold up: the job says why and leaves the wait to dracut,
  without running waitdev;
- a stacked root (an lvm, cryptsetup, ... in the image): the job waits
  for the devices named by waitdev.stack=, rd.luks.uuid= (luks- dropped)
  and rd.md.uuid= (mdadm's form as libblkid writes a member's UUID),
  with the root's deadline and not for the root, each device once, and
  leaves root as it is for dracut's own jobs to assemble; with none
  named it steps aside;
- the job leaves none of its names in init's shell.

Standard library only; no root needed. Exit 0 when every case passed.
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

STUBS = r"""
getcmdline() { printf '%s' "$TEST_CMDLINE"; }
warn() { echo "warn: $*"; }
info() { echo "info: $*"; }
cancel_wait_for_dev() { echo "cancel_wait_for_dev $1"; }
wait_for_dev() { echo "wait_for_dev $1"; }
RDRETRY=3        # rd.retry=1.5: the job's root deadline is 1 s
main_loop=0
root="$TEST_ROOT"
job="$TEST_JOB"
"""
AFTER = r"""
echo "RESULT root=$root main_loop=$main_loop"
for v in spec out rc secs tool cmdline net log w rest q part noglob \
        presence strip s off wroot netkey why stack u a b c d; do
    eval "[ -z \"\${$v+set}\" ] || echo \"LEAKED $v\""
done
"""


def add_device(sysfs, subsystem, name, uevent, files=None):
    d = os.path.join(sysfs, "devices", "virtual", subsystem, name)
    os.makedirs(d)
    with open(os.path.join(d, "uevent"), "w") as f:
        f.write(uevent)
    for fname, text in (files or {}).items():
        with open(os.path.join(d, fname), "w") as f:
            f.write(text + "\n")
    cls = os.path.join(sysfs, "class", subsystem)
    os.makedirs(cls, exist_ok=True)
    os.symlink(os.path.join("..", "..", "devices", "virtual", subsystem,
                            name), os.path.join(cls, name))


def make_sysfs(top, root=False, net=False):
    sysfs = os.path.join(top, "sys")
    for c in ("block", "tty", "net"):
        os.makedirs(os.path.join(sysfs, "class", c))
    # every sysfs has devices/; waitdev refuses a --sysfs tree without it
    os.makedirs(os.path.join(sysfs, "devices"))
    if root:
        add_device(sysfs, "block", "sdq1",
                   "MAJOR=259\nMINOR=7\nDEVNAME=sdq1\nDEVTYPE=partition\n"
                   "PARTN=1\n", {"size": "2048"})
    if net:
        # down: flags without IFF_UP, no carrier
        add_device(sysfs, "net", "eth9", "INTERFACE=eth9\nIFINDEX=9\n",
                   {"address": "52:54:00:12:34:56", "flags": "0x1002",
                    "operstate": "down"})
        add_device(sysfs, "net", "eth8", "INTERFACE=eth8\nIFINDEX=8\n",
                   {"address": "52:54:00:12:34:57", "flags": "0x1002",
                    "operstate": "down"})
    return sysfs


def run_job(shell, waitdev, hook, cmdline, sysfs, top, root, bound,
            tools=()):
    """Source the job in @shell, with stand-ins of the assemblers @tools
    in its PATH; returns (output, seconds, waitdev's arguments)."""
    stubdir = os.path.join(top, "bin")
    os.makedirs(stubdir, exist_ok=True)
    for t in tools:
        with open(os.path.join(stubdir, t), "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(os.path.join(stubdir, t), 0o755)
    # PATH holds only these: no lvm, mdadm, ... of the host (the job
    # would step aside)
    rm = shutil.which("rm")
    if not os.path.exists(os.path.join(stubdir, "rm")):
        os.symlink(rm, os.path.join(stubdir, "rm"))
    feed_r, feed_w = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    argsfile = os.path.join(top, "args")
    with open(os.path.join(stubdir, "waitdev"), "w") as f:
        # the real waitdev on the fake system; --no-kmsg last: the job
        # asks for --kmsg, which would write into the host's kernel log
        f.write("#!/bin/sh\nprintf '%%s\\n' \"$@\" > '%s'\n"
                "exec '%s' --sysfs '%s' --uevent-fd %d \"$@\" --no-kmsg\n"
                % (argsfile, waitdev, sysfs, feed_r.fileno()))
    os.chmod(os.path.join(stubdir, "waitdev"), 0o755)
    job = os.path.join(top, "00-waitdev-root.sh")
    shutil.copy(hook, job)
    os.makedirs(os.path.join(top, "run", "initramfs"), exist_ok=True)
    script = STUBS + '. "$job"\n' + AFTER
    env = {"PATH": stubdir, "TEST_CMDLINE": cmdline, "TEST_ROOT": root,
           "TEST_JOB": job}
    # the job logs to /run/initramfs/waitdev.log: point it into @top
    hooktext = open(job).read().replace(
        "/run/initramfs/waitdev.log",
        os.path.join(top, "run", "initramfs", "waitdev.log"))
    with open(job, "w") as f:
        f.write(hooktext)
    start = time.monotonic()
    try:
        p = subprocess.run(shell + [script], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=bound,
                           pass_fds=[feed_r.fileno()])
        out = p.stdout
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) \
            else (e.stdout or "")
        out += "\n(TIMEOUT after %d s)" % bound
    took = time.monotonic() - start
    feed_r.close()
    feed_w.close()
    try:
        with open(argsfile) as f:
            args = f.read().splitlines()
        os.unlink(argsfile)
    except FileNotFoundError:
        args = []
    log = os.path.join(top, "run", "initramfs", "waitdev.log")
    if os.path.exists(log):
        with open(log) as f:
            out += "\n[waitdev.log]\n" + f.read()
        os.unlink(log)
    return out, took, args


def shells():
    found = []
    for name, argv in (("dash", ["dash", "-c"]), ("bash", ["bash", "-c"]),
                       ("busybox", ["busybox", "sh", "-c"])):
        path = shutil.which(argv[0])
        if path:
            found.append((name, [path] + argv[1:]))
    return found


def main():
    waitdev, hook = sys.argv[1], sys.argv[2]
    failures = []

    def check(name, cond, what, out):
        if not cond:
            failures.append("%s: %s" % (name, what))
            print("FAIL %s: %s\n--- output ---\n%s\n---" % (name, what, out))

    cases = [
        # name, cmdline, root, sysfs contents, expectations
        ("dashdash", "console=ttyS0 root=/dev/sdq1 rootwait ro -- single",
         "block:/dev/sdq1", {}, "gave-up"),
        ("quoted-dashdash",
         'root=/dev/sdq1 foo="a -- b" rootwait -- single',
         "block:/dev/sdq1", {}, "gave-up"),
        ("found", "root=/dev/sdq1 rootwait -- single", "block:/dev/sdq1",
         {"root": True}, "found"),
        ("net-presence",
         "root=/dev/sdq1 waitdev.net=eth9:up,52:54:00:12:34:57:carrier",
         "block:/dev/sdq1", {"root": True, "net": True},
         "found"),
        ("off-rd", "root=/dev/sdq1 rd.waitdev=0 rootwait", "block:/dev/sdq1",
         {"root": True}, "not:off by rd.waitdev=0 on the command line"),
        ("off-last-wins", "rd.waitdev=0 root=/dev/sdq1 waitdev=n",
         "block:/dev/sdq1", {"root": True},
         "not:off by waitdev=n on the command line"),
        ("on-last-wins", "waitdev=0 root=/dev/sdq1 rd.waitdev=1",
         "block:/dev/sdq1", {"root": True}, "found"),
        ("off-after-dashdash", "root=/dev/sdq1 -- waitdev=0",
         "block:/dev/sdq1", {"root": True}, "found"),
        ("empty-waitdev-root", "root=/dev/sdq1 waitdev.root= rootwait",
         "block:/dev/sdq1", {"root": True},
         "not:off by an empty waitdev.root= on the command line"),
        # a block root that comes over the network: the network jobs
        # must run, and this job would hold them up
        ("netroot-iscsi", "root=UUID=1234-abcd netroot=iscsi:192.0.2.1::::"
         "iqn.2009-01.org.example:disk ip=dhcp", "block:/dev/sdq1",
         {"root": True}, "not:netroot= needs dracut's network jobs first"),
        ("rd-iscsi", "root=/dev/sdq1 rd.iscsi.initiator=iqn.x rd.iscsi.firmware",
         "block:/dev/sdq1", {"root": True},
         "not:rd.iscsi.initiator= needs dracut's network jobs first"),
        ("fcoe", "root=/dev/sdq1 fcoe=eth0:nodcb", "block:/dev/sdq1",
         {"root": True}, "not:fcoe= needs dracut's network jobs first"),
        ("nvmf", "root=/dev/sdq1 rd.nvmf.discover=tcp,192.0.2.1",
         "block:/dev/sdq1", {"root": True},
         "not:rd.nvmf.discover= needs dracut's network jobs first"),
        ("neednet", "root=/dev/sdq1 rd.neednet=1 ip=dhcp", "block:/dev/sdq1",
         {"root": True}, "not:rd.neednet= needs dracut's network jobs first"),
        ("neednet-0", "root=/dev/sdq1 rd.neednet=0", "block:/dev/sdq1",
         {"root": True}, "found"),
        # stacked roots: an assembler in the image (ASSEMBLERS)
        ("stack-found", "root=/dev/mapper/wdtroot waitdev.stack=/dev/sdq1",
         "block:/dev/mapper/wdtroot", {"root": True}, "stack-found"),
        ("stack-luks-md", "root=/dev/mapper/wdtroot rd.luks.uuid=luks-"
         "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0 "
         "rd.md.uuid=3f2c1b0e:12345678:9abcdef0:11223344",
         "block:/dev/mapper/wdtroot", {"root": True}, "stack-gave-up"),
        # a hostonly image: rd.luks.uuid= and the module's recorded
        # stack name the same container, waited for once
        ("stack-once", "root=/dev/mapper/wdtroot rd.luks.uuid=0f1e2d3c-"
         "4b5a-4968-8776-a5b4c3d2e1f0 waitdev.stack=UUID=0f1e2d3c-4b5a-"
         "4968-8776-a5b4c3d2e1f0", "block:/dev/mapper/wdtroot",
         {"root": True}, "stack-gave-up"),
        ("stack-none", "root=/dev/mapper/wdtvg-root rd.lvm.vg=wdtvg",
         "block:/dev/mapper/wdtvg-root", {"root": True},
         "not:lvm may assemble the root and no device it is made of is "
         "named (rd.luks.uuid=, rd.md.uuid=, waitdev.stack=)"),
    ]
    # the assemblers in the image of each stacked case
    assemblers = {"stack-found": ["cryptsetup"],
                  "stack-luks-md": ["cryptsetup", "mdadm"],
                  "stack-once": ["cryptsetup"],
                  "stack-none": ["lvm"]}
    stack_asked = {
        "stack-found": "waitdev.root= waitdev.stack=/dev/sdq1 rootwait=1",
        "stack-luks-md": "waitdev.root= waitdev.stack=UUID=0f1e2d3c-4b5a-"
                         "4968-8776-a5b4c3d2e1f0,UUID=3f2c1b0e-1234-5678-"
                         "9abc-def011223344 rootwait=1",
        "stack-once": "waitdev.root= waitdev.stack=UUID=0f1e2d3c-4b5a-"
                      "4968-8776-a5b4c3d2e1f0 rootwait=1",
    }
    sh = shells()
    if not sh:
        print("no POSIX shell found")
        return 1
    for shname, argv in sh:
        for name, cmdline, root, fs, want in cases:
            cname = "%s/%s" % (shname, name)
            top = tempfile.mkdtemp(prefix="waitdev-dracut-root-")
            try:
                sysfs = make_sysfs(top, **fs)
                # gave up: the 1 s deadline, then the job returns; found:
                # at once. Never the net deadline (30 s) or forever.
                out, took, args = run_job(argv, waitdev, hook, cmdline,
                                          sysfs, top, root, 15,
                                          assemblers.get(name, ()))
            finally:
                shutil.rmtree(top, ignore_errors=True)
            print("%s: %.2f s" % (cname, took))
            check(cname, "TIMEOUT" not in out and took < 8,
                  "the job returns within 8 s (took %.2f s)" % took, out)
            check(cname, "LEAKED" not in out,
                  "no names left in init's shell", out)
            check(cname, "waitdev: failed" not in out,
                  "waitdev did not fail", out)
            text = args[args.index("--cmdline") + 1] \
                if "--cmdline" in args else ""
            check(cname, " -- " not in " %s " % text.replace('"a -- b"', ""),
                  "the command line given to waitdev stops before the "
                  "kernel's \"--\" (%r)" % text, out)
            if want.startswith("not:"):
                check(cname, "info: waitdev: %s; dracut waits the stock way"
                      % want[4:] in out, "the job says why it does not wait",
                      out)
                check(cname, not args, "waitdev did not run (%s)" % args,
                      out)
                check(cname, "RESULT %s main_loop=0" % ("root=" + root)
                      in out, "root and main_loop untouched", out)
            elif want == "gave-up":
                check(cname, "RESULT root=block:/dev/sdq1 main_loop=2" in out,
                      "gave up: root unchanged, main_loop at the timeout "
                      "jobs (2/3 of RDRETRY)", out)
                check(cname, "root /dev/sdq1: missing after 1.0" in out,
                      "waitdev's root deadline is the job's (1 s)", out)
                check(cname, took > 0.9, "waitdev did wait (%.2f s)" % took,
                      out)
            elif want == "stack-found":
                check(cname, "RESULT root=%s main_loop=0" % root in out
                      and "wait_for_dev" not in out,
                      "the stack found: root left to dracut's jobs", out)
                check(cname, "info: waitdev: stack /dev/sdq1 found (/dev/sdq1); "
                      "dracut assembles the root" in out, "and says so", out)
            elif want == "stack-gave-up":
                check(cname, "RESULT root=%s main_loop=2" % root in out,
                      "gave up on the stack: root unchanged, main_loop at "
                      "the timeout jobs", out)
                check(cname, "stack UUID=0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0:"
                      " missing after 1.0" in out,
                      "the stack's deadline is the job's root deadline", out)
            else:
                check(cname, "RESULT root=block:/dev/sdq1 main_loop=0" in out
                      and "wait_for_dev /dev/sdq1" in out,
                      "found: root is the node, dracut waits for it", out)
            if name in stack_asked:
                check(cname, text.endswith(" " + stack_asked[name]),
                      "waitdev is asked for the stack, not the root (%r)"
                      % text, out)
            if name == "net-presence":
                check(cname, "waitdev.net=eth9,52:54:00:12:34:57" in text,
                      "the job asks only for the interfaces to exist", out)
                check(cname, "interfaces eth9,52:54:00:12:34:57 to exist"
                      in out, "and says so", out)
                check(cname, "net eth9: found" in out and
                      "net 52:54:00:12:34:57: found" in out,
                      "waitdev found both, down as they are", out)
    print("dracut_root: %s" % ("ok" if not failures else
                               "%d failed: %s" % (len(failures),
                                                  "; ".join(failures))))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
