// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The libkmod back end against a module tree made by depmod from fake
 * modules (make-fixture.sh): which modules a MODALIAS would load, with
 * modules.dep and softdeps, once per alias, in dry-run mode; and the same
 * driven by uevents through the engine. Nothing is ever loaded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../engine/fakesys.h"
#include "engine.h"
#include "log.h"
#include "modload.h"
#include "test.h"
#include "util.h"

static char moddir[512];

/* Runs @fn with stderr captured into @out. */
static void capture(void (*fn)(void *), void *ctx, char *out, size_t size)
{
	char path[] = "/tmp/waitdev-modload-XXXXXX";
	int fd = mkstemp(path), saved;
	ssize_t n;

	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	fn(ctx);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, out, size - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
}

struct direct {
	const char *const *aliases;
	const char *const *config; /* modprobe.d directories */
	struct modload_stats stats;
};

static void run_direct(void *ctx)
{
	struct direct *d = ctx;
	struct modload *ml;
	unsigned i;

	if (modload_new(&ml, moddir, d->config, MODLOAD_DRY_RUN) < 0) {
		fprintf(stderr, "modload_new failed\n");
		return;
	}
	for (i = 0; d->aliases[i]; i++)
		modload_request(ml, d->aliases[i]);
	modload_drain(ml);
	d->stats = modload_stats(ml);
	modload_free(ml);
}

/* Which modules, in which order, from the "would load" lines. */
static void would_load(const char *log, char *out, size_t size)
{
	const char *p = log;

	out[0] = '\0';
	while ((p = strstr(p, "would load "))) {
		size_t n = strcspn(p + 11, " \n");

		if (out[0])
			strncat(out, " ", size - strlen(out) - 1);
		strncat(out, p + 11,
			n < size - strlen(out) - 1 ? n : size - strlen(out) - 1);
		p += 11;
	}
}

static void test_aliases(void)
{
	static const char *const pci[] = { "pci:"
					   "v00008086d00001234sv00001AF4sd00001"
					   "100bc01sc06i01",
					   NULL };
	static const char *const usb[] = { "usb:"
					   "v1234p5678d0100dc00dsc00dp00ic08isc"
					   "06ip50in00",
					   NULL };
	static const char *const twice[] = { "pci:"
					     "v00008086d00001234sv00001AF4sd000"
					     "01100bc01sc06i01",
					     "pci:"
					     "v00008086d00001234sv00001AF4sd000"
					     "01100bc01sc06i01",
					     "acpi:NOTHING0:", NULL };
	char log[8192], mods[256];
	struct direct d = { .aliases = pci };

	capture(run_direct, &d, log, sizeof(log));
	would_load(log, mods, sizeof(mods));
	CHECK_STR(mods, "fake_a");

	/* modules.dep (fake_a), then the softdep (fake_c), then fake_b */
	d.aliases = usb;
	capture(run_direct, &d, log, sizeof(log));
	would_load(log, mods, sizeof(mods));
	CHECK_STR(mods, "fake_a fake_c fake_b");

	/* each alias is handled once; an unknown one loads nothing */
	d.aliases = twice;
	capture(run_direct, &d, log, sizeof(log));
	would_load(log, mods, sizeof(mods));
	CHECK_STR(mods, "fake_a");
	CHECK_INT(d.stats.requested, 2);
	CHECK_INT(d.stats.failed, 0);
}

/* "blacklist fake_a" in modprobe.d: its alias loads nothing */
static void test_blacklist(void)
{
	static const char *const pci[] = { "pci:"
					   "v00008086d00001234sv00001AF4sd00001"
					   "100bc01sc06i01",
					   NULL };
	char conf[] = "/tmp/waitdev-modprobe.d-XXXXXX", path[300];
	const char *config[] = { conf, NULL };
	struct direct d = { .aliases = pci, .config = config };
	char log[8192], mods[256];
	FILE *f;

	if (!mkdtemp(conf))
		exit(99);
	snprintf(path, sizeof(path), "%s/blacklist.conf", conf);
	f = fopen(path, "w");
	if (!f)
		exit(99);
	fputs("blacklist fake_a\n", f);
	fclose(f);
	log_set_level(LOG_LVL_INFO);
	capture(run_direct, &d, log, sizeof(log));
	log_set_level(LOG_LVL_NOTICE);
	would_load(log, mods, sizeof(mods));
	CHECK_STR(mods, "");
	CHECK_MSG(strstr(log, "fake_a is blacklisted"), "log:\n%s", log);
	unlink(path);
	rmdir(conf);
}

struct via_engine {
	struct fakesys fs;
	int status;
};

static void run_engine(void *ctx)
{
	struct via_engine *v = ctx;
	struct engine_options opts = {
		.sysfs_root = v->fs.root,
		.uevent_fd = v->fs.feed[0],
	};
	struct engine *e;
	struct spec spec;
	char err[100];

	if (modload_new(&opts.modload, moddir, NULL, MODLOAD_DRY_RUN) < 0 ||
	    engine_new(&e, &opts) < 0) {
		fprintf(stderr, "setup failed\n");
		return;
	}
	spec_parse_block("/dev/sdq", &spec, err, sizeof(err));
	engine_add_target(e, &role_table[ROLE_ROOT], &spec, 300);
	v->status = engine_run(e);
	modload_drain(engine_modload(e));
	engine_free(e);
}

static void send_modalias(struct fakesys *fs, const char *devpath, const char *subsystem,
			  const char *modalias)
{
	char buf[1024];
	int n;

	n = snprintf(buf, sizeof(buf),
		     "add@%s%cACTION=add%cDEVPATH=%s%cSUBSYSTEM=%s%c"
		     "MODALIAS=%s%cSEQNUM=%u%c",
		     devpath, 0, 0, devpath, 0, subsystem, 0, modalias, 0, ++fs->seqnum,
		     0);
	fakesys_send_raw(fs, buf, (size_t)n);
}

/* uevents of any subsystem feed the loader, before any matching */
static void test_engine_feeds_loader(void)
{
	struct via_engine v = { .status = -1 };
	char log[8192], mods[256];

	fakesys_init(&v.fs);
	send_modalias(&v.fs, "/devices/pci0000:00/0000:00:04.0", "pci",
		      "pci:v00008086d00001234sv00001AF4sd00001100bc01sc06i01");
	send_modalias(&v.fs, "/devices/pci0000:00/0000:00:05.0/usb1/1-1/1-1:1.0", "usb",
		      "usb:v1234p5678d0100dc00dsc00dp00ic08isc06ip50in00");
	capture(run_engine, &v, log, sizeof(log));
	would_load(log, mods, sizeof(mods));
	CHECK_INT(v.status, ENGINE_DEADLINE);
	/* a dry run loads nothing, so fake_a is "loaded" again for fake_b */
	CHECK_STR(mods, "fake_a fake_a fake_c fake_b");
	fakesys_cleanup(&v.fs);
}

int main(int argc, char **argv)
{
	char cmd[1024], dir[] = "/tmp/waitdev-kmod-XXXXXX";
	FILE *p;

	if (argc != 2) {
		fprintf(stderr, "usage: test-modload MAKE-FIXTURE.SH\n");
		return 2;
	}
	log_set_program("test-modload");
	log_set_level(LOG_LVL_NOTICE);
	if (!modload_available()) {
		struct modload *ml;

		/* a build without libkmod must refuse, not pretend */
		CHECK_INT(modload_new(&ml, NULL, NULL, 0), -EOPNOTSUPP);
		return test_summary("test-modload (no libkmod)");
	}
	if (!mkdtemp(dir))
		return 99;
	snprintf(cmd, sizeof(cmd), "sh '%s' '%s'", argv[1], dir);
	p = popen(cmd, "r");
	if (!p || !fgets(moddir, sizeof(moddir), p) || pclose(p) != 0) {
		fprintf(stderr, "test-modload: could not build the fixture "
				"(needs cc and depmod): FAILING\n");
		return 1;
	}
	moddir[strcspn(moddir, "\n")] = '\0';
	test_aliases();
	test_blacklist();
	test_engine_feeds_loader();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return test_summary("test-modload");
}
