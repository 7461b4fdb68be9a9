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
	       "  --cmdline STRING, --cmdline-file FILE, --kmsg, --no-kmsg,\n"
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
	char err[256];
	struct cli c;
	int opt, r;

	cli_init(&c, "rootwait");
	opterr = 0;
	while ((opt = getopt_long(argc, argv, CLI_COMMON_SHORT_OPTIONS,
				  cli_options, NULL)) != -1) {
		r = cli_option(&c, opt, optarg);
		if (r < 0)
			return -r;
		if (r > 0)
			continue;
		if (opt == 'h') {
			usage();
			return EXIT_FOUND;
		}
		if (opt == CLI_OPT_VERSION) {
			cli_print_version("rootwait");
			return EXIT_FOUND;
		}
		return cli_foreign_option("rootwait", opt, argv[optind - 1]);
	}
	if (argc - optind > 1)
		return cli_usage_error("%s: only one SPEC (see --help)",
				       argv[optind + 1]);
	r = cli_load_config(&c, &cfg);
	if (r)
		return r;
	if (optind < argc) {
		if (spec_parse_block(argv[optind], &cfg.root, err,
				     sizeof(err)) < 0)
			return cli_usage_error("%s: %s", argv[optind], err);
		cfg.has_root = true;
	}
	if (!cfg.has_root)
		return cli_usage_error("no root device named: give SPEC, or "
				       "root= or waitdev.root= on the kernel "
				       "command line");
	cli_apply_timeout(&c, &cfg);
	r = cli_run(&c, &cfg, CLI_ROLE_ROOT, &e);
	t = e ? engine_target(e, 0) : NULL;
	if (r == EXIT_FOUND && t && printf("%s\n", t->node) < 0)
		r = EXIT_SYSTEM;
	if (fflush(stdout) != 0)
		r = EXIT_SYSTEM;
	engine_free(e);
	log_close_kmsg();
	return r;
}
