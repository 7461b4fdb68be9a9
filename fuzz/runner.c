// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * runner.c - a fuzz target without libFuzzer: feeds every file of the
 * directories (or the files) named on the command line to
 * LLVMFuzzerTestOneInput(), in name order, one allocation of exactly
 * the file's size each. The seed corpus and every crash ever found run
 * like this in the unit suite, so a fixed bug stays fixed. Files whose
 * name starts with '.' (.gitkeep) are skipped. Exits 1 when nothing was
 * run: an empty corpus is a mistake, not a pass.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	struct stat st;
	uint8_t *data;
	size_t len = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* never a NULL pointer, even for an empty input */
	data = malloc(st.st_size > 0 ? (size_t)st.st_size : 1);
	if (!data) {
		close(fd);
		return -1;
	}
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, data + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "%s: short read\n", path);
			free(data);
			close(fd);
			return -1;
		}
		len += (size_t)n;
	}
	close(fd);
	fprintf(stderr, "%s (%zu bytes)\n", path, len);
	LLVMFuzzerTestOneInput(data, len);
	free(data);
	return 0;
}

static int skip_dot(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static int run_dir(const char *dir, unsigned *count)
{
	struct dirent **names;
	int n, i, r = 0;

	n = scandir(dir, &names, skip_dot, alphasort);
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (run_file(path) < 0)
				r = -1;
			else
				(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return r;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int i, status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR|FILE...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			status = 1;
		} else if (S_ISDIR(st.st_mode)) {
			if (run_dir(argv[i], &count) < 0)
				status = 1;
		} else if (run_file(argv[i]) < 0) {
			status = 1;
		} else {
			count++;
		}
	}
	printf("%u inputs ran without a finding\n", count);
	if (count == 0) {
		fprintf(stderr, "no input at all\n");
		return 1;
	}
	return status;
}
