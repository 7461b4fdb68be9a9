// SPDX-License-Identifier: LGPL-2.1-or-later
/* Network interfaces: named by INTERFACE=, with a link state. */
#include <linux/if.h>
#include <stdlib.h>

#include "devclass.h"
#include "sysfs.h"
#include "util.h"

/* RFC 2863 operational states, in the order of IF_OPER_* */
static const char *const operstates[] = {
	"unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up",
};

const char *dev_operstate_name(unsigned int operstate)
{
	return operstate < ARRAY_SIZE(operstates) ? operstates[operstate] : "unknown";
}

static unsigned operstate_from_name(const char *s)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(operstates); i++)
		if (streq(s, operstates[i]))
			return i;
	return IF_OPER_UNKNOWN;
}

static void parse_mac_attr(struct dev_attrs *a, const char *s)
{
	unsigned n = 0;

	while (*s && n < DEV_MAC_MAX) {
		unsigned v;
		char *end;

		v = (unsigned)strtoul(s, &end, 16);
		if (end == s || v > 0xff)
			break;
		a->mac[n++] = (unsigned char)v;
		s = *end == ':' ? end + 1 : end;
		if (end[0] != ':')
			break;
	}
	a->mac_len = n;
	a->has_mac = true;
}

static int net_read_attrs(struct sysfs *s, const struct device *dev, struct dev_attrs *a)
{
	char buf[128];
	int r;

	r = sysfs_read_attr(s, dev, "flags", buf, sizeof(buf));
	if (r < 0)
		return r;
	a->has_link = true;
	a->flags = (unsigned)strtoul(buf, NULL, 16);
	if (sysfs_read_attr(s, dev, "address", buf, sizeof(buf)) == 0)
		parse_mac_attr(a, buf);
	a->operstate = IF_OPER_UNKNOWN;
	if (sysfs_read_attr(s, dev, "operstate", buf, sizeof(buf)) == 0)
		a->operstate = operstate_from_name(buf);
	/*
	 * sysfs "flags" is dev->flags, without the IFF_RUNNING that
	 * dev_get_flags() adds for rtnetlink: derive it the same way.
	 */
	a->flags &= ~(unsigned)(IFF_RUNNING | IFF_LOWER_UP);
	if (a->flags & IFF_UP) {
		bool carrier;

		r = sysfs_read_attr(s, dev, "carrier", buf, sizeof(buf));
		carrier = r == 0 && streq(buf, "1");

		if (carrier)
			a->flags |= IFF_LOWER_UP;
		if (a->operstate == IF_OPER_UP ||
		    (a->operstate == IF_OPER_UNKNOWN && carrier))
			a->flags |= IFF_RUNNING;
	}
	return 0;
}

const struct dev_class dev_class_net = {
	.kind = DEV_NET,
	.subsystem = "net",
	.by_interface = true,
	.read_attrs = net_read_attrs,
};
