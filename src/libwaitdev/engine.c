// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "coldplug.h"
#include "deadline.h"
#include "devclass.h"
#include "engine.h"
#include "log.h"
#include "probe.h"
#include "prober.h"
#include "rtnl.h"
#include "settle.h"
#include "sysfs.h"
#include "util.h"

struct engine {
	struct engine_options opts;
	struct targets targets;
	bool want[DEV_KIND_COUNT]; /* kinds some target waits for */
	bool want_link;		   /* a net target asks for :up/:carrier */
	bool want_probe;
	bool use_udev;

	struct devtab *devtab;
	struct sysfs *sysfs;
	struct source *source;
	struct rtnl *rtnl;
	struct prober *prober; /* when want_probe */
	int epoll_fd, timer_fd, signal_fd;
	/* give_up: bus/usb/settle (-1: not watched), what it last read,
	 * and whether the loader's reports are watched for its idling */
	int settle_fd;
	bool settled, modload_watched;
	sigset_t old_mask;
	bool mask_saved;

	unsigned int generation;
	bool rescanning;	/* a scan after an overflow is under way */
	uint64_t next_deadline; /* what the timer is armed for */
	/* an overflow was reported and its queue not yet read empty */
	bool uevent_congested, rtnl_congested;
	bool error_reported; /* engine_run()'s error has been logged */
	int signo;	     /* what interrupted engine_run(), or 0 */
	struct engine_stats stats;
};

enum {
	TAG_SOURCE = 1,
	TAG_RTNL,
	TAG_TIMER,
	TAG_SIGNAL,
	TAG_PROBE,
	TAG_SETTLE,
	TAG_MODLOAD,
};

/*
 * A deadline of 0 looks once: at what the scan finds, and at what the
 * superblock reads it started find, for as long as those take but at
 * most this long (a device that does not answer is not waited for).
 */
#define ENGINE_LOOK_ONCE_MS 1000

/* uevents handled per wakeup before the deadline is looked at again */
#define ENGINE_BATCH 256

int engine_new(struct engine **out, const struct engine_options *opts)
{
	struct engine *e = calloc(1, sizeof(*e));
	int r = -ENOMEM;

	if (!e)
		goto fail;
	e->opts = *opts;
	e->epoll_fd = e->timer_fd = e->signal_fd = e->settle_fd = -1;
	switch (opts->source) {
	case ENGINE_SOURCE_UDEV:
		e->use_udev = true;
		break;
	case ENGINE_SOURCE_AUTO:
		e->use_udev = opts->uevent_fd < 0 && source_udev_available() &&
			      source_udev_running();
		break;
	default:
		break;
	}
	r = -EOPNOTSUPP;
	if (e->use_udev && !source_udev_available())
		goto fail;
	r = devtab_new(&e->devtab);
	if (r < 0)
		goto fail;
	*out = e;
	return 0;
fail:
	/* the loader and the uevent fd were handed over: they go with us */
	modload_free(opts->modload);
	if (opts->uevent_fd >= 0)
		close(opts->uevent_fd);
	free(e);
	return r;
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	if (e->signal_fd >= 0)
		close(e->signal_fd);
	if (e->mask_saved)
		sigprocmask(SIG_SETMASK, &e->old_mask, NULL);
	if (e->timer_fd >= 0)
		close(e->timer_fd);
	if (e->settle_fd >= 0)
		close(e->settle_fd);
	if (e->epoll_fd >= 0)
		close(e->epoll_fd);
	modload_free(e->opts.modload);
	if (e->opts.uevent_fd >= 0)
		close(e->opts.uevent_fd); /* never handed to a source */
	/* kills the probes still reading; waits for none of them */
	prober_free(e->prober);
	rtnl_free(e->rtnl);
	source_free(e->source);
	sysfs_free(e->sysfs);
	devtab_free(e->devtab);
	free(e);
}

/* Whether this engine can wait for @spec: 0, -EINVAL, -EOPNOTSUPP. */
static int engine_can_wait(const struct engine *e, const struct spec *spec)
{
	enum spec_need need = spec_need(spec);
	enum dev_kind kind = spec_kind(spec);

	if (kind == DEV_OTHER || spec->type == SPEC_CONSOLE_OTHER)
		return -EINVAL;
	/* udev's database answers both; probing only the first */
	if ((need == SPEC_NEED_PROBE && !probe_available() && !e->use_udev) ||
	    (need == SPEC_NEED_UDEV && !e->use_udev))
		return -EOPNOTSUPP;
	return 0;
}

static void engine_want(struct engine *e, const struct spec *spec)
{
	enum dev_kind kind = spec_kind(spec);

	e->want[kind] = true;
	e->want_link |= kind == DEV_NET && spec->net_state != NET_EXISTS;
	/* with probing available, a root must carry a filesystem: probe
	 * every block device then, whatever the spec's form */
	e->want_probe |= kind == DEV_BLOCK && probe_available() && !e->use_udev;
}

int engine_add_target(struct engine *e, const struct role *role, const struct spec *spec,
		      uint64_t timeout_ms)
{
	int r;

	if (e->targets.n == ENGINE_TARGETS_MAX)
		return -E2BIG;
	r = engine_can_wait(e, spec);
	if (r == 0)
		r = targets_add(&e->targets, role, spec, timeout_ms);
	if (r == 0)
		engine_want(e, spec);
	return r;
}

int engine_add_alternatives(struct engine *e, const struct role *role,
			    const struct spec *specs, unsigned int n, uint64_t timeout_ms,
			    unsigned int *bad)
{
	unsigned int i;
	int r;

	for (i = 0; i < n; i++) {
		r = engine_can_wait(e, &specs[i]);
		if (r < 0) {
			*bad = i;
			return r;
		}
	}
	r = targets_add_alternatives(&e->targets, role, specs, n, timeout_ms);
	for (i = 0; r == 0 && i < n; i++)
		engine_want(e, &specs[i]);
	return r;
}

bool engine_uses_udev(const struct engine *e)
{
	return e->use_udev;
}

unsigned int engine_target_count(const struct engine *e)
{
	return e->targets.n;
}

const struct target *engine_target(const struct engine *e, unsigned int i)
{
	return i < e->targets.n ? &e->targets.t[i] : NULL;
}

struct modload *engine_modload(const struct engine *e)
{
	return e->opts.modload;
}

const struct devtab *engine_devtab(const struct engine *e)
{
	return e->devtab;
}

struct engine_stats engine_stats(const struct engine *e)
{
	struct engine_stats s = e->stats;

	if (e->source)
		s.source = *source_stats(e->source);
	return s;
}

bool engine_error_reported(const struct engine *e)
{
	return e->error_reported;
}

/* Logs the one error line for a failed run (the first only); returns @r. */
static int engine_fail(struct engine *e, int r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int engine_fail(struct engine *e, int r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (e->error_reported)
		return r;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_err("%s: %s", msg, strerror(-r));
	e->error_reported = true;
	return r;
}

/* The one re-evaluation after a change to @dev (devtab_apply()). */
static void engine_evaluate(struct engine *e, const struct device *dev)
{
	targets_evaluate(&e->targets, e->devtab, dev, e->rescanning);
}

static void engine_forget(struct engine *e, struct device *dev)
{
	targets_forget(&e->targets, e->devtab, dev, e->rescanning);
	devtab_remove(e->devtab, dev);
}

/*
 * Whether the rescan that announced @dev again (no seqnum: read from
 * sysfs) shows the very medium its probe read, or is reading. Only a
 * DISKSEQ says so: the kernel counts it up for every new medium (a loop
 * device attached again, a disk changed in a card reader), so one
 * unchanged, with the size, is the same medium. Without it (partitions,
 * older kernels) the medium may have been swapped in the overflow's
 * window, unannounced.
 */
static bool engine_same_medium(const struct device *dev, const struct uevent *ev)
{
	return ev->seqnum == 0 && (dev->probed || dev->probe_id) && dev->diskseq != 0 &&
	       dev->diskseq == dev->probed_diskseq && dev->size == dev->probed_size;
}

/*
 * Whether the whole disk @disk waits for its partitions to be read first.
 * A disk the kernel split into partitions holds a filesystem of its own
 * only as a hybrid image (an ISO with a partition table): the root is
 * likelier on a partition. On a stick, reads queue one behind another,
 * and the disk's probe (a few dozen requests) would delay the
 * partitions'. So the disk is read once every partition sysfs lists is
 * known here with no probe in flight: never, when one of them matched.
 */
static bool engine_disk_waits(struct engine *e, const struct device *disk)
{
	size_t i, len = strlen(disk->devpath);
	int listed, known = 0;

	/* a target that names the disk itself (root=/dev/sda) gains
	 * nothing by waiting: its probe only says whether it is ready */
	if (disk->is_partition || !e->sysfs || !targets_probe_may_find(&e->targets, disk))
		return false;
	listed = sysfs_count_partitions(e->sysfs, disk);
	for (i = 0; listed > 0 && i < devtab_count(e->devtab); i++) {
		const struct device *d = devtab_at(e->devtab, i);

		if (d->kind != DEV_BLOCK || !d->is_partition ||
		    strncmp(d->devpath, disk->devpath, len) != 0 ||
		    d->devpath[len] != '/')
			continue;
		if (d->probe_id || d->probe_deferred)
			return true;
		known++;
	}
	return known < listed;
}

/*
 * One probe at a time per disk (a disk and its partitions): a stick
 * serves one request after another, so two probes side by side each end
 * about when both would have, one after the other; and under a single
 * CPU their children share it too. The one first announced goes first
 * (sda1 before sda2). A probe holds the next back for
 * ENGINE_MEDIUM_HOLD_MS at most: one that takes longer may be stuck on
 * a read, and what else is on the disk is not to wait for it.
 */
#define ENGINE_MEDIUM_HOLD_MS 500

/* The length of the devpath of the disk @dev is on (a partition's
 * parent). */
static size_t medium_len(const struct device *dev)
{
	const char *slash = strrchr(dev->devpath, '/');

	return dev->is_partition && slash ? (size_t)(slash - dev->devpath)
					  : strlen(dev->devpath);
}

/* Another probe on @dev's disk that holds @dev's back at @now, or NULL. */
static const struct device *engine_medium_holder(const struct engine *e,
						 const struct device *dev, uint64_t now)
{
	size_t i, len = medium_len(dev);

	for (i = 0; i < devtab_count(e->devtab); i++) {
		const struct device *d = devtab_at(e->devtab, i);

		if (d != dev && d->kind == DEV_BLOCK && d->probe_id &&
		    now < d->probe_since_ms + ENGINE_MEDIUM_HOLD_MS &&
		    medium_len(d) == len && strncmp(d->devpath, dev->devpath, len) == 0)
			return d;
	}
	return NULL;
}

/* When the first probe holding another back stops holding it (0: none). */
static uint64_t engine_next_release(const struct engine *e, uint64_t now)
{
	uint64_t next = 0;
	size_t i;

	for (i = 0; i < devtab_count(e->devtab); i++) {
		const struct device *d = devtab_at(e->devtab, i), *h;

		if (d->kind != DEV_BLOCK || !d->probe_deferred)
			continue;
		h = engine_medium_holder(e, d, now);
		if (h && (!next || h->probe_since_ms + ENGINE_MEDIUM_HOLD_MS < next))
			next = h->probe_since_ms + ENGINE_MEDIUM_HOLD_MS;
	}
	return next;
}

static int engine_probe_start(struct engine *e, struct device *dev)
{
	const struct device *holder;
	struct dev_update u = { .kind = DEV_UPDATE_PROBE_FORGET };
	char node[512], stat[SYSFS_STAT_PATH_MAX];
	uint32_t id;
	int r;

	if (dev->probe_id) {
		/* one probe per device: the next starts when it ends */
		u.kind = DEV_UPDATE_PROBE_STALE;
		return devtab_apply(e->devtab, dev, &u);
	}
	if (!targets_want_probe(&e->targets, dev) || dev->size == 0 || !dev->name) {
		/* not needed, or nothing to read (no medium) */
		return devtab_apply(e->devtab, dev, &u);
	}
	if (engine_disk_waits(e, dev)) {
		/* engine_probe_deferred() starts it */
		log_debug("%s: probe deferred: its partitions first", dev->name);
		u.kind = DEV_UPDATE_PROBE_DEFER;
		return devtab_apply(e->devtab, dev, &u);
	}
	holder = engine_medium_holder(e, dev, now_ms());
	if (holder) {
		log_debug("%s: probe deferred: %s is being read", dev->name,
			  holder->name);
		u.kind = DEV_UPDATE_PROBE_DEFER;
		return devtab_apply(e->devtab, dev, &u);
	}
	snprintf(node, sizeof(node), "%s/%s",
		 e->opts.dev_root ? e->opts.dev_root : "/dev", dev->name);
	/* no node (no devtmpfs): nothing to fork for. A lookup in /dev
	 * does not touch the device; opening and reading it might hang */
	r = access(node, F_OK) < 0 ? -errno : 0;
	/* its counters, read by the child around the probe */
	if (r == 0 && snprintf(stat, sizeof(stat), "%s%s/stat",
			       e->opts.sysfs_root ? e->opts.sysfs_root : "/sys",
			       dev->devpath) >= (int)sizeof(stat))
		stat[0] = '\0';
	if (r == 0)
		r = prober_start(e->prober, node, stat[0] ? stat : NULL, &id);
	/* out of descriptors, memory or processes (fork: EAGAIN): this
	 * waitdev cannot look, which is not the device's fault */
	if (errno_is_resource(r) || r == -EAGAIN)
		return engine_fail(e, r, "cannot probe %s", node);
	if (r < 0) {
		/* we know nothing: readiness goes by size */
		log_debug("%s: probe: %s", node, strerror(-r));
		return devtab_apply(e->devtab, dev, &u);
	}
	e->stats.probes++;
	/* records the medium it reads too (engine_same_medium() compares) */
	u.kind = DEV_UPDATE_PROBE_START;
	u.probe_id = id;
	u.now_ms = now_ms();
	u.rescan = e->rescanning;
	devtab_apply(e->devtab, dev, &u);
	/* what was found stays only for the target found on it */
	log_debug("%s: probing (probe %u)", node, id);
	return 0;
}

/*
 * The -v line of every probe: "sda1: probe: 3 reads, 12 KiB, 1.2 ms: ext4".
 * The reads are the device's, all readers counted, while the probe ran.
 */
static void engine_log_probe(const struct device *dev, const struct probe_msg *msg)
{
	const struct probe_cost *c = &msg->cost;
	char io[64] = "reads unknown";
	const char *what;

	if (!c->measured)
		return; /* the child died before it could say */
	if (c->has_io && c->bytes % 1024 == 0)
		snprintf(io, sizeof(io), "%llu read%s, %llu KiB",
			 (unsigned long long)c->reads, c->reads == 1 ? "" : "s",
			 (unsigned long long)(c->bytes / 1024));
	else if (c->has_io)
		snprintf(io, sizeof(io), "%llu read%s, %llu bytes",
			 (unsigned long long)c->reads, c->reads == 1 ? "" : "s",
			 (unsigned long long)c->bytes);
	if (msg->err < 0)
		what = strerror(-msg->err);
	else if (msg->ambivalent)
		what = "several signatures";
	else if (msg->fs_type[0])
		what = msg->fs_type;
	else
		what = "nothing recognised";
	log_info("%s: probe: %s, %llu.%llu ms: %s", dev->name, io,
		 (unsigned long long)(c->us / 1000),
		 (unsigned long long)(c->us % 1000 / 100), what);
}

/*
 * Probes a block device at every event for it, so that UUID=/LABEL= can
 * match and a root counts as ready only with a filesystem on it. A
 * rescan after an overflow announces every device again, and any of
 * them may hold another medium by then: only one known to be the same
 * keeps its result. The probe runs in a child; its result comes through
 * engine_on_probe().
 */
static int engine_probe(struct engine *e, struct device *dev, const struct uevent *ev)
{
	if (engine_same_medium(dev, ev))
		return 0;
	return engine_probe_start(e, dev);
}

/* Starts the probes of the disks whose partitions have all been read. */
static int engine_probe_deferred(struct engine *e)
{
	size_t i;
	int r;

	for (i = 0; i < devtab_count(e->devtab); i++) {
		struct device *dev = devtab_at(e->devtab, i);

		if (dev->kind != DEV_BLOCK || !dev->probe_deferred ||
		    engine_disk_waits(e, dev))
			continue;
		r = engine_probe_start(e, dev);
		if (r < 0)
			return r;
		engine_evaluate(e, dev);
	}
	return 0;
}

static struct device *engine_probing(const struct engine *e, uint32_t id)
{
	size_t i;

	for (i = 0; i < devtab_count(e->devtab); i++) {
		struct device *dev = devtab_at(e->devtab, i);

		if (dev->kind == DEV_BLOCK && dev->probe_id == id)
			return dev;
	}
	return NULL;
}

static int engine_probe_done(struct engine *e, const struct probe_msg *msg)
{
	struct device *dev = engine_probing(e, msg->id);
	struct dev_update u = { .kind = DEV_UPDATE_PROBE_END, .probe = msg };
	bool stale;
	int r = 0;

	if (!dev)
		return 0; /* removed meanwhile */
	engine_log_probe(dev, msg);
	stale = dev->probe_stale;
	if (stale || errno_is_resource(msg->err))
		u.probe = NULL; /* not the medium's, or not read: nothing to keep */
	r = devtab_apply(e->devtab, dev, &u);
	if (stale) {
		/* an event came while it read: read what is there now */
		log_debug("%s: probe %u superseded", dev->name, msg->id);
		r = engine_probe_start(e, dev);
		if (r < 0)
			return r;
	} else if (errno_is_resource(msg->err)) {
		return engine_fail(e, msg->err, "cannot probe /dev/%s", dev->name);
	} else if (msg->err < 0) {
		/* devtab: not ready, or (not ours to open) judged by size */
		log_debug("%s: probe: %s", dev->name, strerror(-msg->err));
	} else if (r < 0) {
		return engine_fail(e, -ENOMEM, "cannot probe /dev/%s", dev->name);
	} else {
		log_debug("%s: type %s uuid %s label %s partuuid %s", dev->name,
			  dev->fs_type ? dev->fs_type : "-",
			  dev->fs_uuid ? dev->fs_uuid : "-",
			  dev->fs_label ? dev->fs_label : "-",
			  dev->part_uuid ? dev->part_uuid : "-");
	}
	/* what its result finds, the rescan that started it found */
	e->rescanning = dev->probe_id == 0 && dev->probe_rescan;
	engine_evaluate(e, dev);
	e->rescanning = false;
	return 0;
}

static int engine_on_probe(struct engine *e)
{
	struct probe_msg msg;
	int r;

	while ((r = prober_read(e->prober, &msg)) == 1) {
		r = engine_probe_done(e, &msg);
		if (r < 0)
			return r;
	}
	return r < 0 ? r : engine_probe_deferred(e);
}

static int engine_apply(struct engine *e, const struct uevent *ev)
{
	enum dev_kind kind = dev_kind_of(ev->subsystem);
	struct dev_update u = { .kind = DEV_UPDATE_SYSFS };
	struct dev_attrs attrs;
	struct device *dev;
	int r;

	/* drivers first: what they produce is what we wait for */
	if (e->opts.modload && ev->modalias && ev->action == UEVENT_ADD)
		modload_request(e->opts.modload, ev->modalias);
	if (!e->want[kind] || kind == DEV_OTHER)
		return 0;
	log_debug("uevent %s %s %s", uevent_action_name(ev->action), ev->subsystem,
		  ev->devpath);
	switch (ev->action) {
	case UEVENT_REMOVE:
		dev = devtab_find(e->devtab, ev->devpath);
		if (dev)
			engine_forget(e, dev);
		/* a partition gone: its disk may not wait any more */
		return kind == DEV_BLOCK && e->want_probe ? engine_probe_deferred(e) : 0;
	case UEVENT_ADD:
	case UEVENT_CHANGE:
	case UEVENT_MOVE:
	case UEVENT_ONLINE:
	case UEVENT_BIND:
		break;
	default:
		return 0;
	}
	dev = devtab_update(e->devtab, ev, e->generation);
	if (!dev)
		return errno == ENOMEM ? -ENOMEM : 0;
	if (ev->udev && kind == DEV_BLOCK)
		log_debug("%s: udev: type %s uuid %s label %s partuuid %s", ev->devpath,
			  ev->fs_type ? ev->fs_type : "-",
			  ev->fs_uuid ? ev->fs_uuid : "-",
			  ev->fs_label ? ev->fs_label : "-",
			  ev->part_uuid ? ev->part_uuid : "-");
	if (!e->sysfs) {
		/*
		 * engine_inject_uevent() into an engine that never ran (the
		 * report fuzzer): there is no sysfs to check the event against.
		 */
		r = -ENODEV;
	} else {
		r = sysfs_read_attrs(e->sysfs, dev, &attrs);
		u.attrs = &attrs;
		if (r == 0)
			r = devtab_apply(e->devtab, dev, &u);
		if (errno_is_resource(r))
			return engine_fail(e, r, "cannot read sysfs for %s", ev->devpath);
		if (r < 0 && kind != DEV_BLOCK) {
			/*
			 * An interface or tty whose "add" is read after it
			 * went away again (ip link add, ip link del) is not
			 * there, and neither is a forged one: the record
			 * goes, found it never was.
			 */
			log_debug("%s: not in sysfs (%s): gone, or never there",
				  ev->devpath, strerror(-r));
			engine_forget(e, dev);
			return 0;
		}
	}
	if (r < 0)
		log_debug("%s: attributes: %s", ev->devpath, strerror(-r));
	if (e->want_probe && kind == DEV_BLOCK) {
		r = engine_probe(e, dev, ev);
		if (r < 0)
			return r;
	}
	engine_evaluate(e, dev);
	/* a partition known, and not to be read: its disk's turn may come */
	return e->want_probe && kind == DEV_BLOCK && dev->is_partition && !dev->probe_id
		       ? engine_probe_deferred(e)
		       : 0;
}

int engine_inject_uevent(struct engine *e, const struct uevent *ev)
{
	return engine_apply(e, ev);
}

static int scan_cb(void *ctx, const struct uevent *ev)
{
	return engine_apply(ctx, ev);
}

/* Enumerates what exists; after an overflow, also drops what vanished. */
static int engine_scan(struct engine *e, bool sweep)
{
	enum dev_kind kind;
	size_t i;
	int r = 0;

	e->generation++;
	e->rescanning = sweep;
	for (kind = 0; kind < DEV_KIND_COUNT && r >= 0; kind++)
		if (e->want[kind])
			r = source_scan(e->source, kind, scan_cb, e);
	for (i = devtab_count(e->devtab); r >= 0 && sweep && i-- > 0;) {
		struct device *dev = devtab_at(e->devtab, i);

		if (dev->generation != e->generation)
			engine_forget(e, dev);
	}
	e->rescanning = false;
	if (r < 0)
		return engine_fail(e, r, "cannot scan sysfs at %s",
				   e->opts.sysfs_root ? e->opts.sysfs_root : "/sys");
	return 0;
}

static bool engine_done(const struct engine *e)
{
	return targets_done(&e->targets, now_ms());
}

/* Probes are running: a deadline of 0 lasts until they end. */
static bool engine_probing_any(const struct engine *e)
{
	return e->prober && prober_running(e->prober);
}

static int engine_arm(struct engine *e)
{
	uint64_t now = now_ms(), release = engine_next_release(e, now);

	e->next_deadline = targets_next_deadline(&e->targets, now, engine_probing_any(e));
	/* a probe held back past its holder's time starts then */
	if (release && release < e->next_deadline)
		e->next_deadline = release;
	return deadline_arm(e->timer_fd, e->next_deadline);
}

static void engine_expire(struct engine *e)
{
	targets_expire(&e->targets, now_ms(), engine_probing_any(e));
	/* a better alternative past its deadline: a worse one found wins */
	targets_resolve(&e->targets, e->devtab);
}

static void link_cb(void *ctx, const struct rtnl_link *link)
{
	struct dev_update u = { .kind = DEV_UPDATE_LINK, .link = link };
	struct engine *e = ctx;
	struct device *dev;

	e->stats.link_updates++;
	if (link->deleted)
		return; /* the "remove" uevent retires the record */
	dev = devtab_find_ifindex(e->devtab, link->ifindex);
	if (!dev)
		return; /* not announced yet: its "add" reads sysfs */
	if (devtab_apply(e->devtab, dev, &u) < 0)
		log_warn("interface %d renamed to %s: %s", link->ifindex, link->ifname,
			 strerror(ENOMEM));
	engine_evaluate(e, dev);
}

void engine_inject_link(struct engine *e, const struct rtnl_link *link)
{
	link_cb(e, link);
}

/* Whether a uevent is queued that the loop has not read yet. */
static bool engine_source_pending(const struct engine *e)
{
	struct pollfd p = { .fd = source_fd(e->source), .events = POLLIN };

	return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

/*
 * After reporting ENOBUFS once, the kernel marks a netlink socket
 * congested and drops further messages silently until a read finds its
 * queue empty (netlink_overrun(), netlink_rcv_wake()). So one look at
 * sysfs when the error comes is not enough: what is dropped after it
 * goes unreported. We look at once (a device already there is found
 * without reading the backlog) and once more when a read has found the
 * queue empty, from when on every loss is reported again.
 */
static int engine_uevent_overflow(struct engine *e, bool reported)
{
	if (reported) {
		log_info("uevent receive buffer overflowed, rescanning sysfs");
		e->uevent_congested = true;
	} else {
		log_info(
			"uevent queue read empty after an overflow, rescanning sysfs again");
		e->uevent_congested = false;
	}
	e->stats.rescans++;
	return engine_scan(e, true);
}

static int engine_on_source(struct engine *e)
{
	struct uevent ev;
	unsigned int n = 0;
	int r;

	/*
	 * A bounded batch, left early when a deadline passes: under an
	 * event storm the loop must still get back to the deadline in
	 * time (a batch of 256 took 39 ms on a loaded machine). The clock
	 * is the vDSO's, cheap per event; level-triggered epoll brings us
	 * back for the rest.
	 */
	while ((r = source_recv(e->source, &ev)) == 1) {
		r = engine_apply(e, &ev);
		if (r < 0)
			return r;
		/* found: the rest of the queue is not ours to read */
		if (engine_done(e))
			return 0;
		/*
		 * Level-triggered epoll brings us back for the rest, but
		 * only if there is a rest: a batch that ended with the
		 * queue empty must read on to EAGAIN, or a congested queue
		 * is never seen read empty (and its rescan waits for the
		 * next uevent, which may never come).
		 */
		if ((++n >= ENGINE_BATCH || now_ms() >= e->next_deadline) &&
		    engine_source_pending(e))
			return 0;
	}
	if (r == 0 && e->uevent_congested)
		return engine_uevent_overflow(e, false);
	if (r == -ENOBUFS)
		return engine_uevent_overflow(e, true);
	if (r == -EPIPE) {
		log_debug("uevent feed closed");
		/* left in, the closed feed would wake us for ever */
		if (epoll_ctl(e->epoll_fd, EPOLL_CTL_DEL, source_fd(e->source), NULL) < 0)
			return engine_fail(e, -errno,
					   "cannot stop watching the closed uevent feed");
		return 0;
	}
	return r;
}

/* Link state from sysfs, for when rtnetlink messages were lost. */
static void engine_reread_links(struct engine *e)
{
	struct dev_attrs attrs;
	struct dev_update u = { .kind = DEV_UPDATE_SYSFS, .attrs = &attrs };
	size_t i;

	e->stats.rescans++;
	for (i = 0; i < devtab_count(e->devtab); i++) {
		struct device *dev = devtab_at(e->devtab, i);

		if (dev->kind == DEV_NET &&
		    sysfs_read_attrs(e->sysfs, dev, &attrs) == 0 &&
		    devtab_apply(e->devtab, dev, &u) == 0)
			engine_evaluate(e, dev);
	}
}

/* The same congestion as for uevents (engine_uevent_overflow()). */
static int engine_on_rtnl(struct engine *e)
{
	int r = rtnl_recv(e->rtnl, link_cb, e);

	if (r == 1)
		return 0; /* a full batch: epoll brings us back for the rest */
	if (r == 0 && e->rtnl_congested) {
		log_info(
			"rtnetlink queue read empty after an overflow, rereading link state again");
		e->rtnl_congested = false;
		engine_reread_links(e);
		return 0;
	}
	if (r != -ENOBUFS)
		return r;
	log_info("rtnetlink receive buffer overflowed, rereading link state");
	e->rtnl_congested = true;
	engine_reread_links(e);
	return 0;
}

static int engine_on_signal(struct engine *e)
{
	struct signalfd_siginfo si;
	ssize_t n = read(e->signal_fd, &si, sizeof(si));

	if (n != (ssize_t)sizeof(si))
		return n < 0 && errno == EAGAIN ? 0 : -EIO;
	log_notice("interrupted by signal %u", si.ssi_signo);
	e->signo = (int)si.ssi_signo;
	return 1; /* stops the loop: ENGINE_INTERRUPTED */
}

static int epoll_add(int epfd, int fd, int tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)tag };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

void engine_wait_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	/* the console's terminal hung up: nobody waits any more */
	sigaddset(set, SIGHUP);
}

static int engine_setup_signals(struct engine *e)
{
	sigset_t mask;

	engine_wait_signals(&mask);
	if (sigprocmask(SIG_BLOCK, &mask, &e->old_mask) < 0)
		return -errno;
	e->mask_saved = true;
	e->signal_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	return e->signal_fd < 0 ? -errno : 0;
}

/* Subscribe first, so that nothing appearing during the scan is lost. */
static int engine_subscribe(struct engine *e)
{
	int r;

	r = sysfs_open(e->opts.sysfs_root, &e->sysfs);
	if (r == -ENODEV)
		return engine_fail(e, r, "%s is not a sysfs (is sysfs mounted there?)",
				   e->opts.sysfs_root ? e->opts.sysfs_root : "/sys");
	if (r < 0)
		return engine_fail(e, r, "cannot open sysfs at %s",
				   e->opts.sysfs_root ? e->opts.sysfs_root : "/sys");
	if (e->use_udev)
		r = source_open_udev(&e->source, e->opts.rcvbuf);
	else if (e->opts.uevent_fd >= 0) {
		r = source_open_fd(&e->source, e->sysfs, e->opts.uevent_fd);
		e->opts.uevent_fd = -1; /* the source's now, or closed */
	} else
		r = source_open_kernel(&e->source, e->sysfs, e->opts.rcvbuf);
	if (r < 0)
		return engine_fail(e, r, "cannot subscribe to uevents");
	if (e->want_link) {
		r = rtnl_open(&e->rtnl);
		if (r < 0)
			return engine_fail(e, r, "cannot subscribe to rtnetlink");
	}
	return 0;
}

static int engine_setup(struct engine *e)
{
	int r;

	r = engine_setup_signals(e);
	if (r < 0)
		return r;
	r = engine_subscribe(e);
	if (r < 0)
		return r;
	e->timer_fd = deadline_open();
	if (e->timer_fd < 0)
		return e->timer_fd;
	e->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (e->epoll_fd < 0)
		return -errno;
	r = epoll_add(e->epoll_fd, source_fd(e->source), TAG_SOURCE);
	if (r == 0 && e->rtnl)
		r = epoll_add(e->epoll_fd, rtnl_fd(e->rtnl), TAG_RTNL);
	if (r == 0)
		r = epoll_add(e->epoll_fd, e->timer_fd, TAG_TIMER);
	if (r == 0)
		r = epoll_add(e->epoll_fd, e->signal_fd, TAG_SIGNAL);
	if (r == 0 && e->want_probe) {
		r = prober_new(&e->prober, e->opts.probe, &e->opts.probe_request);
		if (r == 0)
			r = epoll_add(e->epoll_fd, prober_fd(e->prober), TAG_PROBE);
	}
	return r;
}

/* Stops watching bus/usb/settle: the deadlines decide from now on. */
static void engine_unwatch_settle(struct engine *e, const char *why)
{
	log_warn("%s: %s: waiting out the deadline", SETTLE_ATTR, why);
	epoll_ctl(e->epoll_fd, EPOLL_CTL_DEL, e->settle_fd, NULL);
	close(e->settle_fd);
	e->settle_fd = -1;
	e->settled = false;
}

static void engine_read_settle(struct engine *e)
{
	int r = settle_read(e->settle_fd);

	if (r == -EAGAIN)
		return; /* a FIFO in tests: nothing new */
	if (r < 0) {
		engine_unwatch_settle(
			e, r == -EINVAL ? "reads neither \"settled\" nor \"busy\""
					: strerror(-r));
		return;
	}
	if ((r == 1) != e->settled)
		log_debug("USB %s, seen at %llu ms since boot", r ? "settled" : "busy",
			  (unsigned long long)boot_ms());
	e->settled = r == 1;
}

/*
 * After the scan, while a target could be given up: watch bus/usb/settle,
 * or say once why the give-up cannot work here. Edge-triggered: sysfs
 * polls EPOLLIN always and EPOLLPRI | EPOLLERR from a change until the
 * file is read again, which level-triggered would spin on.
 */
static void engine_watch_settle(struct engine *e)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLPRI | EPOLLET,
				  .data.u32 = TAG_SETTLE };
	int fd;

	if (!e->opts.give_up || !targets_any_may_give_up(&e->targets, e->devtab))
		return;
	if (e->use_udev) {
		log_warn("giving up once USB has settled needs the kernel's "
			 "uevents, not udevd's (which may still be handling "
			 "the device): waiting out the deadline");
		return;
	}
	fd = settle_open(sysfs_dirfd(e->sysfs));
	if (fd == -ENOENT) {
		log_warn("this kernel does not say when USB has settled (no %s "
			 "in sysfs: waitdev's kernel series adds it): waiting "
			 "out the deadline",
			 SETTLE_ATTR);
		return;
	}
	if (fd < 0) {
		log_warn("cannot open %s: %s: waiting out the deadline", SETTLE_ATTR,
			 strerror(-fd));
		return;
	}
	e->settle_fd = fd;
	if (epoll_ctl(e->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		engine_unwatch_settle(e, strerror(errno));
		return;
	}
	engine_read_settle(e);
}

/* The loader's reports wake the loop while the give-up waits for it. */
static void engine_watch_modload(struct engine *e, bool on)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = TAG_MODLOAD };
	int fd = modload_report_fd(e->opts.modload);

	if (on == e->modload_watched || fd < 0)
		return;
	if (epoll_ctl(e->epoll_fd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, fd, &ev) == 0)
		e->modload_watched = on;
}

/*
 * USB has settled: give up the targets nothing matches, once nothing in
 * flight could still produce their device. A queued uevent may be it
 * (sent before the work that made USB busy ended), a probe's result may
 * match, and a module being loaded binds a driver whose device makes USB
 * busy again (so the state is read once more after the loader idles).
 * Each of those wakes the loop, which calls this again.
 */
static void engine_check_settled(struct engine *e)
{
	if (e->settle_fd < 0 || !e->settled ||
	    !targets_any_may_give_up(&e->targets, e->devtab))
		return;
	if (e->uevent_congested || engine_source_pending(e) || engine_probing_any(e))
		return;
	if (!modload_idle(e->opts.modload)) {
		engine_watch_modload(e, true);
		return;
	}
	engine_watch_modload(e, false);
	engine_read_settle(e);
	if (e->settled)
		targets_give_up(&e->targets, e->devtab, boot_ms());
}

static int engine_dispatch(struct engine *e, uint32_t tag)
{
	int r;

	switch (tag) {
	case TAG_SOURCE:
		return engine_on_source(e);
	case TAG_RTNL:
		return engine_on_rtnl(e);
	case TAG_TIMER:
		deadline_ack(e->timer_fd);
		/* a probe held back long enough starts before the deadlines
		 * are looked at: a target that expires now still shows what
		 * was held back, and why */
		r = e->want_probe ? engine_probe_deferred(e) : 0;
		engine_expire(e);
		return r;
	case TAG_SIGNAL:
		return engine_on_signal(e);
	case TAG_PROBE:
		return engine_on_probe(e);
	case TAG_SETTLE:
		engine_read_settle(e);
		return 0;
	case TAG_MODLOAD:
		return 0; /* engine_check_settled() reads the reports */
	}
	return 0;
}

static int engine_loop(struct engine *e)
{
	while (!engine_done(e)) {
		struct epoll_event evs[4];
		int i, n, r;

		r = engine_arm(e);
		if (r < 0)
			return r;
		/* about to sleep: the next probe's fork now, not after the
		 * uevent (a failure is prober_start()'s to report) */
		r = e->prober ? prober_prepare(e->prober) : 0;
		if (r < 0)
			log_debug("probe: cannot fork ahead: %s", strerror(-r));
		n = epoll_wait(e->epoll_fd, evs, ARRAY_SIZE(evs), -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		e->stats.wakeups++;
		for (i = 0; i < n; i++) {
			r = engine_dispatch(e, evs[i].data.u32);
			if (r != 0)
				return r;
		}
		/* a deadline may pass while events keep us busy */
		engine_expire(e);
		engine_check_settled(e);
	}
	return 0;
}

/* Timed tests measure against these: the same clock, as waitdev sees it. */
static void engine_log_clock(const struct engine *e)
{
	log_debug("subscribed at %llu ms (CLOCK_MONOTONIC), started at %llu ms",
		  (unsigned long long)now_ms(), (unsigned long long)e->targets.start_ms);
	targets_log_deadlines(&e->targets);
}

int engine_run(struct engine *e)
{
	int r;

	targets_start(&e->targets, now_ms());
	r = engine_setup(e);
	if (r < 0)
		return r;
	engine_log_clock(e);
	if (e->opts.after_subscribe)
		e->opts.after_subscribe(e->opts.hook_ctx);
	r = engine_scan(e, false);
	if (r < 0)
		return r;
	if (e->opts.after_scan)
		e->opts.after_scan(e->opts.hook_ctx);
	if (e->opts.coldplug && !engine_done(e)) {
		/* subscribed already: the replayed "add"s come to us */
		r = coldplug_trigger(e->sysfs);
		if (r < 0)
			log_warn("coldplug: %s", strerror(-r));
	}
	targets_log_waiting(&e->targets);
	engine_watch_settle(e);
	engine_check_settled(e);
	/* a zero timeout means "look once", at the scan's probes too */
	e->targets.look_once_until = now_ms() + ENGINE_LOOK_ONCE_MS;
	engine_expire(e);
	r = engine_loop(e);
	if (r < 0)
		return r;
	if (r > 0)
		return ENGINE_INTERRUPTED;
	return targets_all_found(&e->targets) ? ENGINE_FOUND : ENGINE_DEADLINE;
}

int engine_signal(const struct engine *e)
{
	return e->signo;
}
