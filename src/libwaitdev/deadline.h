/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * deadline.h - the one timer of the event loop: a CLOCK_MONOTONIC timerfd
 * armed at an absolute time, so that neither a slow iteration nor a change
 * of the wall clock moves the deadline, and nothing ever sleeps.
 */
#ifndef WAITDEV_DEADLINE_H
#define WAITDEV_DEADLINE_H

#include <stdint.h>

#define DEADLINE_NEVER UINT64_MAX

/* A non-blocking, close-on-exec timerfd, or a negative errno. */
int deadline_open(void);
/* Arms @fd to fire at @at_ms (CLOCK_MONOTONIC ms); DEADLINE_NEVER disarms. */
int deadline_arm(int fd, uint64_t at_ms);
/* Consumes an expiry; 0 or a negative errno (-EAGAIN when none). */
int deadline_ack(int fd);

#endif
