// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * guest-stamp - the guest side of the QEMU benchmark (bench/qemu-bench.py).
 *
 *   guest-stamp race DEVNAME TIMEOUT_S NAME CMD [ARG]... [:: NAME CMD...]...
 *   guest-stamp poll INTERVAL_MS TIMEOUT_S PATH
 *   guest-stamp poll INTERVAL_MS TIMEOUT_S --exec CMD [ARG]...
 *   guest-stamp delay MS PATH
 *
 * race: listens to the kernel's uevents, starts every waiter at once
 * (stdout to /dev/null), prints "BENCH-READY <ns>" and stamps, with
 * CLOCK_MONOTONIC, the "add" uevent of block device DEVNAME and the exit
 * of each waiter.  It runs as SCHED_FIFO (the waiters do not: reset on
 * fork), so on the guest's one CPU it wakes first for both and the stamps
 * are as close to the kernel's events as userspace gets.  Nothing is
 * printed until every waiter has exited (or TIMEOUT_S passed: the rest are
 * killed), then two lines:
 *   BENCH-UEVENTS NAME:NS...     every block "add" uevent (e.g. the disk
 *                                before its partitions)
 *   BENCH-RESULT <start_ns> <uevent_ns or 0> NAME:STATUS:EXIT_NS...
 * STATUS is the exit code, sigN, or killed (at the timeout).
 *
 * poll: the polling loops of today's initramfs generators and the kernel:
 * if PATH exists (or, with --exec, CMD exits 0; it is forked afresh each
 * round, as initramfs-tools forks blkid), exit 0; else sleep INTERVAL_MS.
 * Exits 1 at TIMEOUT_S.
 *
 * delay: rootdelay: sleep MS, then exit 0 if PATH exists, 1 if not.
 *
 * Exit 2 on a usage error, 3 on a system error.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define MAX_WAITERS 16
#define MAX_SEEN 16

/* The block devices whose "add" uevent came, and when. */
struct seen {
	char name[32];
	uint64_t ns;
};

struct waiter {
	const char *name;
	char **argv;
	pid_t pid;
	int status; /* from waitpid; -1 while running, -2 when killed */
	uint64_t exit_ns;
};

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int usage(void)
{
	fprintf(stderr, "usage: guest-stamp race DEVNAME TIMEOUT_S NAME CMD "
			"[ARG]... "
			"[:: NAME CMD...]...\n"
			"       guest-stamp poll INTERVAL_MS TIMEOUT_S PATH\n"
			"       guest-stamp poll INTERVAL_MS TIMEOUT_S --exec "
			"CMD "
			"[ARG]...\n"
			"       guest-stamp delay MS PATH\n");
	return 2;
}

/* Runs @argv with stdin, stdout and stderr on /dev/null; its exit code. */
static int run_quiet(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);

		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int cmd_poll(int argc, char **argv)
{
	long interval_ms, timeout_s;
	uint64_t deadline;
	char **cmd = NULL;

	if (argc < 4 || parse_long(argv[1], 1, 3600000, &interval_ms) < 0 ||
	    parse_long(argv[2], 0, 86400, &timeout_s) < 0)
		return usage();
	if (strcmp(argv[3], "--exec") == 0) {
		if (argc < 5)
			return usage();
		cmd = argv + 4;
	} else if (argc != 4) {
		return usage();
	}
	deadline = now_ns() + (uint64_t)timeout_s * 1000000000u;
	for (;;) {
		if (cmd ? run_quiet(cmd) == 0 : access(argv[3], F_OK) == 0)
			return 0;
		if (now_ns() >= deadline)
			return 1;
		sleep_ms(interval_ms);
	}
}

static int cmd_delay(int argc, char **argv)
{
	long ms;

	if (argc != 3 || parse_long(argv[1], 0, 3600000, &ms) < 0)
		return usage();
	sleep_ms(ms);
	return access(argv[2], F_OK) == 0 ? 0 : 1;
}

/* The DEVNAME of an "add" uevent of a block device, or NULL. */
static const char *block_add_name(const char *buf, size_t len)
{
	const char *name = NULL;
	int add = 0, block = 0;
	size_t i = 0;

	if (len < 5 || strncmp(buf, "add@", 4) != 0)
		return NULL; /* also drops udevd's "libudev" messages */
	while (i < len) {
		const char *kv = buf + i;
		size_t n = strnlen(kv, len - i);

		if (strcmp(kv, "ACTION=add") == 0)
			add = 1;
		else if (strcmp(kv, "SUBSYSTEM=block") == 0)
			block = 1;
		else if (strncmp(kv, "DEVNAME=", 8) == 0)
			name = kv + 8;
		i += n + 1;
	}
	return add && block ? name : NULL;
}

static int uevent_socket(void)
{
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
		.nl_groups = 1,
	};
	int size = 4 << 20;
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_KOBJECT_UEVENT);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Reads every queued uevent; notes each block "add" in @seen and stamps
 * the first "add" of @devname.
 */
static void read_uevents(int fd, const char *devname, uint64_t *stamp, struct seen *seen,
			 int *n_seen)
{
	char buf[8192];
	struct sockaddr_nl from;
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr msg = {
		.msg_name = &from,
		.msg_namelen = sizeof(from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};

	for (;;) {
		ssize_t n = recvmsg(fd, &msg, 0);
		uint64_t t = now_ns();
		const char *name;

		if (n <= 0)
			return; /* EAGAIN: drained; ENOBUFS: go on */
		buf[n] = '\0';
		msg.msg_namelen = sizeof(from);
		if (from.nl_pid != 0)
			continue;
		name = block_add_name(buf, (size_t)n);
		if (!name)
			continue;
		if (!*stamp && strcmp(name, devname) == 0)
			*stamp = t;
		if (*n_seen < MAX_SEEN) {
			snprintf(seen[*n_seen].name, sizeof(seen[0].name), "%s", name);
			seen[(*n_seen)++].ns = t;
		}
	}
}

/* SCHED_FIFO for this process only: musl's sched_setscheduler() is a stub. */
static int go_realtime(void)
{
	struct sched_param sp = { .sched_priority = 50 };

	return (int)syscall(SYS_sched_setscheduler, 0, SCHED_FIFO | SCHED_RESET_ON_FORK,
			    &sp);
}

static pid_t start_waiter(char **argv, const sigset_t *oldmask)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);

		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
		}
		sigprocmask(SIG_SETMASK, oldmask, NULL);
		execv(argv[0], argv);
		fprintf(stderr, "guest-stamp: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static void reap(struct waiter *w, int n, int *running)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		uint64_t t = now_ns();

		for (int i = 0; i < n; i++) {
			if (w[i].pid == pid && w[i].status == -1) {
				w[i].status = status;
				w[i].exit_ns = t;
				(*running)--;
			}
		}
	}
}

static int cmd_race(int argc, char **argv)
{
	struct waiter w[MAX_WAITERS];
	struct seen seen[MAX_SEEN];
	int n_seen = 0;
	const char *devname;
	uint64_t start, deadline, uevent_ns = 0;
	int n = 0, running = 0, ufd, sfd, rt;
	sigset_t mask, oldmask;
	long timeout_s;

	if (argc < 5 || parse_long(argv[2], 1, 86400, &timeout_s) < 0)
		return usage();
	devname = argv[1];
	for (int i = 3; i < argc;) {
		if (n == MAX_WAITERS || i + 1 >= argc || strcmp(argv[i + 1], "::") == 0)
			return usage();
		w[n].name = argv[i];
		w[n].argv = argv + i + 1;
		w[n].status = -1;
		w[n].exit_ns = 0;
		for (i += 2; i < argc && strcmp(argv[i], "::") != 0; i++)
			;
		if (i < argc)
			argv[i++] = NULL; /* ends this waiter's argv */
		n++;
	}

	ufd = uevent_socket();
	if (ufd < 0) {
		perror("guest-stamp: uevent socket");
		return 3;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &oldmask);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0) {
		perror("guest-stamp: signalfd");
		return 3;
	}
	rt = go_realtime() == 0;

	start = now_ns();
	for (int i = 0; i < n; i++) {
		w[i].pid = start_waiter(w[i].argv, &oldmask);
		if (w[i].pid < 0) {
			perror("guest-stamp: fork");
			return 3;
		}
		running++;
	}
	printf("BENCH-READY %llu fifo=%d\n", (unsigned long long)start, rt);
	fflush(stdout);

	deadline = start + (uint64_t)timeout_s * 1000000000u;
	while (running > 0 || !uevent_ns) {
		struct pollfd pfd[2] = { { ufd, POLLIN, 0 }, { sfd, POLLIN, 0 } };
		uint64_t t = now_ns();
		struct signalfd_siginfo si;

		if (t >= deadline)
			break;
		if (poll(pfd, 2, (int)((deadline - t) / 1000000u) + 1) < 0 &&
		    errno != EINTR) {
			perror("guest-stamp: poll");
			break;
		}
		if (pfd[0].revents)
			read_uevents(ufd, devname, &uevent_ns, seen, &n_seen);
		if (pfd[1].revents) {
			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				;
			reap(w, n, &running);
		}
	}
	for (int i = 0; i < n; i++) {
		if (w[i].status == -1) {
			kill(w[i].pid, SIGKILL);
			waitpid(w[i].pid, NULL, 0);
			w[i].status = -2;
		}
	}

	printf("BENCH-UEVENTS");
	for (int i = 0; i < n_seen; i++)
		printf(" %s:%llu", seen[i].name, (unsigned long long)seen[i].ns);
	printf("\n");
	printf("BENCH-RESULT %llu %llu", (unsigned long long)start,
	       (unsigned long long)uevent_ns);
	for (int i = 0; i < n; i++) {
		int s = w[i].status;

		if (s == -2)
			printf(" %s:killed:0", w[i].name);
		else if (WIFSIGNALED(s))
			printf(" %s:sig%d:%llu", w[i].name, WTERMSIG(s),
			       (unsigned long long)w[i].exit_ns);
		else
			printf(" %s:%d:%llu", w[i].name, WEXITSTATUS(s),
			       (unsigned long long)w[i].exit_ns);
	}
	printf("\n");
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (strcmp(argv[1], "race") == 0)
		return cmd_race(argc - 1, argv + 1);
	if (strcmp(argv[1], "poll") == 0)
		return cmd_poll(argc - 1, argv + 1);
	if (strcmp(argv[1], "delay") == 0)
		return cmd_delay(argc - 1, argv + 1);
	return usage();
}
