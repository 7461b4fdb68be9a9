// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-blkstat.c - sysfs_parse_blkstat(): a block device's "stat" file
 * (Documentation/block/stat.rst), as the probe children read it before
 * and after each probe. The kernel writes 11, 15 or 17 right-aligned
 * fields; anything else is refused, never half-read.
 */
#include <errno.h>
#include <stdint.h>

#include "sysfs.h"
#include "test.h"

struct ok_case {
	const char *text;
	uint64_t reads, merges, sectors;
};

static const struct ok_case ok_cases[] = {
	/* Linux 6.1, 17 fields, part_stat_show()'s %8lu padding */
	{ "     183       12     7906      101        0        0        0        0"
	  "        0      164      101        0        0        0        0        0"
	  "        0\n",
	  183, 12, 7906 },
	/* 15 fields (4.18 - 5.4) */
	{ "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n", 1, 2, 3 },
	/* 11 fields (before 4.18), no newline */
	{ "4 0 24 0 0 0 0 0 0 0 0", 4, 0, 24 },
	/* a fresh device: all zero */
	{ "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", 0, 0, 0 },
	/* tabs are blanks too; the largest value */
	{ "18446744073709551615\t0 1 0 0 0 0 0 0 0 0\n", UINT64_MAX, 0, 1 },
	/* more fields than today's kernels write: the first ones count */
	{ "5 6 7 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", 5, 6, 7 },
};

struct bad_case {
	const char *text;
	int err;
};

static const struct bad_case bad_cases[] = {
	{ "", -EINVAL },
	{ "\n", -EINVAL },
	{ "1 2 3\n", -EINVAL },			    /* too few fields */
	{ "1 2 3 4 5 6 7 8 9 10\n", -EINVAL },	    /* 10 */
	{ "1 2 x 4 5 6 7 8 9 10 11\n", -EINVAL },   /* not a number */
	{ "1 2 3a 4 5 6 7 8 9 10 11\n", -EINVAL },  /* trailing junk */
	{ "-1 2 3 4 5 6 7 8 9 10 11\n", -EINVAL },  /* signed */
	{ "+1 2 3 4 5 6 7 8 9 10 11\n", -EINVAL },  /* strtoul would take it */
	{ "0x1 2 3 4 5 6 7 8 9 10 11\n", -EINVAL }, /* hex */
	{ "1 2 3 4 5 6 7 8 9 10 11\n\n", -EINVAL }, /* two lines */
	{ "1 2 3 4 5 6\n7 8 9 10 11\n", -EINVAL },  /* a newline inside */
	{ "1 2 3 4 5 6 7 8 9 10 11\r\n", -EINVAL }, /* not a blank */
	{ "18446744073709551616 0 1 0 0 0 0 0 0 0 0\n", -ERANGE }, /* 2^64 */
	{ "99999999999999999999999 0 1 0 0 0 0 0 0 0 0\n", -ERANGE },
};

int main(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(ok_cases) / sizeof(ok_cases[0]); i++) {
		const struct ok_case *c = &ok_cases[i];
		struct sysfs_blkstat st = { 7, 7, 7 };

		CHECK_MSG(sysfs_parse_blkstat(c->text, &st) == 0, "case %u: refused", i);
		CHECK_MSG(st.reads == c->reads && st.read_merges == c->merges &&
				  st.read_sectors == c->sectors,
			  "case %u: read %llu %llu %llu", i, (unsigned long long)st.reads,
			  (unsigned long long)st.read_merges,
			  (unsigned long long)st.read_sectors);
	}
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct sysfs_blkstat st = { 7, 7, 7 };
		int r = sysfs_parse_blkstat(c->text, &st);

		CHECK_MSG(r == c->err, "bad case %u: %d, expected %d", i, r, c->err);
		/* refused: nothing half-read */
		CHECK_MSG(st.reads == 7 && st.read_merges == 7 && st.read_sectors == 7,
			  "bad case %u: the result was written", i);
	}
	return test_summary("test-blkstat");
}
