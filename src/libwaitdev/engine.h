/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * engine.h - the wait itself: one epoll loop over the uevent source, the
 * rtnetlink socket (only when a link state is asked for), the probes'
 * results, the deadline timerfd and a signalfd for SIGINT/SIGTERM/SIGHUP.
 *
 * Data flow, one way: event source (source.h, rtnl.h, prober.h) -> the
 * device record, changed only by devtab_apply() (devtab.h; sysfs
 * attributes through the class table, devclass.h) -> one re-evaluation
 * of the targets (target.h), whose matchers (spec.h) read the table
 * const -> found / lost / expired -> the outcome of engine_run(). The
 * engine subscribes before it scans sysfs, rescans after an overflow,
 * and never sleeps or polls. With engine_options.give_up it also
 * watches whether USB has settled (settle.h: POLLPRI on a sysfs file). Superblocks are read by child processes
 * (prober.h) whose results come back through the same loop: no device
 * read can hold it up.
 */
#ifndef WAITDEV_ENGINE_H
#define WAITDEV_ENGINE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "devtab.h"
#include "modload.h"
#include "prober.h"
#include "rtnl.h"
#include "source.h"
#include "spec.h"
#include "target.h"

enum engine_source {
	ENGINE_SOURCE_KERNEL = 0, /* kernel uevents (or uevent_fd) + sysfs */
	ENGINE_SOURCE_UDEV,	  /* udevd's events and database (libudev) */
	ENGINE_SOURCE_AUTO,	  /* udev when built in and udevd runs */
};

struct engine_options {
	const char *sysfs_root; /* NULL: /sys */
	const char *dev_root;	/* NULL: /dev (device nodes to probe) */
	/* -1: the kernel's netlink socket; else taken over by
	 * engine_new(), closed whatever happens */
	int uevent_fd;
	int rcvbuf; /* 0: SOURCE_RCVBUF_DEFAULT */
	enum engine_source source;
	/* load modules for each MODALIAS seen (NULL: do not); the engine
	 * takes it over and engine_free() frees it */
	struct modload *modload;
	/* after the scan, ask the kernel to replay "add" for bus devices */
	bool coldplug;
	/* give up on the block and network targets that nothing matches
	 * once USB has settled (settle.h), the module loader is idle and
	 * no probe or uevent is in flight: they end TARGET_ABSENT. Without
	 * the kernel's signal (or with the udev source) it is said once
	 * and the deadlines hold. */
	bool give_up;
	/* tests: what the probing children run instead of probe_block() */
	probe_fn probe;
	/* what the probes look for: .fstypes rootfstype='s types (NULL:
	 * every type), .part_entry when a spec is a PARTUUID= */
	struct probe_request probe_request;
	/* tests: run between subscribing and scanning, and after the scan */
	void (*after_subscribe)(void *ctx);
	void (*after_scan)(void *ctx);
	void *hook_ctx;
};

struct engine_stats {
	struct source_stats source;
	uint64_t rescans;
	uint64_t wakeups; /* epoll_wait returns */
	uint64_t link_updates;
	uint64_t probes; /* started, in child processes */
};

struct engine;

int engine_new(struct engine **out, const struct engine_options *opts);
void engine_free(struct engine *e);

/*
 * Adds something to wait for. -EOPNOTSUPP when the spec needs a back end
 * this build or this source lacks (see spec_need()), -E2BIG past
 * ENGINE_TARGETS_MAX.
 */
int engine_add_target(struct engine *e, const struct role *role, const struct spec *spec,
		      uint64_t timeout_ms);

/*
 * Adds @n alternatives of one target, best first (target.h): the first
 * there once every one before it is known not to come is taken. Errors
 * as engine_add_target()'s, the spec at fault in *@bad; none is added
 * then.
 */
int engine_add_alternatives(struct engine *e, const struct role *role,
			    const struct spec *specs, unsigned int n, uint64_t timeout_ms,
			    unsigned int *bad);

/* How a wait ended. */
enum engine_outcome {
	ENGINE_FOUND,	    /* every target found */
	ENGINE_DEADLINE,    /* some target expired */
	ENGINE_INTERRUPTED, /* by a signal: engine_signal() */
};

/*
 * Waits until every target is found or expired. Returns an enum
 * engine_outcome or a negative errno.
 * The signals of engine_wait_signals() are blocked while it runs and
 * restored by engine_free() (to blocked, when the program blocked them
 * first: see startup.h).
 */
int engine_run(struct engine *e);

/* The signal that interrupted engine_run() (ENGINE_INTERRUPTED), or 0. */
int engine_signal(const struct engine *e);

/* Whether engine_run()'s negative errno was logged already, with what
 * failed (sysfs, the sockets): the caller need not say it again. */
bool engine_error_reported(const struct engine *e);

/* The signals that interrupt a wait (SIGINT, SIGTERM, SIGHUP), into @set. */
void engine_wait_signals(sigset_t *set);

/* Whether this engine reads udevd's events (after resolving AUTO). */
bool engine_uses_udev(const struct engine *e);

unsigned int engine_target_count(const struct engine *e);
const struct target *engine_target(const struct engine *e, unsigned int i);
const struct devtab *engine_devtab(const struct engine *e);
struct engine_stats engine_stats(const struct engine *e);
/* The module loader given in the options, or NULL. */
struct modload *engine_modload(const struct engine *e);

/*
 * Tests and fuzzing: applies @link as if rtnetlink had reported it (link
 * state, address, a new name) and re-decides every target, as the loop
 * does. Call it from a hook or after engine_run().
 */
void engine_inject_link(struct engine *e, const struct rtnl_link *link);

/*
 * Tests and fuzzing: applies @ev as if the source had delivered it and
 * re-decides every target. Before engine_run() there is no sysfs yet:
 * the record is what @ev says. 0 or -ENOMEM.
 */
int engine_inject_uevent(struct engine *e, const struct uevent *ev);

#endif
