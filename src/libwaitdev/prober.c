// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Probes in child processes (see prober.h): one result pipe and one epoll
 * entry per child, so that a child that dies without a result is seen
 * (EOF), and one socket pair that tells it what to probe. A child is forked
 * ahead of its job (prober_prepare(), while the loop has nothing to do):
 * the fork and the child's setup are then not between the uevent and the
 * probe.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"
#include "prober.h"
#include "sysfs.h"
#include "util.h"

struct child {
	pid_t pid;
	uint32_t id;
	int fd;	     /* the read end of its pipe, -1 once read */
	bool reaped; /* waitpid() has it: the slot is free */
};

struct prober {
	probe_fn fn;
	char *fstypes;	 /* NULL: every type */
	bool part_entry; /* the probe_request the children get */
	int epoll_fd;
	uint32_t next_id;
	struct child *children; /* given a job: probing, or to reap */
	size_t n, cap;
	struct child spare; /* forked, waiting for its job; pid 0: none */
	int spare_job;	    /* our end of its job socket pair */
};

/* What the parent tells a waiting child: one message on a socket pair of
 * their own (below its buffer's size, so sending never blocks). */
struct probe_job {
	char node[PATH_MAX];
	char stat[PATH_MAX]; /* "": no read figures */
};

_Static_assert(sizeof(struct probe_msg) <= 4096, "one atomic pipe write");
_Static_assert(sizeof(struct probe_job) <= 16384, "below a socket's buffer");

static void spare_drop(struct prober *p);

int prober_new(struct prober **out, probe_fn fn, const struct probe_request *req)
{
	struct prober *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->fn = fn ? fn : probe_block;
	p->part_entry = req && req->part_entry;
	if (req && req->fstypes && *req->fstypes) {
		p->fstypes = strdup(req->fstypes);
		if (!p->fstypes) {
			free(p);
			return -ENOMEM;
		}
	}
	p->spare_job = -1;
	p->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (p->epoll_fd < 0) {
		int r = -errno;

		free(p->fstypes);
		free(p);
		return r;
	}
	*out = p;
	return 0;
}

/* Collects the children that have exited; never waits for one. */
static void prober_reap(struct prober *p)
{
	size_t i, kept = 0;

	for (i = 0; i < p->n; i++) {
		struct child *c = &p->children[i];

		if (c->fd < 0 && !c->reaped && waitpid(c->pid, NULL, WNOHANG) == c->pid)
			c->reaped = true;
		if (!c->reaped || c->fd >= 0)
			p->children[kept++] = *c;
	}
	p->n = kept;
}

void prober_free(struct prober *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++) {
		struct child *c = &p->children[i];

		if (c->fd >= 0) {
			/* still probing: stuck in a read, or about to write;
			 * its result is of no use any more */
			kill(c->pid, SIGKILL);
			close(c->fd);
			c->fd = -1;
		}
	}
	spare_drop(p);
	prober_reap(p);
	free(p->children);
	free(p->fstypes);
	close(p->epoll_fd);
	free(p);
}

int prober_fd(const struct prober *p)
{
	return p->epoll_fd;
}

unsigned int prober_running(const struct prober *p)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < p->n; i++)
		n += p->children[i].fd >= 0;
	return n;
}

static bool copy_value(char *slot, const char *val)
{
	return !val || strscpy(slot, val, PROBE_VALUE_MAX);
}

/* In the child: @path's counters (a sysfs read: the device is not touched). */
static bool read_blkstat(const char *path, struct sysfs_blkstat *st)
{
	char buf[512];

	return path && read_file_at(AT_FDCWD, path, buf, sizeof(buf)) > 0 &&
	       sysfs_parse_blkstat(buf, st) == 0;
}

/* In the child: only the probe itself, then _exit(): no atexit handlers,
 * no flush of stdio buffers the parent still owns. */
static void __attribute__((noreturn))
child_probe(probe_fn fn, const struct probe_job *job, const struct probe_request *req,
	    uint32_t id, int wfd)
{
	static struct probe_msg msg;
	const char *stat = job->stat[0] ? job->stat : NULL;
	struct sysfs_blkstat before, after;
	bool has_before;
	struct device dev;
	uint64_t t0;
	int hold, r;

	memset(&dev, 0, sizeof(dev));
	msg.id = id;
	has_before = read_blkstat(stat, &before);
	t0 = now_ns();
	/* held open to the end: the last close of a block device syncs it
	 * and drops its page cache (blkdev_put()), a tenth of a millisecond
	 * that comes after the result then (a failure here is the probe's
	 * own open's to report). The first open is the probe's cost (a
	 * removable disk checks its medium): timed with it */
	hold = open(job->node, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	msg.err = fn(&dev, job->node, req);
	msg.cost.us = (now_ns() - t0) / 1000;
	msg.cost.measured = true;
	/* a counter that went back: another device (the disk was removed
	 * and added again meanwhile): nothing to say */
	if (has_before && read_blkstat(stat, &after) && after.reads >= before.reads &&
	    after.read_sectors >= before.read_sectors) {
		msg.cost.has_io = true;
		msg.cost.reads = after.reads - before.reads;
		msg.cost.bytes = (after.read_sectors - before.read_sectors) * 512;
	}
	if (msg.err == 0) {
		msg.ambivalent = dev.fs_ambivalent;
		if (!copy_value(msg.fs_type, dev.fs_type) ||
		    !copy_value(msg.fs_uuid, dev.fs_uuid) ||
		    !copy_value(msg.fs_label, dev.fs_label) ||
		    !copy_value(msg.part_uuid, dev.part_uuid))
			msg.err = -ENAMETOOLONG;
	}
	device_clear(&dev);
	r = write(wfd, &msg, sizeof(msg)) == (ssize_t)sizeof(msg) ? 0 : 1;
	close(wfd);
	if (hold >= 0)
		close(hold);
	_exit(r);
}

/* The whole job, or false: the parent closed its end (it needs no probe
 * any more) or is gone. */
static bool child_read_job(int fd, struct probe_job *job)
{
	ssize_t n;

	do
		n = recv(fd, job, sizeof(*job), 0);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*job);
}

/* In the child, from the fork on: set up, wait for the job, probe. */
static void __attribute__((noreturn))
child_run(probe_fn fn, const struct probe_request *req, uint32_t id, int job_fd, int wfd,
	  pid_t parent, bool warm)
{
	static struct probe_job job;
	int keep[2] = { job_fd, wfd };
	sigset_t none;

	/* the parent's sockets, epoll and timer are not ours to hold;
	 * first, so that no way out of here leaves them open (valgrind
	 * counts them against us) */
	close_fds_except(keep, 2);
	/* gone with the parent, as far as a task in a read can go; a
	 * parent that died before the prctl() does not kill us: look */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent) {
		close(job_fd);
		close(wfd);
		_exit(1);
	}
	/* forked ahead, it has the time (forked for a job, the warming
	 * would only come first); tests' probes are their own */
	if (warm && fn == probe_block)
		probe_warm(req);
	if (!child_read_job(job_fd, &job)) {
		close(job_fd);
		close(wfd);
		_exit(1);
	}
	close(job_fd);
	/* the engine blocks SIGINT/SIGTERM for its signalfd: not here,
	 * once there is a job (a waiting child dies with the parent) */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	job.node[sizeof(job.node) - 1] = '\0';
	job.stat[sizeof(job.stat) - 1] = '\0';
	child_probe(fn, &job, req, id, wfd);
}

/* Room for one more child in the list (the spare's, once it has a job). */
static int prober_grow(struct prober *p)
{
	struct child *cs;
	size_t cap;

	if (p->n < p->cap)
		return 0;
	cap = p->cap ? p->cap * 2 : 16;
	cs = realloc(p->children, cap * sizeof(*p->children));
	if (!cs)
		return -ENOMEM;
	p->children = cs;
	p->cap = cap;
	return 0;
}

/*
 * The spare, killed and reaped. It never touched a device (its warming
 * reads a memfd), so it cannot be in D state: waiting for it is safe,
 * and leaves no zombie to a program that execs after the wait.
 */
static void spare_drop(struct prober *p)
{
	if (!p->spare.pid)
		return;
	kill(p->spare.pid, SIGKILL);
	close(p->spare_job);
	epoll_ctl(p->epoll_fd, EPOLL_CTL_DEL, p->spare.fd, NULL);
	close(p->spare.fd);
	p->spare_job = -1;
	while (waitpid(p->spare.pid, NULL, 0) < 0 && errno == EINTR)
		;
	p->spare.pid = 0;
}

/* Forks the spare (there is none); @ahead: before its job is known. */
static int spare_fork(struct prober *p, bool ahead)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int job[2], res[2], r;
	pid_t pid, parent;

	prober_reap(p);
	r = prober_grow(p);
	if (r < 0)
		return r;
	/* a job is one message, never a part of one; sent with
	 * MSG_NOSIGNAL: a child killed before its job is EPIPE */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, job) < 0)
		return -errno;
	if (pipe2(res, O_CLOEXEC) < 0) {
		r = -errno;
		close(job[0]);
		close(job[1]);
		return r;
	}
	if (++p->next_id == 0)
		p->next_id = 1;
	parent = getpid();
	pid = fork();
	if (pid == 0) {
		struct probe_request req = { p->fstypes, p->part_entry };

		child_run(p->fn, &req, p->next_id, job[0], res[1], parent, ahead);
	}
	r = -errno;
	close(job[0]);
	close(res[1]);
	if (pid < 0) {
		close(job[1]);
		close(res[0]);
		return r;
	}
	p->spare = (struct child){ .pid = pid, .id = p->next_id, .fd = res[0] };
	p->spare_job = job[1];
	ev.data.u32 = p->spare.id;
	if (fcntl(res[0], F_SETFL, O_NONBLOCK) < 0 ||
	    epoll_ctl(p->epoll_fd, EPOLL_CTL_ADD, res[0], &ev) < 0) {
		r = -errno;
		spare_drop(p);
		prober_reap(p);
		return r;
	}
	return 0;
}

int prober_prepare(struct prober *p)
{
	/* one is there; or a probe runs, which a fork (and the new child's
	 * warming) would take a CPU from: after it, the loop asks again */
	if (p->spare.pid || prober_running(p))
		return 0;
	return spare_fork(p, true);
}

int prober_start(struct prober *p, const char *node, const char *stat, uint32_t *id)
{
	static struct probe_job job;
	int r;

	if (!strscpy(job.node, node, sizeof(job.node)) ||
	    !strscpy(job.stat, stat ? stat : "", sizeof(job.stat)))
		return -ENAMETOOLONG;
	r = p->spare.pid ? 0 : spare_fork(p, false);
	if (r < 0)
		return r;
	if (send(p->spare_job, &job, sizeof(job), MSG_NOSIGNAL) != (ssize_t)sizeof(job)) {
		/* a spare that died meanwhile (killed from outside) */
		r = -errno;
		spare_drop(p);
		prober_reap(p);
		return r;
	}
	close(p->spare_job);
	p->spare_job = -1;
	p->children[p->n++] = p->spare;
	p->spare.pid = 0;
	*id = p->children[p->n - 1].id;
	return 0;
}

static struct child *prober_child(struct prober *p, uint32_t id)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->children[i].id == id && p->children[i].fd >= 0)
			return &p->children[i];
	return NULL;
}

int prober_read(struct prober *p, struct probe_msg *msg)
{
	struct epoll_event ev;
	struct child *c;
	ssize_t n;
	int r;

	for (;;) {
		r = epoll_wait(p->epoll_fd, &ev, 1, 0);
		if (r < 0)
			return errno == EINTR ? 0 : -errno;
		if (r == 0)
			return 0;
		if (p->spare.pid && ev.data.u32 == p->spare.id) {
			/* killed before its job (it writes nothing else):
			 * prober_prepare() forks the next */
			spare_drop(p);
			continue;
		}
		c = prober_child(p, ev.data.u32);
		if (c)
			break;
	}
	n = read(c->fd, msg, sizeof(*msg));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n != (ssize_t)sizeof(*msg) || msg->id != c->id) {
		/* died before its one write: it found nothing we know */
		memset(msg, 0, sizeof(*msg));
		msg->err = -EIO;
	}
	msg->id = c->id;
	/* the message is NUL-terminated in its slots, whatever came */
	msg->fs_type[PROBE_VALUE_MAX - 1] = '\0';
	msg->fs_uuid[PROBE_VALUE_MAX - 1] = '\0';
	msg->fs_label[PROBE_VALUE_MAX - 1] = '\0';
	msg->part_uuid[PROBE_VALUE_MAX - 1] = '\0';
	epoll_ctl(p->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	prober_reap(p);
	return 1;
}
