// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

struct device *devtab_update(struct devtab *tab, const struct uevent *ev, unsigned gen)
{
	const struct dev_class *c = dev_class_of(ev->subsystem);
	enum dev_kind kind = c ? c->kind : DEV_OTHER;
	struct device *dev = NULL;
	const char *name;

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
		dev = devtab_add(tab, ev->devpath, kind);
	if (!dev)
		goto nomem;

	name = c->by_interface ? ev->interface : ev->devname;
	/* a "change" may omit what "add" said: keep what we know */
	if (name && set_string(&dev->name, name) < 0)
		goto nomem;
	if (!dev->name && c->by_interface) {
		/* net devices always carry INTERFACE; fall back to the
		 * last DEVPATH component just in case */
		const char *slash = strrchr(ev->devpath, '/');

		if (set_string(&dev->name, slash + 1) < 0)
			goto nomem;
	}
	if (ev->has_devt) {
		dev->has_devt = true;
		dev->major = ev->major;
		dev->minor = ev->minor;
	}
	if (kind == DEV_BLOCK) {
		if (ev->devtype)
			dev->is_partition = streq(ev->devtype, "partition");
		if (ev->partn)
			dev->partn = ev->partn;
		if (ev->partname && set_string(&dev->partname, ev->partname) < 0)
			goto nomem;
		if (ev->diskseq)
			dev->diskseq = ev->diskseq;
		if (udev_properties(dev, ev) < 0)
			goto nomem;
	}
	if (kind == DEV_NET && ev->ifindex)
		dev->ifindex = ev->ifindex;
	dev->generation = gen;
	return dev;
nomem:
	errno = ENOMEM;
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
