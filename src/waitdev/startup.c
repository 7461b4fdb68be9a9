// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "startup.h"

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
