// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <string.h>

#include "devclass.h"
#include "uevent.h"
#include "util.h"

static const char *const action_names[] = {
	[UEVENT_UNKNOWN] = "unknown", [UEVENT_ADD] = "add",   [UEVENT_REMOVE] = "remove",
	[UEVENT_CHANGE] = "change",   [UEVENT_MOVE] = "move", [UEVENT_ONLINE] = "online",
	[UEVENT_OFFLINE] = "offline", [UEVENT_BIND] = "bind", [UEVENT_UNBIND] = "unbind",
};

const char *uevent_action_name(enum uevent_action action)
{
	if ((unsigned)action >= ARRAY_SIZE(action_names))
		return "unknown";
	return action_names[action];
}

enum uevent_action uevent_action_from_name(const char *s)
{
	unsigned i;

	for (i = UEVENT_ADD; s && i < ARRAY_SIZE(action_names); i++)
		if (streq(s, action_names[i]))
			return (enum uevent_action)i;
	return UEVENT_UNKNOWN;
}

/* A sysfs path we may later open below the sysfs root: absolute, and
 * no "." or ".." or empty component. */
static bool path_is_safe(const char *p)
{
	return p && p[0] == '/' && relpath_is_safe(p + 1);
}

static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	if (parse_u64(s, out) < 0 || *out > max)
		return -EBADMSG;
	return 0;
}

/* The numeric keys, for telling a key given twice. */
enum {
	SEEN_ACTION = 1 << 0,
	SEEN_MAJOR = 1 << 1,
	SEEN_MINOR = 1 << 2,
	SEEN_PARTN = 1 << 3,
	SEEN_DISKSEQ = 1 << 4,
	SEEN_SEQNUM = 1 << 5,
	SEEN_IFINDEX = 1 << 6,
};

static bool first_time(unsigned *seen, unsigned bit)
{
	if (*seen & bit)
		return false;
	*seen |= bit;
	return true;
}

static int set_field(struct uevent *ev, unsigned *seen, const char *key, const char *val)
{
	static const struct {
		const char *key;
		size_t off;
	} strings[] = {
		{ "DEVPATH", offsetof(struct uevent, devpath) },
		{ "DEVPATH_OLD", offsetof(struct uevent, devpath_old) },
		{ "SUBSYSTEM", offsetof(struct uevent, subsystem) },
		{ "DEVNAME", offsetof(struct uevent, devname) },
		{ "DEVTYPE", offsetof(struct uevent, devtype) },
		{ "PARTNAME", offsetof(struct uevent, partname) },
		{ "INTERFACE", offsetof(struct uevent, interface) },
		{ "MODALIAS", offsetof(struct uevent, modalias) },
	};
	uint64_t v;
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(strings); i++) {
		const char **slot;

		if (!streq(key, strings[i].key))
			continue;
		slot = (const char **)((char *)ev + strings[i].off);
		if (*slot)
			return -EBADMSG; /* a key given twice */
		*slot = val;
		return 0;
	}
	/* like the strings above, a numeric key given twice is malformed */
	if (streq(key, "ACTION")) {
		enum uevent_action a = uevent_action_from_name(val);

		if (a == UEVENT_UNKNOWN || !first_time(seen, SEEN_ACTION))
			return -EBADMSG;
		ev->action = a;
	} else if (streq(key, "MAJOR")) {
		if (!first_time(seen, SEEN_MAJOR) || parse_uint(val, 4095, &v) < 0)
			return -EBADMSG;
		ev->major = (unsigned)v;
		ev->has_devt |= 1;
	} else if (streq(key, "MINOR")) {
		if (!first_time(seen, SEEN_MINOR) || parse_uint(val, 1048575, &v) < 0)
			return -EBADMSG;
		ev->minor = (unsigned)v;
		ev->has_devt |= 2;
	} else if (streq(key, "PARTN")) {
		if (!first_time(seen, SEEN_PARTN) || parse_uint(val, 65535, &v) < 0)
			return -EBADMSG;
		ev->partn = (unsigned)v;
	} else if (streq(key, "DISKSEQ")) {
		if (!first_time(seen, SEEN_DISKSEQ) ||
		    parse_uint(val, UINT64_MAX, &ev->diskseq) < 0)
			return -EBADMSG;
	} else if (streq(key, "SEQNUM")) {
		if (!first_time(seen, SEEN_SEQNUM) ||
		    parse_uint(val, UINT64_MAX, &ev->seqnum) < 0)
			return -EBADMSG;
	} else if (streq(key, "IFINDEX")) {
		if (!first_time(seen, SEEN_IFINDEX) ||
		    parse_uint(val, 0x7fffffff, &v) < 0 || v == 0)
			return -EBADMSG;
		ev->ifindex = (int)v;
	}
	/* other keys (DRIVER, PRODUCT, ...) are legal and not needed */
	return 0;
}

/* Walks NUL-terminated KEY=VALUE fields in [p, end). */
static int parse_fields(char *p, const char *end, struct uevent *ev)
{
	unsigned seen = 0;

	while (p < end) {
		size_t n = strnlen(p, (size_t)(end - p));
		char *eq;

		if (n == 0 || p + n >= end + 1)
			return -EBADMSG;
		eq = memchr(p, '=', n);
		if (!eq || eq == p)
			return -EBADMSG;
		*eq = '\0';
		if (set_field(ev, &seen, p, eq + 1) < 0)
			return -EBADMSG;
		p += n + 1;
	}
	return 0;
}

static int check_fields(struct uevent *ev)
{
	if (!ev->devpath || !path_is_safe(ev->devpath) || !ev->subsystem ||
	    !*ev->subsystem || ev->action == UEVENT_UNKNOWN)
		return -EBADMSG;
	if (ev->devpath_old && !path_is_safe(ev->devpath_old))
		return -EBADMSG;
	if (ev->devname &&
	    (strlen(ev->devname) >= UEVENT_BUFFER_SIZE || !relpath_is_safe(ev->devname)))
		return -EBADMSG;
	if (ev->has_devt != 0 && ev->has_devt != 3)
		return -EBADMSG; /* MAJOR without MINOR or v.v. */
	ev->has_devt = ev->has_devt == 3;
	/* INTERFACE names a network interface only for "net"; a USB
	 * interface's is its class triple ("8/6/80"), not ours to check */
	if (ev->interface && dev_kind_of(ev->subsystem) == DEV_NET &&
	    (!*ev->interface || strchr(ev->interface, '/')))
		return -EBADMSG;
	return 0;
}

int uevent_set_devt(struct uevent *ev, const char *major, const char *minor)
{
	uint64_t maj, min;

	ev->has_devt = false;
	if (!major && !minor)
		return 0;
	/* the same ranges and the same "both or none" as uevent_parse() */
	if (!major || !minor || parse_uint(major, 4095, &maj) < 0 ||
	    parse_uint(minor, 1048575, &min) < 0)
		return -EBADMSG;
	ev->major = (unsigned)maj;
	ev->minor = (unsigned)min;
	ev->has_devt = true;
	return 0;
}

int uevent_parse(char *buf, size_t len, struct uevent *ev)
{
	const char *end = buf + len;
	size_t hlen;
	char *at;
	enum uevent_action header_action;
	const char *header_path;
	int r;

	memset(ev, 0, sizeof(*ev));
	if (len == 0 || len > UEVENT_RECV_SIZE)
		return -EBADMSG;
	buf[len] = '\0';
	/* libudev's monitor messages start with "libudev\0": not ours */
	hlen = strnlen(buf, len);
	if (hlen == len || hlen == 0)
		return -EBADMSG;
	at = memchr(buf, '@', hlen);
	if (!at)
		return -EBADMSG;
	*at = '\0';
	header_action = uevent_action_from_name(buf);
	header_path = at + 1;
	if (header_action == UEVENT_UNKNOWN)
		return -EBADMSG;

	r = parse_fields(buf + hlen + 1, end, ev);
	if (r < 0)
		return r;
	r = check_fields(ev);
	if (r < 0)
		return r;
	if (ev->action != header_action || !streq(ev->devpath, header_path) ||
	    ev->seqnum == 0)
		return -EBADMSG;
	return 0;
}

int uevent_parse_file(char *buf, size_t len, const char *devpath, const char *subsystem,
		      struct uevent *ev)
{
	size_t i;

	memset(ev, 0, sizeof(*ev));
	buf[len] = '\0';
	for (i = 0; i < len; i++) {
		if (buf[i] == '\n')
			buf[i] = '\0';
		else if (buf[i] == '\0')
			return -EBADMSG;
	}
	/* the file ends with a newline: drop the empty last field */
	while (len > 0 && buf[len - 1] == '\0')
		len--;
	if (len > 0) {
		int r = parse_fields(buf, buf + len, ev);

		if (r < 0)
			return r;
	}
	if (ev->devpath || ev->subsystem || ev->action != UEVENT_UNKNOWN)
		return -EBADMSG; /* a uevent file never has these */
	ev->devpath = devpath;
	ev->subsystem = subsystem;
	ev->action = UEVENT_ADD;
	return check_fields(ev);
}
