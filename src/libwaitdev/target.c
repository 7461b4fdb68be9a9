// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <string.h>

#include "cmdline.h"
#include "deadline.h"
#include "log.h"
#include "target.h"
#include "util.h"

int targets_add(struct targets *ts, const struct role *role, const struct spec *spec,
		uint64_t timeout_ms)
{
	struct target *t;

	if (ts->n == ENGINE_TARGETS_MAX)
		return -E2BIG;
	t = &ts->t[ts->n++];
	memset(t, 0, sizeof(*t));
	t->role = role;
	t->spec = *spec;
	t->timeout_ms = timeout_ms;
	return 0;
}

int targets_add_alternatives(struct targets *ts, const struct role *role,
			     const struct spec *specs, unsigned int n,
			     uint64_t timeout_ms)
{
	unsigned int i;

	if (n > ENGINE_TARGETS_MAX - ts->n)
		return -E2BIG;
	ts->groups++;
	for (i = 0; i < n; i++) {
		targets_add(ts, role, &specs[i], timeout_ms);
		ts->t[ts->n - 1].group = ts->groups;
		ts->t[ts->n - 1].rank = i;
	}
	return 0;
}

uint64_t targets_start(struct targets *ts, uint64_t start_ms)
{
	uint64_t last = start_ms;
	unsigned int i;

	ts->start_ms = start_ms;
	for (i = 0; i < ts->n; i++) {
		struct target *t = &ts->t[i];

		t->deadline = t->timeout_ms == DEADLINE_FOREVER
				      ? DEADLINE_NEVER
				      : start_ms + t->timeout_ms;
		if (t->deadline > last)
			last = t->deadline;
	}
	return last;
}

static void target_found(const struct targets *ts, struct target *t,
			 const struct device *dev, bool rescanning)
{
	t->state = TARGET_FOUND;
	t->dev = dev;
	t->waited_ms = now_ms() - ts->start_ms;
	if (device_node(dev, t->node, sizeof(t->node)) < 0)
		strscpy(t->node, dev->name ? dev->name : "?", sizeof(t->node));
	log_notice("%s %s: found %s after %llu.%03llu s", t->role->name, t->spec.text,
		   t->node, (unsigned long long)(t->waited_ms / 1000),
		   (unsigned long long)(t->waited_ms % 1000));
	/* the storm test tells "its uevent came" from "the rescan saved it" */
	if (rescanning)
		log_debug("%s %s: found by the rescan after an overflow", t->role->name,
			  t->spec.text);
}

static bool target_accepts(const struct target *t, const struct devtab *tab,
			   const struct device *dev)
{
	/* being read again: unknown until the result comes, except that
	 * the target found on it keeps it until then */
	if (dev->probe_id && !(t->state == TARGET_FOUND && t->dev == dev))
		return false;
	return spec_match_in(&t->spec, tab, dev) && spec_device_ready(&t->spec, dev);
}

/* The first record in the table a target accepts, other than @skip. */
static const struct device *target_find(const struct target *t, const struct devtab *tab,
					const struct device *skip)
{
	size_t i;

	for (i = 0; i < devtab_count(tab); i++) {
		const struct device *dev = devtab_at(tab, i);

		if (dev != skip && target_accepts(t, tab, dev))
			return dev;
	}
	return NULL;
}

/*
 * The device went away or stopped being ready. Another one may already
 * satisfy the spec (a glob, "any"): take it rather than wait for news.
 */
static void target_lost(const struct targets *ts, struct target *t,
			const struct devtab *tab, const char *why, bool rescanning)
{
	const struct device *gone = t->dev, *other;

	log_notice("%s %s: %s %s, waiting again", t->role->name, t->spec.text, t->node,
		   why);
	t->state = TARGET_WAITING;
	t->dev = NULL;
	t->node[0] = '\0';
	t->lost++;
	other = target_find(t, tab, gone);
	if (other)
		target_found(ts, t, other, rescanning);
}

/*
 * A found device renamed (udev's eth0 -> enp0s3 at every boot, a "move"
 * uevent or RTM_NEWLINK with a new IFLA_IFNAME) and still accepted: what
 * is reported is the name it has now, not one that no longer exists.
 */
static void target_refresh(struct target *t)
{
	char node[sizeof(t->node)];

	if (device_node(t->dev, node, sizeof(node)) < 0 || streq(node, t->node))
		return;
	log_notice("%s %s: %s is now %s", t->role->name, t->spec.text, t->node, node);
	memcpy(t->node, node, sizeof(node));
}

bool target_is_result(const struct target *t)
{
	return t->state == TARGET_FOUND && (!t->group || t->taken);
}

/* The member of group @g that may still be taken: the best one neither
 * ABSENT nor EXPIRED (members are in rank order), or NULL. */
static struct target *group_best(struct targets *ts, unsigned int g)
{
	unsigned int i;

	for (i = 0; i < ts->n; i++) {
		struct target *t = &ts->t[i];

		if (t->group == g && t->state != TARGET_ABSENT &&
		    t->state != TARGET_EXPIRED)
			return t;
	}
	return NULL;
}

static void group_take(struct targets *ts, unsigned int g, struct target *best)
{
	unsigned int i;

	if (best->taken)
		return;
	best->taken = true;
	best->superseded = false;
	for (i = 0; i < ts->n; i++) {
		struct target *t = &ts->t[i];

		if (t->group != g || t == best)
			continue;
		t->superseded = true;
		if (t->state == TARGET_WAITING || t->state == TARGET_FOUND) {
			t->state = TARGET_PASSED;
			t->dev = NULL;
		}
	}
	if (best->rank)
		log_notice("%s %s: taken (alternative %u): the ones before it are "
			   "not there",
			   best->role->name, best->spec.text, best->rank + 1);
}

/* The taken member was lost: every member may count again (on a record
 * of @tab other than @skip, which is going). */
static void group_reopen(struct targets *ts, const struct devtab *tab, unsigned int g,
			 const struct device *skip)
{
	unsigned int i;

	for (i = 0; i < ts->n; i++) {
		struct target *t = &ts->t[i];
		const struct device *dev;

		if (t->group != g)
			continue;
		t->taken = t->superseded = false;
		if (t->state != TARGET_PASSED)
			continue;
		t->state = TARGET_WAITING;
		dev = target_find(t, tab, skip);
		if (dev)
			target_found(ts, t, dev, false);
	}
}

/* Whether a member of group @g was taken, or superseded by one taken. */
static bool group_decided(const struct targets *ts, unsigned int g)
{
	unsigned int i;

	for (i = 0; i < ts->n; i++)
		if (ts->t[i].group == g && (ts->t[i].taken || ts->t[i].superseded))
			return true;
	return false;
}

static void resolve(struct targets *ts, const struct devtab *tab,
		    const struct device *skip)
{
	unsigned int g;

	for (g = 1; g <= ts->groups; g++) {
		struct target *best = group_best(ts, g);

		if (best && best->state == TARGET_FOUND) {
			group_take(ts, g, best);
			continue;
		}
		if (!group_decided(ts, g))
			continue;
		/* the one taken went away: every member counts again */
		group_reopen(ts, tab, g, skip);
		best = group_best(ts, g);
		if (best && best->state == TARGET_FOUND)
			group_take(ts, g, best);
	}
}

void targets_resolve(struct targets *ts, const struct devtab *tab)
{
	resolve(ts, tab, NULL);
}

void targets_evaluate(struct targets *ts, const struct devtab *tab,
		      const struct device *dev, bool rescanning)
{
	unsigned int i;

	for (i = 0; i < ts->n; i++) {
		struct target *t = &ts->t[i];
		const struct device *other;
		bool ok = target_accepts(t, tab, dev);

		if (t->state == TARGET_FOUND && t->dev == dev && !ok) {
			target_lost(ts, t, tab, "is no longer ready", rescanning);
		} else if (t->state == TARGET_FOUND && t->dev == dev) {
			target_refresh(t);
		} else if (t->state == TARGET_WAITING && ok) {
			target_found(ts, t, dev, rescanning);
		} else if (t->state == TARGET_WAITING && t->spec.has_partnroff) {
			/* the anchor partition may have come after the one
			 * it points at: that one is a match only now */
			other = target_find(t, tab, NULL);
			if (other)
				target_found(ts, t, other, rescanning);
		}
	}
	resolve(ts, tab, NULL);
}

void targets_forget(struct targets *ts, const struct devtab *tab,
		    const struct device *dev, bool rescanning)
{
	unsigned int i;

	for (i = 0; i < ts->n; i++) {
		struct target *t = &ts->t[i];

		if (t->state == TARGET_FOUND && t->dev == dev)
			target_lost(ts, t, tab, "was removed", rescanning);
	}
	resolve(ts, tab, dev);
}

/*
 * Whether a probe of @dev can find what @spec (one that needs a probe)
 * looks for. PARTUUID= names a partition table entry, which a device the
 * kernel calls a whole disk does not have, except a device-mapper one
 * (libblkid finds the entry of a kpartx mapping through its parent): a
 * disk is not read for it. UUID= and LABEL= may be on a whole disk even
 * when it has partitions (an isohybrid image is iso9660 as a whole).
 */
static bool probe_may_match(const struct spec *spec, const struct device *dev)
{
	return spec->type != SPEC_BLOCK_PARTUUID || dev->is_partition || dev->dm_name;
}

/*
 * Whether reading @dev's superblock can decide anything: for UUID= and
 * LABEL= every block device is a candidate, for PARTUUID= every
 * partition (probe_may_match()); for a name,
 * number or PARTLABEL only the device that spec names (which then needs
 * a filesystem to be ready); and the device a target was found on, which
 * stops counting when its medium no longer holds what was found. A disk
 * nobody names is never read.
 */
bool targets_want_probe(const struct targets *ts, const struct device *dev)
{
	unsigned int i;

	for (i = 0; i < ts->n; i++) {
		const struct target *t = &ts->t[i];

		if (t->state == TARGET_FOUND && t->dev == dev)
			return true;
		if (t->state != TARGET_WAITING || spec_kind(&t->spec) != DEV_BLOCK)
			continue;
		if ((spec_need(&t->spec) == SPEC_NEED_PROBE &&
		     probe_may_match(&t->spec, dev)) ||
		    spec_match(&t->spec, dev))
			return true;
	}
	return false;
}

bool targets_probe_may_find(const struct targets *ts, const struct device *dev)
{
	unsigned int i;

	for (i = 0; i < ts->n; i++) {
		const struct target *t = &ts->t[i];

		if (t->state == TARGET_WAITING && spec_kind(&t->spec) == DEV_BLOCK &&
		    spec_need(&t->spec) == SPEC_NEED_PROBE &&
		    probe_may_match(&t->spec, dev))
			return true;
	}
	return false;
}

/*
 * Whether @t is decided: expired, or found on a device that is not being
 * read again. A read after a change or a rescan may take it back (its
 * medium was replaced), so until its result comes or the target's
 * deadline passes, a found target is not yet a result to report.
 */
static bool target_settled(const struct target *t, uint64_t now)
{
	if (t->state == TARGET_WAITING)
		return false;
	return t->state != TARGET_FOUND || !t->dev->probe_id || t->deadline <= now;
}

bool targets_done(const struct targets *ts, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < ts->n; i++)
		if (!target_settled(&ts->t[i], now))
			return false;
	return true;
}

/* When @t expires: its deadline, or for a deadline of 0 ("look once")
 * when the probes the scan started have ended (ENGINE_LOOK_ONCE_MS). */
static uint64_t target_deadline(const struct targets *ts, const struct target *t,
				bool probing)
{
	if (t->timeout_ms == 0 && probing)
		return ts->look_once_until;
	return t->deadline;
}

/*
 * Only a target not yet settled has a deadline that can pass: one found
 * before its deadline would otherwise re-arm the timer in the past and
 * spin the loop until the others are settled. (Found and then lost after
 * its deadline, it expires at once: the loop expires after every
 * dispatch.)
 */
uint64_t targets_next_deadline(const struct targets *ts, uint64_t now, bool probing)
{
	uint64_t next = DEADLINE_NEVER;
	unsigned int i;

	for (i = 0; i < ts->n; i++) {
		const struct target *t = &ts->t[i];

		if (!target_settled(t, now) && target_deadline(ts, t, probing) < next)
			next = target_deadline(ts, t, probing);
	}
	return next;
}

void targets_expire(struct targets *ts, uint64_t now, bool probing)
{
	uint64_t ns;
	unsigned int i;

	for (i = 0; i < ts->n; i++) {
		struct target *t = &ts->t[i];

		if (t->state != TARGET_WAITING || target_deadline(ts, t, probing) > now)
			continue;
		t->state = TARGET_EXPIRED;
		t->waited_ms = now_ms() - ts->start_ms;
		log_info("%s %s: not found within %llu.%03llu s", t->role->name,
			 t->spec.text, (unsigned long long)(t->timeout_ms / 1000),
			 (unsigned long long)(t->timeout_ms % 1000));
		ns = now_ns();
		log_debug("%s %s: expired at %llu.%03llu ms (CLOCK_MONOTONIC)",
			  t->role->name, t->spec.text, (unsigned long long)(ns / 1000000),
			  (unsigned long long)(ns / 1000 % 1000));
	}
}

bool target_may_give_up(const struct target *t, const struct devtab *tab)
{
	enum dev_kind kind = spec_kind(&t->spec);
	size_t i;

	if (t->state != TARGET_WAITING || (kind != DEV_BLOCK && kind != DEV_NET))
		return false;
	for (i = 0; i < devtab_count(tab); i++)
		if (spec_match_in(&t->spec, tab, devtab_at(tab, i)))
			return false;
	return true;
}

bool targets_any_may_give_up(const struct targets *ts, const struct devtab *tab)
{
	unsigned int i;

	for (i = 0; i < ts->n; i++)
		if (target_may_give_up(&ts->t[i], tab))
			return true;
	return false;
}

unsigned int targets_give_up(struct targets *ts, const struct devtab *tab,
			     uint64_t boot_ms)
{
	unsigned int i, n = 0;

	for (i = 0; i < ts->n; i++) {
		struct target *t = &ts->t[i];

		if (!target_may_give_up(t, tab))
			continue;
		t->state = TARGET_ABSENT;
		t->waited_ms = now_ms() - ts->start_ms;
		t->settled_boot_ms = boot_ms;
		log_info("%s %s: USB settled at %llu.%03llu s; not there "
			 "(after %llu.%03llu s)",
			 t->role->name, t->spec.text,
			 (unsigned long long)(boot_ms / 1000),
			 (unsigned long long)(boot_ms % 1000),
			 (unsigned long long)(t->waited_ms / 1000),
			 (unsigned long long)(t->waited_ms % 1000));
		n++;
	}
	targets_resolve(ts, tab);
	return n;
}

bool targets_all_found(const struct targets *ts)
{
	unsigned int i;

	for (i = 0; i < ts->n; i++)
		if (!target_is_result(&ts->t[i]) && !ts->t[i].superseded)
			return false;
	return true;
}

/* Timed tests measure against these: the same clock, as waitdev sees it. */
void targets_log_deadlines(const struct targets *ts)
{
	unsigned int i;

	for (i = 0; i < ts->n; i++)
		if (ts->t[i].deadline != DEADLINE_NEVER)
			log_debug("%s %s: deadline at %llu ms (CLOCK_MONOTONIC)",
				  ts->t[i].role->name, ts->t[i].spec.text,
				  (unsigned long long)ts->t[i].deadline);
}

/*
 * What a boot that pauses here is waiting for, once: the initial scan has
 * run and the uevent subscription is live, so anything that appears from
 * now on is an event this process sees (the QEMU tests plug on this line).
 */
void targets_log_waiting(const struct targets *ts)
{
	unsigned int i;

	for (i = 0; i < ts->n; i++) {
		const struct target *t = &ts->t[i];

		if (t->state != TARGET_WAITING || t->timeout_ms == 0)
			continue;
		if (t->timeout_ms == DEADLINE_FOREVER)
			log_notice("%s %s: not there yet, waiting", t->role->name,
				   t->spec.text);
		else
			log_notice("%s %s: not there yet, waiting up to %llu.%03llu s",
				   t->role->name, t->spec.text,
				   (unsigned long long)(t->timeout_ms / 1000),
				   (unsigned long long)(t->timeout_ms % 1000));
	}
}
