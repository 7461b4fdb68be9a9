// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz-spec.c - the root, console and network spec grammar: the input
 * is one spec string given to all three parsers. A spec that parses must
 * satisfy the invariants of spec-check.h, parse again from its own text
 * to the same thing, and go through every matcher against a fixed set of
 * device records without breaking the matchers' contracts; a device made
 * to fit it (a "mirror") must match it.
 */
#include <errno.h>
#include <linux/if.h>
#include <stdbool.h>
#include <stdio.h>

#include "fuzz.h"
#include "spec-check.h"

#define DISK                                                                             \
	"/devices/pci0000:00/0000:00:04.0/usb2/2-1/2-1:1.0/host0/"                       \
	"target0:0:0/0:0:0:0/block/sda"

static const struct device fixed[] = {
	{ .kind = DEV_BLOCK,
	  .devpath = DISK,
	  .name = "sda",
	  .has_devt = true,
	  .major = 8,
	  .size = 4194304,
	  .probed = true,
	  .devlinks = "/dev/disk/by-id/usb-QEMU_QEMU_HARDDISK_1-0000:00:04.0-"
		      "2-0:0 /dev/disk/by-path/pci-0000:00:04.0-usb-0:1:1.0-"
		      "scsi-0:0:0:0" },
	{ .kind = DEV_BLOCK,
	  .devpath = DISK "/sda1",
	  .name = "sda1",
	  .has_devt = true,
	  .major = 8,
	  .minor = 1,
	  .is_partition = true,
	  .partn = 1,
	  .partname = "EFI System Partition",
	  .size = 204800,
	  .probed = true,
	  .fs_type = "vfat",
	  .fs_uuid = "1234-ABCD",
	  .fs_label = "EFI",
	  .part_uuid = "c12a7328-f81f-11d2-ba4b-00a0c93ec93b",
	  .devlinks = "/dev/disk/by-partlabel/EFI\\x20System\\x20Partition "
		      "/dev/disk/by-id/usb-QEMU_QEMU_HARDDISK_1-0000:00:04.0-"
		      "2-0:0-part1" },
	{ .kind = DEV_BLOCK,
	  .devpath = DISK "/sda2",
	  .name = "sda2",
	  .has_devt = true,
	  .major = 8,
	  .minor = 2,
	  .is_partition = true,
	  .partn = 2,
	  .partname = "root",
	  .size = 3000000,
	  .probed = true,
	  .fs_type = "ext4",
	  .fs_uuid = "0b1e4c2d-55aa-4f6e-9c1d-2f0a7e3b9d11",
	  .fs_label = "root fs",
	  .part_uuid = "4f68bce3-e8cd-4db1-96e7-fbcaf984b709" },
	{ .kind = DEV_BLOCK,
	  .devpath = "/devices/virtual/block/loop0",
	  .name = "loop0",
	  .has_devt = true,
	  .major = 7 },
	{ .kind = DEV_TTY,
	  .devpath = "/devices/platform/serial8250/tty/ttyS0",
	  .name = "ttyS0",
	  .has_devt = true,
	  .major = 4,
	  .minor = 64 },
	{ .kind = DEV_TTY,
	  .devpath = "/devices/pci0000:00/0000:00:04.0/usb2/2-2/2-2:1.0/"
		     "ttyUSB0/tty/ttyUSB0",
	  .name = "ttyUSB0",
	  .has_devt = true,
	  .major = 188 },
	{ .kind = DEV_NET,
	  .devpath = "/devices/virtual/net/lo",
	  .name = "lo",
	  .ifindex = 1,
	  .flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING,
	  .mac_len = 6 },
	{ .kind = DEV_NET,
	  .devpath = "/devices/pci0000:00/0000:00:03.0/virtio0/net/eth0",
	  .name = "eth0",
	  .ifindex = 2,
	  .flags = IFF_UP | IFF_RUNNING,
	  .operstate = IF_OPER_UP,
	  .mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 },
	  .mac_len = 6 },
	{ .kind = DEV_NET,
	  .devpath = "/devices/pci0000:00/0000:00:04.0/usb2/2-3/2-3:1.0/net/"
		     "enx001122334455",
	  .name = "enx001122334455",
	  .ifindex = 3,
	  .operstate = IF_OPER_DOWN,
	  .mac = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 },
	  .mac_len = 6 },
	{ .kind = DEV_NET,
	  .devpath = "/devices/virtual/net/wg0",
	  .name = "wg0",
	  .ifindex = 4 },
	{ .kind = DEV_OTHER,
	  .devpath = "/devices/pci0000:00/0000:00:04.0/usb2/2-1",
	  .name = "bus/usb/002/002" },
};

#define N_FIXED (sizeof(fixed) / sizeof(fixed[0]))

static bool kind_match(const struct spec *s, const struct device *d)
{
	switch (spec_kind(s)) {
	case DEV_BLOCK:
		return spec_match_block(s, d);
	case DEV_TTY:
		return spec_match_console(s, d);
	case DEV_NET:
		return spec_match_net(s, d);
	default:
		return false;
	}
}

static void check_match(const struct spec *s, const struct device *d)
{
	bool m = spec_match(s, d);

	FUZZ_CHECK(m == kind_match(s, d));
	FUZZ_CHECK(m == spec_match(s, d)); /* no hidden state */
	if (d->kind != DEV_BLOCK)
		FUZZ_CHECK(!spec_match_block(s, d));
	if (d->kind != DEV_TTY)
		FUZZ_CHECK(!spec_match_console(s, d));
	if (d->kind != DEV_NET)
		FUZZ_CHECK(!spec_match_net(s, d));
	if (d->kind == DEV_OTHER)
		FUZZ_CHECK(!spec_device_ready(s, d));
	else
		(void)spec_device_ready(s, d);
	if (!m)
		return;
	FUZZ_CHECK(spec_kind(s) == d->kind);
	switch (s->type) {
	case SPEC_BLOCK_NAME:
	case SPEC_CONSOLE_TTY:
	case SPEC_NET_NAME:
		FUZZ_CHECK(d->name && strcmp(d->name, s->value) == 0);
		break;
	case SPEC_BLOCK_DEVT:
		FUZZ_CHECK(d->has_devt && d->major == s->major && d->minor == s->minor);
		break;
	case SPEC_BLOCK_PARTLABEL:
		FUZZ_CHECK(d->is_partition && d->partname &&
			   strcmp(d->partname, s->value) == 0);
		break;
	case SPEC_BLOCK_LABEL:
		FUZZ_CHECK(d->fs_label && strcmp(d->fs_label, s->value) == 0);
		break;
	case SPEC_BLOCK_UUID:
		FUZZ_CHECK(d->fs_uuid);
		break;
	case SPEC_BLOCK_PARTUUID:
		FUZZ_CHECK(!s->has_partnroff && d->part_uuid);
		break;
	case SPEC_BLOCK_BY_ID:
	case SPEC_BLOCK_BY_PATH:
		FUZZ_CHECK(d->devlinks != NULL);
		break;
	case SPEC_NET_MAC:
		FUZZ_CHECK(d->mac_len == 6 && !memcmp(d->mac, s->mac, 6));
		break;
	case SPEC_NET_ANY:
		FUZZ_CHECK(!(d->flags & IFF_LOOPBACK));
		break;
	case SPEC_CONSOLE_OTHER:
		FUZZ_CHECK(!"a non-tty console matched a device");
		break;
	default:
		break;
	}
}

static void check_siblings(const struct spec *s)
{
	size_t a, d;

	for (a = 0; a < N_FIXED; a++)
		for (d = 0; d < N_FIXED; d++) {
			const struct device *an = &fixed[a], *dv = &fixed[d];

			if (!spec_match_sibling(s, an, dv))
				continue;
			FUZZ_CHECK(an->is_partition && dv->is_partition);
			FUZZ_CHECK(dv->kind == DEV_BLOCK);
			FUZZ_CHECK((long)dv->partn == (long)an->partn + s->partnroff);
		}
}

/* udev writes a blank, '/' and '\' in a link name as \xNN */
static void escape_link(const char *name, char *out, size_t size)
{
	size_t o = 0;

	for (; *name && o + 5 < size; name++) {
		unsigned char c = (unsigned char)*name;

		if (c == ' ' || c == '/' || c == '\\')
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
}

/* A device made to fit @s must match it. */
static void check_mirror(const struct spec *s)
{
	char links[3 * (SPEC_VALUE_MAX * 4 + 1) + 64];
	char esc[SPEC_VALUE_MAX * 4 + 1];
	struct device d = {
		.devpath = "/devices/virtual/block/mirror",
		.has_devt = true,
		.major = 259,
		.size = 1,
	};
	struct device sib = d;
	bool want = true;

	switch (spec_kind(s)) {
	case DEV_BLOCK:
		d.kind = DEV_BLOCK;
		break;
	case DEV_TTY:
		d.kind = DEV_TTY;
		break;
	case DEV_NET:
		d.kind = DEV_NET;
		d.name = "mirror0";
		d.mac_len = 6;
		break;
	default:
		return;
	}
	switch (s->type) {
	case SPEC_BLOCK_NAME:
	case SPEC_CONSOLE_TTY:
	case SPEC_NET_NAME:
		d.name = (char *)s->value;
		break;
	case SPEC_BLOCK_DEVT:
		d.major = s->major;
		d.minor = s->minor;
		break;
	case SPEC_BLOCK_PARTLABEL:
		d.is_partition = true;
		d.partn = 1;
		d.partname = (char *)s->value;
		break;
	case SPEC_BLOCK_UUID:
		d.fs_uuid = (char *)s->value;
		break;
	case SPEC_BLOCK_LABEL:
		d.fs_label = (char *)s->value;
		break;
	case SPEC_BLOCK_PARTUUID:
		d.is_partition = true;
		d.partn = 300;
		d.devpath = "/devices/virtual/block/mirror/mirror300";
		d.part_uuid = (char *)s->value;
		if (s->has_partnroff) {
			/* the anchor itself is never the match ... */
			want = false;
			/* ... the partition N after it on the disk is */
			sib.kind = DEV_BLOCK;
			sib.is_partition = true;
			sib.partn = (unsigned)(300 + s->partnroff);
			sib.devpath = "/devices/virtual/block/mirror/mirrorN";
			FUZZ_CHECK(spec_match_sibling(s, &d, &sib));
			sib.devpath = "/devices/virtual/block/other/mirrorN";
			FUZZ_CHECK(!spec_match_sibling(s, &d, &sib));
		}
		break;
	case SPEC_BLOCK_BY_ID:
	case SPEC_BLOCK_BY_PATH:
		escape_link(s->value, esc, sizeof(esc));
		snprintf(links, sizeof(links),
			 "/dev/disk/by-id/x%s /dev/disk/%s/%s "
			 "/dev/disk/by-label/%s",
			 esc, s->type == SPEC_BLOCK_BY_ID ? "by-id" : "by-path", esc,
			 esc);
		d.devlinks = links;
		break;
	case SPEC_NET_MAC:
		memcpy(d.mac, s->mac, 6);
		break;
	case SPEC_NET_ANY:
		break;
	case SPEC_NET_GLOB:
	case SPEC_CONSOLE_OTHER:
		want = false;
		break;
	default:
		FUZZ_CHECK(!"unknown spec type");
	}
	if (want)
		FUZZ_CHECK(spec_match(s, &d));
	else
		(void)spec_match(s, &d);
	if (want && d.kind == DEV_BLOCK) {
		FUZZ_CHECK(spec_device_ready(s, &d));
		d.size = 0; /* no medium */
		FUZZ_CHECK(!spec_device_ready(s, &d));
	}
}

typedef int (*parse_fn)(const char *, struct spec *, char *, unsigned);

static void run(parse_fn parse, enum dev_kind kind, const char *text)
{
	struct spec s, again;
	char err[200];
	size_t i;
	int r;

	memset(err, 'X', sizeof(err));
	r = parse(text, &s, err, sizeof(err));
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r < 0) {
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
		FUZZ_CHECK(err[0] != '\0');
		FUZZ_CHECK(fuzz_message_is_clean(err));
		FUZZ_CHECK(parse(text, &again, NULL, 0) == -EINVAL);
		return;
	}
	fuzz_check_spec(&s, kind);
	FUZZ_CHECK(strcmp(s.text, text) == 0);
	/* the text it keeps parses to the very same spec */
	FUZZ_CHECK(parse(s.text, &again, NULL, 0) == 0);
	FUZZ_CHECK(memcmp(&s, &again, sizeof(s)) == 0);

	for (i = 0; i < N_FIXED; i++)
		check_match(&s, &fixed[i]);
	check_siblings(&s);
	check_mirror(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size > 4 * SPEC_VALUE_MAX)
		return 0; /* the parsers refuse long specs at once */
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	run(spec_parse_block, DEV_BLOCK, text);
	run(spec_parse_console, DEV_TTY, text);
	run(spec_parse_net, DEV_NET, text);
	free(text);
	return 0;
}
