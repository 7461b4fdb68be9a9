// SPDX-License-Identifier: LGPL-2.1-or-later
#include <linux/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "modload.h"
#include "probe.h"
#include "report.h"
#include "util.h"

/*
 * The diagnosis quotes names that devices (or whoever can send uevents)
 * chose: up to 2047 bytes, any byte but NUL. Each is shown escaped and
 * cut to REPORT_NAME_WIDTH bytes (escape_name()), and every line is
 * built in a fixed buffer with snprintf(), so that no line outgrows the
 * log's 1024 bytes and none can be split or forged by a name.
 */
#define REPORT_NAME_WIDTH 80
#define REPORT_LINE_MAX 600

/* @name escaped and cut into @buf (REPORT_NAME_WIDTH), "" for NULL. */
#define shown(name, buf) (escape_name((name) ? (name) : "", (buf), sizeof(buf)), (buf))

static void format_size(uint64_t sectors, char *buf, size_t size)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	/* tenths of a KiB; integers only, so that a static build carries
	 * no floating-point formatting for this */
	uint64_t tenths = sectors * 10 / 2;
	unsigned u = 0;

	if (sectors == 0) {
		snprintf(buf, size, "no medium");
		return;
	}
	while (tenths >= 10240 && u + 1 < ARRAY_SIZE(units)) {
		tenths /= 1024;
		u++;
	}
	snprintf(buf, size, "%llu.%llu %s", (unsigned long long)(tenths / 10),
		 (unsigned long long)(tenths % 10), units[u]);
}

static void seen_block(const struct device *d)
{
	char name[REPORT_NAME_WIDTH], partname[REPORT_NAME_WIDTH];
	char type[REPORT_NAME_WIDTH], uuid[REPORT_NAME_WIDTH];
	char label[REPORT_NAME_WIDTH], partuuid[REPORT_NAME_WIDTH];
	char dm[REPORT_NAME_WIDTH], size[32];
	/* each piece at most REPORT_NAME_WIDTH: the line fits the log's */
	char fs[6 * REPORT_NAME_WIDTH] = "";
	size_t len = 0;

	format_size(d->size, size, sizeof(size));
	shown(d->name, name);
	shown(d->partname, partname);
	shown(d->fs_type, type);
	shown(d->fs_uuid, uuid);
	shown(d->fs_label, label);
	shown(d->part_uuid, partuuid);
	shown(d->dm_name, dm);
	/* what a root=UUID=/LABEL= typo is to be compared with; nothing
	 * while a probe has not answered (what an older one found may be
	 * another medium's) */
	if (d->probe_id)
		len += (size_t)snprintf(fs, sizeof(fs),
					", not read: the probe did not answer");
	else if (d->probe_deferred)
		len += (size_t)snprintf(fs, sizeof(fs), ", not read: %s first",
					d->is_partition ? "another device of its disk"
							: "its partitions");
	else if (d->fs_type)
		len += (size_t)snprintf(fs, sizeof(fs), ", %s%s%s%s%s%s", type,
					d->fs_uuid ? " UUID=" : "", uuid,
					d->fs_label ? " LABEL=\"" : "", label,
					d->fs_label ? "\"" : "");
	else if (d->fs_ambivalent)
		len += (size_t)snprintf(fs, sizeof(fs),
					", several filesystem signatures");
	else if (d->probe_err)
		len += (size_t)snprintf(fs, sizeof(fs), ", cannot be read (%s)",
					strerror(-d->probe_err));
	if (d->part_uuid && !d->probe_id && len < sizeof(fs))
		len += (size_t)snprintf(fs + len, sizeof(fs) - len, ", PARTUUID=%s",
					partuuid);
	/* root=/dev/mapper/NAME and /dev/VG/LV name this, not dm-N */
	if (d->dm_name && len < sizeof(fs))
		snprintf(fs + len, sizeof(fs) - len, ", /dev/mapper/%s", dm);
	log_err("  seen block %s (%u:%u, %s%s%s%s%s%s)", d->name ? name : "?", d->major,
		d->minor, size, d->is_partition ? ", partition" : "",
		d->partname ? " \"" : "", partname, d->partname ? "\"" : "", fs);
}

static void seen_net(const struct device *d)
{
	char mac[3 * DEV_MAC_MAX + 1], name[REPORT_NAME_WIDTH];

	device_format_mac(d, mac, sizeof(mac));
	log_err("  seen interface %s (%s, %s, %s, operstate %s)",
		d->name ? shown(d->name, name) : "?", mac[0] ? mac : "no address",
		d->flags & IFF_UP ? "up" : "down",
		d->flags & IFF_RUNNING ? "carrier" : "no carrier",
		dev_operstate_name(d->operstate));
}

/* Virtual terminals tty0..tty63 are many and never a typo target. */
static bool is_vt(const char *name)
{
	/* "tty" first: a shorter name must not be read past its end */
	return strncmp(name, "tty", 3) == 0 &&
	       name[3 + strspn(name + 3, "0123456789")] == '\0' && name[3];
}

static void seen_ttys(const struct devtab *tab)
{
	/* names are at most REPORT_NAME_WIDTH: one always fits in a line */
	char line[REPORT_LINE_MAX] = "";
	char name[REPORT_NAME_WIDTH];
	size_t len = 0, i;
	unsigned vts = 0;

	for (i = 0; i < devtab_count(tab); i++) {
		const struct device *d = devtab_at(tab, i);

		if (d->kind != DEV_TTY || !d->name)
			continue;
		if (is_vt(d->name)) {
			vts++;
			continue;
		}
		escape_name(d->name, name, sizeof(name));
		if (len && len + 1 + strlen(name) >= sizeof(line)) {
			log_err("  seen ttys: %s", line);
			len = 0;
		}
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s",
					len ? " " : "", name);
	}
	if (!len && !vts) {
		log_err("  seen ttys: none");
		return;
	}
	if (vts)
		log_err("  seen ttys: %s%s(%u virtual terminals)", line, len ? " " : "",
			vts);
	else
		log_err("  seen ttys: %s", line);
}

static int by_name(const void *a, const void *b)
{
	const struct device *da = *(const struct device *const *)a;
	const struct device *db = *(const struct device *const *)b;

	/* version order: loop2 before loop10 */
	return strverscmp(da->name ? da->name : "", db->name ? db->name : "");
}

/* Empty loop and ram disks are many on most systems and never root. */
static bool is_unused_loop(const struct device *d)
{
	return d->size == 0 && d->name &&
	       (strncmp(d->name, "loop", 4) == 0 || strncmp(d->name, "ram", 3) == 0);
}

static void report_seen(const struct devtab *tab, const struct spec *spec)
{
	enum dev_kind kind = spec_kind(spec);
	/* waiting for a loop device: then every one of them matters */
	bool fold = !(spec->type == SPEC_BLOCK_NAME &&
		      (strncmp(spec->value, "loop", 4) == 0 ||
		       strncmp(spec->value, "ram", 3) == 0));
	const struct device **devs;
	size_t i, n = 0, unused = 0;

	if (kind == DEV_TTY) {
		seen_ttys(tab);
		return;
	}
	devs = calloc(devtab_count(tab) + 1, sizeof(*devs));
	for (i = 0; devs && i < devtab_count(tab); i++)
		if (devtab_at(tab, i)->kind == kind)
			devs[n++] = devtab_at(tab, i);
	if (devs)
		qsort(devs, n, sizeof(*devs), by_name);
	for (i = 0; i < n; i++) {
		if (kind == DEV_NET)
			seen_net(devs[i]);
		else if (fold && is_unused_loop(devs[i]))
			unused++;
		else
			seen_block(devs[i]);
	}
	if (unused)
		log_err("  seen %zu unused loop and ram devices (no medium)", unused);
	if (n == 0)
		log_err("  none");
	free(devs);
}

bool report_not_ready(const struct engine *e, const struct target *t,
		      const struct device **dev, char *buf, size_t size)
{
	const struct devtab *tab = engine_devtab(e);
	bool udev = engine_uses_udev(e);
	char name[REPORT_NAME_WIDTH];
	size_t i;

	for (i = 0; i < devtab_count(tab); i++) {
		const struct device *d = devtab_at(tab, i);

		if (!spec_match(&t->spec, d) || spec_device_ready(&t->spec, d))
			continue;
		if (dev)
			*dev = d;
		shown(d->name, name);
		if (d->kind == DEV_BLOCK && d->size == 0)
			snprintf(buf, size, "%s has no medium (size 0)", name);
		else if (d->kind == DEV_BLOCK && d->probe_err)
			snprintf(buf, size, "%s cannot be read (%s)", name,
				 strerror(-d->probe_err));
		else if (d->kind == DEV_BLOCK && d->fs_ambivalent)
			snprintf(buf, size,
				 "%s has more than one filesystem signature "
				 "and libblkid will not choose (wipefs -n "
				 "/dev/%s lists them)",
				 name, name);
		else if (d->kind == DEV_BLOCK)
			snprintf(buf, size, "%s has no filesystem that %s recognises",
				 name, udev ? "udev" : "libblkid");
		else
			snprintf(buf, size, "%s is %s", name,
				 d->flags & IFF_UP ? "up without carrier" : "down");
		return true;
	}
	return false;
}

void report_diagnosis(const struct engine *e)
{
	bool listed[DEV_KIND_COUNT] = { false };
	char why[4 * REPORT_NAME_WIDTH];
	unsigned i;

	for (i = 0; i < engine_target_count(e); i++) {
		const struct target *t = engine_target(e, i);
		enum dev_kind kind = spec_kind(&t->spec);

		if (t->state == TARGET_FOUND || t->superseded)
			continue;
		if (t->state == TARGET_ABSENT)
			log_err("%s %s: USB settled at %llu.%03llu s; not there "
				"(after %llu.%03llu s)",
				t->role->name, t->spec.text,
				(unsigned long long)(t->settled_boot_ms / 1000),
				(unsigned long long)(t->settled_boot_ms % 1000),
				(unsigned long long)(t->waited_ms / 1000),
				(unsigned long long)(t->waited_ms % 1000));
		else if (report_not_ready(e, t, NULL, why, sizeof(why)))
			log_err("%s %s: not ready after %llu.%03llu s: %s", t->role->name,
				t->spec.text, (unsigned long long)(t->waited_ms / 1000),
				(unsigned long long)(t->waited_ms % 1000), why);
		else
			log_err("%s %s: missing after %llu.%03llu s", t->role->name,
				t->spec.text, (unsigned long long)(t->waited_ms / 1000),
				(unsigned long long)(t->waited_ms % 1000));
		if (listed[kind])
			continue;
		listed[kind] = true;
		log_err("%s devices seen:", dev_kind_name(kind));
		report_seen(engine_devtab(e), &t->spec);
	}
}

void report_stats(const struct engine *e)
{
	struct engine_stats s = engine_stats(e);
	struct modload *ml = engine_modload(e);

	if (ml) {
		struct modload_stats m = modload_stats(ml);

		log_info("modules: %lu aliases requested, %lu loaded, %lu failed so far",
			 m.requested, m.loaded, m.failed);
	}

	log_info("uevents: %llu received, %llu accepted, %llu forged, %llu "
		 "malformed, %llu overflows; %llu rescans, %llu link updates, "
		 "%llu wakeups",
		 (unsigned long long)s.source.received,
		 (unsigned long long)s.source.accepted,
		 (unsigned long long)s.source.forged,
		 (unsigned long long)s.source.malformed,
		 (unsigned long long)s.source.overflows, (unsigned long long)s.rescans,
		 (unsigned long long)s.link_updates, (unsigned long long)s.wakeups);
}
