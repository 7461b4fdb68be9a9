// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz-cmdline.c - the kernel command line: the input bytes, up to the
 * first NUL, are one /proc/cmdline. cmdline_parse() must leave its input
 * alone; tolerant, fail only for a line too long, and give a config whose
 * specs, lists, timeouts and problems are all well-formed and the same
 * every time; strict, fail with -EINVAL and one clean message exactly
 * when the tolerant parse had a problem, else agree with it; the cmdline_next_arg() loop must stay inside the
 * buffer and always make progress.
 */
#include <ctype.h>
#include <errno.h>

#include "cmdline.h"
#include "fuzz.h"
#include "spec-check.h"

/* a year of seconds, plus the fraction "31622400.999" may add */
#define MAX_MS (366ULL * 24 * 3600 * 1000 + 999)

static bool timeout_ok(uint64_t ms)
{
	return ms == DEADLINE_FOREVER || ms <= MAX_MS;
}

static void check_config(const struct wait_config *cfg)
{
	unsigned i;

	if (cfg->role[ROLE_ROOT].n)
		fuzz_check_spec(&cfg->role[ROLE_ROOT].spec[0], DEV_BLOCK);
	else
		FUZZ_CHECK(cfg->role[ROLE_ROOT].spec[0].type == SPEC_NONE);
	/* a config says one thing: no stale spec behind "has_ = false" */
	if (cfg->role[ROLE_CONSOLE].n)
		fuzz_check_spec(&cfg->role[ROLE_CONSOLE].spec[0], DEV_TTY);
	else
		FUZZ_CHECK(cfg->role[ROLE_CONSOLE].spec[0].type == SPEC_NONE);
	FUZZ_CHECK(cfg->role[ROLE_NET].n <= CMDLINE_LIST_MAX);
	for (i = 0; i < cfg->role[ROLE_NET].n; i++)
		fuzz_check_spec(&cfg->role[ROLE_NET].spec[i], DEV_NET);
	FUZZ_CHECK(cfg->n_skipped <= CMDLINE_SKIPPED_MAX);
	for (i = 0; i < cfg->n_skipped; i++) {
		FUZZ_CHECK(memchr(cfg->skipped[i], '\0', SPEC_VALUE_MAX));
		FUZZ_CHECK(!strncmp(cfg->skipped[i], "console=", 8) ||
			   !strncmp(cfg->skipped[i], "root=", 5));
	}
	FUZZ_CHECK(timeout_ok(cfg->role[ROLE_ROOT].ms));
	FUZZ_CHECK(timeout_ok(cfg->role[ROLE_CONSOLE].ms));
	FUZZ_CHECK(timeout_ok(cfg->role[ROLE_NET].ms));
	if (cfg->has_timeout) {
		FUZZ_CHECK(timeout_ok(cfg->timeout_ms));
		FUZZ_CHECK(cfg->role[ROLE_ROOT].ms == cfg->timeout_ms &&
			   cfg->role[ROLE_CONSOLE].ms == cfg->timeout_ms &&
			   cfg->role[ROLE_NET].ms == cfg->timeout_ms);
	}
}

/* A tolerant parse's problems: one clean line each, and a target fails
 * only with a problem that says so. */
static void check_problems(const struct wait_config *cfg)
{
	unsigned i;

	for (i = 0; i < cfg->n_problems && i < CMDLINE_PROBLEMS_MAX; i++) {
		FUZZ_CHECK(memchr(cfg->problems[i], '\0', CMDLINE_PROBLEM_LEN) != NULL);
		FUZZ_CHECK(cfg->problems[i][0] != '\0');
		FUZZ_CHECK(fuzz_message_is_clean(cfg->problems[i]));
	}
	FUZZ_CHECK(!(cfg->role[ROLE_ROOT].invalid && cfg->role[ROLE_ROOT].n));
	FUZZ_CHECK(!(cfg->role[ROLE_CONSOLE].invalid && cfg->role[ROLE_CONSOLE].n));
	FUZZ_CHECK(!(cfg->role[ROLE_ROOT].invalid || cfg->role[ROLE_CONSOLE].invalid) ||
		   cfg->n_problems > 0);
}

static void check_message(const char *err, size_t size)
{
	FUZZ_CHECK(memchr(err, '\0', size) != NULL);
	FUZZ_CHECK(err[0] != '\0');
	/* one line, nothing for a terminal, whatever the input */
	FUZZ_CHECK(fuzz_message_is_clean(err));
}

static void check_parse(const char *text)
{
	struct wait_config cfg, again;
	char err[256];
	int r;

	/* tolerant: only a line too long, or one with waitdev.strict=1 and
	 * a problem, is refused; the latter strictly too */
	cmdline_config_init(&cfg);
	memset(err, 'X', sizeof(err));
	r = cmdline_parse(text, &cfg, err, sizeof(err));
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r < 0) {
		check_message(err, sizeof(err));
		if (strlen(text) <= CMDLINE_MAX) {
			FUZZ_CHECK(cfg.n_problems > 0);
			cmdline_config_init(&again);
			again.strict = true;
			FUZZ_CHECK(cmdline_parse(text, &again, NULL, 0) == -EINVAL);
		}
		return;
	}
	check_config(&cfg);
	check_problems(&cfg);
	cmdline_config_init(&again);
	FUZZ_CHECK(cmdline_parse(text, &again, NULL, 0) == 0);
	FUZZ_CHECK(memcmp(&cfg, &again, sizeof(cfg)) == 0);

	/* strict: fails exactly when the tolerant parse had a problem, and
	 * otherwise says the same */
	cmdline_config_init(&again);
	again.strict = true;
	memset(err, 'X', sizeof(err));
	r = cmdline_parse(text, &again, err, sizeof(err));
	FUZZ_CHECK(r == (cfg.n_problems ? -EINVAL : 0));
	if (r < 0) {
		check_message(err, sizeof(err));
		return;
	}
	again.strict = false;
	FUZZ_CHECK(memcmp(&cfg, &again, sizeof(cfg)) == 0);
}

/* The tokeniser on its own: pointers stay in [buf, buf + len]. */
static void check_next_arg(char *buf, size_t len)
{
	char *end = buf + len + 1, *args = buf, *prev = NULL;
	char *param, *val;
	size_t n = 0;

	while ((args = cmdline_next_arg(args, &param, &val))) {
		FUZZ_CHECK(++n <= len + 1);
		FUZZ_CHECK(param != NULL);
		FUZZ_CHECK(!prev || param > prev);
		FUZZ_CHECK(fuzz_string_inside(param, buf, end));
		if (val) {
			FUZZ_CHECK(fuzz_string_inside(val, buf, end));
			FUZZ_CHECK(val > param + strlen(param));
		}
		FUZZ_CHECK(fuzz_string_inside(args, buf, end));
		/* the next token starts after this one's end */
		FUZZ_CHECK(args >= (val ? val + strlen(val) : param + strlen(param)));
		prev = param;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *copy;
	size_t len;

	/* longer than CMDLINE_MAX only to see the refusal */
	if (size > CMDLINE_MAX + 16)
		return 0;
	text = malloc(size + 1);
	copy = malloc(size + 1);
	if (!text || !copy) {
		free(text);
		free(copy);
		return 0;
	}
	memcpy(text, data, size);
	text[size] = '\0';
	len = strlen(text);
	memcpy(copy, text, size + 1);

	check_parse(text);
	FUZZ_CHECK(memcmp(text, copy, size + 1) == 0); /* const means const */

	/* also a net list, as the value of waitdev.net= */
	{
		struct wait_config cfg;
		unsigned i;
		int r;

		cmdline_config_init(&cfg);
		r = cmdline_parse_list(&role_table[ROLE_NET], "waitdev.net", text,
				       &cfg.role[ROLE_NET], NULL, 0);
		FUZZ_CHECK(r == 0 || r == -EINVAL);
		if (r == 0) {
			FUZZ_CHECK(cfg.role[ROLE_NET].n <= CMDLINE_LIST_MAX);
			FUZZ_CHECK(cfg.role[ROLE_NET].n > 0 || len == 0);
			for (i = 0; i < cfg.role[ROLE_NET].n; i++)
				fuzz_check_spec(&cfg.role[ROLE_NET].spec[i], DEV_NET);
		}
	}

	check_next_arg(copy, len);
	free(text);
	free(copy);
	return 0;
}
