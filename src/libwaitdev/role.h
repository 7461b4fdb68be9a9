/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * role.h - what a wait is for, as one table: the root filesystem's block
 * device, the console's tty, the network interfaces, the block device
 * a hibernated system resumes from, and the block devices a stacked root
 * (dm-crypt, LVM, md) is assembled from. A role's row says
 * how it is named (the --NAME option, the waitdev.NAME= key, the log and
 * the JSON "role"), how its specs are parsed, whether it takes a list,
 * its default deadline and the shell variable --format shell sets.
 *
 * A new role is a value below, a row in role.c and, when the kernel has
 * a key of its own for it (root=, console=), its reading in cmdline.c;
 * options, targets, results and diagnosis go by this table.
 */
#ifndef WAITDEV_ROLE_H
#define WAITDEV_ROLE_H

#include <stdbool.h>
#include <stdint.h>

#include "spec.h"

enum role_id {
	ROLE_ROOT = 0,
	ROLE_CONSOLE,
	ROLE_NET,
	ROLE_RESUME,
	ROLE_STACK,
	ROLE_COUNT,
};

/* Default deadlines: a root without rootwait= (the kernel's own waits
 * forever; a boot that never finds its root should say so), the 2009
 * console patch's second, a network link's usual half minute, and for a
 * resume device, which most boots do without, a short while: a missing
 * one must not hold the boot up. */
#define DEFAULT_ROOT_MS (180 * 1000)
#define DEFAULT_CONSOLE_MS 1000
#define DEFAULT_NET_MS (30 * 1000)
#define DEFAULT_RESUME_MS (5 * 1000)
/* The bottom of a stacked root is waited for as the root is: its
 * deadline is the root's (rootwait=, rootdelay=, this default). */
#define DEFAULT_STACK_MS DEFAULT_ROOT_MS

/* A set of roles (run_wait()'s): ROLE_BIT(ROLE_ROOT) | ... */
#define ROLE_BIT(id) (1u << (id))
#define ROLES_ALL ((1u << ROLE_COUNT) - 1)

struct role {
	enum role_id id;
	/* "root": the option --root, the key waitdev.root=, the log */
	const char *name;
	/* what --format shell sets to the device(s) found: WAITDEV_ROOT */
	const char *shell_var;
	/* takes a comma-separated list of specs (waitdev.net=a,b) */
	bool list;
	/* takes alternatives, best first, of which the first there is
	 * taken (waitdev.root=LABEL=stick|/dev/vda1; not the kernel's
	 * root=, which names one device) */
	bool alternatives;
	/* ms, when neither the command line nor --timeout says */
	uint64_t default_ms;
	/* parses one spec of the role: 0, or -EINVAL with why in @err */
	int (*parse)(const char *text, struct spec *spec, char *err, unsigned errsize);
};

/* The rows, by id (role_table[ROLE_ROOT]). */
extern const struct role role_table[ROLE_COUNT];
/* The row of @id; NULL out of range. */
const struct role *role_get(enum role_id id);

#endif
