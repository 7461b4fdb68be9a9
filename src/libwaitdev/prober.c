// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Probes in child processes (see prober.h): one pipe and one epoll entry
 * per child, so that a child that dies without a result is seen (EOF).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
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
	struct child *children;
	size_t n, cap;
};

_Static_assert(sizeof(struct probe_msg) <= 4096, "one atomic pipe write");

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
child_run(probe_fn fn, const char *node, const struct probe_request *req,
	  const char *stat, uint32_t id, int wfd, pid_t parent)
{
	static struct probe_msg msg;
	struct sysfs_blkstat before, after;
	bool has_before;
	struct device dev;
	uint64_t t0;
	sigset_t none;
	int r;

	/* the parent's sockets, epoll and timer are not ours to hold;
	 * first, so that no way out of here leaves them open (valgrind
	 * counts them against us) */
	close_fds_except(&wfd, 1);
	/* gone with the parent, as far as a task in a read can go; a
	 * parent that died before the prctl() does not kill us: look */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent) {
		close(wfd);
		_exit(1);
	}
	/* the engine blocks SIGINT/SIGTERM for its signalfd: not here */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	memset(&dev, 0, sizeof(dev));
	msg.id = id;
	has_before = read_blkstat(stat, &before);
	t0 = now_ns();
	msg.err = fn(&dev, node, req);
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
	_exit(r);
}

int prober_start(struct prober *p, const char *node, const char *stat, uint32_t *id)
{
	struct epoll_event ev = { .events = EPOLLIN };
	pid_t pid, parent = getpid();
	struct child *c;
	int fds[2], r;

	prober_reap(p);
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct child *cs = realloc(p->children, cap * sizeof(*p->children));

		if (!cs)
			return -ENOMEM;
		p->children = cs;
		p->cap = cap;
	}
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	if (++p->next_id == 0)
		p->next_id = 1;
	pid = fork();
	if (pid == 0) {
		struct probe_request req = { p->fstypes, p->part_entry };

		child_run(p->fn, node, &req, stat, p->next_id, fds[1], parent);
	}
	r = -errno;
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return r;
	}
	c = &p->children[p->n++];
	c->pid = pid;
	c->id = p->next_id;
	c->fd = fds[0];
	c->reaped = false;
	ev.data.u32 = c->id;
	if (fcntl(c->fd, F_SETFL, O_NONBLOCK) < 0 ||
	    epoll_ctl(p->epoll_fd, EPOLL_CTL_ADD, c->fd, &ev) < 0) {
		r = -errno;
		kill(pid, SIGKILL);
		close(c->fd);
		c->fd = -1;
		prober_reap(p);
		return r;
	}
	*id = c->id;
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
