// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <unistd.h>

#include "out.h"
#include "util.h"

/* How long the next piece may wait for room, in ms for poll(). */
static int wait_ms(uint64_t until)
{
	uint64_t now = now_ms();

	return until > now ? (int)(until - now) : 0;
}

int out_write(int fd, const void *buf, size_t len, uint64_t until_ms)
{
	const char *p = buf;

	while (len > 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		size_t n = len < PIPE_BUF ? len : PIPE_BUF;
		ssize_t w;
		int r;

		r = poll(&pfd, 1, wait_ms(until_ms));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EAGAIN;
		if (pfd.revents & POLLNVAL)
			return -EBADF;
		/* POLLERR (a pipe without reader): write() says which error */
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}
