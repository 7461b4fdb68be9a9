/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cli.h - what waitdev, rootwait and consolewait share: the common
 * options, reading the kernel command line, turning a config into engine
 * targets, running the wait and reporting its outcome.
 */
#ifndef WAITDEV_CLI_H
#define WAITDEV_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "cmdline.h"
#include "engine.h"
#include "frontends.h"
#include "report.h"

enum {
	CLI_ROLE_ROOT = 1 << 0,
	CLI_ROLE_CONSOLE = 1 << 1,
	CLI_ROLE_NET = 1 << 2,
};

struct cli {
	const char *cmdline;	  /* --cmdline STRING */
	const char *cmdline_file; /* --cmdline-file FILE */
	const char *sysfs;	  /* --sysfs DIR */
	int uevent_fd;		  /* --uevent-fd N, -1 */
	int rcvbuf;		  /* --rcvbuf BYTES, 0 */
	bool has_timeout;
	uint64_t timeout_ms; /* --timeout S */
	enum report_format format;
	int verbose;
	bool quiet;
	int kmsg;		   /* -1 auto, 0 off, 1 on */
	bool modprobe;		   /* --modprobe (or waitdev.modprobe=1) */
	bool dry_run;		   /* --dry-run: say what would load */
	bool coldplug;		   /* --coldplug (or waitdev.coldplug=1) */
	const char *moddir;	   /* --moddir DIR */
	enum engine_source source; /* --source */
	bool strict;		   /* --strict: a bad kernel parameter is fatal */
};

/* Long options every front end takes; ids above 256. */
enum {
	CLI_OPT_TIMEOUT = 0x100,
	CLI_OPT_CMDLINE,
	CLI_OPT_CMDLINE_FILE,
	CLI_OPT_FORMAT,
	CLI_OPT_KMSG,
	CLI_OPT_NO_KMSG,
	CLI_OPT_SYSFS,
	CLI_OPT_UEVENT_FD,
	CLI_OPT_RCVBUF,
	CLI_OPT_VERSION,
	CLI_OPT_MODPROBE,
	CLI_OPT_DRY_RUN,
	CLI_OPT_COLDPLUG,
	CLI_OPT_MODDIR,
	CLI_OPT_SOURCE,
	CLI_OPT_STRICT,
	CLI_OPT_ROOT,
	CLI_OPT_CONSOLE,
	CLI_OPT_NET,
};

/*
 * Every long option of the three programs (getopt_long's table); those
 * that are not common (--root, --console, --net) are waitdev's alone and
 * the other front ends reject them.
 */
extern const struct option cli_options[];

#define CLI_COMMON_SHORT_OPTIONS "qvh"

void cli_init(struct cli *c, const char *program);

/*
 * Handles one common option. Returns 1 when handled, 0 when @opt is not
 * a common one, or -EXIT_USAGE after printing a one-line error.
 */
int cli_option(struct cli *c, int opt, const char *arg);

/* Reads the kernel command line (or --cmdline/--cmdline-file) into @cfg:
 * tolerant (its problems are logged by cli_run()), or with --strict the
 * first problem is fatal. Returns 0 or an exit status after printing why. */
int cli_load_config(const struct cli *c, struct wait_config *cfg);

/* Applies --timeout to every kind of @cfg. */
void cli_apply_timeout(const struct cli *c, struct wait_config *cfg);

/*
 * Runs the wait for the roles in @roles of @cfg and returns the exit
 * status (EXIT_FOUND at once, no target added, when @cfg is off; EXIT_TIMEOUT also when one of those roles had a malformed spec
 * on the kernel command line: it failed at once, the others were waited
 * for); *@out keeps the engine for printing the result (free it with
 * engine_free(), which also restores the signal mask).
 */
int cli_run(const struct cli *c, const struct wait_config *cfg, unsigned roles,
	    struct engine **out);

/*
 * Writes the result to stdout through out_write(): 0, or EXIT_SYSTEM
 * after logging why (no room before the deadline, no reader, ...).
 */
int cli_write_result(const char *buf, size_t len);

/* Prints "PROGRAM VERSION (probe: X, modload: Y, udev source: yes|no)". */
void cli_print_version(const char *program);

/* What a front end adds to the common options. */
struct cli_program {
	const char *name;
	void (*usage)(void);
	/* its own options: 1 handled, 0 not its own, or an exit status
	 * (negated) after printing an error; NULL for none */
	int (*option)(void *ctx, int opt, const char *arg);
	void *ctx;
	bool takes_spec; /* at most one SPEC argument */
};

/*
 * The whole option loop of a front end: -1 after --help (usage printed)
 * or --version, EXIT_USAGE after an error, 0 otherwise; then @spec points
 * at the SPEC argument or is NULL.
 */
int cli_parse(struct cli *c, int argc, char **argv, const struct cli_program *p,
	      const char **spec);

/*
 * The error for an option @program does not take: @opt as getopt_long
 * returned it, @arg the word it stopped at. Returns EXIT_USAGE.
 */
int cli_foreign_option(const char *program, int opt, const char *arg);

/* The "program: error" line for usage errors; returns EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
