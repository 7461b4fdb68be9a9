/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * devtab.h - the table of device records waitdev has seen: block devices,
 * ttys and network interfaces, keyed by sysfs DEVPATH (and by ifindex for
 * rtnetlink updates). It is what a removal is checked against and what
 * the diagnosis lists when a wait fails.
 */
#ifndef WAITDEV_DEVTAB_H
#define WAITDEV_DEVTAB_H

#include <stddef.h>

#include "device.h"
#include "uevent.h"

struct devtab;

int devtab_new(struct devtab **out);
void devtab_free(struct devtab *tab);

/*
 * Creates or updates the record named by @ev's DEVPATH (for "move", the
 * record at DEVPATH_OLD is renamed). Returns the record, NULL with errno
 * set for untracked subsystems (EINVAL) or no memory (ENOMEM). The
 * record's generation is set to @gen.
 */
struct device *devtab_update(struct devtab *tab, const struct uevent *ev, unsigned gen);
struct device *devtab_find(const struct devtab *tab, const char *devpath);
struct device *devtab_find_ifindex(const struct devtab *tab, int ifindex);
void devtab_remove(struct devtab *tab, struct device *dev);

size_t devtab_count(const struct devtab *tab);
struct device *devtab_at(const struct devtab *tab, size_t i);

#endif
