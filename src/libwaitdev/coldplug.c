// SPDX-License-Identifier: LGPL-2.1-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "coldplug.h"
#include "log.h"
#include "util.h"

/* Triggers one device: DIRFD/NAME is its link in bus/X/devices. */
static int trigger_one(int devices_fd, const char *name)
{
	char path[NAME_MAX + 16];
	int fd;
	ssize_t n;

	/* no modalias, no driver to load: leave it alone */
	snprintf(path, sizeof(path), "%s/modalias", name);
	if (faccessat(devices_fd, path, F_OK, 0) < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/uevent", name);
	fd = openat(devices_fd, path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* gone meanwhile */
	n = write(fd, "add", 3);
	close(fd);
	return n == 3 ? 1 : 0;
}

static int trigger_bus(int bus_fd, const char *bus)
{
	char path[NAME_MAX + 16];
	struct dirent *de;
	DIR *dir;
	int count = 0;

	snprintf(path, sizeof(path), "%s/devices", bus);
	if (opendir_at(bus_fd, path, &dir) < 0)
		return 0;
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.')
			count += trigger_one(dirfd(dir), de->d_name);
	closedir(dir);
	return count;
}

int coldplug_trigger(struct sysfs *sysfs)
{
	struct dirent *de;
	DIR *dir;
	int count = 0, r;

	r = opendir_at(sysfs_dirfd(sysfs), "bus", &dir);
	if (r < 0)
		return r;
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.')
			count += trigger_bus(dirfd(dir), de->d_name);
	closedir(dir);
	log_info("coldplug: asked the kernel to replay %d devices", count);
	return count;
}
