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
