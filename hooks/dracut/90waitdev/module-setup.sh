#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# dracut module: wait for the root device with waitdev(8) in the initqueue
# of dracut's shell (non-systemd) initrd; in its systemd initrd, the
# diagnosis on the way to the emergency shell and the wait for
# waitdev.net=.  See waitdev-hooks(7).

# The waitdev to install: $WAITDEV_BINARY (tests, or a waitdev elsewhere),
# else the one in dracut's PATH, else /usr/local/sbin's, where meson
# installs by default and which dracut's PATH lacks.
waitdev_binary() {
    if [[ $WAITDEV_BINARY ]]; then
        echo "$WAITDEV_BINARY"
    elif command -v waitdev; then
        :
    elif [[ -x /usr/local/sbin/waitdev ]]; then
        echo /usr/local/sbin/waitdev
    fi
}

# called by dracut
check() {
    # Only when asked for (add_dracutmodules+=" waitdev "): it changes
    # how every boot waits, which is the admin's call.  A missing binary
    # is not checked here: for a module that was asked for, dracut takes
    # any other answer than 0 or 255 as fatal ("cannot be found or
    # installed") and the whole image fails to build.  install() leaves
    # everything out instead, and the image waits the stock way.
    return 255
}

# called by dracut
depends() {
    # parse-block.sh of rootfs-block turns root= into "block:DEV"
    echo rootfs-block
    return 0
}

# The LUKS containers, LVM PVs and md members among the devices dracut
# was told the image needs (host_devs: in hostonly mode the host's root,
# /usr, swap and the devices they are made of; the --add-device ones)
# and their slaves, as a comma-separated list of UUID= specs (an md
# array's members share one).  blkid -p: udev's cache may be stale.
waitdev_host_stack() {
    local stack=""
    # called back by check_block_and_slaves_all with MAJ:MIN; sees the
    # caller's stack (bash's dynamic scope)
    # shellcheck disable=SC2317
    _waitdev_stack_member() {
        local type uuid
        type=$(blkid -p -o value -s TYPE "/dev/block/$1" 2> /dev/null)
        case $type in
            crypto_LUKS | LVM2_member | linux_raid_member) ;;
            *) return 1 ;;
        esac
        uuid=$(blkid -p -o value -s UUID "/dev/block/$1" 2> /dev/null)
        [[ $uuid ]] || return 1
        [[ ,$stack, == *,UUID=$uuid,* ]] || stack+=${stack:+,}UUID=$uuid
    }
    for_each_host_dev_and_slaves_all _waitdev_stack_member
    printf '%s' "$stack"
}

# called by dracut
install() {
    local bin
    bin=$(waitdev_binary)
    if ! [[ -x $bin ]]; then
        dwarn "waitdev: no waitdev binary (${bin:-not in PATH, nor /usr/local/sbin/waitdev}); nothing installed, the image waits for root the stock way"
        return 0
    fi
    # inst_binary, not inst_multiple: inst_multiple installs a file under
    # its own path, and the binary may be /usr/local/sbin/waitdev (meson's
    # default) or $WAITDEV_BINARY anywhere, neither in the initrd's PATH
    # (/usr/sbin:/usr/bin:/sbin:/bin).  inst_binary takes a destination,
    # and brings the libraries of a dynamic waitdev along as inst_multiple
    # would.
    inst_binary "$bin" /usr/sbin/waitdev
    # rootwait and consolewait are the same binary by other names (argv[0])
    ln_r /usr/sbin/waitdev /usr/sbin/rootwait
    ln_r /usr/sbin/waitdev /usr/sbin/consolewait
    if dracut_module_included "systemd"; then
        install_systemd
        return 0
    fi
    # 00: first in the initqueue, before the jobs of other modules poll
    inst_hook initqueue 00 "$moddir/waitdev-root.sh"
    # The devices a stacked root is made of, which its command line may
    # not name (an LVM root's PVs): those dracut knows of, and
    # waitdev_stack= of dracut.conf; for the job as waitdev.stack= on
    # dracut's view of the command line
    local stack
    stack=$(waitdev_host_stack)
    [[ $waitdev_stack ]] && stack+=${stack:+,}$waitdev_stack
    if [[ $stack ]]; then
        mkdir -p "$initdir/etc/cmdline.d"
        printf 'waitdev.stack=%s\n' "$stack" \
            > "$initdir/etc/cmdline.d/90waitdev-stack.conf"
        dinfo "waitdev: the root's stack: $stack"
    fi
}

# systemd's initrd waits for root with a device unit
# (dev-disk-by\x2duuid-....device), on udev's events, with its own
# timeout (rd.timeout, x-systemd.device-timeout=) and emergency target:
# waitdev does not wait for the root there, nor end that wait
# (waitdev-hooks(7) says why).  It adds what systemd lacks: the
# diagnosis on the way to the emergency shell, and the wait for
# waitdev.net=.
install_systemd() {
    inst_script "$moddir/waitdev-systemd.sh" /usr/bin/waitdev-systemd
    inst_simple "$moddir/waitdev-diagnose.service" \
        "$systemdsystemunitdir/waitdev-diagnose.service"
    inst_simple "$moddir/waitdev-net.service" \
        "$systemdsystemunitdir/waitdev-net.service"
    # emergency.target: a unit's failure (the root device job's timeout
    # fails initrd-root-device.target and sysroot.mount's targets, whose
    # OnFailure= is emergency.target); dracut-emergency.service: dracut's
    # own "Could not boot." after rd.retry, which starts that service
    # alone.  Nothing on the way of a boot that succeeds pulls it in.
    # By hand, not systemctl add-wants: dracut-systemd (98) installs
    # dracut-emergency.service after this module (90) ran, and
    # systemctl refuses a unit that is not there yet.
    local unit
    for unit in emergency.target dracut-emergency.service; do
        mkdir -p "$initdir/etc/systemd/system/$unit.wants"
        ln_r "$systemdsystemunitdir/waitdev-diagnose.service" \
            "/etc/systemd/system/$unit.wants/waitdev-diagnose.service"
    done
    # its ConditionKernelCommandLine=waitdev.net skips it without one
    $SYSTEMCTL -q --root "$initdir" add-wants initrd.target waitdev-net.service
    dinfo "waitdev: systemd initrd: the diagnosis on the way to the emergency shell, and waitdev.net="
}
