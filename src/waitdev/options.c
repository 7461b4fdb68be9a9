// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontends.h"
#include "log.h"
#include "modload.h"
#include "options.h"
#include "probe.h"
#include "source.h"
#include "util.h"

/* The common options that take an argument, after the programs' own. */
enum {
	OPT_TIMEOUT = OPT_ROLE + ROLE_COUNT,
	OPT_CMDLINE,
	OPT_CMDLINE_FILE,
	OPT_FORMAT,
	OPT_SYSFS,
	OPT_UEVENT_FD,
	OPT_RCVBUF,
	OPT_MODDIR,
	OPT_SOURCE,
	OPT_VERSION,
};

int usage_error(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_err("%s", line);
	return EXIT_USAGE;
}

/* "PROGRAM VERSION (probe: X, modload: Y, udev source: yes|no)" */
static void print_version(const char *program)
{
	printf("%s %s (probe: %s, modload: %s, udev source: %s)\n", program,
	       WAITDEV_VERSION, probe_backend(), modload_backend(),
	       source_udev_available() ? "yes" : "no");
}

static int parse_int_arg(const char *opt, const char *arg, long min, long max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (!*arg || *end || errno || v < min || v > max)
		return -usage_error("%s %s: expected a number from %ld to %ld", opt, arg,
				    min, max);
	*out = (int)v;
	return 1;
}

static int parse_source(const char *arg, enum engine_source *source)
{
	static const struct {
		const char *name;
		enum engine_source source;
	} sources[] = {
		{ "kernel", ENGINE_SOURCE_KERNEL },
		{ "udev", ENGINE_SOURCE_UDEV },
		{ "auto", ENGINE_SOURCE_AUTO },
	};

	for (size_t i = 0; i < ARRAY_SIZE(sources); i++) {
		if (streq(arg, sources[i].name)) {
			*source = sources[i].source;
			return 1;
		}
	}
	return -usage_error("--source %s: expected kernel, udev or auto", arg);
}

/*
 * One common option that takes an argument (the flags getopt_long()
 * sets itself). Returns 1 when handled, 0 when @opt is not one, or an
 * exit status (negated) after a one-line error.
 */
static int common_option(struct options *o, int opt, const char *arg)
{
	switch (opt) {
	case OPT_TIMEOUT:
		if (streq(arg, "forever"))
			o->timeout_ms = DEADLINE_FOREVER;
		else if (parse_seconds_ms(arg, &o->timeout_ms) < 0)
			return -usage_error(
				"--timeout %s: expected seconds (e.g. 3 or 0.5) or \"forever\"",
				arg);
		o->has_timeout = true;
		return 1;
	case OPT_FORMAT:
		if (result_parse_format(arg, &o->format) < 0)
			return -usage_error("--format %s: expected plain, shell or json",
					    arg);
		return 1;
	case OPT_UEVENT_FD:
		return parse_int_arg("--uevent-fd", arg, 0, INT_MAX, &o->uevent_fd);
	case OPT_RCVBUF:
		return parse_int_arg("--rcvbuf", arg, 1, INT_MAX, &o->rcvbuf);
	case OPT_SOURCE:
		return parse_source(arg, &o->source);
	case 'v':
		o->verbose++;
		return 1;
	}
	/* the rest keep their argument as given */
	if (opt == OPT_CMDLINE)
		o->cmdline = arg;
	else if (opt == OPT_CMDLINE_FILE)
		o->cmdline_file = arg;
	else if (opt == OPT_SYSFS)
		o->sysfs = arg;
	else if (opt == OPT_MODDIR)
		o->moddir = arg;
	else
		return 0;
	return 1;
}

/* The error for an option that is not @program's; returns EXIT_USAGE. */
static int foreign_option(const struct option *table, const char *program, int opt,
			  const char *word)
{
	const struct option *t;

	for (t = table; t->name; t++)
		if (!t->flag && t->val == opt)
			return usage_error(
				"--%s: an option of waitdev, not of %s (see --help)",
				t->name, program);
	return usage_error("%s: unknown option or missing argument (see --help)", word);
}

/* The options into @o, the SPEC argument (or NULL) into @spec. */
static int parse_options(struct options *o, int argc, char **argv,
			 const struct program_syntax *p, const char **spec)
{
	/* every long option of the three programs: those that are not
	 * common (--root, --console, --net) are waitdev's alone, and the
	 * other programs reject them */
	const struct option table[] = {
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "cmdline", required_argument, NULL, OPT_CMDLINE },
		{ "cmdline-file", required_argument, NULL, OPT_CMDLINE_FILE },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "kmsg", no_argument, &o->kmsg, 1 },
		{ "no-kmsg", no_argument, &o->kmsg, 0 },
		{ "sysfs", required_argument, NULL, OPT_SYSFS },
		{ "uevent-fd", required_argument, NULL, OPT_UEVENT_FD },
		{ "rcvbuf", required_argument, NULL, OPT_RCVBUF },
		{ "modprobe", no_argument, &o->modprobe, 1 },
		{ "dry-run", no_argument, &o->dry_run, 1 },
		{ "coldplug", no_argument, &o->coldplug, 1 },
		{ "settle", no_argument, &o->settle, 1 },
		{ "moddir", required_argument, NULL, OPT_MODDIR },
		{ "source", required_argument, NULL, OPT_SOURCE },
		{ "strict", no_argument, &o->strict, 1 },
		/* --ROLE: role.h's names */
		{ "root", required_argument, NULL, OPT_ROLE + ROLE_ROOT },
		{ "console", required_argument, NULL, OPT_ROLE + ROLE_CONSOLE },
		{ "net", required_argument, NULL, OPT_ROLE + ROLE_NET },
		{ "resume", required_argument, NULL, OPT_ROLE + ROLE_RESUME },
		{ "stack", required_argument, NULL, OPT_ROLE + ROLE_STACK },
		{ "quiet", no_argument, &o->quiet, 1 },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	int opt, r;

	memset(o, 0, sizeof(*o));
	o->uevent_fd = -1;
	o->kmsg = -1;
	o->source = ENGINE_SOURCE_AUTO;
	log_set_program(p->name);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "qvh", table, NULL)) != -1) {
		if (opt == 0) /* a flag, set */
			continue;
		if (opt == 'q') {
			o->quiet = 1;
			continue;
		}
		r = common_option(o, opt, optarg);
		if (r == 0 && p->option)
			r = p->option(p->ctx, opt, optarg);
		if (r < 0)
			return -r;
		if (r > 0)
			continue;
		if (opt == 'h') {
			p->usage();
			return -1;
		}
		if (opt == OPT_VERSION) {
			print_version(p->name);
			return -1;
		}
		return foreign_option(table, p->name, opt, argv[optind - 1]);
	}
	*spec = NULL;
	if (argc - optind > (p->spec_role ? 1 : 0))
		return usage_error("%s: %s (see --help)", argv[argc - 1],
				   p->spec_role ? "only one SPEC"
						: "unexpected argument");
	if (optind < argc)
		*spec = argv[optind];
	return 0;
}

/* The kernel command line (or --cmdline, --cmdline-file) into @cfg. */
static int read_cmdline(const struct options *o, struct wait_config *cfg)
{
	char err[512];
	int r;

	cmdline_config_init(cfg);
	cfg->strict = o->strict;
	if (o->cmdline)
		r = cmdline_parse(o->cmdline, cfg, err, sizeof(err));
	else
		r = cmdline_parse_file(o->cmdline_file, cfg, err, sizeof(err));
	if (r == -EINVAL) {
		log_err("kernel command line: %s", err);
		return EXIT_USAGE;
	}
	if (r < 0) {
		log_err("%s", err);
		/* a --cmdline-file the user named is a usage error */
		return o->cmdline_file ? EXIT_USAGE : EXIT_SYSTEM;
	}
	return 0;
}

int options_add_spec(struct wait_config *cfg, const struct role *role, const char *option,
		     const char *text)
{
	struct role_config *rc = &cfg->role[role->id];
	struct role_config one = { 0 };
	char err[512];
	int r;

	if (role->list) {
		/* the same list grammar as waitdev.net= */
		r = cmdline_parse_list(role, option ? option : role->name, text, &one,
				       err, sizeof(err));
		if (r < 0)
			return usage_error("%s", err);
	} else if (cmdline_parse_alternatives(role, text, &one, err, sizeof(err)) < 0) {
		return usage_error("%s%s%s: %s", option ? option : "", option ? " " : "",
				   text, err);
	} else {
		rc->n = 0; /* one spec, or one list of alternatives: the last */
	}
	rc->alternatives = !role->list && one.alternatives;
	if (rc->n + one.n > CMDLINE_LIST_MAX)
		return usage_error("%s: more than %d %s specs",
				   option ? option : role->name, CMDLINE_LIST_MAX,
				   role->name);
	memcpy(&rc->spec[rc->n], one.spec, one.n * sizeof(one.spec[0]));
	rc->n += one.n;
	rc->invalid = false;
	rc->from_options = true;
	return 0;
}

void options_clear_role(struct wait_config *cfg, const struct role *role)
{
	struct role_config *rc = &cfg->role[role->id];

	rc->n = 0;
	rc->invalid = false;
	rc->alternatives = false;
}

int options_read(struct options *o, struct wait_config *cfg, int argc, char **argv,
		 const struct program_syntax *p)
{
	const char *spec;
	int r;

	r = parse_options(o, argc, argv, p, &spec);
	if (!r)
		r = read_cmdline(o, cfg);
	if (!r && spec) {
		options_clear_role(cfg, p->spec_role);
		r = options_add_spec(cfg, p->spec_role, NULL, spec);
	}
	if (r)
		return r;
	if (o->has_timeout)
		cmdline_set_timeout(cfg, o->timeout_ms);
	return 0;
}
