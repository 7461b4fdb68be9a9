/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uevent.h - parsing kernel uevents.
 *
 * A kernel uevent datagram is "ACTION@DEVPATH\0KEY=VALUE\0...". A sysfs
 * "uevent" file holds the same KEY=VALUE lines, newline-separated and
 * without ACTION/DEVPATH/SUBSYSTEM. Both are parsed here into a struct
 * uevent whose strings point into the caller's buffer: nothing is
 * allocated and nothing is trusted (lengths are bounded, every field is
 * checked).
 */
#ifndef WAITDEV_UEVENT_H
#define WAITDEV_UEVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel builds uevents in UEVENT_BUFFER_SIZE (2048) bytes. */
#define UEVENT_BUFFER_SIZE 2048
/* Receive buffer: large enough for any kernel uevent plus slack, so a
 * truncated datagram (MSG_TRUNC) is always a malformed one. */
#define UEVENT_RECV_SIZE (UEVENT_BUFFER_SIZE + 512)

enum uevent_action {
	UEVENT_UNKNOWN = 0,
	UEVENT_ADD,
	UEVENT_REMOVE,
	UEVENT_CHANGE,
	UEVENT_MOVE,
	UEVENT_ONLINE,
	UEVENT_OFFLINE,
	UEVENT_BIND,
	UEVENT_UNBIND,
};

struct uevent {
	enum uevent_action action;
	const char *devpath;
	const char *devpath_old; /* move */
	const char *subsystem;
	const char *devname;
	const char *devtype;
	const char *partname;
	const char *interface;
	const char *modalias;
	/* udev source only: properties udevd's rules added */
	bool udev;	       /* from udevd: the fields below are complete */
	const char *fs_type;   /* ID_FS_TYPE */
	const char *fs_uuid;   /* ID_FS_UUID */
	const char *fs_label;  /* ID_FS_LABEL */
	const char *part_uuid; /* ID_PART_ENTRY_UUID */
	const char *devlinks;  /* DEVLINKS */
	int has_devt;
	unsigned int major, minor;
	unsigned int partn;
	uint64_t diskseq;
	uint64_t seqnum;
	int ifindex;
};

/*
 * Parses a datagram of @len bytes from the kernel. @buf must have room
 * for one more byte (a terminating NUL is written at @len). Returns 0 or
 * -EBADMSG for anything malformed: missing header, header not matching
 * ACTION/DEVPATH, a field without '=', an over-long field, a bad number,
 * missing mandatory keys, unknown action, libudev-format messages.
 */
int uevent_parse(char *buf, size_t len, struct uevent *ev);

/*
 * Parses the KEY=VALUE lines of a sysfs uevent file (newlines become
 * NULs). ACTION is set to UEVENT_ADD; @devpath and @subsystem are given
 * by the caller. Same return values.
 */
int uevent_parse_file(char *buf, size_t len, const char *devpath, const char *subsystem,
		      struct uevent *ev);

const char *uevent_action_name(enum uevent_action action);
/* The action named @name (NULL: none), UEVENT_UNKNOWN for another. */
enum uevent_action uevent_action_from_name(const char *name);

/*
 * Sets @ev's device number from the strings of MAJOR and MINOR (NULL when
 * absent), as a source that gets them apart (udev's properties) needs:
 * has_devt only with both, each within range. Returns 0, or -EBADMSG when
 * only one is given or one is malformed (has_devt then false).
 */
int uevent_set_devt(struct uevent *ev, const char *major, const char *minor);

#endif
