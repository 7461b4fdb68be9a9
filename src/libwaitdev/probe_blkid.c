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
#include <sys/mman.h>
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
 * millisecond or more each through USB mass storage. So the regions its
 * probers look at are asked for first, all at once (readahead() only
 * queues them), and libblkid's own reads then find them in the page
 * cache. It still reads (and decides) all it wants: a piece outside them
 * costs a request of its own, as before; these sizes are a speed
 * question, never a correctness one.
 *
 * A whole probe: the first and the last 132 KiB (superblocks, RAID and
 * LUKS headers). A probe narrowed by rootfstype= reads far less, and a
 * real stick pays for the bytes too (224 KiB at USB 2.0 speed, about
 * 7 ms: reasoning, not a figure; under TCG both prefetches cost the same,
 * bench/README.md), so it gets what libblkid 2.38 reads for those types
 * and every RAID and crypto type
 * (strace of the probe): the first 20 KiB (the filesystem's superblock,
 * md 1.1/1.2, LVM, LUKS and the secondary header of cryptsetup's default
 * 16 KiB LUKS2 header), VMFS's header at 1 MiB, DDF's anchor 128 KiB from
 * the end, md 0.90's superblock (the last 64 KiB-aligned 64 KiB but one)
 * and the last 8 KiB (md 1.0, DRBD): a page each, for the gaps between
 * them cost more than their requests. A whole disk keeps the last 132
 * KiB: the other fakeraid probers read there, on partitions they do not
 * look.
 */
#define PREFETCH_HEAD (132 * 1024)
#define PREFETCH_TAIL (132 * 1024)
#define NARROW_HEAD (20 * 1024)
#define NARROW_TAIL (8 * 1024)
#define VMFS_OFFSET (1024 * 1024)
#define DDF_TAIL (128 * 1024)
#define MD_RESERVED (64 * 1024)

/* readahead() of [@off, @off + @len) clipped to the device's @size. */
static void prefetch_range(int fd, off_t size, off_t off, off_t len)
{
	if (off < 0) {
		len += off;
		off = 0;
	}
	if (off >= size || len <= 0)
		return;
	if (len > size - off)
		len = size - off;
	readahead(fd, off, (size_t)len);
}

static void prefetch(int fd, off_t size, bool narrow, bool wholedisk)
{
	if (size <= 0)
		return; /* a regular file in tests has a size; no matter */
	if (!narrow) {
		prefetch_range(fd, size, 0, PREFETCH_HEAD);
		prefetch_range(fd, size, size - PREFETCH_TAIL, PREFETCH_TAIL);
		return;
	}
	prefetch_range(fd, size, 0, NARROW_HEAD);
	prefetch_range(fd, size, VMFS_OFFSET, 4096);
	if (wholedisk) {
		prefetch_range(fd, size, size - PREFETCH_TAIL, PREFETCH_TAIL);
		return;
	}
	prefetch_range(fd, size, size - DDF_TAIL, 4096);
	prefetch_range(fd, size, (size & ~(off_t)(MD_RESERVED - 1)) - MD_RESERVED, 4096);
	prefetch_range(fd, size, size - NARROW_TAIL, NARROW_TAIL);
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
 * LUKS, on the prefetched head (@head bytes) only, apart from the rest of
 * the probe. Where there is no LUKS header at 0, libblkid's LUKS prober
 * looks for a LUKS2 secondary header at every offset a primary's size
 * allows, 16 KiB to 4 MiB: up to eight reads beyond the prefetched head,
 * each a request of its own, more than the rest of an ext4 probe
 * together. Here it finds a container by its primary header, and a
 * secondary one of the default 16 KiB header (cryptsetup's), and of any
 * up to 128 KiB in a whole probe, all from the page cache. What it no
 * longer finds is a LUKS2 container with a larger header whose primary
 * one is gone. It holds no filesystem (its data is encrypted), so it is
 * still refused as a root, as "no filesystem" instead of crypto_LUKS.
 * 1: a container (its values in @luks, to free), 0: none, -errno.
 */
struct luks_values {
	char *type, *uuid, *label;
};

static int probe_luks_head(int fd, off_t size, off_t head, struct luks_values *luks)
{
	static const char *const only_luks[] = { "crypto_LUKS", NULL };
	blkid_probe pr;
	int r;

	if (size <= 0)
		return 0;
	pr = blkid_new_probe();
	if (!pr)
		return -ENOMEM;
	r = blkid_probe_set_device(pr, fd, 0, size < head ? size : head);
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
 * The LUKS look, after the rest of the probe (which left crypto_LUKS
 * out). A container wins over a filesystem, as in libblkid's whole probe,
 * which stops at the first RAID member or crypto container (LUKS comes
 * before every filesystem there): a LUKS header beside an ext4 superblock
 * is crypto_LUKS, not ambivalent. A RAID member stays one: the RAID
 * probers come before LUKS there, and the container an md 1.0 member
 * shows at its start is the array's, not the member's. @usage: what the
 * rest found ("raid", "filesystem", ...; NULL: nothing); @head: the
 * bytes prefetched at the start of the device (@size).
 */
static int luks_after_probe(int fd, off_t size, off_t head, struct device *dev,
			    const char *usage)
{
	struct luks_values luks = { NULL, NULL, NULL };
	int r;

	if (usage && streq(usage, "raid"))
		return 0;
	r = probe_luks_head(fd, size, head, &luks);
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

static int probe_fd(struct device *dev, int fd, const struct probe_request *req)
{
	static const char *const not_luks[] = { "crypto_LUKS", NULL };
	const char *fstypes = req ? req->fstypes : NULL;
	char *usage = NULL;
	char buf[256];
	struct type_list types;
	bool only = false;
	off_t size = 0;
	blkid_probe pr;
	int r;

	pr = blkid_new_probe();
	if (!pr)
		return -ENOMEM;
	r = blkid_probe_set_device(pr, fd, 0, 0);
	if (r == 0) {
		size = blkid_probe_get_size(pr);
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(
			pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL |
				    BLKID_SUBLKS_USAGE);
		if (fstypes && strscpy(buf, fstypes, sizeof(buf)))
			only = probe_types(&types, buf);
		/* LUKS is looked for apart, on the head only (above) */
		if (only)
			r = blkid_probe_filter_superblocks_type(pr, BLKID_FLTR_ONLYIN,
								(char **)types.name);
		else
			r = blkid_probe_filter_superblocks_type(pr, BLKID_FLTR_NOTIN,
								(char **)not_luks);
		/* on a partition, its entry means the disk's table read
		 * too: a request or more, through USB each a millisecond */
		if (req && req->part_entry) {
			blkid_probe_enable_partitions(pr, 1);
			blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
		}
		if (r == 0) {
			prefetch(fd, size, only, blkid_probe_is_wholedisk(pr) == 1);
			r = blkid_do_safeprobe(pr);
		}
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
		if (r == 0)
			r = take_value(pr, "USAGE", &usage);
	}
	if (r == 0)
		r = luks_after_probe(fd, size, only ? NARROW_HEAD : PREFETCH_HEAD, dev,
				     usage);
	free(usage);
	blkid_free_probe(pr);
	return r;
}

int probe_block(struct device *dev, const char *node, const struct probe_request *req)
{
	int fd, r;

	/* O_NONBLOCK: a CD drive must not spin up the tray on open */
	fd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	r = probe_fd(dev, fd, req);
	close(fd);
	return r;
}

/*
 * The whole probe, of an empty in-memory file the size of a small disk:
 * every prober's code is then paged in (a fork()ed child shares none of
 * its parent's page tables for it) and the allocator has its memory,
 * which a child's first probe pays for otherwise, about as much as the
 * probe itself. It reads holes: no memory, no device.
 */
void probe_warm(const struct probe_request *req)
{
	struct device dev;
	int fd = memfd_create("waitdev-warm", MFD_CLOEXEC);

	if (fd < 0)
		return;
	memset(&dev, 0, sizeof(dev));
	if (ftruncate(fd, 1 << 20) == 0)
		probe_fd(&dev, fd, req);
	device_clear(&dev);
	close(fd);
}
