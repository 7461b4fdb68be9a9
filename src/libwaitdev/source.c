// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The common part of every uevent source, and the two that read kernel
 * datagrams: the NETLINK_KOBJECT_UEVENT socket and a test/replay fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/un.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "source_impl.h"
#include "util.h"

/* Kernel datagrams are parsed in place in this buffer. */
struct datagram {
	bool netlink;
	char buf[UEVENT_RECV_SIZE + 1];
};

struct source *source_new(const struct source_ops *ops, int fd)
{
	struct source *src = calloc(1, sizeof(*src));

	if (!src)
		return NULL;
	src->ops = ops;
	src->fd = fd;
	return src;
}

void source_free(struct source *src)
{
	if (!src)
		return;
	if (src->ops->free)
		src->ops->free(src);
	if (src->fd >= 0)
		close(src->fd);
	free(src);
}

int source_fd(const struct source *src)
{
	return src->fd;
}

const struct source_stats *source_stats(const struct source *src)
{
	return &src->stats;
}

bool source_udev_running(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -1;

	/*
	 * udevd listens on its control socket while it runs; a killed one
	 * leaves the file behind, so its existence says nothing. Connect,
	 * as "udevadm control --ping" does (udevd takes a connection that
	 * sends nothing for one that went away): refused or missing means
	 * no udevd. Where we may not connect (not root), the file is all
	 * there is to go by.
	 */
	strscpy(addr.sun_path, UDEV_CONTROL, sizeof(addr.sun_path));
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return access(UDEV_CONTROL, F_OK) == 0;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
		return true;
	switch (errno) {
	case EAGAIN: /* its backlog is full: busy, not gone */
	case EINPROGRESS:
		return true;
	case EACCES:
	case EPERM:
		return access(UDEV_CONTROL, F_OK) == 0;
	default: /* ECONNREFUSED: stale; ENOENT: none */
		return false;
	}
}

int source_scan(struct source *src, enum dev_kind kind, sysfs_scan_fn fn, void *ctx)
{
	return src->ops->scan(src, kind, fn, ctx);
}

int source_recv(struct source *src, struct uevent *ev)
{
	for (;;) {
		int r = src->ops->recv_one(src, ev);

		if (r == 1)
			return 1;
		if (r == 0 || r == -EINTR)
			continue;
		if (r == -EAGAIN || r == -EWOULDBLOCK)
			return 0;
		if (r == -ENOBUFS)
			src->stats.overflows++;
		return r;
	}
}

bool source_sender_trusted(const struct sockaddr_nl *nl, const struct ucred *cred)
{
	if (!cred || cred->uid != 0)
		return false;
	if (!nl)
		return true;
	/*
	 * A uevent root sends to the kernel comes back re-broadcast from
	 * port id 0 with uid 0 (uevent_net_broadcast(), Linux >= 4.18),
	 * but with the sender's pid: the kernel's own carry pid 0.
	 */
	return nl->nl_family == AF_NETLINK && nl->nl_pid == 0 && cred->pid == 0;
}

static bool find_cred(struct msghdr *msg, struct ucred *cred)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len == CMSG_LEN(sizeof(*cred))) {
			memcpy(cred, CMSG_DATA(c), sizeof(*cred));
			return true;
		}
	}
	return false;
}

/* One kernel-format datagram: 1 accepted, 0 dropped (counted), <0 errno. */
static int datagram_recv_one(struct source *src, struct uevent *ev)
{
	struct datagram *dg = src->priv;
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} control;
	struct sockaddr_nl nl = { 0 };
	struct iovec iov = { dg->buf, UEVENT_RECV_SIZE };
	struct msghdr msg = {
		.msg_name = &nl,
		.msg_namelen = sizeof(nl),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = &control,
		.msg_controllen = sizeof(control),
	};
	struct ucred cred = { 0 };
	bool has_cred;
	ssize_t n;

	n = recvmsg(src->fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -errno;
	if (n == 0 && !dg->netlink)
		return -EPIPE; /* the test feed was closed */
	src->stats.received++;
	has_cred = find_cred(&msg, &cred);
	if (!source_sender_trusted(dg->netlink ? &nl : NULL, has_cred ? &cred : NULL)) {
		src->stats.forged++;
		log_debug("dropped a datagram from port %u pid %d uid %d",
			  dg->netlink ? nl.nl_pid : 0, has_cred ? (int)cred.pid : -1,
			  has_cred ? (int)cred.uid : -1);
		return 0;
	}
	if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC) ||
	    uevent_parse(dg->buf, (size_t)n, ev) < 0) {
		src->stats.malformed++;
		log_debug("dropped a malformed uevent of %zd bytes", n);
		return 0;
	}
	src->stats.accepted++;
	return 1;
}

static int datagram_scan(struct source *src, enum dev_kind kind, sysfs_scan_fn fn,
			 void *ctx)
{
	return sysfs_scan(src->sysfs, kind, fn, ctx);
}

static void datagram_free(struct source *src)
{
	free(src->priv);
}

static const struct source_ops datagram_ops = {
	.recv_one = datagram_recv_one,
	.scan = datagram_scan,
	.free = datagram_free,
};

/* Takes @fd over: it is the source's, or closed on failure. */
static int datagram_source(struct source **out, struct sysfs *sysfs, int fd, bool netlink)
{
	struct source *src = source_new(&datagram_ops, fd);
	struct datagram *dg = calloc(1, sizeof(*dg));

	if (!src || !dg) {
		free(src);
		free(dg);
		close(fd);
		return -ENOMEM;
	}
	dg->netlink = netlink;
	src->priv = dg;
	src->sysfs = sysfs;
	*out = src;
	return 0;
}

int source_open_kernel(struct source **out, struct sysfs *sysfs, int rcvbuf)
{
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
		.nl_groups = 1, /* the kernel's group; udevd's is 2 */
	};
	int one = 1, size = rcvbuf > 0 ? rcvbuf : SOURCE_RCVBUF_DEFAULT;
	_cleanup_close_ int fd = -1;
	int r;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -errno;
	/* FORCE passes rmem_max as root; an explicit small size (tests)
	 * must stay small, so only the default tries FORCE */
	if (rcvbuf > 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) < 0)
			log_debug("SO_RCVBUF %d: %m", size);
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return -errno;
	r = fd;
	fd = -1; /* datagram_source() takes it */
	return datagram_source(out, sysfs, r, true);
}

int source_open_fd(struct source **out, struct sysfs *sysfs, int fd)
{
	int one = 1, fl, r;

	/* credentials are checked on this path too */
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0)
		goto fail;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		goto fail;
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		goto fail;
	return datagram_source(out, sysfs, fd, false);
fail:
	r = -errno;
	close(fd); /* taken over, whatever happens */
	return r;
}
