// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "out.h"
#include "util.h"

static const char *log_program = "waitdev";
static enum log_level log_level = LOG_LVL_NOTICE;
static int kmsg_fd = -1;
static void (*log_sink)(void *ctx, enum log_level level, const char *line);
static void *log_sink_ctx;

void log_set_sink(void (*fn)(void *ctx, enum log_level level, const char *line),
		  void *ctx)
{
	log_sink = fn;
	log_sink_ctx = ctx;
}

/* stderr lines out_write() gave up on, not yet said */
static unsigned long log_dropped;
/* a stderr write gave up: the next ones do not wait (a stuck console
 * costs OUT_GRACE_MS once, not per line); libkmod's worker logs too */
static bool log_stuck;

void log_set_program(const char *name)
{
	log_program = name;
}

void log_set_level(enum log_level level)
{
	__atomic_store_n(&log_level, level, __ATOMIC_RELAXED);
}

enum log_level log_get_level(void)
{
	return __atomic_load_n(&log_level, __ATOMIC_RELAXED);
}

int log_open_kmsg(const char *path)
{
	int fd = open(path ? path : "/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	fd = fd_above_stdio(fd);
	if (fd < 0)
		return fd;
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	kmsg_fd = fd;
	return 0;
}

int log_kmsg_fd(void)
{
	return kmsg_fd;
}

void log_close_kmsg(void)
{
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	kmsg_fd = -1;
}

bool log_kmsg_wanted(void)
{
	if (isatty(STDERR_FILENO))
		return false;
	if (getpid() != 1 && getppid() != 1)
		return false;
	return access("/dev/kmsg", W_OK) == 0;
}

/*
 * One line to stderr, unless it has no room (a stalled console): then the
 * line is dropped and counted, and the next line that gets through says
 * how many were lost. Never a reason to stop or fail the wait.
 */
static void log_stderr(const char *line, int n)
{
	unsigned long lost = __atomic_exchange_n(&log_dropped, 0, __ATOMIC_RELAXED);
	char buf[1200];
	bool stuck;
	int len = 0, r;

	if (lost)
		len = snprintf(buf, sizeof(buf),
			       "%s: (%lu log lines dropped: stderr had no "
			       "room)\n",
			       log_program, lost);
	len += snprintf(buf + len, sizeof(buf) - (size_t)len, "%s: %.*s\n", log_program,
			n, line);
	if ((size_t)len >= sizeof(buf)) {
		len = sizeof(buf) - 1;
		buf[len - 1] = '\n';
	}
	stuck = __atomic_load_n(&log_stuck, __ATOMIC_RELAXED);
	r = out_write(STDERR_FILENO, buf, (size_t)len,
		      now_ms() + (stuck ? 0 : OUT_GRACE_MS));
	if (r == 0 || r == -EAGAIN)
		__atomic_store_n(&log_stuck, r == -EAGAIN, __ATOMIC_RELAXED);
	if (r < 0)
		__atomic_add_fetch(&log_dropped, lost + 1, __ATOMIC_RELAXED);
}

/* the last error line, for a result that has to say it (log_last_error()) */
static char last_error[1024];

void log_last_error(char *buf, size_t size)
{
	strscpy(buf, last_error, size);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	char raw[1024], line[1024];
	va_list ap;
	int saved = errno;
	int n;

	if (level > log_get_level())
		return;
	va_start(ap, fmt);
	n = vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (n < 0)
		goto out;
	/* a diagnostic is one line, even quoting a hostile command line,
	 * and even if cut */
	escape_controls(raw, line, sizeof(line));
	n = (int)strlen(line);
	if (level <= LOG_LVL_ERR)
		memcpy(last_error, line, (size_t)n + 1);
	if (log_sink) {
		log_sink(log_sink_ctx, level, line);
		goto out;
	}
	log_stderr(line, n);
	if (kmsg_fd >= 0) {
		char rec[1100];
		/* the kernel takes "<N>" as the record's level */
		int len = snprintf(rec, sizeof(rec), "<%d>%s: %.*s\n", level, log_program,
				   n, line);

		/* the log is best effort: never fail the wait over it */
		if (len > 0 && write(kmsg_fd, rec, (size_t)len) < 0)
			errno = saved;
	}
out:
	errno = saved;
}
