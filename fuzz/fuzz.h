/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz.h - what the fuzz targets share: the libFuzzer entry point and an
 * invariant check that aborts, so libFuzzer (and the regression runner)
 * report a broken invariant like a crash, with the input that broke it.
 */
#ifndef WAITDEV_FUZZ_H
#define WAITDEV_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                 \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__,       \
				__LINE__, #cond);                                        \
			abort();                                                         \
		}                                                                        \
	} while (0)

/* Is [p, p + n) inside [lo, hi)? */
static inline int fuzz_inside(const void *p, size_t n, const void *lo, const void *hi)
{
	const char *c = p, *l = lo, *h = hi;

	return c >= l && c <= h && n <= (size_t)(h - c);
}

/* Is @s a string inside [lo, hi) whose NUL is inside it too? */
static inline int fuzz_string_inside(const char *s, const void *lo, const void *hi)
{
	const char *l = lo, *h = hi;

	return s >= l && s < h && memchr(s, '\0', (size_t)(h - s)) != NULL;
}

/* An error message: one line, no control character (escape_controls()). */
static inline int fuzz_message_is_clean(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

#endif
