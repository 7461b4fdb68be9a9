// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frontends.h"

int main(int argc, char **argv)
{
	return consolewait_main(argc, argv);
}
