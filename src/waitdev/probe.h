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
/*
 * Fills @dev->fs_uuid, fs_label and part_uuid from /dev/@dev->name.
 * Returns 0, or a negative errno (-EOPNOTSUPP without a back end).
 */
int probe_block(struct device *dev);

#endif
