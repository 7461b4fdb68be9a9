/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtnl.h - network link state from rtnetlink (RTMGRP_LINK).
 *
 * Uevents say an interface exists; they say nothing when it goes up or
 * gets carrier. When a net spec asks for ":up" or ":carrier" the engine
 * opens this socket before it scans, so no transition is missed, and
 * applies each RTM_NEWLINK/RTM_DELLINK to the device table.
 */
#ifndef WAITDEV_RTNL_H
#define WAITDEV_RTNL_H

#include <stdbool.h>
#include <stddef.h>

struct rtnl_link {
	int ifindex;
	bool deleted;		  /* RTM_DELLINK */
	unsigned int flags;	  /* ifi_flags, IFF_* */
	unsigned int operstate;	  /* IF_OPER_*, or IF_OPER_UNKNOWN */
	const char *ifname;	  /* may be NULL */
	const unsigned char *mac; /* may be NULL */
	unsigned int mac_len;
};

typedef void (*rtnl_link_fn)(void *ctx, const struct rtnl_link *link);

struct rtnl;

/* Datagrams rtnl_recv() reads in one call before it lets the loop look at
 * its deadlines and other sockets again. */
#define RTNL_BATCH 64

int rtnl_open(struct rtnl **out);
/* Wraps @fd (taken over) instead of opening the socket: for tests, which
 * feed it datagrams from a socketpair. */
int rtnl_open_fd(struct rtnl **out, int fd);
void rtnl_free(struct rtnl *rt);
int rtnl_fd(const struct rtnl *rt);

/*
 * Reads up to RTNL_BATCH datagrams, calling @fn for every link message
 * from the kernel. Returns 0 when the queue was read empty, 1 when the
 * batch ended first (more may be queued), -ENOBUFS when messages were
 * lost (the caller re-reads link state from sysfs), or another negative
 * errno.
 */
int rtnl_recv(struct rtnl *rt, rtnl_link_fn fn, void *ctx);

/*
 * Parses one datagram of netlink messages; exposed for tests and fuzzing.
 * Returns the number of link messages passed to @fn or -EBADMSG.
 */
int rtnl_parse(const void *buf, size_t len, rtnl_link_fn fn, void *ctx);

#endif
