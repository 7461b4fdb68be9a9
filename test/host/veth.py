#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
veth: network interfaces that appear, come up, or get a carrier while
waitdev --net waits. Existence comes from uevents; :up and :carrier from
rtnetlink. A veth end has a carrier only while both ends are up.
"""
import sys
sys.dont_write_bytecode = True
import re  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from waitdevtest import host  # noqa: E402

MAC = "02:00:00:aa:bb:01"
MAC9 = "02:00:00:aa:bb:09"


def waitdev_net(h, spec, timeout="10"):
    return h.start([h.waitdev, "--cmdline", "", "--net", spec,
                    "--timeout", timeout, "--format", "shell"])


def expect_net(h, p, since, names):
    h.expect_exit(p, 0, 3, since=since)
    got = host.shell_vars(p.stdout).get("WAITDEV_NET")
    h.check(got in names, "expected WAITDEV_NET to be %s"
            % " or ".join(repr(n) for n in names), p)


def body(h):
    h.require_veth()
    for name in ("wdt0a", "wdt1a", "wdt2a", "wdt3a", "wdt4a", "wdt4b"):
        if h.link_exists(name):
            h.ip("link", "del", name)

    with h.case("--net wdt0a: the interface appears while waiting"):
        p = waitdev_net(h, "wdt0a")
        h.expect_running(p, 0.5, "wdt0a does not exist yet")
        t = h.veth("wdt0a", "wdt0b")
        expect_net(h, p, t, ["wdt0a"])
        h.check("WAITDEV_NET='wdt0a'" in p.stdout.splitlines(),
                "expected the line WAITDEV_NET='wdt0a'", p)

    with h.case("--net wdt0a: present already, found at once"):
        p = waitdev_net(h, "wdt0a")
        expect_net(h, p, None, ["wdt0a"])

    with h.case("--net %s: by MAC address" % MAC):
        p = waitdev_net(h, MAC)
        h.expect_running(p, 0.5, "no interface has %s yet" % MAC)
        t = h.veth("wdt1a", "wdt1b", address=MAC)
        expect_net(h, p, t, ["wdt1a"])

    with h.case("--net %s: the MAC in upper case with dashes" %
                MAC.upper().replace(":", "-")):
        p = waitdev_net(h, MAC.upper().replace(":", "-"))
        expect_net(h, p, None, ["wdt1a"])

    with h.case("--net wdt7z: an interface renamed to it ('move' uevent)"):
        h.veth("wdt7a", "wdt7b")
        if h.link_exists("wdt7z"):
            h.ip("link", "del", "wdt7z")
        h.links.append("wdt7z")
        p = waitdev_net(h, "wdt7z")
        h.expect_running(p, 0.5, "no interface is called wdt7z yet")
        h.ip("link", "set", "wdt7a", "name", "wdt7z")
        t = time.monotonic()
        expect_net(h, p, t, ["wdt7z"])

    with h.case("--net %s,wdt9q: found by MAC, renamed (as udev's "
                "eth0 -> enpXsY), reported under the new name" % MAC9):
        for name in ("wdt9a", "wdt9r", "wdt9q"):
            if h.link_exists(name):
                h.ip("link", "del", name)
        h.links += ["wdt9r", "wdt9q"]
        p = waitdev_net(h, MAC9 + ",wdt9q")
        h.expect_running(p, 0.5, "no interface has %s yet" % MAC9)
        h.veth("wdt9a", "wdt9b", address=MAC9)
        h.expect_running(p, 0.5, "wdt9q does not exist yet")
        # its "move" uevent comes before wdt9q's "add"
        h.ip("link", "set", "wdt9a", "name", "wdt9r")
        t = h.veth("wdt9q", "wdt9p")
        h.expect_exit(p, 0, 3, since=t)
        h.check("WAITDEV_NET='wdt9r wdt9q'" in p.stdout.splitlines(),
                "expected the line WAITDEV_NET='wdt9r wdt9q'", p)

    with h.case("--net wdt2a:up: waits for IFF_UP"):
        h.veth("wdt2a", "wdt2b")
        p = waitdev_net(h, "wdt2a:up")
        h.expect_running(p, 0.5, "wdt2a exists but is down")
        h.ip("link", "set", "wdt2a", "up")
        t = time.monotonic()
        expect_net(h, p, t, ["wdt2a"])

    with h.case("--net wdt3a:carrier: waits for the peer to come up"):
        h.veth("wdt3a", "wdt3b")
        h.ip("link", "set", "wdt3a", "up")
        p = waitdev_net(h, "wdt3a:carrier")
        h.expect_running(p, 0.5, "wdt3a is up but wdt3b is down: no "
                         "carrier")
        h.ip("link", "set", "wdt3b", "up")
        t = time.monotonic()
        expect_net(h, p, t, ["wdt3a"])

    with h.case("--net wdt3a:carrier: reports the link state on timeout"):
        h.ip("link", "set", "wdt3b", "down")
        p = waitdev_net(h, "wdt3a:carrier", timeout="0.5")
        rc = p.wait(5)
        h.check(rc == 1, "expected exit status 1 (no carrier)", p)
        h.check(re.search(r"seen interface wdt3a \([^)]*, up, no carrier",
                          p.stderr),
                "expected stderr to list wdt3a as up with no carrier", p)

    with h.case("--net wdt8a:carrier: created and brought up at once, "
                "5 times (uevent/rtnetlink ordering)"):
        for i in range(5):
            p = waitdev_net(h, "wdt8a:carrier", timeout="5")
            h.expect_running(p, 0.3)
            # one ip process: the three changes come microseconds apart
            h.links.append("wdt8a")
            t = time.monotonic()
            r = subprocess.run(["ip", "-batch", "-"], text=True,
                               capture_output=True,
                               input="link add wdt8a type veth peer name "
                               "wdt8b\nlink set wdt8a up\n"
                               "link set wdt8b up\n")
            if r.returncode:
                raise host.Fatal("ip -batch: " + r.stderr.strip())
            expect_net(h, p, t, ["wdt8a"])
            h.ip("link", "del", "wdt8a")

    with h.case("--net 'wdt4*': a glob"):
        p = waitdev_net(h, "wdt4*")
        h.expect_running(p, 0.5, "no interface matches wdt4* yet")
        t = h.veth("wdt4a", "wdt4b")
        # creating the pair registers both ends: either may come first
        expect_net(h, p, t, ["wdt4a", "wdt4b"])

    with h.case("--net wdt6a,wdt6b:up: two interfaces, one line"):
        p = waitdev_net(h, "wdt6a,wdt6b:up")
        h.expect_running(p, 0.5)
        h.veth("wdt6a", "wdt6b")
        h.expect_running(p, 0.5, "wdt6b is still down")
        h.ip("link", "set", "wdt6b", "up")
        t = time.monotonic()
        h.expect_exit(p, 0, 3, since=t)
        h.check("WAITDEV_NET='wdt6a wdt6b'" in p.stdout.splitlines(),
                "expected the line WAITDEV_NET='wdt6a wdt6b'", p)


host.main("veth", body)
