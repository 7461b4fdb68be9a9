// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <string.h>

#include "frontends.h"
#include "log.h"
#include "modload.h"
#include "report.h"
#include "result.h"
#include "run.h"
#include "source.h"
#include "startup.h"
#include "util.h"

/* Why engine_add_target() refused @spec (@r < 0) into @why; returns @r. */
static int add_target_error(int r, const struct role *role, const struct spec *spec,
			    char *why, size_t size)
{
	if (r == -EOPNOTSUPP && spec_need(spec) == SPEC_NEED_UDEV &&
	    source_udev_available())
		parse_error(
			why, size,
			"%s %s: needs the udev source (udevd running, or --source udev)",
			role->name, spec->text);
	else if (r == -EOPNOTSUPP)
		parse_error(why, size,
			    "%s %s: needs %s, which this waitdev was built without",
			    role->name, spec->text, spec_need_name(spec_need(spec)));
	else if (r < 0)
		parse_error(why, size, "%s %s: cannot wait for it: %s", role->name,
			    spec->text, strerror(-r));
	return r;
}

/* Adds @spec as a target of @role: 0, or -errno with why in @why. */
static int add_target(struct engine *e, const struct role *role, const struct spec *spec,
		      uint64_t timeout_ms, char *why, size_t size)
{
	return add_target_error(engine_add_target(e, role, spec, timeout_ms), role, spec,
				why, size);
}

static int open_modload(const struct options *o, struct modload **out)
{
	int r = modload_new(out, o->moddir, NULL, o->dry_run ? MODLOAD_DRY_RUN : 0);

	if (r == -EOPNOTSUPP)
		return usage_error(
			"--modprobe: needs libkmod, which this waitdev was built without");
	if (r < 0) {
		/* no module tree is no reason to fail the wait itself */
		log_warn("module loading off: %s: %s",
			 o->moddir ? o->moddir : "/lib/modules", strerror(-r));
		*out = NULL;
	}
	return 0;
}

static void setup_logging(const struct options *o)
{
	if (o->quiet)
		log_set_level(LOG_LVL_ERR);
	else if (o->verbose == 1)
		log_set_level(LOG_LVL_INFO);
	else if (o->verbose > 1)
		log_set_level(LOG_LVL_DEBUG);
	if (o->kmsg == 1 || (o->kmsg == -1 && log_kmsg_wanted())) {
		int r = log_open_kmsg(NULL);

		if (r < 0 && o->kmsg == 1)
			log_warn("/dev/kmsg: %s", strerror(-r));
	}
}

/*
 * The targets of @roles. A spec this wait cannot take (it needs a library
 * or source it lacks) is a usage error when given as an option or with
 * --strict; from the kernel command line it fails its role at once, like
 * a malformed one, and the others are still waited for: a boot goes on.
 */
/*
 * A spec of @rc the engine refused (@why): a usage error when it came
 * from the options or --strict; from the kernel command line, the role
 * fails and the boot goes on (0).
 */
static int role_refused(struct role_config *rc, const char *why, bool strict)
{
	if (rc->from_options || strict)
		return usage_error("%s", why);
	log_err("kernel command line: %s", why);
	rc->invalid = rc->unsupported = true;
	strscpy(rc->why, why, sizeof(rc->why));
	return 0;
}

/* The alternatives of @rc as one target of @role: 0, or -errno with why. */
static int add_alternatives(struct engine *e, const struct role *role,
			    const struct role_config *rc, char *why, size_t size)
{
	unsigned int bad = 0;
	int r = engine_add_alternatives(e, role, rc->spec, rc->n, rc->ms, &bad);

	if (r == -E2BIG)
		parse_error(why, size, "%s: too many targets (at most %d)", role->name,
			    ENGINE_TARGETS_MAX);
	else if (r < 0)
		return add_target_error(r, role, &rc->spec[bad], why, size);
	return r;
}

static int add_targets(struct engine *e, struct wait_config *cfg, unsigned roles,
		       bool strict)
{
	char why[CMDLINE_PROBLEM_LEN];
	unsigned id, i;
	int r;

	for (id = 0; id < ROLE_COUNT; id++) {
		struct role_config *rc = &cfg->role[id];

		if (roles & ROLE_BIT(id) && rc->alternatives) {
			r = add_alternatives(e, role_get(id), rc, why, sizeof(why));
			if (r < 0 && (r = role_refused(rc, why, strict)))
				return r;
			continue;
		}
		for (i = 0; roles & ROLE_BIT(id) && i < rc->n; i++) {
			if (rc->spec[i].type == SPEC_CONSOLE_OTHER) {
				log_notice("%s %s is not a tty: not waited for",
					   role_get(id)->name, rc->spec[i].text);
				continue;
			}
			r = add_target(e, role_get(id), &rc->spec[i], rc->ms, why,
				       sizeof(why));
			if (r < 0 && (r = role_refused(rc, why, strict)))
				return r;
		}
	}
	return 0;
}

int run_start(struct run *run, int argc, char **argv, const struct program_syntax *p)
{
	startup_fds();
	startup_signals();
	run->engine = NULL;
	return options_read(&run->opts, &run->cfg, argc, argv, p);
}

void run_end(struct run *run)
{
	engine_free(run->engine);
	run->engine = NULL;
	log_close_kmsg();
}

/* The roles whose spec on the kernel command line was malformed: they
 * failed at once (problems logged), the others were waited for. */
static bool invalid_roles(const struct wait_config *cfg, unsigned roles)
{
	bool any = false;
	unsigned id;

	for (id = 0; id < ROLE_COUNT; id++) {
		if (!(roles & ROLE_BIT(id)) || !cfg->role[id].invalid)
			continue;
		log_err("%s: %s on the kernel command line, not waited for",
			role_get(id)->name,
			cfg->role[id].unsupported ? "unsupported" : "malformed");
		any = true;
	}
	return any;
}

/* What engine_run()'s @outcome (or -errno) means to the caller. */
static int exit_status(const struct engine *e, int outcome)
{
	if (outcome < 0)
		return EXIT_SYSTEM;
	switch (outcome) {
	case ENGINE_FOUND:
		return EXIT_FOUND;
	case ENGINE_DEADLINE:
		return EXIT_TIMEOUT;
	default: /* ENGINE_INTERRUPTED */
		return EXIT_SIGNAL_BASE + engine_signal(e);
	}
}

/*
 * rootfstype= names what the kernel mounts the root as: the probes look
 * for those types only while the root is the one block device waited for
 * (a resume device holds swap, which no rootfstype= names).
 */
static const char *probe_fstypes(const struct wait_config *cfg, unsigned roles)
{
	unsigned id, k;

	for (id = 0; id < ROLE_COUNT; id++) {
		if (id == ROLE_ROOT || !(roles & ROLE_BIT(id)))
			continue;
		for (k = 0; k < cfg->role[id].n; k++)
			if (spec_kind(&cfg->role[id].spec[k]) == DEV_BLOCK)
				return NULL;
	}
	return cfg->rootfstype;
}

/* PARTUUID= is the one spec a partition's entry in its table answers. */
static bool probe_part_entry(const struct wait_config *cfg, unsigned roles)
{
	unsigned id, k;

	for (id = 0; id < ROLE_COUNT; id++) {
		if (!(roles & ROLE_BIT(id)))
			continue;
		for (k = 0; k < cfg->role[id].n; k++)
			if (cfg->role[id].spec[k].type == SPEC_BLOCK_PARTUUID)
				return true;
	}
	return false;
}

int run_wait(struct run *run, unsigned roles)
{
	const struct options *o = &run->opts;
	struct wait_config *cfg = &run->cfg;
	struct engine_options opts = {
		.sysfs_root = o->sysfs,
		.uevent_fd = o->uevent_fd,
		.rcvbuf = o->rcvbuf,
		.source = o->uevent_fd >= 0 ? ENGINE_SOURCE_KERNEL : o->source,
		.coldplug = o->coldplug || cfg->coldplug,
		.give_up = o->settle || cfg->settle,
		/* the kernel mounts the root as these types only */
		.probe_request = {
			.fstypes = probe_fstypes(cfg, roles),
			.part_entry = probe_part_entry(cfg, roles),
		},
	};
	struct engine *e;
	unsigned i;
	int r;

	setup_logging(o);
	if (o->modprobe || o->dry_run) {
		r = open_modload(o, &opts.modload);
		if (r)
			return r;
	} else if (cfg->modprobe) {
		/* asked for on the kernel command line: the boot goes on
		 * without module loading rather than stop */
		if (!modload_available())
			log_warn(
				"waitdev.modprobe=1: built without libkmod, not loading modules");
		else if (open_modload(o, &opts.modload))
			return EXIT_USAGE;
	}
	/* like the kernel's "Unknown kernel command line parameters" and
	 * "Malformed early option": said, and the boot goes on */
	for (i = 0; i < cfg->n_problems && i < CMDLINE_PROBLEMS_MAX; i++)
		log_err("kernel command line: %s", cfg->problems[i]);
	if (cfg->n_problems > CMDLINE_PROBLEMS_MAX)
		log_err("kernel command line: %u more problems",
			cfg->n_problems - CMDLINE_PROBLEMS_MAX);
	for (i = 0; i < cfg->n_skipped; i++)
		log_info("%s: not a block device or tty, not waited for",
			 cfg->skipped[i]);
	r = engine_new(&e, &opts);
	if (r == -EOPNOTSUPP)
		return usage_error(
			"--source udev: needs libudev, which this waitdev was built without");
	if (r < 0) {
		log_err("%s", strerror(-r));
		return EXIT_SYSTEM;
	}
	log_debug("source: %s", engine_uses_udev(e) ? "udev" : "kernel");
	if (engine_uses_udev(e) && !source_udev_running())
		log_warn(
			"--source udev: udevd does not run (nothing listens on /run/udev/control): only its events will be seen, none may come");
	run->engine = e;
	if (cfg->off) {
		/* the boot's off switch: nothing waited for, nothing missing */
		log_notice("off: waitdev=0 or rd.waitdev=0 on the kernel command line");
		return EXIT_FOUND;
	}
	r = add_targets(e, cfg, roles, o->strict);
	if (r)
		return r;
	if (engine_target_count(e) == 0)
		log_info("nothing to wait for");
	r = engine_run(e);
	result_set_deadline(e);
	report_stats(e);
	if (r < 0 && !engine_error_reported(e))
		log_err("wait failed: %s", strerror(-r));
	if (r == ENGINE_DEADLINE)
		report_diagnosis(e);
	r = exit_status(e, r);
	if (r == EXIT_FOUND && invalid_roles(cfg, roles))
		return EXIT_TIMEOUT;
	return r;
}
