// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz-uevent.c - kernel uevent datagrams and sysfs uevent files. The
 * input is one datagram, given to uevent_parse() in a buffer of exactly
 * len + 1 bytes (the parser writes buf[len]), and the same bytes as the
 * contents of a sysfs "uevent" file to uevent_parse_file(). A parse that
 * succeeds must give fields that point into the buffer, end inside it,
 * and hold what the kernel could have sent: a safe absolute DEVPATH, a
 * header that agrees with the fields, numbers in range.
 */
#include <errno.h>
#include <stdbool.h>

#include "fuzz.h"
#include "uevent.h"

/* Absolute, no empty, "." or ".." component. */
static bool safe_path(const char *p, bool absolute)
{
	const char *c = p;

	if (absolute) {
		if (p[0] != '/')
			return false;
		c++;
	}
	for (;;) {
		size_t n = strcspn(c, "/");

		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!c[n])
			return true;
		c += n + 1;
	}
}

static const char *const *string_fields(const struct uevent *ev, size_t *n)
{
	static const char *f[13];

	f[0] = ev->devpath;
	f[1] = ev->devpath_old;
	f[2] = ev->subsystem;
	f[3] = ev->devname;
	f[4] = ev->devtype;
	f[5] = ev->partname;
	f[6] = ev->interface;
	f[7] = ev->modalias;
	f[8] = ev->fs_type;
	f[9] = ev->fs_uuid;
	f[10] = ev->fs_label;
	f[11] = ev->part_uuid;
	f[12] = ev->devlinks;
	*n = 13;
	return f;
}

/* What every successful parse, datagram or file, gives. */
static void check_common(const struct uevent *ev)
{
	FUZZ_CHECK(ev->action > UEVENT_UNKNOWN && ev->action <= UEVENT_UNBIND);
	FUZZ_CHECK(strcmp(uevent_action_name(ev->action), "unknown") != 0);
	FUZZ_CHECK(ev->devpath && safe_path(ev->devpath, true));
	FUZZ_CHECK(ev->devpath[1] != '\0');
	FUZZ_CHECK(!ev->devpath_old || safe_path(ev->devpath_old, true));
	FUZZ_CHECK(ev->subsystem && ev->subsystem[0]);
	FUZZ_CHECK(!ev->devname || (ev->devname[0] && safe_path(ev->devname, false)));
	FUZZ_CHECK(!ev->devname || strlen(ev->devname) < UEVENT_BUFFER_SIZE);
	FUZZ_CHECK(ev->has_devt == 0 || ev->has_devt == 1);
	FUZZ_CHECK(ev->major <= 4095 && ev->minor <= 1048575);
	FUZZ_CHECK(ev->has_devt || (ev->major == 0 && ev->minor == 0));
	FUZZ_CHECK(ev->partn <= 65535);
	FUZZ_CHECK(ev->ifindex >= 0);
	if (ev->interface && !strcmp(ev->subsystem, "net"))
		FUZZ_CHECK(ev->interface[0] && !strchr(ev->interface, '/'));
	/* the udev properties are the udev source's, never the kernel's */
	FUZZ_CHECK(!ev->udev && !ev->fs_type && !ev->fs_uuid && !ev->fs_label &&
		   !ev->part_uuid && !ev->devlinks);
}

static void check_datagram(const uint8_t *data, size_t size)
{
	struct uevent ev, ev2;
	char *buf, *buf2;
	const char *const *f;
	size_t i, n, hlen;
	const char *at;
	int r, r2;

	buf = malloc(size + 1);
	buf2 = malloc(size + 1);
	FUZZ_CHECK(buf && buf2);
	memcpy(buf, data, size);
	memcpy(buf2, data, size);
	r = uevent_parse(buf, size, &ev);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	if (size > UEVENT_RECV_SIZE)
		FUZZ_CHECK(r == -EBADMSG);
	/* the same bytes, the same answer, the same offsets */
	r2 = uevent_parse(buf2, size, &ev2);
	FUZZ_CHECK(r2 == r);
	if (r < 0)
		goto out;

	check_common(&ev);
	FUZZ_CHECK(buf[size] == '\0');
	FUZZ_CHECK(ev.seqnum != 0);
	f = string_fields(&ev, &n);
	for (i = 0; i < n; i++)
		FUZZ_CHECK(!f[i] || fuzz_string_inside(f[i], buf, buf + size + 1));
	FUZZ_CHECK(ev.devpath - buf == ev2.devpath - buf2);
	FUZZ_CHECK(ev.subsystem - buf == ev2.subsystem - buf2);
	FUZZ_CHECK(ev.seqnum == ev2.seqnum && ev.action == ev2.action);

	/* the header "ACTION@DEVPATH" of the original bytes agrees */
	hlen = strnlen((const char *)data, size);
	FUZZ_CHECK(hlen > 0 && hlen < size);
	at = memchr(data, '@', hlen);
	FUZZ_CHECK(at != NULL);
	FUZZ_CHECK(strlen(uevent_action_name(ev.action)) ==
		   (size_t)(at - (const char *)data));
	FUZZ_CHECK(!memcmp(data, uevent_action_name(ev.action),
			   (size_t)(at - (const char *)data)));
	FUZZ_CHECK(strlen(ev.devpath) == hlen - (size_t)(at + 1 - (const char *)data));
	FUZZ_CHECK(!memcmp(ev.devpath, at + 1, strlen(ev.devpath)));
out:
	free(buf);
	free(buf2);
}

static void check_file(const uint8_t *data, size_t size, const char *subsys)
{
	static const char devpath[] = "/devices/virtual/block/loop110";
	struct uevent ev;
	const char *const *f;
	size_t i, n;
	char *buf;
	int r;

	buf = malloc(size + 1);
	FUZZ_CHECK(buf);
	memcpy(buf, data, size);
	r = uevent_parse_file(buf, size, devpath, subsys, &ev);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	/* a sysfs file never holds a NUL */
	if (memchr(data, '\0', size))
		FUZZ_CHECK(r == -EBADMSG);
	if (r == 0) {
		check_common(&ev);
		FUZZ_CHECK(ev.action == UEVENT_ADD);
		FUZZ_CHECK(ev.devpath == devpath && ev.subsystem == subsys);
		f = string_fields(&ev, &n);
		for (i = 0; i < n; i++) {
			if (!f[i] || f[i] == devpath || f[i] == subsys)
				continue;
			FUZZ_CHECK(fuzz_string_inside(f[i], buf, buf + size + 1));
			FUZZ_CHECK(!strchr(f[i], '\n'));
		}
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > UEVENT_RECV_SIZE + 16)
		return 0;
	check_datagram(data, size);
	check_file(data, size, "block");
	check_file(data, size, "net");
	return 0;
}
