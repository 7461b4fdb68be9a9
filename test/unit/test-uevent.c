// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-uevent.c - kernel uevent datagrams and sysfs uevent files: what a
 * real kernel sends parses into the right fields, anything malformed is
 * -EBADMSG.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "uevent.h"
#include "util.h"

/* A datagram literal with its embedded NULs; the length excludes the
 * literal's own terminating NUL. */
#define DG(s) s, sizeof(s) - 1

struct expect {
	enum uevent_action action;
	const char *devpath, *devpath_old, *subsystem, *devname, *devtype;
	const char *partname, *interface, *modalias;
	int has_devt;
	unsigned major, minor, partn;
	uint64_t diskseq, seqnum;
	int ifindex;
};

struct good_case {
	const char *name;
	const char *data;
	size_t len;
	struct expect e;
};

#define LOOP0 "/devices/virtual/block/loop0"
#define VDA1 "/devices/pci0000:00/0000:00:04.0/virtio1/block/vda/vda1"
#define TTYS0 "/devices/platform/serial8250/tty/ttyS0"
#define PCI3 "/devices/pci0000:00/0000:00:03.0"
#define USB11 "/devices/pci0000:00/0000:00:01.2/usb1/1-1"

static const struct good_case good_cases[] = {
	{ "loop0 add",
	  DG("add@" LOOP0 "\0ACTION=add\0DEVPATH=" LOOP0 "\0SUBSYSTEM="
	     "block\0MAJOR="
	     "7\0MINOR=0\0DEVNAME="
	     "loop0"
	     "\0DEVTYPE=disk\0DISKSEQ=9\0SEQNUM=1234\0"),
	  { .action = UEVENT_ADD,
	    .devpath = LOOP0,
	    .subsystem = "block",
	    .devname = "loop0",
	    .devtype = "disk",
	    .has_devt = 1,
	    .major = 7,
	    .minor = 0,
	    .diskseq = 9,
	    .seqnum = 1234 } },
	{ "partition add",
	  DG("add@" VDA1 "\0ACTION=add\0DEVPATH=" VDA1 "\0SUBSYSTEM="
	     "block\0MAJOR="
	     "254\0MINOR=1\0DEVNAME="
	     "vda1"
	     "\0DEVTYPE=partition\0DISKSEQ=1\0PARTN=1"
	     "\0PARTNAME=EFI System Partition\0SEQNUM=1500\0"),
	  { .action = UEVENT_ADD,
	    .devpath = VDA1,
	    .subsystem = "block",
	    .devname = "vda1",
	    .devtype = "partition",
	    .partname = "EFI System Partition",
	    .has_devt = 1,
	    .major = 254,
	    .minor = 1,
	    .partn = 1,
	    .diskseq = 1,
	    .seqnum = 1500 } },
	{ "net add",
	  DG("add@/devices/virtual/net/veth0\0ACTION=add"
	     "\0DEVPATH=/devices/virtual/net/veth0\0SUBSYSTEM=net"
	     "\0INTERFACE=veth0\0IFINDEX=5\0SEQNUM=2000\0"),
	  { .action = UEVENT_ADD,
	    .devpath = "/devices/virtual/net/veth0",
	    .subsystem = "net",
	    .interface = "veth0",
	    .ifindex = 5,
	    .seqnum = 2000 } },
	/* recorded in a QEMU boot: the interface of a USB stick, whose
	 * INTERFACE is a class triple and whose MODALIAS loads usb-storage */
	{ "usb interface add",
	  DG("add@/devices/pci0000:00/0000:00:04.0/usb2/2-1/2-1:1.0"
	     "\0ACTION=add\0DEVPATH=/devices/pci0000:00/0000:00:04.0/usb2/"
	     "2-1/2-1:1.0\0SUBSYSTEM=usb\0DEVTYPE=usb_interface"
	     "\0PRODUCT=46f4/1/0\0TYPE=0/0/0\0INTERFACE=8/6/80"
	     "\0MODALIAS=usb:v46F4p0001d0000dc00dsc00dp00ic08isc06ip50in00"
	     "\0SEQNUM=1234\0"),
	  { .action = UEVENT_ADD,
	    .devpath = "/devices/pci0000:00/0000:00:04.0/usb2/2-1/2-1:1.0",
	    .subsystem = "usb",
	    .devtype = "usb_interface",
	    .interface = "8/6/80",
	    .modalias = "usb:v46F4p0001d0000dc00dsc00dp00ic08isc06ip50in00",
	    .seqnum = 1234 } },
	{ "tty add",
	  DG("add@" TTYS0 "\0ACTION=add\0DEVPATH=" TTYS0 "\0SUBSYSTEM="
	     "tty\0MAJOR=4\0MINOR="
	     "64\0DEVNAME=ttyS0"
	     "\0SEQNUM=812\0"),
	  { .action = UEVENT_ADD,
	    .devpath = TTYS0,
	    .subsystem = "tty",
	    .devname = "ttyS0",
	    .has_devt = 1,
	    .major = 4,
	    .minor = 64,
	    .seqnum = 812 } },
	{ "net move",
	  DG("move@/devices/virtual/net/eth1\0ACTION=move"
	     "\0DEVPATH=/devices/virtual/net/eth1\0SUBSYSTEM=net"
	     "\0DEVPATH_OLD=/devices/virtual/net/eth0\0INTERFACE=eth1"
	     "\0IFINDEX=3\0SEQNUM=3000\0"),
	  { .action = UEVENT_MOVE,
	    .devpath = "/devices/virtual/net/eth1",
	    .devpath_old = "/devices/virtual/net/eth0",
	    .subsystem = "net",
	    .interface = "eth1",
	    .ifindex = 3,
	    .seqnum = 3000 } },
	{ "loop0 remove",
	  DG("remove@" LOOP0 "\0ACTION=remove\0DEVPATH=" LOOP0 "\0SUBSYSTEM="
	     "block\0MAJOR="
	     "7\0MINOR="
	     "0\0DEVNAME="
	     "loop0"
	     "\0DEVTYPE=disk\0DISKSEQ=9\0SEQNUM=1240\0"),
	  { .action = UEVENT_REMOVE,
	    .devpath = LOOP0,
	    .subsystem = "block",
	    .devname = "loop0",
	    .devtype = "disk",
	    .has_devt = 1,
	    .major = 7,
	    .diskseq = 9,
	    .seqnum = 1240 } },
	{ "media change, unknown keys ignored",
	  DG("change@" LOOP0 "\0ACTION=change\0DEVPATH=" LOOP0 "\0SUBSYSTEM="
	     "block\0DISK_"
	     "MEDIA_CHANGE="
	     "1\0MAJOR="
	     "7\0MINOR=0"
	     "\0DEVNAME=loop0\0DEVTYPE=disk\0DISKSEQ=10\0SEQNUM=1241\0"),
	  { .action = UEVENT_CHANGE,
	    .devpath = LOOP0,
	    .subsystem = "block",
	    .devname = "loop0",
	    .devtype = "disk",
	    .has_devt = 1,
	    .major = 7,
	    .diskseq = 10,
	    .seqnum = 1241 } },
	{ "pci bind",
	  DG("bind@" PCI3 "\0ACTION=bind\0DEVPATH=" PCI3 "\0SUBSYSTEM="
	     "pci\0DRIVER=virtio-"
	     "pci\0PCI_CLASS=20000"
	     "\0MODALIAS=pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00"
	     "\0SEQNUM=400\0"),
	  { .action = UEVENT_BIND,
	    .devpath = PCI3,
	    .subsystem = "pci",
	    .modalias = "pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00",
	    .seqnum = 400 } },
	{ "pci unbind",
	  DG("unbind@" PCI3 "\0ACTION=unbind\0DEVPATH=" PCI3 "\0SUBSYSTEM="
	     "pci\0SEQNUM="
	     "401\0"),
	  { .action = UEVENT_UNBIND,
	    .devpath = PCI3,
	    .subsystem = "pci",
	    .seqnum = 401 } },
	{ "cpu online",
	  DG("online@/devices/system/cpu/cpu1\0ACTION=online"
	     "\0DEVPATH=/devices/system/cpu/cpu1\0SUBSYSTEM=cpu\0SEQNUM=55\0"),
	  { .action = UEVENT_ONLINE,
	    .devpath = "/devices/system/cpu/cpu1",
	    .subsystem = "cpu",
	    .seqnum = 55 } },
	{ "cpu offline",
	  DG("offline@/devices/system/cpu/cpu1\0ACTION=offline"
	     "\0DEVPATH=/devices/system/cpu/cpu1\0SUBSYSTEM=cpu\0SEQNUM=56\0"),
	  { .action = UEVENT_OFFLINE,
	    .devpath = "/devices/system/cpu/cpu1",
	    .subsystem = "cpu",
	    .seqnum = 56 } },
	{ "DEVNAME in a sub-directory",
	  DG("add@" USB11 "\0ACTION=add\0DEVPATH=" USB11 "\0SUBSYSTEM="
	     "usb\0MAJOR="
	     "189\0MINOR="
	     "1\0DEVNAME=bus/usb/"
	     "001/002"
	     "\0DEVTYPE=usb_device\0SEQNUM=77\0"),
	  { .action = UEVENT_ADD,
	    .devpath = USB11,
	    .subsystem = "usb",
	    .devname = "bus/usb/001/002",
	    .devtype = "usb_device",
	    .has_devt = 1,
	    .major = 189,
	    .minor = 1,
	    .seqnum = 77 } },
	{ "largest numbers",
	  DG("add@/devices/x\0ACTION=add\0DEVPATH=/devices/x\0SUBSYSTEM=block"
	     "\0MAJOR=4095\0MINOR=1048575\0PARTN=65535"
	     "\0DISKSEQ=18446744073709551615\0SEQNUM=18446744073709551615"
	     "\0IFINDEX=2147483647\0"),
	  { .action = UEVENT_ADD,
	    .devpath = "/devices/x",
	    .subsystem = "block",
	    .has_devt = 1,
	    .major = 4095,
	    .minor = 1048575,
	    .partn = 65535,
	    .diskseq = UINT64_MAX,
	    .seqnum = UINT64_MAX,
	    .ifindex = 2147483647 } },
	{ "last field without its NUL",
	  DG("add@/devices/x\0ACTION=add\0DEVPATH=/devices/x"
	     "\0SUBSYSTEM=block\0SEQNUM=9"),
	  { .action = UEVENT_ADD,
	    .devpath = "/devices/x",
	    .subsystem = "block",
	    .seqnum = 9 } },
	{ "empty DEVTYPE, '=' in a value",
	  DG("add@/devices/x\0ACTION=add\0DEVPATH=/devices/x"
	     "\0SUBSYSTEM=input\0DEVTYPE=\0NAME=\"a=b\"\0SEQNUM=10\0"),
	  { .action = UEVENT_ADD,
	    .devpath = "/devices/x",
	    .subsystem = "input",
	    .devtype = "",
	    .seqnum = 10 } },
};

static void check_opt_str(const char *what, const char *got, const char *want,
			  const char *name, int line)
{
	test_checks++;
	if (!want ? got != NULL : !got || strcmp(got, want) != 0) {
		test_failures++;
		fprintf(stderr,
			"%s:%d: FAILED: %s: %s = \"%s\", expected "
			"\"%s\"\n",
			__FILE__, line, name, what, got ? got : "(null)",
			want ? want : "(null)");
	}
}

#define CHECK_OPT(field) check_opt_str(#field, ev->field, e->field, name, __LINE__)

static void check_event(const char *name, const struct uevent *ev, const struct expect *e)
{
	CHECK_MSG(ev->action == e->action, "%s: action %s, expected %s", name,
		  uevent_action_name(ev->action), uevent_action_name(e->action));
	CHECK_OPT(devpath);
	CHECK_OPT(devpath_old);
	CHECK_OPT(subsystem);
	CHECK_OPT(devname);
	CHECK_OPT(devtype);
	CHECK_OPT(partname);
	CHECK_OPT(interface);
	CHECK_OPT(modalias);
	CHECK_MSG(ev->has_devt == e->has_devt, "%s: has_devt %d", name, ev->has_devt);
	CHECK_MSG(ev->major == e->major && ev->minor == e->minor,
		  "%s: %u:%u, expected %u:%u", name, ev->major, ev->minor, e->major,
		  e->minor);
	CHECK_MSG(ev->partn == e->partn, "%s: partn %u", name, ev->partn);
	CHECK_MSG(ev->diskseq == e->diskseq, "%s: diskseq %" PRIu64, name, ev->diskseq);
	CHECK_MSG(ev->seqnum == e->seqnum, "%s: seqnum %" PRIu64, name, ev->seqnum);
	CHECK_MSG(ev->ifindex == e->ifindex, "%s: ifindex %d", name, ev->ifindex);
}

/* Parses a copy in a buffer of exactly @len + 1 bytes. */
static int parse_copy(const char *data, size_t len, char **bufp, struct uevent *ev)
{
	char *buf = malloc(len + 1);

	memcpy(buf, data, len);
	buf[len] = 'X'; /* must be overwritten, not relied on */
	*bufp = buf;
	return uevent_parse(buf, len, ev);
}

static void test_good(void)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(good_cases); i++) {
		const struct good_case *c = &good_cases[i];
		struct uevent ev;
		char *buf;
		int r;

		r = parse_copy(c->data, c->len, &buf, &ev);
		CHECK_MSG(r == 0, "%s: returned %d", c->name, r);
		if (r == 0)
			check_event(c->name, &ev, &c->e);
		/* strings point into the caller's buffer */
		if (r == 0 && ev.devpath)
			CHECK(ev.devpath >= buf && ev.devpath < buf + c->len);
		free(buf);
	}
}

/* ---- malformed datagrams --------------------------------------------- */

struct bad_case {
	const char *name;
	const char *data;
	size_t len;
};

#define HDR "add@/devices/x\0ACTION=add\0DEVPATH=/devices/x\0"
#define SUB "SUBSYSTEM=block\0"
#define SEQ "SEQNUM=1\0"

static const struct bad_case bad_cases[] = {
	{ "empty", "", 0 },
	{ "one NUL", DG("\0") },
	{ "no '@'", DG("add\0ACTION=add\0DEVPATH=/devices/x\0" SUB SEQ) },
	{ "header only", DG("add@/devices/x") },
	{ "header and NUL only", DG("add@/devices/x\0") },
	{ "empty header", DG("\0ACTION=add\0DEVPATH=/devices/x\0" SUB SEQ) },
	{ "empty header action", DG("@/devices/x\0ACTION=add\0DEVPATH=/devices/"
				    "x\0" SUB SEQ) },
	{ "empty header path", DG("add@\0ACTION=add\0DEVPATH=/devices/x\0" SUB SEQ) },
	{ "header action != ACTION", DG("add@/devices/"
					"x\0ACTION=remove\0DEVPATH=/devices/"
					"x\0" SUB SEQ) },
	{ "header path != DEVPATH", DG("add@/devices/y\0ACTION=add\0DEVPATH=/"
				       "devices/x\0" SUB SEQ) },
	{ "header path a prefix of DEVPATH", DG("add@/devices/"
						"x\0ACTION=add\0DEVPATH=/"
						"devices/x/y\0" SUB SEQ) },
	{ "unknown action", DG("frob@/devices/x\0ACTION=frob\0DEVPATH=/devices/"
			       "x\0" SUB SEQ) },
	{ "unknown action in the header only", DG("frob@/devices/"
						  "x\0ACTION=add\0DEVPATH=/"
						  "devices/x\0" SUB SEQ) },
	{ "unknown ACTION", DG("add@/devices/x\0ACTION=frob\0DEVPATH=/devices/"
			       "x\0" SUB SEQ) },
	{ "upper-case action", DG("ADD@/devices/x\0ACTION=ADD\0DEVPATH=/"
				  "devices/x\0" SUB SEQ) },
	{ "missing ACTION", DG("add@/devices/x\0DEVPATH=/devices/x\0" SUB SEQ) },
	{ "missing DEVPATH", DG("add@/devices/x\0ACTION=add\0" SUB SEQ) },
	{ "missing SUBSYSTEM", DG(HDR SEQ) },
	{ "empty SUBSYSTEM", DG(HDR "SUBSYSTEM=\0" SEQ) },
	{ "missing SEQNUM", DG(HDR SUB) },
	{ "SEQNUM=0", DG(HDR SUB "SEQNUM=0\0") },
	{ "SEQNUM=abc", DG(HDR SUB "SEQNUM=abc\0") },
	{ "SEQNUM=-1", DG(HDR SUB "SEQNUM=-1\0") },
	{ "SEQNUM=", DG(HDR SUB "SEQNUM=\0") },
	{ "SEQNUM overflows", DG(HDR SUB "SEQNUM=18446744073709551616\0") },
	{ "SEQNUM with a blank", DG(HDR SUB "SEQNUM= 1\0") },
	{ "field without '='", DG(HDR SUB "GARBAGE\0" SEQ) },
	{ "field starting with '='", DG(HDR SUB "=value\0" SEQ) },
	{ "empty field in the middle", DG(HDR SUB "\0" SEQ) },
	{ "empty field at the end", DG(HDR SUB SEQ "\0") },
	{ "MAJOR=abc", DG(HDR SUB "MAJOR=abc\0MINOR=0\0" SEQ) },
	{ "MAJOR=", DG(HDR SUB "MAJOR=\0MINOR=0\0" SEQ) },
	{ "MAJOR=-1", DG(HDR SUB "MAJOR=-1\0MINOR=0\0" SEQ) },
	{ "MAJOR=0x8", DG(HDR SUB "MAJOR=0x8\0MINOR=0\0" SEQ) },
	{ "MAJOR=4096", DG(HDR SUB "MAJOR=4096\0MINOR=0\0" SEQ) },
	{ "MINOR=1048576", DG(HDR SUB "MAJOR=8\0MINOR=1048576\0" SEQ) },
	{ "MAJOR without MINOR", DG(HDR SUB "MAJOR=8\0" SEQ) },
	{ "MINOR without MAJOR", DG(HDR SUB "MINOR=8\0" SEQ) },
	{ "PARTN=abc", DG(HDR SUB "PARTN=abc\0" SEQ) },
	{ "PARTN=65536", DG(HDR SUB "PARTN=65536\0" SEQ) },
	{ "DISKSEQ=x", DG(HDR SUB "DISKSEQ=x\0" SEQ) },
	{ "IFINDEX=0", DG(HDR "SUBSYSTEM=net\0INTERFACE=eth0\0IFINDEX="
			      "0\0" SEQ) },
	{ "IFINDEX=-1", DG(HDR "SUBSYSTEM=net\0IFINDEX=-1\0" SEQ) },
	{ "IFINDEX=2147483648", DG(HDR "SUBSYSTEM=net\0IFINDEX="
				       "2147483648\0" SEQ) },
	{ "empty INTERFACE", DG(HDR "SUBSYSTEM=net\0INTERFACE=\0" SEQ) },
	{ "INTERFACE with '/'", DG(HDR "SUBSYSTEM=net\0INTERFACE=a/b\0" SEQ) },
	{ "DEVPATH with /../", DG("add@/devices/../../etc\0ACTION=add"
				  "\0DEVPATH=/devices/../../etc\0" SUB SEQ) },
	{ "DEVPATH ending in /..", DG("add@/devices/x/..\0ACTION=add\0DEVPATH=/"
				      "devices/x/..\0" SUB SEQ) },
	{ "DEVPATH with /./", DG("add@/devices/./x\0ACTION=add\0DEVPATH=/"
				 "devices/./x\0" SUB SEQ) },
	{ "DEVPATH with //", DG("add@/devices//x\0ACTION=add\0DEVPATH=/devices/"
				"/x\0" SUB SEQ) },
	{ "DEVPATH with a trailing /", DG("add@/devices/x/"
					  "\0ACTION=add\0DEVPATH=/devices/x/"
					  "\0" SUB SEQ) },
	{ "relative DEVPATH", DG("add@devices/x\0ACTION=add\0DEVPATH=devices/"
				 "x\0" SUB SEQ) },
	{ "DEVPATH=/", DG("add@/\0ACTION=add\0DEVPATH=/\0" SUB SEQ) },
	{ "DEVPATH_OLD with /../", DG(HDR "SUBSYSTEM=net\0DEVPATH_OLD=/devices/"
					  "../x\0" SEQ) },
	{ "relative DEVPATH_OLD", DG(HDR "SUBSYSTEM=net\0DEVPATH_OLD="
					 "x\0" SEQ) },
	{ "DEVNAME=../etc/passwd", DG(HDR SUB "DEVNAME=../etc/passwd\0" SEQ) },
	{ "DEVNAME=a/../../x", DG(HDR SUB "DEVNAME=a/../../x\0" SEQ) },
	{ "DEVNAME=..", DG(HDR SUB "DEVNAME=..\0" SEQ) },
	{ "absolute DEVNAME", DG(HDR SUB "DEVNAME=/dev/sda\0" SEQ) },
	{ "empty DEVNAME", DG(HDR SUB "DEVNAME=\0" SEQ) },
	{ "libudev message", DG("libudev\0\xfe\xed\xca\xfe\x28\0\0\0ACTION="
				"add\0"
				"DEVPATH=/devices/x\0" SUB SEQ) },
	{ "DEVNAME twice", DG(HDR SUB "DEVNAME=sda\0DEVNAME=sdb\0" SEQ) },
	{ "DEVPATH twice", DG(HDR "DEVPATH=/devices/x\0" SUB SEQ) },
	{ "SUBSYSTEM twice", DG(HDR SUB "SUBSYSTEM=net\0" SEQ) },
	{ "ACTION twice, same value", DG(HDR SUB "ACTION=add\0" SEQ) },
	{ "ACTION twice, other value", DG(HDR SUB "ACTION=remove\0" SEQ) },
	{ "MAJOR twice", DG(HDR SUB "MAJOR=8\0MINOR=0\0MAJOR=9\0" SEQ) },
	{ "MINOR twice", DG(HDR SUB "MAJOR=8\0MINOR=0\0MINOR=1\0" SEQ) },
	{ "SEQNUM twice", DG(HDR SUB SEQ "SEQNUM=2\0") },
	{ "IFINDEX twice", DG(HDR "SUBSYSTEM=net\0IFINDEX=2\0IFINDEX="
				  "3\0" SEQ) },
	{ "PARTN twice", DG(HDR SUB "PARTN=1\0PARTN=2\0" SEQ) },
	{ "DISKSEQ twice", DG(HDR SUB "DISKSEQ=1\0DISKSEQ=2\0" SEQ) },
};

static void test_bad(void)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct uevent ev;
		char *buf;
		int r;

		r = parse_copy(c->data, c->len, &buf, &ev);
		CHECK_MSG(r == -EBADMSG, "%s: returned %d, expected -EBADMSG", c->name,
			  r);
		free(buf);
	}
}

/* Sizes around the receive buffer. */
static void test_sizes(void)
{
	static const char head[] = HDR SUB SEQ "FILLER=";
	size_t len = UEVENT_RECV_SIZE;
	struct uevent ev;
	char *buf = malloc(UEVENT_RECV_SIZE + 2);

	/* exactly UEVENT_RECV_SIZE bytes, the last one a NUL */
	memcpy(buf, head, sizeof(head) - 1);
	memset(buf + sizeof(head) - 1, 'f', len - (sizeof(head) - 1) - 1);
	buf[len - 1] = '\0';
	CHECK_INT(uevent_parse(buf, len, &ev), 0);
	CHECK_STR(ev.subsystem, "block");
	CHECK_INT(ev.seqnum, 1);

	/* one byte more is a truncated datagram */
	memcpy(buf, head, sizeof(head) - 1);
	memset(buf + sizeof(head) - 1, 'f', len - (sizeof(head) - 1));
	buf[len] = '\0';
	CHECK_INT(uevent_parse(buf, len + 1, &ev), -EBADMSG);
	free(buf);

	/* a DEVNAME as long as the kernel's whole buffer */
	buf = malloc(UEVENT_RECV_SIZE + 1);
	len = strlen("add@/devices/x") + 1 + strlen("ACTION=add") + 1;
	memcpy(buf, "add@/devices/x\0ACTION=add\0", len);
	memcpy(buf + len, "DEVNAME=", 8);
	len += 8;
	memset(buf + len, 'd', UEVENT_BUFFER_SIZE);
	len += UEVENT_BUFFER_SIZE;
	buf[len++] = '\0';
	memcpy(buf + len, "DEVPATH=/devices/x\0" SUB SEQ,
	       sizeof("DEVPATH=/devices/x\0" SUB SEQ) - 1);
	len += sizeof("DEVPATH=/devices/x\0" SUB SEQ) - 1;
	CHECK(len <= UEVENT_RECV_SIZE);
	CHECK_INT(uevent_parse(buf, len, &ev), -EBADMSG);
	free(buf);
}

/* ---- sysfs uevent files ---------------------------------------------- */

struct file_case {
	const char *name;
	const char *data;
	size_t len;
	const char *devpath, *subsystem;
	int ret;
	struct expect e;
};

static const struct file_case file_cases[] = {
	{ "loop0",
	  DG("MAJOR=7\nMINOR=0\nDEVNAME=loop0\nDEVTYPE=disk\n"
	     "DISKSEQ=9\n"),
	  LOOP0,
	  "block",
	  0,
	  { .action = UEVENT_ADD,
	    .devpath = LOOP0,
	    .subsystem = "block",
	    .devname = "loop0",
	    .devtype = "disk",
	    .has_devt = 1,
	    .major = 7,
	    .minor = 0,
	    .diskseq = 9 } },
	{ "partition",
	  DG("MAJOR=254\nMINOR=1\nDEVNAME=vda1\n"
	     "DEVTYPE=partition\nDISKSEQ=1\nPARTN=1\n"
	     "PARTNAME=EFI System Partition\n"),
	  VDA1,
	  "block",
	  0,
	  { .action = UEVENT_ADD,
	    .devpath = VDA1,
	    .subsystem = "block",
	    .devname = "vda1",
	    .devtype = "partition",
	    .partname = "EFI System Partition",
	    .has_devt = 1,
	    .major = 254,
	    .minor = 1,
	    .partn = 1,
	    .diskseq = 1 } },
	{ "net",
	  DG("INTERFACE=eth0\nIFINDEX=2\n"),
	  "/devices/pci0000:00/0000:00:03.0/virtio0/net/eth0",
	  "net",
	  0,
	  { .action = UEVENT_ADD,
	    .devpath = "/devices/pci0000:00/0000:00:03.0/virtio0/net/eth0",
	    .subsystem = "net",
	    .interface = "eth0",
	    .ifindex = 2 } },
	{ "tty",
	  DG("MAJOR=4\nMINOR=64\nDEVNAME=ttyS0\n"),
	  TTYS0,
	  "tty",
	  0,
	  { .action = UEVENT_ADD,
	    .devpath = TTYS0,
	    .subsystem = "tty",
	    .devname = "ttyS0",
	    .has_devt = 1,
	    .major = 4,
	    .minor = 64 } },
	{ "no trailing newline",
	  DG("MAJOR=7\nMINOR=0"),
	  LOOP0,
	  "block",
	  0,
	  { .action = UEVENT_ADD,
	    .devpath = LOOP0,
	    .subsystem = "block",
	    .has_devt = 1,
	    .major = 7 } },
	{ "trailing newlines",
	  DG("DEVTYPE=disk\n\n\n"),
	  LOOP0,
	  "block",
	  0,
	  { .action = UEVENT_ADD,
	    .devpath = LOOP0,
	    .subsystem = "block",
	    .devtype = "disk" } },
	{ "empty file",
	  DG(""),
	  "/devices/virtual/misc/x",
	  "misc",
	  0,
	  { .action = UEVENT_ADD,
	    .devpath = "/devices/virtual/misc/x",
	    .subsystem = "misc" } },

	{ "ACTION in a file",
	  DG("ACTION=add\nMAJOR=7\nMINOR=0\n"),
	  LOOP0,
	  "block",
	  -EBADMSG,
	  { 0 } },
	{ "DEVPATH in a file",
	  DG("DEVPATH=/devices/x\n"),
	  LOOP0,
	  "block",
	  -EBADMSG,
	  { 0 } },
	{ "SUBSYSTEM in a file", DG("SUBSYSTEM=block\n"), LOOP0, "block", -EBADMSG, { 0 } },
	{ "NUL in a file", DG("MAJOR=7\n\0MINOR=0\n"), LOOP0, "block", -EBADMSG, { 0 } },
	{ "empty line", DG("MAJOR=7\n\nMINOR=0\n"), LOOP0, "block", -EBADMSG, { 0 } },
	{ "leading empty line",
	  DG("\nMAJOR=7\nMINOR=0\n"),
	  LOOP0,
	  "block",
	  -EBADMSG,
	  { 0 } },
	{ "line without '='",
	  DG("MAJOR=7\nMINOR=0\nJUNK\n"),
	  LOOP0,
	  "block",
	  -EBADMSG,
	  { 0 } },
	{ "MAJOR without MINOR", DG("MAJOR=7\n"), LOOP0, "block", -EBADMSG, { 0 } },
	{ "bad MINOR", DG("MAJOR=7\nMINOR=x\n"), LOOP0, "block", -EBADMSG, { 0 } },
	{ "DEVNAME=../x", DG("DEVNAME=../x\n"), LOOP0, "block", -EBADMSG, { 0 } },
	{ "IFINDEX=0", DG("INTERFACE=eth0\nIFINDEX=0\n"), LOOP0, "net", -EBADMSG, { 0 } },
	{ "DEVNAME twice", DG("DEVNAME=a\nDEVNAME=b\n"), LOOP0, "block", -EBADMSG, { 0 } },
	{ "unsafe devpath",
	  DG("MAJOR=7\nMINOR=0\n"),
	  "/devices/../x",
	  "block",
	  -EBADMSG,
	  { 0 } },
	{ "relative devpath",
	  DG("MAJOR=7\nMINOR=0\n"),
	  "devices/x",
	  "block",
	  -EBADMSG,
	  { 0 } },
	{ "no devpath", DG("MAJOR=7\nMINOR=0\n"), NULL, "block", -EBADMSG, { 0 } },
	{ "no subsystem", DG("MAJOR=7\nMINOR=0\n"), LOOP0, NULL, -EBADMSG, { 0 } },
	{ "empty subsystem", DG("MAJOR=7\nMINOR=0\n"), LOOP0, "", -EBADMSG, { 0 } },
};

static void test_files(void)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(file_cases); i++) {
		const struct file_case *c = &file_cases[i];
		char *buf = malloc(c->len + 1);
		struct uevent ev;
		int r;

		memcpy(buf, c->data, c->len);
		buf[c->len] = 'X';
		r = uevent_parse_file(buf, c->len, c->devpath, c->subsystem, &ev);
		CHECK_MSG(r == c->ret, "%s: returned %d, expected %d", c->name, r,
			  c->ret);
		if (r == 0 && c->ret == 0) {
			check_event(c->name, &ev, &c->e);
			CHECK(ev.devpath == c->devpath);
			CHECK(ev.subsystem == c->subsystem);
		}
		free(buf);
	}
}

static void test_action_names(void)
{
	static const struct {
		enum uevent_action a;
		const char *name;
	} names[] = {
		{ UEVENT_UNKNOWN, "unknown" }, { UEVENT_ADD, "add" },
		{ UEVENT_REMOVE, "remove" },   { UEVENT_CHANGE, "change" },
		{ UEVENT_MOVE, "move" },       { UEVENT_ONLINE, "online" },
		{ UEVENT_OFFLINE, "offline" }, { UEVENT_BIND, "bind" },
		{ UEVENT_UNBIND, "unbind" },
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		CHECK_STR(uevent_action_name(names[i].a), names[i].name);
	CHECK_STR(uevent_action_name((enum uevent_action)99), "unknown");
	CHECK_STR(uevent_action_name((enum uevent_action) - 1), "unknown");
}

/*
 * Every real kernel datagram in the fuzz seed corpus (host-*: recorded on
 * this project's machine; qemu-*: from a QEMU boot of Debian's kernel,
 * fuzz/record-qemu-seeds.py) is accepted, and its header names the
 * action and path its fields do: a parser strict enough for the fuzzer
 * must not refuse what kernels really send.
 */
static void test_recorded(const char *dir)
{
	struct dirent **names;
	unsigned seen = 0;
	int n, i;

	n = scandir(dir, &names, NULL, alphasort);
	CHECK_MSG(n > 0, "%s: cannot list it", dir);
	for (i = 0; i < n; i++) {
		char path[4096], header[4096], expect[4096];
		char buf[UEVENT_RECV_SIZE + 1];
		struct uevent ev;
		ssize_t len;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		free(names[i]);
		if (!strstr(path, "/host-") && !strstr(path, "/qemu-"))
			continue;
		len = read_file_at(AT_FDCWD, path, buf, sizeof(buf));
		CHECK_MSG(len > 0, "%s: cannot read it", path);
		if (len <= 0)
			continue;
		seen++;
		/* the header: what comes before the first NUL */
		snprintf(header, sizeof(header), "%s", buf);
		if (uevent_parse(buf, (size_t)len, &ev) < 0) {
			CHECK_MSG(0, "%s: a real kernel datagram refused", path);
			continue;
		}
		snprintf(expect, sizeof(expect), "%s@%s", uevent_action_name(ev.action),
			 ev.devpath);
		CHECK_MSG(strcmp(header, expect) == 0, "%s: header %s, fields say %s",
			  path, header, expect);
		CHECK_MSG(ev.seqnum > 0, "%s: no SEQNUM", path);
	}
	free(names);
	/* the corpus holds 18 host and 35 QEMU datagrams */
	CHECK_MSG(seen >= 50, "%s: only %u recorded datagrams", dir, seen);
}

/* MAJOR and MINOR as a source that gets them apart (udev) hands them */
static void test_set_devt(void)
{
	static const struct {
		const char *major, *minor;
		int r;
		bool has_devt;
		unsigned maj, min;
	} cases[] = {
		{ "8", "1", 0, true, 8, 1 },
		{ NULL, NULL, 0, false, 0, 0 },
		{ NULL, "1", -EBADMSG, false, 0, 0 },	 /* MINOR alone */
		{ "8", NULL, -EBADMSG, false, 0, 0 },	 /* MAJOR alone */
		{ "bogus", "1", -EBADMSG, false, 0, 0 }, /* MAJOR malformed */
		{ "99999", "1", -EBADMSG, false, 0, 0 }, /* out of range */
		{ "8", "x", -EBADMSG, false, 0, 0 },	 /* MINOR malformed */
		{ "4095", "1048575", 0, true, 4095, 1048575 },
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct uevent ev;
		int r;

		memset(&ev, 0, sizeof(ev));
		r = uevent_set_devt(&ev, cases[i].major, cases[i].minor);
		CHECK_MSG(r == cases[i].r && ev.has_devt == cases[i].has_devt,
			  "MAJOR=%s MINOR=%s: %d, has_devt %d; expected %d, %d",
			  cases[i].major ? cases[i].major : "(none)",
			  cases[i].minor ? cases[i].minor : "(none)", r, ev.has_devt,
			  cases[i].r, cases[i].has_devt);
		if (cases[i].has_devt && ev.has_devt) {
			CHECK_INT(ev.major, cases[i].maj);
			CHECK_INT(ev.minor, cases[i].min);
		}
	}
}

int main(int argc, char **argv)
{
	test_set_devt();
	test_good();
	test_bad();
	test_sizes();
	test_files();
	test_action_names();
	if (argc > 1)
		test_recorded(argv[1]);
	else
		CHECK_MSG(0, "usage: test-uevent SEED-DIR "
			     "(fuzz/corpus/uevent)");
	return test_summary("test-uevent");
}
