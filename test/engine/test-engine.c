// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Engine tests: the real event loop, sysfs scanner, uevent parser and
 * matchers, over a fake sysfs tree and an injected uevent feed (plus the
 * real netlink socket for the overflow test). Needs root: the feed checks
 * credentials (uid 0), forging them needs CAP_SETUID and flooding the
 * uevent group needs CAP_NET_ADMIN.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmdline.h"
#include "engine.h"
#include "fakesys.h"
#include "log.h"
#include "probe.h"
#include "report.h"
#include "result.h"
#include "test.h"
#include "util.h"

struct run {
	struct fakesys fs;
	char dev[300]; /* device nodes to probe: image files, or nothing */
	struct engine *e;
	int status;
	pid_t child;
	int settle_fd; /* the FIFO standing in for bus/usb/settle, or -1 */
};

static void run_begin(struct run *r, bool kernel_source)
{
	memset(r, 0, sizeof(*r));
	fakesys_init(&r->fs);
	snprintf(r->dev, sizeof(r->dev), "%s/dev", r->fs.root);
	mkdir(r->dev, 0755);
	r->child = -1;
	r->settle_fd = -1;
	(void)kernel_source;
}

/* engine_new() over the run's fake tree with what @opts adds (the
 * uevent feed, hooks, the probe); exits the test if it fails. */
static struct engine *engine_over(struct run *r, struct engine_options opts)
{
	opts.sysfs_root = r->fs.root;
	opts.dev_root = r->dev;
	if (engine_new(&r->e, &opts) < 0) {
		fprintf(stderr, "engine_new failed\n");
		exit(99);
	}
	return r->e;
}

static struct engine *engine_for(struct run *r, bool kernel_source, int rcvbuf,
				 void (*after_subscribe)(void *),
				 void (*after_scan)(void *))
{
	struct engine_options opts = {
		.uevent_fd = kernel_source ? -1 : r->fs.feed[0],
		.rcvbuf = rcvbuf,
		.after_subscribe = after_subscribe,
		.after_scan = after_scan,
		.hook_ctx = r,
	};

	if (kernel_source) {
		close(r->fs.feed[0]);
		r->fs.feed[0] = -1;
	}
	return engine_over(r, opts);
}

static void add_block_target(struct engine *e, const char *spec_text, uint64_t timeout_ms)
{
	struct spec spec;
	char err[200];

	if (spec_parse_block(spec_text, &spec, err, sizeof(err)) < 0 ||
	    engine_add_target(e, &role_table[ROLE_ROOT], &spec, timeout_ms) < 0) {
		fprintf(stderr, "bad test spec %s: %s\n", spec_text, err);
		exit(99);
	}
}

static void add_console_target(struct engine *e, const char *spec_text,
			       uint64_t timeout_ms)
{
	struct spec spec;
	char err[200];

	if (spec_parse_console(spec_text, &spec, err, sizeof(err)) < 0 ||
	    engine_add_target(e, &role_table[ROLE_CONSOLE], &spec, timeout_ms) < 0) {
		fprintf(stderr, "bad test spec %s\n", spec_text);
		exit(99);
	}
}

static void add_net_target(struct engine *e, const char *spec_text, uint64_t timeout_ms)
{
	struct spec spec;
	char err[200];

	if (spec_parse_net(spec_text, &spec, err, sizeof(err)) < 0 ||
	    engine_add_target(e, &role_table[ROLE_NET], &spec, timeout_ms) < 0) {
		fprintf(stderr, "bad test spec %s\n", spec_text);
		exit(99);
	}
}

/*
 * Forks; the child runs @fn(@arg) and exits with what it returns, so a
 * crash or a failed check in it is the parent's to judge, not the end of
 * the test program. Before it exits, the child closes every descriptor
 * above 2: they are copies of the parent's (the engine's, the feed),
 * which valgrind --track-fds would count as the child's leaks. Returns
 * the child's pid.
 */
static pid_t spawn(int (*fn)(void *arg), void *arg)
{
	pid_t pid;

	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(99);
	}
	if (pid == 0) {
		int status = fn(arg);
		long fd, max = sysconf(_SC_OPEN_MAX);

		fflush(stderr);
		for (fd = 3; fd < max; fd++)
			close((int)fd);
		_exit(status);
	}
	return pid;
}

/* spawn() and wait: the child's wait status. */
static int in_child(int (*fn)(void *arg), void *arg)
{
	pid_t pid = spawn(fn, arg);
	int st;

	waitpid(pid, &st, 0);
	return st;
}

/* Whether a wait status is "exited with @code". */
static bool exited(int st, int code)
{
	return WIFEXITED(st) && WEXITSTATUS(st) == code;
}

static void run_end(struct run *r)
{
	if (r->child > 0) {
		int st;

		waitpid(r->child, &st, 0);
		CHECK_MSG(exited(st, 0), "helper child failed");
	}
	engine_free(r->e);
	if (r->settle_fd >= 0)
		close(r->settle_fd);
	fakesys_cleanup(&r->fs);
}

struct later {
	struct run *run;
	unsigned delay_ms;
	void (*fn)(struct fakesys *fs);
};

static int run_later(void *arg)
{
	const struct later *l = arg;

	usleep(l->delay_ms * 1000);
	l->fn(&l->run->fs);
	return 0;
}

/* Runs @fn in a child after @delay_ms: a device "arriving late". */
static void later(struct run *r, unsigned delay_ms, void (*fn)(struct fakesys *fs))
{
	struct later l = { r, delay_ms, fn };

	r->child = spawn(run_later, &l);
}

static const struct target *target0(const struct run *r)
{
	return engine_target(r->e, 0);
}

static void test_present(void)
{
	struct run r;

	run_begin(&r, false);
	fakesys_add_block(&r.fs, "sda1", 8, 1, 2048, "root", true);
	add_block_target(engine_for(&r, false, 0, NULL, NULL), "/dev/sda1", 1000);
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);
	CHECK_STR(target0(&r)->node, "/dev/sda1");
	CHECK_WITHIN(target0(&r)->waited_ms, 499);
	/* nothing had to be received: the scan found it */
	CHECK_INT(engine_stats(r.e).source.received, 0);
	run_end(&r);

	/* the same device by MAJ:MIN and by PARTLABEL */
	run_begin(&r, false);
	fakesys_add_block(&r.fs, "sda1", 8, 1, 2048, "root", true);
	engine_for(&r, false, 0, NULL, NULL);
	add_block_target(r.e, "8:1", 1000);
	add_block_target(r.e, "PARTLABEL=root", 1000);
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);
	CHECK_STR(engine_target(r.e, 1)->node, "/dev/sda1");
	run_end(&r);
}

static void plug_sdb(struct fakesys *fs)
{
	fakesys_add_block(fs, "sdb", 8, 16, 4096, NULL, true);
	fakesys_send_block(fs, "add", "sdb", 8, 16, 0);
}

static void test_late(void)
{
	struct run r;

	run_begin(&r, false);
	add_block_target(engine_for(&r, false, 0, NULL, NULL), "sdb", 5000);
	later(&r, 150, plug_sdb);
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);
	CHECK_STR(target0(&r)->node, "/dev/sdb");
	CHECK_MSG(target0(&r)->waited_ms >= 100,
		  "found after %llu ms, before the device came",
		  (unsigned long long)target0(&r)->waited_ms);
	CHECK_INT(engine_stats(r.e).source.accepted, 1);
	run_end(&r);
}

/* Appears after we subscribed but where the scan does not look: only the
 * queued uevent can tell us. */
static void window_with_event(void *ctx)
{
	struct run *r = ctx;

	fakesys_add_block(&r->fs, "sdc", 8, 32, 4096, NULL, false);
	fakesys_send_block(&r->fs, "add", "sdc", 8, 32, 0);
}

static void window_without_event(void *ctx)
{
	struct run *r = ctx;

	fakesys_add_block(&r->fs, "sdc", 8, 32, 4096, NULL, false);
}

static void test_window(void)
{
	struct run r;

	run_begin(&r, false);
	add_block_target(engine_for(&r, false, 0, window_with_event, NULL), "/dev/sdc",
			 2000);
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);
	CHECK_STR(target0(&r)->node, "/dev/sdc");
	run_end(&r);

	/* control: without the event the fake device stays invisible */
	run_begin(&r, false);
	add_block_target(engine_for(&r, false, 0, window_without_event, NULL), "/dev/sdc",
			 200);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	run_end(&r);
}

static void test_add_remove(void)
{
	struct run r;

	/* plugged and pulled before the console came: root stops counting */
	run_begin(&r, false);
	fakesys_add_block(&r.fs, "sdd", 8, 48, 4096, NULL, false);
	fakesys_send_block(&r.fs, "add", "sdd", 8, 48, 0);
	fakesys_send_block(&r.fs, "remove", "sdd", 8, 48, 0);
	engine_for(&r, false, 0, NULL, NULL);
	add_block_target(r.e, "/dev/sdd", 300);
	add_console_target(r.e, "ttyNOPE0", 300);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_INT(target0(&r)->state, TARGET_EXPIRED);
	CHECK_INT(target0(&r)->lost, 1);
	run_end(&r);

	/* plugged, pulled, plugged again: found the second time */
	run_begin(&r, false);
	fakesys_add_block(&r.fs, "sdd", 8, 48, 4096, NULL, false);
	fakesys_send_block(&r.fs, "add", "sdd", 8, 48, 0);
	fakesys_send_block(&r.fs, "remove", "sdd", 8, 48, 0);
	fakesys_send_block(&r.fs, "add", "sdd", 8, 48, 0);
	engine_for(&r, false, 0, NULL, NULL);
	add_block_target(r.e, "/dev/sdd", 1000);
	add_console_target(r.e, "ttyNOPE0", 300);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE); /* the console */
	CHECK_INT(target0(&r)->state, TARGET_FOUND);
	CHECK_INT(target0(&r)->lost, 1);
	run_end(&r);
}

static void insert_media(struct fakesys *fs)
{
	fakesys_set_size(fs, "sde", 8192);
	fakesys_send_block(fs, "change", "sde", 8, 64, 0);
}

static void test_size_zero(void)
{
	struct run r;

	run_begin(&r, false);
	fakesys_add_block(&r.fs, "sde", 8, 64, 0, NULL, true);
	add_block_target(engine_for(&r, false, 0, NULL, NULL), "/dev/sde", 5000);
	later(&r, 200, insert_media);
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);
	CHECK_MSG(target0(&r)->waited_ms >= 150,
		  "a reader without media was taken as ready (%llu ms)",
		  (unsigned long long)target0(&r)->waited_ms);
	run_end(&r);

	/* and with no change event it is never ready */
	run_begin(&r, false);
	fakesys_add_block(&r.fs, "sde", 8, 64, 0, NULL, true);
	add_block_target(engine_for(&r, false, 0, NULL, NULL), "/dev/sde", 200);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	run_end(&r);
}

/* lvcreate/cryptsetup: dm-N appears named but empty, then gets a table */
static void dm_create(struct fakesys *fs)
{
	fakesys_add_block(fs, "dm-0", 254, 0, 0, NULL, false);
	fakesys_set_dm_name(fs, "dm-0", "wdt--vg-root");
	fakesys_send_block(fs, "add", "dm-0", 254, 0, 0);
	usleep(200 * 1000);
	fakesys_set_size(fs, "dm-0", 8192);
	fakesys_send_block(fs, "change", "dm-0", 254, 0, 0);
}

static void test_device_mapper(void)
{
	struct run r;

	run_begin(&r, false);
	engine_for(&r, false, 0, NULL, NULL);
	add_block_target(r.e, "/dev/wdt-vg/root", 5000);
	add_block_target(r.e, "/dev/mapper/wdt--vg-root", 5000);
	add_block_target(r.e, "/dev/mapper/other", 300);
	later(&r, 100, dm_create);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_STR(engine_target(r.e, 0)->node, "/dev/dm-0");
	CHECK_STR(engine_target(r.e, 1)->node, "/dev/dm-0");
	CHECK_INT(engine_target(r.e, 2)->state, TARGET_EXPIRED);
	/* the table came 200 ms after the named device */
	CHECK_MSG(engine_target(r.e, 0)->waited_ms >= 250,
		  "an empty device-mapper device was taken as ready (%llu ms)",
		  (unsigned long long)engine_target(r.e, 0)->waited_ms);
	run_end(&r);
}

static void test_forged(void)
{
	struct run r;
	struct engine_stats s;

	run_begin(&r, false);
	fakesys_add_block(&r.fs, "sdf", 8, 80, 4096, NULL, false);
	fakesys_send_block(&r.fs, "add", "sdf", 8, 80, 65534);
	add_block_target(engine_for(&r, false, 0, NULL, NULL), "/dev/sdf", 300);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	s = engine_stats(r.e);
	CHECK_INT(s.source.forged, 1);
	CHECK_INT(s.source.accepted, 0);
	run_end(&r);

	/* control: the same datagram from uid 0 is believed */
	run_begin(&r, false);
	fakesys_add_block(&r.fs, "sdf", 8, 80, 4096, NULL, false);
	fakesys_send_block(&r.fs, "add", "sdf", 8, 80, 0);
	add_block_target(engine_for(&r, false, 0, NULL, NULL), "/dev/sdf", 1000);
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);
	run_end(&r);

	/* the netlink rule: only port id 0 is the kernel */
	{
		struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
		struct sockaddr_nl user = { .nl_family = AF_NETLINK, .nl_pid = 4242 };

		struct ucred root = { .pid = 0, .uid = 0 };
		struct ucred user_uid = { .pid = 0, .uid = 1000 };
		struct ucred root_pid = { .pid = 4242, .uid = 0 };

		CHECK(source_sender_trusted(&kernel, &root));
		CHECK(!source_sender_trusted(&user, &root));
		CHECK(!source_sender_trusted(&kernel, NULL));
		CHECK(!source_sender_trusted(&kernel, &user_uid));
		CHECK(!source_sender_trusted(NULL, &user_uid));
		/* re-broadcast by the kernel for a root sender */
		CHECK(!source_sender_trusted(&kernel, &root_pid));
		/* the fd source: a sender cannot claim pid 0 there */
		CHECK(source_sender_trusted(NULL, &root_pid));
	}
}

/*
 * Since Linux 4.18 the kernel re-broadcasts a uevent that a root process
 * sends to it (uevent_net_rcv()): on group 1, from port id 0, with uid
 * 0, and with the sender's pid in the credentials, where the kernel's own
 * uevents carry pid 0. The device (sdq) exists but is not listed: only
 * the forged "add" could make it found.
 */
static void send_to_kernel(void *ctx)
{
	struct run *r = ctx;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	char buf[1024];
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	int fd, n;

	(void)r;
	n = snprintf(buf + NLMSG_HDRLEN, sizeof(buf) - NLMSG_HDRLEN,
		     "add@/devices/virtual/block/sdq%cACTION=add%c"
		     "DEVPATH=/devices/virtual/block/sdq%cSUBSYSTEM=block%c"
		     "MAJOR=8%cMINOR=224%cDEVNAME=sdq%cDEVTYPE=disk%c",
		     0, 0, 0, 0, 0, 0, 0, 0);
	memset(nh, 0, NLMSG_HDRLEN);
	nh->nlmsg_len = (uint32_t)(NLMSG_HDRLEN + (unsigned)n);
	nh->nlmsg_type = NLMSG_MIN_TYPE;
	nh->nlmsg_flags = NLM_F_REQUEST;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	CHECK_MSG(fd >= 0, "netlink socket: %s", strerror(errno));
	if (fd < 0)
		return;
	CHECK_MSG(sendto(fd, buf, nh->nlmsg_len, 0, (struct sockaddr *)&kernel,
			 sizeof(kernel)) == (ssize_t)nh->nlmsg_len,
		  "send to the kernel: %s (needs root, Linux >= 4.18)", strerror(errno));
	close(fd);
}

static int forged_rebroadcast(void *arg)
{
	struct run r;
	struct engine_stats s;

	(void)arg;
	/* the re-broadcast reaches the sender's namespace only */
	if (unshare(CLONE_NEWNET) < 0) {
		perror("unshare(CLONE_NEWNET)");
		return 99;
	}
	run_begin(&r, true);
	fakesys_add_block(&r.fs, "sdq", 8, 224, 4096, NULL, false);
	add_block_target(engine_for(&r, true, 0, send_to_kernel, NULL), "/dev/sdq", 500);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	s = engine_stats(r.e);
	CHECK_MSG(
		s.source.forged >= 1,
		"the re-broadcast uevent was not counted as forged (%llu forged, %llu accepted)",
		(unsigned long long)s.source.forged,
		(unsigned long long)s.source.accepted);
	run_end(&r);
	return test_failures ? 1 : 0;
}

static void test_forged_rebroadcast(void)
{
	int st = in_child(forged_rebroadcast, NULL);

	CHECK_MSG(exited(st, 0),
		  "the re-broadcast forgery was believed (child status %d)", st);
}

static void test_garbage(void)
{
	static const char truncated[] = "add@/devices/virtual/block/"
					"sdg\0ACTION=ad";
	static const char no_fields[] = "add@/devices/virtual/block/sdg";
	static const char binary[] = { 0x01, (char)0xff, 0x00, 0x3d, 0x40, 0x00 };
	static char huge[4000];
	struct run r;

	run_begin(&r, false);
	fakesys_add_block(&r.fs, "sdg", 8, 96, 4096, NULL, false);
	fakesys_send_raw(&r.fs, "garbage", 7);
	fakesys_send_raw(&r.fs, truncated, sizeof(truncated) - 1);
	fakesys_send_raw(&r.fs, no_fields, sizeof(no_fields) - 1);
	fakesys_send_raw(&r.fs, binary, sizeof(binary));
	memset(huge, 'A', sizeof(huge));
	fakesys_send_raw(&r.fs, huge, sizeof(huge));
	fakesys_send_raw(&r.fs, "libudev\0\xfe\xed\xca\xfe", 12);
	fakesys_send_block(&r.fs, "add", "sdg", 8, 96, 0);
	add_block_target(engine_for(&r, false, 0, NULL, NULL), "/dev/sdg", 2000);
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);
	CHECK_INT(engine_stats(r.e).source.malformed, 6);
	CHECK_INT(engine_stats(r.e).source.accepted, 1);
	run_end(&r);
}

/* Floods the kernel's uevent group from userspace (forged: dropped, but
 * they fill our tiny buffer): the engine's next read gets ENOBUFS. */
static void flood_uevents(void)
{
	struct sockaddr_nl group = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	char msg[] = "change@/devices/virtual/block/flood\0ACTION=change\0"
		     "DEVPATH=/devices/virtual/block/flood\0SUBSYSTEM=block\0"
		     "SEQNUM=1\0";
	int fd, i, sent = 0;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	CHECK_MSG(fd >= 0, "netlink socket: %s", strerror(errno));
	for (i = 0; fd >= 0 && i < 300; i++)
		if (sendto(fd, msg, sizeof(msg), 0, (struct sockaddr *)&group,
			   sizeof(group)) == (ssize_t)sizeof(msg))
			sent++;
	CHECK_MSG(sent == 300, "flood: sent %d of 300 (%s): needs root", sent,
		  strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* An overflow, and a device added without any uevent in its window. */
static void overflow_then_plug(void *ctx)
{
	struct run *r = ctx;

	flood_uevents();
	fakesys_add_block(&r->fs, "sdh", 8, 112, 4096, NULL, true);
}

static void make_image(const char *dev, const char *name, const char *uuid,
		       const char *label, bool corrupt);

static const char swap_uuid[] = "5d0c3a4e-1f2b-4c6d-8e9f-a0b1c2d3e4f5";

/* Waits until process @pid is stopped (SIGSTOP is asynchronous). */
static void wait_stopped(pid_t pid)
{
	char path[64], stat[256], *p;
	int i, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (i = 0; i < 2000; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, stat, sizeof(stat) - 1);
		if (fd >= 0)
			close(fd);
		stat[n > 0 ? n : 0] = '\0';
		p = strrchr(stat, ')');
		if (p && p[1] == ' ' && p[2] == 'T')
			return;
		usleep(1000);
	}
}

/* In a child, once the scan's probes ended: with the engine stopped (so
 * that it cannot read in between), both media swapped, unannounced, and
 * the uevent socket flooded (a uevent for the swap would be lost):
 * sdv's blank medium becomes an ext4 "newroot", sdw's ext4 "oldroot" a
 * blank one. */
static void swap_then_overflow(struct fakesys *fs)
{
	pid_t engine = getppid();
	char dev[300];

	snprintf(dev, sizeof(dev), "%s/dev", fs->root);
	kill(engine, SIGSTOP);
	wait_stopped(engine);
	make_image(dev, "sdv", swap_uuid, "newroot", false);
	make_image(dev, "sdw", NULL, NULL, false);
	flood_uevents();
	kill(engine, SIGCONT);
}

/*
 * After an overflow nothing tells which media changed in its window: the
 * rescan must read them again, not keep what the old ones held (issue 13,
 * item 5: a new ext4 medium was "no filesystem", a root found by LABEL=
 * stayed found on the blank medium that replaced it).
 */
static void test_overflow_medium_swap(void)
{
	struct run r;

	if (!probe_available())
		return; /* nothing is read: nothing can be stale */
	run_begin(&r, true);
	make_image(r.dev, "sdv", NULL, NULL, false);
	make_image(r.dev, "sdw", "6e1d4b5f-2a3c-4d7e-9fa0-b1c2d3e4f5a6", "oldroot",
		   false);
	fakesys_add_block(&r.fs, "sdv", 8, 176, 16384, NULL, true);
	fakesys_add_block(&r.fs, "sdw", 8, 192, 16384, NULL, true);
	engine_for(&r, true, 4096, NULL, NULL);
	add_block_target(r.e, "LABEL=newroot", 3000);
	add_block_target(r.e, "LABEL=oldroot", 1000);
	later(&r, 300, swap_then_overflow);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_MSG(engine_stats(r.e).rescans >= 1, "no rescan after ENOBUFS");
	CHECK_INT(engine_target(r.e, 0)->state, TARGET_FOUND);
	CHECK_STR(engine_target(r.e, 0)->node, "/dev/sdv");
	/* found by the scan, lost with its medium (under valgrind the
	 * scan's probes may not have answered before the swap at 300 ms) */
	CHECK_INT(engine_target(r.e, 1)->state, TARGET_EXPIRED);
	if (test_timing_asserted())
		CHECK_INT(engine_target(r.e, 1)->lost, 1);
	run_end(&r);
}

/* As swap_then_overflow(), but sdx keeps its medium (and DISKSEQ) and
 * sdy gets a new one, with a new DISKSEQ. */
static void renumber_then_overflow(struct fakesys *fs)
{
	pid_t engine = getppid();
	char dev[300];

	snprintf(dev, sizeof(dev), "%s/dev", fs->root);
	kill(engine, SIGSTOP);
	wait_stopped(engine);
	make_image(dev, "sdy", swap_uuid, "newroot", false);
	fakesys_set_diskseq(fs, "sdy", 12);
	flood_uevents();
	kill(engine, SIGCONT);
}

/* A DISKSEQ that did not change is the same medium: the rescan does not
 * read it again; one that changed is another medium, read again. */
static void test_overflow_same_medium(void)
{
	struct run r;

	if (!probe_available())
		return;
	run_begin(&r, true);
	make_image(r.dev, "sdx", "8a3f6c71-4c5e-4f90-b1c2-d3e4f5a6b7c8", "keep", false);
	make_image(r.dev, "sdy", NULL, NULL, false);
	fakesys_add_block(&r.fs, "sdx", 8, 208, 16384, NULL, true);
	fakesys_add_block(&r.fs, "sdy", 8, 224, 16384, NULL, true);
	fakesys_set_diskseq(&r.fs, "sdx", 10);
	fakesys_set_diskseq(&r.fs, "sdy", 11);
	engine_for(&r, true, 4096, NULL, NULL);
	add_block_target(r.e, "LABEL=keep", 3000);
	add_block_target(r.e, "LABEL=newroot", 3000);
	later(&r, 300, renumber_then_overflow);
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);
	CHECK_MSG(engine_stats(r.e).rescans >= 1, "no rescan after ENOBUFS");
	CHECK_STR(engine_target(r.e, 0)->node, "/dev/sdx");
	CHECK_INT(engine_target(r.e, 0)->lost, 0);
	CHECK_STR(engine_target(r.e, 1)->node, "/dev/sdy");
	/* sdx once, sdy twice: at the scan and for its new DISKSEQ */
	if (test_timing_asserted())
		CHECK_INT(engine_stats(r.e).probes, 3);
	run_end(&r);
}

/*
 * PARTUUID= names a partition table entry: a whole disk is not read for
 * it (the partition is), except a device-mapper one (a kpartx mapping
 * carries its entry). Nothing matches here; what counts is what was read.
 */
static void test_partuuid_skips_disks(void)
{
	struct run r;

	if (!probe_available())
		return;
	run_begin(&r, true);
	make_image(r.dev, "sdq", NULL, NULL, false);
	make_image(r.dev, "sdq1", NULL, NULL, false);
	make_image(r.dev, "dm-3", NULL, NULL, false);
	fakesys_add_block(&r.fs, "sdq", 8, 240, 16384, NULL, true);
	fakesys_add_block(&r.fs, "sdq1", 8, 241, 16384, "part", true);
	fakesys_add_block(&r.fs, "dm-3", 254, 3, 16384, NULL, true);
	fakesys_set_dm_name(&r.fs, "dm-3", "sdq1-mapped");
	engine_for(&r, true, 0, NULL, NULL);
	add_block_target(r.e, "PARTUUID=0a1b2c3d-01", 0);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	/* sdq1 and dm-3, never sdq */
	CHECK_INT(engine_stats(r.e).probes, 2);
	run_end(&r);
}

/* sdr, holding an ext4 "hybrid", and its partition sdr1, an ext4
 * "inside"; a look at once (deadline 0) for UUID=@uuid: found on @node
 * after @probes probes. */
static void partitioned_disk(const char *uuid, const char *node, int probes)
{
	char spec[64];
	struct run r;

	run_begin(&r, true);
	make_image(r.dev, "sdr", "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d", "hybrid", false);
	make_image(r.dev, "sdr1", "3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a99", "inside",
		   false);
	fakesys_add_block(&r.fs, "sdr", 8, 160, 16384, NULL, true);
	fakesys_add_partition(&r.fs, "sdr", "sdr1", 8, 161, 8192);
	snprintf(spec, sizeof(spec), "UUID=%s", uuid);
	add_block_target(engine_for(&r, true, 0, NULL, NULL), spec, 0);
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);
	CHECK_STR(target0(&r)->node, node);
	CHECK_INT(engine_stats(r.e).probes, probes);
	run_end(&r);
}

/*
 * A whole disk with partitions is read after them (issue 14 item 2: the
 * likelier match first; on a stick the reads queue): not at all when a
 * partition matches, and still read when none does (a hybrid ISO's
 * filesystem is on the whole disk).
 */
static void test_disk_after_partitions(void)
{
	if (!probe_available())
		return;
	/* sdr1 only: the disk waited, and then was not needed */
	partitioned_disk("3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a99", "/dev/sdr1", 1);
	/* the disk's filesystem: found once its partition was read */
	partitioned_disk("7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d", "/dev/sdr", 2);
}

static void test_overflow_rescan(void)
{
	struct run r;
	struct engine_stats s;

	run_begin(&r, true);
	add_block_target(engine_for(&r, true, 4096, NULL, overflow_then_plug), "/dev/sdh",
			 3000);
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);
	s = engine_stats(r.e);
	CHECK_MSG(s.source.overflows >= 1, "no ENOBUFS seen");
	CHECK_MSG(s.rescans >= 1, "no rescan after ENOBUFS");
	run_end(&r);
}

static void test_deadline_diagnosis(void)
{
	char path[] = "/tmp/waitdev-diag-XXXXXX";
	char text[4096] = "";
	struct run r;
	int fd, saved;
	ssize_t n;

	run_begin(&r, false);
	fakesys_add_block(&r.fs, "sda", 8, 0, 2097152, NULL, true);
	fakesys_add_block(&r.fs, "sda1", 8, 1, 2095104, "rootfs", true);
	fakesys_add_block(&r.fs, "sr0", 11, 0, 0, NULL, true);
	fakesys_add_block(&r.fs, "dm-0", 254, 0, 8192, NULL, true);
	fakesys_set_dm_name(&r.fs, "dm-0", "vg-root");
	add_block_target(engine_for(&r, false, 0, NULL, NULL), "/dev/sdz1", 200);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_INT(target0(&r)->state, TARGET_EXPIRED);
	CHECK_MSG(target0(&r)->waited_ms >= 200, "gave up after %llu ms, deadline 200 ms",
		  (unsigned long long)target0(&r)->waited_ms);
	CHECK_WITHIN(target0(&r)->waited_ms, 1499);

	fd = mkstemp(path);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	report_diagnosis(r.e);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, text, sizeof(text) - 1, 0);
	text[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	CHECK_MSG(strstr(text, "root /dev/sdz1: missing after 0.2"), "diagnosis:\n%s",
		  text);
	CHECK_MSG(strstr(text, "seen block sda1 (8:1, 1023.0 MiB, partition "
			       "\"rootfs\")"),
		  "diagnosis:\n%s", text);
	CHECK_MSG(strstr(text, "seen block sr0 (11:0, no medium)"), "diagnosis:\n%s",
		  text);
	/* a dm device by the name a root= would give it */
	CHECK_MSG(strstr(text, "seen block dm-0 (254:0, 4.0 MiB, "
			       "/dev/mapper/vg-root)"),
		  "diagnosis:\n%s", text);
	run_end(&r);
}

/*
 * Sends "ACTION@/devices/virtual/SUBSYSTEM/DIR" with the given extra
 * KEY=VALUE fields (a NULL-terminated list), as the kernel would.
 */
static void send_uevent(struct fakesys *fs, const char *action, const char *subsystem,
			const char *dir, ...)
{
	char buf[UEVENT_RECV_SIZE];
	const char *field;
	size_t n = 0;
	va_list ap;
	int k;

	k = snprintf(buf, sizeof(buf),
		     "%s@/devices/virtual/%s/%s%cACTION=%s%c"
		     "DEVPATH=/devices/virtual/%s/%s%cSUBSYSTEM=%s%c",
		     action, subsystem, dir, 0, action, 0, subsystem, dir, 0, subsystem,
		     0);
	n = (size_t)k;
	va_start(ap, dir);
	while ((field = va_arg(ap, const char *)) != NULL) {
		k = snprintf(buf + n, sizeof(buf) - n, "%s%c", field, 0);
		if (k < 0 || (size_t)k >= sizeof(buf) - n) {
			fprintf(stderr, "send_uevent: too long\n");
			exit(99);
		}
		n += (size_t)k;
	}
	va_end(ap);
	k = snprintf(buf + n, sizeof(buf) - n, "SEQNUM=%u%c", ++fs->seqnum, 0);
	fakesys_send_raw(fs, buf, n + (size_t)k);
}

/*
 * Runs report_diagnosis() in a child with stderr into @text: a crash is
 * a failed check, not the end of the test program. Returns whether the
 * child exited 0.
 */
struct diagnosis {
	const struct engine *e;
	int fd;
};

static int diagnose(void *arg)
{
	const struct diagnosis *d = arg;

	dup2(d->fd, STDERR_FILENO);
	report_diagnosis(d->e);
	return 0;
}

static bool diagnosis_text(const struct engine *e, char *text, size_t size)
{
	char path[] = "/tmp/waitdev-diag-XXXXXX";
	struct diagnosis d = { e, mkstemp(path) };
	ssize_t n;
	int st;

	if (d.fd < 0) {
		perror("mkstemp");
		exit(99);
	}
	st = in_child(diagnose, &d);
	n = pread(d.fd, text, size - 1, 0);
	text[n > 0 ? n : 0] = '\0';
	close(d.fd);
	unlink(path);
	CHECK_MSG(exited(st, 0), "report_diagnosis() died (%s %d); it wrote:\n%s",
		  WIFSIGNALED(st) ? "signal" : "status",
		  WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), text);
	return exited(st, 0);
}

/* The longest line of @text (without its newline). */
static size_t longest_line(const char *text)
{
	size_t max = 0;

	while (*text) {
		size_t n = strcspn(text, "\n");

		if (n > max)
			max = n;
		text += n + (text[n] == '\n');
	}
	return max;
}

/* The longest run of @c in @text. */
static size_t longest_run(const char *text, char c)
{
	size_t max = 0, run = 0;

	for (; *text; text++) {
		run = *text == c ? run + 1 : 0;
		if (run > max)
			max = run;
	}
	return max;
}

/*
 * A tty with a 1,500-byte DEVNAME (the parser takes up to 2047): the
 * timeout diagnosis lists it among the ttys seen. It once strcat()ed the
 * name into a 900-byte line on the stack (issue 13, item 1).
 */
static void test_long_tty_name(void)
{
	static char text[65536];
	char devname[1600];
	struct run r;

	memset(devname, 0, sizeof(devname));
	memcpy(devname, "DEVNAME=", 8);
	memset(devname + 8, 'x', 1500);
	run_begin(&r, false);
	fakesys_add_tty(&r.fs, "ttyS0", 4, 64);
	/* in sysfs (as a real device would be), but only the uevents tell
	 * their names */
	fakesys_add_tty(&r.fs, "ttyLONG", 4, 65);
	fakesys_unlist(&r.fs, "tty", "ttyLONG");
	fakesys_add_tty(&r.fs, "ttyESC", 4, 66);
	fakesys_unlist(&r.fs, "tty", "ttyESC");
	send_uevent(&r.fs, "add", "tty", "ttyLONG", "MAJOR=4", "MINOR=65", devname,
		    (const char *)NULL);
	/* and a name that would break the line and drive the terminal */
	send_uevent(&r.fs, "add", "tty", "ttyESC", "MAJOR=4", "MINOR=66",
		    "DEVNAME=ttyE\nconsole found\x1b[2J", (const char *)NULL);
	add_console_target(engine_for(&r, false, 0, NULL, NULL), "ttyNOPE0", 200);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_INT(engine_stats(r.e).source.accepted, 2);
	if (diagnosis_text(r.e, text, sizeof(text))) {
		CHECK_MSG(strstr(text, "console ttyNOPE0: missing after"),
			  "diagnosis:\n%s", text);
		CHECK_MSG(strstr(text, "seen ttys: ") && strstr(text, "ttyS0"),
			  "diagnosis:\n%s", text);
		CHECK_MSG(strstr(text, "xxxx...(truncated)"),
			  "the long name is not cut visibly:\n%s", text);
		CHECK_MSG(longest_run(text, 'x') <= 128,
			  "%zu bytes of the long name in the diagnosis",
			  longest_run(text, 'x'));
		CHECK_MSG(strstr(text, "ttyE\\x0aconsole found\\x1b[2J"),
			  "control characters not escaped:\n%s", text);
		CHECK_MSG(!strstr(text, "\nconsole found"), "a name forged a line:\n%s",
			  text);
		CHECK_MSG(longest_line(text) <= 200, "a diagnosis line of %zu bytes",
			  longest_line(text));
	}
	run_end(&r);
}

/* result_fprint() in @fmt into @buf. */
static void result_text(const struct engine *e, enum result_format fmt, char *buf,
			size_t size)
{
	FILE *f = fmemopen(buf, size, "w");

	if (!f) {
		perror("fmemopen");
		exit(99);
	}
	CHECK_INT(result_fprint(f, fmt, e, NULL), 0);
	fclose(f);
	buf[size - 1] = '\0';
}

/* Valid UTF-8 with no control character but "\n" (an own checker, not
 * the library's). */
static bool text_is_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned n = *p < 0x80			? 1
			     : *p >= 0xc2 && *p <= 0xdf ? 2
			     : (*p & 0xf0) == 0xe0	? 3
			     : *p >= 0xf0 && *p <= 0xf4 ? 4
							: 0;
		unsigned i;

		if (n == 0 || (n == 1 && *p < 0x20 && *p != '\n') || *p == 0x7f)
			return false;
		for (i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				return false;
		p += n;
	}
	return true;
}

/* Sources @shell_text in sh and prints "$@var" into @val. */
static void shell_value(const char *shell_text, const char *var, char *val, size_t size)
{
	char path[] = "/tmp/waitdev-shell-XXXXXX", cmd[200];
	int fd = mkstemp(path);
	FILE *p;
	size_t n;

	if (fd < 0 || write(fd, shell_text, strlen(shell_text)) < 0) {
		perror(path);
		exit(99);
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "sh -c '. %s && printf %%s \"$%s\"'", path, var);
	p = popen(cmd, "r");
	n = p ? fread(val, 1, size - 1, p) : 0;
	val[n] = '\0';
	CHECK_MSG(p && pclose(p) == 0, "sh failed on:\n%s", shell_text);
	unlink(path);
}

/*
 * Found devices whose names hold a newline, an escape sequence, quotes,
 * bytes that are not UTF-8, and one 600 bytes long (as --uevent-fd or a
 * forged uevent can give): the plain output stays one line per target,
 * JSON stays valid, and the shell output gives the exact names back.
 */
static void test_output_names(void)
{
	static const char evil[] = "sdq\nroot /dev/forged\x1b[2J'$(id)\\x0a";
	static const char latin1[] = "caf\xe9-\xc3\xa9t\xc3\xa9\xc2\x9b";
	static char text[65536], val[8192], want[8192], field[2048];
	char longname[700];
	struct run r;

	memset(longname, 'l', 600);
	longname[600] = '\0';
	run_begin(&r, false);
	fakesys_add_block(&r.fs, "sdq", 8, 1, 2048, NULL, false);
	snprintf(field, sizeof(field), "DEVNAME=%s", evil);
	send_uevent(&r.fs, "add", "block", "sdq", "MAJOR=8", "MINOR=1", field,
		    "DEVTYPE=disk", (const char *)NULL);
	fakesys_add_net(&r.fs, "wdl", 7, "02:00:00:00:00:07", 0x1003, "up");
	fakesys_unlist(&r.fs, "net", "wdl");
	snprintf(field, sizeof(field), "INTERFACE=%s", longname);
	send_uevent(&r.fs, "add", "net", "wdl", field, "IFINDEX=7", (const char *)NULL);
	fakesys_add_net(&r.fs, "wdc", 8, "02:00:00:00:00:08", 0x1003, "up");
	fakesys_unlist(&r.fs, "net", "wdc");
	snprintf(field, sizeof(field), "INTERFACE=%s", latin1);
	send_uevent(&r.fs, "add", "net", "wdc", field, "IFINDEX=8", (const char *)NULL);
	engine_for(&r, false, 0, NULL, NULL);
	add_block_target(r.e, "8:1", 2000);
	add_net_target(r.e, "02:00:00:00:00:07", 2000);
	add_net_target(r.e, "caf*", 2000);
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);

	result_text(r.e, RESULT_PLAIN, text, sizeof(text));
	CHECK_MSG(text_is_clean(text), "plain output:\n%s", text);
	CHECK_MSG(strstr(text, "root /dev/sdq\\x0aroot "
			       "/dev/forged\\x1b[2J'$(id)"
			       "\\x5cx0a\n") == text,
		  "plain output:\n%s", text);
	CHECK_MSG(strstr(text, "\nnet caf\\xe9-\xc3\xa9t\xc3\xa9\\xc2\\x9b\n"),
		  "plain output:\n%s", text);
	CHECK_MSG(strstr(text, "\nnet llll") && longest_run(text, 'l') == 600,
		  "plain output: the long name is not whole");
	{
		unsigned lines = 0;
		const char *c;

		for (c = text; *c; c++)
			lines += *c == '\n';
		CHECK_INT(lines, 3);
	}

	result_text(r.e, RESULT_JSON, text, sizeof(text));
	CHECK_MSG(text_is_clean(text), "JSON output:\n%s", text);
	CHECK_MSG(strstr(text, "\"device\":\"/dev/sdq\\u000aroot /dev/forged"
			       "\\u001b[2J'$(id)\\\\x0a\""),
		  "JSON output:\n%s", text);
	CHECK_MSG(strstr(text, "\"device\":\"caf\\u00e9-\xc3\xa9t\xc3\xa9"
			       "\xc2\x9b\""),
		  "JSON output:\n%s", text);
	CHECK_MSG(longest_run(text, 'l') == 600, "JSON output: the long name "
						 "is not whole");

	result_text(r.e, RESULT_SHELL, text, sizeof(text));
	snprintf(want, sizeof(want), "/dev/%s", evil);
	shell_value(text, "WAITDEV_ROOT", val, sizeof(val));
	CHECK_MSG(streq(val, want), "WAITDEV_ROOT is \"%s\" from:\n%s", val, text);
	snprintf(want, sizeof(want), "%s %s", longname, latin1);
	shell_value(text, "WAITDEV_NET", val, sizeof(val));
	CHECK_MSG(streq(val, want), "WAITDEV_NET is \"%s\"", val);
	run_end(&r);
}

/* What udev does at boot: eth0 -> enp0s3, a "move" uevent. */
static void rename_eth0(void *ctx)
{
	struct run *r = ctx;
	char from[600], to[600];

	snprintf(from, sizeof(from), "%s/devices/virtual/net/eth0", r->fs.root);
	snprintf(to, sizeof(to), "%s/devices/virtual/net/enp0s3", r->fs.root);
	if (rename(from, to) < 0) {
		perror(to);
		exit(99);
	}
	send_uevent(&r->fs, "move", "net", "enp0s3",
		    "DEVPATH_OLD=/devices/virtual/net/eth0", "INTERFACE=enp0s3",
		    "IFINDEX=2", (const char *)NULL);
}

/* The same rename as rtnetlink tells it, before any uevent. */
static void rename_eth0_rtnl(void *ctx)
{
	struct run *r = ctx;
	struct rtnl_link link = {
		.ifindex = 2,
		.flags = 0x1003,
		.operstate = 6, /* IF_OPER_UP */
		.ifname = "enp0s3",
	};

	engine_inject_link(r->e, &link);
}

/*
 * An interface found by MAC or glob and then renamed is reported under
 * its new name (issue 13, item 6); one found by its old name is lost.
 */
static void test_renamed(void)
{
	static char text[4096];
	char val[100];
	struct run r;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		run_begin(&r, false);
		fakesys_add_net(&r.fs, "eth0", 2, "52:54:00:12:34:56", 0x1003, "up");
		engine_for(&r, false, 0, NULL, pass ? rename_eth0_rtnl : rename_eth0);
		add_net_target(r.e, "52:54:00:12:34:56", 1000);
		add_net_target(r.e, "e*", 1000);
		add_net_target(r.e, "eth0", 300);
		/* keeps it waiting: the rename comes after the scan */
		add_console_target(r.e, "ttyNOPE0", 300);
		CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
		CHECK_STR(engine_target(r.e, 0)->node, "enp0s3");
		CHECK_STR(engine_target(r.e, 1)->node, "enp0s3");
		/* eth0 by name: no such interface any more */
		CHECK_INT(engine_target(r.e, 2)->state, TARGET_EXPIRED);
		CHECK_INT(engine_target(r.e, 2)->lost, 1);

		result_text(r.e, RESULT_PLAIN, text, sizeof(text));
		CHECK_MSG(streq(text, "net enp0s3\nnet enp0s3\n"), "plain output:\n%s",
			  text);
		result_text(r.e, RESULT_JSON, text, sizeof(text));
		CHECK_MSG(strstr(text, "\"device\":\"enp0s3\"") &&
				  !strstr(text, "\"device\":\"eth0\""),
			  "JSON output:\n%s", text);
		result_text(r.e, RESULT_SHELL, text, sizeof(text));
		shell_value(text, "WAITDEV_NET", val, sizeof(val));
		CHECK_STR(val, "enp0s3 enp0s3");
		run_end(&r);
	}
}

static void send_sigterm(struct fakesys *fs)
{
	(void)fs;
	kill(getppid(), SIGTERM);
}

static void test_sigterm(void)
{
	struct run r;
	sigset_t now;

	run_begin(&r, false);
	add_block_target(engine_for(&r, false, 0, NULL, NULL), "/dev/sdx", 10000);
	later(&r, 100, send_sigterm);
	CHECK_INT(engine_run(r.e), ENGINE_INTERRUPTED);
	CHECK_INT(engine_signal(r.e), SIGTERM);
	run_end(&r);
	/* engine_free() gave back the mask a program exec'd next inherits */
	sigprocmask(SIG_SETMASK, NULL, &now);
	CHECK(!sigismember(&now, SIGTERM));
}

static void test_zero_timeout(void)
{
	struct run r;

	run_begin(&r, false);
	fakesys_add_block(&r.fs, "vda", 254, 0, 100, NULL, true);
	engine_for(&r, false, 0, NULL, NULL);
	add_block_target(r.e, "/dev/vda", 0);
	add_block_target(r.e, "/dev/vdb", 0);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_INT(engine_target(r.e, 0)->state, TARGET_FOUND);
	CHECK_INT(engine_target(r.e, 1)->state, TARGET_EXPIRED);
	CHECK_WITHIN(engine_target(r.e, 1)->waited_ms, 99);
	run_end(&r);
}

/*
 * A target found long before its deadline, another still waiting when
 * that deadline passes: the timer must not be re-armed at the past
 * deadline (it would fire at once, again and again, until the second
 * target is settled: a busy loop).
 */
static void test_found_deadline_no_spin(void)
{
	struct run r;
	struct engine_stats s;

	run_begin(&r, false);
	fakesys_add_block(&r.fs, "vdc", 254, 32, 100, NULL, true);
	engine_for(&r, false, 0, NULL, NULL);
	add_block_target(r.e, "/dev/vdc", 50);
	add_block_target(r.e, "/dev/vdd", 400);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_INT(engine_target(r.e, 0)->state, TARGET_FOUND);
	CHECK_INT(engine_target(r.e, 1)->state, TARGET_EXPIRED);
	CHECK(engine_target(r.e, 1)->waited_ms >= 400);
	s = engine_stats(r.e);
	/* one for the deadline at 400 ms, a few spare: not thousands */
	CHECK_MSG(s.wakeups <= 5,
		  "%llu wakeups in 400 ms with nothing to read: the loop spun",
		  (unsigned long long)s.wakeups);
	run_end(&r);
}

static void plug_tty(struct fakesys *fs)
{
	char buf[512];
	int n;

	fakesys_add_tty(fs, "ttyUSB0", 188, 0);
	n = snprintf(buf, sizeof(buf),
		     "add@/devices/virtual/tty/ttyUSB0%cACTION=add%c"
		     "DEVPATH=/devices/virtual/tty/ttyUSB0%cSUBSYSTEM=tty%c"
		     "MAJOR=188%cMINOR=0%cDEVNAME=ttyUSB0%cSEQNUM=77%c",
		     0, 0, 0, 0, 0, 0, 0, 0);
	fakesys_send_raw(fs, buf, (size_t)n);
}

static void test_console_and_net(void)
{
	struct run r;

	run_begin(&r, false);
	fakesys_add_tty(&r.fs, "ttyS0", 4, 64);
	fakesys_add_net(&r.fs, "lo", 1, "00:00:00:00:00:00", 0x9, "unknown");
	fakesys_add_net(&r.fs, "eth0", 2, "52:54:00:12:34:56", 0x1003, "up");
	fakesys_add_net(&r.fs, "eth1", 3, "52:54:00:12:34:57", 0x1002, "down");
	engine_for(&r, false, 0, NULL, NULL);
	add_console_target(r.e, "ttyUSB0,115200n8", 5000);
	add_net_target(r.e, "any", 1000);
	add_net_target(r.e, "52:54:00:12:34:56:carrier", 1000);
	add_net_target(r.e, "eth*:up", 1000);
	add_net_target(r.e, "eth1:up", 300);
	later(&r, 100, plug_tty);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE); /* eth1 stays down */
	CHECK_STR(engine_target(r.e, 0)->node, "/dev/ttyUSB0");
	/* any: whichever non-loopback interface the scan met first */
	CHECK(strncmp(engine_target(r.e, 1)->node, "eth", 3) == 0);
	CHECK_STR(engine_target(r.e, 2)->node, "eth0");
	CHECK_STR(engine_target(r.e, 3)->node, "eth0");
	CHECK_INT(engine_target(r.e, 4)->state, TARGET_EXPIRED);
	run_end(&r);
}

static void send_net(struct fakesys *fs, const char *action, const char *name,
		     int ifindex)
{
	char buf[512];
	int n;

	n = snprintf(buf, sizeof(buf),
		     "%s@/devices/virtual/net/%s%cACTION=%s%c"
		     "DEVPATH=/devices/virtual/net/%s%cSUBSYSTEM=net%c"
		     "INTERFACE=%s%cIFINDEX=%d%cSEQNUM=%u%c",
		     action, name, 0, action, 0, name, 0, 0, name, 0, ifindex, 0,
		     ++fs->seqnum, 0);
	fakesys_send_raw(fs, buf, (size_t)n);
}

/* A glob target whose interface goes away takes another that is up. */
static void test_lost_retakes(void)
{
	struct run r;

	run_begin(&r, false);
	fakesys_add_net(&r.fs, "eth0", 2, "52:54:00:00:00:01", 0x1003, "up");
	fakesys_add_net(&r.fs, "eth1", 3, "52:54:00:00:00:02", 0x1003, "up");
	fakesys_unlist(&r.fs, "net", "eth1"); /* only its uevent tells */
	send_net(&r.fs, "add", "eth1", 3);
	send_net(&r.fs, "remove", "eth0", 2);
	engine_for(&r, false, 0, NULL, NULL);
	add_net_target(r.e, "eth*:up", 1000);
	add_console_target(r.e, "ttyNOPE0", 300); /* keeps it waiting */
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_INT(target0(&r)->state, TARGET_FOUND);
	CHECK_STR(target0(&r)->node, "eth1");
	CHECK_INT(target0(&r)->lost, 1);
	run_end(&r);
}

static void send_tty(struct fakesys *fs, const char *name, unsigned minor)
{
	char buf[512];
	int n;

	n = snprintf(buf, sizeof(buf),
		     "add@/devices/virtual/tty/%s%cACTION=add%c"
		     "DEVPATH=/devices/virtual/tty/%s%cSUBSYSTEM=tty%c"
		     "MAJOR=4%cMINOR=%u%cDEVNAME=%s%cSEQNUM=%u%c",
		     name, 0, 0, name, 0, 0, 0, minor, 0, name, 0, ++fs->seqnum, 0);
	fakesys_send_raw(fs, buf, (size_t)n);
}

/*
 * An interface added and deleted again before its "add" is read (ip link
 * add, ip link del), a tty gone the same way: the "add" names a device
 * that sysfs no longer has. It must not count as found.
 */
static void test_add_of_gone(void)
{
	struct run r;

	run_begin(&r, false);
	fakesys_add_net(&r.fs, "wdt0", 7, "52:54:00:00:00:07", 0x1003, "up");
	send_net(&r.fs, "add", "wdt9", 9); /* not in sysfs */
	send_tty(&r.fs, "ttyRT9", 73);	   /* not in sysfs */
	send_net(&r.fs, "add", "wdt0", 7); /* control: there */
	engine_for(&r, false, 0, NULL, NULL);
	add_net_target(r.e, "wdt9", 300);
	add_console_target(r.e, "ttyRT9", 300);
	add_net_target(r.e, "wdt0", 300);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_MSG(engine_target(r.e, 0)->state == TARGET_EXPIRED,
		  "an interface gone from sysfs was found: %s",
		  engine_target(r.e, 0)->node);
	CHECK_MSG(engine_target(r.e, 1)->state == TARGET_EXPIRED,
		  "a tty gone from sysfs was found: %s", engine_target(r.e, 1)->node);
	CHECK_INT(engine_target(r.e, 2)->state, TARGET_FOUND);
	CHECK(devtab_find(engine_devtab(r.e), "/devices/virtual/net/wdt9") == NULL);
	run_end(&r);
}

/*
 * Out of descriptors (ulimit -n 9): whatever the engine was opening when
 * they ran out, a present device is never taken for a missing one. With
 * @spare descriptors left below the limit, the run either finds sda1 or
 * fails with EMFILE; a timeout would mean "not there".
 */
static int run_with_spare_fds(int spare)
{
	struct rlimit rl;
	struct run r;
	int fd, first, last = -1, result;

	run_begin(&r, false);
	fakesys_add_block(&r.fs, "sda1", 8, 1, 2048, NULL, true);
	add_block_target(engine_for(&r, false, 0, NULL, NULL), "/dev/sda1", 300);
	/* every descriptor below the limit in use but @spare; the soft
	 * limit only (valgrind refuses a change of the hard one) */
	first = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
		perror("getrlimit");
		_exit(99);
	}
	rl.rlim_cur = (rlim_t)first + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		perror("setrlimit");
		_exit(99);
	}
	last = first;
	while ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		last = fd;
	for (fd = last; spare > 0 && fd >= first; fd--, spare--)
		close(fd);
	result = engine_run(r.e);
	run_end(&r);
	/* the rest of the fillers (the engine closed what it had) */
	for (fd = first; fd <= last; fd++)
		close(fd);
	return result;
}

/* run_with_spare_fds() in a child: 0 found, 1 EMFILE, 2 anything else. */
static int found_with_spare_fds(void *arg)
{
	int spare = *(const int *)arg;
	int result = run_with_spare_fds(spare);

	if (result == ENGINE_FOUND)
		return 0;
	if (result == -EMFILE)
		return 1;
	fprintf(stderr, "%d spare descriptors: engine_run() = %d\n", spare, result);
	return 2;
}

static void test_out_of_fds(void)
{
	int spare;

	for (spare = 0; spare <= 12; spare++) {
		int st = in_child(found_with_spare_fds, &spare);

		CHECK_MSG(
			exited(st, 0) || exited(st, 1),
			"%d spare descriptors: neither found nor EMFILE (status %d): a present device taken for missing",
			spare, st);
	}
}

/*
 * /sys not mounted: the mount point is an empty directory. Nothing may be
 * "found" or reported "not ready": the run fails, naming sysfs.
 */
static void test_sysfs_missing(void)
{
	struct run r;
	char path[700];
	int res;

	run_begin(&r, false);
	/* what a real sysfs always has, and an empty mount point has not */
	snprintf(path, sizeof(path), "rm -rf '%s/class' '%s/devices'", r.fs.root,
		 r.fs.root);
	CHECK(system(path) == 0);
	fakesys_send_raw(&r.fs,
			 "add@/devices/virtual/net/eth0\0ACTION=add\0"
			 "DEVPATH=/devices/virtual/net/eth0\0SUBSYSTEM=net\0"
			 "INTERFACE=eth0\0IFINDEX=2\0SEQNUM=5\0",
			 sizeof("add@/devices/virtual/net/eth0\0ACTION=add\0"
				"DEVPATH=/devices/virtual/net/eth0\0"
				"SUBSYSTEM=net\0INTERFACE=eth0\0IFINDEX=2\0"
				"SEQNUM=5\0") -
				 1);
	engine_for(&r, false, 0, NULL, NULL);
	add_net_target(r.e, "eth0", 300);
	add_block_target(r.e, "/dev/sda1", 300);
	res = engine_run(r.e);
	CHECK_MSG(res < 0,
		  "engine_run() = %d on an empty sysfs: expected an "
		  "error",
		  res);
	CHECK(engine_error_reported(r.e));
	CHECK_INT(engine_target(r.e, 0)->state, TARGET_WAITING);
	run_end(&r);
}

/*
 * The uevent fd is the engine's once given: closed however the run ends,
 * also when it is refused (a pipe is no socket: SO_PASSCRED fails) or
 * never used (sysfs cannot be opened).
 */
static void test_uevent_fd_closed(void)
{
	struct engine_options opts = { .uevent_fd = -1 };
	struct engine *e;
	struct spec spec;
	char err[100];
	int p[2], res;

	CHECK(pipe2(p, O_CLOEXEC) == 0);
	close(p[1]);
	opts.sysfs_root = "/";
	opts.uevent_fd = p[0];
	CHECK(engine_new(&e, &opts) == 0);
	spec_parse_block("/dev/sdz", &spec, err, sizeof(err));
	CHECK(engine_add_target(e, &role_table[ROLE_ROOT], &spec, 100) == 0);
	res = engine_run(e);
	CHECK_MSG(res == -ENOTSOCK || res == -ENODEV,
		  "engine_run() = %d with a pipe for uevents", res);
	engine_free(e);
	errno = 0;
	CHECK_MSG(fcntl(p[0], F_GETFD) < 0 && errno == EBADF,
		  "the refused uevent fd %d was left open", p[0]);
	if (fcntl(p[0], F_GETFD) >= 0)
		close(p[0]);

	/* a real sysfs tree, refused at the socket */
	{
		struct fakesys fs;

		fakesys_init(&fs);
		CHECK(pipe2(p, O_CLOEXEC) == 0);
		opts.sysfs_root = fs.root;
		opts.uevent_fd = p[0];
		CHECK(engine_new(&e, &opts) == 0);
		CHECK(engine_add_target(e, &role_table[ROLE_ROOT], &spec, 100) == 0);
		CHECK_INT(engine_run(e), -ENOTSOCK);
		engine_free(e);
		errno = 0;
		CHECK_MSG(fcntl(p[0], F_GETFD) < 0 && errno == EBADF,
			  "the uevent fd %d (a pipe) was left open", p[0]);
		if (fcntl(p[0], F_GETFD) >= 0)
			close(p[0]);
		close(fs.feed[0]);
		fakesys_cleanup(&fs);
	}
	close(p[1]);
}

/* Makes @dev/@name an 8 MiB image: ext4 with @uuid and @label, or zeros
 * when @uuid is NULL; @corrupt zeroes the ext4 magic (offset 0x438). */
static void make_image(const char *dev, const char *name, const char *uuid,
		       const char *label, bool corrupt)
{
	char path[400], cmd[1200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dev, name);
	f = fopen(path, "w");
	if (!f || ftruncate(fileno(f), 8 << 20) < 0) {
		perror(path);
		exit(99);
	}
	if (corrupt && uuid) {
		fclose(f);
		f = NULL;
	}
	if (uuid) {
		snprintf(cmd, sizeof(cmd),
			 "mkfs.ext4 -q -F -U %s -L '%s' '%s' >/dev/null 2>&1", uuid,
			 label, path);
		if (system(cmd) != 0) {
			fprintf(stderr, "test-engine: mkfs.ext4 failed "
					"(e2fsprogs installed?): FAILING\n");
			exit(1);
		}
	}
	if (corrupt) {
		static const char zero[2];

		f = fopen(path, "r+");
		if (!f || fseek(f, 0x438, SEEK_SET) < 0 || fwrite(zero, 1, 2, f) != 2) {
			perror(path);
			exit(99);
		}
	}
	if (f)
		fclose(f);
}

/* With libblkid: UUID=/LABEL= match through the probe, a medium without
 * a filesystem (or with a broken one) is not a root. */
static void test_probe(void)
{
	static const char uuid[] = "0b7c0d7a-7b1e-4f6c-9d4e-2f1a9a3c5e11";
	struct spec spec;
	char err[100];
	struct run r;

	if (!probe_available()) {
		/* refused up front, never pretended */
		run_begin(&r, false);
		engine_for(&r, false, 0, NULL, NULL);
		spec_parse_block("UUID=1234", &spec, err, sizeof(err));
		CHECK_INT(engine_add_target(r.e, &role_table[ROLE_ROOT], &spec, 100),
			  -EOPNOTSUPP);
		run_end(&r);
		return;
	}
	run_begin(&r, false);
	make_image(r.dev, "sdu1", uuid, "rootfs", false);
	make_image(r.dev, "sdu2", NULL, NULL, false);
	make_image(r.dev, "sdu3", "11111111-2222-3333-4444-555555555555", "broken", true);
	fakesys_add_block(&r.fs, "sdu1", 8, 161, 16384, NULL, true);
	fakesys_add_block(&r.fs, "sdu2", 8, 162, 16384, NULL, true);
	fakesys_add_block(&r.fs, "sdu3", 8, 163, 16384, NULL, true);
	engine_for(&r, false, 0, NULL, NULL);
	add_block_target(r.e, "UUID=0B7C0D7A-7B1E-4F6C-9D4E-2F1A9A3C5E11", 1000);
	add_block_target(r.e, "LABEL=rootfs", 1000);
	add_block_target(r.e, "/dev/disk/by-label/rootfs", 1000);
	add_block_target(r.e, "/dev/sdu2", 300);
	add_block_target(r.e, "UUID=11111111-2222-3333-4444-555555555555", 300);
	add_block_target(r.e, "LABEL=broken", 300);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_STR(engine_target(r.e, 0)->node, "/dev/sdu1");
	CHECK_STR(engine_target(r.e, 1)->node, "/dev/sdu1");
	CHECK_STR(engine_target(r.e, 2)->node, "/dev/sdu1");
	CHECK_INT(engine_target(r.e, 3)->state, TARGET_EXPIRED);
	CHECK_INT(engine_target(r.e, 4)->state, TARGET_EXPIRED);
	CHECK_INT(engine_target(r.e, 5)->state, TARGET_EXPIRED);
	run_end(&r);
}

/* The probe the children run in the stall tests: sds and sdw1 never
 * answer (a read that sleeps; SIGKILL ends this one, not one in D
 * state), sdt and sdv1 answer 300 ms after reading, the others as
 * usual. */
static int stalling_probe(struct device *dev, const char *node,
			  const struct probe_request *req)
{
	const char *name = strrchr(node, '/') + 1;
	int r;

	if (strcmp(name, "sds") == 0 || strcmp(name, "sdw1") == 0) {
		sleep(15);
		return -EIO;
	}
	r = probe_block(dev, node, req);
	if (strcmp(name, "sdt") == 0 || strcmp(name, "sdv1") == 0)
		usleep(300 * 1000);
	return r;
}

static struct engine *engine_stalling(struct run *r)
{
	struct engine_options opts = {
		.uevent_fd = r->fs.feed[0],
		.probe = stalling_probe,
	};

	return engine_over(r, opts);
}

static void fresh_medium(struct fakesys *fs)
{
	char dev[300];

	snprintf(dev, sizeof(dev), "%s/dev", fs->root);
	make_image(dev, "sdt", "7f2e5c60-3b4d-4e8f-a0b1-c2d3e4f5a6b7", "fresh", false);
	fakesys_send_block(fs, "change", "sdt", 8, 240, 0);
}

/*
 * A device whose reads never end holds up neither the deadline nor
 * SIGTERM (issue 13, item 4): the probe runs in a child the engine does
 * not wait for. And a probe that an event overtakes is read again.
 */
static void test_probe_stall(void)
{
	uint64_t t0, took;
	struct run r;

	if (!probe_available())
		return;
	/* the deadline */
	run_begin(&r, false);
	make_image(r.dev, "sds", NULL, NULL, false);
	fakesys_add_block(&r.fs, "sds", 8, 224, 16384, NULL, true);
	engine_stalling(&r);
	add_block_target(r.e, "LABEL=nowhere", 300);
	t0 = now_ms();
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_INT(engine_stats(r.e).probes, 1);
	CHECK_INT(target0(&r)->state, TARGET_EXPIRED);
	run_end(&r); /* engine_free(): kills the child, waits for none */
	took = now_ms() - t0;
	CHECK_WITHIN(took, 3000); /* not the 15 s the read takes */

	/* SIGTERM */
	run_begin(&r, false);
	make_image(r.dev, "sds", NULL, NULL, false);
	fakesys_add_block(&r.fs, "sds", 8, 224, 16384, NULL, true);
	engine_stalling(&r);
	add_block_target(r.e, "LABEL=nowhere", 10000);
	later(&r, 200, send_sigterm);
	t0 = now_ms();
	CHECK_INT(engine_run(r.e), ENGINE_INTERRUPTED);
	CHECK_INT(engine_signal(r.e), SIGTERM);
	run_end(&r);
	took = now_ms() - t0;
	CHECK_WITHIN(took, 3000);

	/* "look once" (a zero deadline) reads what the scan found, but
	 * does not wait for a device that does not answer */
	run_begin(&r, false);
	make_image(r.dev, "sdt", "7f2e5c60-3b4d-4e8f-a0b1-c2d3e4f5a6b7", "fresh", false);
	fakesys_add_block(&r.fs, "sdt", 8, 240, 16384, NULL, true);
	make_image(r.dev, "sds", NULL, NULL, false);
	fakesys_add_block(&r.fs, "sds", 8, 224, 16384, NULL, true);
	engine_stalling(&r);
	add_block_target(r.e, "LABEL=fresh", 0);
	add_block_target(r.e, "LABEL=nowhere", 0);
	t0 = now_ms();
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_INT(engine_target(r.e, 0)->state, TARGET_FOUND);
	CHECK_INT(engine_target(r.e, 1)->state, TARGET_EXPIRED);
	run_end(&r);
	took = now_ms() - t0;
	CHECK_MSG(took >= 300, "gave up after %llu ms, before sdt answered",
		  (unsigned long long)took);
	CHECK_WITHIN(took, 5000); /* cut at 1 s, not 15 */

	/* a medium changed while its old one is read: the result of that
	 * read is dropped, and the new medium read */
	run_begin(&r, false);
	make_image(r.dev, "sdt", NULL, NULL, false);
	fakesys_add_block(&r.fs, "sdt", 8, 240, 16384, NULL, true);
	engine_stalling(&r);
	add_block_target(r.e, "LABEL=fresh", 3000);
	later(&r, 100, fresh_medium);
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);
	CHECK_STR(target0(&r)->node, "/dev/sdt");
	/* one probe per device at a time: the change waited for the first */
	CHECK_INT(engine_stats(r.e).probes, 2);
	run_end(&r);
}

/*
 * Giving up once USB has settled (engine_options.give_up). The fake tree
 * has bus/usb/settle as a FIFO: the engine watches it as it watches the
 * sysfs attribute (edge-triggered, read again at each wakeup), and the
 * test writes the states the kernel would show.
 */
static void settle_make(struct run *r, const char *state)
{
	struct fakesys *fs = &r->fs;
	char path[300];
	int fd;

	snprintf(path, sizeof(path), "%s/bus", fs->root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bus/usb", fs->root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bus/usb/settle", fs->root);
	CHECK(mkfifo(path, 0644) == 0);
	/* read-write: it stays open, and what is written waits in it */
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	CHECK(fd >= 0);
	if (state)
		CHECK(write(fd, state, strlen(state)) == (ssize_t)strlen(state));
	/* open for the run: the FIFO must keep a writer (run_end()) */
	r->settle_fd = fd;
}

static void settle_write(struct fakesys *fs, const char *state)
{
	char path[300];
	int fd;

	snprintf(path, sizeof(path), "%s/bus/usb/settle", fs->root);
	fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || write(fd, state, strlen(state)) != (ssize_t)strlen(state))
		_exit(98);
	close(fd);
}

static void settle_later(struct fakesys *fs)
{
	settle_write(fs, "settled\n");
}

static void plug_then_settle(struct fakesys *fs)
{
	plug_sdb(fs);
	usleep(150 * 1000);
	settle_write(fs, "settled\n");
}

static struct engine *engine_give_up(struct run *r, bool give_up)
{
	struct engine_options opts = {
		.uevent_fd = r->fs.feed[0],
		.give_up = give_up,
	};

	return engine_over(r, opts);
}

static const char one_per_disk_uuid[] = "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a";
static const char *one_per_disk_name; /* "sdv" or "sdw" */

/* The stick: the disk and its two partitions, announced in that order;
 * the second holds the ext4 looked for. */
static void plug_one_per_disk(struct fakesys *fs)
{
	const char *disk = one_per_disk_name;
	unsigned int minor = disk[2] == 'v' ? 80 : 96;
	char dev[300], p1[16], p2[16];

	snprintf(dev, sizeof(dev), "%s/dev", fs->root);
	snprintf(p1, sizeof(p1), "%s1", disk);
	snprintf(p2, sizeof(p2), "%s2", disk);
	make_image(dev, disk, NULL, NULL, false);
	make_image(dev, p1, NULL, NULL, false);
	make_image(dev, p2, one_per_disk_uuid, "second", false);
	fakesys_add_block(fs, disk, 8, minor, 32768, NULL, true);
	fakesys_add_partition(fs, disk, p1, 8, minor + 1, 8192);
	fakesys_add_partition(fs, disk, p2, 8, minor + 2, 8192);
	fakesys_send_block(fs, "add", disk, 8, minor, 0);
	fakesys_send_partition(fs, disk, p1, 8, minor + 1);
	fakesys_send_partition(fs, disk, p2, 8, minor + 2);
}

/* UUID= of @disk"2", announced after @disk"1": found after @min_ms at
 * least (from the plug), and within 5 s. */
static void one_per_disk(const char *disk, uint64_t min_ms)
{
	char spec[64], node[32];
	uint64_t t0, took;
	struct run r;

	one_per_disk_name = disk;
	run_begin(&r, false);
	engine_stalling(&r);
	snprintf(spec, sizeof(spec), "UUID=%s", one_per_disk_uuid);
	add_block_target(r.e, spec, 10000);
	later(&r, 100, plug_one_per_disk);
	t0 = now_ms();
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);
	took = now_ms() - t0;
	snprintf(node, sizeof(node), "/dev/%s2", disk);
	CHECK_STR(target0(&r)->node, node);
	CHECK_MSG(took >= 100 + min_ms,
		  "%s found %llu ms after the plug: read beside %s1, not after it", node,
		  (unsigned long long)(took - 100), disk);
	CHECK_WITHIN(took, 5000);
	run_end(&r);
}

/*
 * One probe at a time per disk (issue 14: the likelier first; a stick
 * serves one request after another): sdv2 is read once sdv1's probe (300
 * ms) is over; and a probe that does not end holds the next on its disk
 * back for ENGINE_MEDIUM_HOLD_MS (500 ms) only, never to the deadline.
 */
static void test_probe_one_per_disk(void)
{
	char text[8192];
	const char *line;
	struct run r;

	if (!probe_available())
		return;
	one_per_disk("sdv", 300);
	one_per_disk("sdw", 500);

	/* a deadline while sdw2 is held back: the diagnosis says why it
	 * was not read (before, it said "its partitions first") */
	one_per_disk_name = "sdw";
	run_begin(&r, false);
	engine_stalling(&r);
	add_block_target(r.e, "LABEL=nowhere", 300);
	later(&r, 0, plug_one_per_disk);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	if (diagnosis_text(r.e, text, sizeof(text))) {
		line = strstr(text, "seen block sdw2 ");
		CHECK_MSG(line &&
				  strstr(line, "not read: another device of its disk "
					       "first") &&
				  strstr(line, "\n") > strstr(line, "not read"),
			  "diagnosis:\n%s", text);
		line = strstr(text, "seen block sdw1 ");
		CHECK_MSG(line && strstr(line, "the probe did not answer"),
			  "diagnosis:\n%s", text);
		line = strstr(text, "seen block sdw ");
		CHECK_MSG(line && strstr(line, "not read: its partitions first"),
			  "diagnosis:\n%s", text);
	}
	run_end(&r);
}

static void test_settle_give_up(void)
{
	struct run r;

	/* settled from the start: the missing root is absent at once, not
	 * at its 10 s deadline; rc of a deadline (not everything found) */
	run_begin(&r, false);
	settle_make(&r, "settled\n");
	add_block_target(engine_give_up(&r, true), "/dev/sdz", 10000);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_INT(target0(&r)->state, TARGET_ABSENT);
	CHECK_WITHIN(target0(&r)->waited_ms, 999);
	CHECK(target0(&r)->settled_boot_ms > 0);
	run_end(&r);

	/* busy, then settled at 200 ms: given up then, not before */
	run_begin(&r, false);
	settle_make(&r, "busy\n");
	add_block_target(engine_give_up(&r, true), "/dev/sdz", 10000);
	later(&r, 200, settle_later);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_INT(target0(&r)->state, TARGET_ABSENT);
	CHECK_MSG(target0(&r)->waited_ms >= 150 && target0(&r)->waited_ms < 5000,
		  "given up after %llu ms, the settle came at 200",
		  (unsigned long long)target0(&r)->waited_ms);
	run_end(&r);

	/* the device comes while busy: found, whatever settles after */
	run_begin(&r, false);
	settle_make(&r, "busy\n");
	add_block_target(engine_give_up(&r, true), "sdb", 10000);
	later(&r, 100, plug_then_settle);
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);
	CHECK_STR(target0(&r)->node, "/dev/sdb");
	run_end(&r);

	/* a console is not given up, and a device that is there but not
	 * ready (no medium) is not absent: both wait out their deadline */
	run_begin(&r, false);
	settle_make(&r, "settled\n");
	fakesys_add_block(&r.fs, "sdc", 8, 32, 0, NULL, true);
	engine_give_up(&r, true);
	add_block_target(r.e, "/dev/sdz", 10000);
	add_block_target(r.e, "/dev/sdc", 300);
	add_console_target(r.e, "ttyUSB7", 300);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_INT(engine_target(r.e, 0)->state, TARGET_ABSENT);
	CHECK_INT(engine_target(r.e, 1)->state, TARGET_EXPIRED);
	CHECK_INT(engine_target(r.e, 2)->state, TARGET_EXPIRED);
	CHECK(engine_target(r.e, 1)->waited_ms >= 300);
	run_end(&r);

	/* a network interface is given up too; one that is there but
	 * down, waited for :up, is not (it is there: its wait is the link) */
	run_begin(&r, false);
	settle_make(&r, "settled\n");
	fakesys_add_net(&r.fs, "eth1", 3, "52:54:00:12:34:57", 0x1002, "down");
	engine_give_up(&r, true);
	add_net_target(r.e, "eth9", 10000);
	add_net_target(r.e, "eth1:up", 300);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_INT(engine_target(r.e, 0)->state, TARGET_ABSENT);
	CHECK_INT(engine_target(r.e, 1)->state, TARGET_EXPIRED);
	run_end(&r);

	/* without the attribute (a kernel without the series), or without
	 * give_up, the deadline holds */
	run_begin(&r, false);
	add_block_target(engine_give_up(&r, true), "/dev/sdz", 300);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_INT(target0(&r)->state, TARGET_EXPIRED);
	CHECK(target0(&r)->waited_ms >= 300);
	run_end(&r);
	run_begin(&r, false);
	settle_make(&r, "settled\n");
	add_block_target(engine_give_up(&r, false), "/dev/sdz", 300);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_INT(target0(&r)->state, TARGET_EXPIRED);
	run_end(&r);

	/* a value that is neither: said, and the deadline holds */
	run_begin(&r, false);
	settle_make(&r, "maybe\n");
	add_block_target(engine_give_up(&r, true), "/dev/sdz", 300);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_INT(target0(&r)->state, TARGET_EXPIRED);
	run_end(&r);
}

static void add_alternatives(struct engine *e, const char *a, const char *b,
			     uint64_t timeout_ms)
{
	struct spec specs[2];
	unsigned int bad;
	char err[200];

	if (spec_parse_block(a, &specs[0], err, sizeof(err)) < 0 ||
	    spec_parse_block(b, &specs[1], err, sizeof(err)) < 0 ||
	    engine_add_alternatives(e, &role_table[ROLE_ROOT], specs, 2, timeout_ms,
				    &bad) < 0) {
		fprintf(stderr, "bad test alternatives %s|%s\n", a, b);
		exit(99);
	}
}

static void plug_sdb_settle_later(struct fakesys *fs)
{
	plug_sdb(fs);
	usleep(150 * 1000);
	settle_write(fs, "settled\n");
}

/* waitdev.root=A|B: the first there once those before it cannot come */
static void test_alternatives(void)
{
	struct run r;

	/* the stick absent, USB settled: the disk is taken at once */
	run_begin(&r, false);
	settle_make(&r, "settled\n");
	fakesys_add_block(&r.fs, "vda", 254, 0, 4096, NULL, true);
	add_alternatives(engine_give_up(&r, true), "/dev/sdb", "/dev/vda", 10000);
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);
	CHECK_INT(engine_target(r.e, 0)->state, TARGET_ABSENT);
	CHECK(engine_target(r.e, 0)->superseded);
	CHECK_INT(engine_target(r.e, 1)->state, TARGET_FOUND);
	CHECK(target_is_result(engine_target(r.e, 1)));
	CHECK_STR(engine_target(r.e, 1)->node, "/dev/vda");
	CHECK_WITHIN(engine_target(r.e, 1)->waited_ms, 999);
	run_end(&r);

	/* the disk there first, the stick while USB is busy: the stick */
	run_begin(&r, false);
	settle_make(&r, "busy\n");
	fakesys_add_block(&r.fs, "vda", 254, 0, 4096, NULL, true);
	add_alternatives(engine_give_up(&r, true), "/dev/sdb", "/dev/vda", 10000);
	later(&r, 150, plug_sdb_settle_later);
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);
	CHECK(target_is_result(engine_target(r.e, 0)));
	CHECK_STR(engine_target(r.e, 0)->node, "/dev/sdb");
	CHECK_INT(engine_target(r.e, 1)->state, TARGET_PASSED);
	CHECK(!target_is_result(engine_target(r.e, 1)));
	run_end(&r);

	/* no settle signal: the better one waits out the deadline, then
	 * the disk found meanwhile is taken */
	run_begin(&r, false);
	fakesys_add_block(&r.fs, "vda", 254, 0, 4096, NULL, true);
	add_alternatives(engine_give_up(&r, false), "/dev/sdb", "/dev/vda", 300);
	CHECK_INT(engine_run(r.e), ENGINE_FOUND);
	CHECK_INT(engine_target(r.e, 0)->state, TARGET_EXPIRED);
	CHECK(target_is_result(engine_target(r.e, 1)));
	CHECK(engine_target(r.e, 0)->waited_ms >= 300);
	run_end(&r);

	/* neither there: both absent, the wait fails */
	run_begin(&r, false);
	settle_make(&r, "settled\n");
	add_alternatives(engine_give_up(&r, true), "/dev/sdb", "/dev/vda", 10000);
	CHECK_INT(engine_run(r.e), ENGINE_DEADLINE);
	CHECK_INT(engine_target(r.e, 0)->state, TARGET_ABSENT);
	CHECK_INT(engine_target(r.e, 1)->state, TARGET_ABSENT);
	run_end(&r);
}

int main(void)
{
	if (getuid() != 0) {
		fprintf(stderr, "test-engine: must run as root (forged "
				"credentials and the netlink flood need it); "
				"FAILING\n");
		return 1;
	}
	log_set_program("test-engine");
	log_set_level(LOG_LVL_WARN);
	test_present();
	test_late();
	test_window();
	test_add_remove();
	test_size_zero();
	test_device_mapper();
	test_forged();
	test_forged_rebroadcast();
	test_garbage();
	test_overflow_rescan();
	test_overflow_medium_swap();
	test_overflow_same_medium();
	test_partuuid_skips_disks();
	test_disk_after_partitions();
	test_deadline_diagnosis();
	test_long_tty_name();
	test_output_names();
	test_renamed();
	test_sigterm();
	test_zero_timeout();
	test_found_deadline_no_spin();
	test_console_and_net();
	test_lost_retakes();
	test_add_of_gone();
	test_out_of_fds();
	test_sysfs_missing();
	test_uevent_fd_closed();
	test_probe();
	test_probe_stall();
	test_probe_one_per_disk();
	test_settle_give_up();
	test_alternatives();
	return test_summary("test-engine");
}
