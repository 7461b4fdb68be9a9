/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench.h - what the benchmark helpers pollwait and guest-stamp share. */
#ifndef WAITDEV_BENCH_H
#define WAITDEV_BENCH_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds: the clock every figure is taken in. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A whole decimal argument in [min, max]; 0 or -1. */
static inline int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

#endif
