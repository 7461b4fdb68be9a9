/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * settle.h - whether USB enumeration has settled: the attribute
 * bus/usb/settle of sysfs that the waitdev kernel series adds
 * (kernel/patches/, "usb: core: publish when enumeration has settled").
 * It reads "settled" once the kernel has had no USB enumeration work in
 * flight for usbcore.settle_grace_ms, else "busy", and every change is
 * sysfs_notify()-ed: the open file polls POLLPRI (and EPOLLIN, edge-
 * triggered) and is read again from the start.
 *
 * Nothing is allocated: the watch is the open descriptor.
 */
#ifndef WAITDEV_SETTLE_H
#define WAITDEV_SETTLE_H

/* below the sysfs root */
#define SETTLE_ATTR "bus/usb/settle"

/*
 * Opens SETTLE_ATTR below the sysfs root @sysfs_dirfd. Returns the
 * descriptor, -ENOENT when the kernel lacks the attribute (no series, or
 * no USB), or -errno.
 */
int settle_open(int sysfs_dirfd);

/*
 * Reads the state again: 1 settled, 0 busy, -EINVAL for a value that is
 * neither, -errno (-EAGAIN: nothing to read). A descriptor that cannot
 * seek (a FIFO standing in for the attribute in tests) is read where it
 * is, and its last line counts.
 */
int settle_read(int fd);

#endif
