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
    # waitdev_stack= in dracut.conf: the devices a stacked root is made
    # of (an LVM root's PVs, which its command line does not name), for
    # the job as waitdev.stack= on dracut's view of the command line
    if [[ $waitdev_stack ]]; then
        mkdir -p "$initdir/etc/cmdline.d"
        printf 'waitdev.stack=%s\n' "$waitdev_stack" \
            > "$initdir/etc/cmdline.d/90waitdev-stack.conf"
        dinfo "waitdev: the stack is $waitdev_stack (waitdev_stack=)"
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
