// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rootwait - wait for the root block device and print its node.
 * SPEC defaults to waitdev.root= or root= from the kernel command line;
 * the deadline follows rootwait, rootwait=, rootdelay= or --timeout.
 */
#include <stdio.h>

#include "frontends.h"
#include "log.h"
#include "options.h"
#include "result.h"
#include "run.h"
#include "util.h"

static void usage(void)
{
	printf("Usage: rootwait [OPTION]... [SPEC]\n"
	       "Wait for the root block device and print its node.\n"
	       "\n"
	       "  SPEC                  /dev/NAME, NAME, MAJ:MIN, PARTLABEL=X, "
	       "...\n"
	       "                        (default: waitdev.root= or root=)\n"
	       "  --timeout S           deadline in seconds, or forever\n" USAGE_OPTIONS_AS_IN_WAITDEV
	       "\n" USAGE_EXIT_STATUS " See rootwait(8).\n");
}

static const struct program_syntax program = {
	.name = "rootwait",
	.usage = usage,
	.spec_role = &role_table[ROLE_ROOT],
};

int rootwait_main(int argc, char **argv)
{
	const struct target *t;
	struct run run;
	int r;

	r = run_start(&run, argc, argv, &program);
	if (r)
		return r < 0 ? EXIT_FOUND : r;
	if (!run.cfg.role[ROLE_ROOT].n && !run.cfg.role[ROLE_ROOT].invalid &&
	    !run.cfg.off)
		return usage_error(
			"no root device named: give SPEC, or root= or waitdev.root= on the kernel command line");
	r = run_wait(&run, ROLE_BIT(ROLE_ROOT));
	/* found, or off (waitdev=0): no target, no node */
	t = run.engine ? engine_target(run.engine, 0) : NULL;
	if (r == EXIT_FOUND && t)
		r = result_print_node(t->node);
	run_end(&run);
	return r;
}
