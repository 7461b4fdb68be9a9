// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-cmdline.c - the kernel command line parser: next_arg() quoting,
 * the keys waitdev reads, deadlines, malformed values and /proc/cmdline.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "cmdline.h"
#include "test.h"
#include "util.h"

/* ---- cmdline_next_arg ------------------------------------------------ */

#define MAX_ARGS 8

struct arg_case {
	const char *line;
	unsigned n;
	struct {
		const char *param;
		const char *val; /* NULL: no '=' */
	} args[MAX_ARGS];
};

static const struct arg_case arg_cases[] = {
	{ "", 0, { { NULL, NULL } } },
	{ "   \t\n  ", 0, { { NULL, NULL } } },
	{ "quiet", 1, { { "quiet", NULL } } },
	{ "root=/dev/sda1", 1, { { "root", "/dev/sda1" } } },
	{ "a b", 2, { { "a", NULL }, { "b", NULL } } },
	/* tabs, newlines and runs of blanks all separate */
	{ "  a=1\t\tb=2\n c  \n", 3, { { "a", "1" }, { "b", "2" }, { "c", NULL } } },
	/* the value starts after the first '=' only */
	{ "root=LABEL=x", 1, { { "root", "LABEL=x" } } },
	{ "a=", 1, { { "a", "" } } },
	/* a key cannot start with '=': the next '=' splits */
	{ "=a=b", 1, { { "=a", "b" } } },
	{ "=", 1, { { "=", NULL } } },
	/* the whole parameter quoted: quotes removed, blanks kept */
	{ "\"waitdev.root=LABEL=my disk\" quiet",
	  2,
	  { { "waitdev.root", "LABEL=my disk" }, { "quiet", NULL } } },
	/* only the value quoted */
	{ "waitdev.root=\"LABEL=my disk\" quiet",
	  2,
	  { { "waitdev.root", "LABEL=my disk" }, { "quiet", NULL } } },
	{ "x=\"a\tb\nc\"", 1, { { "x", "a\tb\nc" } } },
	{ "\"quoted key\"", 1, { { "quoted key", NULL } } },
	{ "a=\"\" b", 2, { { "a", "" }, { "b", NULL } } },
	/* like the kernel: a quote inside the value is kept unless it
	 * opens the value and the parameter ends with one */
	{ "a=b\"c d\"", 1, { { "a", "b\"c d\"" } } },
	{ "a=\"b c\"d", 1, { { "a", "b c\"d" } } },
	/* an unterminated quote runs to the end */
	{ "a=\"b c d", 1, { { "a", "b c d" } } },
	{ "\"a b", 1, { { "a b", NULL } } },
	/* a lone quote or an empty pair: an empty parameter */
	{ "\"", 1, { { "", NULL } } },
	{ "\"\" x", 2, { { "", NULL }, { "x", NULL } } },
	{ "-- init arg", 3, { { "--", NULL }, { "init", NULL }, { "arg", NULL } } },
};

static void test_next_arg(void)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(arg_cases); i++) {
		const struct arg_case *c = &arg_cases[i];
		char *buf = strdup(c->line), *args = buf, *param, *val;
		unsigned n = 0;

		while ((args = cmdline_next_arg(args, &param, &val))) {
			CHECK_MSG(n < c->n, "\"%s\": extra arg \"%s\"", c->line, param);
			if (n >= c->n)
				break;
			CHECK_STR(param, c->args[n].param);
			if (c->args[n].val)
				CHECK_STR(val, c->args[n].val);
			else
				CHECK_MSG(!val, "\"%s\": arg %u has value \"%s\"",
					  c->line, n, val);
			n++;
		}
		CHECK_MSG(n == c->n, "\"%s\": %u args, expected %u", c->line, n, c->n);
		free(buf);
	}
}

/* ---- cmdline_parse: accepted lines ----------------------------------- */

#define DEF (UINT64_MAX - 1) /* the default for that deadline */
#define FOREVER DEADLINE_FOREVER

struct parse_case {
	const char *line;
	/* "TYPE value" of the root / console spec, NULL for none */
	enum spec_type root_type;
	const char *root;
	const char *console;
	const char *net;     /* values joined with ',' */
	const char *skipped; /* joined with '|' */
	uint64_t root_ms, console_ms, net_ms;
	uint64_t timeout_ms; /* DEF: no waitdev.timeout= */
};

#define HOST_LINE                                                                        \
	"mitigations=auto console=ttyS0 quiet reboot=k panic=1 "                         \
	"rdinit=/process_api -- --firecracker-init --addr 0.0.0.0:2024"

static const struct parse_case parse_cases[] = {
	{ "", .root_ms = DEF, .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "quiet splash ro init=/sbin/init loglevel=3", .root_ms = DEF, .console_ms = DEF,
	  .net_ms = DEF, .timeout_ms = DEF },
	{ HOST_LINE, .console = "ttyS0", .root_ms = DEF, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },
	{ "BOOT_IMAGE=/vmlinuz root=UUID=1234-abcd ro quiet", SPEC_BLOCK_UUID,
	  "1234-abcd", .root_ms = DEF, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },
	{ "root=/dev/vda1", SPEC_BLOCK_NAME, "vda1", .root_ms = DEF, .console_ms = DEF,
	  .net_ms = DEF, .timeout_ms = DEF },
	{ "root=PARTLABEL=rootfs rootwait", SPEC_BLOCK_PARTLABEL, "rootfs",
	  .root_ms = FOREVER, .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },

	/* quoting */
	{ "\"waitdev.root=LABEL=my disk\"", SPEC_BLOCK_LABEL, "my disk", .root_ms = DEF,
	  .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "waitdev.root=\"LABEL=my disk\" quiet", SPEC_BLOCK_LABEL, "my disk",
	  .root_ms = DEF, .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "root=\"PARTLABEL=EFI System Partition\"", SPEC_BLOCK_PARTLABEL,
	  "EFI System Partition", .root_ms = DEF, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },
	{ "\"root=/dev/sda2\"", SPEC_BLOCK_NAME, "sda2", .root_ms = DEF,
	  .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "\troot=/dev/sda2\n\n  console=ttyS1\t\trootwait\n", SPEC_BLOCK_NAME, "sda2",
	  "ttyS1", .root_ms = FOREVER, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },
	/* a blank inside quotes does not end the parameter */
	{ "foo=\"a root=/dev/sdz b\" root=/dev/sda3", SPEC_BLOCK_NAME, "sda3",
	  .root_ms = DEF, .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "foo=\"a root=/dev/sdz b\"", .root_ms = DEF, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },

	/* "--" ends the kernel's part */
	{ "root=/dev/sda1 -- root=/dev/sdb1 waitdev.bogus=1 rootwait", SPEC_BLOCK_NAME,
	  "sda1", .root_ms = DEF, .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "-- root=/dev/sdb1 console=ttyS0", .root_ms = DEF, .console_ms = DEF,
	  .net_ms = DEF, .timeout_ms = DEF },
	/* "--x" and "--=x" are not the separator */
	{ "--x root=/dev/sda1", SPEC_BLOCK_NAME, "sda1", .root_ms = DEF,
	  .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "--=x root=/dev/sda1", SPEC_BLOCK_NAME, "sda1", .root_ms = DEF,
	  .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },

	/* the last of a single-valued key wins */
	{ "root=/dev/sda1 root=/dev/sdb2", SPEC_BLOCK_NAME, "sdb2", .root_ms = DEF,
	  .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "waitdev.root=/dev/sda1 waitdev.root=8:2", SPEC_BLOCK_DEVT, "", .root_ms = DEF,
	  .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "waitdev.net=eth0,eth1 waitdev.net=wlan0", .net = "wlan0", .root_ms = DEF,
	  .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "waitdev.net=eth0 waitdev.net=", .root_ms = DEF, .console_ms = DEF,
	  .net_ms = DEF, .timeout_ms = DEF },
	{ "rootdelay=10 rootdelay=3", .root_ms = 3000, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },
	{ "rootwait=5 rootwait=7", .root_ms = 7000, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },
	{ "consoledelay=100 consoledelay=20", .root_ms = DEF, .console_ms = 20,
	  .net_ms = DEF, .timeout_ms = DEF },
	{ "waitdev.timeout=1 waitdev.timeout=2", .root_ms = 2000, .console_ms = 2000,
	  .net_ms = 2000, .timeout_ms = 2000 },
	{ "waitdev.console=ttyS0 waitdev.console=hvc1", .console = "hvc1", .root_ms = DEF,
	  .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },

	/* no known key has '-' or '_', so these are other keys */
	{ "root_wait root-delay=abc console_wait root-=/dev/x", .root_ms = DEF,
	  .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },

	/* waitdev.root= overrides root=, in either order */
	{ "root=/dev/sda1 waitdev.root=/dev/sdb1", SPEC_BLOCK_NAME, "sdb1",
	  .root_ms = DEF, .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "waitdev.root=/dev/sdb1 root=/dev/sda1", SPEC_BLOCK_NAME, "sdb1",
	  .root_ms = DEF, .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	/* ... even when root= would not parse */
	{ "waitdev.root=/dev/sdb1 root=live:CDLABEL=x", SPEC_BLOCK_NAME, "sdb1",
	  .root_ms = DEF, .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	/* an empty waitdev.root= turns the root wait off */
	{ "root=/dev/sda1 waitdev.root=", .root_ms = DEF, .console_ms = DEF,
	  .net_ms = DEF, .timeout_ms = DEF },
	{ "waitdev.root= root=/dev/sda1", .root_ms = DEF, .console_ms = DEF,
	  .net_ms = DEF, .timeout_ms = DEF },
	{ "waitdev.root=/dev/sda1 waitdev.root=", .root_ms = DEF, .console_ms = DEF,
	  .net_ms = DEF, .timeout_ms = DEF },
	{ "waitdev.console= console=ttyS0", .root_ms = DEF, .console_ms = DEF,
	  .net_ms = DEF, .timeout_ms = DEF },
	{ "console=ttyS0 waitdev.console=ttyAMA0", .console = "ttyAMA0", .root_ms = DEF,
	  .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },

	/* network roots are not block devices */
	{ "root=/dev/nfs nfsroot=10.0.0.1:/srv ip=dhcp", .skipped = "root=/dev/nfs",
	  .root_ms = DEF, .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "root=/dev/cifs", .skipped = "root=/dev/cifs", .root_ms = DEF,
	  .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "root=/dev/nfs root=/dev/sda1", SPEC_BLOCK_NAME, "sda1", .root_ms = DEF,
	  .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },

	/* consoles: the last one naming a tty */
	{ "console=tty0 console=ttyS0,115200n8", .console = "ttyS0", .root_ms = DEF,
	  .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "console=ttyS0,115200n8 console=tty0", .console = "tty0", .root_ms = DEF,
	  .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "console=ttyS0 console=netcon0", .console = "ttyS0",
	  .skipped = "console=netcon0", .root_ms = DEF, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },
	{ "console=uart8250,io,0x3f8 console=lp0",
	  .skipped = "console=uart8250,io,0x3f8|console=lp0", .root_ms = DEF,
	  .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "console=/dev/ttyUSB0", .console = "ttyUSB0", .root_ms = DEF, .console_ms = DEF,
	  .net_ms = DEF, .timeout_ms = DEF },
	{ "console=hvc0", .console = "hvc0", .root_ms = DEF, .console_ms = DEF,
	  .net_ms = DEF, .timeout_ms = DEF },
	{ "console=ttyAMA0,115200 earlycon", .console = "ttyAMA0", .root_ms = DEF,
	  .console_ms = DEF, .net_ms = DEF, .timeout_ms = DEF },
	{ "console=ttyS", .console = "ttyS0", .root_ms = DEF, .console_ms = DEF,
	  .net_ms = DEF, .timeout_ms = DEF },
	{ "root=/dev/nfs console=netcon0 console=ttyS2", .console = "ttyS2",
	  .skipped = "console=netcon0|root=/dev/nfs", .root_ms = DEF, .console_ms = DEF,
	  .net_ms = DEF, .timeout_ms = DEF },

	/* network */
	{ "waitdev.net=eth0,enx*,52:54:00:12:34:56:carrier,any:up",
	  .net = "eth0,enx*,52:54:00:12:34:56,any", .root_ms = DEF, .console_ms = DEF,
	  .net_ms = DEF, .timeout_ms = DEF },

	/* deadlines */
	{ "rootwait", .root_ms = FOREVER, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },
	{ "rootwait=5", .root_ms = 5000, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },
	{ "rootwait=0", .root_ms = 0, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },
	{ "rootdelay=10", .root_ms = 10000, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },
	{ "rootwait=5 rootdelay=10", .root_ms = 10000, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },
	{ "rootdelay=10 rootwait=15", .root_ms = 15000, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },
	{ "rootdelay=10 rootwait", .root_ms = FOREVER, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },
	/* rootwait and rootwait=N set one kernel variable: the last wins */
	{ "rootwait rootwait=5", .root_ms = 5000, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },
	{ "rootwait=5 rootwait", .root_ms = FOREVER, .console_ms = DEF, .net_ms = DEF,
	  .timeout_ms = DEF },
	{ "consolewait", .root_ms = DEF, .console_ms = FOREVER, .net_ms = DEF,
	  .timeout_ms = DEF },
	{ "consoledelay=250", .root_ms = DEF, .console_ms = 250, .net_ms = DEF,
	  .timeout_ms = DEF },
	{ "consolewait consoledelay=250", .root_ms = DEF, .console_ms = FOREVER,
	  .net_ms = DEF, .timeout_ms = DEF },
	{ "waitdev.timeout=3", .root_ms = 3000, .console_ms = 3000, .net_ms = 3000,
	  .timeout_ms = 3000 },
	{ "waitdev.timeout=2.5", .root_ms = 2500, .console_ms = 2500, .net_ms = 2500,
	  .timeout_ms = 2500 },
	{ "waitdev.timeout=0.010", .root_ms = 10, .console_ms = 10, .net_ms = 10,
	  .timeout_ms = 10 },
	{ "waitdev.timeout=forever", .root_ms = FOREVER, .console_ms = FOREVER,
	  .net_ms = FOREVER, .timeout_ms = FOREVER },
	/* waitdev.timeout= bounds everything, whatever the order */
	{ "waitdev.timeout=3 rootwait consolewait rootdelay=60", .root_ms = 3000,
	  .console_ms = 3000, .net_ms = 3000, .timeout_ms = 3000 },
	{ "rootwait consoledelay=5 waitdev.timeout=4", .root_ms = 4000,
	  .console_ms = 4000, .net_ms = 4000, .timeout_ms = 4000 },
};

static const char *type_name(enum spec_type t)
{
	static char buf[16];

	snprintf(buf, sizeof(buf), "type %d", (int)t);
	return buf;
}

static void join(char *out, size_t size, const char *sep, const char *const *items,
		 unsigned n)
{
	unsigned i;

	out[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strncat(out, sep, size - strlen(out) - 1);
		strncat(out, items[i], size - strlen(out) - 1);
	}
}

static void check_parse_case(const struct parse_case *c)
{
	struct wait_config cfg;
	char err[256] = "";
	char got[1024];
	const char *items[CMDLINE_LIST_MAX + CMDLINE_SKIPPED_MAX];
	uint64_t root_ms = c->root_ms == DEF ? DEFAULT_ROOT_MS : c->root_ms;
	uint64_t con_ms = c->console_ms == DEF ? DEFAULT_CONSOLE_MS : c->console_ms;
	uint64_t net_ms = c->net_ms == DEF ? DEFAULT_NET_MS : c->net_ms;
	unsigned i;
	int r;

	cmdline_config_init(&cfg);
	r = cmdline_parse(c->line, &cfg, err, sizeof(err));
	CHECK_MSG(r == 0, "\"%s\": returned %d (%s)", c->line, r, err);
	if (r != 0)
		return;

	CHECK_MSG(cfg.role[ROLE_ROOT].n == (c->root != NULL), "\"%s\": has_root %d",
		  c->line, cfg.role[ROLE_ROOT].n);
	if (c->root && cfg.role[ROLE_ROOT].n) {
		CHECK_MSG(cfg.role[ROLE_ROOT].spec[0].type == c->root_type,
			  "\"%s\": root %s", c->line,
			  type_name(cfg.role[ROLE_ROOT].spec[0].type));
		if (c->root_type != SPEC_BLOCK_DEVT)
			CHECK_STR(cfg.role[ROLE_ROOT].spec[0].value, c->root);
	}
	CHECK_MSG(cfg.role[ROLE_CONSOLE].n == (c->console != NULL),
		  "\"%s\": has_console %d", c->line, cfg.role[ROLE_CONSOLE].n);
	if (c->console && cfg.role[ROLE_CONSOLE].n) {
		CHECK_INT(cfg.role[ROLE_CONSOLE].spec[0].type, SPEC_CONSOLE_TTY);
		CHECK_STR(cfg.role[ROLE_CONSOLE].spec[0].value, c->console);
	}

	for (i = 0; i < cfg.role[ROLE_NET].n && i < CMDLINE_LIST_MAX; i++)
		items[i] = cfg.role[ROLE_NET].spec[i].value;
	join(got, sizeof(got), ",", items, i);
	CHECK_MSG(streq(got, c->net ? c->net : ""), "\"%s\": net \"%s\", expected \"%s\"",
		  c->line, got, c->net ? c->net : "");

	for (i = 0; i < cfg.n_skipped && i < CMDLINE_SKIPPED_MAX; i++)
		items[i] = cfg.skipped[i];
	join(got, sizeof(got), "|", items, i);
	CHECK_MSG(streq(got, c->skipped ? c->skipped : ""),
		  "\"%s\": skipped \"%s\", expected \"%s\"", c->line, got,
		  c->skipped ? c->skipped : "");

	CHECK_MSG(cfg.role[ROLE_ROOT].ms == root_ms,
		  "\"%s\": root_ms %" PRIu64 ", expected %" PRIu64, c->line,
		  cfg.role[ROLE_ROOT].ms, root_ms);
	CHECK_MSG(cfg.role[ROLE_CONSOLE].ms == con_ms,
		  "\"%s\": console_ms %" PRIu64 ", expected %" PRIu64, c->line,
		  cfg.role[ROLE_CONSOLE].ms, con_ms);
	CHECK_MSG(cfg.role[ROLE_NET].ms == net_ms,
		  "\"%s\": net_ms %" PRIu64 ", expected %" PRIu64, c->line,
		  cfg.role[ROLE_NET].ms, net_ms);
	CHECK_MSG(cfg.has_timeout == (c->timeout_ms != DEF), "\"%s\": has_timeout %d",
		  c->line, cfg.has_timeout);
	if (c->timeout_ms != DEF)
		CHECK_MSG(cfg.timeout_ms == c->timeout_ms, "\"%s\": timeout_ms %" PRIu64,
			  c->line, cfg.timeout_ms);
}

static void test_parse_ok(void)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(parse_cases); i++)
		check_parse_case(&parse_cases[i]);
}

/* Details the table does not hold. */
static void test_parse_details(void)
{
	struct wait_config cfg;
	char err[256];

	/* defaults, whatever was in the struct before */
	memset(&cfg, 0xa5, sizeof(cfg));
	cmdline_config_init(&cfg);
	CHECK(!cfg.role[ROLE_ROOT].n && !cfg.role[ROLE_CONSOLE].n && !cfg.has_timeout);
	CHECK_INT(cfg.role[ROLE_NET].n, 0);
	CHECK_INT(cfg.n_skipped, 0);
	CHECK_INT(cfg.role[ROLE_ROOT].ms, 180000);
	CHECK_INT(cfg.role[ROLE_CONSOLE].ms, 1000);
	CHECK_INT(cfg.role[ROLE_NET].ms, 30000);
	CHECK(DEADLINE_FOREVER == UINT64_MAX);

	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("root=8:1", &cfg, err, sizeof(err)), 0);
	CHECK_INT(cfg.role[ROLE_ROOT].spec[0].type, SPEC_BLOCK_DEVT);
	CHECK_INT(cfg.role[ROLE_ROOT].spec[0].major, 8);
	CHECK_INT(cfg.role[ROLE_ROOT].spec[0].minor, 1);
	CHECK_STR(cfg.role[ROLE_ROOT].spec[0].text, "8:1");

	/* waitdev.root=A|B: alternatives, best first; root= is one spec */
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("waitdev.root=LABEL=stick|/dev/vda1", &cfg, err,
				sizeof(err)),
		  0);
	CHECK(cfg.role[ROLE_ROOT].alternatives);
	CHECK_INT(cfg.role[ROLE_ROOT].n, 2);
	CHECK_INT(cfg.role[ROLE_ROOT].spec[0].type, SPEC_BLOCK_LABEL);
	CHECK_STR(cfg.role[ROLE_ROOT].spec[1].value, "vda1");
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("root=LABEL=a|b", &cfg, err, sizeof(err)), 0);
	CHECK(!cfg.role[ROLE_ROOT].alternatives);
	CHECK_INT(cfg.role[ROLE_ROOT].n, 1);
	CHECK_STR(cfg.role[ROLE_ROOT].spec[0].value, "a|b");
	/* a later single spec replaces the list */
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("waitdev.root=sda|vda waitdev.root=vdb", &cfg, err,
				sizeof(err)),
		  0);
	CHECK(!cfg.role[ROLE_ROOT].alternatives);
	CHECK_INT(cfg.role[ROLE_ROOT].n, 1);

	/* waitdev.settle=: off by default, the last one wins */
	cmdline_config_init(&cfg);
	CHECK(!cfg.settle);
	CHECK_INT(cmdline_parse("waitdev.settle=1", &cfg, err, sizeof(err)), 0);
	CHECK(cfg.settle);
	CHECK_INT(cmdline_parse("waitdev.settle=1 waitdev.settle=0", &cfg, err,
				sizeof(err)),
		  0);
	CHECK(!cfg.settle);

	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("root=801", &cfg, err, sizeof(err)), 0);
	CHECK_INT(cfg.role[ROLE_ROOT].spec[0].type, SPEC_BLOCK_DEVT);
	CHECK_INT(cfg.role[ROLE_ROOT].spec[0].major, 8);
	CHECK_INT(cfg.role[ROLE_ROOT].spec[0].minor, 1);

	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("root=PARTUUID=0badcafe-02/PARTNROFF=-1", &cfg, err,
				sizeof(err)),
		  0);
	CHECK_INT(cfg.role[ROLE_ROOT].spec[0].type, SPEC_BLOCK_PARTUUID);
	CHECK_STR(cfg.role[ROLE_ROOT].spec[0].value, "0badcafe-02");
	CHECK(cfg.role[ROLE_ROOT].spec[0].has_partnroff);
	CHECK_INT(cfg.role[ROLE_ROOT].spec[0].partnroff, -1);

	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("console=ttyS0,115200n8", &cfg, err, sizeof(err)), 0);
	CHECK_STR(cfg.role[ROLE_CONSOLE].spec[0].text, "ttyS0,115200n8");

	/* net states come through */
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("waitdev.net=eth0:carrier,any:up,eth1", &cfg, err,
				sizeof(err)),
		  0);
	CHECK_INT(cfg.role[ROLE_NET].n, 3);
	CHECK_INT(cfg.role[ROLE_NET].spec[0].type, SPEC_NET_NAME);
	CHECK_INT(cfg.role[ROLE_NET].spec[0].net_state, NET_CARRIER);
	CHECK_INT(cfg.role[ROLE_NET].spec[1].type, SPEC_NET_ANY);
	CHECK_INT(cfg.role[ROLE_NET].spec[1].net_state, NET_UP);
	CHECK_INT(cfg.role[ROLE_NET].spec[2].net_state, NET_EXISTS);

	/* more skipped consoles than slots: no overflow, the tty wins */
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("console=lp0 console=lp1 console=lp2 "
				"console=lp3 console=lp4 console=lp5 "
				"console=lp6 console=lp7 console=lp8 "
				"console=lp9 console=ttyS3 root=/dev/nfs",
				&cfg, err, sizeof(err)),
		  0);
	CHECK_INT(cfg.n_skipped, CMDLINE_SKIPPED_MAX);
	CHECK_STR(cfg.skipped[0], "console=lp0");
	CHECK_STR(cfg.skipped[CMDLINE_SKIPPED_MAX - 1], "console=lp7");
	CHECK(cfg.role[ROLE_CONSOLE].n);
	CHECK_STR(cfg.role[ROLE_CONSOLE].spec[0].value, "ttyS3");
	CHECK(!cfg.role[ROLE_ROOT].n);

	/* the off switch, in both spellings; the last one wins */
	{
		static const struct {
			const char *line;
			bool off;
		} offs[] = {
			{ "root=/dev/sda1", false },
			{ "waitdev=0 root=/dev/sda1", true },
			{ "rd.waitdev=0", true },
			{ "rd.waitdev=n", true },
			{ "waitdev=0 rd.waitdev=1", false },
			{ "waitdev=1 waitdev=0", true },
			{ "waitdev", false },
			{ "waitdev=0 -- waitdev=1", true },
		};
		unsigned i;

		for (i = 0; i < ARRAY_SIZE(offs); i++) {
			cmdline_config_init(&cfg);
			CHECK_INT(cmdline_parse(offs[i].line, &cfg, err, sizeof(err)), 0);
			CHECK_MSG(cfg.off == offs[i].off, "\"%s\": off %d", offs[i].line,
				  cfg.off);
			CHECK_INT(cfg.n_problems, 0);
		}
	}

	/* a NULL or zero-sized err buffer is fine */
	cmdline_config_init(&cfg);
	cfg.strict = true;
	CHECK_INT(cmdline_parse("rootdelay=x", &cfg, NULL, 0), -EINVAL);
	CHECK_INT(cmdline_parse("rootdelay=x", &cfg, err, 0), -EINVAL);
}

/* ---- cmdline_parse: problems, strict and tolerant ------------------ */

/* What a tolerant parse did with the problem. */
enum outcome {
	IGNORED,      /* the parameter had no effect */
	ROOT_FAILS,   /* cfg.role[ROLE_ROOT].invalid */
	CONSOLE_FAILS /* cfg.role[ROLE_CONSOLE].invalid */
};

struct bad_case {
	const char *line;
	const char *key; /* must appear in the message */
	enum outcome outcome;
};

static const struct bad_case bad_cases[] = {
	{ "rootdelay", "rootdelay", IGNORED },
	{ "waitdev.timeout=1.2.3", "waitdev.timeout", IGNORED },
	{ "waitdev.timeout=", "waitdev.timeout", IGNORED },
	{ "waitdev.timeout", "waitdev.timeout", IGNORED },
	{ "waitdev.timeout=.5", "waitdev.timeout", IGNORED },
	{ "waitdev.timeout=-3", "waitdev.timeout", IGNORED },
	{ "waitdev.timeout=never", "waitdev.timeout", IGNORED },
	{ "waitdev.modprobe=yes", "waitdev.modprobe", IGNORED },
	{ "waitdev.settle=usb", "waitdev.settle", IGNORED },
	{ "waitdev.root=sda||vda", "empty alternative", ROOT_FAILS },
	{ "waitdev.root=sda|UUID=", "alternative 2", ROOT_FAILS },
	{ "waitdev.root=|sda", "waitdev.root", ROOT_FAILS },
	{ "waitdev.root=sda|sdb|sdc|sdd|sde|sdf|sdg|sdh|sdi|sdj|sdk|sdl|sdm|sdn|sdo|sdp|sdq",
	  "more than 16", ROOT_FAILS },
	{ "waitdev=off", "waitdev=off", IGNORED },
	{ "rd.waitdev=", "rd.waitdev", IGNORED },
	{ "consoledelay=x", "consoledelay", IGNORED },
	{ "consoledelay=", "consoledelay", IGNORED },
	{ "consoledelay=1.5", "consoledelay", IGNORED },
	{ "consolewait=5", "consolewait", IGNORED },
	{ "consolewait=", "consolewait", IGNORED },
	{ "waitdev.bogus=1", "waitdev.bogus", IGNORED },
	{ "waitdev.bogus", "waitdev.bogus", IGNORED },
	{ "waitdev.rootwait", "waitdev.rootwait", IGNORED },
	{ "waitdev.root", "waitdev.root", IGNORED },
	{ "waitdev.console", "waitdev.console", IGNORED },
	{ "waitdev.net", "waitdev.net", IGNORED },
	{ "root", "root", IGNORED },
	{ "console", "console", IGNORED },
	{ "waitdev.net=eth0:down", "waitdev.net", IGNORED },
	{ "waitdev.net=,,,", "waitdev.net", IGNORED },
	{ "waitdev.net=eth0,a/b", "waitdev.net", IGNORED },
	{ "waitdev.net=abcdefghijklmnop", "waitdev.net", IGNORED },
	{ "root=", "root", ROOT_FAILS },
	{ "root=/dev/sda1 root=", "root", ROOT_FAILS },
	{ "waitdev.root=/dev/", "waitdev.root", ROOT_FAILS },
	{ "waitdev.root=UUID=", "waitdev.root", ROOT_FAILS },
	{ "waitdev.root=PARTUUID=xyz", "waitdev.root", ROOT_FAILS },
	{ "waitdev.root=/dev/disk/by-foo/x", "waitdev.root", ROOT_FAILS },
	/* waitdev.root= decides, even when root= is good */
	{ "root=/dev/sda1 waitdev.root=UUID=", "waitdev.root", ROOT_FAILS },
	{ "root=live:CDLABEL=x", "root", ROOT_FAILS },
	{ "root=ZFS=rpool/root", "root", ROOT_FAILS },
	{ "root=99999:1", "root", ROOT_FAILS },
	{ "console=tty/0", "console", CONSOLE_FAILS },
	{ "console=ttyS0 console=tty/0", "console", CONSOLE_FAILS },
	{ "waitdev.console=,115200", "waitdev.console", CONSOLE_FAILS },
	/* the bad key is found before the kernel/init separator */
	{ "quiet waitdev.bogus=1 -- waitdev.timeout=3", "waitdev.bogus", IGNORED },
	/* read the kernel's way: strict calls them problems */
	{ "rootdelay=abc", "rootdelay", IGNORED },
	{ "rootdelay=", "rootdelay", IGNORED },
	{ "rootdelay=-1", "rootdelay", IGNORED },
	{ "rootdelay=1e3", "rootdelay", IGNORED },
	{ "rootdelay=99999999999999999999999", "rootdelay", IGNORED },
	{ "rootwait=abc", "rootwait", IGNORED },
	{ "rootwait=", "rootwait", IGNORED },
	{ "rootwait=1.", "rootwait", IGNORED },
	{ "root=/dev/sda1 rootdelay=abc root=/dev/sdb1", "rootdelay", IGNORED },
};

/* --strict: the first problem ends the parse, its key named */
static void check_bad_strict(const struct bad_case *c)
{
	struct wait_config cfg;
	char err[256] = "";
	int r;

	cmdline_config_init(&cfg);
	cfg.strict = true;
	r = cmdline_parse(c->line, &cfg, err, sizeof(err));
	CHECK_MSG(r == -EINVAL, "strict \"%s\": returned %d, expected -EINVAL", c->line,
		  r);
	CHECK_MSG(strstr(err, c->key) != NULL,
		  "strict \"%s\": message \"%s\" does not name %s", c->line, err, c->key);
	CHECK_MSG(!strchr(err, '\n'), "\"%s\": message has a newline", c->line);
	CHECK_INT(cfg.n_problems, 0);
}

/* tolerant: the parse goes on, the problem is kept, and only its own
 * target is touched */
static void check_bad_tolerant(const struct bad_case *c)
{
	struct wait_config cfg;
	char err[256] = "";
	char line[512];
	int r;

	/* a good console and net beside it must survive any root problem,
	 * a good root and net any console problem */
	snprintf(line, sizeof(line), "%s waitdev.net=eth9 %s",
		 c->outcome == CONSOLE_FAILS ? "root=/dev/vdz" : "console=ttyS7",
		 c->line);
	cmdline_config_init(&cfg);
	r = cmdline_parse(line, &cfg, err, sizeof(err));
	CHECK_MSG(r == 0, "tolerant \"%s\": returned %d (%s)", line, r, err);
	CHECK_MSG(cfg.n_problems >= 1, "tolerant \"%s\": no problem kept", line);
	if (cfg.n_problems < 1)
		return;
	CHECK_MSG(strstr(cfg.problems[0], c->key) != NULL,
		  "tolerant \"%s\": problem \"%s\" does not name %s", line,
		  cfg.problems[0], c->key);
	CHECK_MSG(!strchr(cfg.problems[0], '\n'), "\"%s\": problem has a newline", line);
	CHECK_MSG(cfg.role[ROLE_ROOT].invalid == (c->outcome == ROOT_FAILS),
		  "tolerant \"%s\": root_invalid %d", line, cfg.role[ROLE_ROOT].invalid);
	CHECK_MSG(cfg.role[ROLE_CONSOLE].invalid == (c->outcome == CONSOLE_FAILS),
		  "tolerant \"%s\": console_invalid %d", line,
		  cfg.role[ROLE_CONSOLE].invalid);
	if (c->outcome == CONSOLE_FAILS) {
		CHECK_MSG(!cfg.role[ROLE_CONSOLE].n, "tolerant \"%s\": has a console",
			  line);
		CHECK_MSG(cfg.role[ROLE_ROOT].n &&
				  streq(cfg.role[ROLE_ROOT].spec[0].value, "vdz"),
			  "tolerant \"%s\": root lost", line);
	} else {
		CHECK_MSG(cfg.role[ROLE_CONSOLE].n &&
				  streq(cfg.role[ROLE_CONSOLE].spec[0].value, "ttyS7"),
			  "tolerant \"%s\": console lost", line);
	}
	if (c->outcome == ROOT_FAILS)
		CHECK_MSG(!cfg.role[ROLE_ROOT].n, "tolerant \"%s\": has a root", line);
	CHECK_MSG(cfg.role[ROLE_NET].n == 1 &&
			  streq(cfg.role[ROLE_NET].spec[0].value, "eth9"),
		  "tolerant \"%s\": net lost", line);
}

static void test_parse_bad(void)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		check_bad_strict(&bad_cases[i]);
		check_bad_tolerant(&bad_cases[i]);
	}
}

/* More problems than slots: all counted, the first kept, no overflow. */
static void test_parse_many_problems(void)
{
	struct wait_config cfg;
	char err[256];

	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("waitdev.a waitdev.b waitdev.c waitdev.d waitdev.e "
				"waitdev.f waitdev.g waitdev.h waitdev.i waitdev.j "
				"root=/dev/sda2",
				&cfg, err, sizeof(err)),
		  0);
	CHECK_INT(cfg.n_problems, 10);
	CHECK_MSG(strncmp(cfg.problems[0], "waitdev.a:", 10) == 0, "\"%s\"",
		  cfg.problems[0]);
	CHECK_MSG(strncmp(cfg.problems[CMDLINE_PROBLEMS_MAX - 1], "waitdev.h:", 10) == 0,
		  "\"%s\"", cfg.problems[CMDLINE_PROBLEMS_MAX - 1]);
	CHECK(cfg.role[ROLE_ROOT].n && streq(cfg.role[ROLE_ROOT].spec[0].value, "sda2"));

	/* a bad value leaves the good one before it (fuzz/crashes/cmdline/
	 * crash-5f9a03...: a number too large was stored, then refused) */
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("consoledelay=5 consoledelay=116666666666667725 "
				"waitdev.timeout=3 waitdev.timeout=99999999999999999999",
				&cfg, err, sizeof(err)),
		  0);
	CHECK_INT(cfg.n_problems, 2);
	CHECK_INT(cfg.role[ROLE_CONSOLE].ms, 3000);
	CHECK_INT(cfg.timeout_ms, 3000);
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("consoledelay=5 consoledelay=116666666666667725", &cfg,
				err, sizeof(err)),
		  0);
	CHECK_INT(cfg.role[ROLE_CONSOLE].ms, 5);

	/* waitdev.strict=1 wherever it stands: the first problem is fatal */
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("waitdev.bogus=1 rootdelay=abc waitdev.strict=1", &cfg,
				err, sizeof(err)),
		  -EINVAL);
	CHECK_STR(err, "waitdev.bogus: unknown waitdev key");
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("waitdev.strict=1 waitdev.strict=0 waitdev.bogus=1", &cfg,
				err, sizeof(err)),
		  0);
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("waitdev.strict root=/dev/sda1", &cfg, err, sizeof(err)),
		  0);
	CHECK(cfg.role[ROLE_ROOT].n);

	/* a bad waitdev.net= leaves the good one before it */
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("waitdev.net=eth1,eth2 waitdev.net=eth3,a/b", &cfg, err,
				sizeof(err)),
		  0);
	CHECK_INT(cfg.role[ROLE_NET].n, 2);
	CHECK_STR(cfg.role[ROLE_NET].spec[1].value, "eth2");
	CHECK_INT(cfg.n_problems, 1);
}

/*
 * The kernel's own keys, read as the kernel reads them (6.1 and 6.12):
 * the value the kernel takes, and whether a tolerant parse says so.
 */
struct kernel_case {
	const char *line;
	const char *root;    /* root value, NULL for none */
	const char *console; /* console value, NULL for none */
	uint64_t root_ms;    /* DEF: the default */
	bool note;	     /* a problem that says how it was read */
};

static const struct kernel_case kernel_cases[] = {
	/* lib/ctype.c: 0xA0 is a blank to the kernel's isspace() */
	{ "root=/dev/vda\xa0quiet", "vda", NULL, DEF, false },
	{ "\xa0root=/dev/vdb\xa0\xa0rootwait\xa0", "vdb", NULL, FOREVER, false },
	/* console_setup(): "" and "null" are ttynull, no tty to wait for */
	{ "console=", NULL, NULL, DEF, false },
	{ "console=\"\"", NULL, NULL, DEF, false },
	{ "console=null", NULL, NULL, DEF, false },
	{ "console=ttynull", NULL, NULL, DEF, false },
	{ "console=brl,ttyS0", NULL, NULL, DEF, false },
	{ "console=ttyS1 console=", NULL, "ttyS1", DEF, false },
	/* the name runs to the first digit, the index is what follows */
	{ "console=ttyS00", NULL, "ttyS0", DEF, true },
	{ "console=ttyS0n", NULL, "ttyS0", DEF, true },
	{ "console=ttyS01,115200", NULL, "ttyS1", DEF, true },
	{ "console=ttyS", NULL, "ttyS0", DEF, false },
	{ "console=0", NULL, "ttyS0", DEF, false },
	{ "console=ttyUSB10,9600n8", NULL, "ttyUSB10", DEF, false },
	{ "console=hvc0", NULL, "hvc0", DEF, false },
	/* root_delay_setup(): simple_strtoul(, 0) */
	{ "rootdelay=0x10", NULL, NULL, 16000, true },
	{ "rootdelay=010", NULL, NULL, 8000, true },
	{ "rootdelay=10s", NULL, NULL, 10000, true },
	{ "rootdelay=abc", NULL, NULL, 0, true },
	{ "rootdelay=-1", NULL, NULL, 0, true },
	{ "rootdelay=0x", NULL, NULL, 0, true },
	{ "rootdelay=1.5", NULL, NULL, 1500, false }, /* waitdev's reading */
	/* rootwait_timeout_setup() (6.5+): kstrtoint(, 0), else forever */
	{ "rootwait=0x10", NULL, NULL, 16000, true },
	{ "rootwait=+7", NULL, NULL, 7000, true },
	{ "rootwait=\"7\n\"", NULL, NULL, 7000, true },
	{ "rootwait=-1", NULL, NULL, FOREVER, true },
	{ "rootwait=10s", NULL, NULL, FOREVER, true },
	{ "rootwait=1.5", NULL, NULL, FOREVER, true },
	{ "rootwait=2147484", NULL, NULL, FOREVER, true },
	{ "rootwait=2147483", NULL, NULL, 2147483000ULL, false },
	{ "rootwait=12", NULL, NULL, 12000, false },
};

static void test_parse_kernel_keys(void)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(kernel_cases); i++) {
		const struct kernel_case *c = &kernel_cases[i];
		uint64_t root_ms = c->root_ms == DEF ? DEFAULT_ROOT_MS : c->root_ms;
		struct wait_config cfg;
		char err[256] = "";
		int r;

		cmdline_config_init(&cfg);
		r = cmdline_parse(c->line, &cfg, err, sizeof(err));
		CHECK_MSG(r == 0, "\"%s\": returned %d (%s)", c->line, r, err);
		CHECK_MSG(cfg.role[ROLE_ROOT].n == (c->root != NULL) &&
				  (!c->root ||
				   streq(cfg.role[ROLE_ROOT].spec[0].value, c->root)),
			  "\"%s\": root \"%s\"", c->line,
			  cfg.role[ROLE_ROOT].n ? cfg.role[ROLE_ROOT].spec[0].value : "");
		CHECK_MSG(
			cfg.role[ROLE_CONSOLE].n == (c->console != NULL) &&
				(!c->console ||
				 streq(cfg.role[ROLE_CONSOLE].spec[0].value, c->console)),
			"\"%s\": console \"%s\"", c->line,
			cfg.role[ROLE_CONSOLE].n ? cfg.role[ROLE_CONSOLE].spec[0].value
						 : "");
		CHECK_MSG(cfg.role[ROLE_ROOT].ms == root_ms, "\"%s\": root_ms %" PRIu64,
			  c->line, cfg.role[ROLE_ROOT].ms);
		CHECK_MSG(cfg.n_problems == (c->note ? 1U : 0U),
			  "\"%s\": %u problems (%s)", c->line, cfg.n_problems,
			  cfg.n_problems ? cfg.problems[0] : "");
		CHECK(!cfg.role[ROLE_ROOT].invalid && !cfg.role[ROLE_CONSOLE].invalid);
		/* strict: what needs a note is a problem */
		cmdline_config_init(&cfg);
		cfg.strict = true;
		r = cmdline_parse(c->line, &cfg, err, sizeof(err));
		CHECK_MSG(r == (c->note ? -EINVAL : 0), "strict \"%s\": returned %d",
			  c->line, r);
	}
}

static void test_parse_long(void)
{
	struct wait_config cfg;
	char err[256] = "";
	char *line = malloc(CMDLINE_MAX + 2);
	size_t i;

	/* exactly CMDLINE_MAX bytes is fine, one more is not */
	for (i = 0; i < CMDLINE_MAX; i++)
		line[i] = i % 8 == 7 ? ' ' : 'q';
	memcpy(line + CMDLINE_MAX - 14, " root=/dev/sdc", 14);
	line[CMDLINE_MAX] = '\0';
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse(line, &cfg, err, sizeof(err)), 0);
	CHECK(cfg.role[ROLE_ROOT].n);
	CHECK_STR(cfg.role[ROLE_ROOT].spec[0].value, "sdc");

	line[CMDLINE_MAX] = 'q';
	line[CMDLINE_MAX + 1] = '\0';
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse(line, &cfg, err, sizeof(err)), -EINVAL);
	CHECK_MSG(strstr(err, "longer") != NULL, "message \"%s\"", err);
	CHECK(!cfg.role[ROLE_ROOT].n);
	free(line);

	/* one huge value: strict, an error; tolerant, the root wait fails */
	line = malloc(4096);
	memcpy(line, "root=/dev/", 10);
	memset(line + 10, 'a', 4000);
	line[4010] = '\0';
	cmdline_config_init(&cfg);
	cfg.strict = true;
	CHECK_INT(cmdline_parse(line, &cfg, err, sizeof(err)), -EINVAL);
	CHECK_MSG(strstr(err, "root") != NULL, "message \"%s\"", err);
	CHECK_MSG(strlen(err) < sizeof(err), "message \"%s\"", err);
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse(line, &cfg, err, sizeof(err)), 0);
	CHECK(!cfg.role[ROLE_ROOT].n && cfg.role[ROLE_ROOT].invalid);
	CHECK_INT(cfg.n_problems, 1);
	CHECK_MSG(strncmp(cfg.problems[0], "root=/dev/aaa", 13) == 0, "problem \"%s\"",
		  cfg.problems[0]);
	free(line);
}

/* ---- cmdline_parse_list ---------------------------------------------- */

static void test_net_list(void)
{
	struct wait_config cfg;
	char err[256] = "";
	char list[2048];
	unsigned i;

	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse_list(&role_table[ROLE_NET], "--net", "eth0,enp*:up",
				     &cfg.role[ROLE_NET], err, sizeof(err)),
		  0);
	CHECK_INT(cfg.role[ROLE_NET].n, 2);
	CHECK_STR(cfg.role[ROLE_NET].spec[0].value, "eth0");
	CHECK_INT(cfg.role[ROLE_NET].spec[1].type, SPEC_NET_GLOB);
	CHECK_STR(cfg.role[ROLE_NET].spec[1].value, "enp*");
	CHECK_INT(cfg.role[ROLE_NET].spec[1].net_state, NET_UP);

	/* replaces, not appends */
	CHECK_INT(cmdline_parse_list(&role_table[ROLE_NET], "--net", "52-54-00-12-34-56",
				     &cfg.role[ROLE_NET], err, sizeof(err)),
		  0);
	CHECK_INT(cfg.role[ROLE_NET].n, 1);
	CHECK_INT(cfg.role[ROLE_NET].spec[0].type, SPEC_NET_MAC);
	CHECK_INT(cfg.role[ROLE_NET].spec[0].mac[5], 0x56);

	/* empty commas around specs are skipped */
	CHECK_INT(cmdline_parse_list(&role_table[ROLE_NET], "--net", ",eth0,,eth1,",
				     &cfg.role[ROLE_NET], err, sizeof(err)),
		  0);
	CHECK_INT(cfg.role[ROLE_NET].n, 2);
	CHECK_STR(cfg.role[ROLE_NET].spec[1].value, "eth1");

	/* empty: no wait */
	CHECK_INT(cmdline_parse_list(&role_table[ROLE_NET], "--net", "",
				     &cfg.role[ROLE_NET], err, sizeof(err)),
		  0);
	CHECK_INT(cfg.role[ROLE_NET].n, 0);

	/* errors name the key given */
	err[0] = '\0';
	CHECK_INT(cmdline_parse_list(&role_table[ROLE_NET], "--net", "eth0:down",
				     &cfg.role[ROLE_NET], err, sizeof(err)),
		  -EINVAL);
	CHECK_MSG(strstr(err, "--net") && strstr(err, "down"), "message \"%s\"", err);
	err[0] = '\0';
	CHECK_INT(cmdline_parse_list(&role_table[ROLE_NET], "--net", ",",
				     &cfg.role[ROLE_NET], err, sizeof(err)),
		  -EINVAL);
	CHECK_MSG(strstr(err, "--net") != NULL, "message \"%s\"", err);

	/* CMDLINE_LIST_MAX interfaces, then one too many */
	list[0] = '\0';
	for (i = 0; i < CMDLINE_LIST_MAX; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%seth%u",
			 i ? "," : "", i);
	CHECK_INT(cmdline_parse_list(&role_table[ROLE_NET], "--net", list,
				     &cfg.role[ROLE_NET], err, sizeof(err)),
		  0);
	CHECK_INT(cfg.role[ROLE_NET].n, CMDLINE_LIST_MAX);
	CHECK_STR(cfg.role[ROLE_NET].spec[CMDLINE_LIST_MAX - 1].value, "eth15");
	strcat(list, ",eth99");
	err[0] = '\0';
	CHECK_INT(cmdline_parse_list(&role_table[ROLE_NET], "--net", list,
				     &cfg.role[ROLE_NET], err, sizeof(err)),
		  -EINVAL);
	CHECK_MSG(strstr(err, "--net") != NULL, "message \"%s\"", err);

	/* longer than the copy buffer */
	memset(list, 'e', sizeof(list) - 1);
	list[sizeof(list) - 1] = '\0';
	err[0] = '\0';
	CHECK_INT(cmdline_parse_list(&role_table[ROLE_NET], "waitdev.net", list,
				     &cfg.role[ROLE_NET], err, sizeof(err)),
		  -EINVAL);
	CHECK_MSG(strstr(err, "waitdev.net") != NULL, "message \"%s\"", err);
}

/* ---- cmdline_parse_file ---------------------------------------------- */

static char tmpdir[] = "/tmp/waitdev-test-cmdline.XXXXXX";

static const char *write_tmp(const char *name, const char *data, size_t len)
{
	static char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	if (fd < 0)
		return path;
	CHECK(write(fd, data, len) == (ssize_t)len);
	close(fd);
	return path;
}

static void test_parse_file(void)
{
	static const char withnul[] = "root=/dev/sda1\0 rootwait\n";
	struct wait_config cfg;
	char err[256] = "";
	const char *path;
	char *big;

	if (!mkdtemp(tmpdir)) {
		CHECK_MSG(0, "mkdtemp: %s", strerror(errno));
		return;
	}

	path = write_tmp("plain", "root=/dev/sda1 rootwait",
			 strlen("root=/dev/sda1 rootwait"));
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse_file(path, &cfg, err, sizeof(err)), 0);
	CHECK(cfg.role[ROLE_ROOT].n);
	CHECK_STR(cfg.role[ROLE_ROOT].spec[0].value, "sda1");
	CHECK(cfg.role[ROLE_ROOT].ms == DEADLINE_FOREVER);

	/* /proc/cmdline ends with a newline */
	path = write_tmp("newline", HOST_LINE "\n", strlen(HOST_LINE) + 1);
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse_file(path, &cfg, err, sizeof(err)), 0);
	CHECK(!cfg.role[ROLE_ROOT].n);
	CHECK(cfg.role[ROLE_CONSOLE].n);
	CHECK_STR(cfg.role[ROLE_CONSOLE].spec[0].value, "ttyS0");
	CHECK_INT(cfg.role[ROLE_ROOT].ms, DEFAULT_ROOT_MS);

	path = write_tmp("quoted", "waitdev.root=\"LABEL=my disk\"\n",
			 strlen("waitdev.root=\"LABEL=my disk\"\n"));
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse_file(path, &cfg, err, sizeof(err)), 0);
	CHECK_INT(cfg.role[ROLE_ROOT].spec[0].type, SPEC_BLOCK_LABEL);
	CHECK_STR(cfg.role[ROLE_ROOT].spec[0].value, "my disk");

	path = write_tmp("empty", "", 0);
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse_file(path, &cfg, err, sizeof(err)), 0);
	CHECK(!cfg.role[ROLE_ROOT].n && !cfg.role[ROLE_CONSOLE].n &&
	      cfg.role[ROLE_NET].n == 0);

	path = write_tmp("nul", withnul, sizeof(withnul) - 1);
	cmdline_config_init(&cfg);
	err[0] = '\0';
	CHECK_INT(cmdline_parse_file(path, &cfg, err, sizeof(err)), -EINVAL);
	CHECK_MSG(strstr(err, "NUL") != NULL, "message \"%s\"", err);
	CHECK(!cfg.role[ROLE_ROOT].n);

	path = write_tmp("bad", "quiet rootdelay=soon\n",
			 strlen("quiet rootdelay=soon\n"));
	cmdline_config_init(&cfg);
	cfg.strict = true;
	err[0] = '\0';
	CHECK_INT(cmdline_parse_file(path, &cfg, err, sizeof(err)), -EINVAL);
	CHECK_MSG(strstr(err, "rootdelay") != NULL, "message \"%s\"", err);

	big = malloc(CMDLINE_MAX + 100);
	memset(big, 'x', CMDLINE_MAX + 100);
	path = write_tmp("big", big, CMDLINE_MAX + 100);
	free(big);
	cmdline_config_init(&cfg);
	err[0] = '\0';
	CHECK_INT(cmdline_parse_file(path, &cfg, err, sizeof(err)), -EINVAL);
	CHECK_MSG(strstr(err, "longer") != NULL, "message \"%s\"", err);

	path = write_tmp("missing", "", 0);
	unlink(path);
	cmdline_config_init(&cfg);
	err[0] = '\0';
	CHECK_INT(cmdline_parse_file(path, &cfg, err, sizeof(err)), -ENOENT);
	CHECK_MSG(strstr(err, path) != NULL, "message \"%s\"", err);

	/* a directory: read() fails with EISDIR */
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse_file(tmpdir, &cfg, err, sizeof(err)), -EISDIR);

	unlink(write_tmp("plain", "", 0));
	unlink(write_tmp("newline", "", 0));
	unlink(write_tmp("quoted", "", 0));
	unlink(write_tmp("empty", "", 0));
	unlink(write_tmp("nul", "", 0));
	unlink(write_tmp("bad", "", 0));
	unlink(write_tmp("big", "", 0));
	CHECK(rmdir(tmpdir) == 0);
}

/* ---- the role table --------------------------------------------------- */

/* Every row is reachable as it says: by id, by its waitdev.NAME= key,
 * with its default deadline, and as a list only when it takes one. */
static void test_roles(void)
{
	struct wait_config cfg;
	char err[256], line[128];
	unsigned i, j;

	CHECK(role_get(ROLE_COUNT) == NULL);
	cmdline_config_init(&cfg);
	for (i = 0; i < ROLE_COUNT; i++) {
		const struct role *role = role_get(i);

		CHECK_INT(role->id, i);
		CHECK(role->name && role->shell_var && role->parse);
		CHECK(cfg.role[i].ms == role->default_ms);
		for (j = 0; j < i; j++) {
			CHECK(!streq(role->name, role_get(j)->name));
			CHECK(!streq(role->shell_var, role_get(j)->shell_var));
		}
	}

	/* waitdev.NAME= for each row, a spec valid for all three kinds */
	for (i = 0; i < ROLE_COUNT; i++) {
		const char *spec = i == ROLE_CONSOLE ? "ttyS1" : "sdz1";

		cmdline_config_init(&cfg);
		snprintf(line, sizeof(line), "waitdev.%s=%s", role_get(i)->name, spec);
		CHECK_INT(cmdline_parse(line, &cfg, err, sizeof(err)), 0);
		CHECK_INT(cfg.n_problems, 0);
		CHECK_INT(cfg.role[i].n, 1);
		CHECK_STR(cfg.role[i].spec[0].text, spec);
	}

	/* only a list role takes a list */
	for (i = 0; i < ROLE_COUNT; i++) {
		struct role_config rc;
		int r = cmdline_parse_list(role_get(i), "k", "sda1,sdb1", &rc, err,
					   sizeof(err));

		CHECK_INT(r, role_get(i)->list ? 0 : -EINVAL);
		if (r == 0)
			CHECK_INT(rc.n, 2);
	}
}

/* rootfstype=: the types the kernel will mount the root as; the last
 * wins, a malformed one is a problem and leaves the one before. */
static void test_rootfstype(void)
{
	static const struct {
		const char *line;
		const char *want;
		unsigned problems;
	} cases[] = {
		{ "root=/dev/sda1", "", 0 },
		{ "root=/dev/sda1 rootfstype=ext4", "ext4", 0 },
		{ "rootfstype=ext4,btrfs root=UUID=x", "ext4,btrfs", 0 },
		{ "rootfstype=xfs rootfstype=ext4", "ext4", 0 },
		{ "rootfstype=\"vfat\"", "vfat", 0 },
		{ "rootfstype=fuse.sshfs", "fuse.sshfs", 0 },
		{ "rootfstype=", "", 0 },
		{ "rootfstype", "", 1 },
		{ "rootfstype=ext4 rootfstype", "ext4", 1 },
		{ "rootfstype=ext4 rootfstype=e/x", "ext4", 1 },
		{ "rootfstype=ext4;reboot", "", 1 },
		{ "rootfstype=ext\xa0"
		  "4",
		  "ext", 0 },			      /* 0xA0 is the kernel's blank */
		{ "-- rootfstype=ext4", "", 0 },      /* init's */
		{ "waitdev.rootfstype=ext4", "", 1 }, /* not ours */
	};
	char long_line[CMDLINE_FSTYPES_MAX + 32];
	struct wait_config cfg;
	char err[256];
	unsigned i;
	int r;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cmdline_config_init(&cfg);
		r = cmdline_parse(cases[i].line, &cfg, err, sizeof(err));
		CHECK_MSG(r == 0, "\"%s\": returned %d", cases[i].line, r);
		CHECK_MSG(streq(cfg.rootfstype, cases[i].want),
			  "\"%s\": rootfstype \"%s\", expected \"%s\"", cases[i].line,
			  cfg.rootfstype, cases[i].want);
		CHECK_MSG(cfg.n_problems == cases[i].problems, "\"%s\": %u problems (%s)",
			  cases[i].line, cfg.n_problems,
			  cfg.n_problems ? cfg.problems[0] : "");
	}
	/* past the buffer: a problem, nothing half-kept */
	snprintf(long_line, sizeof(long_line), "rootfstype=%0*d", CMDLINE_FSTYPES_MAX, 0);
	cmdline_config_init(&cfg);
	CHECK(cmdline_parse(long_line, &cfg, err, sizeof(err)) == 0);
	CHECK(cfg.rootfstype[0] == '\0' && cfg.n_problems == 1);
	/* strict: the problem ends the parse */
	cmdline_config_init(&cfg);
	cfg.strict = true;
	CHECK(cmdline_parse("rootfstype=a/b", &cfg, err, sizeof(err)) == -EINVAL);
}

/* waitdev.stack=: the bottom of a stacked root, a list of block specs
 * that shares the root's deadline */
static void test_stack(void)
{
	struct wait_config cfg;
	char err[256];
	const struct role_config *stack = &cfg.role[ROLE_STACK];

	cmdline_config_init(&cfg);
	CHECK_INT(stack->ms, 180000);
	CHECK_INT(cmdline_parse("waitdev.stack=UUID=bce4de64-ab45-4643-83ad-"
				"9b68ad13d8fb,UUID=VhRpli-ox8S-eLoi-xHha-0nTw-adEO-"
				"p6KDly,PARTUUID=0badcafe-02",
				&cfg, err, sizeof(err)),
		  0);
	CHECK_INT(cfg.n_problems, 0);
	CHECK_INT(stack->n, 3);
	CHECK_INT(stack->spec[0].type, SPEC_BLOCK_UUID);
	CHECK_STR(stack->spec[1].value, "VhRpli-ox8S-eLoi-xHha-0nTw-adEO-p6KDly");
	CHECK_INT(stack->spec[2].type, SPEC_BLOCK_PARTUUID);
	/* no root named: the stack is all there is to wait for */
	CHECK_INT(cfg.role[ROLE_ROOT].n, 0);

	/* the root's deadline: rootwait=, rootdelay=, waitdev.timeout= */
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("waitdev.stack=sdb1 rootwait=7", &cfg, err, sizeof(err)),
		  0);
	CHECK_INT(stack->ms, 7000);
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("rootdelay=9 waitdev.stack=sdb1", &cfg, err, sizeof(err)),
		  0);
	CHECK_INT(stack->ms, 9000);
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("waitdev.stack=sdb1 rootwait", &cfg, err, sizeof(err)),
		  0);
	CHECK(stack->ms == DEADLINE_FOREVER);
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("waitdev.stack=sdb1 rootwait=7 waitdev.timeout=2", &cfg,
				err, sizeof(err)),
		  0);
	CHECK_INT(stack->ms, 2000);

	/* a malformed spec: named, the list ignored, the root still read */
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("waitdev.stack=UUID=a,PARTUUID=xyz root=/dev/sda1", &cfg,
				err, sizeof(err)),
		  0);
	CHECK_INT(stack->n, 0);
	CHECK_INT(cfg.role[ROLE_ROOT].n, 1);
	CHECK_MSG(cfg.n_problems == 1 && strstr(cfg.problems[0], "waitdev.stack"),
		  "problem \"%s\"", cfg.n_problems ? cfg.problems[0] : "");
	/* strict: the same line ends the parse */
	cmdline_config_init(&cfg);
	cfg.strict = true;
	CHECK(cmdline_parse("waitdev.stack=UUID=a,PARTUUID=xyz", &cfg, err,
			    sizeof(err)) == -EINVAL);
	CHECK_MSG(strstr(err, "waitdev.stack"), "message \"%s\"", err);
	/* empty: no wait, as waitdev.net= */
	cmdline_config_init(&cfg);
	CHECK_INT(cmdline_parse("waitdev.stack=sdb1 waitdev.stack=", &cfg, err,
				sizeof(err)),
		  0);
	CHECK_INT(stack->n, 0);
}

int main(void)
{
	test_roles();
	test_rootfstype();
	test_next_arg();
	test_parse_ok();
	test_parse_details();
	test_parse_bad();
	test_parse_many_problems();
	test_parse_kernel_keys();
	test_parse_long();
	test_net_list();
	test_stack();
	test_parse_file();
	return test_summary("test-cmdline");
}
