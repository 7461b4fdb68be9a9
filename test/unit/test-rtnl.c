// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-rtnl.c - rtnl_parse() on hand-built RTM_NEWLINK/RTM_DELLINK
 * datagrams, well-formed and malformed.
 */
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "rtnl.h"
#include "test.h"
#include "util.h"

/* ---- building datagrams ---------------------------------------------- */

struct dgram {
	char buf[4096] __attribute__((aligned(8)));
	size_t len;
};

static struct nlmsghdr *msg_begin(struct dgram *d, unsigned short type, int ifindex,
				  unsigned flags)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)(d->buf + d->len);
	struct ifinfomsg *ifi;

	memset(nh, 0, NLMSG_SPACE(sizeof(*ifi)));
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(*ifi));
	nh->nlmsg_type = type;
	nh->nlmsg_seq = 0;
	nh->nlmsg_pid = 0;
	ifi = NLMSG_DATA(nh);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_type = 1; /* ARPHRD_ETHER */
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = flags;
	ifi->ifi_change = 0xffffffff;
	return nh;
}

static void msg_attr(struct nlmsghdr *nh, unsigned short type, const void *data,
		     size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memset(RTA_DATA(rta), 0, RTA_ALIGN(len));
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_SPACE(len);
}

static void msg_end(struct dgram *d, struct nlmsghdr *nh)
{
	d->len = (size_t)((char *)nh - d->buf) + NLMSG_ALIGN(nh->nlmsg_len);
}

/* ---- collecting links ------------------------------------------------ */

#define N_LINKS 8

struct collected {
	int n;
	struct rtnl_link links[N_LINKS];
};

static void collect(void *ctx, const struct rtnl_link *link)
{
	struct collected *c = ctx;

	if (c->n < N_LINKS)
		c->links[c->n] = *link;
	c->n++;
}

/*
 * Parses a copy of @d in a heap buffer of exactly the datagram's size, so
 * that a sanitizer sees any read past its end.
 */
static int parse_exact(const void *data, size_t len, struct collected *c, void **keep)
{
	void *copy = malloc(len ? len : 1);

	memcpy(copy, data, len);
	memset(c, 0, sizeof(*c));
	*keep = copy;
	return rtnl_parse(copy, len, collect, c);
}

/* ---- one link message, table-driven ---------------------------------- */

#define NO_ATTR (-1)
#define EMPTY_ATTR (-2)

struct link_case {
	const char *name;
	unsigned short type;
	int ifindex;
	unsigned flags;
	const char *ifname; /* NULL: no IFLA_IFNAME */
	int ifname_len;	    /* payload bytes; 0: strlen + 1 */
	int mac_len;	    /* NO_ATTR or bytes of IFLA_ADDRESS */
	int operstate;	    /* NO_ATTR, EMPTY_ATTR or the value */
	int hdr_len;	    /* nonzero: nlmsg_len set to this */
	int cut;	    /* bytes cut off the datagram */
	int extra;	    /* garbage bytes appended */
	int ret;	    /* 1 or -EBADMSG */
};

static const struct link_case link_cases[] = {
	{ "newlink, all attributes", RTM_NEWLINK, 2,
	  IFF_UP | IFF_RUNNING | IFF_BROADCAST | IFF_MULTICAST | IFF_LOWER_UP, "eth0", 0,
	  6, IF_OPER_UP, 0, 0, 0, 1 },
	{ "newlink, down", RTM_NEWLINK, 3, IFF_BROADCAST, "enp0s3", 0, 6, IF_OPER_DOWN, 0,
	  0, 0, 1 },
	{ "newlink, up, no carrier", RTM_NEWLINK, 3, IFF_UP, "enp0s3", 0, 6,
	  IF_OPER_LOWERLAYERDOWN, 0, 0, 0, 1 },
	{ "dellink", RTM_DELLINK, 4, 0, "veth1", 0, 6, IF_OPER_DOWN, 0, 0, 0, 1 },
	{ "no attributes", RTM_NEWLINK, 5, IFF_UP, NULL, 0, NO_ATTR, NO_ATTR, 0, 0, 0,
	  1 },
	{ "loopback", RTM_NEWLINK, 1, IFF_UP | IFF_LOOPBACK | IFF_RUNNING, "lo", 0, 6,
	  IF_OPER_UNKNOWN, 0, 0, 0, 1 },
	{ "15-character name", RTM_NEWLINK, 6, 0, "abcdefghijklmno", 0, NO_ATTR, NO_ATTR,
	  0, 0, 0, 1 },
	{ "name padded with NULs", RTM_NEWLINK, 6, 0, "eth0", 8, NO_ATTR, NO_ATTR, 0, 0,
	  0, 1 },
	{ "InfiniBand address", RTM_NEWLINK, 7, IFF_UP, "ib0", 0, 20, IF_OPER_DORMANT, 0,
	  0, 0, 1 },
	{ "32-byte address", RTM_NEWLINK, 7, 0, "x0", 0, 32, NO_ATTR, 0, 0, 0, 1 },
	{ "empty address", RTM_NEWLINK, 7, 0, "x0", 0, 0, NO_ATTR, 0, 0, 0, 1 },
	{ "large ifindex", RTM_NEWLINK, 0x7fffffff, 0, "x0", 0, NO_ATTR, NO_ATTR, 0, 0, 0,
	  1 },

	{ "ifindex 0", RTM_NEWLINK, 0, IFF_UP, "eth0", 0, 6, IF_OPER_UP, 0, 0, 0,
	  -EBADMSG },
	{ "negative ifindex", RTM_DELLINK, -3, 0, "eth0", 0, 6, NO_ATTR, 0, 0, 0,
	  -EBADMSG },
	{ "name without NUL", RTM_NEWLINK, 2, 0, "eth0", 4, NO_ATTR, NO_ATTR, 0, 0, 0,
	  -EBADMSG },
	{ "empty name", RTM_NEWLINK, 2, 0, "", -1, NO_ATTR, NO_ATTR, 0, 0, 0, -EBADMSG },
	{ "name longer than IFNAMSIZ", RTM_NEWLINK, 2, 0, "abcdefghijklmnop", 0, NO_ATTR,
	  NO_ATTR, 0, 0, 0, -EBADMSG },
	{ "address longer than MAX_ADDR_LEN", RTM_NEWLINK, 2, 0, "eth0", 0, 33, NO_ATTR,
	  0, 0, 0, -EBADMSG },
	{ "empty operstate", RTM_NEWLINK, 2, 0, "eth0", 0, 6, EMPTY_ATTR, 0, 0, 0,
	  -EBADMSG },
	{ "header too short for ifinfomsg", RTM_NEWLINK, 2, 0, NULL, 0, NO_ATTR, NO_ATTR,
	  NLMSG_LENGTH(8), 0, 0, -EBADMSG },
	{ "nlmsg_len 0", RTM_NEWLINK, 2, 0, "eth0", 0, 6, NO_ATTR, -1, 0, 0, -EBADMSG },
	{ "truncated in the attributes", RTM_NEWLINK, 2, IFF_UP, "eth0", 0, 6, IF_OPER_UP,
	  0, 8, 0, -EBADMSG },
	{ "truncated in ifinfomsg", RTM_NEWLINK, 2, IFF_UP, NULL, 0, NO_ATTR, NO_ATTR, 0,
	  16, 0, -EBADMSG },
	{ "truncated in the header", RTM_NEWLINK, 2, IFF_UP, NULL, 0, NO_ATTR, NO_ATTR, 0,
	  30, 0, -EBADMSG },
	{ "a partial second header", RTM_NEWLINK, 2, IFF_UP, "eth0", 0, 6, IF_OPER_UP, 0,
	  0, 8, -EBADMSG },
};

static void build_link_case(const struct link_case *c, struct dgram *d)
{
	struct nlmsghdr *nh;
	unsigned char mac[40];
	int i;

	d->len = 0;
	nh = msg_begin(d, c->type, c->ifindex, c->flags);
	if (c->ifname) {
		char name[64] = "";
		size_t n = c->ifname_len > 0   ? (size_t)c->ifname_len
			   : c->ifname_len < 0 ? 0
					       : strlen(c->ifname) + 1;

		strncpy(name, c->ifname, sizeof(name) - 1);
		msg_attr(nh, IFLA_IFNAME, name, n);
	}
	/* an attribute waitdev does not read, in the middle */
	msg_attr(nh, IFLA_MTU, &(unsigned){ 1500 }, sizeof(unsigned));
	if (c->mac_len != NO_ATTR) {
		for (i = 0; i < c->mac_len; i++)
			mac[i] = (unsigned char)(0x50 + i);
		msg_attr(nh, IFLA_ADDRESS, mac, (size_t)c->mac_len);
	}
	if (c->operstate == EMPTY_ATTR) {
		msg_attr(nh, IFLA_OPERSTATE, NULL, 0);
	} else if (c->operstate != NO_ATTR) {
		unsigned char op = (unsigned char)c->operstate;

		msg_attr(nh, IFLA_OPERSTATE, &op, 1);
	}
	msg_end(d, nh);
	if (c->hdr_len > 0)
		nh->nlmsg_len = (unsigned)c->hdr_len;
	else if (c->hdr_len < 0)
		nh->nlmsg_len = 0;
	d->len -= (size_t)c->cut;
	memset(d->buf + d->len, 0x5a, (size_t)c->extra);
	d->len += (size_t)c->extra;
}

static void check_link(const char *name, const struct rtnl_link *l,
		       const struct link_case *c)
{
	int i;

	CHECK_MSG(l->ifindex == c->ifindex, "%s: ifindex %d", name, l->ifindex);
	CHECK_MSG(l->deleted == (c->type == RTM_DELLINK), "%s: deleted %d", name,
		  l->deleted);
	CHECK_MSG(l->flags == c->flags, "%s: flags %#x, expected %#x", name, l->flags,
		  c->flags);
	if (c->operstate >= 0)
		CHECK_MSG(l->operstate == (unsigned)c->operstate, "%s: operstate %u",
			  name, l->operstate);
	else
		CHECK_MSG(l->operstate == IF_OPER_UNKNOWN, "%s: operstate %u", name,
			  l->operstate);
	if (c->ifname)
		CHECK_STR(l->ifname, c->ifname);
	else
		CHECK_MSG(!l->ifname, "%s: ifname \"%s\"", name, l->ifname);
	if (c->mac_len == NO_ATTR) {
		CHECK_MSG(!l->mac && l->mac_len == 0, "%s: mac set", name);
		return;
	}
	CHECK_MSG(l->mac != NULL, "%s: no mac", name);
	CHECK_MSG(l->mac_len == (unsigned)c->mac_len, "%s: mac_len %u", name, l->mac_len);
	for (i = 0; l->mac && i < c->mac_len && i < (int)l->mac_len; i++)
		CHECK_MSG(l->mac[i] == 0x50 + i, "%s: mac[%d] = %#x", name, i, l->mac[i]);
}

static void test_link_cases(void)
{
	static struct dgram d;
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(link_cases); i++) {
		const struct link_case *c = &link_cases[i];
		struct collected got;
		void *keep;
		int r;

		build_link_case(c, &d);
		r = parse_exact(d.buf, d.len, &got, &keep);
		CHECK_MSG(r == c->ret, "%s: returned %d, expected %d", c->name, r,
			  c->ret);
		if (c->ret == 1 && r == 1) {
			CHECK_INT(got.n, 1);
			check_link(c->name, &got.links[0], c);
		}
		/* (with garbage after it, the one message was good) */
		if (c->ret < 0 && !c->extra)
			CHECK_MSG(got.n == 0, "%s: %d links passed on", c->name, got.n);
		free(keep);
	}
}

/* ---- several messages in a datagram ---------------------------------- */

static void test_multi(void)
{
	static struct dgram d;
	struct collected got;
	struct nlmsghdr *nh;
	void *keep;
	unsigned char op = IF_OPER_UP;

	/* two links, in order */
	d.len = 0;
	nh = msg_begin(&d, RTM_NEWLINK, 2, IFF_UP);
	msg_attr(nh, IFLA_IFNAME, "eth0", 5);
	msg_end(&d, nh);
	nh = msg_begin(&d, RTM_DELLINK, 3, 0);
	msg_attr(nh, IFLA_IFNAME, "eth1", 5);
	msg_end(&d, nh);
	CHECK_INT(parse_exact(d.buf, d.len, &got, &keep), 2);
	CHECK_INT(got.n, 2);
	CHECK_INT(got.links[0].ifindex, 2);
	CHECK_STR(got.links[0].ifname, "eth0");
	CHECK(!got.links[0].deleted);
	CHECK_INT(got.links[1].ifindex, 3);
	CHECK_STR(got.links[1].ifname, "eth1");
	CHECK(got.links[1].deleted);
	free(keep);

	/* other message types are skipped, not counted */
	d.len = 0;
	nh = msg_begin(&d, NLMSG_NOOP, 0, 0);
	msg_end(&d, nh);
	nh = msg_begin(&d, RTM_NEWADDR, 0, 0);
	msg_end(&d, nh);
	nh = msg_begin(&d, RTM_NEWLINK, 9, IFF_UP | IFF_RUNNING);
	msg_attr(nh, IFLA_OPERSTATE, &op, 1);
	msg_end(&d, nh);
	nh = msg_begin(&d, NLMSG_DONE, 0, 0);
	msg_end(&d, nh);
	CHECK_INT(parse_exact(d.buf, d.len, &got, &keep), 1);
	CHECK_INT(got.n, 1);
	CHECK_INT(got.links[0].ifindex, 9);
	CHECK_INT(got.links[0].operstate, IF_OPER_UP);
	free(keep);

	/* nothing at all */
	CHECK_INT(parse_exact(d.buf, 0, &got, &keep), 0);
	CHECK_INT(got.n, 0);
	free(keep);

	/* only a message of another type */
	d.len = 0;
	nh = msg_begin(&d, RTM_NEWROUTE, 0, 0);
	msg_end(&d, nh);
	CHECK_INT(parse_exact(d.buf, d.len, &got, &keep), 0);
	free(keep);

	/* a malformed second link spoils the datagram */
	d.len = 0;
	nh = msg_begin(&d, RTM_NEWLINK, 2, IFF_UP);
	msg_end(&d, nh);
	nh = msg_begin(&d, RTM_NEWLINK, 0, IFF_UP);
	msg_end(&d, nh);
	CHECK_INT(parse_exact(d.buf, d.len, &got, &keep), -EBADMSG);
	free(keep);

	/* a second message cut short */
	d.len = 0;
	nh = msg_begin(&d, RTM_NEWLINK, 2, IFF_UP);
	msg_end(&d, nh);
	nh = msg_begin(&d, RTM_NEWLINK, 3, IFF_UP);
	msg_attr(nh, IFLA_IFNAME, "eth1", 5);
	msg_end(&d, nh);
	CHECK_INT(parse_exact(d.buf, d.len - 4, &got, &keep), -EBADMSG);
	free(keep);

	/*
	 * A last message whose length is not padded to NLMSG_ALIGNTO and a
	 * datagram that ends right there: parsed, and nothing read past
	 * the end (run under -Db_sanitize=address to see).
	 */
	d.len = 0;
	nh = msg_begin(&d, RTM_NEWLINK, 4, IFF_UP);
	msg_attr(nh, IFLA_OPERSTATE, &op, 1);
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)) + RTA_LENGTH(1);
	d.len = nh->nlmsg_len;
	CHECK(d.len % NLMSG_ALIGNTO != 0);
	CHECK_INT(parse_exact(d.buf, d.len, &got, &keep), 1);
	CHECK_INT(got.n, 1);
	CHECK_INT(got.links[0].operstate, IF_OPER_UP);
	free(keep);
}

static void count_link(void *ctx, const struct rtnl_link *link)
{
	(void)link;
	(*(unsigned *)ctx)++;
}

/*
 * A flood of link messages (veth pairs made by the hundred) must not keep
 * the loop from its deadline: one call reads a bounded batch, as for
 * uevents, and says when more may be queued.
 */
static void test_recv_batch(void)
{
	struct rtnl *rt;
	struct dgram d = { .len = 0 };
	struct nlmsghdr *nh;
	unsigned got = 0, sent = 0, calls = 0;
	int sv[2], size = 4 << 20, r;

	CHECK(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) == 0);
	/* room for the flood (FORCE as root; the plain size otherwise) */
	if (setsockopt(sv[1], SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	nh = msg_begin(&d, RTM_NEWLINK, 2, IFF_UP);
	msg_end(&d, nh);
	while (sent < 1000 && send(sv[1], d.buf, d.len, MSG_DONTWAIT) == (ssize_t)d.len)
		sent++;
	CHECK_MSG(sent > RTNL_BATCH, "only %u datagrams queued", sent);
	CHECK(rtnl_open_fd(&rt, sv[0]) == 0);
	r = rtnl_recv(rt, count_link, &got);
	CHECK_MSG(got <= RTNL_BATCH && r == 1,
		  "one call read %u of %u messages (returned %d): no cap", got, sent, r);
	for (calls = 1; r == 1 && calls < 1000; calls++)
		r = rtnl_recv(rt, count_link, &got);
	CHECK_INT(r, 0);
	CHECK_INT(got, sent);
	rtnl_free(rt);
	close(sv[1]);
}

int main(void)
{
	test_link_cases();
	test_multi();
	test_recv_batch();
	return test_summary("test-rtnl");
}
