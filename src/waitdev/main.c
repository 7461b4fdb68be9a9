// SPDX-License-Identifier: LGPL-2.1-or-later
/* The waitdev binary: one program, four names (see frontends.h). */
#include <string.h>

#include "frontends.h"

int main(int argc, char **argv)
{
	const char *name = argc > 0 ? strrchr(argv[0], '/') : NULL;

	name = name ? name + 1 : argc > 0 ? argv[0] : "waitdev";
	if (strcmp(name, "rootwait") == 0)
		return rootwait_main(argc, argv);
	if (strcmp(name, "consolewait") == 0)
		return consolewait_main(argc, argv);
	if (strcmp(name, "modprobe") == 0)
		return modprobe_main(argc, argv);
	return waitdev_main(argc, argv);
}
