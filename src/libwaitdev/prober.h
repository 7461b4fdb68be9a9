/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * prober.h - block device probes run in child processes, off the event
 * loop.
 *
 * A read from a device can take any time: a dying disk, a loop device
 * over a network or FUSE file, a stalled multipath path. The task that
 * issues it may sleep uninterruptibly (D state) until the read ends, and
 * no signal, SIGKILL included, gets it out sooner. So waitdev never reads
 * a device itself: each probe runs in a child, and the deadline and
 * SIGTERM hold whatever a device does.
 *
 * The contract:
 * - prober_start() gives one device node to a child, which runs the probe
 *   on it (timing it, and reading the device's sysfs "stat" before and
 *   after it: the read requests and sectors completed meanwhile), writes
 *   one fixed-size result (struct probe_msg, below PIPE_BUF: one atomic
 *   write) to a pipe of its own, and exits. One child, one probe: a child
 *   stuck in a read holds no other device. The parent never blocks on it.
 * - prober_prepare() forks the next probe's child ahead of time, to wait
 *   for its job (the caller calls it when it has nothing else to do: the
 *   fork is then not between an event and its probe; prober_start()
 *   forks one itself when there is none).
 * - prober_fd() is readable when a result can be read (an epoll fd over
 *   the pipes); prober_read() takes one without blocking. A child that
 *   dies without writing one (a crash on a hostile superblock) gives a
 *   result with err -EIO: every probe started ends in one result, unless
 *   its child never returns.
 * - Ids tell the results apart; which device a probe was for, and whether
 *   a newer event made its result stale, is the caller's to keep (one
 *   probe in flight per device).
 * - prober_free() SIGKILLs the children still running (and the one
 *   waiting for a job) and reaps the ones that have exited, without
 *   waiting for any: a child in D state cannot
 *   be reaped, it is left behind (init reaps it when its read ends).
 */
#ifndef WAITDEV_PROBER_H
#define WAITDEV_PROBER_H

#include <stdint.h>

#include "device.h"
#include "probe.h"

/* libblkid's values are at most 128 bytes (BLKID_PROBVAL_BUFSIZ) */
#define PROBE_VALUE_MAX 256

/* What a probe found, as the child writes it. Empty string: nothing. */
struct probe_msg {
	uint32_t id;
	int32_t err; /* 0, or the probe's negative errno: nothing known */
	uint8_t ambivalent;
	struct probe_cost cost; /* measured by the child around the probe */
	char fs_type[PROBE_VALUE_MAX];
	char fs_uuid[PROBE_VALUE_MAX];
	char fs_label[PROBE_VALUE_MAX];
	char part_uuid[PROBE_VALUE_MAX];
};

/* Reads @node into @dev's probe fields, as probe_block() does. */
typedef int (*probe_fn)(struct device *dev, const char *node,
			const struct probe_request *req);

struct prober;

/* @fn: what the children run, NULL for probe_block(); @req: what they
 * pass it (copied; NULL: the filesystem, of every type). */
int prober_new(struct prober **out, probe_fn fn, const struct probe_request *req);
void prober_free(struct prober *p);
int prober_fd(const struct prober *p);
/* Probes that have not given their result yet. */
unsigned int prober_running(const struct prober *p);

/* Forks the child the next prober_start() takes, unless there is one or
 * a probe is running (then 0: call again once it is over). */
int prober_prepare(struct prober *p);
/*
 * Has a child probe @node (the prepared one, else one forked now); sets
 * *@id (never 0). -ENAMETOOLONG: @node or @stat longer than PATH_MAX. @stat: the device's
 * sysfs "stat" file, read before and after the probe (NULL, or a file
 * that cannot be read or parsed: the result has no read figures).
 */
int prober_start(struct prober *p, const char *node, const char *stat, uint32_t *id);
/*
 * Takes one finished probe's result: 1 with @msg filled, 0 when none is
 * ready, a negative errno when reading fails.
 */
int prober_read(struct prober *p, struct probe_msg *msg);

#endif
