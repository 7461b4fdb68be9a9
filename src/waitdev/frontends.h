/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * frontends.h - the programs' entry points. Each is its own executable
 * in a normal build; the waitdev binary also answers to the others'
 * names (argv[0]), so an initramfs needs one file and three links, and
 * to "modprobe" so that the kernel's module requests (for the root
 * filesystem, say) are served by the same libkmod.
 */
#ifndef WAITDEV_FRONTENDS_H
#define WAITDEV_FRONTENDS_H

/* Exit statuses shared by waitdev, rootwait and consolewait. */
enum {
	EXIT_FOUND = 0,
	EXIT_TIMEOUT = 1,
	EXIT_USAGE = 2,
	EXIT_SYSTEM = 3,
	EXIT_SIGNAL_BASE = 128,
};

int waitdev_main(int argc, char **argv);
int rootwait_main(int argc, char **argv);
int consolewait_main(int argc, char **argv);
int modprobe_main(int argc, char **argv);

#endif
