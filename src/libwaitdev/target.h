/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target.h - what a wait waits for, and the state machine of each target:
 *
 *   WAITING --a record it accepts--> FOUND --removed, not ready--> WAITING
 *   WAITING --its deadline--> EXPIRED
 *   WAITING --USB settled without it (engine_options.give_up)--> ABSENT
 *   WAITING, FOUND --a better alternative was taken--> PASSED
 *
 * Alternatives (waitdev.root=A|B|C) are targets of one group, ranked
 * best first. The group takes the best one found once every better one
 * is known not to come (ABSENT, or EXPIRED at the deadline they share);
 * until then a worse one found waits, FOUND, in case a better one comes.
 * Once taken, the others are superseded (the worse ones PASSED) and do
 * not count as missing; if the taken one goes away, the group is open
 * again.
 *
 * A target accepts a record that its spec matches (spec_match_in(), over
 * the whole table: PARTNROFF= names a record by another) and that is
 * ready (spec_device_ready()), and not while the record's medium is
 * being read again. The targets read the device table and never write
 * it; the event loop (engine.c) calls targets_evaluate() once for each
 * change to a record (devtab_apply()), targets_forget() before it removes
 * one, and targets_expire() whenever time has passed.
 */
#ifndef WAITDEV_TARGET_H
#define WAITDEV_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "devtab.h"
#include "role.h"
#include "spec.h"

#define ENGINE_TARGETS_MAX 32

enum target_state {
	TARGET_WAITING = 0,
	TARGET_FOUND,
	TARGET_EXPIRED,
	TARGET_ABSENT, /* given up: the buses it can come from settled */
	TARGET_PASSED, /* an alternative: a better one was taken */
};

struct target {
	const struct role *role;
	struct spec spec;
	uint64_t timeout_ms; /* DEADLINE_FOREVER for none */
	uint64_t deadline;   /* absolute CLOCK_MONOTONIC ms */
	enum target_state state;
	const struct device *dev; /* while TARGET_FOUND */
	/* "/dev/sda1", "eth0": whole, whatever DEVNAME the parser took */
	char node[sizeof("/dev/") + UEVENT_BUFFER_SIZE];
	uint64_t waited_ms; /* from the start to found/expired */
	unsigned int lost;  /* times it went away again */
	/* TARGET_ABSENT: when USB was seen settled, ms since boot
	 * (CLOCK_BOOTTIME, the kernel log's clock) */
	uint64_t settled_boot_ms;
	/* alternatives: the group (0 for none) and the rank in it, 0 the
	 * best; superseded: another alternative of the group was taken */
	unsigned int group, rank;
	bool superseded, taken;
};

struct targets {
	struct target t[ENGINE_TARGETS_MAX];
	unsigned int n;
	uint64_t start_ms; /* CLOCK_MONOTONIC ms: what waited_ms counts from */
	/* a deadline of 0 ("look once") while the scan's probes run */
	uint64_t look_once_until;
	unsigned int groups; /* groups of alternatives, numbered from 1 */
};

/* Adds a target in state WAITING; -E2BIG past ENGINE_TARGETS_MAX. */
int targets_add(struct targets *ts, const struct role *role, const struct spec *spec,
		uint64_t timeout_ms);

/*
 * Adds @n alternatives, best first, as one group (see the top); -E2BIG
 * past ENGINE_TARGETS_MAX (then none is added).
 */
int targets_add_alternatives(struct targets *ts, const struct role *role,
			     const struct spec *specs, unsigned int n,
			     uint64_t timeout_ms);

/*
 * Decides each group of alternatives after its members changed: takes
 * the best found one when every better one is ABSENT or EXPIRED, and
 * reopens a group whose taken one was lost. Called by the functions
 * below that change states, and by the engine after targets_give_up().
 */
void targets_resolve(struct targets *ts, const struct devtab *tab);

/* Sets the deadlines from @start_ms; returns the last (DEADLINE_NEVER). */
uint64_t targets_start(struct targets *ts, uint64_t start_ms);

/*
 * Re-decides every target against @dev, a new or changed record of @tab:
 * found, lost (no longer ready), renamed. @rescanning: the change came
 * from a rescan after an overflow (the log says what it saved).
 */
void targets_evaluate(struct targets *ts, const struct devtab *tab,
		      const struct device *dev, bool rescanning);

/* @dev is about to be removed from @tab: the targets found on it are lost. */
void targets_forget(struct targets *ts, const struct devtab *tab,
		    const struct device *dev, bool rescanning);

/* Whether reading @dev's superblock can decide a target. */
bool targets_want_probe(const struct targets *ts, const struct device *dev);
/* Whether a waiting target may be @dev by what a probe finds on it
 * (UUID=, LABEL=, ...), not only by its name or number. */
bool targets_probe_may_find(const struct targets *ts, const struct device *dev);

/*
 * Whether every target is decided at @now: expired, or found on a device
 * that is not being read again (or past its deadline).
 */
bool targets_done(const struct targets *ts, uint64_t now);

/*
 * The next deadline of a target not yet settled (DEADLINE_NEVER for
 * none); @probing: probes are running (see look_once_until).
 */
uint64_t targets_next_deadline(const struct targets *ts, uint64_t now, bool probing);

/* Expires the waiting targets whose deadline is past at @now. */
void targets_expire(struct targets *ts, uint64_t now, bool probing);

/*
 * Whether @t, waiting, could be given up once USB has settled: it waits
 * for a block device or a network interface (USB sticks, card readers,
 * USB NICs) and no record of @tab matches its spec at all. One that
 * matches but is not ready (no medium, no filesystem yet, no carrier)
 * is there: what it waits for is not enumeration. A console is never
 * given up: its wait is short, and a tty comes from more than USB
 * (serial8250 ports, hvc, virtio).
 */
bool target_may_give_up(const struct target *t, const struct devtab *tab);

/* Whether some target of @ts may be given up (target_may_give_up()). */
bool targets_any_may_give_up(const struct targets *ts, const struct devtab *tab);

/*
 * USB has settled (seen at @boot_ms, CLOCK_BOOTTIME) with nothing in
 * flight that could still produce a device: every target that
 * target_may_give_up() becomes ABSENT. Returns how many did.
 */
unsigned int targets_give_up(struct targets *ts, const struct devtab *tab,
			     uint64_t boot_ms);

/* Whether @t is a result to report: found, and for an alternative the
 * one its group took. */
bool target_is_result(const struct target *t);

/* Whether every target was found (a group: one of its alternatives
 * taken). */
bool targets_all_found(const struct targets *ts);

/* The log lines timed tests and the QEMU boots wait for. */
void targets_log_deadlines(const struct targets *ts);
void targets_log_waiting(const struct targets *ts);

#endif
