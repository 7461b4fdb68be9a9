// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stddef.h>

#include "role.h"

const struct role role_table[ROLE_COUNT] = {
	[ROLE_ROOT] = {
		.id = ROLE_ROOT,
		.name = "root",
		.shell_var = "WAITDEV_ROOT",
		.alternatives = true,
		.default_ms = DEFAULT_ROOT_MS,
		.parse = spec_parse_block,
	},
	[ROLE_CONSOLE] = {
		.id = ROLE_CONSOLE,
		.name = "console",
		.shell_var = "WAITDEV_CONSOLE",
		.default_ms = DEFAULT_CONSOLE_MS,
		.parse = spec_parse_console,
	},
	[ROLE_NET] = {
		.id = ROLE_NET,
		.name = "net",
		.shell_var = "WAITDEV_NET",
		.list = true,
		.default_ms = DEFAULT_NET_MS,
		.parse = spec_parse_net,
	},
	/* only when named: waitdev.resume= or --resume, not the kernel's
	 * resume= (which an initramfs acts on only when it resumes) */
	[ROLE_RESUME] = {
		.id = ROLE_RESUME,
		.name = "resume",
		.shell_var = "WAITDEV_RESUME",
		.default_ms = DEFAULT_RESUME_MS,
		.parse = spec_parse_block,
	},
	/* only when named: waitdev.stack= or --stack. The devices a root
	 * on dm-crypt, LVM or md needs before cryptsetup, lvm or mdadm can
	 * assemble it (a LUKS container, the PVs, an md member): a hook
	 * names them and waits for them instead of the root, which only
	 * those tools make, after the wait. */
	[ROLE_STACK] = {
		.id = ROLE_STACK,
		.name = "stack",
		.shell_var = "WAITDEV_STACK",
		.list = true,
		.default_ms = DEFAULT_STACK_MS,
		.parse = spec_parse_block,
	},
};

const struct role *role_get(enum role_id id)
{
	return (unsigned)id < ROLE_COUNT ? &role_table[id] : NULL;
}
