// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz-rtnl.c - rtnetlink datagrams: the input is one datagram as
 * recvmsg() would leave it in rtnl's (aligned) buffer, copied into an
 * allocation of exactly its size so that any read past the end is seen.
 * rtnl_parse() must return -EBADMSG or the number of links it passed to
 * the callback, and every link must point inside the datagram.
 */
#include <errno.h>
#include <stdbool.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "fuzz.h"
#include "rtnl.h"

struct ctx {
	const char *lo, *hi;
	int calls;
};

static void on_link(void *arg, const struct rtnl_link *link)
{
	struct ctx *c = arg;

	c->calls++;
	FUZZ_CHECK(link->ifindex > 0);
	FUZZ_CHECK(link->operstate <= 255);
	if (link->ifname) {
		FUZZ_CHECK(fuzz_string_inside(link->ifname, c->lo, c->hi));
		FUZZ_CHECK(strnlen(link->ifname, IFNAMSIZ) < IFNAMSIZ);
	}
	FUZZ_CHECK(link->mac_len <= 32);
	if (link->mac)
		FUZZ_CHECK(fuzz_inside(link->mac, link->mac_len, c->lo, c->hi));
	else
		FUZZ_CHECK(link->mac_len == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx c = { 0 };
	char *buf;
	int r, r2;

	if (size > 64 * 1024)
		return 0;
	buf = malloc(size ? size : 1); /* malloc()'s alignment, as recvmsg's */
	FUZZ_CHECK(buf);
	memcpy(buf, data, size);
	c.lo = buf;
	c.hi = buf + size;
	r = rtnl_parse(buf, size, on_link, &c);
	FUZZ_CHECK(r == -EBADMSG || r >= 0);
	if (r >= 0) {
		FUZZ_CHECK(r == c.calls);
		FUZZ_CHECK((size_t)r <= size / NLMSG_LENGTH(sizeof(struct ifinfomsg)));
	}
	/* the parser only reads: the same bytes, the same answer */
	FUZZ_CHECK(memcmp(buf, data, size) == 0);
	c.calls = 0;
	r2 = rtnl_parse(buf, size, on_link, &c);
	FUZZ_CHECK(r2 == r);
	free(buf);
	return 0;
}
