// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-log.c - the log's /dev/kmsg descriptor. (Until module loading moved
 * to a process of its own, a worker thread logged while the main thread
 * reopened kmsg, and this file raced the two; no thread is left.)
 */
#include <fcntl.h>
#include <unistd.h>

#include "log.h"
#include "test.h"

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
	return test_summary("test-log");
}
