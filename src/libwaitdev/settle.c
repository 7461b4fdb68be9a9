// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "settle.h"

int settle_open(int sysfs_dirfd)
{
	int fd = openat(sysfs_dirfd, SETTLE_ATTR, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int settle_read(int fd)
{
	char buf[64], *last;
	ssize_t n;

	/* sysfs shows the value afresh at offset 0, and a read there is
	 * what clears POLLPRI until the next change */
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0 && errno == ESPIPE)
		n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return -errno;
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	/* the last of what a FIFO holds; sysfs shows one line */
	last = strrchr(buf, '\n');
	last = last ? last + 1 : buf;
	if (!strcmp(last, "settled"))
		return 1;
	if (!strcmp(last, "busy"))
		return 0;
	return -EINVAL;
}
