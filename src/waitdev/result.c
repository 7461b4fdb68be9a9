// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <linux/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deadline.h"
#include "frontends.h"
#include "log.h"
#include "out.h"
#include "report.h"
#include "result.h"
#include "util.h"

/* the end of the wait (result_set_deadline()), 0 before one ran */
static uint64_t result_deadline;

int result_parse_format(const char *s, enum result_format *fmt)
{
	if (streq(s, "plain"))
		*fmt = RESULT_PLAIN;
	else if (streq(s, "shell"))
		*fmt = RESULT_SHELL;
	else if (streq(s, "json"))
		*fmt = RESULT_JSON;
	else
		return -EINVAL;
	return 0;
}

/* The inside of a single-quoted word: only ' needs care there. */
static void shell_quoted_part(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
	}
}

/*
 * A JSON string (RFC 8259) whatever the bytes: control characters as
 * \u00NN, valid UTF-8 as it is, and a byte that is not part of valid
 * UTF-8 as \u00NN too, the character of its Latin-1 value, so that the
 * document stays valid UTF-8 (a device name is bytes, not text).
 */
static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n = utf8_char_len(s);

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (n == 0 || c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fwrite(s, 1, n, out);
		s += n ? n : 1;
	}
	fputc('"', out);
}

/*
 * WAITDEV_ROOT, WAITDEV_CONSOLE: one device; WAITDEV_NET: a list;
 * WAITDEV_MISSING: ROLE=SPEC of each target not found and each role
 * failed at once (malformed on the kernel command line). Written as it
 * goes, never through a fixed buffer: a value is whole or absent.
 */
static void print_shell(FILE *out, const struct engine *e, const struct result_end *end)
{
	unsigned id, i, n, count = e ? engine_target_count(e) : 0;

	for (id = 0; id < ROLE_COUNT; id++) {
		const struct role *role = role_get(id);

		for (i = n = 0; i < count; i++) {
			const struct target *t = engine_target(e, i);

			if (t->role != role || !target_is_result(t))
				continue;
			fprintf(out, n++ ? " " : "%s='", role->shell_var);
			shell_quoted_part(out, t->node);
		}
		if (n)
			fputs("'\n", out);
	}
	fputs("WAITDEV_MISSING='", out);
	for (i = n = 0; i < count; i++) {
		const struct target *t = engine_target(e, i);

		/* an alternative another one of its group replaced is not
		 * missing */
		if (target_is_result(t) || t->superseded)
			continue;
		fprintf(out, "%s%s=", n++ ? " " : "", t->role->name);
		shell_quoted_part(out, t->spec.text);
	}
	for (id = 0; end && end->cfg && id < ROLE_COUNT; id++) {
		if (!(end->roles & ROLE_BIT(id)) || !end->cfg->role[id].invalid)
			continue;
		fprintf(out, "%s%s=", n++ ? " " : "", role_get(id)->name);
		shell_quoted_part(out, end->cfg->role[id].spec[0].text);
	}
	fputs("'\n", out);
}

static const char *state_name(enum target_state s)
{
	switch (s) {
	case TARGET_FOUND:
		return "found";
	case TARGET_EXPIRED:
		return "timeout";
	case TARGET_ABSENT:
		return "absent";
	case TARGET_PASSED:
		return "passed";
	default:
		return "waiting";
	}
}

/* "status": how the wait ended, from the program's exit status */
static const char *status_name(int status)
{
	switch (status) {
	case EXIT_FOUND:
		return "found";
	case EXIT_TIMEOUT:
		return "timeout";
	case EXIT_USAGE:
		return "usage_error";
	case EXIT_SYSTEM:
		return "system_error";
	default:
		return status > EXIT_SIGNAL_BASE ? "interrupted" : "error";
	}
}

static void json_key_string(FILE *out, const char *key, const char *val)
{
	fprintf(out, ",\"%s\":", key);
	if (val)
		json_string(out, val);
	else
		fputs("null", out);
}

/* What the probe whose result a block device carries cost: "probe":
 * {"reads":N,"bytes":N,"us":N} (reads and bytes null when its stat file
 * could not be read), nothing when it was not probed. */
static void json_probe_cost(FILE *out, const struct device *d)
{
	const struct probe_cost *c = &d->probe_cost;

	if (d->kind != DEV_BLOCK || d->probe_id || !c->measured)
		return;
	if (c->has_io)
		fprintf(out, ",\"probe\":{\"reads\":%llu,\"bytes\":%llu,\"us\":%llu}",
			(unsigned long long)c->reads, (unsigned long long)c->bytes,
			(unsigned long long)c->us);
	else
		fprintf(out, ",\"probe\":{\"reads\":null,\"bytes\":null,\"us\":%llu}",
			(unsigned long long)c->us);
}

/* One device as the diagnosis lists it ("seen"): what a spec is compared
 * with. */
static void json_device(FILE *out, const struct device *d)
{
	char node[sizeof("/dev/") + UEVENT_BUFFER_SIZE];

	fputs("{\"name\":", out);
	json_string(out, d->name ? d->name : "");
	if (d->kind == DEV_NET) {
		char mac[3 * DEV_MAC_MAX + 1];

		device_format_mac(d, mac, sizeof(mac));
		json_key_string(out, "mac", mac[0] ? mac : NULL);
		fprintf(out, ",\"up\":%s,\"carrier\":%s,\"operstate\":\"%s\"}",
			d->flags & IFF_UP ? "true" : "false",
			d->flags & IFF_RUNNING ? "true" : "false",
			dev_operstate_name(d->operstate));
		return;
	}
	if (device_node(d, node, sizeof(node)) == 0)
		json_key_string(out, "node", node);
	if (d->kind == DEV_BLOCK) {
		fprintf(out, ",\"devt\":\"%u:%u\",\"sectors\":%llu,\"partition\":%s",
			d->major, d->minor, (unsigned long long)d->size,
			d->is_partition ? "true" : "false");
		json_key_string(out, "partname", d->partname);
		/* nothing while a probe has not answered: an older result may
		 * be another medium's */
		json_key_string(out, "fs_type", d->probe_id ? NULL : d->fs_type);
		json_key_string(out, "fs_uuid", d->probe_id ? NULL : d->fs_uuid);
		json_key_string(out, "fs_label", d->probe_id ? NULL : d->fs_label);
		json_key_string(out, "part_uuid", d->part_uuid);
		json_key_string(out, "dm_name", d->dm_name);
		/* the probe's reads failed: not ready, and why */
		json_key_string(out, "read_error",
				d->probe_id || !d->probe_err ? NULL
							     : strerror(-d->probe_err));
		json_probe_cost(out, d);
	}
	fputc('}', out);
}

/* "seen": the devices of @t's class, all of them (a script filters) */
static void json_seen(FILE *out, const struct engine *e, const struct target *t)
{
	const struct devtab *tab = engine_devtab(e);
	enum dev_kind kind = spec_kind(&t->spec);
	unsigned i, n = 0;

	fputs(",\"seen\":[", out);
	for (i = 0; i < devtab_count(tab); i++) {
		const struct device *d = devtab_at(tab, i);

		if (d->kind != kind)
			continue;
		if (n++)
			fputc(',', out);
		json_device(out, d);
	}
	fputc(']', out);
}

/* A target and, when not found, why: "why" a word a script tests
 * (missing, not_ready, lost, interrupted), "reason" the diagnosis's
 * sentence, "device" the one that matches but is not ready. */
static void json_target(FILE *out, const struct engine *e, const struct target *t)
{
	const struct device *dev = NULL;
	char reason[512];
	const char *why = NULL;
	bool not_ready = false;

	fputs("{\"role\":", out);
	json_string(out, t->role->name);
	json_key_string(out, "spec", t->spec.text);
	fprintf(out, ",\"state\":\"%s\"", state_name(t->state));
	/* one of a list of alternatives: its rank, and whether taken */
	if (t->group)
		fprintf(out, ",\"alternative\":%u,\"taken\":%s", t->rank + 1,
			target_is_result(t) ? "true" : "false");
	if (t->state != TARGET_FOUND) {
		not_ready = report_not_ready(e, t, &dev, reason, sizeof(reason));
		if (t->state == TARGET_WAITING)
			why = "interrupted";
		else if (t->state == TARGET_ABSENT)
			why = "settled";
		else if (t->state == TARGET_PASSED)
			why = "passed";
		else if (t->lost)
			why = "lost"; /* the reason says what it is now */
		else if (not_ready)
			why = "not_ready";
		else
			why = "missing";
	}
	if (t->state == TARGET_FOUND) {
		json_key_string(out, "device", t->node);
		json_probe_cost(out, t->dev);
	} else if (dev) {
		char node[sizeof("/dev/") + UEVENT_BUFFER_SIZE];

		json_key_string(out, "device",
				device_node(dev, node, sizeof(node)) == 0 ? node : NULL);
	} else {
		json_key_string(out, "device", NULL);
	}
	json_key_string(out, "why", why);
	if (!why)
		json_key_string(out, "reason", NULL);
	else if (t->state == TARGET_PASSED)
		json_key_string(out, "reason", "a better alternative was taken");
	else if (t->state == TARGET_ABSENT) {
		snprintf(reason, sizeof(reason),
			 "USB settled at %llu.%03llu s; not there",
			 (unsigned long long)(t->settled_boot_ms / 1000),
			 (unsigned long long)(t->settled_boot_ms % 1000));
		json_key_string(out, "reason", reason);
	} else if (not_ready)
		json_key_string(out, "reason", reason);
	else if (t->lost)
		json_key_string(out, "reason", "found, then went away");
	else
		json_key_string(out, "reason", "no device matches");
	fprintf(out, ",\"waited_ms\":%llu,\"lost\":%u", (unsigned long long)t->waited_ms,
		t->lost);
	if (t->state != TARGET_FOUND)
		json_seen(out, e, t);
	fputc('}', out);
}

/* A role whose spec on the kernel command line was malformed: failed at
 * once, never a target. */
static void json_invalid_role(FILE *out, const struct role *role,
			      const struct role_config *rc)
{
	fputs("{\"role\":", out);
	json_string(out, role->name);
	json_key_string(out, "spec", rc->spec[0].text);
	fputs(",\"state\":\"invalid\",\"device\":null,\"why\":\"invalid\"", out);
	json_key_string(out, "reason", rc->why);
	fputs(",\"waited_ms\":0,\"lost\":0,\"seen\":[]}", out);
}

static void print_json(FILE *out, const struct engine *e, const struct result_end *end)
{
	unsigned i, n = e ? engine_target_count(e) : 0, id;
	int status = end ? end->status : EXIT_FOUND;
	bool first = true;

	if (!end)
		for (i = 0; i < n; i++)
			if (!target_is_result(engine_target(e, i)) &&
			    !engine_target(e, i)->superseded)
				status = EXIT_TIMEOUT;
	fprintf(out, "{\"status\":\"%s\",\"exit\":%d", status_name(status), status);
	if (end && end->error)
		json_key_string(out, "error", end->error);
	fputs(",\"targets\":[", out);
	for (i = 0; i < n; i++, first = false) {
		if (!first)
			fputc(',', out);
		json_target(out, e, engine_target(e, i));
	}
	for (id = 0; end && end->cfg && id < ROLE_COUNT; id++) {
		if (!(end->roles & ROLE_BIT(id)) || !end->cfg->role[id].invalid)
			continue;
		if (!first)
			fputc(',', out);
		first = false;
		json_invalid_role(out, role_get(id), &end->cfg->role[id]);
	}
	fputs("]}\n", out);
}

int result_fprint(FILE *out, enum result_format fmt, const struct engine *e,
		  const struct result_end *end)
{
	unsigned i;

	switch (fmt) {
	case RESULT_SHELL:
		print_shell(out, e, end);
		break;
	case RESULT_JSON:
		print_json(out, e, end);
		break;
	case RESULT_PLAIN:
		for (i = 0; e && i < engine_target_count(e); i++) {
			const struct target *t = engine_target(e, i);
			/* room for every byte escaped: never cut */
			char node[4 * sizeof(t->node) + 32];

			if (!target_is_result(t))
				continue;
			/* one line per target, whatever the name holds */
			escape_name(t->node, node, sizeof(node));
			fprintf(out, "%s %s\n", t->role->name, node);
		}
		break;
	}
	return fflush(out) == 0 && !ferror(out) ? 0 : -EIO;
}

void result_set_deadline(const struct engine *e)
{
	uint64_t last = 0;
	unsigned i;

	for (i = 0; i < engine_target_count(e); i++)
		if (engine_target(e, i)->deadline > last)
			last = engine_target(e, i)->deadline;
	result_deadline = last;
}

/* All of @buf on stdout, in time (result_set_deadline()). */
static int write_stdout(const char *buf, size_t len)
{
	uint64_t until = now_ms() + OUT_GRACE_MS;
	int r;

	if (result_deadline != DEADLINE_NEVER && result_deadline > until)
		until = result_deadline;
	r = out_write(STDOUT_FILENO, buf, len, until);
	if (r == 0)
		return 0;
	log_err("standard output: %s",
		r == -EAGAIN ? "no room for the result in time" : strerror(-r));
	return EXIT_SYSTEM;
}

int result_print(enum result_format fmt, const struct engine *e,
		 const struct result_end *end)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f) {
		log_err("%s", strerror(errno));
		return EXIT_SYSTEM;
	}
	r = result_fprint(f, fmt, e, end);
	if (fclose(f) != 0 || r < 0) {
		log_err("cannot format the result: %s", strerror(ENOMEM));
		free(buf);
		return EXIT_SYSTEM;
	}
	r = write_stdout(buf, len);
	free(buf);
	return r;
}

int result_print_node(const char *node)
{
	size_t len = strlen(node);
	char *line = malloc(len + 2);
	int r;

	if (!line) {
		log_err("%s", strerror(ENOMEM));
		return EXIT_SYSTEM;
	}
	memcpy(line, node, len);
	line[len] = '\n';
	r = write_stdout(line, len + 1);
	free(line);
	return r;
}
