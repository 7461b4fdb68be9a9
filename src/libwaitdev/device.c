// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devclass.h"
#include "device.h"

void device_clear(struct device *dev)
{
	free(dev->devpath);
	free(dev->name);
	free(dev->partname);
	free(dev->fs_type);
	free(dev->fs_uuid);
	free(dev->devlinks);
	free(dev->dm_name);
	free(dev->fs_label);
	free(dev->part_uuid);
	memset(dev, 0, sizeof(*dev));
}

void device_format_mac(const struct device *dev, char *buf, unsigned size)
{
	unsigned i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < dev->mac_len && o + 3 < size; i++)
		o += (unsigned)snprintf(buf + o, size - o, i ? ":%02x" : "%02x",
					dev->mac[i]);
}

int device_node(const struct device *dev, char *buf, unsigned size)
{
	int n;

	if (!dev->name)
		return -ENOENT;
	if (dev_class(dev->kind) && dev_class(dev->kind)->by_interface)
		n = snprintf(buf, size, "%s", dev->name);
	else
		n = snprintf(buf, size, "/dev/%s", dev->name);
	return n < 0 || (unsigned)n >= size ? -ENAMETOOLONG : 0;
}
