#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# dracut initqueue job (see waitdev-hooks(7)): wait once, with waitdev,
# for the root device, console and interfaces the command line names,
# instead of dracut's main loop polling every half second.
#
# init's main loop sources this file (job=$job . "$job"), so it runs in
# init's shell: it can set root and main_loop, and must not exit.

# The kernel's part of the command line $1: the words before a "--" that
# is not inside double quotes, as the kernel and waitdev read it (init's
# arguments follow it, and waitdev stops reading there).  An unclosed
# quote is closed, so that nothing appended after it is swallowed.
waitdev_kernel_part() {
    # shellcheck disable=SC3043
    local w rest q=0 part="" noglob=""
    case $- in *f*) noglob=1 ;; esac
    set -f
    for w in $1; do
        if [ "$q" = 0 ]; then
            case $w in -- | '"--"') break ;; esac
        fi
        part="$part $w"
        # each double quote opens or closes a quoted stretch
        rest=$w
        while :; do
            case $rest in
                *\"*)
                    rest=${rest#*\"}
                    q=$((1 - q))
                    ;;
                *) break ;;
            esac
        done
    done
    [ -n "$noglob" ] || set +f
    [ "$q" = 0 ] || part="$part\""
    printf '%s' "$part"
}

# The last waitdev.net= of the kernel's part $1 with every :up and
# :carrier dropped (empty when there is none, or none has a state).
# dracut brings interfaces up (network-legacy's ifup, NetworkManager) in
# initqueue jobs of its main loop, which this job holds up while it
# waits: waiting here for a link state would sit out waitdev's net
# deadline.  Waiting for the interface to exist needs only the kernel
# and udevd, which run meanwhile.
waitdev_net_presence() {
    # shellcheck disable=SC3043
    local w net="" rest s presence="" strip="" noglob=""
    case $- in *f*) noglob=1 ;; esac
    set -f
    for w in $1; do
        case $w in
            waitdev.net=*) net=${w#waitdev.net=} ;;
        esac
    done
    [ -n "$noglob" ] || set +f
    net=${net#\"}
    net=${net%\"}
    rest=$net
    while [ -n "$rest" ]; do
        s=${rest%%,*}
        case $rest in
            *,*) rest=${rest#*,} ;;
            *) rest="" ;;
        esac
        case $s in
            *:up) s=${s%:up} strip=1 ;;
            *:carrier) s=${s%:carrier} strip=1 ;;
        esac
        presence="${presence:+$presence,}$s"
    done
    [ -z "$strip" ] || printf '%s' "$presence"
}

# Why this job must not wait, from the kernel's part $1, or nothing:
# "off by ..." when the last waitdev= or rd.waitdev= is 0 (n, N: as
# waitdev reads the switch), or the last waitdev.root= is empty (the
# waitdev.root= this job appends would override it); "KEY needs ..."
# when the disk comes over the network (an iSCSI, FCoE, NVMe-oF or NBD
# disk can be a block root= too): its jobs (ifup, the logins) run in
# the main loop this job would hold up, for RDRETRY/3 s at worst.
waitdev_not_here() {
    # shellcheck disable=SC3043
    local w off="" wroot=unset netkey="" noglob=""
    case $- in *f*) noglob=1 ;; esac
    set -f
    for w in $1; do
        case $w in
            waitdev=[0nN] | rd.waitdev=[0nN]) off=$w ;;
            waitdev | rd.waitdev | waitdev=[1yY] | rd.waitdev=[1yY]) off="" ;;
            waitdev.root=*) wroot=${w#waitdev.root=} ;;
            netroot=* | rd.iscsi.* | iscsi_* | fcoe=* | rd.nvmf.* | nbdroot=* | \
                rd.neednet | rd.neednet=1)
                [ -n "$netkey" ] || netkey=${w%%=*} ;;
        esac
    done
    [ -n "$noglob" ] || set +f
    if [ -n "$off" ]; then
        printf 'off by %s on the command line' "$off"
    elif [ -z "$wroot" ] || [ "$wroot" = '""' ]; then
        printf 'off by an empty waitdev.root= on the command line'
    elif [ -n "$netkey" ]; then
        printf "%s= needs dracut's network jobs first" "$netkey"
    fi
}

# The devices a stacked root is assembled from, as a waitdev spec list,
# from the command line $1 (with /etc/cmdline.d, where the module puts
# a waitdev_stack= of dracut.conf): each rd.luks.uuid= (luks- dropped),
# each rd.md.uuid= (mdadm's four 8-digit groups as blkid writes the
# member's UUID), and waitdev.stack=.  Empty when none is named: an LVM
# root names no PV on the command line.
waitdev_stack() {
    # shellcheck disable=SC3043
    local w u stack="" noglob=""
    case $- in *f*) noglob=1 ;; esac
    set -f
    for w in $1; do
        u=""
        case $w in
            rd.luks.uuid=?*)
                u=${w#rd.luks.uuid=}
                u=UUID=${u#luks-}
                ;;
            rd.md.uuid=????????:????????:????????:????????)
                u=$(waitdev_md_uuid "${w#rd.md.uuid=}") ;;
            waitdev.stack=?*)
                u=${w#waitdev.stack=}
                u=${u#\"}
                u=${u%\"}
                ;;
        esac
        # once each: a hostonly image names a LUKS container both in
        # rd.luks.uuid= and in the stack the module recorded
        [ -n "$u" ] || continue
        case ,$stack, in
            *,"$u",*) ;;
            *) stack="${stack:+$stack,}$u" ;;
        esac
    done
    [ -n "$noglob" ] || set +f
    printf '%s' "$stack"
}

# mdadm's array UUID $1 (aaaaaaaa:bbbbbbbb:cccccccc:dddddddd) as libblkid
# reads it from a member: UUID=aaaaaaaa-bbbb-bbbb-cccc-ccccdddddddd.
waitdev_md_uuid() {
    # shellcheck disable=SC3043
    local a b c d
    a=${1%%:*}
    d=${1##*:}
    b=${1#*:}
    b=${b%%:*}
    c=${1%:*}
    c=${c##*:}
    printf 'UUID=%s-%s-%s-%s-%s%s' "$a" "${b%????}" "${b#????}" \
        "${c%????}" "${c#????}" "$d"
}

waitdev_root() {
    # local, as dracut's own scripts use it (dash, bash and busybox have
    # it): this runs in init's shell and must not leave names behind
    # shellcheck disable=SC3043
    local spec out rc secs tool cmdline net why stack \
        log=/run/initramfs/waitdev.log

    # Only a block root (parse-block.sh made it "block:DEV"); nfs:,
    # live:, iscsi: and the like are other modules' business.
    case "$root" in
        block:*) spec=${root#block:} ;;
        *) return 0 ;;
    esac
    if ! command -v waitdev > /dev/null; then
        warn "waitdev: not in this initramfs; dracut waits the stock way"
        return 0
    fi
    cmdline=$(waitdev_kernel_part "$(getcmdline)")
    why=$(waitdev_not_here "$cmdline")
    if [ -n "$why" ]; then
        info "waitdev: $why; dracut waits the stock way"
        return 0
    fi
    # lvm, cryptsetup, mdadm, multipath and dmraid assemble roots from
    # initqueue jobs that udev rules queue, which this job holds up while
    # it waits: wait only for the devices the root is made of (the
    # stack), then return and let those jobs run; step aside when none
    # is named.
    stack=""
    for tool in lvm cryptsetup mdadm multipath dmraid; do
        command -v "$tool" > /dev/null || continue
        stack=$(waitdev_stack "$cmdline")
        if [ -z "$stack" ]; then
            info "waitdev: $tool may assemble the root and no device it is made of is named (rd.luks.uuid=, rd.md.uuid=, waitdev.stack=); dracut waits the stock way"
            return 0
        fi
        break
    done

    # The root deadline: when dracut's main loop would start its timeout
    # jobs, 2/3 of rd.retry (RDRETRY counts half-second rounds, so that
    # is RDRETRY / 3 seconds); waitdev.timeout= on the command line
    # still wins.  Passed as rootwait=, which comes last and so replaces
    # a kernel-style rootwait: dracut does not wait forever either.
    secs=$((RDRETRY / 3))
    # getcmdline: /proc/cmdline with /etc/cmdline.d, as dracut sees it;
    # waitdev.root= is dracut's root, which takes precedence over root=.
    # These settings go after the kernel's part of it: after a "--"
    # (init's arguments follow) waitdev would not read them, and a
    # kernel-style rootwait before it would make the wait endless.
    if [ -n "$stack" ]; then
        cmdline="$cmdline waitdev.root= waitdev.stack=$stack rootwait=$secs"
    else
        cmdline="$cmdline waitdev.root=$spec rootwait=$secs"
    fi
    net=$(waitdev_net_presence "$cmdline")
    if [ -n "$net" ]; then
        info "waitdev: waiting for interfaces $net to exist; dracut's network jobs bring them up"
        cmdline="$cmdline waitdev.net=$net"
    fi
    out=$(waitdev --kmsg --format shell --cmdline "$cmdline" 2>> "$log")
    rc=$?
    case $rc in
        0 | 1) ;;
        *)
            # its own message (a usage error comes before --kmsg acts)
            while read -r out; do warn "$out"; done < "$log"
            warn "waitdev: failed (exit $rc); dracut waits the stock way"
            return 0
            ;;
    esac
    unset WAITDEV_ROOT WAITDEV_CONSOLE WAITDEV_NET WAITDEV_STACK \
        WAITDEV_MISSING
    eval "$out"
    if [ -n "$stack" ] && [ -z "$WAITDEV_MISSING" ]; then
        # root stays as it is: the jobs that udev queued for the stack
        # (cryptroot-ask, lvm_scan, mdraid_start) run next and assemble
        # it, and dracut's own wait finds it
        info "waitdev: stack $stack found ($WAITDEV_STACK); dracut assembles the root"
        return 0
    fi
    if [ -n "$WAITDEV_ROOT" ]; then
        # dracut's finished check for root=UUID=... waits for udev's
        # /dev/disk/by-uuid link.  The node waitdev found is the same
        # device: wait for that instead (it exists), so the check passes
        # on the loop's next look and the mount hook mounts it.
        cancel_wait_for_dev "$spec"
        root="block:$WAITDEV_ROOT"
        wait_for_dev "$WAITDEV_ROOT"
        info "waitdev: root $spec is $WAITDEV_ROOT"
        return 0
    fi
    # waitdev gave up (its diagnosis is in the kernel log): go on where
    # dracut's own wait would now be, at its timeout jobs (rootfallback,
    # degraded RAID, ...), then its emergency shell after rd.retry.
    warn "waitdev: gave up on $WAITDEV_MISSING; dracut's timeout handling follows"
    if [ "$main_loop" -lt $((2 * RDRETRY / 3)) ]; then
        main_loop=$((2 * RDRETRY / 3))
    fi
}

# once: the main loop runs every initqueue job on each round
rm -f -- "$job"
waitdev_root
