// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "startup.h"

static sigset_t startup_mask; /* the mask the program started with */
static bool startup_mask_saved;
static struct sigaction startup_sigpipe;
static bool startup_sigpipe_saved;

void startup_fds(void)
{
	int fd;

	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		int nfd;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* no O_CLOEXEC: it is the stdio CMD inherits too */
		nfd = open("/dev/null", O_RDWR | O_NOCTTY);
		/* an initramfs without /dev/null still gets a placeholder */
		if (nfd < 0)
			nfd = open("/", O_PATH | O_DIRECTORY);
		if (nfd < 0)
			return;
		/* the lowest free number, so @fd; dup2() in case it is not */
		if (nfd != fd) {
			dup2(nfd, fd);
			close(nfd);
		}
	}
}

void startup_signals(void)
{
	sigset_t set;

	struct sigaction ign = { .sa_handler = SIG_IGN };

	engine_wait_signals(&set);
	startup_mask_saved = sigprocmask(SIG_BLOCK, &set, &startup_mask) == 0;
	/* a reader gone is EPIPE, handled where the write is (out.h) */
	startup_sigpipe_saved = sigaction(SIGPIPE, &ign, &startup_sigpipe) == 0;
}

void startup_restore(void)
{
	static const struct timespec now;
	sigset_t set;

	/* an ignored signal stays ignored across exec: give CMD its own */
	if (startup_sigpipe_saved)
		sigaction(SIGPIPE, &startup_sigpipe, NULL);
	if (!startup_mask_saved)
		return;
	engine_wait_signals(&set);
	/* the outcome stands: a signal after it does not reach CMD either */
	while (sigtimedwait(&set, NULL, &now) > 0)
		;
	sigprocmask(SIG_SETMASK, &startup_mask, NULL);
}
