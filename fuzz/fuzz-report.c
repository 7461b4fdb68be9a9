// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz-report.c - what waitdev prints about untrusted devices: the
 * timeout diagnosis and the plain, shell and JSON results. The input
 * builds an engine's device table: byte 0 chooses which of 8 fixed
 * targets are waited for, the rest is records separated by two NULs
 * (which no valid uevent holds), each starting with its type:
 *
 *   'U' DATAGRAM   a kernel uevent (uevent_parse()), applied as the loop
 *                  would (engine_inject_uevent(); no sysfs)
 *   'P' DATAGRAM   the same as udevd's, with the ID_FS_TYPE, ID_FS_UUID,
 *                  ID_FS_LABEL, ID_PART_ENTRY_UUID and DEVLINKS fields of
 *                  the datagram as its properties
 *   'L' IFINDEX FLAGS OPERSTATE MAC NAME (text: decimal, hex, decimal,
 *                  hex digits or "-", the rest of the record)
 *                  an RTM_NEWLINK (engine_inject_link()), NAME cut at 15
 *   'Z' SECTORS BITS (text, decimal)
 *                  the last record's size in sectors and, by BITS, more
 *                  than one filesystem signature (1), IFF_UP (2) and
 *                  IFF_RUNNING (4): what sysfs and a probe would add
 *
 * Then it runs report_diagnosis() (the library's; the log goes to a sink
 * here) and the programs' result_fprint() (src/waitdev/result.c) in
 * every format into memory, and checks: every log line is valid UTF-8
 * without control characters and at most 900 bytes (the report bounds
 * it, not the log's 1024-byte cut); plain output is
 * one line per found target, valid UTF-8 without control characters,
 * and its \xNN escapes give back the exact name; the shell output,
 * parsed as sh(1) would, gives back the exact names; JSON is valid UTF-8
 * and well-formed, with one object per target.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "engine.h"
#include "fuzz.h"
#include "log.h"
#include "report.h"
#include "result.h"
#include "uevent.h"
#include "util.h"

#define LINE_MAX_LEN 900

static const struct {
	enum role_id role;
	const char *spec;
} fixed[] = {
	{ ROLE_ROOT, "/dev/sdz9" },
	{ ROLE_ROOT, "8:1" },
	{ ROLE_ROOT, "LABEL=root" },
	{ ROLE_CONSOLE, "ttyS0" },
	{ ROLE_CONSOLE, "ttyNOPE0" },
	{ ROLE_NET, "any" },
	{ ROLE_NET, "02:00:00:00:00:01:carrier" },
	{ ROLE_NET, "wdz*" },
};

/* Valid UTF-8 (an own checker, not the library's utf8_char_len()). */
static bool utf8_ok(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *end = p + len;

	while (p < end) {
		unsigned n, i;
		uint32_t cp;

		if (*p < 0x80) {
			p++;
			continue;
		}
		if (*p >= 0xc2 && *p <= 0xdf)
			n = 2, cp = *p & 0x1f;
		else if ((*p & 0xf0) == 0xe0)
			n = 3, cp = *p & 0x0f;
		else if (*p >= 0xf0 && *p <= 0xf4)
			n = 4, cp = *p & 0x07;
		else
			return false;
		if ((size_t)(end - p) < n)
			return false;
		for (i = 1; i < n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
			return false;
		p += n;
	}
	return true;
}

/* No C0 control but newline, no DEL. */
static bool no_controls(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7f)
			return false;
	return true;
}

/* Set while report_diagnosis() runs: its lines are checked harder. */
static bool in_report;

static void log_line(void *ctx, enum log_level level, const char *line)
{
	size_t len = strlen(line);

	(void)ctx;
	(void)level;
	/* any line: one line, no control character (log_msg()) */
	/* FUZZ_REPORT_SHOW=1 build/fuzz/fuzz-regress-report FILE: see */
	if (ctx)
		fprintf(stderr, "log: %s\n", line);
	FUZZ_CHECK(len < 1024 && no_controls(line, len) && !strchr(line, '\n'));
	if (!in_report)
		return;
	FUZZ_CHECK(len <= LINE_MAX_LEN);
	FUZZ_CHECK(utf8_ok(line, len));
}

/* The value of a "KEY=VALUE" field of a parsed datagram, or NULL. */
static const char *field(const char *buf, size_t len, const char *key)
{
	const char *p = buf, *end = buf + len;
	unsigned i;

	/* the header: ACTION and DEVPATH ('@' became a NUL) */
	for (i = 0; i < 2 && p < end; i++)
		p += strnlen(p, (size_t)(end - p)) + 1;
	while (p < end) {
		const char *v = p + strnlen(p, (size_t)(end - p)) + 1;

		if (v >= end)
			return NULL;
		if (streq(p, key))
			return v;
		p = v + strnlen(v, (size_t)(end - v)) + 1;
	}
	return NULL;
}

static void apply_uevent(struct engine *e, const uint8_t *d, size_t n, bool udev)
{
	char *buf = malloc(n + 1);
	struct uevent ev;

	FUZZ_CHECK(buf);
	memcpy(buf, d, n);
	if (uevent_parse(buf, n, &ev) == 0) {
		if (udev) {
			ev.udev = true;
			ev.fs_type = field(buf, n, "ID_FS_TYPE");
			ev.fs_uuid = field(buf, n, "ID_FS_UUID");
			ev.fs_label = field(buf, n, "ID_FS_LABEL");
			ev.part_uuid = field(buf, n, "ID_PART_ENTRY_UUID");
			ev.devlinks = field(buf, n, "DEVLINKS");
		}
		FUZZ_CHECK(engine_inject_uevent(e, &ev) == 0);
	}
	free(buf);
}

/* A NUL-terminated copy of the record after its type byte. */
static char *record_text(const uint8_t *d, size_t n)
{
	char *t = malloc(n);

	FUZZ_CHECK(t);
	memcpy(t, d + 1, n - 1);
	t[n - 1] = '\0';
	return t;
}

static void apply_link(struct engine *e, const uint8_t *d, size_t n)
{
	struct rtnl_link link = { 0 };
	char *t = record_text(d, n), hex[65];
	unsigned char mac[32];
	unsigned i, v;
	int pos = -1;
	char name[16];

	if (sscanf(t, "%d %x %u %64s %n", &link.ifindex, &link.flags, &link.operstate,
		   hex, &pos) < 4 ||
	    pos < 0 || link.ifindex <= 0 || link.operstate > 255) {
		free(t);
		return;
	}
	for (i = 0; hex[2 * i] && hex[2 * i + 1] && i < sizeof(mac); i++) {
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			break;
		mac[i] = (unsigned char)v;
	}
	link.mac_len = i;
	link.mac = i ? mac : NULL;
	/* rtnl_parse() gives what the kernel allows: up to 15 bytes */
	strscpy(name, t + pos, sizeof(name));
	if (name[0])
		link.ifname = name;
	engine_inject_link(e, &link);
	free(t);
}

static void apply_size(struct engine *e, const uint8_t *d, size_t n)
{
	const struct devtab *tab = engine_devtab(e);
	char *t = record_text(d, n);
	unsigned long long size;
	struct device *dev;
	unsigned bits;

	if (sscanf(t, "%llu %u", &size, &bits) == 2 && devtab_count(tab)) {
		dev = devtab_at(tab, devtab_count(tab) - 1);
		dev->size = size;
		dev->fs_ambivalent = bits & 1;
		dev->flags = (bits & 2 ? 0x1u : 0) | (bits & 4 ? 0x40u : 0);
	}
	free(t);
}

static unsigned hexval(char c)
{
	return c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

/* Decodes plain output's \xNN escapes of [s, s + n) into @out. */
static size_t unescape_plain(const char *s, size_t n, char *out)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (s[i] != '\\') {
			out[o++] = s[i];
			continue;
		}
		FUZZ_CHECK(i + 3 < n && s[i + 1] == 'x' &&
			   strchr("0123456789abcdef", s[i + 2]) && s[i + 2] &&
			   strchr("0123456789abcdef", s[i + 3]) && s[i + 3]);
		out[o++] = (char)(hexval(s[i + 2]) << 4 | hexval(s[i + 3]));
		i += 3;
	}
	out[o] = '\0';
	return o;
}

static char *result(const struct engine *e, enum result_format fmt, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	FUZZ_CHECK(f);
	FUZZ_CHECK(result_fprint(f, fmt, e, NULL) == 0);
	FUZZ_CHECK(fclose(f) == 0);
	FUZZ_CHECK(strlen(text) == *len);
	return text;
}

static void check_plain(const struct engine *e)
{
	size_t len, i;
	char *text = result(e, RESULT_PLAIN, &len), *p = text;

	FUZZ_CHECK(utf8_ok(text, len) && no_controls(text, len));
	for (i = 0; i < engine_target_count(e); i++) {
		const struct target *t = engine_target(e, i);
		size_t role = strlen(t->role->name), n;
		char *nl, *name;

		if (t->state != TARGET_FOUND)
			continue;
		nl = strchr(p, '\n');
		FUZZ_CHECK(nl);
		FUZZ_CHECK(strncmp(p, t->role->name, role) == 0 && p[role] == ' ');
		name = malloc((size_t)(nl - p) + 1);
		FUZZ_CHECK(name);
		n = unescape_plain(p + role + 1, (size_t)(nl - p) - role - 1, name);
		FUZZ_CHECK(n == strlen(t->node) && streq(name, t->node));
		free(name);
		p = nl + 1;
	}
	FUZZ_CHECK(*p == '\0');
	free(text);
}

/*
 * Parses "NAME='...'\n" lines as sh(1) would ('\'' inside) into the
 * value of @var, or NULL when no line sets it.
 */
static char *shell_var(const char *text, const char *var)
{
	const char *p = text;
	char *val = NULL;

	while (*p) {
		size_t klen = strcspn(p, "=");
		bool mine = klen == strlen(var) && !strncmp(p, var, klen);
		char *v = malloc(strlen(p) + 1);
		size_t o = 0;

		FUZZ_CHECK(v && p[klen] == '=');
		FUZZ_CHECK(strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == klen);
		p += klen + 1;
		while (*p != '\n') {
			if (*p == '\'') {
				const char *q = strchr(p + 1, '\'');

				FUZZ_CHECK(q);
				memcpy(v + o, p + 1, (size_t)(q - p - 1));
				o += (size_t)(q - p - 1);
				p = q + 1;
			} else {
				/* outside quotes only \' and the newline */
				FUZZ_CHECK(p[0] == '\\' && p[1] == '\'');
				v[o++] = '\'';
				p += 2;
			}
		}
		v[o] = '\0';
		p++;
		if (mine) {
			FUZZ_CHECK(!val); /* set once */
			val = v;
		} else {
			free(v);
		}
	}
	return val;
}

static void check_shell(const struct engine *e)
{
	static const char *const roles[][2] = {
		{ "root", "WAITDEV_ROOT" },
		{ "console", "WAITDEV_CONSOLE" },
		{ "net", "WAITDEV_NET" },
		{ NULL, "WAITDEV_MISSING" },
	};
	size_t len, r, i;
	char *text = result(e, RESULT_SHELL, &len);

	for (r = 0; r < ARRAY_SIZE(roles); r++) {
		char *want =
			malloc(ENGINE_TARGETS_MAX * (sizeof(((struct target *)0)->node) +
						     SPEC_VALUE_MAX + 16));
		char *got = shell_var(text, roles[r][1]);
		size_t o = 0;

		FUZZ_CHECK(want);
		want[0] = '\0';
		for (i = 0; i < engine_target_count(e); i++) {
			const struct target *t = engine_target(e, i);

			if (roles[r][0] && streq(t->role->name, roles[r][0]) &&
			    t->state == TARGET_FOUND)
				o += (size_t)sprintf(want + o, "%s%s", o ? " " : "",
						     t->node);
			else if (!roles[r][0] && t->state != TARGET_FOUND)
				o += (size_t)sprintf(want + o, "%s%s=%s", o ? " " : "",
						     t->role->name, t->spec.text);
		}
		/* a role with nothing found is not printed at all */
		if (roles[r][0] && o == 0)
			FUZZ_CHECK(!got);
		else
			FUZZ_CHECK(got && streq(got, want));
		free(got);
		free(want);
	}
	free(text);
}

/* A JSON string at *@p; moves past it. */
static void json_skip_string(const char **p)
{
	const char *s = *p;

	FUZZ_CHECK(*s == '"');
	for (s++; *s != '"'; s++) {
		FUZZ_CHECK(*s && (unsigned char)*s >= 0x20);
		if (*s != '\\')
			continue;
		s++;
		if (*s == 'u') {
			FUZZ_CHECK(strspn(s + 1, "0123456789abcdefABCDEF") >= 4);
			s += 4;
		} else {
			FUZZ_CHECK(*s && strchr("\"\\/bfnrt", *s));
		}
	}
	*p = s + 1;
}

static void check_json(const struct engine *e)
{
	size_t len, objects = 0, depth = 0;
	char *text = result(e, RESULT_JSON, &len);
	const char *p = text;

	FUZZ_CHECK(utf8_ok(text, len));
	FUZZ_CHECK(len > 0 && text[len - 1] == '\n' && !memchr(text, '\n', len - 1));
	/* outside strings only the structure, literals and numbers */
	while (*p != '\n') {
		FUZZ_CHECK(*p);
		if (*p == '"') {
			json_skip_string(&p);
			continue;
		}
		if (*p == '{' || *p == '[') {
			/* a target: an object in the array of the top one
			 * (its "seen" devices are deeper) */
			objects += *p == '{' && depth == 2;
			depth++;
		} else if (*p == '}' || *p == ']') {
			FUZZ_CHECK(depth > 0);
			depth--;
		} else {
			/* numbers, null, true, false */
			FUZZ_CHECK(strchr(",:0123456789nultrefas", *p));
		}
		p++;
	}
	FUZZ_CHECK(depth == 0);
	FUZZ_CHECK(objects == engine_target_count(e));
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct engine_options opts = {
		.sysfs_root = "/nonexistent-waitdev-fuzz",
		.dev_root = "/nonexistent-waitdev-fuzz",
		.uevent_fd = -1,
	};
	struct engine *e;
	size_t i, start;

	if (size == 0 || size > 64 * 1024)
		return 0;
	/* udev's properties stay (no probe replaces them): the fs_* part
	 * of the diagnosis is reached too, when libudev is built in */
	opts.source = source_udev_available() ? ENGINE_SOURCE_UDEV : ENGINE_SOURCE_KERNEL;
	log_set_level(LOG_LVL_DEBUG);
	log_set_sink(log_line, getenv("FUZZ_REPORT_SHOW"));
	FUZZ_CHECK(engine_new(&e, &opts) == 0);
	for (i = 0; i < ARRAY_SIZE(fixed); i++) {
		struct spec spec;
		char err[200];
		int r;

		if (!(data[0] & 1u << i))
			continue;
		r = role_get(fixed[i].role)->parse(fixed[i].spec, &spec, err, sizeof(err));
		FUZZ_CHECK(r == 0);
		r = engine_add_target(e, role_get(fixed[i].role), &spec, 1000);
		/* LABEL= without libblkid */
		FUZZ_CHECK(r == 0 || r == -EOPNOTSUPP);
	}
	for (start = 1; start < size;) {
		const uint8_t *sep = memmem(data + start, size - start, "\0\0", 2);
		size_t end = sep ? (size_t)(sep - data) : size;
		const uint8_t *rec = data + start;
		size_t n = end - start;

		if (n > 1 && rec[0] == 'U')
			apply_uevent(e, rec + 1, n - 1, false);
		else if (n > 1 && rec[0] == 'P')
			apply_uevent(e, rec + 1, n - 1, true);
		else if (n > 1 && rec[0] == 'L')
			apply_link(e, rec, n);
		else if (n > 1 && rec[0] == 'Z')
			apply_size(e, rec, n);
		start = end + 2;
	}
	in_report = true;
	report_diagnosis(e);
	in_report = false;
	check_plain(e);
	check_shell(e);
	check_json(e);
	if (getenv("FUZZ_REPORT_SHOW")) {
		size_t len;
		char *text = result(e, RESULT_PLAIN, &len);

		fprintf(stderr, "plain:\n%s", text);
		free(text);
		text = result(e, RESULT_SHELL, &len);
		fprintf(stderr, "shell:\n%s", text);
		free(text);
	}
	engine_free(e);
	log_set_sink(NULL, NULL);
	return 0;
}
