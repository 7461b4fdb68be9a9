/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * options.h - the command line of waitdev, rootwait and consolewait: the
 * options they share and each program's own, parsed into struct options,
 * and the wait_config they ask for (the kernel command line or --cmdline,
 * SPEC arguments, --timeout). Every error is one line on the log and an
 * exit status (EXIT_USAGE, or EXIT_SYSTEM when /proc/cmdline cannot be
 * read); nothing here waits, opens a socket or looks at a device. What
 * runs the wait is run.h.
 */
#ifndef WAITDEV_OPTIONS_H
#define WAITDEV_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "cmdline.h"
#include "engine.h"
#include "result.h"

struct options {
	const char *cmdline;	  /* --cmdline STRING */
	const char *cmdline_file; /* --cmdline-file FILE */
	const char *sysfs;	  /* --sysfs DIR */
	const char *moddir;	  /* --moddir DIR */
	int uevent_fd;		  /* --uevent-fd N, -1 */
	int rcvbuf;		  /* --rcvbuf BYTES, 0 */
	bool has_timeout;
	uint64_t timeout_ms; /* --timeout S */
	enum result_format format;
	int verbose;
	/* getopt_long() sets these (its flag pointers): ints */
	int quiet;
	int kmsg;		   /* -1 auto, 0 off, 1 on */
	int modprobe;		   /* --modprobe (or waitdev.modprobe=1) */
	int dry_run;		   /* --dry-run: say what would load */
	int coldplug;		   /* --coldplug (or waitdev.coldplug=1) */
	int settle;		   /* --settle (or waitdev.settle=1) */
	int strict;		   /* --strict: a bad kernel parameter is fatal */
	enum engine_source source; /* --source */
};

/* The options a program has beyond the common ones: --ROLE (role.h) is
 * OPT_ROLE + its id. */
enum {
	OPT_ROLE = 0x100,
};

/* The --help lines rootwait and consolewait share. */
#define USAGE_OPTIONS_AS_IN_WAITDEV                                                      \
	"  --cmdline STRING, --cmdline-file FILE, --strict, --kmsg, --no-kmsg,\n"        \
	"  --source SRC, --modprobe, --dry-run, --moddir DIR, --coldplug, --settle,\n"   \
	"  -q, -v, -h, --version as in waitdev(8)\n"
#define USAGE_EXIT_STATUS                                                                \
	"Exit: 0 found, 1 deadline passed, 2 usage or bad spec,\n"                       \
	"3 system error, 128+N killed by signal N."

/* What a program adds to the common options. */
struct program_syntax {
	const char *name;
	void (*usage)(void);
	/* its own options (OPT_ROOT, ...): 1 handled, 0 not its own, or an
	 * exit status (negated) after logging an error; NULL for none */
	int (*option)(void *ctx, int opt, const char *arg);
	void *ctx;
	/* the role of the one SPEC argument it takes (in place of the
	 * kernel command line's), NULL for none */
	const struct role *spec_role;
};

/*
 * Parses @argv into @o and names the program in the log; then reads the
 * kernel command line (or --cmdline, --cmdline-file) into @cfg, with the
 * SPEC argument in place of its spec of that role, and --timeout applied
 * to every role. The kernel command line is read tolerantly (its problems
 * stay in @cfg for run_wait() to log), or with --strict its first problem
 * is fatal. Returns -1 after --help (usage printed) or --version, an
 * exit status after a one-line error, 0 otherwise.
 */
int options_read(struct options *o, struct wait_config *cfg, int argc, char **argv,
		 const struct program_syntax *p);

/*
 * Parses @text as @role's spec (a comma-separated list for a role that
 * takes one) into @cfg, which then waits for it: added to the list, or
 * in place of the one spec of a role without a list. @option is the
 * option that gave it ("--root") or NULL for a SPEC argument. 0, or
 * EXIT_USAGE after a one-line error.
 */
int options_add_spec(struct wait_config *cfg, const struct role *role, const char *option,
		     const char *text);

/* Forgets what the kernel command line said of @role (its specs, a
 * malformed one): options give it now. */
void options_clear_role(struct wait_config *cfg, const struct role *role);

/* Logs the one-line error of a usage error; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
