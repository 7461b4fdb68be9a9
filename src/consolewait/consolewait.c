// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * consolewait - wait for the console tty; with "-- CMD ARGS...", reopen
 * stdin, stdout and stderr on it and exec CMD. This is the userspace half
 * of the 2009 "wait for console" patch: programs inherited from init get
 * a standard input, output and error even when the console (a USB-serial
 * adapter, say) registers after /init started.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "frontends.h"
#include "log.h"
#include "options.h"
#include "result.h"
#include "run.h"
#include "startup.h"
#include "util.h"

#define NODE_MAX 256

static void usage(void)
{
	printf("Usage: consolewait [OPTION]... [SPEC] [-- CMD [ARG]...]\n"
	       "Wait for the console tty; print it, or run CMD on it.\n"
	       "\n"
	       "  SPEC                  ttyS0, ttyUSB0,115200n8, /dev/hvc0, "
	       "...\n"
	       "                        (default: waitdev.console= or the last "
	       "tty console=)\n"
	       "  --timeout S           deadline in seconds, or forever\n"
	       "                        (default: consolewait, "
	       "consoledelay=MS, or 1 s)\n" USAGE_OPTIONS_AS_IN_WAITDEV "\n"
	       "Without the tty by the deadline, CMD runs anyway on the inherited\n"
	       "stdio and /dev/kmsg says so.\n" USAGE_EXIT_STATUS
	       " See consolewait(8).\n");
}

static const struct program_syntax program = {
	.name = "consolewait",
	.usage = usage,
	.spec_role = &role_table[ROLE_CONSOLE],
};

/* Makes @node the stdin, stdout and stderr of this process. */
static int reopen_stdio(const char *node)
{
	/* O_NONBLOCK: a serial port without CLOCAL would block the open
	 * until carrier; CMD gets a blocking descriptor all the same */
	int fd = open(node, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	int i, fl;

	if (fd < 0)
		return -errno;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	/*
	 * Above 2: dup2(fd, fd) does nothing, O_CLOEXEC would stay and CMD
	 * would start without that descriptor (startup_fds() makes this
	 * rare, not impossible: /dev/null may be missing).
	 */
	fd = fd_above_stdio(fd);
	if (fd < 0)
		return fd;
	for (i = 0; i < 3; i++) {
		if (dup2(fd, i) < 0) {
			int r = -errno;

			close(fd);
			return r;
		}
	}
	close(fd);
	return 0;
}

/* The deadline passed: say so where a boot log is kept. */
static void kmsg_no_console(const char *spec, const char *cmd)
{
	if (log_open_kmsg(NULL) < 0)
		return;
	/* the boot log gets this line even with -q */
	if (log_get_level() < LOG_LVL_WARN)
		log_set_level(LOG_LVL_WARN);
	log_warn("console %s did not appear: running %s on the inherited stdio", spec,
		 cmd);
}

/* @node is the tty found, or NULL when the deadline passed. */
static int run_cmd(const char *node, const char *spec, char **cmd)
{
	int r;

	if (node) {
		r = reopen_stdio(node);
		if (r < 0)
			log_err("%s: %s: running %s on the inherited stdio", node,
				strerror(-r), cmd[0]);
	} else if (spec) {
		kmsg_no_console(spec, cmd[0]);
	}
	startup_restore();
	execvp(cmd[0], cmd);
	log_err("%s: %s", cmd[0], strerror(errno));
	return EXIT_SYSTEM;
}

/*
 * Parses the options and waits. Returns the exit status, or -1 after
 * --help or --version. On success @node holds the tty; @spec holds the
 * console waited for, empty if none was. *@bad_input is set when the
 * options, SPEC or the kernel command line are wrong: consolewait(8)
 * ends then without running CMD, as for any other usage error.
 */
static int wait_console(int argc, char **argv, char *node, char *spec, bool *bad_input)
{
	const struct wait_config *cfg;
	struct run run;
	int r;

	*bad_input = true;
	r = run_start(&run, argc, argv, &program);
	if (r)
		return r;
	cfg = &run.cfg;
	/* from here on, what fails is the boot's problem, not the caller's
	 * words: CMD runs all the same */
	*bad_input = false;
	if (!cfg->role[ROLE_CONSOLE].n && !cfg->role[ROLE_CONSOLE].invalid && !cfg->off)
		return usage_error(
			"no console named: give SPEC, or console= or waitdev.console= on the kernel command line");
	if (cfg->role[ROLE_CONSOLE].n &&
	    cfg->role[ROLE_CONSOLE].spec[0].type == SPEC_CONSOLE_OTHER)
		return usage_error("console %s is not a tty",
				   cfg->role[ROLE_CONSOLE].spec[0].text);
	if (!cfg->off) /* off: CMD runs on the inherited stdio, nothing said */
		strscpy(spec, cfg->role[ROLE_CONSOLE].spec[0].text, SPEC_VALUE_MAX);
	r = run_wait(&run, ROLE_BIT(ROLE_CONSOLE));
	/* found, or off (waitdev=0): no target, no node */
	if (r == EXIT_FOUND && engine_target(run.engine, 0))
		strscpy(node, engine_target(run.engine, 0)->node, NODE_MAX);
	/* the signals stay blocked: run_cmd() restores the mask for CMD;
	 * /dev/kmsg stays open for what CMD's start has to say */
	engine_free(run.engine);
	return r;
}

int consolewait_main(int argc, char **argv)
{
	char spec[SPEC_VALUE_MAX] = "", node[NODE_MAX] = "";
	bool bad_input = false;
	char **cmd = NULL;
	int r, i;

	/* everything after "--" is CMD: hide it from getopt (nothing but
	 * the log before run_start()) */
	for (i = 1; i < argc; i++) {
		if (streq(argv[i], "--")) {
			cmd = argv + i + 1;
			argc = i;
			argv[i] = NULL;
			break;
		}
	}
	log_set_program("consolewait");
	if (cmd && !cmd[0])
		return usage_error("--: no command after it");
	r = wait_console(argc, argv, node, spec, &bad_input);
	if (r < 0)
		return EXIT_FOUND;
	/* only bad input or a signal stops CMD: whatever else failed, the
	 * boot goes on */
	if (cmd && !bad_input && r < EXIT_SIGNAL_BASE) {
		/* back only when CMD could not be executed */
		r = run_cmd(node[0] ? node : NULL, spec[0] ? spec : NULL, cmd);
		log_close_kmsg();
		return r;
	}
	if (r == EXIT_FOUND && node[0])
		r = result_print_node(node);
	log_close_kmsg();
	return r;
}
