/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmdline.h - the kernel command line: tokenising with the kernel's own
 * quoting rules and turning the keys waitdev understands into a config.
 *
 * Keys: waitdev=0|1 and rd.waitdev=0|1 (the off switch), waitdev.root=
 * (else root=), waitdev.console= (else the last
 * console= naming a tty), waitdev.net=, waitdev.timeout=,
 * waitdev.modprobe=, waitdev.coldplug=, waitdev.settle=, rootwait,
 * rootwait=, rootdelay=, rootfstype=, consolewait, consoledelay=. Everything after a
 * bare "--" belongs to init and is ignored. Single-valued keys: the last
 * one wins, as in the kernel.
 *
 * The kernel's own keys are read the way the kernel of our bases reads
 * them (the functions are cited where each is parsed): blanks are its
 * isspace() (lib/ctype.c, which counts 0xA0), rootdelay= is
 * simple_strtoul(, 0), rootwait= kstrtoint(, 0) with an invalid value
 * meaning "forever", console= is decoded by console_setup().
 *
 * Tolerant by default, like the kernel, which reports a bad parameter and
 * boots on: a malformed value or an unknown waitdev.* key is kept in
 * @problems and ignored; a malformed root or console spec marks that
 * target invalid (it fails, the others are still waited for). With
 * @strict the first problem ends the parse with -EINVAL; with
 * waitdev.strict=1 on the line, the whole line is read and then its
 * first problem is the -EINVAL.
 */
#ifndef WAITDEV_CMDLINE_H
#define WAITDEV_CMDLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "role.h"
#include "spec.h"

#define CMDLINE_MAX (64 * 1024) /* far above any COMMAND_LINE_SIZE */
#define CMDLINE_LIST_MAX 16	/* specs of a role that takes a list */
#define CMDLINE_SKIPPED_MAX 8
#define CMDLINE_PROBLEMS_MAX 8
#define CMDLINE_PROBLEM_LEN 256
#define CMDLINE_FSTYPES_MAX 256 /* rootfstype=: its value and a NUL */

#define DEADLINE_FOREVER UINT64_MAX

/* What the command line names for one role (role.h). */
struct role_config {
	/* specs named: at most 1 unless the role takes a list */
	unsigned int n;
	struct spec spec[CMDLINE_LIST_MAX];
	uint64_t ms; /* relative timeout, DEADLINE_FOREVER for none */
	/* a malformed spec on the kernel command line: the role's wait
	 * fails at once (tolerant parse); spec[0].text holds it as given
	 * (n stays 0), @why says why ("root=UUID=x: ..."), as the
	 * problem did */
	bool invalid;
	char why[CMDLINE_PROBLEM_LEN];
	/* spec[0..n-1] are alternatives of one target, best first
	 * (SPEC|SPEC..., a role with role->alternatives): the first that
	 * is there once those before it are known not to come is taken */
	bool alternatives;
	/* given as an option (--root, SPEC), not by the kernel command
	 * line: what is wrong with it is a usage error */
	bool from_options;
	/* invalid, not for its form but because this waitdev cannot wait
	 * for it (a library or source it lacks; set by the program) */
	bool unsupported;
};

struct wait_config {
	struct role_config role[ROLE_COUNT];

	bool has_timeout; /* waitdev.timeout= bounds everything */
	uint64_t timeout_ms;

	/* rootfstype=: the only filesystem types the kernel will try to
	 * mount the root as, comma-separated ("" for any): the probe need
	 * not look for others (fs_names_setup(), init/do_mounts.c) */
	char rootfstype[CMDLINE_FSTYPES_MAX];

	/* waitdev.modprobe=0|1, waitdev.coldplug=0|1, waitdev.settle=0|1
	 * (give up a block or net target once USB settled without it) */
	bool modprobe, coldplug, settle;
	/* the last waitdev= or rd.waitdev= is 0: wait for nothing */
	bool off;

	/* Non-tty console= values, reported and skipped. */
	unsigned int n_skipped;
	char skipped[CMDLINE_SKIPPED_MAX][SPEC_VALUE_MAX];

	/* Input: stop at the first problem (--strict). */
	bool strict;
	/* Output of a tolerant parse: every problem counted, the first
	 * CMDLINE_PROBLEMS_MAX kept, each a one-line message naming the
	 * key and saying what was done instead ("ignored", "read as ...") */
	unsigned int n_problems;
	char problems[CMDLINE_PROBLEMS_MAX][CMDLINE_PROBLEM_LEN];
};

/* Sets every field to "nothing named", the default timeouts, tolerant. */
void cmdline_config_init(struct wait_config *cfg);

/*
 * Splits the next parameter off @args like the kernel's next_arg():
 * whitespace separates, double quotes group (and are removed), the value
 * follows the first '='. Modifies @args in place. Returns the rest of the
 * string, NULL at the end. @param is never NULL on success; @val is NULL
 * for a key without '='.
 */
char *cmdline_next_arg(char *args, char **param, char **val);

/*
 * Parses a whole command line into @cfg. Returns 0 (problems, if any, in
 * @cfg->problems), or with @cfg->strict or waitdev.strict=1 and a problem
 * -EINVAL and a one-line message naming the key in @err. Keys of other subsystems are ignored. A line
 * too long is -EINVAL in both modes: nothing of it was read.
 */
int cmdline_parse(const char *text, struct wait_config *cfg, char *err, unsigned errsize);

/*
 * Parses a comma-separated list of @role's specs (the value of
 * waitdev.net=, --net) into @rc, replacing what was there; "" is none.
 * -EINVAL for a role without a list. @key names it in messages.
 */
int cmdline_parse_list(const struct role *role, const char *key, const char *val,
		       struct role_config *rc, char *err, unsigned errsize);

/*
 * Parses @val into @rc: alternatives separated by '|' when @role takes
 * them (rc->alternatives, at most CMDLINE_LIST_MAX), else one spec.
 * -EINVAL with why in @err (the caller names the key or option).
 */
int cmdline_parse_alternatives(const struct role *role, const char *val,
			       struct role_config *rc, char *err, unsigned errsize);

/* Sets every role's timeout to @ms (waitdev.timeout=, --timeout). */
void cmdline_set_timeout(struct wait_config *cfg, uint64_t ms);

/* Reads @path (default /proc/cmdline) and parses it. -errno on I/O
 * errors (message in @err). */
int cmdline_parse_file(const char *path, struct wait_config *cfg, char *err,
		       unsigned errsize);

#endif
