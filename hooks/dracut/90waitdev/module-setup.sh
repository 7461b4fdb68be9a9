#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# dracut module: wait for the root device with waitdev(8) in the initqueue
# of dracut's shell (non-systemd) initrd.  See waitdev-hooks(7).

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
    # systemd's initrd waits for root with a device unit
    # (dev-disk-by\x2duuid-....device): an event-driven wait already,
    # with its timeout and emergency target.  Nothing to replace there.
    if dracut_module_included "systemd"; then
        dinfo "waitdev: systemd initrd: device units wait already; nothing installed"
        return 0
    fi
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
    # 00: first in the initqueue, before the jobs of other modules poll
    inst_hook initqueue 00 "$moddir/waitdev-root.sh"
}
