/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * probe.h - the filesystem/partition-table probe back end.
 *
 * UUID=, LABEL= and PARTUUID= need the device's superblock or partition
 * table read. One back end is linked in: probe_none.c (no probing: those
 * specs are refused up front, never pretended) or a libblkid one.
 */
#ifndef WAITDEV_PROBE_H
#define WAITDEV_PROBE_H

#include <stdbool.h>

#include "device.h"

/* The library the back end uses, "none" for probe_none.c. */
const char *probe_backend(void);
bool probe_available(void);
/* What a probe is to find out, beyond the filesystem's type, UUID and
 * label. */
struct probe_request {
	/* NULL or "": every type the back end knows; else the
	 * comma-separated types the root may be mounted as (rootfstype=),
	 * and then only those are looked for, and every RAID member and
	 * crypto container signature besides (a device carrying one is
	 * still not a filesystem) */
	const char *fstypes;
	/* a partition's entry in its disk's table (PARTUUID=): for a
	 * partition, that is reading the disk's partition table too, so
	 * only when a spec needs it */
	bool part_entry;
};

/*
 * Reads the superblock (and, if @req asks, the partition entry) of @node
 * (normally /dev/NAME; any file in tests) and sets @dev->fs_type,
 * fs_uuid, fs_label and part_uuid, NULL where nothing was found or
 * nothing was asked. @req: NULL asks for the filesystem of every type.
 * Returns 0 when the device was read (whether or not something was
 * recognised), or a negative errno when it could not be (-EOPNOTSUPP
 * without a back end): then nothing is known about it.
 */
int probe_block(struct device *dev, const char *node, const struct probe_request *req);

/*
 * Does ahead of a probe what a process's first one pays for and no device
 * decides (the library's setup, its code paged in, its memory), in a
 * child waiting for the device to probe. Touches no device.
 */
void probe_warm(const struct probe_request *req);

#endif
