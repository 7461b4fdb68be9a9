/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report.h - what a wait has to say about itself, through the log
 * (stderr, and /dev/kmsg with --kmsg): on a failed wait the diagnosis,
 * what is missing and what was seen instead, so that a typo in root= is
 * obvious; and the counters of the wait. The result a program prints on
 * stdout is the program's (src/waitdev/result.h).
 */
#ifndef WAITDEV_REPORT_H
#define WAITDEV_REPORT_H

#include "engine.h"

/* Logs each missing target and the devices of its kind that were seen. */
void report_diagnosis(const struct engine *e);

/*
 * Why @t, not found, is not: true when a device matches its spec but is
 * not ready, the likeliest cause (no medium in the reader, no
 * filesystem, link down): *@dev (when not NULL) is that device and @buf
 * says why, names escaped ("sdz has no medium (size 0)"); false when
 * none matches (missing).
 */
bool report_not_ready(const struct engine *e, const struct target *t,
		      const struct device **dev, char *buf, size_t size);

/* Logs the counters (datagrams, drops, rescans, wakeups) at info level. */
void report_stats(const struct engine *e);

#endif
