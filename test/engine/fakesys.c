// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakesys.h"

static void die(const char *what)
{
	fprintf(stderr, "fakesys: %s: %s\n", what, strerror(errno));
	exit(99);
}

static void mkdirs(const char *path)
{
	char buf[512];
	char *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			die(buf);
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		die(buf);
}

static void write_file(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void write_file(const char *path, const char *fmt, ...)
{
	char tmp[600];
	va_list ap;
	FILE *f;

	/* rename: a reader never sees a half-written file */
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		die(tmp);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	if (fclose(f) != 0 || rename(tmp, path) < 0)
		die(path);
}

void fakesys_init(struct fakesys *fs)
{
	char dir[300];
	int one = 1;

	memset(fs, 0, sizeof(*fs));
	snprintf(fs->root, sizeof(fs->root), "/tmp/waitdev-fakesys-XXXXXX");
	if (!mkdtemp(fs->root))
		die("mkdtemp");
	/* what every sysfs has (an empty mount point has not) */
	snprintf(dir, sizeof(dir), "%s/class", fs->root);
	mkdirs(dir);
	snprintf(dir, sizeof(dir), "%s/devices", fs->root);
	mkdirs(dir);
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, fs->feed) < 0)
		die("socketpair");
	/* our end: allowed to send explicit credentials */
	setsockopt(fs->feed[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	fs->seqnum = 1000;
}

void fakesys_cleanup(struct fakesys *fs)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fs->root);
	if (system(cmd) != 0)
		fprintf(stderr, "fakesys: could not remove %s\n", fs->root);
	if (fs->feed[1] >= 0)
		close(fs->feed[1]);
	/* feed[0] belongs to the engine, which closes it */
}

static void add_device(struct fakesys *fs, const char *subsystem, const char *name,
		       const char *uevent, bool listed)
{
	char dir[512], path[600], link[700], target[600];

	snprintf(dir, sizeof(dir), "%s/devices/virtual/%s/%s", fs->root, subsystem, name);
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/uevent", dir);
	write_file(path, "%s", uevent);
	if (!listed)
		return;
	snprintf(path, sizeof(path), "%s/class/%s", fs->root, subsystem);
	mkdirs(path);
	snprintf(link, sizeof(link), "%s/%s", path, name);
	snprintf(target, sizeof(target), "../../devices/virtual/%s/%s", subsystem, name);
	if (symlink(target, link) < 0 && errno != EEXIST)
		die(link);
}

void fakesys_add_block(struct fakesys *fs, const char *name, unsigned major,
		       unsigned minor, unsigned long long sectors, const char *partname,
		       bool listed)
{
	char uevent[300], part[150] = "";

	if (partname)
		snprintf(part, sizeof(part), "PARTN=1\nPARTNAME=%s\n", partname);
	snprintf(uevent, sizeof(uevent), "MAJOR=%u\nMINOR=%u\nDEVNAME=%s\nDEVTYPE=%s\n%s",
		 major, minor, name, partname ? "partition" : "disk", part);
	add_device(fs, "block", name, uevent, listed);
	fakesys_set_size(fs, name, sectors);
}

void fakesys_add_partition(struct fakesys *fs, const char *disk, const char *name,
			   unsigned major, unsigned minor, unsigned long long sectors)
{
	char dir[512], path[600], link[700], target[600];

	snprintf(dir, sizeof(dir), "%s/devices/virtual/block/%s/%s", fs->root, disk,
		 name);
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/uevent", dir);
	write_file(path, "MAJOR=%u\nMINOR=%u\nDEVNAME=%s\nDEVTYPE=partition\nPARTN=1\n",
		   major, minor, name);
	snprintf(path, sizeof(path), "%s/partition", dir);
	write_file(path, "1\n");
	snprintf(path, sizeof(path), "%s/size", dir);
	write_file(path, "%llu\n", sectors);
	snprintf(link, sizeof(link), "%s/class/block/%s", fs->root, name);
	snprintf(target, sizeof(target), "../../devices/virtual/block/%s/%s", disk, name);
	if (symlink(target, link) < 0 && errno != EEXIST)
		die(link);
}

void fakesys_set_size(struct fakesys *fs, const char *name, unsigned long long sectors)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/devices/virtual/block/%s/size", fs->root, name);
	write_file(path, "%llu\n", sectors);
}

void fakesys_set_diskseq(struct fakesys *fs, const char *name, unsigned long long seq)
{
	char path[600], text[1024] = "", line[256];
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices/virtual/block/%s/uevent", fs->root,
		 name);
	f = fopen(path, "r");
	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "DISKSEQ=", 8) != 0 &&
		    len + strlen(line) < sizeof(text)) {
			strcpy(text + len, line);
			len += strlen(line);
		}
	fclose(f);
	write_file(path, "%sDISKSEQ=%llu\n", text, seq);
}

void fakesys_set_dm_name(struct fakesys *fs, const char *name, const char *dm_name)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/devices/virtual/block/%s/dm", fs->root, name);
	mkdirs(path);
	strcat(path, "/name");
	write_file(path, "%s\n", dm_name);
}

void fakesys_remove_block(struct fakesys *fs, const char *name)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd),
		 "rm -rf '%s/devices/virtual/block/%s' '%s/class/block/%s'", fs->root,
		 name, fs->root, name);
	if (system(cmd) != 0)
		die("rm");
}

void fakesys_unlist(struct fakesys *fs, const char *subsystem, const char *name)
{
	char link[600];

	snprintf(link, sizeof(link), "%s/class/%s/%s", fs->root, subsystem, name);
	if (unlink(link) < 0)
		die(link);
}

void fakesys_add_tty(struct fakesys *fs, const char *name, unsigned major, unsigned minor)
{
	char uevent[200];

	snprintf(uevent, sizeof(uevent), "MAJOR=%u\nMINOR=%u\nDEVNAME=%s\n", major, minor,
		 name);
	add_device(fs, "tty", name, uevent, true);
}

void fakesys_add_net(struct fakesys *fs, const char *name, int ifindex, const char *mac,
		     unsigned flags, const char *operstate)
{
	char uevent[200], path[600];

	snprintf(uevent, sizeof(uevent), "INTERFACE=%s\nIFINDEX=%d\n", name, ifindex);
	add_device(fs, "net", name, uevent, true);
	snprintf(path, sizeof(path), "%s/devices/virtual/net/%s/address", fs->root, name);
	write_file(path, "%s\n", mac);
	snprintf(path, sizeof(path), "%s/devices/virtual/net/%s/flags", fs->root, name);
	write_file(path, "0x%x\n", flags);
	snprintf(path, sizeof(path), "%s/devices/virtual/net/%s/operstate", fs->root,
		 name);
	write_file(path, "%s\n", operstate);
}

static void send_creds(struct fakesys *fs, const void *buf, size_t len, uid_t uid)
{
	/* zeroed: the padding after the credentials goes to the kernel too
	 * (valgrind: "sendmsg(msg.msg_control) points to uninitialised") */
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} control = { 0 };
	struct ucred cred = { .pid = getpid(), .uid = uid, .gid = uid };
	struct iovec iov = { (void *)buf, len };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = &control,
		.msg_controllen = sizeof(control),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof(cred));
	memcpy(CMSG_DATA(c), &cred, sizeof(cred));
	if (sendmsg(fs->feed[1], &msg, 0) != (ssize_t)len)
		die("sendmsg");
}

void fakesys_send_raw(struct fakesys *fs, const void *buf, size_t len)
{
	send_creds(fs, buf, len, 0);
}

void fakesys_send_partition(struct fakesys *fs, const char *disk, const char *name,
			    unsigned major, unsigned minor)
{
	char buf[1024];
	int n;

	n = snprintf(buf, sizeof(buf),
		     "add@/devices/virtual/block/%s/%s%c"
		     "ACTION=add%cDEVPATH=/devices/virtual/block/%s/%s%c"
		     "SUBSYSTEM=block%cMAJOR=%u%cMINOR=%u%cDEVNAME=%s%c"
		     "DEVTYPE=partition%cPARTN=1%cSEQNUM=%u%c",
		     disk, name, 0, 0, disk, name, 0, 0, major, 0, minor, 0, name, 0, 0,
		     0, ++fs->seqnum, 0);
	send_creds(fs, buf, (size_t)n, 0);
}

void fakesys_send_block(struct fakesys *fs, const char *action, const char *name,
			unsigned major, unsigned minor, uid_t uid)
{
	char buf[1024];
	int n;

	n = snprintf(buf, sizeof(buf),
		     "%s@/devices/virtual/block/%s%c"
		     "ACTION=%s%cDEVPATH=/devices/virtual/block/%s%c"
		     "SUBSYSTEM=block%cMAJOR=%u%cMINOR=%u%cDEVNAME=%s%c"
		     "DEVTYPE=disk%cSEQNUM=%u%c",
		     action, name, 0, action, 0, name, 0, 0, major, 0, minor, 0, name, 0,
		     0, ++fs->seqnum, 0);
	send_creds(fs, buf, (size_t)n, uid);
}
