/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * log.h - the one place waitdev writes diagnostics.
 *
 * Lines go to stderr and, when enabled, to /dev/kmsg with a "waitdev: "
 * prefix so that the boot log in dmesg shows what was waited for, when it
 * came and how long the wait took.
 */
#ifndef WAITDEV_LOG_H
#define WAITDEV_LOG_H

#include <stdbool.h>
#include <stddef.h>

enum log_level {
	LOG_LVL_ERR = 3, /* same numbers as the kernel's KERN_* */
	LOG_LVL_WARN = 4,
	LOG_LVL_NOTICE = 5,
	LOG_LVL_INFO = 6,
	LOG_LVL_DEBUG = 7,
};

/* Program name used as the prefix of stderr lines. */
void log_set_program(const char *name);
/* Lines above @level are dropped (stderr and kmsg alike). */
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* Opens /dev/kmsg (or @path, for tests); returns 0 or a negative errno. */
int log_open_kmsg(const char *path);
void log_close_kmsg(void);
/* The /dev/kmsg descriptor, -1 when closed: one a child that logs keeps. */
int log_kmsg_fd(void);
/*
 * True when waitdev looks like it runs in an initramfs on behalf of PID 1:
 * stderr is not a terminal, our parent (or we) is PID 1 and /dev/kmsg is
 * writable. Used to pick the --kmsg default.
 */
bool log_kmsg_wanted(void);

/*
 * Tests and fuzzing: every line (escaped, without the program name and
 * the newline) goes to @fn instead of stderr and kmsg; NULL restores
 * them. Not thread-safe: set it before anything logs.
 */
void log_set_sink(void (*fn)(void *ctx, enum log_level level, const char *line),
		  void *ctx);

/* The last line logged at LOG_LVL_ERR or above into @buf, "" for none. */
void log_last_error(char *buf, size_t size);

void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_err(...) log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_LVL_NOTICE, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

#endif
