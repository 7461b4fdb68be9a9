// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * waitdev - wait for the root block device, the console tty and network
 * interfaces named on the kernel command line (or with --root, --console,
 * --net), in parallel, and return the moment they are there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontends.h"
#include "log.h"
#include "options.h"
#include "result.h"
#include "run.h"
#include "util.h"

static void usage(void)
{
	printf("Usage: waitdev [OPTION]...\n"
	       "Wait for the devices the kernel command line names, or those "
	       "given here.\n"
	       "\n"
	       "  --root SPEC           root block device (/dev/sda1, "
	       "PARTLABEL=x, 8:1, ...)\n"
	       "  --console SPEC        console tty (ttyS0, ttyUSB0,115200n8, "
	       "...)\n"
	       "  --net SPEC[,SPEC]     interface: name, glob, MAC or any, "
	       "[:up|:carrier]\n"
	       "  --resume SPEC         resume (hibernation) block device, "
	       "as --root\n"
	       "  --stack SPEC[,SPEC]   block devices a stacked root is made "
	       "of (LUKS, PVs, md)\n"
	       "  --timeout S           one deadline for everything (seconds "
	       "or forever)\n"
	       "  --cmdline STRING      parse STRING instead of /proc/cmdline\n"
	       "  --cmdline-file FILE   parse FILE instead of /proc/cmdline\n"
	       "  --strict              a bad kernel parameter is an error, "
	       "not logged and ignored\n"
	       "  --format FMT          plain (default), shell or json\n"
	       "  --kmsg, --no-kmsg     also log to /dev/kmsg (default: in an "
	       "initramfs)\n"
	       "  --source SRC          kernel, udev or auto (default: udev if "
	       "udevd runs)\n"
	       "  --modprobe            load the drivers uevents ask for "
	       "(needs "
	       "libkmod)\n"
	       "  --dry-run             log what --modprobe would load, load "
	       "nothing\n"
	       "  --moddir DIR          module directory (default "
	       "/lib/modules/$(uname -r))\n"
	       "  --coldplug            if something is missing, replay "
	       "\"add\" "
	       "uevents\n"
	       "  --settle              give up a block or network target "
	       "once USB has\n"
	       "                        settled without it (kernel series)\n"
	       "  -q, --quiet           only errors\n"
	       "  -v, --verbose         more detail (twice: debug)\n"
	       "  -h, --help            this text\n"
	       "      --version         the version and the back ends built "
	       "in\n"
	       "\n"
	       "Testing: --sysfs DIR, --uevent-fd N, --rcvbuf BYTES.\n"
	       "Exit: 0 all found, 1 deadline passed or a bad spec on the kernel\n"
	       "command line, 2 usage (or --strict), 3 system error, 128+N killed by signal N. See waitdev(8), "
	       "waitdev(7).\n");
}

/* --ROLE SPEC options, in the order given */
#define SPECS_GIVEN_MAX 64
struct specs {
	unsigned n;
	struct {
		const struct role *role;
		const char *text;
	} given[SPECS_GIVEN_MAX];
};

/* waitdev's own options: what to wait for. */
static int specs_option(void *ctx, int opt, const char *arg)
{
	const struct role *role = role_get(opt - OPT_ROLE);
	struct specs *s = ctx;

	if (opt < OPT_ROLE || !role)
		return 0;
	if (s->n == SPECS_GIVEN_MAX)
		return -usage_error("--%s: more than %d specs given", role->name,
				    SPECS_GIVEN_MAX);
	s->given[s->n].role = role;
	s->given[s->n++].text = arg;
	return 1;
}

/* Command-line specs replace the kernel's, all of them. */
static int apply_specs(const struct specs *s, struct wait_config *cfg)
{
	char option[32];
	unsigned i;

	if (!s->n)
		return 0;
	for (i = 0; i < ROLE_COUNT; i++)
		options_clear_role(cfg, role_get(i));
	cfg->n_skipped = 0;
	for (i = 0; i < s->n; i++) {
		snprintf(option, sizeof(option), "--%s", s->given[i].role->name);
		if (options_add_spec(cfg, s->given[i].role, option, s->given[i].text))
			return EXIT_USAGE;
	}
	return 0;
}

/*
 * --format json asks for a JSON document whatever the ending, a usage
 * error too; so it is looked for before the options are parsed (and
 * one of them is perhaps what is wrong). The last --format wins.
 */
static bool wants_json(int argc, char **argv)
{
	bool json = false;
	int i;

	for (i = 1; i < argc && !streq(argv[i], "--"); i++) {
		if (streq(argv[i], "--format") && i + 1 < argc)
			json = streq(argv[++i], "json");
		else if (strncmp(argv[i], "--format=", 9) == 0)
			json = streq(argv[i] + 9, "json");
	}
	return json;
}

/* The result on stdout: found or timeout in every format, any other
 * ending in JSON only. */
static int print_result(struct run *run, bool json, int status)
{
	bool error = status == EXIT_USAGE || status == EXIT_SYSTEM;
	char line[1024] = "";
	struct result_end end = {
		.status = status,
		/* after an error the config may be half read */
		.cfg = error ? NULL : &run->cfg,
		.roles = ROLES_ALL,
	};
	int w;

	if (!json && status != EXIT_FOUND && status != EXIT_TIMEOUT)
		return status;
	if (error) {
		log_last_error(line, sizeof(line));
		end.error = line;
	}
	/* an error: no wait ran to its end, no target to report */
	w = result_print(json ? RESULT_JSON : run->opts.format,
			 error ? NULL : run->engine, &end);
	return w ? w : status;
}

int waitdev_main(int argc, char **argv)
{
	struct specs specs = { 0 };
	struct program_syntax program = {
		.name = "waitdev",
		.usage = usage,
		.option = specs_option,
		.ctx = &specs,
	};
	bool json = wants_json(argc, argv);
	uint64_t done_ns;
	struct run run;
	int r;

	r = run_start(&run, argc, argv, &program);
	if (r < 0)
		return EXIT_FOUND; /* --help, --version */
	if (!r)
		r = apply_specs(&specs, &run.cfg);
	if (r) {
		r = print_result(&run, json, r);
		run_end(&run);
		return r;
	}
	r = run_wait(&run, ROLES_ALL);
	r = print_result(&run, json, r);
	/* the deadline test's "exit", on waitdev's own clock */
	done_ns = now_ns();
	log_debug("done at %llu.%03llu ms (CLOCK_MONOTONIC)",
		  (unsigned long long)(done_ns / 1000000),
		  (unsigned long long)(done_ns / 1000 % 1000));
	run_end(&run);
	return r;
}
