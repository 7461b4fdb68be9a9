// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "devtab.h"
#include "spec.h"
#include "util.h"

static int spec_fail(char *err, unsigned errsize, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int spec_fail(char *err, unsigned errsize, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_vformat(err, errsize, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool has_blank(const char *s)
{
	for (; *s; s++)
		if (isspace((unsigned char)*s) || iscntrl((unsigned char)*s))
			return true;
	return false;
}

static bool has_cntrl(const char *s)
{
	for (; *s; s++)
		if (iscntrl((unsigned char)*s))
			return true;
	return false;
}

static bool all_digits(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return false;
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

static bool all_xdigits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isxdigit((unsigned char)*s))
			return false;
	return true;
}

/*
 * @spaces: filesystem labels and GPT partition names may contain spaces
 * ("EFI System Partition"); the command line carries them quoted.
 */
static int parse_value(const char *what, const char *val, struct spec *spec,
		       enum spec_type type, bool spaces, char *err, unsigned errsize)
{
	if (!*val)
		return spec_fail(err, errsize, "empty %s", what);
	if (spaces ? has_cntrl(val) : has_blank(val))
		return spec_fail(err, errsize, "%s contains %s", what,
				 spaces ? "control characters" : "blanks");
	spec->type = type;
	if (!strscpy(spec->value, val, sizeof(spec->value)))
		return spec_fail(err, errsize, "%s too long", what);
	return 0;
}

static int parse_partuuid(const char *val, struct spec *spec, char *err, unsigned errsize)
{
	const char *slash = strchr(val, '/');
	size_t n = slash ? (size_t)(slash - val) : strlen(val);
	size_t i;

	if (n == 0)
		return spec_fail(err, errsize, "empty partition UUID");
	if (n >= sizeof(spec->value))
		return spec_fail(err, errsize, "partition UUID too long");
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)val[i]) && val[i] != '-')
			return spec_fail(err, errsize,
					 "partition UUID '%.*s' is not "
					 "hexadecimal",
					 (int)n, val);
	memcpy(spec->value, val, n);
	spec->value[n] = '\0';
	spec->type = SPEC_BLOCK_PARTUUID;
	if (slash) {
		const char *off = slash + 1;
		char *end;
		long v;

		if (strncmp(off, "PARTNROFF=", 10) != 0)
			return spec_fail(err, errsize,
					 "expected /PARTNROFF=N after the "
					 "partition UUID");
		off += 10;
		errno = 0;
		v = strtol(off, &end, 10);
		if (!*off || *end || errno || v < -255 || v > 255)
			return spec_fail(err, errsize,
					 "PARTNROFF=%s: not a small integer", off);
		spec->partnroff = (int)v;
		spec->has_partnroff = true;
	}
	return 0;
}

/*
 * A /dev/disk/by-... link names the same thing as the form it stands for
 * and is checked like it once unescaped: "by-partlabel/a\x1bb" is no
 * more a partition name than "PARTLABEL=<ESC>" is.
 */
static int parse_by_link(const char *rest, struct spec *spec, char *err, unsigned errsize)
{
	static const struct {
		const char *dir, *what;
		enum spec_type type;
		bool spaces;
	} links[] = {
		{ "by-uuid/", "UUID", SPEC_BLOCK_UUID, false },
		{ "by-partuuid/", "PARTUUID", SPEC_BLOCK_PARTUUID, false },
		{ "by-label/", "LABEL", SPEC_BLOCK_LABEL, true },
		{ "by-partlabel/", "PARTLABEL", SPEC_BLOCK_PARTLABEL, true },
		{ "by-id/", "link name", SPEC_BLOCK_BY_ID, true },
		{ "by-path/", "link name", SPEC_BLOCK_BY_PATH, true },
	};
	char val[SPEC_VALUE_MAX];
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(links); i++) {
		size_t n = strlen(links[i].dir);

		if (strncmp(rest, links[i].dir, n) != 0)
			continue;
		if (!udev_unescape(rest + n, val, sizeof(val)))
			return spec_fail(err, errsize, "link name too long");
		if (links[i].type == SPEC_BLOCK_PARTUUID) {
			/* a link name is one path component: no /PARTNROFF= */
			if (strchr(val, '/'))
				return spec_fail(err, errsize,
						 "partition UUID '%s' is not "
						 "hexadecimal",
						 val);
			return parse_partuuid(val, spec, err, errsize);
		}
		if (!val[0])
			return spec_fail(err, errsize, "empty name after /dev/disk/%s",
					 links[i].dir);
		return parse_value(links[i].what, val, spec, links[i].type,
				   links[i].spaces, err, errsize);
	}
	return spec_fail(err, errsize,
			 "unknown /dev/disk/ directory (by-uuid, by-partuuid, "
			 "by-label, by-partlabel, by-id, by-path)");
}

/* The kernel's old_decode_dev()/new_decode_dev() for "root=801". */
static void decode_hex_devt(unsigned long v, unsigned *major, unsigned *minor)
{
	*major = (unsigned)((v & 0xfff00) >> 8);
	*minor = (unsigned)((v & 0xff) | ((v >> 12) & 0xfff00));
}

int spec_parse_block(const char *text, struct spec *spec, char *err, unsigned errsize)
{
	const char *colon, *hex;

	memset(spec, 0, sizeof(*spec));
	if (!text || !*text)
		return spec_fail(err, errsize, "empty device spec");
	if (!strscpy(spec->text, text, sizeof(spec->text)))
		return spec_fail(err, errsize, "device spec too long");

	/* names that may contain spaces first, then no blanks at all */
	if (strncmp(text, "LABEL=", 6) == 0)
		return parse_value("LABEL", text + 6, spec, SPEC_BLOCK_LABEL, true, err,
				   errsize);
	if (strncmp(text, "PARTLABEL=", 10) == 0)
		return parse_value("PARTLABEL", text + 10, spec, SPEC_BLOCK_PARTLABEL,
				   true, err, errsize);
	if (has_blank(text))
		return spec_fail(err, errsize,
				 "device spec contains blanks or control "
				 "characters");
	if (strncmp(text, "UUID=", 5) == 0)
		return parse_value("UUID", text + 5, spec, SPEC_BLOCK_UUID, false, err,
				   errsize);
	if (strncmp(text, "PARTUUID=", 9) == 0)
		return parse_partuuid(text + 9, spec, err, errsize);
	if (strncmp(text, "/dev/disk/", 10) == 0)
		return parse_by_link(text + 10, spec, err, errsize);
	if (strncmp(text, "/dev/", 5) == 0) {
		const char *name = text + 5;

		if (!*name || name[strlen(name) - 1] == '/')
			return spec_fail(err, errsize, "no device name after /dev/");
		if (!relpath_is_safe(name))
			return spec_fail(err, errsize, "'%s' is not a device name", text);
		return parse_value("device name", name, spec, SPEC_BLOCK_NAME, false, err,
				   errsize);
	}
	colon = strchr(text, ':');
	if (colon) {
		uint64_t maj, min;
		char majs[16];
		size_t n = (size_t)(colon - text);

		if (!all_digits(text, n) || !all_digits(colon + 1, strlen(colon + 1)) ||
		    n >= sizeof(majs))
			return spec_fail(err, errsize,
					 "'%s' is neither MAJOR:MINOR nor a "
					 "device name",
					 text);
		memcpy(majs, text, n);
		majs[n] = '\0';
		if (parse_u64(majs, &maj) < 0 || parse_u64(colon + 1, &min) < 0 ||
		    maj > 4095 || min > 1048575)
			return spec_fail(err, errsize, "%s: major or minor out of range",
					 text);
		spec->type = SPEC_BLOCK_DEVT;
		spec->major = (unsigned)maj;
		spec->minor = (unsigned)min;
		return 0;
	}
	if (strchr(text, '='))
		return spec_fail(err, errsize,
				 "unsupported form '%s' (UUID=, LABEL=, "
				 "PARTUUID=, PARTLABEL=, /dev/NAME, MAJ:MIN)",
				 text);
	/* like the kernel's strtoul(name, 16): an optional 0x prefix */
	hex = strncasecmp(text, "0x", 2) == 0 ? text + 2 : text;
	if (all_xdigits(hex) && strlen(hex) <= 8) {
		unsigned long v = strtoul(hex, NULL, 16);

		spec->type = SPEC_BLOCK_DEVT;
		decode_hex_devt(v, &spec->major, &spec->minor);
		if (spec->major == 0)
			return spec_fail(err, errsize,
					 "%s: hexadecimal device number with "
					 "major 0",
					 text);
		return 0;
	}
	if (!relpath_is_safe(text))
		return spec_fail(err, errsize, "'%s' is not a device name", text);
	return parse_value("device name", text, spec, SPEC_BLOCK_NAME, false, err,
			   errsize);
}

static bool console_name_is_tty(const char *name)
{
	static const char *const prefixes[] = { "tty", "hvc", "hvsi", "xvc" };
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/*
 * What a console or interface spec is checked for first: not empty, not
 * too long, no blank or control character; @text is copied in. @kind
 * names the spec in the errors.
 */
static int spec_start(struct spec *spec, const char *text, const char *kind, char *err,
		      unsigned errsize)
{
	memset(spec, 0, sizeof(*spec));
	if (!text || !*text)
		return spec_fail(err, errsize, "empty %s spec", kind);
	if (!strscpy(spec->text, text, sizeof(spec->text)))
		return spec_fail(err, errsize, "%s spec too long", kind);
	if (has_blank(text))
		return spec_fail(err, errsize,
				 "%s spec contains blanks or control characters", kind);
	return 0;
}

int spec_parse_console(const char *text, struct spec *spec, char *err, unsigned errsize)
{
	const char *name = text;
	const char *prefix = "";
	size_t n, i;
	bool digit = false;

	if (spec_start(spec, text, "console", err, errsize) < 0)
		return -EINVAL;
	if (strncmp(name, "/dev/", 5) == 0)
		name += 5;
	n = strcspn(name, ",");
	if (n == 0)
		return spec_fail(err, errsize, "no console name");
	/* the kernel's console_setup(): console=0 means ttyS0 */
	if (isdigit((unsigned char)name[0]))
		prefix = "ttyS";
	if (strlen(prefix) + n + 2 > sizeof(spec->value))
		return spec_fail(err, errsize, "console name too long");
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (!isalnum(c) && c != '_' && c != '-' && c != '.')
			return spec_fail(err, errsize,
					 "console name '%.*s' has a bad "
					 "character",
					 (int)n, name);
		digit |= isdigit(c) != 0;
	}
	snprintf(spec->value, sizeof(spec->value), "%s%.*s", prefix, (int)n, name);
	if (!console_name_is_tty(spec->value)) {
		spec->type = SPEC_CONSOLE_OTHER;
		return 0;
	}
	/* like the kernel's console_setup(): "ttyS" means index 0 */
	if (!digit)
		strcat(spec->value, "0");
	spec->type = SPEC_CONSOLE_TTY;
	return 0;
}

static bool parse_mac(const char *s, unsigned char mac[6])
{
	unsigned i;

	if (strlen(s) != 17)
		return false;
	for (i = 0; i < 6; i++) {
		const char *p = s + 3 * i;
		int v = hex_byte(p);

		if (v < 0 || (i < 5 && p[2] != ':' && p[2] != '-'))
			return false;
		mac[i] = (unsigned char)v;
	}
	return true;
}

int spec_parse_net(const char *text, struct spec *spec, char *err, unsigned errsize)
{
	char body[SPEC_VALUE_MAX];
	char *colon;

	if (spec_start(spec, text, "interface", err, errsize) < 0)
		return -EINVAL;
	strscpy(body, text, sizeof(body));

	colon = strrchr(body, ':');
	if (colon && !parse_mac(body, spec->mac)) {
		if (streq(colon + 1, "up"))
			spec->net_state = NET_UP;
		else if (streq(colon + 1, "carrier"))
			spec->net_state = NET_CARRIER;
		else
			return spec_fail(err, errsize,
					 "'%s': unknown state '%s' (use :up or "
					 ":carrier)",
					 text, colon + 1);
		*colon = '\0';
	}
	if (!body[0])
		return spec_fail(err, errsize, "no interface before '%s'", text);
	if (streq(body, "any")) {
		spec->type = SPEC_NET_ANY;
	} else if (parse_mac(body, spec->mac)) {
		spec->type = SPEC_NET_MAC;
	} else if (strpbrk(body, "*?[")) {
		spec->type = SPEC_NET_GLOB;
	} else {
		if (strlen(body) >= IFNAMSIZ)
			return spec_fail(err, errsize,
					 "interface name '%s' longer than %d "
					 "characters",
					 body, IFNAMSIZ - 1);
		/* the kernel's dev_valid_name() refuses these too */
		if (strchr(body, '/') || strchr(body, ':') || streq(body, ".") ||
		    streq(body, ".."))
			return spec_fail(err, errsize,
					 "'%s' is not an interface name, glob "
					 "or MAC address",
					 body);
		spec->type = SPEC_NET_NAME;
	}
	strscpy(spec->value, body, sizeof(spec->value));
	return 0;
}

enum spec_need spec_need(const struct spec *spec)
{
	switch (spec->type) {
	case SPEC_BLOCK_PARTUUID:
	case SPEC_BLOCK_UUID:
	case SPEC_BLOCK_LABEL:
		return SPEC_NEED_PROBE;
	case SPEC_BLOCK_BY_ID:
	case SPEC_BLOCK_BY_PATH:
		return SPEC_NEED_UDEV;
	default:
		return SPEC_NEED_NOTHING;
	}
}

const char *spec_need_name(enum spec_need need)
{
	switch (need) {
	case SPEC_NEED_PROBE:
		return "libblkid";
	case SPEC_NEED_UDEV:
		return "libudev";
	default:
		return "nothing";
	}
}

enum dev_kind spec_kind(const struct spec *spec)
{
	switch (spec->type) {
	case SPEC_BLOCK_NAME ... SPEC_BLOCK_BY_PATH:
		return DEV_BLOCK;
	case SPEC_CONSOLE_TTY:
	case SPEC_CONSOLE_OTHER:
		return DEV_TTY;
	case SPEC_NET_NAME ... SPEC_NET_ANY:
		return DEV_NET;
	default:
		return DEV_OTHER;
	}
}

static bool str_caseeq(const char *a, const char *b)
{
	return a && b && strcasecmp(a, b) == 0;
}

/* udev's DEVLINKS: space-separated, names escaped as in the spec. */
static bool has_link(const char *devlinks, const char *dir, const char *name)
{
	char esc[SPEC_VALUE_MAX * 4], want[sizeof(esc) + 32];
	size_t dlen, i, o = 0;
	const char *p;

	if (!devlinks)
		return false;
	/* the spec was unescaped: escape what udev escapes (blank, '/') */
	for (i = 0; name[i] && o + 5 < sizeof(esc); i++) {
		unsigned char c = (unsigned char)name[i];

		if (c == ' ' || c == '/' || c == '\\')
			o += (size_t)snprintf(esc + o, sizeof(esc) - o, "\\x%02x", c);
		else
			esc[o++] = (char)c;
	}
	esc[o] = '\0';
	snprintf(want, sizeof(want), "%s%s", dir, esc);
	dlen = strlen(want);
	for (p = devlinks; (p = strstr(p, want)); p += dlen)
		if ((p == devlinks || p[-1] == ' ') &&
		    (p[dlen] == ' ' || p[dlen] == '\0'))
			return true;
	return false;
}

/*
 * LVM's /dev/VG/LV is /dev/mapper/VG-LV with every '-' inside VG and LV
 * doubled (lvm's dm_build_dm_name()): "a-b/c" is "a--b-c".
 */
static bool lvm_name_eq(const char *dm_name, const char *vg_lv)
{
	const char *p = dm_name, *q;
	const char *slash = strchr(vg_lv, '/');

	if (!slash || strchr(slash + 1, '/') || slash == vg_lv || !slash[1])
		return false;
	for (q = vg_lv; *q; q++) {
		if (*q == '/') {
			if (*p++ != '-')
				return false;
			continue;
		}
		if (*q == '-' && *p++ != '-')
			return false;
		if (*p++ != *q)
			return false;
	}
	return *p == '\0';
}

/* /dev/mapper/NAME or /dev/VG/LV against a device-mapper device */
static bool dm_name_match(const struct spec *spec, const struct device *dev)
{
	if (!dev->dm_name)
		return false;
	if (strncmp(spec->value, "mapper/", 7) == 0)
		return streq(dev->dm_name, spec->value + 7);
	return lvm_name_eq(dev->dm_name, spec->value);
}

bool spec_match_block(const struct spec *spec, const struct device *dev)
{
	if (dev->kind != DEV_BLOCK)
		return false;
	switch (spec->type) {
	case SPEC_BLOCK_NAME:
		return streq(dev->name, spec->value) || dm_name_match(spec, dev);
	case SPEC_BLOCK_DEVT:
		return dev->has_devt && dev->major == spec->major &&
		       dev->minor == spec->minor;
	case SPEC_BLOCK_PARTLABEL:
		return dev->is_partition && streq(dev->partname, spec->value);
	case SPEC_BLOCK_UUID:
		return str_caseeq(dev->fs_uuid, spec->value);
	case SPEC_BLOCK_LABEL:
		return streq(dev->fs_label, spec->value);
	case SPEC_BLOCK_PARTUUID:
		/* with PARTNROFF the match is a sibling of this one: see
		 * spec_match_in() */
		return !spec->has_partnroff && str_caseeq(dev->part_uuid, spec->value);
	case SPEC_BLOCK_BY_ID:
		return has_link(dev->devlinks, "/dev/disk/by-id/", spec->value);
	case SPEC_BLOCK_BY_PATH:
		return has_link(dev->devlinks, "/dev/disk/by-path/", spec->value);
	default:
		return false;
	}
}

/* The disk of a partition: its sysfs parent directory. */
static bool same_parent(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');

	return sa && sb && sa - a == sb - b && strncmp(a, b, (size_t)(sa - a)) == 0;
}

bool spec_match_sibling(const struct spec *spec, const struct device *anchor,
			const struct device *dev)
{
	long want = (long)anchor->partn + spec->partnroff;

	return dev->kind == DEV_BLOCK && anchor->is_partition && dev->is_partition &&
	       want > 0 && dev->partn == want && anchor->devpath && dev->devpath &&
	       same_parent(anchor->devpath, dev->devpath);
}

bool spec_match_in(const struct spec *spec, const struct devtab *tab,
		   const struct device *dev)
{
	const struct device *anchor;

	if (!spec->has_partnroff)
		return spec_match(spec, dev);
	anchor = devtab_find_part_uuid(tab, spec->value);
	return anchor && spec_match_sibling(spec, anchor, dev);
}

bool spec_match_console(const struct spec *spec, const struct device *dev)
{
	return spec->type == SPEC_CONSOLE_TTY && dev->kind == DEV_TTY &&
	       streq(dev->name, spec->value);
}

bool spec_match_net(const struct spec *spec, const struct device *dev)
{
	if (dev->kind != DEV_NET || !dev->name)
		return false;
	switch (spec->type) {
	case SPEC_NET_NAME:
		return streq(dev->name, spec->value);
	case SPEC_NET_GLOB:
		return fnmatch(spec->value, dev->name, 0) == 0;
	case SPEC_NET_MAC:
		return dev->mac_len == 6 && memcmp(dev->mac, spec->mac, 6) == 0;
	case SPEC_NET_ANY:
		return !(dev->flags & IFF_LOOPBACK) && !streq(dev->name, "lo");
	default:
		return false;
	}
}

bool spec_match(const struct spec *spec, const struct device *dev)
{
	switch (spec_kind(spec)) {
	case DEV_BLOCK:
		return spec_match_block(spec, dev);
	case DEV_TTY:
		return spec_match_console(spec, dev);
	case DEV_NET:
		return spec_match_net(spec, dev);
	default:
		return false;
	}
}

bool spec_device_ready(const struct spec *spec, const struct device *dev)
{
	switch (dev->kind) {
	case DEV_BLOCK:
		return dev->size > 0 && (!dev->probed || dev->fs_type);
	case DEV_TTY:
		return true;
	case DEV_NET:
		if (spec->net_state == NET_UP)
			return dev->flags & IFF_UP;
		if (spec->net_state == NET_CARRIER)
			return (dev->flags & IFF_UP) && (dev->flags & IFF_RUNNING);
		return true;
	default:
		return false;
	}
}
