// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "log.h"
#include "rtnl.h"
#include "util.h"

struct rtnl {
	int fd;
	/* link messages are a few hundred bytes; 32 KiB holds many */
	char buf[32 * 1024] __attribute__((aligned(NLMSG_ALIGNTO)));
};

int rtnl_open(struct rtnl **out)
{
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
		.nl_groups = RTMGRP_LINK,
	};
	int size = 1024 * 1024;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return rtnl_open_fd(out, fd);
}

int rtnl_open_fd(struct rtnl **out, int fd)
{
	struct rtnl *rt = calloc(1, sizeof(*rt));

	if (!rt) {
		close(fd);
		return -ENOMEM;
	}
	rt->fd = fd;
	*out = rt;
	return 0;
}

void rtnl_free(struct rtnl *rt)
{
	/* rtnl_open_fd() is the only maker: the descriptor is valid */
	if (!rt)
		return;
	close(rt->fd);
	free(rt);
}

int rtnl_fd(const struct rtnl *rt)
{
	return rt->fd;
}

static int parse_link(const struct nlmsghdr *nh, struct rtnl_link *link)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nh);
	const struct rtattr *rta;
	int len = (int)nh->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifi));

	if (len < 0 || ifi->ifi_index <= 0)
		return -EBADMSG;
	memset(link, 0, sizeof(*link));
	link->ifindex = ifi->ifi_index;
	link->deleted = nh->nlmsg_type == RTM_DELLINK;
	link->flags = ifi->ifi_flags;
	link->operstate = IF_OPER_UNKNOWN;
	for (rta = IFLA_RTA(ifi); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		size_t plen = RTA_PAYLOAD(rta);
		const char *p = RTA_DATA(rta);

		switch (rta->rta_type) {
		case IFLA_IFNAME:
			/* must be a terminated name that fits IFNAMSIZ */
			if (plen == 0 || plen > IFNAMSIZ || !memchr(p, '\0', plen))
				return -EBADMSG;
			link->ifname = p;
			break;
		case IFLA_ADDRESS:
			if (plen > 32)
				return -EBADMSG;
			link->mac = (const unsigned char *)p;
			link->mac_len = (unsigned)plen;
			break;
		case IFLA_OPERSTATE:
			if (plen < 1)
				return -EBADMSG;
			link->operstate = (unsigned char)p[0];
			break;
		}
	}
	return 0;
}

/*
 * NLMSG_OK() with the signed @left it needs and no comparison of the
 * unsigned nlmsg_len with an int (clang's -Wsign-compare sees through
 * the macro).
 */
static bool msg_ok(const struct nlmsghdr *nh, int left)
{
	return left >= (int)sizeof(*nh) && nh->nlmsg_len >= sizeof(*nh) &&
	       nh->nlmsg_len <= (unsigned int)left;
}

int rtnl_parse(const void *buf, size_t len, rtnl_link_fn fn, void *ctx)
{
	const struct nlmsghdr *nh;
	/*
	 * Signed, as NLMSG_OK() expects: NLMSG_NEXT() past a last message
	 * whose length is not padded must go negative, not wrap around to
	 * a huge count that lets msg_ok() read past the buffer.
	 */
	int left = len > INT_MAX ? INT_MAX : (int)len;
	int count = 0;

	for (nh = buf; msg_ok(nh, left); nh = NLMSG_NEXT(nh, left)) {
		struct rtnl_link link;

		if (nh->nlmsg_type != RTM_NEWLINK && nh->nlmsg_type != RTM_DELLINK)
			continue;
		if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
			return -EBADMSG;
		if (parse_link(nh, &link) < 0)
			return -EBADMSG;
		fn(ctx, &link);
		count++;
	}
	/* bytes that do not make a whole message: a truncated datagram */
	if (left > 0)
		return -EBADMSG;
	return count;
}

int rtnl_recv(struct rtnl *rt, rtnl_link_fn fn, void *ctx)
{
	unsigned int n;

	for (n = 0; n < RTNL_BATCH; n++) {
		struct sockaddr_nl nl = { 0 };
		struct iovec iov = { rt->buf, sizeof(rt->buf) };
		struct msghdr msg = {
			.msg_name = &nl,
			.msg_namelen = sizeof(nl),
			.msg_iov = &iov,
			.msg_iovlen = 1,
		};
		ssize_t len = recvmsg(rt->fd, &msg, MSG_DONTWAIT);

		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -errno;
		}
		/* only the kernel speaks on RTMGRP_LINK */
		if (nl.nl_pid != 0 || msg.msg_flags & MSG_TRUNC) {
			log_debug("rtnetlink: dropped a message from port %u", nl.nl_pid);
			continue;
		}
		if (rtnl_parse(rt->buf, (size_t)len, fn, ctx) < 0)
			log_debug("rtnetlink: dropped a malformed message");
	}
	return 1; /* more may be queued: level-triggered epoll says so */
}
