/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * devtab.h - the table of device records waitdev has seen: block devices,
 * ttys and network interfaces, keyed by sysfs DEVPATH (and by ifindex for
 * rtnetlink updates). It is what a removal is checked against and what
 * the diagnosis lists when a wait fails.
 *
 * The table is the only writer of its records: whatever changed one (a
 * uevent with udevd's properties or not, sysfs attributes, rtnetlink
 * link state, a probe) is applied here, as a struct dev_update that says
 * which it was, and the caller then re-decides its targets once.
 * Everything else (the matchers, the diagnosis) reads the table const.
 */
#ifndef WAITDEV_DEVTAB_H
#define WAITDEV_DEVTAB_H

#include <stddef.h>

#include "device.h"
#include "prober.h"
#include "rtnl.h"
#include "uevent.h"

struct devtab;

int devtab_new(struct devtab **out);
void devtab_free(struct devtab *tab);

/* What changed a record. */
enum dev_update_kind {
	DEV_UPDATE_UEVENT,	 /* .uevent, .generation: what it says, udevd's too */
	DEV_UPDATE_SYSFS,	 /* .attrs: what sysfs adds to the uevent */
	DEV_UPDATE_LINK,	 /* .link: rtnetlink link state, a new name */
	DEV_UPDATE_PROBE_START,	 /* .probe_id: a read of the medium began */
	DEV_UPDATE_PROBE_STALE,	 /* an event came while it read */
	DEV_UPDATE_PROBE_END,	 /* .probe: its result, NULL: superseded */
	DEV_UPDATE_PROBE_FORGET, /* what a probe found is no longer known */
	DEV_UPDATE_PROBE_DEFER,	 /* a probe wanted, put off: nothing known */
};

struct dev_update {
	enum dev_update_kind kind;
	union {
		const struct uevent *uevent;
		const struct dev_attrs *attrs;
		const struct rtnl_link *link;
		/* PROBE_END: err 0 sets the fs_* fields, an error clears them */
		const struct probe_msg *probe;
	};
	unsigned int generation; /* UEVENT: the scan it belongs to */
	uint32_t probe_id;	 /* PROBE_START */
	bool rescan;		 /* PROBE_START: by a rescan after an overflow */
	uint64_t now_ms;	 /* PROBE_START: when (CLOCK_MONOTONIC) */
};

/*
 * Finds or creates the record named by @ev's DEVPATH (for "move", the
 * record at DEVPATH_OLD is renamed) and applies @ev to it
 * (DEV_UPDATE_UEVENT: what it says, udevd's properties included, and
 * @gen as the record's generation). Returns the record, NULL with errno
 * set for untracked subsystems (EINVAL) or no memory (ENOMEM).
 */
struct device *devtab_update(struct devtab *tab, const struct uevent *ev, unsigned gen);

/*
 * Applies @u to @dev, a record of @tab. 0, or -ENOMEM (a name or a
 * value not stored; for a link or sysfs update the rest is applied).
 */
int devtab_apply(struct devtab *tab, struct device *dev, const struct dev_update *u);
struct device *devtab_find(const struct devtab *tab, const char *devpath);
struct device *devtab_find_ifindex(const struct devtab *tab, int ifindex);
/* The first block device whose partition UUID is @uuid (any case). */
const struct device *devtab_find_part_uuid(const struct devtab *tab, const char *uuid);
void devtab_remove(struct devtab *tab, struct device *dev);

size_t devtab_count(const struct devtab *tab);
struct device *devtab_at(const struct devtab *tab, size_t i);

#endif
