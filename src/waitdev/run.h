/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * run.h - one wait of a program, from its start to its end: the start-up
 * hygiene of startup.h and the options of options.h (run_start()); then
 * the log's settings, a module loader and an engine with a target for
 * each role asked for, engine_run(), and its outcome as the program's
 * exit status (run_wait()). A deadline's diagnosis goes to the log
 * (report.h); the result on stdout is the caller's to print (result.h)
 * from the engine kept here, before run_end().
 */
#ifndef WAITDEV_RUN_H
#define WAITDEV_RUN_H

#include "cmdline.h"
#include "engine.h"
#include "options.h"

struct run {
	struct options opts;
	struct wait_config cfg;
	struct engine *engine; /* from run_wait() on; NULL before */
};

/*
 * What every wait program does first: the start-up hygiene of startup.h,
 * then options_read() into @run, whose result it returns (-1 after
 * --help or --version, an exit status after an error, 0 to go on).
 */
int run_start(struct run *run, int argc, char **argv, const struct program_syntax *p);

/*
 * Waits for the targets of @run's wait_config whose role is in @roles
 * (enum wait_role). Returns the exit status (frontends.h): EXIT_FOUND
 * (at once, no target added, when the wait_config is off), EXIT_TIMEOUT
 * (also when one of those roles had a malformed spec on the kernel
 * command line: it failed at once, the others were waited for),
 * EXIT_USAGE (a spec this build or source cannot wait for), EXIT_SYSTEM,
 * or EXIT_SIGNAL_BASE + N after signal N. The engine stays in @run, NULL
 * if none was made; it has no target when off.
 */
int run_wait(struct run *run, unsigned roles);

/*
 * Frees the engine, which also restores the signal mask (to blocked:
 * startup.h), and closes /dev/kmsg.
 */
void run_end(struct run *run);

#endif
