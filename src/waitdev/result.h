/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * result.h - what the programs print on stdout when a wait ended: each
 * found target in plain, shell or JSON form (waitdev), or the one node
 * found (rootwait, consolewait). Formatted in memory, then written
 * without blocking past the end of the wait (out.h); nothing else of the
 * programs goes to stdout but --help and --version.
 */
#ifndef WAITDEV_RESULT_H
#define WAITDEV_RESULT_H

#include <stdio.h>

#include "cmdline.h"
#include "engine.h"

enum result_format {
	RESULT_PLAIN = 0, /* "ROLE NODE" per found target, names escaped */
	RESULT_SHELL,	  /* WAITDEV_ROOT=... for eval, each value quoted */
	RESULT_JSON,	  /* one object: status and every target */
};

/* 0, or -EINVAL for anything but "plain", "shell" and "json". */
int result_parse_format(const char *s, enum result_format *fmt);

/*
 * How a wait ended, for the result to say: JSON reports every ending
 * (the programs print plain and shell only for found and timeout).
 */
struct result_end {
	int status;		       /* the exit status the program chose */
	const char *error;	       /* a usage or system error's line, or NULL */
	const struct wait_config *cfg; /* its roles failed at once, or NULL */
	unsigned roles;		       /* the roles waited for (ROLE_BIT()) */
};

/*
 * Prints every target's outcome in @fmt to @out; returns 0 or -EIO. @e
 * may be NULL (no wait ran: no targets); @end NULL: found or timeout, as
 * the targets say.
 */
int result_fprint(FILE *out, enum result_format fmt, const struct engine *e,
		  const struct result_end *end);

/*
 * The end of the wait @e ran (the latest deadline of its targets, set by
 * engine_run()): until then the result may wait for room on stdout, at
 * least OUT_GRACE_MS, and no longer when a target waits forever (a
 * signal must still end the program, and the signals are blocked).
 */
void result_set_deadline(const struct engine *e);

/*
 * Prints the result of @e in @fmt, or the line "NODE\n", on stdout. 0, or
 * EXIT_SYSTEM after logging why (no room before the deadline, no reader,
 * no memory).
 */
int result_print(enum result_format fmt, const struct engine *e,
		 const struct result_end *end);
int result_print_node(const char *node);

#endif
