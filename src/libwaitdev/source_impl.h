/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * source_impl.h - what a uevent source implementation provides; private
 * to source.c and the source_*.c back ends.
 */
#ifndef WAITDEV_SOURCE_IMPL_H
#define WAITDEV_SOURCE_IMPL_H

#include "source.h"

struct source_ops {
	/* 1 with an event, 0 when dropped (counted), or -errno */
	int (*recv_one)(struct source *src, struct uevent *ev);
	int (*scan)(struct source *src, enum dev_kind kind, sysfs_scan_fn fn, void *ctx);
	void (*free)(struct source *src);
};

struct source {
	const struct source_ops *ops;
	int fd;
	struct sysfs *sysfs; /* kernel and fd sources: not owned */
	struct source_stats stats;
	void *priv;
};

/* Allocates a source with @ops around @fd (taken over). */
struct source *source_new(const struct source_ops *ops, int fd);

#endif
