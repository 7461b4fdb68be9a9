// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The libkmod module-loading back end. The event loop only queues aliases
 * (once each); one worker thread owns the kmod context and loads them, so
 * that a slow module init never delays the wait. libkmod applies
 * modules.dep, softdeps, install/remove commands, the blacklist of
 * modprobe.d and modprobe.blacklist= from the kernel command line.
 */
#include <errno.h>
#include <libkmod.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "modload.h"
#include "util.h"

struct modload {
	struct kmod_ctx *ctx;
	unsigned flags;
	pthread_t worker;
	pthread_mutex_t lock;
	pthread_cond_t wake, idle;
	char **queue; /* FIFO of aliases, [head, n) pending */
	size_t head, n, cap;
	bool loading; /* the worker is in load_alias(), outside the lock */
	bool stopping;
	struct modload_stats stats;
	/* aliases already queued: the event loop's thread only */
	char **seen;
	size_t n_seen, cap_seen;
};

const char *modload_backend(void)
{
	return "libkmod";
}

bool modload_available(void)
{
	return true;
}

static void kmod_log(void *data, int priority, const char *file, int line, const char *fn,
		     const char *format, va_list args)
{
	char msg[512];

	(void)data, (void)file, (void)line, (void)fn;
	vsnprintf(msg, sizeof(msg), format, args);
	msg[strcspn(msg, "\n")] = '\0';
	/* libkmod's own errors are ours to report once: keep its chatter
	 * at debug level */
	log_debug("libkmod (%d): %s", priority, msg);
}

static void print_action(struct kmod_module *mod, bool install, const char *options)
{
	(void)install;
	log_notice("dry run: would load %s%s%s", kmod_module_get_name(mod),
		   options && *options ? " " : "", options ? options : "");
}

/* Loads every module @alias resolves to; the worker thread only. */
static void load_alias(struct modload *ml, const char *alias)
{
	struct kmod_list *list = NULL, *l;
	unsigned flags = KMOD_PROBE_APPLY_BLACKLIST;
	int r;

	if (ml->flags & MODLOAD_DRY_RUN)
		flags |= KMOD_PROBE_DRY_RUN;
	r = kmod_module_new_from_lookup(ml->ctx, alias, &list);
	if (r < 0 || !list) {
		log_debug("no module for %s", alias);
		return;
	}
	kmod_list_foreach(l, list)
	{
		struct kmod_module *mod = kmod_module_get_module(l);

		/* libkmod calls print_action before inserting whether or not
		 * it is a dry run: only a dry run wants it */
		r = kmod_module_probe_insert_module(
			mod, flags, NULL, NULL, NULL,
			flags & KMOD_PROBE_DRY_RUN ? print_action : NULL);
		pthread_mutex_lock(&ml->lock);
		if (r < 0)
			ml->stats.failed++;
		else if (r == 0 && !(flags & KMOD_PROBE_DRY_RUN))
			ml->stats.loaded++;
		pthread_mutex_unlock(&ml->lock);
		/* each alias is tried once, so this is said once */
		if (r < 0)
			log_warn("cannot load %s (for %s): %s", kmod_module_get_name(mod),
				 alias, strerror(-r));
		else if (r > 0)
			log_info("%s is blacklisted", kmod_module_get_name(mod));
		else if (!(flags & KMOD_PROBE_DRY_RUN))
			log_info("loaded %s for %s", kmod_module_get_name(mod), alias);
		kmod_module_unref(mod);
	}
	kmod_module_unref_list(list);
}

static void *worker_main(void *arg)
{
	struct modload *ml = arg;

	pthread_mutex_lock(&ml->lock);
	for (;;) {
		char *alias;

		while (ml->head == ml->n && !ml->stopping) {
			pthread_cond_broadcast(&ml->idle);
			pthread_cond_wait(&ml->wake, &ml->lock);
		}
		if (ml->stopping)
			break;
		alias = ml->queue[ml->head];
		ml->queue[ml->head++] = NULL;
		ml->loading = true;
		pthread_mutex_unlock(&ml->lock);
		load_alias(ml, alias);
		free(alias);
		pthread_mutex_lock(&ml->lock);
		ml->loading = false;
	}
	pthread_cond_broadcast(&ml->idle);
	pthread_mutex_unlock(&ml->lock);
	return NULL;
}

int modload_new(struct modload **out, const char *dirname, const char *const *config,
		unsigned flags)
{
	struct modload *ml = calloc(1, sizeof(*ml));
	int r;

	if (!ml)
		return -ENOMEM;
	ml->flags = flags;
	ml->ctx = kmod_new(dirname, config);
	if (!ml->ctx) {
		free(ml);
		return -ENOENT;
	}
	kmod_set_log_fn(ml->ctx, kmod_log, NULL);
	kmod_set_log_priority(ml->ctx, 7);
	/* the indexes now, not on the first uevent */
	r = kmod_load_resources(ml->ctx);
	if (r < 0) /* libkmod falls back to reading them on demand */
		log_info("module indexes in %s: %s", dirname ? dirname : "/lib/modules",
			 strerror(-r));
	pthread_mutex_init(&ml->lock, NULL);
	pthread_cond_init(&ml->wake, NULL);
	pthread_cond_init(&ml->idle, NULL);
	r = -pthread_create(&ml->worker, NULL, worker_main, ml);
	if (r < 0) {
		kmod_unref(ml->ctx);
		free(ml);
		return r;
	}
	*out = ml;
	return 0;
}

static bool seen_before(struct modload *ml, const char *alias)
{
	size_t i;

	for (i = 0; i < ml->n_seen; i++)
		if (streq(ml->seen[i], alias))
			return true;
	return false;
}

static int push(char ***arr, size_t *n, size_t *cap, char *s)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		char **a = realloc(*arr, c * sizeof(*a));

		if (!a)
			return -ENOMEM;
		*arr = a;
		*cap = c;
	}
	(*arr)[(*n)++] = s;
	return 0;
}

int modload_request(struct modload *ml, const char *modalias)
{
	char *mine, *theirs;
	int r;

	if (!ml || !*modalias || seen_before(ml, modalias))
		return 0;
	mine = strdup(modalias);
	theirs = strdup(modalias);
	if (!mine || !theirs || push(&ml->seen, &ml->n_seen, &ml->cap_seen, mine) < 0) {
		free(mine);
		free(theirs);
		return -ENOMEM;
	}
	pthread_mutex_lock(&ml->lock);
	r = push(&ml->queue, &ml->n, &ml->cap, theirs);
	if (r == 0) {
		ml->stats.requested++;
		pthread_cond_signal(&ml->wake);
	}
	pthread_mutex_unlock(&ml->lock);
	if (r < 0)
		free(theirs);
	return r;
}

void modload_drain(struct modload *ml)
{
	if (!ml)
		return;
	pthread_mutex_lock(&ml->lock);
	while (ml->loading || ml->head < ml->n)
		pthread_cond_wait(&ml->idle, &ml->lock);
	pthread_mutex_unlock(&ml->lock);
}

struct modload_stats modload_stats(struct modload *ml)
{
	struct modload_stats s;

	pthread_mutex_lock(&ml->lock);
	s = ml->stats;
	pthread_mutex_unlock(&ml->lock);
	return s;
}

int modload_now(struct modload *ml, const char *name)
{
	unsigned flags = KMOD_PROBE_APPLY_BLACKLIST_ALIAS_ONLY;
	struct kmod_list *list = NULL, *l;
	int r;

	if (ml->flags & MODLOAD_DRY_RUN)
		flags |= KMOD_PROBE_DRY_RUN;
	r = kmod_module_new_from_lookup(ml->ctx, name, &list);
	if (r < 0)
		return r;
	if (!list)
		return -ENOENT;
	kmod_list_foreach(l, list)
	{
		struct kmod_module *mod = kmod_module_get_module(l);

		/* by name, as modprobe does: "blacklist" only stops
		 * loading through aliases */
		r = kmod_module_probe_insert_module(
			mod, flags, NULL, NULL, NULL,
			flags & KMOD_PROBE_DRY_RUN ? print_action : NULL);
		kmod_module_unref(mod);
		if (r < 0)
			break;
	}
	kmod_module_unref_list(list);
	return r < 0 ? r : 0;
}

void modload_free(struct modload *ml)
{
	bool loading;
	size_t i;

	if (!ml)
		return;
	pthread_mutex_lock(&ml->lock);
	ml->stopping = true;
	loading = ml->loading;
	for (i = ml->head; i < ml->n; i++) {
		free(ml->queue[i]);
		ml->queue[i] = NULL;
	}
	ml->head = ml->n;
	pthread_cond_signal(&ml->wake);
	pthread_mutex_unlock(&ml->lock);
	/*
	 * A worker that is idle or has not started yet sees "stopping" at
	 * once and is joined; only a load in flight (finit_module() cannot
	 * be interrupted) is left to the process's exit.
	 */
	if (loading) {
		pthread_detach(ml->worker);
		return;
	}
	pthread_join(ml->worker, NULL);
	kmod_unref(ml->ctx);
	for (i = 0; i < ml->n_seen; i++)
		free(ml->seen[i]);
	free(ml->seen);
	free(ml->queue);
	pthread_cond_destroy(&ml->wake);
	pthread_cond_destroy(&ml->idle);
	pthread_mutex_destroy(&ml->lock);
	free(ml);
}
