// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The libkmod module-loading back end. The event loop only queues aliases
 * (once each) on a pipe; a loader child process, forked at the first
 * request, owns a copy of the kmod context and loads them, so that a slow
 * module init never delays the wait. A process, not a thread: a task in
 * finit_module() (or reading a module file from a device that stalls)
 * cannot be killed until it returns, and a thread of ours in there would
 * hold our exit, and our parent's waitpid(), until then. The loader is
 * left behind instead: it finishes the load it is in and exits (init
 * reaps it). libkmod applies modules.dep, softdeps, install/remove
 * commands, the blacklist of modprobe.d and modprobe.blacklist= from the
 * kernel command line.
 */
#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "modload.h"
#include "util.h"

/* What the loader says after each alias: its totals so far (one atomic
 * pipe write, so that a reader never sees half of one). */
struct loader_report {
	uint64_t done, loaded, failed;
};

/* room for the requests no one has read yet: aliases are a few dozen
 * bytes, a boot asks for a few hundred */
#define REQUEST_PIPE_SIZE (1024 * 1024)

struct modload {
	struct kmod_ctx *ctx;
	unsigned flags;
	pid_t loader;	  /* 0 until the first request */
	int request_fd;	  /* aliases, one per line, to the loader; -1 */
	int report_fd;	  /* struct loader_report from it; -1 */
	uint64_t done;	  /* aliases the loader has finished */
	bool warned;	  /* "cannot queue" said once */
	bool loader_gone; /* its reports ended (EOF) */
	struct modload_stats stats;
	/* aliases already queued */
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

/* Loads every module @alias resolves to, adding to @rep; the loader only. */
static void load_alias(struct modload *ml, const char *alias, struct loader_report *rep)
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
		/* each alias is tried once, so this is said once */
		if (r < 0) {
			rep->failed++;
			log_warn("cannot load %s (for %s): %s", kmod_module_get_name(mod),
				 alias, strerror(-r));
		} else if (r > 0) {
			log_info("%s is blacklisted", kmod_module_get_name(mod));
		} else if (!(flags & KMOD_PROBE_DRY_RUN)) {
			rep->loaded++;
			log_info("loaded %s for %s", kmod_module_get_name(mod), alias);
		}
		kmod_module_unref(mod);
	}
	kmod_module_unref_list(list);
}

/* In the loader: whether anyone still reads our reports (the parent has
 * not freed us or exited); the queue is dropped when not. */
static bool loader_wanted(int report_fd)
{
	struct pollfd p = { .fd = report_fd, .events = POLLOUT };

	/* a pipe's write end polls POLLERR once no reader is left */
	return poll(&p, 1, 0) >= 0 && !(p.revents & POLLERR);
}

/* In the loader: blocks until the report is written or no one reads. */
static bool loader_report(int report_fd, const struct loader_report *rep)
{
	for (;;) {
		ssize_t n = write(report_fd, rep, sizeof(*rep));

		if (n == (ssize_t)sizeof(*rep))
			return true;
		if (n >= 0 || errno != EINTR)
			return false; /* EPIPE: the parent is gone */
	}
}

/*
 * The loader child: aliases from @request_fd, one per line, loaded in
 * turn, totals to @report_fd after each. Ends at EOF (the parent freed
 * us or exited) or as soon as no one reads its reports, never in a load.
 */
static void __attribute__((noreturn))
loader_run(struct modload *ml, int request_fd, int report_fd)
{
	int keep[] = { request_fd, report_fd, log_kmsg_fd() };
	struct loader_report rep = { 0 };
	static char buf[2 * PIPE_BUF];
	size_t len = 0;

	/* the parent's sockets, timer and other children's pipes are not
	 * ours: holding them would keep them alive past the parent */
	close_fds_except(keep, ARRAY_SIZE(keep));
	/* SIGTERM and SIGINT stay blocked, as the parent blocked them: no
	 * signal but SIGKILL interrupts a module's init */
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_NAME, "waitdev-modload");
	for (;;) {
		char *nl = memchr(buf, '\n', len);
		ssize_t n;

		if (nl) {
			*nl = '\0';
			if (!loader_wanted(report_fd))
				break;
			load_alias(ml, buf, &rep);
			rep.done++;
			if (!loader_report(report_fd, &rep))
				break;
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
			continue;
		}
		if (len == sizeof(buf))
			len = 0; /* no request is this long (modload_request) */
		n = read(request_fd, buf + len, sizeof(buf) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(request_fd);
	close(report_fd);
	log_close_kmsg();
	_exit(0);
}

/* Starts the loader with its two pipes; 0 or -errno. */
static int loader_start(struct modload *ml)
{
	int req[2] = { -1, -1 }, rep[2] = { -1, -1 };
	pid_t pid;
	int i, r;

	if (pipe2(req, O_CLOEXEC) < 0 || pipe2(rep, O_CLOEXEC) < 0)
		goto fail;
	/* best effort: the default 64 KiB holds a few hundred aliases */
	fcntl(req[1], F_SETPIPE_SZ, REQUEST_PIPE_SIZE);
	/* ours never block: a full queue is refused, reports are read
	 * when they are there */
	if (fcntl(req[1], F_SETFL, O_NONBLOCK) < 0 ||
	    fcntl(rep[0], F_SETFL, O_NONBLOCK) < 0)
		goto fail;
	pid = fork();
	if (pid < 0)
		goto fail;
	if (pid == 0)
		loader_run(ml, req[0], rep[1]);
	close(req[0]);
	close(rep[1]);
	ml->loader = pid;
	ml->request_fd = req[1];
	ml->report_fd = rep[0];
	return 0;
fail:
	r = -errno;
	for (i = 0; i < 2; i++) {
		if (req[i] >= 0)
			close(req[i]);
		if (rep[i] >= 0)
			close(rep[i]);
	}
	return r;
}

int modload_new(struct modload **out, const char *dirname, const char *const *config,
		unsigned flags)
{
	struct modload *ml = calloc(1, sizeof(*ml));
	int r;

	if (!ml)
		return -ENOMEM;
	ml->flags = flags;
	ml->request_fd = -1;
	ml->report_fd = -1;
	ml->ctx = kmod_new(dirname, config);
	if (!ml->ctx) {
		free(ml);
		return -ENOENT;
	}
	kmod_set_log_fn(ml->ctx, kmod_log, NULL);
	kmod_set_log_priority(ml->ctx, 7);
	/* the indexes now, not on the first uevent (the loader inherits
	 * them) */
	r = kmod_load_resources(ml->ctx);
	if (r < 0) /* libkmod falls back to reading them on demand */
		log_info("module indexes in %s: %s", dirname ? dirname : "/lib/modules",
			 strerror(-r));
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

static int remember(struct modload *ml, const char *alias)
{
	char *copy;

	if (ml->n_seen == ml->cap_seen) {
		size_t c = ml->cap_seen ? ml->cap_seen * 2 : 64;
		char **a = realloc(ml->seen, c * sizeof(*a));

		if (!a)
			return -ENOMEM;
		ml->seen = a;
		ml->cap_seen = c;
	}
	copy = strdup(alias);
	if (!copy)
		return -ENOMEM;
	ml->seen[ml->n_seen++] = copy;
	return 0;
}

/* Takes the loader's reports that are there; with @wait, blocks until it
 * has finished every request (or is gone). */
static void read_reports(struct modload *ml, bool wait)
{
	struct loader_report rep[64];

	while (ml->report_fd >= 0) {
		ssize_t n = read(ml->report_fd, rep, sizeof(rep));

		if (n > 0) {
			/* writes are whole reports, so reads are too */
			const struct loader_report *last =
				&rep[(size_t)n / sizeof(rep[0]) - 1];

			ml->done = last->done;
			ml->stats.loaded = last->loaded;
			ml->stats.failed = last->failed;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN && wait && ml->done < ml->stats.requested) {
			struct pollfd p = { .fd = ml->report_fd, .events = POLLIN };

			poll(&p, 1, -1);
			continue;
		}
		if (n == 0 || (n < 0 && errno != EAGAIN))
			ml->loader_gone = true; /* nothing more will come */
		return;
	}
}

int modload_request(struct modload *ml, const char *modalias)
{
	char line[PIPE_BUF];
	size_t len;
	int r;

	if (!ml || !*modalias || seen_before(ml, modalias))
		return 0;
	/* one line, one atomic write; no real alias comes near the limit */
	len = strlen(modalias);
	if (len >= sizeof(line) - 1 || strchr(modalias, '\n'))
		return -EINVAL;
	if (!ml->loader) {
		r = loader_start(ml);
		if (r < 0)
			return r;
	}
	read_reports(ml, false);
	memcpy(line, modalias, len);
	line[len++] = '\n';
	if (write(ml->request_fd, line, len) != (ssize_t)len) {
		/* the loader has REQUEST_PIPE_SIZE bytes of aliases to go:
		 * dropped, and tried again if another event names it */
		r = -errno;
		if (!ml->warned)
			log_warn("cannot queue %s for loading: %s", modalias,
				 strerror(-r));
		ml->warned = true;
		return r;
	}
	ml->stats.requested++;
	return remember(ml, modalias);
}

void modload_drain(struct modload *ml)
{
	if (ml)
		read_reports(ml, true);
}

bool modload_idle(struct modload *ml)
{
	if (!ml)
		return true;
	read_reports(ml, false);
	return ml->report_fd < 0 || ml->loader_gone || ml->done >= ml->stats.requested;
}

int modload_report_fd(const struct modload *ml)
{
	return ml ? ml->report_fd : -1;
}

struct modload_stats modload_stats(struct modload *ml)
{
	read_reports(ml, false);
	return ml->stats;
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
	size_t i;

	if (!ml)
		return;
	/*
	 * The loader sees EOF, or no reader, once it is done with the load
	 * it is in, and exits: what is still queued is dropped, a load in
	 * flight is not waited for (the kernel finishes it). Reaped here
	 * if it is gone already; else init reaps it.
	 */
	if (ml->request_fd >= 0)
		close(ml->request_fd);
	if (ml->report_fd >= 0)
		close(ml->report_fd);
	if (ml->loader > 0)
		waitpid(ml->loader, NULL, WNOHANG);
	kmod_unref(ml->ctx);
	for (i = 0; i < ml->n_seen; i++)
		free(ml->seen[i]);
	free(ml->seen);
	free(ml);
}
