// SPDX-License-Identifier: LGPL-2.1-or-later
/* The waitdev binary: one program, four names (see frontends.h). */
#include <string.h>

#include "frontends.h"
#include "util.h"

/* The programs by the name they answer to; anything else is waitdev. */
static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
} programs[] = {
	{ "rootwait", rootwait_main },
	{ "consolewait", consolewait_main },
	{ "modprobe", modprobe_main },
};

int main(int argc, char **argv)
{
	const char *name = argc > 0 ? strrchr(argv[0], '/') : NULL;

	name = name ? name + 1 : argc > 0 ? argv[0] : "waitdev";
	for (size_t i = 0; i < ARRAY_SIZE(programs); i++)
		if (strcmp(name, programs[i].name) == 0)
			return programs[i].main(argc, argv);
	return waitdev_main(argc, argv);
}
