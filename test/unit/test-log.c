// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-log.c - the log from two threads: libkmod's worker (detached while
 * a module loads, see modload_free()) keeps logging while the main thread
 * closes and reopens /dev/kmsg (log_close_kmsg(), consolewait's
 * kmsg_no_console()). A record must never go to a descriptor that was
 * closed under it and reused for another file. The interleaving that
 * shows it is rare in a plain build; ThreadSanitizer (-Db_sanitize=thread)
 * reports the unsynchronised kmsg_fd on every run.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "test.h"

#define ROUNDS 20000

static atomic_bool stop;

static void *logger(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		log_msg(LOG_LVL_ERR, "worker: loaded a module");
	return NULL;
}

static void test_kmsg_reopen_race(void)
{
	char dir[] = "/tmp/test-log-XXXXXX";
	char kmsg[64], other[64];
	int saved, null, bad = 0;
	struct stat st;
	pthread_t t;
	int i;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(kmsg, sizeof(kmsg), "%s/kmsg", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	CHECK_INT(close(open(kmsg, O_WRONLY | O_CREAT, 0600)), 0);
	log_set_level(LOG_LVL_ERR);
	CHECK_INT(log_open_kmsg(kmsg), 0);
	/* the worker's lines on stderr are not the test's output */
	saved = dup(STDERR_FILENO);
	null = open("/dev/null", O_WRONLY);
	dup2(null, STDERR_FILENO);
	close(null);
	CHECK_INT(pthread_create(&t, NULL, logger, NULL), 0);
	for (i = 0; i < ROUNDS; i++) {
		int fd;

		log_close_kmsg();
		/* most likely the number kmsg had: what a late write hits */
		fd = open(other, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
		bad += fd < 0;
		close(fd);
		bad += log_open_kmsg(kmsg) < 0;
	}
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	dup2(saved, STDERR_FILENO);
	close(saved);
	log_close_kmsg();
	CHECK_INT(bad, 0);
	CHECK_INT(stat(other, &st), 0);
	CHECK_MSG(st.st_size == 0, "%lld bytes of kmsg records in %s",
		  (long long)st.st_size, other);
	CHECK_INT(stat(kmsg, &st), 0);
	CHECK(st.st_size > 0);
	unlink(kmsg);
	unlink(other);
	rmdir(dir);
}

/*
 * Started with 0 closed, the kmsg descriptor must not take it: consolewait
 * replaces 0-2 by the console, and a dup2() onto itself would keep its
 * O_CLOEXEC (issue 13, item 3).
 */
static void test_kmsg_not_stdio(void)
{
	int saved = dup(STDIN_FILENO);

	CHECK(saved > STDERR_FILENO);
	close(STDIN_FILENO);
	CHECK_INT(log_open_kmsg("/dev/null"), 0);
	CHECK_MSG(fcntl(STDIN_FILENO, F_GETFD) < 0, "the kmsg descriptor took fd 0");
	log_close_kmsg();
	CHECK_INT(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
}

int main(void)
{
	test_kmsg_not_stdio();
	test_kmsg_reopen_race();
	return test_summary("test-log");
}
