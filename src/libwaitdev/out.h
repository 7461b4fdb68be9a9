/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * out.h - writing to stdout and stderr without being held by them.
 *
 * A flow-controlled serial console, or a pipe nobody reads, can stop a
 * write(2) for as long as it likes; a boot helper must not stop with it.
 * Every line of the log and the result go out through out_write(): it
 * waits for room (poll(2)) only so long, then gives up with -EAGAIN.
 */
#ifndef WAITDEV_OUT_H
#define WAITDEV_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How long a write may wait for room when no deadline allows longer. */
#define OUT_GRACE_MS 100

/*
 * The end of the wait (CLOCK_MONOTONIC ms, DEADLINE_NEVER for none): the
 * result on stdout may wait for room until then. Set by engine_run().
 */
void out_set_deadline(uint64_t at_ms);

/*
 * Writes all of @buf to @fd, in pieces of at most PIPE_BUF bytes, each
 * after poll(2) says there is room. The result (stdout) may wait until
 * the deadline; the log (stderr, @is_log) only OUT_GRACE_MS, and after a
 * log write gave up, not at all until one gets through again. Returns 0,
 * -EAGAIN (no room in time; part may be written), -EPIPE (no reader:
 * SIGPIPE is ignored, see startup.h) or another -errno.
 */
int out_write(int fd, const void *buf, size_t len, bool is_log);

#endif
