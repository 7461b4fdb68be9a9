// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "log.h"
#include "modload.h"
#include "out.h"
#include "probe.h"
#include "source.h"
#include "util.h"

const struct option cli_options[] = {
	{ "timeout", required_argument, NULL, CLI_OPT_TIMEOUT },
	{ "cmdline", required_argument, NULL, CLI_OPT_CMDLINE },
	{ "cmdline-file", required_argument, NULL, CLI_OPT_CMDLINE_FILE },
	{ "format", required_argument, NULL, CLI_OPT_FORMAT },
	{ "kmsg", no_argument, NULL, CLI_OPT_KMSG },
	{ "no-kmsg", no_argument, NULL, CLI_OPT_NO_KMSG },
	{ "sysfs", required_argument, NULL, CLI_OPT_SYSFS },
	{ "uevent-fd", required_argument, NULL, CLI_OPT_UEVENT_FD },
	{ "rcvbuf", required_argument, NULL, CLI_OPT_RCVBUF },
	{ "modprobe", no_argument, NULL, CLI_OPT_MODPROBE },
	{ "dry-run", no_argument, NULL, CLI_OPT_DRY_RUN },
	{ "coldplug", no_argument, NULL, CLI_OPT_COLDPLUG },
	{ "moddir", required_argument, NULL, CLI_OPT_MODDIR },
	{ "source", required_argument, NULL, CLI_OPT_SOURCE },
	{ "strict", no_argument, NULL, CLI_OPT_STRICT },
	{ "root", required_argument, NULL, CLI_OPT_ROOT },
	{ "console", required_argument, NULL, CLI_OPT_CONSOLE },
	{ "net", required_argument, NULL, CLI_OPT_NET },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, CLI_OPT_VERSION },
	{ 0 },
};

void cli_init(struct cli *c, const char *program)
{
	memset(c, 0, sizeof(*c));
	c->uevent_fd = -1;
	c->kmsg = -1;
	c->source = ENGINE_SOURCE_AUTO;
	log_set_program(program);
}

void cli_print_version(const char *program)
{
	printf("%s %s (probe: %s, modload: %s, udev source: %s)\n", program,
	       WAITDEV_VERSION, probe_backend(), modload_backend(),
	       source_udev_available() ? "yes" : "no");
}

int cli_parse(struct cli *c, int argc, char **argv, const struct cli_program *p,
	      const char **spec)
{
	int opt, r;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, CLI_COMMON_SHORT_OPTIONS, cli_options,
				  NULL)) != -1) {
		r = cli_option(c, opt, optarg);
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
		if (opt == CLI_OPT_VERSION) {
			cli_print_version(p->name);
			return -1;
		}
		return cli_foreign_option(p->name, opt, argv[optind - 1]);
	}
	*spec = NULL;
	if (argc - optind > (p->takes_spec ? 1 : 0))
		return cli_usage_error("%s: %s (see --help)", argv[argc - 1],
				       p->takes_spec ? "only one SPEC"
						     : "unexpected argument");
	if (optind < argc)
		*spec = argv[optind];
	return 0;
}

int cli_foreign_option(const char *program, int opt, const char *arg)
{
	const struct option *o;

	for (o = cli_options; o->name; o++)
		if (o->val == opt)
			return cli_usage_error("--%s: an option of waitdev, "
					       "not "
					       "of %s (see --help)",
					       o->name, program);
	return cli_usage_error("%s: unknown option or missing argument (see "
			       "--help)",
			       arg);
}

int cli_usage_error(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_err("%s", line);
	return EXIT_USAGE;
}

static int parse_int_arg(const char *opt, const char *arg, long min, long max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (!*arg || *end || errno || v < min || v > max)
		return -cli_usage_error("%s %s: expected a number from %ld to "
					"%ld",
					opt, arg, min, max);
	*out = (int)v;
	return 1;
}

int cli_option(struct cli *c, int opt, const char *arg)
{
	switch (opt) {
	case CLI_OPT_TIMEOUT:
		if (streq(arg, "forever")) {
			c->timeout_ms = DEADLINE_FOREVER;
		} else if (parse_seconds_ms(arg, &c->timeout_ms) < 0) {
			return -cli_usage_error("--timeout %s: expected "
						"seconds (e.g. 3 or 0.5) or "
						"\"forever\"",
						arg);
		}
		c->has_timeout = true;
		return 1;
	case CLI_OPT_CMDLINE:
		c->cmdline = arg;
		return 1;
	case CLI_OPT_CMDLINE_FILE:
		c->cmdline_file = arg;
		return 1;
	case CLI_OPT_FORMAT:
		if (report_parse_format(arg, &c->format) < 0)
			return -cli_usage_error("--format %s: expected plain, "
						"shell or json",
						arg);
		return 1;
	case CLI_OPT_KMSG:
		c->kmsg = 1;
		return 1;
	case CLI_OPT_NO_KMSG:
		c->kmsg = 0;
		return 1;
	case CLI_OPT_SYSFS:
		c->sysfs = arg;
		return 1;
	case CLI_OPT_UEVENT_FD:
		return parse_int_arg("--uevent-fd", arg, 0, INT_MAX, &c->uevent_fd);
	case CLI_OPT_RCVBUF:
		return parse_int_arg("--rcvbuf", arg, 1, INT_MAX, &c->rcvbuf);
	case CLI_OPT_MODPROBE:
		c->modprobe = true;
		return 1;
	case CLI_OPT_DRY_RUN:
		c->dry_run = true;
		return 1;
	case CLI_OPT_COLDPLUG:
		c->coldplug = true;
		return 1;
	case CLI_OPT_MODDIR:
		c->moddir = arg;
		return 1;
	case CLI_OPT_SOURCE:
		if (streq(arg, "kernel"))
			c->source = ENGINE_SOURCE_KERNEL;
		else if (streq(arg, "udev"))
			c->source = ENGINE_SOURCE_UDEV;
		else if (streq(arg, "auto"))
			c->source = ENGINE_SOURCE_AUTO;
		else
			return -cli_usage_error("--source %s: expected kernel, "
						"udev or auto",
						arg);
		return 1;
	case CLI_OPT_STRICT:
		c->strict = true;
		return 1;
	case 'q':
		c->quiet = true;
		return 1;
	case 'v':
		c->verbose++;
		return 1;
	}
	return 0;
}

int cli_load_config(const struct cli *c, struct wait_config *cfg)
{
	char err[512];
	int r;

	cmdline_config_init(cfg);
	cfg->strict = c->strict;
	if (c->cmdline)
		r = cmdline_parse(c->cmdline, cfg, err, sizeof(err));
	else
		r = cmdline_parse_file(c->cmdline_file, cfg, err, sizeof(err));
	if (r == -EINVAL) {
		log_err("kernel command line: %s", err);
		return EXIT_USAGE;
	}
	if (r < 0) {
		log_err("%s", err);
		/* a --cmdline-file the user named is a usage error */
		return c->cmdline_file ? EXIT_USAGE : EXIT_SYSTEM;
	}
	return 0;
}

void cli_apply_timeout(const struct cli *c, struct wait_config *cfg)
{
	if (!c->has_timeout)
		return;
	cfg->root_ms = cfg->console_ms = cfg->net_ms = c->timeout_ms;
}

static int add_target(struct engine *e, const char *role, const struct spec *spec,
		      uint64_t timeout_ms)
{
	int r = engine_add_target(e, role, spec, timeout_ms);

	if (r == -EOPNOTSUPP && spec_need(spec) == SPEC_NEED_UDEV &&
	    source_udev_available())
		return cli_usage_error("%s %s: needs the udev source (udevd "
				       "running, or --source udev)",
				       role, spec->text);
	if (r == -EOPNOTSUPP)
		return cli_usage_error("%s %s: needs %s, which this waitdev "
				       "was built without",
				       role, spec->text, spec_need_name(spec_need(spec)));
	if (r < 0)
		return cli_usage_error("%s %s: cannot wait for it: %s", role, spec->text,
				       strerror(-r));
	return 0;
}

static int cli_modload_open(const struct cli *c, struct modload **out)
{
	int r = modload_new(out, c->moddir, NULL, c->dry_run ? MODLOAD_DRY_RUN : 0);

	if (r == -EOPNOTSUPP)
		return cli_usage_error("--modprobe: needs libkmod, which this "
				       "waitdev was built without");
	if (r < 0) {
		/* no module tree is no reason to fail the wait itself */
		log_warn("module loading off: %s: %s",
			 c->moddir ? c->moddir : "/lib/modules", strerror(-r));
		*out = NULL;
	}
	return 0;
}

static void setup_logging(const struct cli *c)
{
	if (c->quiet)
		log_set_level(LOG_LVL_ERR);
	else if (c->verbose == 1)
		log_set_level(LOG_LVL_INFO);
	else if (c->verbose > 1)
		log_set_level(LOG_LVL_DEBUG);
	if (c->kmsg == 1 || (c->kmsg == -1 && log_kmsg_wanted())) {
		int r = log_open_kmsg(NULL);

		if (r < 0 && c->kmsg == 1)
			log_warn("/dev/kmsg: %s", strerror(-r));
	}
}

static int add_targets(struct engine *e, const struct wait_config *cfg, unsigned roles)
{
	unsigned i;
	int r;

	if (roles & CLI_ROLE_ROOT && cfg->has_root) {
		r = add_target(e, "root", &cfg->root, cfg->root_ms);
		if (r)
			return r;
	}
	if (roles & CLI_ROLE_CONSOLE && cfg->has_console) {
		if (cfg->console.type == SPEC_CONSOLE_OTHER) {
			log_notice("console %s is not a tty: not waited for",
				   cfg->console.text);
		} else {
			r = add_target(e, "console", &cfg->console, cfg->console_ms);
			if (r)
				return r;
		}
	}
	for (i = 0; roles & CLI_ROLE_NET && i < cfg->n_net; i++) {
		r = add_target(e, "net", &cfg->net[i], cfg->net_ms);
		if (r)
			return r;
	}
	return 0;
}

int cli_write_result(const char *buf, size_t len)
{
	int r = out_write(STDOUT_FILENO, buf, len, false);

	if (r == 0)
		return 0;
	log_err("standard output: %s",
		r == -EAGAIN ? "no room for the result in time" : strerror(-r));
	return EXIT_SYSTEM;
}

/* The roles whose spec on the kernel command line was malformed: they
 * failed at once (problems logged), the others were waited for. */
static bool invalid_roles(const struct wait_config *cfg, unsigned roles)
{
	bool root = roles & CLI_ROLE_ROOT && cfg->root_invalid;
	bool console = roles & CLI_ROLE_CONSOLE && cfg->console_invalid;

	if (root || console)
		log_err("%s%s%s: malformed on the kernel command line, not waited for",
			root ? "root" : "", root && console ? " and " : "",
			console ? "console" : "");
	return root || console;
}

int cli_run(const struct cli *c, const struct wait_config *cfg, unsigned roles,
	    struct engine **out)
{
	struct engine_options opts = {
		.sysfs_root = c->sysfs,
		.uevent_fd = c->uevent_fd,
		.rcvbuf = c->rcvbuf,
		.source = c->uevent_fd >= 0 ? ENGINE_SOURCE_KERNEL : c->source,
		.coldplug = c->coldplug || cfg->coldplug,
	};
	struct engine *e;
	unsigned i;
	int r;

	*out = NULL;
	setup_logging(c);
	if (c->modprobe || c->dry_run) {
		r = cli_modload_open(c, &opts.modload);
		if (r)
			return r;
	} else if (cfg->modprobe) {
		/* asked for on the kernel command line: the boot goes on
		 * without module loading rather than stop */
		if (!modload_available())
			log_warn(
				"waitdev.modprobe=1: built without libkmod, not loading modules");
		else if (cli_modload_open(c, &opts.modload))
			return EXIT_USAGE;
	}
	/* like the kernel's "Unknown kernel command line parameters" and
	 * "Malformed early option": said, and the boot goes on */
	for (i = 0; i < cfg->n_problems && i < CMDLINE_PROBLEMS_MAX; i++)
		log_err("kernel command line: %s", cfg->problems[i]);
	if (cfg->n_problems > CMDLINE_PROBLEMS_MAX)
		log_err("kernel command line: %u more problems",
			cfg->n_problems - CMDLINE_PROBLEMS_MAX);
	for (i = 0; i < cfg->n_skipped; i++)
		log_info("%s: not a block device or tty, not waited for",
			 cfg->skipped[i]);
	r = engine_new(&e, &opts);
	if (r == -EOPNOTSUPP)
		return cli_usage_error("--source udev: needs libudev, which "
				       "this waitdev was built without");
	if (r < 0) {
		log_err("%s", strerror(-r));
		return EXIT_SYSTEM;
	}
	log_debug("source: %s", engine_uses_udev(e) ? "udev" : "kernel");
	if (engine_uses_udev(e) && !source_udev_running())
		log_warn(
			"--source udev: udevd does not run (nothing listens on /run/udev/control): only its events will be seen, none may come");
	*out = e;
	if (cfg->off) {
		/* the boot's off switch: nothing waited for, nothing missing */
		log_notice("off: waitdev=0 or rd.waitdev=0 on the kernel command line");
		return EXIT_FOUND;
	}
	r = add_targets(e, cfg, roles);
	if (r)
		return r;
	if (engine_target_count(e) == 0)
		log_info("nothing to wait for");
	r = engine_run(e);
	report_stats(e);
	if (r < 0) {
		if (!engine_error_reported(e))
			log_err("wait failed: %s", strerror(-r));
		return EXIT_SYSTEM;
	}
	switch (r) {
	case ENGINE_FOUND:
		if (invalid_roles(cfg, roles))
			return EXIT_TIMEOUT;
		return EXIT_FOUND;
	case ENGINE_DEADLINE:
		report_diagnosis(e);
		return EXIT_TIMEOUT;
	default: /* ENGINE_INTERRUPTED */
		return EXIT_SIGNAL_BASE + engine_signal(e);
	}
}
