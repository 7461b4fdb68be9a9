// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pollwait - the polling loop waitdev replaces, for the latency benchmark.
 *
 *   pollwait INTERVAL_MS /dev/NAME TIMEOUT_S
 *
 * loops { if /sys/class/block/NAME/size > 0, exit 0; sleep INTERVAL_MS }
 * and exits 1 once TIMEOUT_S have passed, 2 on a usage error.  That is the
 * shape of Debian initramfs-tools' local_device_setup (1 s steps),
 * tiny-initramfs (50 ms) and the kernel's own rootwait (5 ms).  Like them it
 * re-reads the attribute from scratch each round (open, read, close).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* The size in 512-byte sectors; 0 if absent or unreadable. */
static unsigned long long read_size(const char *path)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

int main(int argc, char **argv)
{
	long interval_ms, timeout_s;
	struct timespec step;
	char path[PATH_MAX];
	const char *name;
	uint64_t deadline;

	if (argc != 4 || parse_long(argv[1], 1, 3600000, &interval_ms) < 0 ||
	    parse_long(argv[3], 0, 86400, &timeout_s) < 0) {
		fprintf(stderr, "usage: pollwait INTERVAL_MS /dev/NAME "
				"TIMEOUT_S\n");
		return 2;
	}
	name = strrchr(argv[2], '/');
	name = name ? name + 1 : argv[2];
	if (!*name || snprintf(path, sizeof(path), "/sys/class/block/%s/size", name) >=
			      (int)sizeof(path)) {
		fprintf(stderr, "pollwait: %s: bad device name\n", argv[2]);
		return 2;
	}
	step.tv_sec = interval_ms / 1000;
	step.tv_nsec = (interval_ms % 1000) * 1000000L;
	deadline = now_ns() + (uint64_t)timeout_s * 1000000000u;

	for (;;) {
		if (read_size(path) > 0)
			return 0;
		if (now_ns() >= deadline)
			return 1;
		nanosleep(&step, NULL);
	}
}
