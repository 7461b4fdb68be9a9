// SPDX-License-Identifier: LGPL-2.1-or-later
/* The udev source of a build without libudev. */
#include <errno.h>

#include "source.h"

int source_open_udev(struct source **out, int rcvbuf)
{
	(void)rcvbuf;
	*out = NULL;
	return -EOPNOTSUPP;
}

bool source_udev_available(void)
{
	return false;
}
