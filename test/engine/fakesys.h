/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fakesys.h - a fake sysfs tree and a fake uevent feed for engine tests.
 *
 * The tree has the real layout (devices/..., class/X/NAME -> ../../devices
 * links, uevent and attribute files), so the engine's sysfs code reads it
 * exactly as it reads /sys. The feed is an AF_UNIX datagram socketpair:
 * the engine reads kernel-format datagrams from one end with credentials.
 */
#ifndef WAITDEV_FAKESYS_H
#define WAITDEV_FAKESYS_H

#include <stdbool.h>
#include <sys/types.h>

struct fakesys {
	char root[256];
	int feed[2]; /* [0]: the engine's end, [1]: ours */
	unsigned seqnum;
};

/* Makes an empty tree and the feed; exits the test on failure. */
void fakesys_init(struct fakesys *fs);
void fakesys_cleanup(struct fakesys *fs);

/* A block device /devices/virtual/block/NAME of @sectors sectors.
 * @listed: also create the class/block link (scan finds it). */
void fakesys_add_block(struct fakesys *fs, const char *name, unsigned major,
		       unsigned minor, unsigned long long sectors, const char *partname,
		       bool listed);
/* Partition NAME of the whole disk DISK (added before), as the kernel
 * lays it out: /devices/virtual/block/DISK/NAME, with a "partition"
 * attribute; listed in class/block. */
void fakesys_add_partition(struct fakesys *fs, const char *disk, const char *name,
			   unsigned major, unsigned minor, unsigned long long sectors);
void fakesys_set_size(struct fakesys *fs, const char *name, unsigned long long sectors);
/* DISKSEQ=@seq in block device NAME's uevent file (the medium's number;
 * the kernel counts it up for every new one). */
void fakesys_set_diskseq(struct fakesys *fs, const char *name, unsigned long long seq);
/* The dm/name attribute of device-mapper device NAME (dm-N). */
void fakesys_set_dm_name(struct fakesys *fs, const char *name, const char *dm_name);
void fakesys_remove_block(struct fakesys *fs, const char *name);
void fakesys_add_tty(struct fakesys *fs, const char *name, unsigned major,
		     unsigned minor);
void fakesys_add_net(struct fakesys *fs, const char *name, int ifindex, const char *mac,
		     unsigned flags, const char *operstate);

/* Removes the class/SUBSYSTEM/NAME link: a scan no longer lists it. */
void fakesys_unlist(struct fakesys *fs, const char *subsystem, const char *name);

/* Sends the kernel-format uevent for block device NAME. @uid is the
 * credential attached (0 = the kernel). Returns bytes sent. */
/* An "add" of the partition @name of @disk (fakesys_add_partition()). */
void fakesys_send_partition(struct fakesys *fs, const char *disk, const char *name,
			    unsigned major, unsigned minor);
void fakesys_send_block(struct fakesys *fs, const char *action, const char *name,
			unsigned major, unsigned minor, uid_t uid);
/* Sends @len raw bytes as one datagram with root credentials. */
void fakesys_send_raw(struct fakesys *fs, const void *buf, size_t len);

#endif
