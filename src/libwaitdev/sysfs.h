/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sysfs.h - what already exists: enumerating /sys/class/{block,tty,net}
 * and reading the attributes uevents do not carry (a block device's
 * size, an interface's address and state).
 *
 * The root is a directory file descriptor, "/sys" normally and a fake
 * tree in tests; every path below it comes from a checked DEVPATH.
 */
#ifndef WAITDEV_SYSFS_H
#define WAITDEV_SYSFS_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "uevent.h"

struct sysfs;

/* A path to a device's attribute: the root given (a test tree) + DEVPATH */
#define SYSFS_STAT_PATH_MAX 4096

/*
 * Opens the sysfs root: @root, or /sys when NULL. -ENODEV when it is not
 * a sysfs (/sys not mounted): /sys must be one (SYSFS_MAGIC), a tree
 * given as @root must have class/ and devices/ as every sysfs has.
 */
int sysfs_open(const char *root, struct sysfs **out);
void sysfs_free(struct sysfs *sysfs);
/* The root's directory descriptor, for openat() below it. */
int sysfs_dirfd(const struct sysfs *sysfs);

/* Called once per device found; @ev points into a scratch buffer. */
typedef int (*sysfs_scan_fn)(void *ctx, const struct uevent *ev);

/*
 * Scans the class directory of @kind, calling @fn with an "add" uevent
 * built from each device's uevent file. A device that vanishes during the
 * scan is skipped; running out of descriptors or memory while reading one
 * (EMFILE, ENFILE, ENOMEM) is an error, not a vanished device. Returns 0,
 * a negative errno, or what @fn returned when it returned non-zero.
 */
int sysfs_scan(struct sysfs *sysfs, enum dev_kind kind, sysfs_scan_fn fn, void *ctx);

/*
 * Reads @dev's size (block) or address, flags and operstate (net) from
 * sysfs into @attrs, for devtab_apply(); for a tty, checks that its
 * directory is there: the class's read_attrs (devclass.h). Returns 0 or
 * -errno (-ENOENT when the device is gone; an interface being deleted
 * answers -EINVAL or -ENODEV).
 */
int sysfs_read_attrs(struct sysfs *sysfs, const struct device *dev,
		     struct dev_attrs *attrs);

/*
 * For the classes' readers: the attribute @attr of @dev into @buf,
 * trailing blanks and newlines cut; whether @attr exists. 0 or -errno.
 */
int sysfs_read_attr(struct sysfs *sysfs, const struct device *dev, const char *attr,
		    char *buf, size_t size);
int sysfs_attr_exists(struct sysfs *sysfs, const struct device *dev, const char *attr);

/*
 * How many partitions the kernel has made of the whole disk @dev: its
 * subdirectories named after it (sda1, nvme0n1p1) with a "partition"
 * attribute. A disk's partitions are there when its "add" uevent goes
 * out (device_add_disk() announces them after it). A count, or -errno
 * (-ENOENT: the disk is gone).
 */
int sysfs_count_partitions(struct sysfs *sysfs, const struct device *dev);

/*
 * A block device's I/O counters, /sys/class/block/NAME/stat
 * (Documentation/block/stat.rst): the read fields. They count every
 * reader of the device, not one process.
 */
struct sysfs_blkstat {
	uint64_t reads;	       /* read I/Os: requests completed */
	uint64_t read_merges;  /* reads merged into a queued one */
	uint64_t read_sectors; /* 512-byte sectors read */
};

/*
 * Parses the text of a "stat" file: at least the 11 unsigned decimal
 * fields every kernel since 2.6 writes (15 since 4.18, 17 since 5.5),
 * separated by blanks, a newline at most at the end. 0, or -EINVAL for
 * anything else (-ERANGE for a field past 64 bits).
 */
int sysfs_parse_blkstat(const char *text, struct sysfs_blkstat *st);

#endif
