// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The libblkid probe back end: blkid's low-level probing API on one
 * device at a time. No cache file (it may be stale or absent in an
 * initramfs); blkid_do_safeprobe() refuses ambivalent results instead of
 * guessing, so a disk with traces of two filesystems matches neither.
 */
#include <errno.h>
#include <blkid.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"
#include "util.h"

const char *probe_backend(void)
{
	return "libblkid";
}

bool probe_available(void)
{
	return true;
}

static int take_value(blkid_probe pr, const char *name, char **slot)
{
	const char *val = NULL;

	free(*slot);
	*slot = NULL;
	if (blkid_probe_lookup_value(pr, name, &val, NULL) < 0 || !val || !*val)
		return 0;
	*slot = strdup(val);
	return *slot ? 0 : -ENOMEM;
}

int probe_block(struct device *dev, const char *node)
{
	blkid_probe pr;
	int fd, r;

	/* O_NONBLOCK: a CD drive must not spin up the tray on open */
	fd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	pr = blkid_new_probe();
	if (!pr) {
		close(fd);
		return -ENOMEM;
	}
	r = blkid_probe_set_device(pr, fd, 0, 0);
	if (r == 0) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(
			pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL);
		blkid_probe_enable_partitions(pr, 1);
		blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
		r = blkid_do_safeprobe(pr);
	}
	/* -2: ambivalent (two signatures, safeprobe picks none); -1: I/O */
	dev->fs_ambivalent = r == -2;
	if (r < 0)
		r = r == -2 ? 1 : -EIO;
	if (r >= 0) {
		/* 1: nothing found; the lookups below then clear all */
		r = take_value(pr, "TYPE", &dev->fs_type);
		if (r == 0)
			r = take_value(pr, "UUID", &dev->fs_uuid);
		if (r == 0)
			r = take_value(pr, "LABEL", &dev->fs_label);
		if (r == 0)
			r = take_value(pr, "PART_ENTRY_UUID", &dev->part_uuid);
	}
	blkid_free_probe(pr);
	close(fd);
	return r;
}
