#!/usr/bin/env python3
"""Records the uevents of a QEMU boot for the uevent seed corpus.

As root, with the QEMU harness (waitdevtest.harness: Debian's kernel, a
minimal initramfs with the static waitdev): boots a guest whose /init
runs busybox's `uevent` applet, which hands every kernel uevent to a
script as its environment; waitdev --modprobe --coldplug loads the
drivers (xhci, then usb-storage, sd, ftdi_sio, virtio_net ...) while the
harness plugs a USB stick, a USB-serial adapter and a virtio-net NIC.
The script prints each uevent's variables on the serial console; this
script rebuilds the datagrams ("ACTION@DEVPATH", then ACTION, DEVPATH,
SUBSYSTEM, the others as the environment listed them and SEQNUM last,
as the kernel orders them) and keeps one of each kind (action,
subsystem, device type) in fuzz/corpus/uevent/qemu-*.

Usage: tools/py fuzz/record-qemu-seeds.py [--waitdev BIN] [OUTDIR]
BIN defaults to build-static/bin/waitdev (tools/build-static).
"""
import argparse
import collections
import os
import re
import sys
import tempfile

sys.dont_write_bytecode = True
from waitdevtest import TOP, harness  # noqa: E402

MAX_PER_KIND = 1
# what the shell running the script adds to its environment
SHELL_VARS = ("SHLVL", "PWD", "OLDPWD", "_")

# /bench/init (the harness's /init runs it for bench=MODE): what the
# guest does. The environment /init had is left out of every uevent.
RECORD_INIT = r"""#!/bin/busybox sh
mkdir -p /tmp
env > /tmp/base-env
cat > /tmp/dump <<'EOF'
#!/bin/busybox sh
n=$(cat /proc/sys/kernel/random/uuid)
env | grep -vxF -f /tmp/base-env | sed "s/^/UEV $n /"
echo "UEV $n END"
EOF
chmod +x /tmp/dump
uevent /tmp/dump &
echo "RECORD-LISTENING"
/sbin/waitdev --modprobe --coldplug --cmdline '' --root /dev/sda1 \
	--console ttyUSB0 --net any --timeout 20 --no-kmsg >/dev/null 2>&1
echo "RECORD-FOUND $?"
sleep 8
echo "RECORD-DONE"
poweroff -f
"""


def parse(serial):
    """{uuid: [(key, value)]} for every uevent printed completely."""
    events, done = collections.OrderedDict(), set()
    for _, line in serial:
        m = re.match(r".*?UEV ([0-9a-f-]{36}) (.*)$", line)
        if not m:
            continue
        uid, kv = m.groups()
        if kv == "END":
            done.add(uid)
            continue
        if "=" in kv:
            k, v = kv.split("=", 1)
            if k not in SHELL_VARS:
                events.setdefault(uid, []).append((k, v))
    return [events[u] for u in events if u in done]


def datagram(kvs):
    d = dict(kvs)
    if not all(k in d for k in ("ACTION", "DEVPATH", "SUBSYSTEM",
                                "SEQNUM")):
        return None
    first = ("ACTION", "DEVPATH", "SUBSYSTEM")
    order = list(first) + [k for k, _ in kvs
                           if k not in first and k != "SEQNUM"]
    order.append("SEQNUM")
    body = "".join("%s=%s\0" % (k, d[k]) for k in order)
    return ("%s@%s\0" % (d["ACTION"], d["DEVPATH"]) + body).encode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--waitdev",
                    default=harness.STATIC_WAITDEV)
    ap.add_argument("out", nargs="?",
                    default=os.path.join(TOP, "fuzz/corpus/uevent"))
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="waitdev-record-")
    script = os.path.join(work, "record-init")
    with open(script, "w") as f:
        f.write(RECORD_INIT)
    os.chmod(script, 0o755)
    env = harness.setup(work, a.waitdev, extra={"/bench/init": script})
    ttyout = os.path.join(work, "ttyUSB0.out")
    b = harness.Boot(
        work, env["vmlinuz"], env["initrd"],
        "console=ttyS0 panic=-1 rdinit=/init quiet bench=record",
        ["-drive", "if=none,id=rootdisk,format=raw,file=%s" % env["disk"],
         "-device", "qemu-xhci,id=xhci", "-netdev", "user,id=n0"],
        [(1.0, "device_add", {"driver": "usb-storage", "bus": "xhci.0",
                              "drive": "rootdisk", "id": "stick"}),
         (1.5, "chardev-add", {"id": "cs0", "backend": {
             "type": "file", "data": {"out": ttyout}}}),
         (1.5, "device_add", {"driver": "usb-serial", "bus": "xhci.0",
                              "chardev": "cs0", "id": "serial0"}),
         (2.0, "device_add", {"driver": "virtio-net-pci", "netdev": "n0",
                              "id": "nic0"})],
        timeout=120, name="record").run()
    if not b.lines("RECORD-DONE"):
        sys.exit("record-qemu-seeds: the guest did not finish:\n" +
                 b.text())
    kept = collections.Counter()
    n = 0
    for kvs in parse(b.serial):
        d = dict(kvs)
        dg = datagram(kvs)
        if dg is None:
            continue
        kind = "-".join(x for x in (d["ACTION"], d["SUBSYSTEM"],
                                    d.get("DEVTYPE", "")) if x)
        kind = re.sub(r"[^A-Za-z0-9_-]", "_", kind)
        if kept[kind] == MAX_PER_KIND:
            continue
        name = "qemu-%s-%d" % (kind, kept[kind])
        kept[kind] += 1
        with open(os.path.join(a.out, name), "wb") as f:
            f.write(dg)
        n += 1
    print("record-qemu-seeds: %d uevents seen, %d kept in %s (%s)"
          % (len(parse(b.serial)), n, a.out,
             ", ".join("%s %d" % kv for kv in sorted(kept.items()))))
    if n == 0:
        sys.exit(1)


if __name__ == "__main__":
    main()
