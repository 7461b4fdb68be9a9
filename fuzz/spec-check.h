/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spec-check.h - the invariants of a successfully parsed spec, shared by
 * fuzz-spec and fuzz-cmdline (whose config holds specs too).
 */
#ifndef WAITDEV_FUZZ_SPEC_CHECK_H
#define WAITDEV_FUZZ_SPEC_CHECK_H

#include <ctype.h>
#include <linux/if.h>
#include <stdbool.h>

#include "fuzz.h"
#include "spec.h"
#include "uevent.h"

static inline bool fuzz_has_cntrl(const char *s)
{
	for (; *s; s++)
		if (iscntrl((unsigned char)*s))
			return true;
	return false;
}

static inline bool fuzz_has_blank(const char *s)
{
	for (; *s; s++)
		if (isspace((unsigned char)*s) || iscntrl((unsigned char)*s))
			return true;
	return false;
}

/*
 * Would the uevent parser accept a block device whose DEVNAME is @name?
 * A name spec that no uevent can carry would wait until the deadline
 * instead of being refused as a bad spec.
 */
static inline bool fuzz_devname_acceptable(const char *name)
{
	static const char head[] = "add@/devices/virtual/block/x\0ACTION=add"
				   "\0DEVPATH=/devices/virtual/block/x"
				   "\0SUBSYSTEM=block\0SEQNUM=1\0DEVNAME=";
	char buf[sizeof(head) + SPEC_VALUE_MAX + 1];
	size_t n = strlen(name);
	struct uevent ev;

	FUZZ_CHECK(n < SPEC_VALUE_MAX);
	memcpy(buf, head, sizeof(head) - 1);
	memcpy(buf + sizeof(head) - 1, name, n + 1);
	return uevent_parse(buf, sizeof(head) - 1 + n + 1, &ev) == 0 && ev.devname &&
	       strcmp(ev.devname, name) == 0;
}

/* The kernel's dev_valid_name(): what an interface can be called. */
static inline bool fuzz_ifname_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= IFNAMSIZ || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (; *name; name++)
		if (*name == '/' || *name == ':' || isspace((unsigned char)*name))
			return false;
	return true;
}

static inline void fuzz_check_spec(const struct spec *s, enum dev_kind kind)
{
	enum spec_need need = spec_need(s);
	size_t i, vlen;

	FUZZ_CHECK(spec_kind(s) == kind);
	FUZZ_CHECK(memchr(s->text, '\0', sizeof(s->text)) != NULL);
	FUZZ_CHECK(memchr(s->value, '\0', sizeof(s->value)) != NULL);
	FUZZ_CHECK(s->text[0] != '\0');
	vlen = strlen(s->value);
	/* every value is printed in one-line messages */
	FUZZ_CHECK(!fuzz_has_cntrl(s->value));
	FUZZ_CHECK(spec_need_name(need) != NULL);
	FUZZ_CHECK(!s->has_partnroff || s->type == SPEC_BLOCK_PARTUUID);
	/* only the kernel's own form has an offset, never a link name */
	FUZZ_CHECK(!s->has_partnroff || !strncmp(s->text, "PARTUUID=", 9));
	FUZZ_CHECK(s->has_partnroff || s->partnroff == 0);
	FUZZ_CHECK(s->partnroff >= -255 && s->partnroff <= 255);
	FUZZ_CHECK(kind == DEV_NET || s->net_state == NET_EXISTS);
	FUZZ_CHECK(s->type == SPEC_BLOCK_DEVT || (s->major == 0 && s->minor == 0));

	switch (s->type) {
	case SPEC_BLOCK_DEVT:
		FUZZ_CHECK(vlen == 0);
		FUZZ_CHECK(s->major <= 4095 && s->minor <= 1048575);
		FUZZ_CHECK(need == SPEC_NEED_NOTHING);
		break;
	case SPEC_BLOCK_NAME:
		FUZZ_CHECK(vlen > 0 && !fuzz_has_blank(s->value));
		FUZZ_CHECK(need == SPEC_NEED_NOTHING);
		FUZZ_CHECK(fuzz_devname_acceptable(s->value));
		break;
	case SPEC_BLOCK_PARTLABEL:
		FUZZ_CHECK(vlen > 0);
		FUZZ_CHECK(need == SPEC_NEED_NOTHING);
		break;
	case SPEC_BLOCK_UUID:
		FUZZ_CHECK(vlen > 0 && !fuzz_has_blank(s->value));
		FUZZ_CHECK(need == SPEC_NEED_PROBE);
		break;
	case SPEC_BLOCK_LABEL:
		FUZZ_CHECK(vlen > 0);
		FUZZ_CHECK(need == SPEC_NEED_PROBE);
		break;
	case SPEC_BLOCK_PARTUUID:
		FUZZ_CHECK(vlen > 0);
		FUZZ_CHECK(need == SPEC_NEED_PROBE);
		for (i = 0; i < vlen; i++)
			FUZZ_CHECK(isxdigit((unsigned char)s->value[i]) ||
				   s->value[i] == '-');
		break;
	case SPEC_BLOCK_BY_ID:
	case SPEC_BLOCK_BY_PATH:
		FUZZ_CHECK(vlen > 0);
		FUZZ_CHECK(need == SPEC_NEED_UDEV);
		break;
	case SPEC_CONSOLE_TTY:
	case SPEC_CONSOLE_OTHER:
		FUZZ_CHECK(vlen > 0);
		for (i = 0; i < vlen; i++)
			FUZZ_CHECK(isalnum((unsigned char)s->value[i]) ||
				   strchr("_-.", s->value[i]));
		if (s->type == SPEC_CONSOLE_TTY) {
			FUZZ_CHECK(strpbrk(s->value, "0123456789"));
			FUZZ_CHECK(fuzz_devname_acceptable(s->value));
		}
		break;
	case SPEC_NET_NAME:
		FUZZ_CHECK(fuzz_ifname_valid(s->value));
		break;
	case SPEC_NET_GLOB:
		FUZZ_CHECK(strpbrk(s->value, "*?[") != NULL);
		break;
	case SPEC_NET_MAC:
		FUZZ_CHECK(vlen == 17);
		break;
	case SPEC_NET_ANY:
		FUZZ_CHECK(strcmp(s->value, "any") == 0);
		break;
	default:
		FUZZ_CHECK(!"a parsed spec has no type");
	}
	FUZZ_CHECK(s->net_state == NET_EXISTS || s->net_state == NET_UP ||
		   s->net_state == NET_CARRIER);
}

#endif
