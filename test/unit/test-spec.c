// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-spec.c - the root, console and network spec grammar and the
 * matchers that test device records against a spec.
 */
#include <errno.h>
#include <net/if.h>

#include "spec.h"
#include "test.h"
#include "util.h"

/* ---- spec_parse_block ------------------------------------------------ */

struct block_case {
	const char *text;
	int ret;
	enum spec_type type;
	const char *value; /* NULL: not checked (DEVT) */
	unsigned major, minor;
	bool has_partnroff;
	int partnroff;
};

#define BAD(t)                                                                           \
	{                                                                                \
		t, -EINVAL, SPEC_NONE, NULL, 0, 0, false, 0                              \
	}
#define NAME(t, v)                                                                       \
	{                                                                                \
		t, 0, SPEC_BLOCK_NAME, v, 0, 0, false, 0                                 \
	}
#define DEVT(t, ma, mi)                                                                  \
	{                                                                                \
		t, 0, SPEC_BLOCK_DEVT, NULL, ma, mi, false, 0                            \
	}
#define VAL(t, ty, v)                                                                    \
	{                                                                                \
		t, 0, ty, v, 0, 0, false, 0                                              \
	}

static const struct block_case block_cases[] = {
	NAME("/dev/sda1", "sda1"),
	NAME("sda1", "sda1"),
	NAME("/dev/nvme0n1p2", "nvme0n1p2"),
	NAME("mmcblk0p1", "mmcblk0p1"),
	NAME("/dev/dm-0", "dm-0"),
	NAME("/dev/mapper/vg-root", "mapper/vg-root"),
	NAME("/dev/disk", "disk"),
	NAME("123456789", "123456789"), /* too long for a dev_t */
	DEVT("8:1", 8, 1),
	DEVT("259:0", 259, 0),
	DEVT("08:01", 8, 1),
	DEVT("4095:1048575", 4095, 1048575),
	/* hexadecimal: the kernel's new_decode_dev() */
	DEVT("801", 8, 1),
	DEVT("0801", 8, 1),
	DEVT("fe00", 254, 0),
	DEVT("FE01", 254, 1),
	DEVT("b301", 179, 1),
	DEVT("0x801", 8, 1),
	DEVT("0XB301", 179, 1),
	DEVT("1000", 16, 0),
	DEVT("fd0", 15, 208), /* hex, as the kernel reads it */
	DEVT("10300", 259, 0),
	DEVT("12345678", 0x456, 0x12378),
	DEVT("fff00", 0xfff, 0),
	DEVT("100801", 8, 0x101),
	VAL("PARTLABEL=root", SPEC_BLOCK_PARTLABEL, "root"),
	VAL("PARTLABEL=EFI System Partition", SPEC_BLOCK_PARTLABEL,
	    "EFI System Partition"),
	VAL("PARTUUID=abc-01", SPEC_BLOCK_PARTUUID, "abc-01"),
	VAL("PARTUUID=6C4E2D8A-5A0B-4F4E-8B6C-123456789ABC", SPEC_BLOCK_PARTUUID,
	    "6C4E2D8A-5A0B-4F4E-8B6C-123456789ABC"),
	{ "PARTUUID=0badcafe-02/PARTNROFF=1", 0, SPEC_BLOCK_PARTUUID, "0badcafe-02", 0, 0,
	  true, 1 },
	{ "PARTUUID=0badcafe-02/PARTNROFF=-2", 0, SPEC_BLOCK_PARTUUID, "0badcafe-02", 0,
	  0, true, -2 },
	{ "PARTUUID=0badcafe-02/PARTNROFF=0", 0, SPEC_BLOCK_PARTUUID, "0badcafe-02", 0, 0,
	  true, 0 },
	VAL("UUID=1234-ABCD", SPEC_BLOCK_UUID, "1234-ABCD"),
	VAL("UUID=0b0e9f7c-3b8d-4c27-9a3f-1e0b4ab0f5d1", SPEC_BLOCK_UUID,
	    "0b0e9f7c-3b8d-4c27-9a3f-1e0b4ab0f5d1"),
	VAL("LABEL=rootfs", SPEC_BLOCK_LABEL, "rootfs"),
	VAL("LABEL=my disk", SPEC_BLOCK_LABEL, "my disk"),
	VAL("LABEL=a=b", SPEC_BLOCK_LABEL, "a=b"),
	VAL("/dev/disk/by-uuid/1234-ABCD", SPEC_BLOCK_UUID, "1234-ABCD"),
	VAL("/dev/disk/by-partuuid/abc-01", SPEC_BLOCK_PARTUUID, "abc-01"),
	VAL("/dev/disk/by-label/rootfs", SPEC_BLOCK_LABEL, "rootfs"),
	/* udev's \xNN escapes are decoded */
	VAL("/dev/disk/by-label/my\\x20disk", SPEC_BLOCK_LABEL, "my disk"),
	VAL("/dev/disk/by-label/a\\x2fb", SPEC_BLOCK_LABEL, "a/b"),
	VAL("/dev/disk/by-label/root\\x66s", SPEC_BLOCK_LABEL, "rootfs"),
	VAL("/dev/disk/by-label/\\x41\\x42", SPEC_BLOCK_LABEL, "AB"),
	/* ... but not a NUL, nor a broken escape */
	VAL("/dev/disk/by-label/a\\x00b", SPEC_BLOCK_LABEL, "a\\x00b"),
	VAL("/dev/disk/by-label/a\\xzz", SPEC_BLOCK_LABEL, "a\\xzz"),
	VAL("/dev/disk/by-label/a\\x4", SPEC_BLOCK_LABEL, "a\\x4"),
	VAL("/dev/disk/by-partlabel/EFI\\x20System", SPEC_BLOCK_PARTLABEL, "EFI System"),
	VAL("/dev/disk/by-id/ata-QEMU_HARDDISK_QM00001-part1", SPEC_BLOCK_BY_ID,
	    "ata-QEMU_HARDDISK_QM00001-part1"),
	VAL("/dev/disk/by-path/pci-0000:00:1f.2-ata-1-part1", SPEC_BLOCK_BY_PATH,
	    "pci-0000:00:1f.2-ata-1-part1"),

	BAD(""),
	BAD(" "),
	BAD("sd a"),
	BAD("sda\t1"),
	BAD("/dev/sda 1"),
	BAD("UUID=12 34"),
	BAD("LABEL=a\tb"),
	BAD("LABEL=a\nb"),
	BAD("1:x"),
	BAD("x:1"),
	BAD(":1"),
	BAD("8:"),
	BAD("8:1:2"),
	BAD("-8:1"),
	BAD("99999:1"),
	BAD("4096:0"),
	BAD("8:1048576"),
	BAD("99999999999999999999999:1"),
	BAD("0"),  /* major 0 */
	BAD("ff"), /* major 0 */
	BAD("a=b"),
	BAD("ZFS=rpool/root"),
	BAD("live:CDLABEL=x"),
	BAD("/dev/"),
	BAD("/dev/sda/"),
	BAD("UUID="),
	BAD("LABEL="),
	BAD("PARTLABEL="),
	BAD("PARTUUID="),
	BAD("PARTUUID=xyz"),
	BAD("PARTUUID=/PARTNROFF=1"),
	BAD("PARTUUID=abc-01/"),
	BAD("PARTUUID=abc-01/PARTNROFF="),
	BAD("PARTUUID=abc-01/PARTNROFF=x"),
	BAD("PARTUUID=abc-01/PARTNROFF=1x"),
	BAD("PARTUUID=abc-01/PARTNROFF=256"),
	BAD("PARTUUID=abc-01/PARTNROFF=-256"),
	BAD("PARTUUID=abc-01/FOO=1"),
	BAD("/dev/disk/"),
	BAD("/dev/disk/by-foo/x"),
	BAD("/dev/disk/by-uuid"),
	BAD("/dev/disk/by-uuid/"),
	BAD("/dev/disk/by-label/"),
	BAD("/dev/disk/by-id/"),
	BAD("/dev/disk/by-partuuid/zz-01"),
	BAD("/dev/disk/by-partuuid/"),
};

static void test_parse_block(void)
{
	char longtext[SPEC_VALUE_MAX + 16];
	struct spec spec;
	char err[256];
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(block_cases); i++) {
		const struct block_case *c = &block_cases[i];
		int r;

		err[0] = '\0';
		r = spec_parse_block(c->text, &spec, err, sizeof(err));
		CHECK_MSG(r == c->ret, "\"%s\": returned %d (%s), expected %d", c->text,
			  r, err, c->ret);
		if (r != 0 || c->ret != 0) {
			if (c->ret)
				CHECK_MSG(err[0] != '\0', "\"%s\": no message", c->text);
			continue;
		}
		CHECK_MSG(spec.type == c->type, "\"%s\": type %d, expected %d", c->text,
			  spec.type, c->type);
		CHECK_STR(spec.text, c->text);
		if (c->value)
			CHECK_STR(spec.value, c->value);
		if (c->type == SPEC_BLOCK_DEVT)
			CHECK_MSG(spec.major == c->major && spec.minor == c->minor,
				  "\"%s\": %u:%u, expected %u:%u", c->text, spec.major,
				  spec.minor, c->major, c->minor);
		CHECK_MSG(spec.has_partnroff == c->has_partnroff &&
				  spec.partnroff == c->partnroff,
			  "\"%s\": partnroff %d/%d", c->text, spec.has_partnroff,
			  spec.partnroff);
		CHECK_INT(spec_kind(&spec), DEV_BLOCK);
	}

	/* NULL text and NULL err are fine */
	CHECK_INT(spec_parse_block(NULL, &spec, err, sizeof(err)), -EINVAL);
	CHECK_INT(spec_parse_block("1:x", &spec, NULL, 0), -EINVAL);

	/* too long for the spec */
	memset(longtext, 'a', sizeof(longtext) - 1);
	longtext[sizeof(longtext) - 1] = '\0';
	CHECK_INT(spec_parse_block(longtext, &spec, err, sizeof(err)), -EINVAL);
	memcpy(longtext, "LABEL=", 6);
	CHECK_INT(spec_parse_block(longtext, &spec, err, sizeof(err)), -EINVAL);
	/* the longest that fits */
	longtext[SPEC_VALUE_MAX - 1] = '\0';
	CHECK_INT(spec_parse_block(longtext, &spec, err, sizeof(err)), 0);
	CHECK_INT(strlen(spec.value), SPEC_VALUE_MAX - 1 - 6);

	/* a failed parse leaves no half-filled type behind */
	CHECK_INT(spec_parse_block("8:1", &spec, err, sizeof(err)), 0);
	CHECK_INT(spec_parse_block("a=b", &spec, err, sizeof(err)), -EINVAL);
	CHECK_INT(spec.type, SPEC_NONE);
}

/*
 * An error quotes what it was given, and a /dev/disk/by-* name is
 * quoted after udev's \xNN escapes are decoded: a control character in
 * it is written back as \xNN, so the message stays one line and cannot
 * drive the console (fuzz-cmdline's finding of 2026-12-03).
 */
static void test_error_controls(void)
{
	static const struct {
		const char *text, *expect;
	} cases[] = {
		{ "/dev/disk/by-partuuid/a\\x0ab", "partition UUID 'a\\x0ab' "
						   "is not hexadecimal" },
		{ "/dev/disk/by-partuuid/\\x1b[2J", "partition UUID '\\x1b[2J' "
						    "is not hexadecimal" },
		{ "/dev/sda\x1b[2J", "device spec contains blanks or control "
				     "characters" },
	};
	struct spec spec;
	char err[256];
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *p;

		CHECK_INT(spec_parse_block(cases[i].text, &spec, err, sizeof(err)),
			  -EINVAL);
		CHECK_MSG(strstr(err, cases[i].expect), "\"%s\": message %s",
			  cases[i].expect, err);
		for (p = err; *p; p++)
			CHECK_MSG((unsigned char)*p >= 0x20 && *p != 0x7f,
				  "control character 0x%02x in \"%s\"", (unsigned char)*p,
				  cases[i].expect);
	}
	/* cut to the buffer, never inside an escape */
	CHECK_INT(spec_parse_block("/dev/disk/by-partuuid/\\x0a", &spec, err, 20),
		  -EINVAL);
	CHECK_STR(err, "partition UUID '");
}

/* ---- spec_need / spec_kind ------------------------------------------- */

static void test_need_kind(void)
{
	static const struct {
		const char *text;
		enum spec_need need;
	} cases[] = {
		{ "/dev/sda1", SPEC_NEED_NOTHING },
		{ "8:1", SPEC_NEED_NOTHING },
		{ "801", SPEC_NEED_NOTHING },
		{ "PARTLABEL=root", SPEC_NEED_NOTHING },
		{ "/dev/disk/by-partlabel/root", SPEC_NEED_NOTHING },
		{ "PARTUUID=abc-01", SPEC_NEED_PROBE },
		{ "UUID=1234", SPEC_NEED_PROBE },
		{ "LABEL=x", SPEC_NEED_PROBE },
		{ "/dev/disk/by-uuid/1234", SPEC_NEED_PROBE },
		{ "/dev/disk/by-label/x", SPEC_NEED_PROBE },
		{ "/dev/disk/by-id/x", SPEC_NEED_UDEV },
		{ "/dev/disk/by-path/x", SPEC_NEED_UDEV },
	};
	struct spec spec;
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		CHECK_INT(spec_parse_block(cases[i].text, &spec, NULL, 0), 0);
		CHECK_MSG(spec_need(&spec) == cases[i].need,
			  "\"%s\": need %d, expected %d", cases[i].text, spec_need(&spec),
			  cases[i].need);
	}
	CHECK_INT(spec_parse_console("ttyS0", &spec, NULL, 0), 0);
	CHECK_INT(spec_need(&spec), SPEC_NEED_NOTHING);
	CHECK_INT(spec_kind(&spec), DEV_TTY);
	CHECK_INT(spec_parse_console("netcon0", &spec, NULL, 0), 0);
	CHECK_INT(spec_kind(&spec), DEV_TTY);
	CHECK_INT(spec_parse_net("eth0", &spec, NULL, 0), 0);
	CHECK_INT(spec_need(&spec), SPEC_NEED_NOTHING);
	CHECK_INT(spec_kind(&spec), DEV_NET);
	CHECK_INT(spec_parse_net("any", &spec, NULL, 0), 0);
	CHECK_INT(spec_kind(&spec), DEV_NET);
	CHECK_INT(spec_parse_net("52:54:00:12:34:56", &spec, NULL, 0), 0);
	CHECK_INT(spec_kind(&spec), DEV_NET);
	CHECK_INT(spec_parse_net("en*", &spec, NULL, 0), 0);
	CHECK_INT(spec_kind(&spec), DEV_NET);
	memset(&spec, 0, sizeof(spec));
	CHECK_INT(spec_kind(&spec), DEV_OTHER);
	CHECK_INT(spec_need(&spec), SPEC_NEED_NOTHING);

	CHECK_STR(spec_need_name(SPEC_NEED_NOTHING), "nothing");
	CHECK_STR(spec_need_name(SPEC_NEED_PROBE), "libblkid");
	CHECK_STR(spec_need_name(SPEC_NEED_UDEV), "libudev");
}

/* ---- spec_parse_console ---------------------------------------------- */

static const struct {
	const char *text;
	int ret;
	enum spec_type type;
	const char *value;
} console_cases[] = {
	{ "ttyS0", 0, SPEC_CONSOLE_TTY, "ttyS0" },
	{ "ttyS0,115200n8", 0, SPEC_CONSOLE_TTY, "ttyS0" },
	{ "ttyS1,115200", 0, SPEC_CONSOLE_TTY, "ttyS1" },
	{ "/dev/ttyUSB0", 0, SPEC_CONSOLE_TTY, "ttyUSB0" },
	{ "/dev/ttyUSB0,9600", 0, SPEC_CONSOLE_TTY, "ttyUSB0" },
	{ "hvc0", 0, SPEC_CONSOLE_TTY, "hvc0" },
	{ "hvsi1", 0, SPEC_CONSOLE_TTY, "hvsi1" },
	{ "xvc0", 0, SPEC_CONSOLE_TTY, "xvc0" },
	{ "ttyAMA0", 0, SPEC_CONSOLE_TTY, "ttyAMA0" },
	{ "ttyAMA0,115200", 0, SPEC_CONSOLE_TTY, "ttyAMA0" },
	{ "tty0", 0, SPEC_CONSOLE_TTY, "tty0" },
	{ "tty1", 0, SPEC_CONSOLE_TTY, "tty1" },
	/* no index: the kernel's console_setup() takes 0 */
	{ "ttyS", 0, SPEC_CONSOLE_TTY, "ttyS0" },
	{ "ttyS,115200", 0, SPEC_CONSOLE_TTY, "ttyS0" },
	{ "tty", 0, SPEC_CONSOLE_TTY, "tty0" },
	{ "hvc", 0, SPEC_CONSOLE_TTY, "hvc0" },
	/* a bare index: the kernel's console_setup() prefixes ttyS */
	{ "0", 0, SPEC_CONSOLE_TTY, "ttyS0" },
	{ "1,115200n8", 0, SPEC_CONSOLE_TTY, "ttyS1" },
	/* not ttys: parsed, never waited for */
	{ "netcon0", 0, SPEC_CONSOLE_OTHER, "netcon0" },
	{ "uart8250,io,0x3f8", 0, SPEC_CONSOLE_OTHER, "uart8250" },
	{ "uart8250,mmio,0x1000,115200", 0, SPEC_CONSOLE_OTHER, "uart8250" },
	{ "uart,io,0x3f8", 0, SPEC_CONSOLE_OTHER, "uart" },
	{ "lp0", 0, SPEC_CONSOLE_OTHER, "lp0" },
	{ "null", 0, SPEC_CONSOLE_OTHER, "null" },
	{ "", -EINVAL, SPEC_NONE, NULL },
	{ ",115200", -EINVAL, SPEC_NONE, NULL },
	{ "/dev/", -EINVAL, SPEC_NONE, NULL },
	{ "/dev/,9600", -EINVAL, SPEC_NONE, NULL },
	{ "tty S0", -EINVAL, SPEC_NONE, NULL },
	{ "ttyS0\t", -EINVAL, SPEC_NONE, NULL },
	{ "tty/0", -EINVAL, SPEC_NONE, NULL },
	{ "/dev/pts/0", -EINVAL, SPEC_NONE, NULL },
	{ "tty$0", -EINVAL, SPEC_NONE, NULL },
};

static void test_parse_console(void)
{
	char longtext[SPEC_VALUE_MAX + 16];
	struct spec spec;
	char err[256];
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(console_cases); i++) {
		int r;

		err[0] = '\0';
		r = spec_parse_console(console_cases[i].text, &spec, err, sizeof(err));
		CHECK_MSG(r == console_cases[i].ret,
			  "\"%s\": returned %d (%s), expected %d", console_cases[i].text,
			  r, err, console_cases[i].ret);
		if (r != 0 || console_cases[i].ret != 0) {
			if (console_cases[i].ret)
				CHECK_MSG(err[0], "\"%s\": no message",
					  console_cases[i].text);
			continue;
		}
		CHECK_MSG(spec.type == console_cases[i].type, "\"%s\": type %d",
			  console_cases[i].text, spec.type);
		CHECK_STR(spec.value, console_cases[i].value);
		CHECK_STR(spec.text, console_cases[i].text);
	}
	CHECK_INT(spec_parse_console(NULL, &spec, NULL, 0), -EINVAL);

	/* a name that fills the value, and one that cannot get its "0" */
	memset(longtext, 'x', sizeof(longtext));
	memcpy(longtext, "tty", 3);
	longtext[SPEC_VALUE_MAX - 2] = '\0';
	CHECK_INT(spec_parse_console(longtext, &spec, err, sizeof(err)), 0);
	CHECK_INT(strlen(spec.value), SPEC_VALUE_MAX - 1);
	CHECK(spec.value[SPEC_VALUE_MAX - 2] == '0');
	longtext[SPEC_VALUE_MAX - 2] = 'x';
	longtext[SPEC_VALUE_MAX - 1] = '\0';
	CHECK_INT(spec_parse_console(longtext, &spec, err, sizeof(err)), -EINVAL);
	longtext[sizeof(longtext) - 1] = '\0';
	CHECK_INT(spec_parse_console(longtext, &spec, err, sizeof(err)), -EINVAL);
}

/* ---- spec_parse_net -------------------------------------------------- */

static const struct {
	const char *text;
	int ret;
	enum spec_type type;
	const char *value;
	enum net_state state;
	unsigned char mac[6];
} net_cases[] = {
	{ "eth0", 0, SPEC_NET_NAME, "eth0", NET_EXISTS, { 0 } },
	{ "eth0:up", 0, SPEC_NET_NAME, "eth0", NET_UP, { 0 } },
	{ "eth0:carrier", 0, SPEC_NET_NAME, "eth0", NET_CARRIER, { 0 } },
	{ "enp0s31f6", 0, SPEC_NET_NAME, "enp0s31f6", NET_EXISTS, { 0 } },
	{ "abcdefghijklmno", 0, SPEC_NET_NAME, "abcdefghijklmno", NET_EXISTS, { 0 } },
	{ "enx*", 0, SPEC_NET_GLOB, "enx*", NET_EXISTS, { 0 } },
	{ "eth?:up", 0, SPEC_NET_GLOB, "eth?", NET_UP, { 0 } },
	{ "wl[a-z]*", 0, SPEC_NET_GLOB, "wl[a-z]*", NET_EXISTS, { 0 } },
	{ "52:54:00:12:34:56",
	  0,
	  SPEC_NET_MAC,
	  "52:54:00:12:34:56",
	  NET_EXISTS,
	  { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 } },
	{ "52-54-00-12-34-56",
	  0,
	  SPEC_NET_MAC,
	  "52-54-00-12-34-56",
	  NET_EXISTS,
	  { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 } },
	{ "52:54:00:AB:cd:Ef",
	  0,
	  SPEC_NET_MAC,
	  "52:54:00:AB:cd:Ef",
	  NET_EXISTS,
	  { 0x52, 0x54, 0x00, 0xab, 0xcd, 0xef } },
	{ "52:54:00:12:34:56:up",
	  0,
	  SPEC_NET_MAC,
	  "52:54:00:12:34:56",
	  NET_UP,
	  { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 } },
	{ "52-54-00-12-34-56:carrier",
	  0,
	  SPEC_NET_MAC,
	  "52-54-00-12-34-56",
	  NET_CARRIER,
	  { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 } },
	{ "any", 0, SPEC_NET_ANY, "any", NET_EXISTS, { 0 } },
	{ "any:up", 0, SPEC_NET_ANY, "any", NET_UP, { 0 } },
	{ "any:carrier", 0, SPEC_NET_ANY, "any", NET_CARRIER, { 0 } },

	{ "", -EINVAL, SPEC_NONE, NULL, NET_EXISTS, { 0 } },
	{ "eth0:down", -EINVAL, SPEC_NONE, NULL, NET_EXISTS, { 0 } },
	{ "eth0:", -EINVAL, SPEC_NONE, NULL, NET_EXISTS, { 0 } },
	{ "eth0:UP", -EINVAL, SPEC_NONE, NULL, NET_EXISTS, { 0 } },
	{ ":up", -EINVAL, SPEC_NONE, NULL, NET_EXISTS, { 0 } },
	{ "abcdefghijklmnop", -EINVAL, SPEC_NONE, NULL, NET_EXISTS, { 0 } },
	{ "abcdefghijklmnop:up", -EINVAL, SPEC_NONE, NULL, NET_EXISTS, { 0 } },
	{ "a/b", -EINVAL, SPEC_NONE, NULL, NET_EXISTS, { 0 } },
	{ "a:b:up", -EINVAL, SPEC_NONE, NULL, NET_EXISTS, { 0 } },
	{ "eth 0", -EINVAL, SPEC_NONE, NULL, NET_EXISTS, { 0 } },
	{ "eth0\n", -EINVAL, SPEC_NONE, NULL, NET_EXISTS, { 0 } },
	{ "52:54:00:12:34", -EINVAL, SPEC_NONE, NULL, NET_EXISTS, { 0 } },
	{ "52:54:00:12:34:5g", -EINVAL, SPEC_NONE, NULL, NET_EXISTS, { 0 } },
	{ "52:54:00:12:34:56:down", -EINVAL, SPEC_NONE, NULL, NET_EXISTS, { 0 } },
};

static void test_parse_net(void)
{
	struct spec spec;
	char err[256];
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(net_cases); i++) {
		int r;

		err[0] = '\0';
		r = spec_parse_net(net_cases[i].text, &spec, err, sizeof(err));
		CHECK_MSG(r == net_cases[i].ret, "\"%s\": returned %d (%s), expected %d",
			  net_cases[i].text, r, err, net_cases[i].ret);
		if (r != 0 || net_cases[i].ret != 0) {
			if (net_cases[i].ret)
				CHECK_MSG(err[0], "\"%s\": no message",
					  net_cases[i].text);
			continue;
		}
		CHECK_MSG(spec.type == net_cases[i].type, "\"%s\": type %d",
			  net_cases[i].text, spec.type);
		CHECK_STR(spec.value, net_cases[i].value);
		CHECK_STR(spec.text, net_cases[i].text);
		CHECK_MSG(spec.net_state == net_cases[i].state, "\"%s\": state %d",
			  net_cases[i].text, spec.net_state);
		if (spec.type == SPEC_NET_MAC)
			CHECK_MSG(memcmp(spec.mac, net_cases[i].mac, 6) == 0,
				  "\"%s\": wrong MAC bytes", net_cases[i].text);
	}
	CHECK_INT(spec_parse_net(NULL, &spec, NULL, 0), -EINVAL);
	CHECK_INT(spec_parse_net("eth0:down", &spec, NULL, 0), -EINVAL);
}

/* ---- matchers -------------------------------------------------------- */

#define S(x) ((char *)(x))

static const struct device dev_sda = {
	.kind = DEV_BLOCK,
	.devpath = S("/devices/pci0000:00/sda"),
	.name = S("sda"),
	.has_devt = true,
	.major = 8,
	.minor = 0,
	.size = 2097152,
};
/* a whole disk whose name happens to look like a partition name */
static const struct device dev_sdb = {
	.kind = DEV_BLOCK,
	.name = S("sdb"),
	.has_devt = true,
	.major = 8,
	.minor = 16,
	.partname = S("root"),
	.size = 1000,
};
/* an LVM logical volume "root" of volume group "my-vg" */
static const struct device dev_dm0 = {
	.kind = DEV_BLOCK,
	.name = S("dm-0"),
	.has_devt = true,
	.major = 254,
	.minor = 0,
	.size = 409600,
	.dm_name = S("my--vg-root"),
};

static const struct device dev_sda1 = {
	.kind = DEV_BLOCK,
	.name = S("sda1"),
	.has_devt = true,
	.major = 8,
	.minor = 1,
	.is_partition = true,
	.partn = 1,
	.partname = S("root"),
	.size = 204800,
	.fs_uuid = S("1234-ABCD"),
	.fs_label = S("rootfs"),
	.part_uuid = S("0badcafe-01"),
};
static const struct device dev_vda1 = {
	.kind = DEV_BLOCK,
	.name = S("vda1"),
	.has_devt = true,
	.major = 254,
	.minor = 1,
	.is_partition = true,
	.partn = 1,
	.partname = S("EFI System Partition"),
	.size = 1024,
};
static const struct device dev_nvme = {
	.kind = DEV_BLOCK,
	.name = S("nvme0n1"),
	.has_devt = true,
	.major = 259,
	.minor = 0,
	.size = 1,
};
/* a CD-ROM drive without a disc */
static const struct device dev_sr0 = {
	.kind = DEV_BLOCK,
	.name = S("sr0"),
	.has_devt = true,
	.major = 11,
	.minor = 0,
	.size = 0,
};
/* a record whose major/minor were never set */
static const struct device dev_nodevt = {
	.kind = DEV_BLOCK,
	.name = S("foo"),
	.has_devt = false,
	.major = 8,
	.minor = 1,
	.size = 10,
};
static const struct device dev_ttyS0 = {
	.kind = DEV_TTY,
	.name = S("ttyS0"),
	.has_devt = true,
	.major = 4,
	.minor = 64,
};
static const struct device dev_hvc0 = {
	.kind = DEV_TTY,
	.name = S("hvc0"),
	.has_devt = true,
	.major = 229,
	.minor = 0,
};
static const struct device dev_netcon = {
	.kind = DEV_TTY,
	.name = S("netcon0"),
};
/* names of one kind on devices of another */
static const struct device dev_block_ttyS0 = {
	.kind = DEV_BLOCK,
	.name = S("ttyS0"),
	.has_devt = true,
	.major = 4,
	.minor = 64,
	.size = 1,
};
static const struct device dev_block_eth0 = {
	.kind = DEV_BLOCK,
	.name = S("eth0"),
	.size = 1,
};
static const struct device dev_tty_sda1 = {
	.kind = DEV_TTY,
	.name = S("sda1"),
	.has_devt = true,
	.major = 8,
	.minor = 1,
};
static const struct device dev_net_sda1 = {
	.kind = DEV_NET,
	.name = S("sda1"),
	.ifindex = 9,
	.flags = IFF_UP,
};
static const struct device dev_other_sda1 = {
	.kind = DEV_OTHER,
	.name = S("sda1"),
	.has_devt = true,
	.major = 8,
	.minor = 1,
	.size = 1,
};

#define MAC_5254                                                                         \
	{                                                                                \
		0x52, 0x54, 0x00, 0x12, 0x34, 0x56                                       \
	}
static const struct device dev_eth0 = {
	.kind = DEV_NET,
	.name = S("eth0"),
	.ifindex = 2,
	.flags = 0,
	.mac = MAC_5254,
	.mac_len = 6,
};
static const struct device dev_eth0_up = {
	.kind = DEV_NET,
	.name = S("eth0"),
	.ifindex = 2,
	.flags = IFF_UP,
	.mac = MAC_5254,
	.mac_len = 6,
};
static const struct device dev_eth0_carrier = {
	.kind = DEV_NET,
	.name = S("eth0"),
	.ifindex = 2,
	.flags = IFF_UP | IFF_RUNNING,
	.mac = MAC_5254,
	.mac_len = 6,
};
/* RUNNING without UP: not a state the kernel reports, still not ready */
static const struct device dev_eth0_running = {
	.kind = DEV_NET,
	.name = S("eth0"),
	.ifindex = 2,
	.flags = IFF_RUNNING,
	.mac = MAC_5254,
	.mac_len = 6,
};
static const struct device dev_enx = {
	.kind = DEV_NET,
	.name = S("enx525400abcdef"),
	.ifindex = 3,
	.flags = IFF_UP | IFF_RUNNING,
	.mac = { 0x52, 0x54, 0x00, 0xab, 0xcd, 0xef },
	.mac_len = 6,
};
static const struct device dev_lo = {
	.kind = DEV_NET,
	.name = S("lo"),
	.ifindex = 1,
	.flags = IFF_UP | IFF_RUNNING | IFF_LOOPBACK,
	.mac_len = 6,
};
/* a loopback under another name, and a "lo" without the flag */
static const struct device dev_lo1 = {
	.kind = DEV_NET,
	.name = S("lo1"),
	.ifindex = 7,
	.flags = IFF_UP | IFF_RUNNING | IFF_LOOPBACK,
};
static const struct device dev_lo_noflag = {
	.kind = DEV_NET,
	.name = S("lo"),
	.ifindex = 8,
	.flags = IFF_UP | IFF_RUNNING,
};
/* InfiniBand: a 20-byte address that starts like the MAC */
static const struct device dev_ib0 = {
	.kind = DEV_NET,
	.name = S("ib0"),
	.ifindex = 4,
	.flags = IFF_UP | IFF_RUNNING,
	.mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 1,	 2,  3,	 4,
		 5,    6,    7,	   8,	 9,    10,   11, 12, 13, 14 },
	.mac_len = 20,
};
static const struct device dev_noname = {
	.kind = DEV_NET,
	.name = NULL,
	.ifindex = 5,
	.flags = IFF_UP,
	.mac = MAC_5254,
	.mac_len = 6,
};

enum { P_BLOCK, P_CONSOLE, P_NET };

struct match_case {
	int parser;
	const char *spec;
	const struct device *dev;
	bool match;
	int ready; /* -1: not checked */
};

static const struct match_case match_cases[] = {
	/* names */
	{ P_BLOCK, "/dev/sda1", &dev_sda1, true, 1 },
	{ P_BLOCK, "sda1", &dev_sda1, true, 1 },
	{ P_BLOCK, "sda1", &dev_sda, false, -1 },
	{ P_BLOCK, "sda", &dev_sda, true, 1 },
	{ P_BLOCK, "sda", &dev_sda1, false, -1 },
	{ P_BLOCK, "SDA", &dev_sda, false, -1 },
	{ P_BLOCK, "sr0", &dev_sr0, true, 0 }, /* no medium */
	/* device-mapper names (sysfs dm/name) and LVM's VG/LV links */
	{ P_BLOCK, "/dev/dm-0", &dev_dm0, true, 1 },
	{ P_BLOCK, "/dev/mapper/my--vg-root", &dev_dm0, true, 1 },
	{ P_BLOCK, "/dev/mapper/my-vg-root", &dev_dm0, false, -1 },
	{ P_BLOCK, "/dev/mapper/my--vg-roo", &dev_dm0, false, -1 },
	{ P_BLOCK, "/dev/my-vg/root", &dev_dm0, true, 1 },
	{ P_BLOCK, "/dev/my/vg-root", &dev_dm0, false, -1 },
	{ P_BLOCK, "/dev/my--vg/root", &dev_dm0, false, -1 },
	{ P_BLOCK, "/dev/my-vg/root/x", &dev_dm0, false, -1 },
	{ P_BLOCK, "/dev/my-vg/roo", &dev_dm0, false, -1 },
	{ P_BLOCK, "/dev/my-vg/rootx", &dev_dm0, false, -1 },
	{ P_BLOCK, "/dev/mapper/sda1", &dev_sda1, false, -1 },
	/* device numbers */
	{ P_BLOCK, "8:1", &dev_sda1, true, 1 },
	{ P_BLOCK, "801", &dev_sda1, true, 1 },
	{ P_BLOCK, "8:1", &dev_sda, false, -1 },
	{ P_BLOCK, "8:0", &dev_sda, true, 1 },
	{ P_BLOCK, "1:8", &dev_sda1, false, -1 },
	{ P_BLOCK, "8:1", &dev_nodevt, false, -1 },
	{ P_BLOCK, "259:0", &dev_nvme, true, 1 },
	{ P_BLOCK, "11:0", &dev_sr0, true, 0 },
	/* partition names: partitions only, case-sensitive */
	{ P_BLOCK, "PARTLABEL=root", &dev_sda1, true, 1 },
	{ P_BLOCK, "PARTLABEL=root", &dev_sdb, false, -1 },
	{ P_BLOCK, "PARTLABEL=Root", &dev_sda1, false, -1 },
	{ P_BLOCK, "PARTLABEL=root", &dev_vda1, false, -1 },
	{ P_BLOCK, "PARTLABEL=root", &dev_sda, false, -1 },
	{ P_BLOCK, "PARTLABEL=EFI System Partition", &dev_vda1, true, 1 },
	{ P_BLOCK, "PARTLABEL=EFI", &dev_vda1, false, -1 },
	{ P_BLOCK, "/dev/disk/by-partlabel/root", &dev_sda1, true, 1 },
	{ P_BLOCK, "/dev/disk/by-partlabel/EFI\\x20System\\x20Partition", &dev_vda1, true,
	  1 },
	/* filesystem UUIDs compare case-insensitively, labels do not */
	{ P_BLOCK, "UUID=1234-ABCD", &dev_sda1, true, 1 },
	{ P_BLOCK, "UUID=1234-abcd", &dev_sda1, true, 1 },
	{ P_BLOCK, "UUID=1234-abce", &dev_sda1, false, -1 },
	{ P_BLOCK, "UUID=1234-ABC", &dev_sda1, false, -1 },
	{ P_BLOCK, "UUID=1234-ABCD", &dev_sda, false, -1 }, /* unprobed */
	{ P_BLOCK, "/dev/disk/by-uuid/1234-abcd", &dev_sda1, true, 1 },
	{ P_BLOCK, "LABEL=rootfs", &dev_sda1, true, 1 },
	{ P_BLOCK, "LABEL=ROOTFS", &dev_sda1, false, -1 },
	{ P_BLOCK, "LABEL=rootfs", &dev_sda, false, -1 },
	{ P_BLOCK, "/dev/disk/by-label/root\\x66s", &dev_sda1, true, 1 },
	/* partition UUIDs: case-insensitive; with PARTNROFF a sibling,
	 * which a single record cannot tell */
	{ P_BLOCK, "PARTUUID=0BADCAFE-01", &dev_sda1, true, 1 },
	{ P_BLOCK, "PARTUUID=0badcafe-01", &dev_sda1, true, 1 },
	{ P_BLOCK, "PARTUUID=0badcafe-02", &dev_sda1, false, -1 },
	{ P_BLOCK, "PARTUUID=0badcafe-01/PARTNROFF=1", &dev_sda1, false, -1 },
	{ P_BLOCK, "PARTUUID=0badcafe-01/PARTNROFF=0", &dev_sda1, false, -1 },
	{ P_BLOCK, "/dev/disk/by-partuuid/0badcafe-01", &dev_sda1, true, 1 },
	{ P_BLOCK, "PARTUUID=0badcafe-01", &dev_sda, false, -1 },
	/* udev links: never from a record alone */
	{ P_BLOCK, "/dev/disk/by-id/sda1", &dev_sda1, false, -1 },
	{ P_BLOCK, "/dev/disk/by-path/sda1", &dev_sda1, false, -1 },
	/* wrong kinds */
	{ P_BLOCK, "sda1", &dev_tty_sda1, false, -1 },
	{ P_BLOCK, "sda1", &dev_net_sda1, false, -1 },
	{ P_BLOCK, "sda1", &dev_other_sda1, false, 0 },
	{ P_BLOCK, "8:1", &dev_tty_sda1, false, -1 },
	{ P_BLOCK, "8:1", &dev_other_sda1, false, -1 },
	{ P_BLOCK, "eth0", &dev_eth0, false, -1 },
	{ P_BLOCK, "ttyS0", &dev_ttyS0, false, -1 },

	/* consoles */
	{ P_CONSOLE, "ttyS0", &dev_ttyS0, true, 1 },
	{ P_CONSOLE, "/dev/ttyS0,115200n8", &dev_ttyS0, true, 1 },
	{ P_CONSOLE, "ttyS", &dev_ttyS0, true, 1 },
	{ P_CONSOLE, "ttyS1", &dev_ttyS0, false, -1 },
	{ P_CONSOLE, "ttyS00", &dev_ttyS0, false, -1 },
	{ P_CONSOLE, "hvc0", &dev_hvc0, true, 1 },
	{ P_CONSOLE, "hvc0", &dev_ttyS0, false, -1 },
	{ P_CONSOLE, "netcon0", &dev_netcon, false, -1 },
	{ P_CONSOLE, "ttyS0", &dev_block_ttyS0, false, -1 },
	{ P_CONSOLE, "ttyS0", &dev_eth0, false, -1 },

	/* interfaces by name */
	{ P_NET, "eth0", &dev_eth0, true, 1 },
	{ P_NET, "eth0", &dev_eth0_carrier, true, 1 },
	{ P_NET, "eth1", &dev_eth0, false, -1 },
	{ P_NET, "eth", &dev_eth0, false, -1 },
	{ P_NET, "ETH0", &dev_eth0, false, -1 },
	{ P_NET, "eth0", &dev_noname, false, -1 },
	{ P_NET, "eth0", &dev_block_eth0, false, -1 },
	{ P_NET, "sda1", &dev_sda1, false, -1 },
	/* states */
	{ P_NET, "eth0:up", &dev_eth0, true, 0 },
	{ P_NET, "eth0:up", &dev_eth0_up, true, 1 },
	{ P_NET, "eth0:up", &dev_eth0_carrier, true, 1 },
	{ P_NET, "eth0:up", &dev_eth0_running, true, 0 },
	{ P_NET, "eth0:carrier", &dev_eth0, true, 0 },
	{ P_NET, "eth0:carrier", &dev_eth0_up, true, 0 },
	{ P_NET, "eth0:carrier", &dev_eth0_running, true, 0 },
	{ P_NET, "eth0:carrier", &dev_eth0_carrier, true, 1 },
	/* globs */
	{ P_NET, "eth*", &dev_eth0, true, 1 },
	{ P_NET, "eth?", &dev_eth0, true, 1 },
	{ P_NET, "eth[0-3]", &dev_eth0, true, 1 },
	{ P_NET, "eth[4-7]", &dev_eth0, false, -1 },
	{ P_NET, "en*", &dev_eth0, false, -1 },
	{ P_NET, "enx*", &dev_enx, true, 1 },
	{ P_NET, "enx*:carrier", &dev_enx, true, 1 },
	{ P_NET, "*", &dev_noname, false, -1 },
	/* addresses */
	{ P_NET, "52:54:00:12:34:56", &dev_eth0, true, 1 },
	{ P_NET, "52-54-00-12-34-56", &dev_eth0, true, 1 },
	{ P_NET, "52:54:00:12:34:56:up", &dev_eth0, true, 0 },
	{ P_NET, "52:54:00:12:34:56:up", &dev_eth0_up, true, 1 },
	{ P_NET, "52:54:00:12:34:57", &dev_eth0, false, -1 },
	{ P_NET, "52:54:00:AB:CD:EF", &dev_enx, true, 1 },
	{ P_NET, "52:54:00:12:34:56", &dev_ib0, false, -1 },
	{ P_NET, "52:54:00:12:34:56", &dev_noname, false, -1 },
	/* any: never the loopback */
	{ P_NET, "any", &dev_eth0, true, 1 },
	{ P_NET, "any", &dev_ib0, true, 1 },
	{ P_NET, "any", &dev_lo, false, -1 },
	{ P_NET, "any", &dev_lo1, false, -1 },
	{ P_NET, "any", &dev_lo_noflag, false, -1 },
	{ P_NET, "any", &dev_noname, false, -1 },
	{ P_NET, "any", &dev_sda1, false, -1 },
	{ P_NET, "any", &dev_ttyS0, false, -1 },
	{ P_NET, "any:carrier", &dev_eth0_carrier, true, 1 },
	{ P_NET, "any:carrier", &dev_eth0_up, true, 0 },
	{ P_NET, "any:carrier", &dev_lo, false, -1 },
	{ P_NET, "lo", &dev_lo, true, 1 }, /* by name it is fine */
};

static int parse_for(int parser, const char *text, struct spec *spec)
{
	switch (parser) {
	case P_BLOCK:
		return spec_parse_block(text, spec, NULL, 0);
	case P_CONSOLE:
		return spec_parse_console(text, spec, NULL, 0);
	default:
		return spec_parse_net(text, spec, NULL, 0);
	}
}

static void test_match(void)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(match_cases); i++) {
		const struct match_case *c = &match_cases[i];
		const char *dname = c->dev->name ? c->dev->name : "(null)";
		struct spec spec;
		bool m, direct;

		if (parse_for(c->parser, c->spec, &spec) < 0) {
			CHECK_MSG(0, "\"%s\": does not parse", c->spec);
			continue;
		}
		m = spec_match(&spec, c->dev);
		CHECK_MSG(m == c->match, "\"%s\" vs %s %s: match %d, expected %d",
			  c->spec, dev_kind_name(c->dev->kind), dname, m, c->match);
		/* the kind-specific matcher agrees with the dispatcher */
		switch (c->parser) {
		case P_BLOCK:
			direct = spec_match_block(&spec, c->dev);
			break;
		case P_CONSOLE:
			direct = spec_match_console(&spec, c->dev);
			break;
		default:
			direct = spec_match_net(&spec, c->dev);
			break;
		}
		CHECK_MSG(direct == c->match, "\"%s\" vs %s: direct match %d", c->spec,
			  dname, direct);
		/* and the matchers of the other kinds never say yes */
		if (c->parser != P_BLOCK)
			CHECK_MSG(!spec_match_block(&spec, c->dev),
				  "\"%s\" vs %s: block matcher", c->spec, dname);
		if (c->parser != P_CONSOLE)
			CHECK_MSG(!spec_match_console(&spec, c->dev),
				  "\"%s\" vs %s: console matcher", c->spec, dname);
		if (c->parser != P_NET)
			CHECK_MSG(!spec_match_net(&spec, c->dev),
				  "\"%s\" vs %s: net matcher", c->spec, dname);
		if (c->ready >= 0) {
			bool r = spec_device_ready(&spec, c->dev);

			CHECK_MSG(r == (c->ready == 1),
				  "\"%s\" vs %s: ready %d, expected %d", c->spec, dname,
				  r, c->ready);
		}
	}
}

static void test_match_none(void)
{
	static const struct device *const devs[] = {
		&dev_sda, &dev_sda1, &dev_ttyS0, &dev_eth0_carrier, &dev_lo,
	};
	struct spec none;
	unsigned i;

	memset(&none, 0, sizeof(none));
	for (i = 0; i < ARRAY_SIZE(devs); i++) {
		CHECK(!spec_match(&none, devs[i]));
		CHECK(!spec_match_block(&none, devs[i]));
		CHECK(!spec_match_console(&none, devs[i]));
		CHECK(!spec_match_net(&none, devs[i]));
	}
}

/* udev mode: by-id and by-path match DEVLINKS, whole words only, with
 * udev's escaping of blanks and slashes. */
static void test_match_devlinks(void)
{
	struct device d = {
		.kind = DEV_BLOCK,
		.name = (char *)"sdb1",
		.size = 100,
		.devlinks = (char *)"/dev/disk/by-id/"
				    "usb-Kingston_DT_123-0:0-part1 "
				    "/dev/disk/by-path/"
				    "pci-0000:00:14.0-usb-0:2:1.0-scsi-0:0:0:0-"
				    "part1 "
				    "/dev/disk/by-label/my\\x20disk",
	};
	struct spec spec;
	char err[100];

	CHECK_INT(spec_parse_block("/dev/disk/by-id/"
				   "usb-Kingston_DT_123-0:0-part1",
				   &spec, err, sizeof(err)),
		  0);
	CHECK(spec_match_block(&spec, &d));
	/* a prefix of a link is not the link */
	spec_parse_block("/dev/disk/by-id/usb-Kingston_DT_123-0:0", &spec, err,
			 sizeof(err));
	CHECK(!spec_match_block(&spec, &d));
	spec_parse_block("/dev/disk/by-path/"
			 "pci-0000:00:14.0-usb-0:2:1.0-scsi-0:0:0:0-part1",
			 &spec, err, sizeof(err));
	CHECK(spec_match_block(&spec, &d));
	/* by-id names are not by-path names */
	spec_parse_block("/dev/disk/by-path/usb-Kingston_DT_123-0:0-part1", &spec, err,
			 sizeof(err));
	CHECK(!spec_match_block(&spec, &d));
	d.devlinks = NULL;
	spec_parse_block("/dev/disk/by-id/usb-Kingston_DT_123-0:0-part1", &spec, err,
			 sizeof(err));
	CHECK(!spec_match_block(&spec, &d));
}

/* PARTUUID=X/PARTNROFF=N: the partition N numbers on, same disk. */
static void test_match_sibling(void)
{
	struct device anchor = {
		.kind = DEV_BLOCK,
		.devpath = (char *)"/devices/pci0000:00/0000:00:04.0/virtio1/"
				   "block/vda/vda1",
		.is_partition = true,
		.partn = 1,
	};
	struct device vda2 = anchor, vda3 = anchor, vdb2 = anchor, vda = anchor;
	struct spec spec;
	char err[100];

	vda2.devpath = (char *)"/devices/pci0000:00/0000:00:04.0/virtio1/block/"
			       "vda/vda2";
	vda2.partn = 2;
	vda3.devpath = (char *)"/devices/pci0000:00/0000:00:04.0/virtio1/block/"
			       "vda/vda3";
	vda3.partn = 3;
	vdb2.devpath = (char *)"/devices/pci0000:00/0000:00:05.0/virtio2/block/"
			       "vdb/vdb2";
	vdb2.partn = 2;
	vda.devpath = (char *)"/devices/pci0000:00/0000:00:04.0/virtio1/block/"
			      "vda";
	vda.is_partition = false;
	vda.partn = 0;

	CHECK_INT(spec_parse_block("PARTUUID=00112233-01/PARTNROFF=1", &spec, err,
				   sizeof(err)),
		  0);
	CHECK(spec_match_sibling(&spec, &anchor, &vda2));
	CHECK(!spec_match_sibling(&spec, &anchor, &vda3));
	CHECK(!spec_match_sibling(&spec, &anchor, &vdb2)); /* other disk */
	CHECK(!spec_match_sibling(&spec, &anchor, &vda));  /* not a partition */
	spec_parse_block("PARTUUID=00112233-02/PARTNROFF=-1", &spec, err, sizeof(err));
	CHECK(spec_match_sibling(&spec, &vda2, &anchor));
	spec_parse_block("PARTUUID=00112233-01/PARTNROFF=-1", &spec, err, sizeof(err));
	CHECK(!spec_match_sibling(&spec, &anchor, &vda)); /* partition 0 */
}

int main(void)
{
	test_parse_block();
	test_error_controls();
	test_need_kind();
	test_parse_console();
	test_parse_net();
	test_match();
	test_match_none();
	test_match_devlinks();
	test_match_sibling();
	return test_summary("test-spec");
}
