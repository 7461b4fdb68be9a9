// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "devclass.h"
#include "sysfs.h"
#include "util.h"

/* DEVPATHs come from 2048-byte uevents: this always fits one */
#define SYSFS_PATH_MAX (UEVENT_BUFFER_SIZE + 64)

struct sysfs {
	int fd;
};

/*
 * Whether @fd is a sysfs: /sys itself must be one (an unmounted /sys is
 * an empty directory of the root file system, where every device would
 * look absent); a test tree given with --sysfs must at least have what
 * every sysfs has, class/ and devices/.
 */
static int check_sysfs(int fd, bool must_be_sysfs)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs) < 0)
		return -errno;
	if (sfs.f_type == SYSFS_MAGIC)
		return 0;
	if (must_be_sysfs)
		return -ENODEV;
	if (faccessat(fd, "class", F_OK, 0) < 0 || faccessat(fd, "devices", F_OK, 0) < 0)
		return errno == ENOENT ? -ENODEV : -errno;
	return 0;
}

int sysfs_open(const char *root, struct sysfs **out)
{
	bool must_be_sysfs = !root;
	struct sysfs *s;
	int r;

	if (!root)
		root = "/sys";
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->fd < 0) {
		r = -errno;
		sysfs_free(s);
		return r;
	}
	r = check_sysfs(s->fd, must_be_sysfs);
	if (r < 0) {
		sysfs_free(s);
		return r;
	}
	*out = s;
	return 0;
}

void sysfs_free(struct sysfs *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}

int sysfs_dirfd(const struct sysfs *s)
{
	return s->fd;
}

/*
 * Joins the class directory "/class/block" with a link target such as
 * "../../devices/virtual/block/loop0" into "/devices/virtual/block/loop0".
 */
static int resolve_link(const char *dir, const char *target, char *out, size_t size)
{
	char buf[SYSFS_PATH_MAX];
	size_t len;
	char *save = NULL, *tok;

	if (target[0] == '/')
		return -EINVAL; /* sysfs links are always relative */
	if (snprintf(buf, sizeof(buf), "%s/%s", dir, target) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	len = 0;
	out[0] = '\0';
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (streq(tok, "."))
			continue;
		if (streq(tok, "..")) {
			char *slash = strrchr(out, '/');

			if (!slash)
				return -EINVAL;
			*slash = '\0';
			len = (size_t)(slash - out);
			continue;
		}
		if (len + 1 + strlen(tok) + 1 > size)
			return -ENAMETOOLONG;
		out[len++] = '/';
		strcpy(out + len, tok);
		len += strlen(tok);
	}
	return len ? 0 : -EINVAL;
}

static int scan_one(struct sysfs *s, int classfd, const char *classdir,
		    const char *subsystem, const char *name, sysfs_scan_fn fn, void *ctx)
{
	char target[SYSFS_PATH_MAX], devpath[SYSFS_PATH_MAX];
	char path[SYSFS_PATH_MAX + 16];
	char buf[UEVENT_BUFFER_SIZE + 1];
	struct uevent ev;
	ssize_t n;

	n = readlinkat(classfd, name, target, sizeof(target) - 1);
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	target[n] = '\0';
	if (resolve_link(classdir, target, devpath, sizeof(devpath)) < 0)
		return 0; /* not a device link: ignore */
	snprintf(path, sizeof(path), "%s/uevent", devpath + 1);
	n = read_file_at(s->fd, path, buf, sizeof(buf));
	if (n < 0 && errno_is_resource((int)n))
		return (int)n; /* not known to be gone: say so */
	if (n < 0)
		return 0; /* removed while we looked */
	if (uevent_parse_file(buf, (size_t)n, devpath, subsystem, &ev) < 0)
		return 0;
	return fn(ctx, &ev);
}

int sysfs_scan(struct sysfs *s, enum dev_kind kind, sysfs_scan_fn fn, void *ctx)
{
	const struct dev_class *c = dev_class(kind);
	char classdir[64];
	struct dirent *de;
	DIR *dir;
	int r = 0;

	if (!c)
		return -EINVAL;
	/* the class directory is named after the subsystem */
	snprintf(classdir, sizeof(classdir), "/class/%s", c->subsystem);
	r = opendir_at(s->fd, classdir + 1, &dir);
	if (r < 0)
		return r == -ENOENT ? 0 : r;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		r = scan_one(s, dirfd(dir), classdir, c->subsystem, de->d_name, fn, ctx);
		if (r != 0)
			break;
	}
	closedir(dir);
	return r;
}

int sysfs_read_attr(struct sysfs *s, const struct device *dev, const char *attr,
		    char *buf, size_t size)
{
	char path[SYSFS_PATH_MAX + 32];
	ssize_t n;

	if (snprintf(path, sizeof(path), "%s/%s", dev->devpath + 1, attr) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	n = read_file_at(s->fd, path, buf, size);
	if (n < 0)
		return (int)n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

int sysfs_attr_exists(struct sysfs *s, const struct device *dev, const char *attr)
{
	char path[SYSFS_PATH_MAX + 32];

	if (snprintf(path, sizeof(path), "%s/%s", dev->devpath + 1, attr) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	return faccessat(s->fd, path, F_OK, 0) < 0 ? -errno : 0;
}

int sysfs_count_partitions(struct sysfs *s, const struct device *dev)
{
	/* the kernel names a partition after its disk, "%s%d" or, after a
	 * digit, "%sp%d" (add_partition()): the other entries (queue,
	 * holders, power, ...) need no look */
	const char *disk = strrchr(dev->devpath, '/');
	size_t len = disk ? strlen(++disk) : 0;
	struct dirent *de;
	DIR *dir;
	int n = 0, r;

	r = opendir_at(s->fd, dev->devpath + 1, &dir);
	if (r < 0)
		return r;
	while ((de = readdir(dir))) {
		char attr[sizeof(de->d_name) + 16];

		if (de->d_name[0] == '.' ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
		    strncmp(de->d_name, disk ? disk : "", len) != 0)
			continue;
		snprintf(attr, sizeof(attr), "%s/partition", de->d_name);
		n += faccessat(dirfd(dir), attr, F_OK, 0) == 0;
	}
	closedir(dir);
	return n;
}

int sysfs_read_attrs(struct sysfs *s, const struct device *dev, struct dev_attrs *attrs)
{
	const struct dev_class *c = dev_class(dev->kind);

	memset(attrs, 0, sizeof(*attrs));
	return c ? c->read_attrs(s, dev, attrs) : 0;
}

/* The kernel's part_stat_show() has written 11 fields since 2.6. */
#define BLKSTAT_MIN_FIELDS 11

int sysfs_parse_blkstat(const char *text, struct sysfs_blkstat *st)
{
	uint64_t v[3] = { 0 };
	unsigned int n = 0;
	const char *s = text;

	for (;;) {
		uint64_t x = 0;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || (*s == '\n' && !s[1]))
			break;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		for (; isdigit((unsigned char)*s); s++) {
			unsigned int d = (unsigned int)(*s - '0');

			if (x > (UINT64_MAX - d) / 10)
				return -ERANGE;
			x = x * 10 + d;
		}
		if (*s && *s != ' ' && *s != '\t' && *s != '\n')
			return -EINVAL;
		if (n < ARRAY_SIZE(v))
			v[n] = x;
		n++;
	}
	if (n < BLKSTAT_MIN_FIELDS)
		return -EINVAL;
	st->reads = v[0];
	st->read_merges = v[1];
	st->read_sectors = v[2];
	return 0;
}
