/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report.h - what the programs print: the result on stdout (plain, shell
 * or JSON), and on a failed wait the diagnosis on stderr/kmsg: what is
 * missing and what was seen instead, so that a typo in root= is obvious.
 */
#ifndef WAITDEV_REPORT_H
#define WAITDEV_REPORT_H

#include <stdio.h>

#include "engine.h"

enum report_format {
	REPORT_PLAIN = 0,
	REPORT_SHELL,
	REPORT_JSON,
};

/* 0, or -EINVAL for anything but "plain", "shell" and "json". */
int report_parse_format(const char *s, enum report_format *fmt);

/* Prints every target's outcome in @fmt; returns 0 or -EIO. */
int report_result(FILE *out, enum report_format fmt, const struct engine *e);

/* Logs each missing target and the devices of its kind that were seen. */
void report_diagnosis(const struct engine *e);

/* Logs the counters (datagrams, drops, rescans, wakeups) at debug level. */
void report_stats(const struct engine *e);

/* Writes @s single-quoted for a POSIX shell. */
void report_shell_quote(FILE *out, const char *s);

#endif
