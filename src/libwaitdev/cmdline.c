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

static void set_err(char *err, unsigned errsize, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, unsigned errsize, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_vformat(err, errsize, fmt, ap);
	va_end(ap);
}

void cmdline_config_init(struct wait_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->root_ms = DEFAULT_ROOT_MS;
	cfg->console_ms = DEFAULT_CONSOLE_MS;
	cfg->net_ms = DEFAULT_NET_MS;
}

static char *skip_blanks(char *s)
{
	while (isspace((unsigned char)*s))
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
		if (isspace((unsigned char)args[i]) && !in_quote)
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
	int r;

	if (!val || !*val) {
		set_err(err, errsize, "%s: needs a number of seconds", key);
		return -EINVAL;
	}
	if (streq(val, "forever")) {
		*ms = DEADLINE_FOREVER;
		return 0;
	}
	r = parse_seconds_ms(val, ms);
	if (r < 0) {
		set_err(err, errsize, "%s=%s: %s", key, val,
			r == -ERANGE ? "number of seconds out of range"
				     : "not a number of seconds");
		return -EINVAL;
	}
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
		set_err(err, errsize, "%s=%s: expected 0 or 1", key, val);
		return -EINVAL;
	}
	return 0;
}

static int parse_ms_key(const char *key, const char *val, uint64_t *ms, char *err,
			unsigned errsize)
{
	int r;

	if (!val || !*val) {
		set_err(err, errsize, "%s: needs a number of milliseconds", key);
		return -EINVAL;
	}
	r = parse_u64(val, ms);
	if (r < 0 || *ms > 366ULL * 24 * 3600 * 1000) {
		set_err(err, errsize, "%s=%s: not a number of milliseconds", key, val);
		return -EINVAL;
	}
	return 0;
}

/* Root forms that are not block devices: the kernel's NFS/CIFS roots. */
static bool root_is_network(const char *val)
{
	return streq(val, "/dev/nfs") || streq(val, "/dev/cifs");
}

struct parse_state {
	bool waitdev_root, waitdev_console, waitdev_net;
	const char *root;	 /* last root= */
	const char *console_tty; /* last console= naming a tty */
	bool rootwait_forever;
	uint64_t rootwait_ms, rootdelay_ms;
	bool has_rootwait_ms, has_rootdelay;
	bool consolewait;
	bool has_consoledelay;
	uint64_t consoledelay_ms;
};

int cmdline_parse_net_list(const char *key, const char *val, struct wait_config *cfg,
			   char *err, unsigned errsize)
{
	char buf[SPEC_VALUE_MAX * 4];
	char *save = NULL, *tok;
	char serr[200];

	cfg->n_net = 0;
	if (!*val)
		return 0; /* "waitdev.net=" turns the wait off */
	if (!strscpy(buf, val, sizeof(buf))) {
		set_err(err, errsize, "%s: value too long", key);
		return -EINVAL;
	}
	/* ',' separates specs, but MAC addresses never contain one */
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (cfg->n_net == CMDLINE_NET_MAX) {
			set_err(err, errsize, "%s: more than %d interfaces", key,
				CMDLINE_NET_MAX);
			return -EINVAL;
		}
		if (spec_parse_net(tok, &cfg->net[cfg->n_net], serr, sizeof(serr)) < 0) {
			set_err(err, errsize, "%s=%s: %s", key, val, serr);
			return -EINVAL;
		}
		cfg->n_net++;
	}
	if (cfg->n_net == 0) {
		set_err(err, errsize, "%s=%s: no interface named", key, val);
		return -EINVAL;
	}
	return 0;
}

static int parse_waitdev_key(const char *key, const char *val, struct wait_config *cfg,
			     struct parse_state *st, char *err, unsigned errsize)
{
	const char *sub = key + strlen("waitdev.");
	char serr[200];

	if (key_eq(sub, "modprobe"))
		return parse_bool_key(key, val, &cfg->modprobe, err, errsize);
	if (key_eq(sub, "coldplug"))
		return parse_bool_key(key, val, &cfg->coldplug, err, errsize);
	if (key_eq(sub, "timeout")) {
		if (parse_seconds_key(key, val, &cfg->timeout_ms, err, errsize) < 0)
			return -EINVAL;
		cfg->has_timeout = true;
		return 0;
	}
	if (!key_eq(sub, "root") && !key_eq(sub, "console") && !key_eq(sub, "net")) {
		set_err(err, errsize, "%s: unknown waitdev key", key);
		return -EINVAL;
	}
	if (!val) {
		set_err(err, errsize, "%s: needs a value (%s=SPEC)", key, key);
		return -EINVAL;
	}
	if (key_eq(sub, "net")) {
		st->waitdev_net = true;
		return cmdline_parse_net_list(key, val, cfg, err, errsize);
	}
	if (key_eq(sub, "root")) {
		st->waitdev_root = true;
		cfg->has_root = *val != '\0';
		/* "waitdev.root=" turns the wait off: forget an earlier one */
		if (!cfg->has_root)
			memset(&cfg->root, 0, sizeof(cfg->root));
		if (cfg->has_root &&
		    spec_parse_block(val, &cfg->root, serr, sizeof(serr)) < 0)
			goto bad_spec;
		return 0;
	}
	st->waitdev_console = true;
	cfg->has_console = *val != '\0';
	if (!cfg->has_console)
		memset(&cfg->console, 0, sizeof(cfg->console));
	if (cfg->has_console &&
	    spec_parse_console(val, &cfg->console, serr, sizeof(serr)) < 0)
		goto bad_spec;
	return 0;
bad_spec:
	set_err(err, errsize, "%s=%s: %s", key, val, serr);
	return -EINVAL;
}

/* The kernel takes every console=; /dev/console is the last one. */
static int parse_console_key(const char *val, struct wait_config *cfg,
			     struct parse_state *st, char *err, unsigned errsize)
{
	struct spec console;
	char serr[200];

	if (!val || !*val) {
		set_err(err, errsize, "console: empty value");
		return -EINVAL;
	}
	if (spec_parse_console(val, &console, serr, sizeof(serr)) < 0) {
		set_err(err, errsize, "console=%s: %s", val, serr);
		return -EINVAL;
	}
	if (console.type == SPEC_CONSOLE_TTY)
		st->console_tty = val;
	else if (cfg->n_skipped < CMDLINE_SKIPPED_MAX)
		snprintf(cfg->skipped[cfg->n_skipped++], SPEC_VALUE_MAX, "console=%s",
			 val);
	return 0;
}

static int parse_param(const char *key, const char *val, struct wait_config *cfg,
		       struct parse_state *st, char *err, unsigned errsize)
{
	if (strncmp(key, "waitdev.", 8) == 0)
		return parse_waitdev_key(key, val, cfg, st, err, errsize);

	if (key_eq(key, "root")) {
		if (!val || !*val) {
			set_err(err, errsize, "root: empty value");
			return -EINVAL;
		}
		st->root = val;
	} else if (key_eq(key, "rootwait")) {
		/* one kernel variable behind both forms: the last one wins */
		st->rootwait_forever = !val;
		st->has_rootwait_ms = false;
		if (!val)
			return 0;
		if (parse_seconds_key(key, val, &st->rootwait_ms, err, errsize) < 0)
			return -EINVAL;
		st->has_rootwait_ms = true;
	} else if (key_eq(key, "rootdelay")) {
		if (parse_seconds_key(key, val, &st->rootdelay_ms, err, errsize) < 0)
			return -EINVAL;
		st->has_rootdelay = true;
	} else if (key_eq(key, "console")) {
		return parse_console_key(val, cfg, st, err, errsize);
	} else if (key_eq(key, "consolewait")) {
		if (val) {
			set_err(err, errsize,
				"consolewait=%s: takes no value (use "
				"consoledelay=MS)",
				val);
			return -EINVAL;
		}
		st->consolewait = true;
	} else if (key_eq(key, "consoledelay")) {
		if (parse_ms_key(key, val, &st->consoledelay_ms, err, errsize) < 0)
			return -EINVAL;
		st->has_consoledelay = true;
	}
	return 0;
}

static int apply_kernel_keys(struct wait_config *cfg, struct parse_state *st, char *err,
			     unsigned errsize)
{
	char serr[200];

	if (!st->waitdev_root && st->root) {
		if (root_is_network(st->root)) {
			if (cfg->n_skipped < CMDLINE_SKIPPED_MAX)
				snprintf(cfg->skipped[cfg->n_skipped++], SPEC_VALUE_MAX,
					 "root=%s", st->root);
		} else if (spec_parse_block(st->root, &cfg->root, serr, sizeof(serr)) <
			   0) {
			set_err(err, errsize, "root=%s: %s", st->root, serr);
			return -EINVAL;
		} else {
			cfg->has_root = true;
		}
	}
	if (!st->waitdev_console && st->console_tty) {
		if (spec_parse_console(st->console_tty, &cfg->console, serr,
				       sizeof(serr)) < 0) {
			set_err(err, errsize, "console=%s: %s", st->console_tty, serr);
			return -EINVAL;
		}
		cfg->has_console = true;
	}

	if (st->rootwait_forever) {
		cfg->root_ms = DEADLINE_FOREVER;
	} else if (st->has_rootwait_ms || st->has_rootdelay) {
		/* both are upper bounds: the longer one decides */
		cfg->root_ms = 0;
		if (st->has_rootwait_ms)
			cfg->root_ms = st->rootwait_ms;
		if (st->has_rootdelay && st->rootdelay_ms > cfg->root_ms)
			cfg->root_ms = st->rootdelay_ms;
	}
	if (st->consolewait)
		cfg->console_ms = DEADLINE_FOREVER;
	else if (st->has_consoledelay)
		cfg->console_ms = st->consoledelay_ms;
	if (cfg->has_timeout)
		cfg->root_ms = cfg->console_ms = cfg->net_ms = cfg->timeout_ms;
	return 0;
}

int cmdline_parse(const char *text, struct wait_config *cfg, char *err, unsigned errsize)
{
	_cleanup_free_ char *buf = NULL;
	struct parse_state st = { 0 };
	char *args, *key, *val;
	size_t len = strlen(text);

	if (len > CMDLINE_MAX) {
		set_err(err, errsize, "command line longer than %d bytes", CMDLINE_MAX);
		return -EINVAL;
	}
	buf = strdup(text);
	if (!buf) {
		set_err(err, errsize, "out of memory");
		return -ENOMEM;
	}
	args = buf;
	while ((args = cmdline_next_arg(args, &key, &val))) {
		/* what follows "--" is init's, not the kernel's */
		if (!val && streq(key, "--"))
			break;
		if (parse_param(key, val, cfg, &st, err, errsize) < 0)
			return -EINVAL;
	}
	return apply_kernel_keys(cfg, &st, err, errsize);
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
		set_err(err, errsize, "out of memory");
		return -ENOMEM;
	}
	n = read_file_at(AT_FDCWD, path, buf, CMDLINE_MAX + 2);
	if (n < 0) {
		set_err(err, errsize, "%s: %s", path, strerror((int)-n));
		return (int)n;
	}
	if (n > CMDLINE_MAX) {
		set_err(err, errsize, "%s: longer than %d bytes", path, CMDLINE_MAX);
		return -EINVAL;
	}
	if (memchr(buf, '\0', (size_t)n)) {
		set_err(err, errsize, "%s: contains a NUL byte", path);
		return -EINVAL;
	}
	return cmdline_parse(buf, cfg, err, errsize);
}
