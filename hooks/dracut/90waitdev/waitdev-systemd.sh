#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# waitdev in dracut's systemd initrd (see waitdev-hooks(7)), run by
# waitdev-diagnose.service and waitdev-net.service:
#   waitdev-systemd diagnose   look once (--timeout 0) at what the command
#                              line names; a missing root gets waitdev's
#                              diagnosis in the kernel log
#   waitdev-systemd net        wait for the interfaces of waitdev.net= to
#                              exist, before dracut's network setup
# The command line is dracut's view of it (/proc/cmdline with
# /etc/cmdline.d). waitdev itself honours waitdev=0 and rd.waitdev=0.

type getcmdline > /dev/null 2>&1 || . /lib/dracut-lib.sh

# The last waitdev.net= of $1 with every :up and :carrier dropped: dracut
# brings the interfaces up itself, after this wait, so waiting here for a
# link state would only sit out waitdev's net deadline.
waitdev_net_presence() {
    # shellcheck disable=SC3043
    local w net="" rest s presence=""
    set -f
    for w in $1; do
        case $w in
            --) break ;;
            waitdev.net=*) net=${w#waitdev.net=} ;;
        esac
    done
    set +f
    net=${net#\"}
    net=${net%\"}
    rest=$net
    while [ -n "$rest" ]; do
        s=${rest%%,*}
        case $rest in
            *,*) rest=${rest#*,} ;;
            *) rest="" ;;
        esac
        s=${s%:up}
        s=${s%:carrier}
        presence="${presence:+$presence,}$s"
    done
    printf '%s' "$presence"
}

cmdline=$(getcmdline)
case $1 in
    diagnose)
        # what was asked, what was seen, why each candidate does not
        # match; exit 1 (something missing) is what is expected here
        waitdev --kmsg --timeout 0 --cmdline "$cmdline"
        exit 0
        ;;
    net)
        net=$(waitdev_net_presence "$cmdline")
        [ -n "$net" ] || exit 0
        waitdev --kmsg --cmdline "$cmdline" --net "$net"
        exit 0
        ;;
    *)
        echo "usage: waitdev-systemd diagnose|net" >&2
        exit 2
        ;;
esac
