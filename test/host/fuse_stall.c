// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuse-stall - a FUSE filesystem of one file, "disk", whose reads do not
 * answer while a flag file exists: the backing of a loop device that
 * stalls (test/host/probe_stall.py). A read that comes while the flag
 * exists waits until it is removed (at most 120 s), then answers from
 * the backing file. While FLAG.eio exists, reads fail with EIO instead:
 * a device whose medium cannot be read. The file's size is the backing
 * file's at every stat (no attribute caching): truncate BACKING, stat
 * the file, and losetup -c shrinks the loop device.
 *
 * Usage: fuse-stall BACKING FLAG MOUNTPOINT (stays in the foreground;
 * umount MOUNTPOINT ends it)
 */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *flag;
static char eio_flag[4096];
static int backing_fd = -1;

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct stat b;

	(void)fi;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, "/disk") != 0)
		return -ENOENT;
	st->st_mode = S_IFREG | 0444;
	st->st_nlink = 1;
	st->st_size = fstat(backing_fd, &b) == 0 ? b.st_size : 0;
	return 0;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/") != 0)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "disk", NULL, 0, 0);
	return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/disk") != 0)
		return -ENOENT;
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	/* no page cache: every read of the loop device comes here */
	fi->direct_io = 1;
	return 0;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	ssize_t n;
	int i;

	(void)path;
	(void)fi;
	if (access(eio_flag, F_OK) == 0)
		return -EIO;
	for (i = 0; i < 1200 && access(flag, F_OK) == 0; i++)
		usleep(100 * 1000);
	n = pread(backing_fd, buf, size, off);
	return n < 0 ? -errno : (int)n;
}

static const struct fuse_operations ops = {
	.getattr = fs_getattr,
	.readdir = fs_readdir,
	.open = fs_open,
	.read = fs_read,
};

int main(int argc, char **argv)
{
	char *fargv[] = { argv[0], "-f", "-o", "allow_other,attr_timeout=0", NULL, NULL };

	if (argc != 4) {
		fprintf(stderr, "usage: fuse-stall BACKING FLAG MOUNTPOINT\n");
		return 2;
	}
	flag = argv[2];
	if (snprintf(eio_flag, sizeof(eio_flag), "%s.eio", flag) >=
	    (int)sizeof(eio_flag)) {
		fprintf(stderr, "fuse-stall: %s: name too long\n", flag);
		return 2;
	}
	backing_fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (backing_fd < 0) {
		perror(argv[1]);
		return 1;
	}
	fargv[4] = argv[3];
	return fuse_main(5, fargv, &ops, NULL);
}
