# SPDX-License-Identifier: LGPL-2.1-or-later
"""
The Python test library of waitdev: one place for what the host, qemu,
distro and kernel suites, the benchmarks (bench/) and the seed recorders
(fuzz/) share.

  waitdevtest          TOP (the source tree) and log()
  waitdevtest.host     the real-kernel host tests: Host, Proc,
                       UeventCounter, loop and veth helpers, main()
  waitdevtest.harness  QEMU boots: the kernel (fetched once into a
                       cache), the initramfs and its /init, the disks,
                       Boot, QMP, Check
  waitdevtest.images   the images Debian's dracut and mkinitramfs make,
                       with and without the hooks of hooks/

Imported normally, never by editing the module path: meson test puts
test/lib on PYTHONPATH (the suites' env:), and by hand tools/py does,
e.g. `tools/py bench/latency.py`. Standard library only.
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))


def log(msg, tag=None):
    """One line on stderr, prefixed "TAG: " when a tag is given. Control
    characters are written as \\xNN: a test's hostile input (bad_input.py)
    must not reach whatever terminal shows the log raw."""
    if tag:
        msg = "%s: %s" % (tag, msg)
    print(re.sub(r"[\x00-\x08\x0b-\x1f\x7f]",
                 lambda m: "\\x%02x" % ord(m.group()), msg),
          file=sys.stderr, flush=True)


# waitdev -v: "sda1: probe: 3 reads, 12 KiB, 1.2 ms: ext4" (engine.c,
# engine_log_probe()); "reads unknown" when the device's stat was not read
PROBE_LINE = re.compile(
    r"(?:^|\s)(?P<dev>[^\s:]+): probe: (?:(?P<reads>\d+) reads?, "
    r"(?P<size>\d+) (?P<unit>KiB|bytes)|reads unknown), "
    r"(?P<ms>\d+\.\d) ms: (?P<what>.*)$", re.M)


def probe_lines(text, dev=None):
    """The probes waitdev -v logged in @text (of @dev only, if given): a
    list of dicts dev, reads, bytes (None when unknown), ms, what."""
    out = []
    for m in PROBE_LINE.finditer(text):
        if dev is not None and m.group("dev") != dev:
            continue
        nbytes = None
        if m.group("reads") is not None:
            nbytes = int(m.group("size")) * (
                1024 if m.group("unit") == "KiB" else 1)
        out.append({"dev": m.group("dev"),
                    "reads": (int(m.group("reads"))
                              if m.group("reads") is not None else None),
                    "bytes": nbytes, "ms": float(m.group("ms")),
                    "what": m.group("what").strip()})
    return out
