// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util.h"

bool strscpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size == 0)
		return false;
	if (len >= size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return false;
	}
	memcpy(dst, src, len + 1);
	return true;
}

int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned d;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int parse_seconds_ms(const char *s, uint64_t *ms)
{
	char whole[24];
	const char *dot = strchr(s, '.');
	uint64_t sec, frac = 0;
	size_t n = dot ? (size_t)(dot - s) : strlen(s);
	int r;

	if (n == 0 || n >= sizeof(whole))
		return n == 0 ? -EINVAL : -ERANGE;
	memcpy(whole, s, n);
	whole[n] = '\0';
	r = parse_u64(whole, &sec);
	if (r < 0)
		return r;
	if (dot) {
		const char *f = dot + 1;
		unsigned i;

		if (!*f)
			return -EINVAL;
		for (i = 0; f[i]; i++) {
			if (f[i] < '0' || f[i] > '9')
				return -EINVAL;
			if (i < 3)
				frac = frac * 10 + (uint64_t)(f[i] - '0');
		}
		for (; i < 3; i++)
			frac *= 10;
	}
	/* a year is enough for anyone waiting at boot; beyond is a typo */
	if (sec > 366ULL * 24 * 3600)
		return -ERANGE;
	*ms = sec * 1000 + frac;
	return 0;
}

bool relpath_is_safe(const char *p)
{
	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!p[n])
			return true;
		p += n + 1;
	}
}

bool udev_unescape(const char *in, char *out, size_t size)
{
	size_t o = 0;

	while (*in) {
		unsigned v;

		if (o + 1 >= size)
			return false;
		if (in[0] == '\\' && in[1] == 'x' &&
		    isxdigit((unsigned char)in[2]) &&
		    isxdigit((unsigned char)in[3]) &&
		    sscanf(in + 2, "%2x", &v) == 1 && v != 0) {
			out[o++] = (char)v;
			in += 4;
		} else {
			out[o++] = *in++;
		}
	}
	out[o] = '\0';
	return true;
}

void escape_controls(const char *in, char *out, size_t size)
{
	size_t o = 0;

	if (size == 0)
		return;
	for (; *in; in++) {
		unsigned char c = (unsigned char)*in;
		bool ctrl = c < 0x20 || c == 0x7f;

		if (o + (ctrl ? 4 : 1) >= size)
			break;
		if (ctrl)
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
}

void error_vformat(char *err, size_t size, const char *fmt, va_list ap)
{
	char raw[1024];

	if (!err || size == 0)
		return;
	vsnprintf(raw, sizeof(raw), fmt, ap);
	escape_controls(raw, err, size);
}

ssize_t read_file_at(int dirfd, const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = -1;
	size_t len = 0;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t now_ms(void)
{
	return now_ns() / 1000000ULL;
}
