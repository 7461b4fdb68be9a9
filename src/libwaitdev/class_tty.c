// SPDX-License-Identifier: LGPL-2.1-or-later
/* Terminals: serial ports, virtual consoles, hvc and USB-serial ttys. */
#include "devclass.h"
#include "sysfs.h"

/* A tty has no attribute we need: only whether it is (still) there. */
static int tty_read_attrs(struct sysfs *s, const struct device *dev, struct dev_attrs *a)
{
	(void)a;
	return sysfs_attr_exists(s, dev, "uevent");
}

const struct dev_class dev_class_tty = {
	.kind = DEV_TTY,
	.subsystem = "tty",
	.read_attrs = tty_read_attrs,
};
