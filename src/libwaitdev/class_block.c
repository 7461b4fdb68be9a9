// SPDX-License-Identifier: LGPL-2.1-or-later
/* Block devices: disks, partitions, loop and device-mapper devices. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "devclass.h"
#include "sysfs.h"
#include "util.h"

/* DM_NAME_LEN of linux/dm-ioctl.h, its NUL included */
#define DM_NAME_MAX 128

/*
 * /dev/mapper/NAME and LVM's /dev/VG/LV are links udev or lvm make; the
 * kernel's uevent says only dm-N. Its name is in sysfs from the moment
 * the device exists (the table, and so the size, come later).
 */
static int read_dm_name(struct sysfs *s, struct device *dev)
{
	char name[DM_NAME_MAX + 2]; /* and a newline */
	char *copy;

	if (!dev->name || strncmp(dev->name, "dm-", 3) != 0)
		return 0;
	if (sysfs_read_attr(s, dev, "dm/name", name, sizeof(name)) < 0 || !*name)
		return 0; /* not (yet) known: matched by dm-N alone */
	if (dev->dm_name && streq(dev->dm_name, name))
		return 0;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	free(dev->dm_name);
	dev->dm_name = copy;
	return 0;
}

static int block_read_attrs(struct sysfs *s, struct device *dev)
{
	char buf[64];
	uint64_t size;
	int r;

	r = sysfs_read_attr(s, dev, "size", buf, sizeof(buf));
	if (r < 0)
		return r;
	if (parse_u64(buf, &size) < 0)
		return -EINVAL;
	dev->size = size;
	return read_dm_name(s, dev);
}

const struct dev_class dev_class_block = {
	.kind = DEV_BLOCK,
	.subsystem = "block",
	.read_attrs = block_read_attrs,
};
