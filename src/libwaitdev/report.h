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

/* Logs the counters (datagrams, drops, rescans, wakeups) at info level. */
void report_stats(const struct engine *e);

#endif
