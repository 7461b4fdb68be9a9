// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * modprobe - the entry point the kernel calls (/proc/sys/kernel/modprobe,
 * "modprobe -q -- fs-ext4") when it needs a module, e.g. the root
 * filesystem's driver and its checksum, answered with waitdev's libkmod
 * instead of a second module loader in the initramfs. Loads each NAME
 * (module name or alias) with its dependencies; exit 0 when all loaded.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "frontends.h"
#include "log.h"
#include "startup.h"
#include "modload.h"
#include "util.h"

static void usage(void)
{
	printf("Usage: modprobe [-q] [-v] [-n] [-d DIR] [--] NAME...\n"
	       "Load kernel modules by name or alias (waitdev's libkmod).\n");
}

int modprobe_main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "dirname", required_argument, NULL, 'd' },
		{ "all", no_argument, NULL, 'a' },
		{ "use-blacklist", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dirname = NULL;
	struct modload *ml;
	unsigned flags = 0;
	int opt, r, status = 0;

	startup_fds();
	log_set_program("modprobe");
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "qvnd:abh", options, NULL)) != -1) {
		switch (opt) {
		case 'q':
			log_set_level(LOG_LVL_ERR - 1); /* silent */
			break;
		case 'v':
			log_set_level(LOG_LVL_INFO);
			break;
		case 'n':
			flags |= MODLOAD_DRY_RUN;
			break;
		case 'd':
			dirname = optarg;
			break;
		case 'a':
		case 'b':
			break; /* always so: several names, blacklist applies */
		case 'h':
			usage();
			return EXIT_FOUND;
		default:
			log_err("%s: unknown option", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		log_err("no module named");
		return EXIT_USAGE;
	}
	r = modload_new(&ml, dirname, NULL, flags);
	if (r < 0) {
		log_err("cannot load modules: %s",
			r == -EOPNOTSUPP ? "built without libkmod" : strerror(-r));
		return 1;
	}
	for (; optind < argc; optind++) {
		r = modload_now(ml, argv[optind]);
		if (r < 0) {
			log_err("%s: %s", argv[optind],
				r == -ENOENT ? "no such module" : strerror(-r));
			status = 1;
		}
	}
	modload_free(ml);
	return status;
}
