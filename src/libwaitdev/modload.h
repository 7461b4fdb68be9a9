/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * modload.h - the module-loading back end: load the driver for every
 * MODALIAS a uevent carries, so that in an initramfs without udevd the
 * device a driver produces (the disk behind usb-storage, the tty behind
 * cdc_acm) shows up at all.
 *
 * Loading is asynchronous with respect to the wait: requests are queued
 * and a loader process loads them, so a slow module never delays noticing
 * a device, nor the exit. Each alias is handled once; failures are logged
 * once (by the loader, on the same stderr and kmsg). The caller ignores
 * SIGPIPE (startup_signals()): a loader that died is EPIPE.
 * One back end is linked in: modload_kmod.c (libkmod) or modload_none.c.
 */
#ifndef WAITDEV_MODLOAD_H
#define WAITDEV_MODLOAD_H

#include <stdbool.h>

enum {
	MODLOAD_DRY_RUN = 1 << 0, /* log what would be loaded, load nothing */
};

struct modload;

/* The library the back end uses, "none" for modload_none.c. */
const char *modload_backend(void);
bool modload_available(void);

/*
 * Sets up the loader (libkmod context and its indexes; the loader process
 * starts at the first request, so modload_now() alone forks nothing).
 * @dirname: the module
 * directory, NULL for /lib/modules/$(uname -r); @config: modprobe.d
 * directories, NULL for the system's. Returns 0 or -errno (-EOPNOTSUPP
 * without a back end).
 */
int modload_new(struct modload **out, const char *dirname, const char *const *config,
		unsigned flags);
/*
 * Drops what is still queued and frees the loader. A load in progress is
 * not waited for (the device it produces no longer matters to us; the
 * kernel finishes it): the loader process finishes it and exits, and
 * whoever is its parent then reaps it. Never blocks.
 */
void modload_free(struct modload *ml);

/* Tests: blocks until every queued request was handled (or the loader
 * is gone). */
void modload_drain(struct modload *ml);

/* Requests queued (after de-duplication), loaded, failed. */
struct modload_stats {
	unsigned long requested, loaded, failed;
};
struct modload_stats modload_stats(struct modload *ml);

/*
 * Whether every request queued so far has been handled (loaded, failed,
 * or the loader is gone): the drivers they name are registered, and
 * bound to the devices that wanted them. Reads the loader's reports
 * that are there; never blocks. True for NULL.
 */
bool modload_idle(struct modload *ml);

/* What becomes readable when the loader reports (after each request it
 * handles), to wait on; -1 before the first request, and for NULL. */
int modload_report_fd(const struct modload *ml);

/* Queues @modalias for loading and returns at once; 0 or -errno (-EINVAL
 * for one with a newline or longer than PIPE_BUF; -EAGAIN when a
 * megabyte of requests waits already: then dropped, and tried again if
 * it comes again). */
int modload_request(struct modload *ml, const char *modalias);

/*
 * Loads one module by name or alias synchronously (the modprobe entry
 * point). Returns 0, -ENOENT when nothing matches, or -errno.
 */
int modload_now(struct modload *ml, const char *name);

#endif
