// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "devclass.h"
#include "devtab.h"
#include "util.h"

struct devtab {
	struct device **devs;
	size_t n, cap;
};

int devtab_new(struct devtab **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void devtab_free(struct devtab *tab)
{
	size_t i;

	if (!tab)
		return;
	for (i = 0; i < tab->n; i++) {
		device_clear(tab->devs[i]);
		free(tab->devs[i]);
	}
	free(tab->devs);
	free(tab);
}

struct device *devtab_find(const struct devtab *tab, const char *devpath)
{
	size_t i;

	for (i = 0; i < tab->n; i++)
		if (streq(tab->devs[i]->devpath, devpath))
			return tab->devs[i];
	return NULL;
}

struct device *devtab_find_ifindex(const struct devtab *tab, int ifindex)
{
	size_t i;

	for (i = 0; i < tab->n; i++)
		if (tab->devs[i]->kind == DEV_NET && tab->devs[i]->ifindex == ifindex)
			return tab->devs[i];
	return NULL;
}

static struct device *devtab_add(struct devtab *tab, const char *devpath,
				 enum dev_kind kind)
{
	struct device *dev;

	if (tab->n == tab->cap) {
		size_t cap = tab->cap ? tab->cap * 2 : 32;
		struct device **devs = realloc(tab->devs, cap * sizeof(*devs));

		if (!devs)
			return NULL;
		tab->devs = devs;
		tab->cap = cap;
	}
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	dev->devpath = strdup(devpath);
	if (!dev->devpath) {
		free(dev);
		return NULL;
	}
	dev->kind = kind;
	tab->devs[tab->n++] = dev;
	return dev;
}

/* Replaces *@slot with a copy of @val unless they are equal already. */
static int set_string(char **slot, const char *val)
{
	char *copy;

	if (!val) {
		free(*slot);
		*slot = NULL;
		return 0;
	}
	if (*slot && streq(*slot, val))
		return 0;
	copy = strdup(val);
	if (!copy)
		return -ENOMEM;
	free(*slot);
	*slot = copy;
	return 0;
}

/* udevd's view of a block device replaces what we had, as a whole. */
static int udev_properties(struct device *dev, const struct uevent *ev)
{
	if (!ev->udev)
		return 0;
	dev->probed = true;
	if (set_string(&dev->fs_type, ev->fs_type) < 0 ||
	    set_string(&dev->fs_uuid, ev->fs_uuid) < 0 ||
	    set_string(&dev->fs_label, ev->fs_label) < 0 ||
	    set_string(&dev->part_uuid, ev->part_uuid) < 0 ||
	    set_string(&dev->devlinks, ev->devlinks) < 0)
		return -ENOMEM;
	return 0;
}

/* What a uevent, udevd's or the kernel's, says about its record. */
static int apply_uevent(struct device *dev, const struct uevent *ev, unsigned gen)
{
	/* the event's class, as it found or made the record */
	const struct dev_class *c = dev_class_of(ev->subsystem);
	const char *name;

	if (!c)
		return -EINVAL;
	name = c->by_interface ? ev->interface : ev->devname;
	/* a "change" may omit what "add" said: keep what we know */
	if (name && set_string(&dev->name, name) < 0)
		return -ENOMEM;
	if (!dev->name && c->by_interface) {
		/* net devices always carry INTERFACE; fall back to the
		 * last DEVPATH component just in case */
		const char *slash = strrchr(ev->devpath, '/');

		if (set_string(&dev->name, slash + 1) < 0)
			return -ENOMEM;
	}
	if (ev->has_devt) {
		dev->has_devt = true;
		dev->major = ev->major;
		dev->minor = ev->minor;
	}
	if (c->kind == DEV_BLOCK) {
		if (ev->devtype)
			dev->is_partition = streq(ev->devtype, "partition");
		if (ev->partn)
			dev->partn = ev->partn;
		if (ev->partname && set_string(&dev->partname, ev->partname) < 0)
			return -ENOMEM;
		if (ev->diskseq)
			dev->diskseq = ev->diskseq;
		if (udev_properties(dev, ev) < 0)
			return -ENOMEM;
	}
	if (c->kind == DEV_NET && ev->ifindex)
		dev->ifindex = ev->ifindex;
	dev->generation = gen;
	return 0;
}

struct device *devtab_update(struct devtab *tab, const struct uevent *ev, unsigned gen)
{
	const struct dev_class *c = dev_class_of(ev->subsystem);
	struct dev_update u = { .kind = DEV_UPDATE_UEVENT,
				.uevent = ev,
				.generation = gen };
	struct device *dev = NULL;

	if (!c) {
		errno = EINVAL;
		return NULL;
	}
	if (ev->action == UEVENT_MOVE && ev->devpath_old) {
		dev = devtab_find(tab, ev->devpath_old);
		if (dev && set_string(&dev->devpath, ev->devpath) < 0)
			goto nomem;
	}
	if (!dev)
		dev = devtab_find(tab, ev->devpath);
	if (!dev)
		dev = devtab_add(tab, ev->devpath, c->kind);
	if (!dev || devtab_apply(tab, dev, &u) < 0)
		goto nomem;
	return dev;
nomem:
	errno = ENOMEM;
	return NULL;
}

/* Clears what a probe found (fs_* and part_uuid), and probed. */
static void forget_probe(struct device *dev)
{
	char **fields[] = { &dev->fs_type, &dev->fs_uuid, &dev->fs_label,
			    &dev->part_uuid };
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		free(*fields[i]);
		*fields[i] = NULL;
	}
	dev->fs_ambivalent = false;
	dev->probed = false;
	dev->probe_deferred = false;
	dev->probe_err = 0;
	memset(&dev->probe_cost, 0, sizeof(dev->probe_cost));
}

/* A probe that failed without reading the medium: open() refused. */
static bool probe_err_unknowing(int err)
{
	return err == -EACCES || err == -EPERM || err == -ENOENT;
}

/* A probe's values: "" is nothing found. */
static int set_value(char **slot, const char *val)
{
	return set_string(slot, *val ? val : NULL);
}

static int apply_probe(struct device *dev, const struct probe_msg *msg)
{
	dev->probe_id = 0;
	dev->probe_stale = false;
	if (!msg)
		return 0; /* superseded: the next read decides */
	forget_probe(dev);
	/* what reading it cost is known even when nothing else is */
	dev->probe_cost = msg->cost;
	if (msg->err < 0) {
		/* a medium that cannot be read is no root; a node we may not
		 * open (a caller without the right) or do not have tells
		 * nothing of it: then readiness goes by the size */
		if (!probe_err_unknowing(msg->err)) {
			dev->probe_err = msg->err;
			dev->probed = true;
		}
		return 0;
	}
	dev->fs_ambivalent = msg->ambivalent;
	if (set_value(&dev->fs_type, msg->fs_type) < 0 ||
	    set_value(&dev->fs_uuid, msg->fs_uuid) < 0 ||
	    set_value(&dev->fs_label, msg->fs_label) < 0 ||
	    set_value(&dev->part_uuid, msg->part_uuid) < 0) {
		forget_probe(dev);
		dev->probe_cost = msg->cost;
		return -ENOMEM;
	}
	dev->probed = true;
	return 0;
}

static int apply_attrs(struct device *dev, const struct dev_attrs *a)
{
	if (a->has_size)
		dev->size = a->size;
	if (a->has_link) {
		dev->flags = a->flags;
		dev->operstate = a->operstate;
	}
	if (a->has_mac) {
		memcpy(dev->mac, a->mac, a->mac_len);
		dev->mac_len = a->mac_len;
	}
	if (a->dm_name[0])
		return set_string(&dev->dm_name, a->dm_name);
	return 0;
}

static int apply_link(struct device *dev, const struct rtnl_link *link)
{
	dev->flags = link->flags;
	dev->operstate = link->operstate;
	if (link->mac && link->mac_len <= DEV_MAC_MAX) {
		memcpy(dev->mac, link->mac, link->mac_len);
		dev->mac_len = link->mac_len;
	}
	/* renamed: the "move" uevent says so too, but maybe later */
	if (link->ifname)
		return set_string(&dev->name, link->ifname);
	return 0;
}

int devtab_apply(struct devtab *tab, struct device *dev, const struct dev_update *u)
{
	(void)tab; /* the records are its own: nobody else writes them */
	switch (u->kind) {
	case DEV_UPDATE_UEVENT:
		return apply_uevent(dev, u->uevent, u->generation);
	case DEV_UPDATE_SYSFS:
		return apply_attrs(dev, u->attrs);
	case DEV_UPDATE_LINK:
		return apply_link(dev, u->link);
	case DEV_UPDATE_PROBE_START:
		dev->probe_id = u->probe_id;
		dev->probe_since_ms = u->now_ms;
		dev->probe_stale = false;
		dev->probe_deferred = false;
		dev->probe_rescan = u->rescan;
		/* the medium it reads (a rescan compares) */
		dev->probed_diskseq = dev->diskseq;
		dev->probed_size = dev->size;
		return 0;
	case DEV_UPDATE_PROBE_STALE:
		dev->probe_stale = true;
		return 0;
	case DEV_UPDATE_PROBE_END:
		return apply_probe(dev, u->probe);
	case DEV_UPDATE_PROBE_FORGET:
		forget_probe(dev);
		return 0;
	case DEV_UPDATE_PROBE_DEFER:
		forget_probe(dev);
		dev->probe_deferred = true;
		return 0;
	}
	return -EINVAL;
}

const struct device *devtab_find_part_uuid(const struct devtab *tab, const char *uuid)
{
	size_t i;

	for (i = 0; i < tab->n; i++)
		if (tab->devs[i]->kind == DEV_BLOCK && tab->devs[i]->part_uuid &&
		    strcasecmp(tab->devs[i]->part_uuid, uuid) == 0)
			return tab->devs[i];
	return NULL;
}

void devtab_remove(struct devtab *tab, struct device *dev)
{
	size_t i;

	for (i = 0; i < tab->n; i++) {
		if (tab->devs[i] != dev)
			continue;
		device_clear(dev);
		free(dev);
		tab->devs[i] = tab->devs[--tab->n];
		return;
	}
}

size_t devtab_count(const struct devtab *tab)
{
	return tab->n;
}

struct device *devtab_at(const struct devtab *tab, size_t i)
{
	return i < tab->n ? tab->devs[i] : NULL;
}
