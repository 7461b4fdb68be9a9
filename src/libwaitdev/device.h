/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * device.h - the device record: what waitdev knows about one block
 * device, tty or network interface, whatever source it came from.
 *
 * Records are built from a uevent (netlink, sysfs "uevent" file or a test
 * feed) plus a few sysfs attributes, kept in the device table, updated by
 * later events (change, move, rtnetlink link state) and handed to the
 * matchers in spec.h.
 */
#ifndef WAITDEV_DEVICE_H
#define WAITDEV_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

enum dev_kind {
	DEV_OTHER = 0,
	DEV_BLOCK,
	DEV_TTY,
	DEV_NET,
	DEV_KIND_COUNT, /* a new class: a value above, a row in devclass.c */
};

#define DEV_MAC_MAX 32 /* MAX_ADDR_LEN */

/*
 * What one probe cost: its duration, and the read requests the device
 * completed while it ran (its sysfs "stat" before and after: every
 * reader of the device counts, not only the probe).
 */
struct probe_cost {
	bool measured; /* a probe ran and gave a result: us is known */
	bool has_io;   /* reads and bytes are known (the stat file was read) */
	uint64_t reads;
	uint64_t bytes;
	uint64_t us;
};

struct device {
	enum dev_kind kind;
	char *devpath; /* sysfs path below /sys, "/devices/..." */
	char *name;    /* DEVNAME for block/tty, INTERFACE for net */
	bool has_devt;
	unsigned int major, minor;

	/* block */
	bool is_partition;
	unsigned int partn;
	char *partname; /* PARTNAME: the GPT partition name */
	uint64_t diskseq;
	uint64_t size; /* in 512-byte sectors; 0 = no medium */
	/* filled by a probe back end or the udev source, NULL otherwise */
	bool probed; /* fs_* below are known (NULL: nothing there) */
	/* the probe could not read the medium (-EIO, ...): probed is set,
	 * with nothing found, so it is not ready; 0 otherwise */
	int probe_err;
	/* the medium the probe read or reads: DISKSEQ (0: unknown), size */
	uint64_t probed_diskseq, probed_size;
	/* the probe in flight (prober.h), 0 for none; stale: an event came
	 * after it started, its result is for what was there before */
	uint32_t probe_id;
	uint64_t probe_since_ms; /* when that probe started */
	bool probe_stale;
	bool probe_rescan; /* it was started by a rescan after an overflow */
	/* its probe waits: a whole disk's for its partitions' (the likelier
	 * match is read first), or for another on the same disk (engine.c) */
	bool probe_deferred;
	struct probe_cost probe_cost; /* of the probe whose result we hold */
	char *fs_type;		      /* "ext4", "vfat", "crypto_LUKS", ... */
	bool fs_ambivalent;	      /* libblkid found two signatures, chose none */
	char *fs_uuid;
	char *fs_label;
	char *part_uuid;
	char *devlinks; /* udev: space-separated /dev/disk/by-* links */
	char *dm_name;	/* device-mapper name (/dev/mapper/NAME), sysfs dm/name */

	/* net */
	int ifindex;
	unsigned int flags;	/* IFF_* */
	unsigned int operstate; /* IF_OPER_* */
	unsigned char mac[DEV_MAC_MAX];
	unsigned int mac_len;

	/* the sysfs scan that last saw it (see engine rescans) */
	unsigned int generation;
};

/* DM_NAME_LEN of linux/dm-ioctl.h, its NUL included */
#define DEV_DM_NAME_MAX 128

/*
 * What sysfs says about a device that its uevents do not carry, as a
 * class's reader (devclass.h) finds it; applied to the record by
 * devtab_apply(). A value not read is left out (has_*, "" for a name).
 */
struct dev_attrs {
	bool has_size; /* block */
	uint64_t size;
	char dm_name[DEV_DM_NAME_MAX + 2]; /* and a newline */
	bool has_link;			   /* net: flags and operstate */
	unsigned int flags, operstate;
	bool has_mac;
	unsigned char mac[DEV_MAC_MAX];
	unsigned int mac_len;
};

/* Its subsystem's name ("block", "tty", "net"), "other" (devclass.c). */
const char *dev_kind_name(enum dev_kind kind);
/* "up", "down", ... for an IF_OPER_* value, as sysfs writes it (class_net.c). */
const char *dev_operstate_name(unsigned int operstate);
/* Frees the strings of @dev (not @dev itself) and zeroes it. */
void device_clear(struct device *dev);
/* "ab:cd:..." into @buf (>= 3 * DEV_MAC_MAX bytes). */
void device_format_mac(const struct device *dev, char *buf, unsigned size);
/* "/dev/NAME" for block and tty, the interface name for net. */
int device_node(const struct device *dev, char *buf, unsigned size);

#endif
