// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deadline.h"
#include "frontends.h"
#include "log.h"
#include "out.h"
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

static const char *state_name(enum target_state s)
{
	switch (s) {
	case TARGET_FOUND:
		return "found";
	case TARGET_EXPIRED:
		return "timeout";
	default:
		return "waiting";
	}
}

/*
 * WAITDEV_ROOT, WAITDEV_CONSOLE: one device; WAITDEV_NET: a list. Written
 * as it goes, never through a fixed buffer: a value is whole or absent.
 */
static void print_shell(FILE *out, const struct engine *e)
{
	unsigned id, i, n;

	for (id = 0; id < ROLE_COUNT; id++) {
		const struct role *role = role_get(id);

		for (i = n = 0; i < engine_target_count(e); i++) {
			const struct target *t = engine_target(e, i);

			if (t->role != role || t->state != TARGET_FOUND)
				continue;
			fprintf(out, n++ ? " " : "%s='", role->shell_var);
			shell_quoted_part(out, t->node);
		}
		if (n)
			fputs("'\n", out);
	}
	fputs("WAITDEV_MISSING='", out);
	for (i = n = 0; i < engine_target_count(e); i++) {
		const struct target *t = engine_target(e, i);

		if (t->state == TARGET_FOUND)
			continue;
		fprintf(out, "%s%s=", n++ ? " " : "", t->role->name);
		shell_quoted_part(out, t->spec.text);
	}
	fputs("'\n", out);
}

static void print_json(FILE *out, const struct engine *e)
{
	unsigned i, n = engine_target_count(e);
	bool all = true;

	for (i = 0; i < n; i++)
		all &= engine_target(e, i)->state == TARGET_FOUND;
	fprintf(out, "{\"status\":\"%s\",\"targets\":[", all ? "found" : "timeout");
	for (i = 0; i < n; i++) {
		const struct target *t = engine_target(e, i);

		fprintf(out, "%s{\"role\":", i ? "," : "");
		json_string(out, t->role->name);
		fputs(",\"spec\":", out);
		json_string(out, t->spec.text);
		fprintf(out, ",\"state\":\"%s\",\"device\":", state_name(t->state));
		if (t->state == TARGET_FOUND)
			json_string(out, t->node);
		else
			fputs("null", out);
		fprintf(out, ",\"waited_ms\":%llu}", (unsigned long long)t->waited_ms);
	}
	fputs("]}\n", out);
}

int result_fprint(FILE *out, enum result_format fmt, const struct engine *e)
{
	unsigned i;

	switch (fmt) {
	case RESULT_SHELL:
		print_shell(out, e);
		break;
	case RESULT_JSON:
		print_json(out, e);
		break;
	case RESULT_PLAIN:
		for (i = 0; i < engine_target_count(e); i++) {
			const struct target *t = engine_target(e, i);
			/* room for every byte escaped: never cut */
			char node[4 * sizeof(t->node) + 32];

			if (t->state != TARGET_FOUND)
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

int result_print(enum result_format fmt, const struct engine *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f) {
		log_err("%s", strerror(errno));
		return EXIT_SYSTEM;
	}
	r = result_fprint(f, fmt, e);
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
