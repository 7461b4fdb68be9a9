// SPDX-License-Identifier: LGPL-2.1-or-later
/* The module-loading back end of a build without libkmod. */
#include <errno.h>
#include <stddef.h>

#include "modload.h"

const char *modload_backend(void)
{
	return "none";
}

bool modload_available(void)
{
	return false;
}

int modload_new(struct modload **out, const char *dirname, const char *const *config,
		unsigned flags)
{
	(void)dirname;
	(void)config;
	(void)flags;
	*out = NULL;
	return -EOPNOTSUPP;
}

void modload_free(struct modload *ml)
{
	(void)ml;
}

void modload_drain(struct modload *ml)
{
	(void)ml;
}

bool modload_idle(struct modload *ml)
{
	(void)ml;
	return true;
}

int modload_report_fd(const struct modload *ml)
{
	(void)ml;
	return -1;
}

struct modload_stats modload_stats(struct modload *ml)
{
	struct modload_stats s = { 0 };

	(void)ml;
	return s;
}

int modload_request(struct modload *ml, const char *modalias)
{
	(void)ml;
	(void)modalias;
	return -EOPNOTSUPP;
}

int modload_now(struct modload *ml, const char *name)
{
	(void)ml;
	(void)name;
	return -EOPNOTSUPP;
}
