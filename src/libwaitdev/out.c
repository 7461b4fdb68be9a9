// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <unistd.h>

#include "deadline.h"
#include "out.h"
#include "util.h"

static uint64_t out_deadline = DEADLINE_NEVER;
/* a log write gave up: the next ones do not wait (a stuck console costs
 * OUT_GRACE_MS once, not per line); libkmod's worker logs too */
static bool log_stuck;

void out_set_deadline(uint64_t at_ms)
{
	out_deadline = at_ms;
}

/* How long the next piece may wait for room, in ms for poll(). */
static int wait_ms(uint64_t until)
{
	uint64_t now = now_ms();

	return until > now ? (int)(until - now) : 0;
}

int out_write(int fd, const void *buf, size_t len, bool is_log)
{
	const char *p = buf;
	bool stuck = is_log && __atomic_load_n(&log_stuck, __ATOMIC_RELAXED);
	uint64_t until = now_ms() + (stuck ? 0 : OUT_GRACE_MS);

	/* "forever" has no end to wait for: a signal must still end the wait,
	 * and the signals are blocked (engine_wait_signals()) */
	if (!is_log && out_deadline != DEADLINE_NEVER && out_deadline > until)
		until = out_deadline;
	while (len > 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		size_t n = len < PIPE_BUF ? len : PIPE_BUF;
		ssize_t w;
		int r;

		r = poll(&pfd, 1, wait_ms(until));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0) {
			if (is_log)
				__atomic_store_n(&log_stuck, true, __ATOMIC_RELAXED);
			return -EAGAIN;
		}
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
	if (is_log)
		__atomic_store_n(&log_stuck, false, __ATOMIC_RELAXED);
	return 0;
}
