// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel command line as the kernel itself reads it (lib/cmdline.c
 * next_arg(), kernel/params.c parse_args()): a parameter runs to the next
 * unquoted blank, double quotes group and are dropped, "--" ends the
 * kernel's part. '-' and '_' are the same character in a key.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <fcntl.h>
#include <string.h>

#include "cmdline.h"
#include "log.h"
#include "util.h"

void cmdline_config_init(struct wait_config *cfg)
{
	unsigned i;

	memset(cfg, 0, sizeof(*cfg));
	for (i = 0; i < ROLE_COUNT; i++)
		cfg->role[i].ms = role_get(i)->default_ms;
}

/* The kernel's isspace() (lib/ctype.c): the C locale's blanks and 0xA0,
 * Latin-1's no-break space, which a boot entry copied from a web page
 * can carry between two parameters. */
static bool kernel_isspace(char c)
{
	unsigned char u = (unsigned char)c;

	return u == ' ' || (u >= '\t' && u <= '\r') || u == 0xa0;
}

static char *skip_blanks(char *s)
{
	while (kernel_isspace(*s))
		s++;
	return s;
}

char *cmdline_next_arg(char *args, char **param, char **val)
{
	bool in_quote = false, quoted = false;
	size_t i, equals = 0;

	args = skip_blanks(args);
	if (!*args)
		return NULL;
	if (*args == '"') {
		args++;
		in_quote = quoted = true;
	}
	for (i = 0; args[i]; i++) {
		if (kernel_isspace(args[i]) && !in_quote)
			break;
		/* like the kernel: a key cannot start with '=' */
		if (equals == 0 && args[i] == '=')
			equals = i;
		if (args[i] == '"')
			in_quote = !in_quote;
	}
	*param = args;
	*val = NULL;
	if (equals) {
		args[equals] = '\0';
		*val = args + equals + 1;
		if (**val == '"') {
			(*val)++;
			if (i > 0 && args[i - 1] == '"')
				args[i - 1] = '\0';
		}
	}
	if (quoted && i > 0 && args[i - 1] == '"')
		args[i - 1] = '\0';
	if (args[i]) {
		args[i] = '\0';
		return args + i + 1;
	}
	return args + i;
}

/* Key comparison with the kernel's dash/underscore equivalence. */
static bool key_eq(const char *key, const char *want)
{
	for (; *key && *want; key++, want++) {
		char a = *key == '-' ? '_' : *key;
		char b = *want == '-' ? '_' : *want;

		if (a != b)
			return false;
	}
	return *key == *want;
}

static int parse_seconds_key(const char *key, const char *val, uint64_t *ms, char *err,
			     unsigned errsize)
{
	uint64_t v;
	int r;

	if (!val || !*val)
		return parse_error(err, errsize, "%s: needs a number of seconds", key);
	if (streq(val, "forever")) {
		*ms = DEADLINE_FOREVER;
		return 0;
	}
	/* a bad value leaves @ms alone: a tolerant parse goes on */
	r = parse_seconds_ms(val, &v);
	if (r < 0)
		return parse_error(err, errsize, "%s=%s: %s", key, val,
				   r == -ERANGE ? "number of seconds out of range"
						: "not a number of seconds");
	*ms = v;
	return 0;
}

/* "1"/"0" like the kernel's bool parameters; a bare key means 1. */
static int parse_bool_key(const char *key, const char *val, bool *out, char *err,
			  unsigned errsize)
{
	if (!val || streq(val, "1") || streq(val, "y") || streq(val, "Y")) {
		*out = true;
	} else if (streq(val, "0") || streq(val, "n") || streq(val, "N")) {
		*out = false;
	} else {
		return parse_error(err, errsize, "%s=%s: expected 0 or 1", key, val);
	}
	return 0;
}

static int parse_ms_key(const char *key, const char *val, uint64_t *ms, char *err,
			unsigned errsize)
{
	uint64_t v;
	int r;

	if (!val || !*val)
		return parse_error(err, errsize, "%s: needs a number of milliseconds",
				   key);
	/* a bad value leaves @ms alone: a tolerant parse goes on */
	r = parse_u64(val, &v);
	if (r < 0 || v > 366ULL * 24 * 3600 * 1000)
		return parse_error(err, errsize, "%s=%s: not a number of milliseconds",
				   key, val);
	*ms = v;
	return 0;
}

/* Root forms that are not block devices: the kernel's NFS/CIFS roots. */
static bool root_is_network(const char *val)
{
	return streq(val, "/dev/nfs") || streq(val, "/dev/cifs");
}

struct parse_state {
	struct wait_config *cfg;
	char *err; /* strict: the first problem */
	unsigned errsize;
	/* the last waitdev.ROLE= of a role without a list, NULL for none */
	const char *waitdev_key[ROLE_COUNT];
	const char *root; /* last root= */
	/* the last console= that names a tty (decoded), or why it is no
	 * console to wait for (console_bad) */
	bool has_console, console_bad;
	char console_why[CMDLINE_PROBLEM_LEN], console_bad_text[SPEC_VALUE_MAX];
	char console[SPEC_VALUE_MAX];
	bool rootwait_forever;
	uint64_t rootwait_ms, rootdelay_ms;
	bool has_rootwait_ms, has_rootdelay;
	bool consolewait;
	bool has_consoledelay;
	uint64_t consoledelay_ms;
	/* waitdev.strict=1: the line asks to be read strictly; known only
	 * at its end, so the first problem is kept for then */
	bool strict_key;
	char first_problem[CMDLINE_PROBLEM_LEN];
};

/*
 * One problem with one parameter, @msg naming the key: a strict parse
 * ends with it (-EINVAL, the message in st->err); a tolerant one keeps it
 * with @outcome, what was done instead, and goes on (0).
 */
static int problem(struct parse_state *st, const char *outcome, const char *msg)
{
	struct wait_config *cfg = st->cfg;

	if (cfg->strict)
		return parse_error(st->err, st->errsize, "%s", msg);
	if (!cfg->n_problems)
		parse_error(st->first_problem, sizeof(st->first_problem), "%s", msg);
	if (cfg->n_problems < CMDLINE_PROBLEMS_MAX)
		parse_error(cfg->problems[cfg->n_problems], CMDLINE_PROBLEM_LEN, "%s; %s",
			    msg, outcome);
	cfg->n_problems++;
	return 0;
}

/* _parse_integer_fixup_radix() (lib/kstrtox.c): base 0 takes "0x" with a
 * hex digit after it as hex, another leading 0 as octal. */
static const char *kernel_fixup_radix(const char *s, unsigned *base)
{
	if (*base == 0) {
		if (s[0] == '0')
			*base = tolower((unsigned char)s[1]) == 'x' &&
						isxdigit((unsigned char)s[2])
					? 16
					: 8;
		else
			*base = 10;
	}
	if (*base == 16 && s[0] == '0' && tolower((unsigned char)s[1]) == 'x')
		s += 2;
	return s;
}

/* _parse_integer(): the digits of @base at @s, as far as they go; the
 * number read (0 for none), *v saturating where the kernel's overflows */
static size_t kernel_parse_integer(const char *s, unsigned base, uint64_t *v)
{
	size_t n;

	*v = 0;
	for (n = 0; s[n]; n++) {
		unsigned char c = (unsigned char)tolower((unsigned char)s[n]);
		unsigned d = isdigit(c)		    ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
						    : 16;

		if (d >= base)
			break;
		*v = *v > (UINT64_MAX - d) / base ? UINT64_MAX : *v * base + d;
	}
	return n;
}

/* simple_strtoul(s, NULL, 0) (lib/vsprintf.c): no sign, whatever follows
 * the digits ignored, 0 when there are none */
static uint64_t kernel_simple_strtoul0(const char *s)
{
	unsigned base = 0;
	uint64_t v;

	s = kernel_fixup_radix(s, &base);
	kernel_parse_integer(s, base, &v);
	return v;
}

/* kstrtoint(s, 0, &v) (lib/kstrtox.c): a sign, the base from the prefix,
 * then nothing but one newline; an int. Only >= 0 is of use here. */
static bool kernel_kstrtoint0(const char *s, uint64_t *v)
{
	unsigned base = 0;
	size_t n;

	if (*s == '-')
		return false; /* negative, or "-0": no wait the kernel keeps */
	if (*s == '+')
		s++;
	s = kernel_fixup_radix(s, &base);
	n = kernel_parse_integer(s, base, v);
	if (n == 0 || *v > INT32_MAX)
		return false;
	s += n;
	if (*s == '\n')
		s++;
	return *s == '\0';
}

/* A number of seconds as anyone would read it: digits, maybe a fraction
 * (waitdev's own keys take one; the kernel's only in waitdev's reading). */
static bool plain_seconds(const char *val, uint64_t *ms)
{
	/* "010" is 8 to the kernel */
	if (!val || (val[0] == '0' && isdigit((unsigned char)val[1])))
		return false;
	return *val && parse_seconds_ms(val, ms) == 0;
}

int cmdline_parse_list(const struct role *role, const char *key, const char *val,
		       struct role_config *rc, char *err, unsigned errsize)
{
	char buf[SPEC_VALUE_MAX * 4];
	char *save = NULL, *tok;
	char serr[200];

	rc->n = 0;
	if (!role->list)
		return parse_error(err, errsize, "%s: takes one spec", key);
	if (!*val)
		return 0; /* "waitdev.net=" turns the wait off */
	if (!strscpy(buf, val, sizeof(buf)))
		return parse_error(err, errsize, "%s: value too long", key);
	/* ',' separates specs, but MAC addresses never contain one */
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (rc->n == CMDLINE_LIST_MAX)
			return parse_error(err, errsize, "%s: more than %d %s specs", key,
					   CMDLINE_LIST_MAX, role->name);
		if (role->parse(tok, &rc->spec[rc->n], serr, sizeof(serr)) < 0)
			return parse_error(err, errsize, "%s=%s: %s", key, val, serr);
		rc->n++;
	}
	if (rc->n == 0)
		return parse_error(err, errsize, "%s=%s: no %s named", key, val,
				   role->name);
	return 0;
}

int cmdline_parse_alternatives(const struct role *role, const char *val,
			       struct role_config *rc, char *err, unsigned errsize)
{
	char buf[SPEC_VALUE_MAX * 4], serr[200];
	const char *tok = buf;
	char *bar;

	rc->n = 0;
	rc->alternatives = role->alternatives && strchr(val, '|');
	if (!rc->alternatives) {
		if (role->parse(val, &rc->spec[0], serr, sizeof(serr)) < 0)
			return parse_error(err, errsize, "%s", serr);
		rc->n = 1;
		return 0;
	}
	if (!strscpy(buf, val, sizeof(buf)))
		return parse_error(err, errsize, "value too long");
	for (;;) {
		bar = strchr(tok, '|');
		if (bar)
			*bar = '\0';
		if (rc->n == CMDLINE_LIST_MAX)
			return parse_error(err, errsize, "more than %d alternatives",
					   CMDLINE_LIST_MAX);
		if (!*tok)
			return parse_error(err, errsize, "an empty alternative");
		if (role->parse(tok, &rc->spec[rc->n], serr, sizeof(serr)) < 0)
			return parse_error(err, errsize, "alternative %u (%s): %s",
					   rc->n + 1, tok, serr);
		rc->n++;
		if (!bar)
			break;
		tok = bar + 1;
	}
	return 0;
}

/* waitdev.net= replaces the list; a bad one leaves the last good one */
static int parse_list_key(const struct role *role, const char *key, const char *val,
			  struct parse_state *st, char *msg, unsigned msgsize)
{
	struct role_config *rc = &st->cfg->role[role->id];
	struct role_config saved = *rc;

	if (cmdline_parse_list(role, key, val, rc, msg, msgsize) < 0) {
		*rc = saved;
		return -EINVAL;
	}
	return 0;
}

/* The role waitdev.@sub= names, NULL for none. */
static const struct role *waitdev_key_role(const char *sub)
{
	unsigned i;

	for (i = 0; i < ROLE_COUNT; i++)
		if (key_eq(sub, role_get(i)->name))
			return role_get(i);
	return NULL;
}

static int parse_waitdev_key(const char *key, const char *val, struct parse_state *st,
			     char *msg, unsigned msgsize)
{
	struct wait_config *cfg = st->cfg;
	const char *sub = key + strlen("waitdev.");
	const struct role *role;

	if (key_eq(sub, "modprobe"))
		return parse_bool_key(key, val, &cfg->modprobe, msg, msgsize);
	if (key_eq(sub, "coldplug"))
		return parse_bool_key(key, val, &cfg->coldplug, msg, msgsize);
	if (key_eq(sub, "settle"))
		return parse_bool_key(key, val, &cfg->settle, msg, msgsize);
	if (key_eq(sub, "strict"))
		return parse_bool_key(key, val, &st->strict_key, msg, msgsize);
	if (key_eq(sub, "timeout")) {
		if (parse_seconds_key(key, val, &cfg->timeout_ms, msg, msgsize) < 0)
			return -EINVAL;
		cfg->has_timeout = true;
		return 0;
	}
	role = waitdev_key_role(sub);
	if (!role)
		return parse_error(msg, msgsize, "%s: unknown waitdev key", key);
	if (!val)
		return parse_error(msg, msgsize, "%s: needs a value (%s=SPEC)", key, key);
	if (role->list)
		return parse_list_key(role, key, val, st, msg, msgsize);
	/* the spec is read once the last one is known (apply_specs()) */
	st->waitdev_key[role->id] = val;
	return 0;
}

/*
 * console= as console_setup() (kernel/printk/printk.c) decodes it into a
 * name and an index: a leading digit means "ttyS"; the name runs to the
 * first digit or ','; the index is the decimal digits there (none: 0),
 * whatever follows them up to ',' is dropped. So "ttyS00" and "ttyS0n"
 * are ttyS0, "ttyS" and "0" too. Writes "NAMEINDEX[,OPTIONS]" to @out;
 * *@odd: the kernel's reading differs from the text's.
 */
static bool kernel_console_decode(const char *val, char *out, size_t size, bool *odd)
{
	const char *prefix = isdigit((unsigned char)*val) ? "ttyS" : "";
	size_t name = strcspn(val, "0123456789,");
	const char *digits = val + name, *options = strchr(val, ',');
	uint64_t idx;
	size_t n = kernel_parse_integer(digits, 10, &idx);
	int len;

	*odd = (digits[n] && digits[n] != ',') || (n > 1 && digits[0] == '0') ||
	       idx > INT32_MAX;
	len = snprintf(out, size, "%s%.*s%llu%s", prefix, (int)name, val,
		       (unsigned long long)idx, options ? options : "");
	return len >= 0 && (size_t)len < size;
}

/* The kernel takes every console=; /dev/console is the last one. */
static int parse_console_key(const char *val, struct parse_state *st, char *msg,
			     unsigned msgsize)
{
	struct wait_config *cfg = st->cfg;
	char decoded[SPEC_VALUE_MAX], serr[200];
	struct spec console;
	bool odd;
	int r;

	/* __setup("console=", ...) does not take a bare "console" */
	if (!val)
		return parse_error(msg, msgsize, "console: needs a value (console=NAME)");
	/* console_setup(): "" and "null" mean ttynull, "brl," a braille
	 * console; neither is a tty /dev/console can become */
	if (!*val || streq(val, "null") || strncmp(val, "ttynull", 7) == 0 ||
	    strncmp(val, "brl,", 4) == 0 || strncmp(val, "brl=", 4) == 0) {
		if (cfg->n_skipped < CMDLINE_SKIPPED_MAX)
			snprintf(cfg->skipped[cfg->n_skipped++], SPEC_VALUE_MAX,
				 "console=%s", *val ? val : "null");
		return 0;
	}
	if (!kernel_console_decode(val, decoded, sizeof(decoded), &odd))
		return parse_error(msg, msgsize, "console=%s: value too long", val);
	if (odd) {
		char note[CMDLINE_PROBLEM_LEN];

		parse_error(note, sizeof(note), "console=%s: the kernel reads %.*s", val,
			    (int)strcspn(decoded, ","), decoded);
		r = problem(st, "so does waitdev", note);
		if (r < 0)
			return r;
	}
	if (spec_parse_console(decoded, &console, serr, sizeof(serr)) < 0) {
		char note[CMDLINE_PROBLEM_LEN];

		/* the last console= decides; a bad one fails the wait */
		parse_error(note, sizeof(note), "console=%s: %s", val, serr);
		st->has_console = st->console_bad = true;
		strscpy(st->console_why, note, sizeof(st->console_why));
		strscpy(st->console_bad_text, val, sizeof(st->console_bad_text));
		return problem(
			st, "the console wait fails unless a later console= names a tty",
			note);
	}
	if (console.type == SPEC_CONSOLE_TTY) {
		strscpy(st->console, decoded, sizeof(st->console));
		st->has_console = true;
		st->console_bad = false;
	} else if (cfg->n_skipped < CMDLINE_SKIPPED_MAX) {
		snprintf(cfg->skipped[cfg->n_skipped++], SPEC_VALUE_MAX, "console=%s",
			 val);
	}
	return 0;
}

/* rootwait=N, Linux 6.5's rootwait_timeout_setup() (init/do_mounts.c):
 * kstrtoint(, 0); invalid, negative or too large for ms in an int: "ignoring
 * invalid rootwait value", and the wait is forever */
static int parse_rootwait_key(const char *val, struct parse_state *st)
{
	char note[CMDLINE_PROBLEM_LEN];
	uint64_t sec;

	st->has_rootwait_ms = false;
	st->rootwait_forever = !val;
	if (!val)
		return 0;
	if (plain_seconds(val, &st->rootwait_ms) && !strchr(val, '.')) {
		if (st->rootwait_ms / 1000 <= INT32_MAX / 1000) {
			st->has_rootwait_ms = true;
			return 0;
		}
	} else if (kernel_kstrtoint0(val, &sec) && sec <= INT32_MAX / 1000) {
		st->rootwait_ms = sec * 1000;
		st->has_rootwait_ms = true;
		parse_error(note, sizeof(note), "rootwait=%s: the kernel reads %llu s",
			    val, (unsigned long long)sec);
		return problem(st, "so does waitdev", note);
	}
	st->rootwait_forever = true;
	parse_error(note, sizeof(note),
		    "rootwait=%s: the kernel ignores an invalid value", val);
	return problem(st, "waiting for the root forever, as it does", note);
}

/* rootdelay=N, root_delay_setup() (init/do_mounts.c): simple_strtoul(,
 * 0), in seconds; waitdev also takes a fraction */
static int parse_rootdelay_key(const char *val, struct parse_state *st)
{
	char note[CMDLINE_PROBLEM_LEN];
	uint64_t sec;

	/* __setup("rootdelay=", ...) does not take a bare "rootdelay" */
	if (!val)
		return problem(st, "ignored", "rootdelay: needs a number of seconds");
	st->has_rootdelay = true;
	if (plain_seconds(val, &st->rootdelay_ms))
		return 0;
	sec = kernel_simple_strtoul0(val);
	st->rootdelay_ms = sec > 366ULL * 24 * 3600 ? DEADLINE_FOREVER : sec * 1000;
	parse_error(note, sizeof(note), "rootdelay=%s: the kernel reads %llu s", val,
		    (unsigned long long)sec);
	return problem(st, "so does waitdev", note);
}

/* One parameter: 0, or -EINVAL with what is wrong in @msg (a problem for
 * the caller), or a strict parse's end from problem(). */
/*
 * rootfstype=TYPE[,TYPE...], fs_names_setup() (init/do_mounts.c): the
 * types the kernel tries, in order, and no others. Names as filesystems
 * register them ([a-z0-9_.+-]); empty items, as the kernel's
 * split_fs_names() does, count for nothing. A bare "rootfstype" is not
 * the kernel's key; an empty value restricts nothing here.
 */
static int parse_rootfstype_key(const char *val, struct parse_state *st, char *msg,
				unsigned msgsize)
{
	const char *c;

	if (!val)
		return parse_error(
			msg, msgsize,
			"rootfstype: needs a filesystem type (rootfstype=ext4)");
	for (c = val; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_.+-,", *c))
			return parse_error(msg, msgsize,
					   "rootfstype=%s: not a filesystem type", val);
	if (!strscpy(st->cfg->rootfstype, val, sizeof(st->cfg->rootfstype))) {
		st->cfg->rootfstype[0] = '\0';
		return parse_error(msg, msgsize, "rootfstype=%.32s...: too long", val);
	}
	return 0;
}

static int parse_param(const char *key, const char *val, struct parse_state *st,
		       char *msg, unsigned msgsize)
{
	if (strncmp(key, "waitdev.", 8) == 0)
		return parse_waitdev_key(key, val, st, msg, msgsize);

	if (key_eq(key, "waitdev") || key_eq(key, "rd.waitdev")) {
		/* the off switch, in the kernel's and in dracut's spelling */
		bool on;

		if (parse_bool_key(key, val, &on, msg, msgsize) < 0)
			return -EINVAL;
		st->cfg->off = !on;
	} else if (key_eq(key, "root")) {
		/* __setup("root=", ...): a bare "root" is not the kernel's */
		if (!val)
			return parse_error(msg, msgsize,
					   "root: needs a value (root=DEVICE)");
		st->root = val;
	} else if (key_eq(key, "rootwait")) {
		return parse_rootwait_key(val, st);
	} else if (key_eq(key, "rootdelay")) {
		return parse_rootdelay_key(val, st);
	} else if (key_eq(key, "rootfstype")) {
		return parse_rootfstype_key(val, st, msg, msgsize);
	} else if (key_eq(key, "console")) {
		return parse_console_key(val, st, msg, msgsize);
	} else if (key_eq(key, "consolewait")) {
		if (val)
			return parse_error(msg, msgsize,
					   "consolewait=%s: takes no value (use "
					   "consoledelay=MS)",
					   val);
		st->consolewait = true;
	} else if (key_eq(key, "consoledelay")) {
		if (parse_ms_key(key, val, &st->consoledelay_ms, msg, msgsize) < 0)
			return -EINVAL;
		st->has_consoledelay = true;
	}
	return 0;
}

/* @val, the last value of @key for @role: its spec, or, malformed, a
 * problem and the role's wait fails at once (never the others). */
static int set_role_spec(struct parse_state *st, const struct role *role, const char *key,
			 const char *val, bool alternatives)
{
	struct role_config *rc = &st->cfg->role[role->id];
	char serr[200], msg[CMDLINE_PROBLEM_LEN], what[64];
	int r;

	if (alternatives)
		r = cmdline_parse_alternatives(role, val, rc, serr, sizeof(serr));
	else
		r = role->parse(val, &rc->spec[0], serr, sizeof(serr));
	if (r == 0) {
		if (!alternatives) {
			rc->n = 1;
			rc->alternatives = false;
		}
		return 0;
	}
	rc->n = 0;
	rc->alternatives = false;
	memset(&rc->spec[0], 0, sizeof(rc->spec[0]));
	strscpy(rc->spec[0].text, val, sizeof(rc->spec[0].text));
	rc->invalid = true;
	parse_error(msg, sizeof(msg), "%s=%s: %s", key, val, serr);
	strscpy(rc->why, msg, sizeof(rc->why));
	snprintf(what, sizeof(what), "the %s wait fails", role->name);
	return problem(st, what, msg);
}

/* root=, read as the kernel reads it when no waitdev.root= is given */
static int apply_kernel_root(struct parse_state *st)
{
	struct wait_config *cfg = st->cfg;

	if (!st->root)
		return 0;
	if (root_is_network(st->root)) {
		if (cfg->n_skipped < CMDLINE_SKIPPED_MAX)
			snprintf(cfg->skipped[cfg->n_skipped++], SPEC_VALUE_MAX,
				 "root=%s", st->root);
		return 0;
	}
	if (!*st->root) {
		cfg->role[ROLE_ROOT].invalid = true;
		strscpy(cfg->role[ROLE_ROOT].why, "root: empty value",
			sizeof(cfg->role[ROLE_ROOT].why));
		return problem(st, "the root wait fails", "root: empty value");
	}
	/* the kernel mounts what root= names: one device, '|' and all */
	return set_role_spec(st, role_get(ROLE_ROOT), "root", st->root, false);
}

/* the last console= that names a tty, when no waitdev.console= is given */
static int apply_kernel_console(struct parse_state *st)
{
	struct role_config *rc = &st->cfg->role[ROLE_CONSOLE];
	char serr[200];

	if (!st->has_console)
		return 0;
	/* the bad one was a problem already when it was read */
	rc->invalid = st->console_bad;
	if (st->console_bad) {
		strscpy(rc->why, st->console_why, sizeof(rc->why));
		strscpy(rc->spec[0].text, st->console_bad_text, sizeof(rc->spec[0].text));
	}
	if (!st->console_bad &&
	    spec_parse_console(st->console, &rc->spec[0], serr, sizeof(serr)) == 0)
		rc->n = 1;
	return 0;
}

/* The specs of the single-valued roles, once the last of each is known:
 * waitdev.ROLE= wins over the kernel's own key, and an empty one turns
 * that wait off. */
static int apply_specs(struct parse_state *st)
{
	char key[64];
	unsigned i;
	int r = 0;

	for (i = 0; i < ROLE_COUNT; i++) {
		const struct role *role = role_get(i);
		const char *val = st->waitdev_key[i];

		if (val && *val) {
			snprintf(key, sizeof(key), "waitdev.%s", role->name);
			r = set_role_spec(st, role, key, val, role->alternatives);
		} else if (!val && i == ROLE_ROOT) {
			r = apply_kernel_root(st);
		} else if (!val && i == ROLE_CONSOLE) {
			r = apply_kernel_console(st);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

void cmdline_set_timeout(struct wait_config *cfg, uint64_t ms)
{
	unsigned i;

	for (i = 0; i < ROLE_COUNT; i++)
		cfg->role[i].ms = ms;
}

static void apply_deadlines(struct wait_config *cfg, const struct parse_state *st)
{
	if (st->rootwait_forever) {
		cfg->role[ROLE_ROOT].ms = DEADLINE_FOREVER;
	} else if (st->has_rootwait_ms || st->has_rootdelay) {
		/* both are upper bounds: the longer one decides */
		cfg->role[ROLE_ROOT].ms = 0;
		if (st->has_rootwait_ms)
			cfg->role[ROLE_ROOT].ms = st->rootwait_ms;
		if (st->has_rootdelay && st->rootdelay_ms > cfg->role[ROLE_ROOT].ms)
			cfg->role[ROLE_ROOT].ms = st->rootdelay_ms;
	}
	/* the bottom of the root's stack is part of the wait for the root */
	cfg->role[ROLE_STACK].ms = cfg->role[ROLE_ROOT].ms;
	if (st->consolewait)
		cfg->role[ROLE_CONSOLE].ms = DEADLINE_FOREVER;
	else if (st->has_consoledelay)
		cfg->role[ROLE_CONSOLE].ms = st->consoledelay_ms;
	if (cfg->has_timeout)
		cmdline_set_timeout(cfg, cfg->timeout_ms);
}

int cmdline_parse(const char *text, struct wait_config *cfg, char *err, unsigned errsize)
{
	_cleanup_free_ char *buf = NULL;
	struct parse_state st = { .cfg = cfg, .err = err, .errsize = errsize };
	char *args, *key, *val;
	char msg[CMDLINE_PROBLEM_LEN];
	size_t len = strlen(text);
	int r;

	if (len > CMDLINE_MAX)
		return parse_error(err, errsize, "command line longer than %d bytes",
				   CMDLINE_MAX);
	buf = strdup(text);
	if (!buf) {
		parse_error(err, errsize, "out of memory");
		return -ENOMEM;
	}
	args = buf;
	while ((args = cmdline_next_arg(args, &key, &val))) {
		/* what follows "--" is init's, not the kernel's */
		if (!val && streq(key, "--"))
			break;
		msg[0] = '\0';
		r = parse_param(key, val, &st, msg, sizeof(msg));
		/* a message: the problem is the parameter's; none: a strict
		 * parse ended in problem() */
		if (r < 0 && (!*msg || problem(&st, "ignored", msg) < 0))
			return -EINVAL;
	}
	if (apply_specs(&st) < 0)
		return -EINVAL;
	apply_deadlines(cfg, &st);
	if (st.strict_key && cfg->n_problems)
		return parse_error(err, errsize, "%s", st.first_problem);
	return 0;
}

int cmdline_parse_file(const char *path, struct wait_config *cfg, char *err,
		       unsigned errsize)
{
	_cleanup_free_ char *buf = NULL;
	ssize_t n;

	if (!path)
		path = "/proc/cmdline";
	buf = malloc(CMDLINE_MAX + 2);
	if (!buf) {
		parse_error(err, errsize, "out of memory");
		return -ENOMEM;
	}
	n = read_file_at(AT_FDCWD, path, buf, CMDLINE_MAX + 2);
	if (n < 0) {
		parse_error(err, errsize, "%s: %s", path, strerror((int)-n));
		return (int)n;
	}
	if (n > CMDLINE_MAX)
		return parse_error(err, errsize, "%s: longer than %d bytes", path,
				   CMDLINE_MAX);
	if (memchr(buf, '\0', (size_t)n)) {
		return parse_error(err, errsize, "%s: contains a NUL byte", path);
	}
	return cmdline_parse(buf, cfg, err, errsize);
}
