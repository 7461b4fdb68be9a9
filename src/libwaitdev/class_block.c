// SPDX-License-Identifier: LGPL-2.1-or-later
/* Block devices: disks, partitions, loop and device-mapper devices. */
#include <errno.h>
#include <string.h>

#include "devclass.h"
#include "sysfs.h"
#include "util.h"

/*
 * /dev/mapper/NAME and LVM's /dev/VG/LV are links udev or lvm make; the
 * kernel's uevent says only dm-N. Its name is in sysfs from the moment
 * the device exists (the table, and so the size, come later); until then
 * it is matched by dm-N alone.
 */
static void read_dm_name(struct sysfs *s, const struct device *dev, struct dev_attrs *a)
{
	if (!dev->name || strncmp(dev->name, "dm-", 3) != 0)
		return;
	if (sysfs_read_attr(s, dev, "dm/name", a->dm_name, sizeof(a->dm_name)) < 0)
		a->dm_name[0] = '\0';
}

static int block_read_attrs(struct sysfs *s, const struct device *dev,
			    struct dev_attrs *a)
{
	char buf[64];
	int r;

	r = sysfs_read_attr(s, dev, "size", buf, sizeof(buf));
	if (r < 0)
		return r;
	if (parse_u64(buf, &a->size) < 0)
		return -EINVAL;
	a->has_size = true;
	read_dm_name(s, dev, a);
	return 0;
}

const struct dev_class dev_class_block = {
	.kind = DEV_BLOCK,
	.subsystem = "block",
	.read_attrs = block_read_attrs,
};
