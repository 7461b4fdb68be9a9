/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * source.h - where uevents come from.
 *
 * The kernel source is a NETLINK_KOBJECT_UEVENT socket bound to the
 * kernel's multicast group 1. The fd source reads the very same datagrams
 * from a descriptor the caller supplies (an AF_UNIX datagram socket, for
 * tests and replays); it checks credentials the same way. Either way a
 * datagram is accepted only from the kernel (netlink port id 0, pid 0 and
 * uid 0 in its credentials), bounded, parsed and checked by
 * uevent_parse(); everything else is counted and dropped.
 */
#ifndef WAITDEV_SOURCE_H
#define WAITDEV_SOURCE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include "sysfs.h"
#include "uevent.h"

/* What we ask for with SO_RCVBUFFORCE: room for a coldplug storm. */
#define SOURCE_RCVBUF_DEFAULT (128 * 1024 * 1024)

struct source_stats {
	uint64_t received;  /* datagrams read */
	uint64_t accepted;  /* parsed and trusted */
	uint64_t forged;    /* wrong sender or credentials */
	uint64_t malformed; /* failed uevent_parse() or truncated */
	uint64_t overflows; /* ENOBUFS: the kernel dropped events */
};

struct source;

/* Opens and binds the kernel uevent socket; the initial scan reads
 * @sysfs. @rcvbuf 0 = default. */
int source_open_kernel(struct source **out, struct sysfs *sysfs, int rcvbuf);
/* Wraps @fd (taken over: closed by source_free(), or at once when this
 * fails); scans @sysfs. */
int source_open_fd(struct source **out, struct sysfs *sysfs, int fd);
/*
 * udevd's processed events (netlink group "udev") through libudev, and
 * udev_enumerate for the scan: records then carry udev's properties
 * (ID_FS_UUID, DEVLINKS, ...). -EOPNOTSUPP in a build without libudev.
 */
int source_open_udev(struct source **out, int rcvbuf);
/* udevd's control socket: it listens there while it runs. */
#define UDEV_CONTROL "/run/udev/control"

/*
 * Whether this build has the udev source; whether udevd runs here (a
 * connection to UDEV_CONTROL is accepted: a stale socket file left by a
 * killed udevd refuses it).
 */
bool source_udev_available(void);
bool source_udev_running(void);
void source_free(struct source *src);

int source_fd(const struct source *src);
const struct source_stats *source_stats(const struct source *src);

/*
 * Reads the next trusted uevent into @ev (strings point into @src's
 * buffer, valid until the next call). Returns 1 with an event, 0 when
 * nothing is queued, -ENOBUFS when the kernel reported an overflow (the
 * caller must rescan), -EPIPE when a test feed was closed, another
 * negative errno on a socket error.
 */
int source_recv(struct source *src, struct uevent *ev);

/*
 * Enumerates the devices of @kind that exist now, as "add" events, the
 * same way sysfs_scan() does (which the kernel and fd sources use).
 */
int source_scan(struct source *src, enum dev_kind kind, sysfs_scan_fn fn, void *ctx);

/*
 * The trust rule on its own: credentials @cred (NULL: none came) with uid
 * 0, and for netlink (@nl; NULL for the non-netlink fd source, where a
 * sender cannot claim pid 0) port id 0 and pid 0. A uevent root sends to
 * the kernel is re-broadcast from port id 0 with uid 0 too, but carries
 * the sender's pid.
 */
bool source_sender_trusted(const struct sockaddr_nl *nl, const struct ucred *cred);

#endif
