/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test.h - the few assertion helpers the C tests share. A failed check
 * prints file:line and what differed, and the test binary exits 1 at the
 * end (tests keep going to report every failure at once).
 */
#ifndef WAITDEV_TEST_H
#define WAITDEV_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures;
static int test_checks;

#define CHECK(cond)                                                                      \
	do {                                                                             \
		test_checks++;                                                           \
		if (!(cond)) {                                                           \
			test_failures++;                                                 \
			fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__,       \
				#cond);                                                  \
		}                                                                        \
	} while (0)

#define CHECK_MSG(cond, ...)                                                             \
	do {                                                                             \
		test_checks++;                                                           \
		if (!(cond)) {                                                           \
			test_failures++;                                                 \
			fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__,       \
				#cond);                                                  \
			fprintf(stderr, __VA_ARGS__);                                    \
			fputc('\n', stderr);                                             \
		}                                                                        \
	} while (0)

#define CHECK_INT(a, b)                                                                  \
	do {                                                                             \
		long long _a = (long long)(a), _b = (long long)(b);                      \
		CHECK_MSG(_a == _b, "%s = %lld, expected %lld", #a, _a, _b);             \
	} while (0)

#define CHECK_STR(a, b)                                                                  \
	do {                                                                             \
		const char *_a = (a), *_b = (b);                                         \
		CHECK_MSG(_a &&_b &&strcmp(_a, _b) == 0, "%s = \"%s\", expected \"%s\"", \
			  #a, _a ? _a : "(null)", _b ? _b : "(null)");                   \
	} while (0)

/*
 * Whether upper bounds on durations are asserted: WAITDEV_TIMING=report
 * (meson sets it for sanitizer builds and tools/valgrind's) makes them
 * printed figures, since the tool's own work and a shared machine's load
 * decide them there, not the code under test.
 */
static inline int test_timing_asserted(void)
{
	const char *m = getenv("WAITDEV_TIMING");

	return !m || strcmp(m, "report") != 0;
}

/* @ms (a duration in milliseconds) is at most @bound: asserted or
 * reported, see test_timing_asserted(). */
#define CHECK_WITHIN(ms, bound)                                                          \
	do {                                                                             \
		unsigned long long _ms = (ms), _bound = (bound);                         \
		if (test_timing_asserted())                                              \
			CHECK_MSG(_ms <= _bound, "%s = %llu ms, at most %llu", #ms, _ms, \
				  _bound);                                               \
		else                                                                     \
			fprintf(stderr,                                                  \
				"%s:%d: figure: %s = %llu ms (bound %llu ms, "           \
				"asserted only in the plain build)\n",                   \
				__FILE__, __LINE__, #ms, _ms, _bound);                   \
	} while (0)

/* Prints the summary line and returns the exit status for main(). */
static inline int test_summary(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, test_checks, test_failures);
	return test_failures ? 1 : 0;
}

#endif
