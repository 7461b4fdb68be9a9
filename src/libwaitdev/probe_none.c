// SPDX-License-Identifier: LGPL-2.1-or-later
/* The probe back end of a build without libblkid. */
#include <errno.h>

#include "probe.h"

const char *probe_backend(void)
{
	return "none";
}

bool probe_available(void)
{
	return false;
}

int probe_block(struct device *dev, const char *node, const struct probe_request *req)
{
	(void)dev;
	(void)node;
	(void)req;
	return -EOPNOTSUPP;
}

void probe_warm(const struct probe_request *req)
{
	(void)req;
}
