// SPDX-License-Identifier: LGPL-2.1-or-later
#include "devclass.h"
#include "util.h"

/* Indexed by enum dev_kind: a new class is a new row here. */
static const struct dev_class *const classes[DEV_KIND_COUNT] = {
	[DEV_BLOCK] = &dev_class_block,
	[DEV_TTY] = &dev_class_tty,
	[DEV_NET] = &dev_class_net,
};

const struct dev_class *dev_class(enum dev_kind kind)
{
	return (unsigned)kind < ARRAY_SIZE(classes) ? classes[kind] : NULL;
}

const struct dev_class *dev_class_of(const char *subsystem)
{
	unsigned i;

	for (i = 0; subsystem && i < ARRAY_SIZE(classes); i++)
		if (classes[i] && streq(classes[i]->subsystem, subsystem))
			return classes[i];
	return NULL;
}

enum dev_kind dev_kind_of(const char *subsystem)
{
	const struct dev_class *c = dev_class_of(subsystem);

	return c ? c->kind : DEV_OTHER;
}

const char *dev_kind_name(enum dev_kind kind)
{
	const struct dev_class *c = dev_class(kind);

	return c ? c->subsystem : "other";
}
