// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rootwait - wait for the root block device and print its node.
 * SPEC defaults to waitdev.root= or root= from the kernel command line;
 * the deadline follows rootwait, rootwait=, rootdelay= or --timeout.
 */
#include <stdio.h>

#include "cli.h"
#include "frontends.h"
#include "log.h"
#include "startup.h"
#include "util.h"

static void usage(void)
{
	printf("Usage: rootwait [OPTION]... [SPEC]\n"
	       "Wait for the root block device and print its node.\n"
	       "\n"
	       "  SPEC                  /dev/NAME, NAME, MAJ:MIN, PARTLABEL=X, "
	       "...\n"
	       "                        (default: waitdev.root= or root=)\n"
	       "  --timeout S           deadline in seconds, or forever\n"
	       "  --cmdline STRING, --cmdline-file FILE, --strict, --kmsg, --no-kmsg,\n"
	       "  --source SRC, --modprobe, --dry-run, --moddir DIR, "
	       "--coldplug,\n"
	       "  -q, -v, -h, --version as in waitdev(8)\n"
	       "\n"
	       "Exit: 0 found, 1 deadline passed, 2 usage or bad spec,\n"
	       "3 system error, 128+N killed by signal N. See rootwait(8).\n");
}

int rootwait_main(int argc, char **argv)
{
	struct wait_config cfg;
	struct engine *e = NULL;
	const struct target *t;
	const char *arg;
	char err[256];
	struct cli c;
	int r;

	static const struct cli_program program = {
		.name = "rootwait",
		.usage = usage,
		.takes_spec = true,
	};

	startup_fds();
	startup_signals();
	cli_init(&c, "rootwait");
	r = cli_parse(&c, argc, argv, &program, &arg);
	if (r)
		return r < 0 ? EXIT_FOUND : r;
	r = cli_load_config(&c, &cfg);
	if (r)
		return r;
	if (arg) {
		if (spec_parse_block(arg, &cfg.root, err, sizeof(err)) < 0)
			return cli_usage_error("%s: %s", arg, err);
		cfg.has_root = true;
		cfg.root_invalid = false;
	}
	if (!cfg.has_root && !cfg.root_invalid && !cfg.off)
		return cli_usage_error("no root device named: give SPEC, or "
				       "root= or waitdev.root= on the kernel "
				       "command line");
	cli_apply_timeout(&c, &cfg);
	r = cli_run(&c, &cfg, CLI_ROLE_ROOT, &e);
	t = e ? engine_target(e, 0) : NULL;
	if (r == EXIT_FOUND && t) {
		char line[sizeof(t->node) + 1];
		int n = snprintf(line, sizeof(line), "%s\n", t->node);

		r = cli_write_result(line, (size_t)n);
	}
	engine_free(e);
	log_close_kmsg();
	return r;
}
