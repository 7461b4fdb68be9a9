// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdint.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "deadline.h"

int deadline_open(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int deadline_arm(int fd, uint64_t at_ms)
{
	struct itimerspec its = { 0 };

	if (at_ms != DEADLINE_NEVER) {
		its.it_value.tv_sec = (time_t)(at_ms / 1000);
		its.it_value.tv_nsec = (long)(at_ms % 1000) * 1000000L;
		/* zero would disarm: a deadline at 0 ms is already past */
		if (at_ms == 0)
			its.it_value.tv_nsec = 1;
	}
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return -errno;
	return 0;
}

int deadline_ack(int fd)
{
	uint64_t expirations;

	if (read(fd, &expirations, sizeof(expirations)) < 0)
		return -errno;
	return 0;
}
