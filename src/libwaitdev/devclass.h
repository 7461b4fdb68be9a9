/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * devclass.h - the device classes waitdev tracks, as one table: which
 * kernel subsystem each is (SUBSYSTEM= and /sys/class/NAME), how its
 * records are named and what sysfs adds to its uevents.
 *
 * A class is one file (class_NAME.c: its row and its attribute reader)
 * and one line in devclass.c; everything else (scans, the udev filter,
 * the device table, the diagnosis) goes by this table.
 */
#ifndef WAITDEV_DEVCLASS_H
#define WAITDEV_DEVCLASS_H

#include <stdbool.h>

#include "device.h"

struct sysfs;

struct dev_class {
	enum dev_kind kind;
	/* SUBSYSTEM= of its uevents and the directory below /sys/class */
	const char *subsystem;
	/* named by INTERFACE= and without a node in /dev (else DEVNAME=) */
	bool by_interface;
	/*
	 * Reads what its uevents do not carry (a block device's size, an
	 * interface's state) into @attrs, zeroed. 0 or -errno: -ENOENT when
	 * the device is gone.
	 */
	int (*read_attrs)(struct sysfs *sysfs, const struct device *dev,
			  struct dev_attrs *attrs);
};

extern const struct dev_class dev_class_block, dev_class_tty, dev_class_net;

/* The class of @kind, NULL for DEV_OTHER (and anything out of range). */
const struct dev_class *dev_class(enum dev_kind kind);
/* The class of SUBSYSTEM @subsystem, NULL for one not tracked. */
const struct dev_class *dev_class_of(const char *subsystem);
/* The kind of SUBSYSTEM @subsystem; DEV_OTHER is not tracked. */
enum dev_kind dev_kind_of(const char *subsystem);

#endif
