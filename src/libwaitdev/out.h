/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * out.h - writing to a descriptor without being held by it.
 *
 * A flow-controlled serial console, or a pipe nobody reads, can stop a
 * write(2) for as long as it likes; a boot helper must not stop with it.
 * The log's lines (log.c) and the programs' result go out through
 * out_write(): it waits for room (poll(2)) only until a given time, then
 * gives up with -EAGAIN. How long each may wait is its caller's to say.
 */
#ifndef WAITDEV_OUT_H
#define WAITDEV_OUT_H

#include <stddef.h>
#include <stdint.h>

/* How long a write may wait for room when no deadline allows longer. */
#define OUT_GRACE_MS 100

/*
 * Writes all of @buf to @fd, in pieces of at most PIPE_BUF bytes, each
 * after poll(2) says there is room, waiting for it until @until_ms
 * (CLOCK_MONOTONIC ms) at the latest. Returns 0, -EAGAIN (no room in
 * time; part may be written), -EPIPE (no reader: SIGPIPE is ignored, see
 * startup.h) or another -errno.
 */
int out_write(int fd, const void *buf, size_t len, uint64_t until_ms);

#endif
