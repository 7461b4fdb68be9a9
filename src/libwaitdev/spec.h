/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spec.h - what to wait for: the grammar of root, console and network
 * specifications and the matchers that test a device record against one.
 *
 * Root (block) specs take every form the kernel and the common initramfs
 * generators accept:
 *   /dev/NAME  NAME  MAJ:MIN  hexadecimal dev_t  PARTLABEL=X
 *   PARTUUID=X[/PARTNROFF=N]  UUID=X  LABEL=X
 *   /dev/disk/by-{uuid,partuuid,label,partlabel,id,path}/X
 *   /dev/mapper/NAME and /dev/VG/LV (SPEC_BLOCK_NAME, matched against
 *   a device-mapper device's dm/name as well)
 * Console specs: a tty name with optional options ("ttyS0,115200n8"),
 * optionally under /dev/. Non-tty consoles parse as SPEC_CONSOLE_OTHER.
 * Net specs: NAME, a glob, a MAC address or "any", optionally ":up" or
 * ":carrier".
 */
#ifndef WAITDEV_SPEC_H
#define WAITDEV_SPEC_H

#include <stdbool.h>

#include "device.h"

struct devtab;

enum spec_type {
	SPEC_NONE = 0,
	/* block */
	SPEC_BLOCK_NAME,      /* DEVNAME, "/dev/" stripped */
	SPEC_BLOCK_DEVT,      /* MAJ:MIN or hexadecimal dev_t */
	SPEC_BLOCK_PARTLABEL, /* PARTNAME from the uevent */
	SPEC_BLOCK_PARTUUID,  /* needs a probe */
	SPEC_BLOCK_UUID,      /* needs a probe */
	SPEC_BLOCK_LABEL,     /* needs a probe */
	SPEC_BLOCK_BY_ID,     /* needs udev */
	SPEC_BLOCK_BY_PATH,   /* needs udev */
	/* console */
	SPEC_CONSOLE_TTY,
	SPEC_CONSOLE_OTHER, /* netcon0, uart8250,io,0x3f8, lp0 ...: not waited for */
	/* net */
	SPEC_NET_NAME,
	SPEC_NET_GLOB,
	SPEC_NET_MAC,
	SPEC_NET_ANY,
};

enum spec_need {
	SPEC_NEED_NOTHING = 0,
	SPEC_NEED_PROBE, /* filesystem / partition table probe (libblkid) */
	SPEC_NEED_UDEV,	 /* udev's database (libudev) */
};

enum net_state {
	NET_EXISTS = 0,
	NET_UP,	     /* IFF_UP */
	NET_CARRIER, /* IFF_UP and IFF_RUNNING, or operstate UP */
};

#define SPEC_VALUE_MAX 256

struct spec {
	enum spec_type type;
	char text[SPEC_VALUE_MAX];  /* as given, for messages */
	char value[SPEC_VALUE_MAX]; /* name, uuid, label, glob ... */
	unsigned int major, minor;  /* SPEC_BLOCK_DEVT */
	int partnroff;		    /* PARTUUID=.../PARTNROFF=N */
	bool has_partnroff;
	unsigned char mac[6]; /* SPEC_NET_MAC */
	enum net_state net_state;
};

/*
 * Parsers: 0 on success, -EINVAL on a malformed spec with a one-line
 * reason in @err (which may be NULL).
 */
int spec_parse_block(const char *text, struct spec *spec, char *err, unsigned errsize);
int spec_parse_console(const char *text, struct spec *spec, char *err, unsigned errsize);
int spec_parse_net(const char *text, struct spec *spec, char *err, unsigned errsize);

/* What the spec needs beyond kernel uevents. */
enum spec_need spec_need(const struct spec *spec);
const char *spec_need_name(enum spec_need need);

/*
 * Matchers. They answer "is this the device the spec names", not "is it
 * ready": readiness is spec_device_ready().
 */
bool spec_match_block(const struct spec *spec, const struct device *dev);
bool spec_match_console(const struct spec *spec, const struct device *dev);
bool spec_match_net(const struct spec *spec, const struct device *dev);
bool spec_match(const struct spec *spec, const struct device *dev);

/*
 * PARTUUID=X/PARTNROFF=N: is @dev the partition N numbers after @anchor
 * (the partition whose UUID is X) on the same disk?
 */
bool spec_match_sibling(const struct spec *spec, const struct device *anchor,
			const struct device *dev);

/*
 * spec_match() for @dev among the records of @tab: PARTNROFF= is
 * resolved against the partition of @tab that PARTUUID= names.
 */
bool spec_match_in(const struct spec *spec, const struct devtab *tab,
		   const struct device *dev);

/*
 * Ready: a block device has a medium (size > 0) and, once probed (by
 * libblkid or udev), a recognised filesystem; a tty exists; an interface
 * exists and is in the state the spec asks for.
 */
bool spec_device_ready(const struct spec *spec, const struct device *dev);

/* The device kind a spec waits for. */
enum dev_kind spec_kind(const struct spec *spec);

#endif
