// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The libblkid probe back end: blkid's low-level probing API on one
 * device at a time. No cache file (it may be stale or absent in an
 * initramfs); blkid_do_safeprobe() refuses ambivalent results instead of
 * guessing, so a disk with traces of two filesystems matches neither.
 */
#include <errno.h>
#include <blkid.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"
#include "util.h"

const char *probe_backend(void)
{
	return "libblkid";
}

bool probe_available(void)
{
	return true;
}

static int take_value(blkid_probe pr, const char *name, char **slot)
{
	const char *val = NULL;

	free(*slot);
	*slot = NULL;
	if (blkid_probe_lookup_value(pr, name, &val, NULL) < 0 || !val || !*val)
		return 0;
	*slot = strdup(val);
	return *slot ? 0 : -ENOMEM;
}

/*
 * libblkid reads one small piece at a time, each its own request (it
 * turns read-ahead off on the descriptor): about 45 for a full probe, a
 * millisecond or more each through USB mass storage. Most of them fall
 * into the first and the last few hundred KiB, where the superblocks,
 * RAID and LUKS headers are, so those two regions are asked for first,
 * each in as few large requests as the device takes; libblkid's own reads
 * then find them in the page cache. It still reads (and decides) all it
 * wants: what lies outside costs a request of its own, as before.
 */
#define PREFETCH_HEAD (132 * 1024)
#define PREFETCH_TAIL (132 * 1024)

static void prefetch(int fd)
{
	off_t size = lseek(fd, 0, SEEK_END);

	if (size <= 0)
		return; /* a regular file in tests has a size; no matter */
	if (size <= PREFETCH_HEAD + PREFETCH_TAIL) {
		readahead(fd, 0, (size_t)size);
		return;
	}
	readahead(fd, 0, PREFETCH_HEAD);
	readahead(fd, size - PREFETCH_TAIL, PREFETCH_TAIL);
}

/*
 * rootfstype= names the kernel's filesystem types; libblkid names what it
 * finds on disk. Where they differ, or where one driver mounts several
 * (ext4 mounts ext2 and ext3 volumes), the name stands for all of them:
 * looking for one type too many costs a read, one too few a root never
 * found.
 */
static const struct {
	const char *kernel;
	const char *blkid[4];
} fs_aliases[] = {
	{ "ext2", { "ext2", "ext3", "ext4", "ext4dev" } },
	{ "ext3", { "ext2", "ext3", "ext4", "ext4dev" } },
	{ "ext4", { "ext2", "ext3", "ext4", "ext4dev" } },
	{ "ext4dev", { "ext2", "ext3", "ext4", "ext4dev" } },
	{ "msdos", { "vfat" } },
	{ "fat", { "vfat" } },
	{ "ntfs3", { "ntfs" } },
};

#define PROBE_TYPES_MAX 256

struct type_list {
	const char *name[PROBE_TYPES_MAX + 1]; /* NULL-terminated */
	size_t n;
};

static bool add_type(struct type_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (streq(l->name[i], name))
			return true;
	if (l->n == PROBE_TYPES_MAX)
		return false;
	l->name[l->n++] = name;
	l->name[l->n] = NULL;
	return true;
}

/* @name, one item of rootfstype= (in @buf, cut), as libblkid's types. */
static bool add_kernel_type(struct type_list *l, const char *name)
{
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(fs_aliases); i++) {
		if (!streq(fs_aliases[i].kernel, name))
			continue;
		for (j = 0; j < ARRAY_SIZE(fs_aliases[i].blkid) && fs_aliases[i].blkid[j];
		     j++)
			if (!add_type(l, fs_aliases[i].blkid[j]))
				return false;
		return true;
	}
	/* a type libblkid cannot recognise: the whole probe decides, as
	 * without rootfstype= */
	return blkid_known_fstype(name) && add_type(l, name);
}

/*
 * The superblock probers to run for rootfstype=@fstypes (in @buf, cut
 * up): those types, and every RAID member and crypto container libblkid
 * knows, so that what the whole probe refuses for one (an md 0.90 or 1.0
 * member, whose superblock at the end comes with a filesystem at the
 * start carrying the array's UUID; LUKS) is refused still. false: no
 * restriction (a type libblkid does not know, or too many).
 */
static bool probe_types(struct type_list *l, char *buf)
{
	const char *name;
	char *save = NULL, *tok;
	size_t idx;
	int usage;

	l->n = 0;
	l->name[0] = NULL;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!add_kernel_type(l, tok))
			return false;
	if (l->n == 0)
		return false;
	for (idx = 0; blkid_superblocks_get_name(idx, &name, &usage) == 0; idx++)
		if ((usage & (BLKID_USAGE_RAID | BLKID_USAGE_CRYPTO)) &&
		    !streq(name, "crypto_LUKS") && !add_type(l, name))
			return false;
	return true;
}

/*
 * LUKS, for a probe narrowed by rootfstype=, on the first PREFETCH_HEAD
 * bytes only. Where there is no LUKS header at 0, libblkid's LUKS prober
 * looks for a LUKS2 secondary header at every offset a primary's size
 * allows, 16 KiB to 4 MiB: five reads beyond the prefetched head, each a
 * request of its own, more than the rest of an ext4 probe together. Here
 * it finds a container by its primary header, and a secondary one of the
 * default 16 KiB header (cryptsetup's) and any up to 128 KiB, all from the
 * page cache; what it no longer finds is a LUKS2 container with a larger
 * header whose primary one is gone, which holds no filesystem the kernel
 * could mount by rootfstype= either. 1: a container (its values in
 * @luks, to free), 0: none, -errno.
 */
struct luks_values {
	char *type, *uuid, *label;
};

static int probe_luks_head(int fd, struct luks_values *luks)
{
	static const char *const only_luks[] = { "crypto_LUKS", NULL };
	off_t size = lseek(fd, 0, SEEK_END);
	blkid_probe pr;
	int r;

	if (size <= 0)
		return 0;
	pr = blkid_new_probe();
	if (!pr)
		return -ENOMEM;
	r = blkid_probe_set_device(pr, fd, 0,
				   size < PREFETCH_HEAD ? size : PREFETCH_HEAD);
	if (r == 0) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(
			pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL);
		r = blkid_probe_filter_superblocks_type(pr, BLKID_FLTR_ONLYIN,
							(char **)only_luks);
	}
	if (r == 0)
		r = blkid_do_safeprobe(pr);
	if (r == 0) {
		r = take_value(pr, "TYPE", &luks->type);
		if (r == 0)
			r = take_value(pr, "UUID", &luks->uuid);
		if (r == 0)
			r = take_value(pr, "LABEL", &luks->label);
		r = r < 0 ? r : 1;
	} else {
		r = r == 1 ? 0 : -EIO;
	}
	blkid_free_probe(pr);
	return r;
}

/*
 * The LUKS look of a narrowed probe, after the rest. A container wins over
 * what else was found, as in libblkid's whole probe, which stops at the
 * first RAID member or crypto container (LUKS comes before every
 * filesystem there): a LUKS header beside an ext4 superblock is
 * crypto_LUKS, not ambivalent.
 */
static int luks_after_narrow_probe(int fd, struct device *dev)
{
	struct luks_values luks = { NULL, NULL, NULL };
	int r = probe_luks_head(fd, &luks);

	if (r <= 0)
		return r;
	free(dev->fs_type);
	free(dev->fs_uuid);
	free(dev->fs_label);
	dev->fs_type = luks.type;
	dev->fs_uuid = luks.uuid;
	dev->fs_label = luks.label;
	dev->fs_ambivalent = false;
	return 0;
}

int probe_block(struct device *dev, const char *node, const struct probe_request *req)
{
	const char *fstypes = req ? req->fstypes : NULL;
	char buf[256];
	struct type_list types;
	bool only = false;
	blkid_probe pr;
	int fd, r;

	/* O_NONBLOCK: a CD drive must not spin up the tray on open */
	fd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	prefetch(fd);
	pr = blkid_new_probe();
	if (!pr) {
		close(fd);
		return -ENOMEM;
	}
	r = blkid_probe_set_device(pr, fd, 0, 0);
	if (r == 0) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(
			pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL);
		if (fstypes && strscpy(buf, fstypes, sizeof(buf)))
			only = probe_types(&types, buf);
		if (only)
			r = blkid_probe_filter_superblocks_type(pr, BLKID_FLTR_ONLYIN,
								(char **)types.name);
		/* on a partition, its entry means the disk's table read
		 * too: a request or more, through USB each a millisecond */
		if (req && req->part_entry) {
			blkid_probe_enable_partitions(pr, 1);
			blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
		}
		if (r == 0)
			r = blkid_do_safeprobe(pr);
	}
	/* -2: ambivalent (two signatures, safeprobe picks none); -1: I/O */
	dev->fs_ambivalent = r == -2;
	if (r < 0)
		r = r == -2 ? 1 : -EIO;
	if (r >= 0) {
		/* 1: nothing found; the lookups below then clear all */
		r = take_value(pr, "TYPE", &dev->fs_type);
		if (r == 0)
			r = take_value(pr, "UUID", &dev->fs_uuid);
		if (r == 0)
			r = take_value(pr, "LABEL", &dev->fs_label);
		if (r == 0)
			r = take_value(pr, "PART_ENTRY_UUID", &dev->part_uuid);
	}
	if (r == 0 && only)
		r = luks_after_narrow_probe(fd, dev);
	blkid_free_probe(pr);
	close(fd);
	return r;
}
