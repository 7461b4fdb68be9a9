// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The udev source: udevd's processed events (netlink group "udev") and
 * its database, through libudev. Events arrive after the rules ran, so
 * records carry ID_FS_UUID, ID_FS_LABEL, ID_PART_ENTRY_UUID and DEVLINKS
 * and no probing is needed. libudev checks the sender (udevd, uid 0);
 * the subsystem filter runs in the kernel (BPF), so events of other
 * subsystems never wake us.
 */
#include <errno.h>
#include <libudev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devclass.h"
#include "log.h"
#include "source_impl.h"
#include "spec.h"
#include "util.h"

struct udev_source {
	struct udev *udev;
	struct udev_monitor *monitor;
	struct udev_device *current; /* what the last uevent points into */
	char label[SPEC_VALUE_MAX];
	char devname[256];
};

bool source_udev_available(void)
{
	return true;
}

/* ID_FS_LABEL has unsafe characters replaced; _ENC has them \xNN. */
static const char *decode_label(const char *enc, char *out, size_t size)
{
	return enc && udev_unescape(enc, out, size) ? out : NULL;
}

static int parse_num(const char *s, uint64_t max, uint64_t *out)
{
	if (!s)
		return 0;
	if (parse_u64(s, out) < 0 || *out > max)
		return -EBADMSG;
	return 1;
}

/* Fills @ev from @d; the strings stay valid while @d is referenced. */
static int to_uevent(struct udev_source *us, struct udev_device *d,
		     enum uevent_action action, struct uevent *ev)
{
	const char *node = udev_device_get_devnode(d);
	uint64_t v;
	int r;

	memset(ev, 0, sizeof(*ev));
	ev->udev = true;
	ev->action = action;
	ev->devpath = udev_device_get_devpath(d);
	ev->subsystem = udev_device_get_subsystem(d);
	if (!ev->devpath || !ev->subsystem)
		return -EBADMSG;
	/* a "move" (an interface renamed): which record it was */
	ev->devpath_old = udev_device_get_property_value(d, "DEVPATH_OLD");
	if (node && strncmp(node, "/dev/", 5) == 0) {
		strscpy(us->devname, node + 5, sizeof(us->devname));
		ev->devname = us->devname;
	}
	ev->devtype = udev_device_get_devtype(d);
	ev->partname = udev_device_get_property_value(d, "PARTNAME");
	ev->interface = udev_device_get_property_value(d, "INTERFACE");
	ev->modalias = udev_device_get_property_value(d, "MODALIAS");
	if (uevent_set_devt(ev, udev_device_get_property_value(d, "MAJOR"),
			    udev_device_get_property_value(d, "MINOR")) < 0)
		return -EBADMSG;
	/* malformed numbers make the event malformed, as in uevent_parse() */
	r = parse_num(udev_device_get_property_value(d, "PARTN"), 65535, &v);
	if (r < 0)
		return r;
	if (r > 0)
		ev->partn = (unsigned)v;
	r = parse_num(udev_device_get_property_value(d, "IFINDEX"), 0x7fffffff, &v);
	if (r < 0 || (r > 0 && v == 0))
		return -EBADMSG;
	if (r > 0)
		ev->ifindex = (int)v;
	r = parse_num(udev_device_get_property_value(d, "DISKSEQ"), UINT64_MAX,
		      &ev->diskseq);
	if (r < 0)
		return r;
	ev->seqnum = udev_device_get_seqnum(d);
	ev->fs_type = udev_device_get_property_value(d, "ID_FS_TYPE");
	ev->fs_uuid = udev_device_get_property_value(d, "ID_FS_UUID");
	ev->fs_label = decode_label(udev_device_get_property_value(d, "ID_FS_"
								      "LABEL_"
								      "ENC"),
				    us->label, sizeof(us->label));
	if (!ev->fs_label)
		ev->fs_label = udev_device_get_property_value(d, "ID_FS_LABEL");
	ev->part_uuid = udev_device_get_property_value(d, "ID_PART_ENTRY_UUID");
	ev->devlinks = udev_device_get_property_value(d, "DEVLINKS");
	return 0;
}

static int udev_recv_one(struct source *src, struct uevent *ev)
{
	struct udev_source *us = src->priv;
	enum uevent_action action;
	struct udev_device *d;

	if (us->current) {
		udev_device_unref(us->current);
		us->current = NULL;
	}
	errno = 0;
	d = udev_monitor_receive_device(us->monitor);
	if (!d)
		return errno ? -errno : -EAGAIN;
	src->stats.received++;
	us->current = d;
	action = uevent_action_from_name(udev_device_get_action(d));
	if (to_uevent(us, d, action, ev) < 0 || ev->action == UEVENT_UNKNOWN) {
		src->stats.malformed++;
		return 0;
	}
	src->stats.accepted++;
	return 1;
}

static int udev_scan(struct source *src, enum dev_kind kind, sysfs_scan_fn fn, void *ctx)
{
	struct udev_source *us = src->priv;
	struct udev_list_entry *entry;
	const struct dev_class *c = dev_class(kind);
	struct udev_enumerate *en;
	int r = 0;

	if (!c)
		return -EINVAL;
	en = udev_enumerate_new(us->udev);
	if (!en)
		return -ENOMEM;
	/* not yet processed by udevd: its event is still to come to us */
	r = udev_enumerate_add_match_subsystem(en, c->subsystem);
	if (r >= 0)
		r = udev_enumerate_add_match_is_initialized(en);
	if (r >= 0)
		r = udev_enumerate_scan_devices(en);
	udev_list_entry_foreach(entry, r < 0 ? NULL : udev_enumerate_get_list_entry(en))
	{
		struct udev_device *d = udev_device_new_from_syspath(
			us->udev, udev_list_entry_get_name(entry));
		struct uevent ev;

		if (!d)
			continue; /* gone meanwhile */
		if (to_uevent(us, d, UEVENT_ADD, &ev) == 0)
			r = fn(ctx, &ev);
		udev_device_unref(d);
		if (r != 0)
			break;
	}
	udev_enumerate_unref(en);
	return r;
}

static void udev_free(struct source *src)
{
	struct udev_source *us = src->priv;

	if (!us)
		return;
	src->fd = -1; /* the monitor's own */
	udev_device_unref(us->current);
	udev_monitor_unref(us->monitor);
	udev_unref(us->udev);
	free(us);
}

static const struct source_ops udev_ops = {
	.recv_one = udev_recv_one,
	.scan = udev_scan,
	.free = udev_free,
};

int source_open_udev(struct source **out, int rcvbuf)
{
	struct udev_source *us = calloc(1, sizeof(*us));
	struct source *src;
	unsigned i;
	int r = -ENOMEM;

	if (!us)
		return -ENOMEM;
	src = source_new(&udev_ops, -1);
	if (!src) {
		free(us);
		return -ENOMEM;
	}
	src->priv = us;
	us->udev = udev_new();
	if (us->udev)
		us->monitor = udev_monitor_new_from_netlink(us->udev, "udev");
	if (!us->monitor)
		goto fail;
	for (i = 0; i < DEV_KIND_COUNT; i++) {
		if (!dev_class(i))
			continue;
		r = udev_monitor_filter_add_match_subsystem_devtype(
			us->monitor, dev_class(i)->subsystem, NULL);
		if (r < 0)
			goto fail;
	}
	/* a smaller buffer still works: overflows are then rescanned */
	r = udev_monitor_set_receive_buffer_size(
		us->monitor, rcvbuf > 0 ? rcvbuf : SOURCE_RCVBUF_DEFAULT);
	if (r < 0)
		log_debug("udev monitor receive buffer: %s", strerror(-r));
	r = udev_monitor_enable_receiving(us->monitor);
	if (r < 0)
		goto fail;
	src->fd = udev_monitor_get_fd(us->monitor);
	*out = src;
	return 0;
fail:
	source_free(src);
	return r;
}
