// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Not sscanf("%2x"): a static build would carry scanf and the float
 * parser for it. */
int hex_byte(const char *s)
{
	int hi = hex_digit(s[0]), lo = hi < 0 ? -1 : hex_digit(s[1]);

	return lo < 0 ? -1 : hi << 4 | lo;
}

bool udev_unescape(const char *in, char *out, size_t size)
{
	size_t o = 0;

	while (*in) {
		int v;

		if (o + 1 >= size)
			return false;
		if (in[0] == '\\' && in[1] == 'x' && (v = hex_byte(in + 2)) > 0) {
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

size_t utf8_char_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	/* a NUL is no continuation byte: a cut sequence ends here */
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)))
		return 0;
	if (n == 4 && (cp < 0x10000 || cp > 0x10ffff))
		return 0;
	return n;
}

bool escape_name(const char *in, char *out, size_t size)
{
	static const char cut[] = "...(truncated)";
	/* the longest output so far that leaves room for the cut mark */
	size_t o = 0, mark = 0;

	if (size < sizeof(cut) + 16) {
		if (size)
			out[0] = '\0';
		return false;
	}
	while (*in) {
		const unsigned char *c = (const unsigned char *)in;
		size_t n = utf8_char_len(in), i;
		/* U+0080..U+009F, the C1 controls: ESC [ for some terminals */
		bool esc = n <= 1 || (n == 2 && c[0] == 0xc2 && c[1] < 0xa0);

		if (n == 1 && c[0] >= 0x20 && c[0] != 0x7f && c[0] != '\\')
			esc = false;
		if (n == 0)
			n = 1;
		if (o + (esc ? 4 * n : n) >= size) {
			memcpy(out + mark, cut, sizeof(cut));
			return false;
		}
		for (i = 0; i < n; i++)
			if (esc)
				o += (size_t)snprintf(out + o, size - o, "\\x%02x", c[i]);
			else
				out[o++] = (char)c[i];
		in += n;
		if (o + sizeof(cut) <= size)
			mark = o;
	}
	out[o] = '\0';
	return true;
}

void error_vformat(char *err, size_t size, const char *fmt, va_list ap)
{
	char raw[1024];

	if (!err || size == 0)
		return;
	vsnprintf(raw, sizeof(raw), fmt, ap);
	escape_controls(raw, err, size);
}

int parse_error(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_vformat(err, size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int fd_above_stdio(int fd)
{
	int hi;

	if (fd > STDERR_FILENO)
		return fd;
	hi = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	close(fd);
	return hi < 0 ? -errno : hi;
}

/* Closes [@lo, @hi]: close_range() where the kernel has it (5.9). */
static void close_between(unsigned int lo, unsigned int hi)
{
	long max;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, lo, hi, 0U) == 0)
		return;
#endif
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (; lo <= hi && lo < (unsigned long)max; lo++)
		close((int)lo);
}

void close_fds_except(const int *keep, size_t n)
{
	unsigned int lo = STDERR_FILENO + 1;

	for (;;) {
		unsigned int next = ~0U;
		size_t i;

		/* the lowest kept descriptor at or above lo */
		for (i = 0; i < n; i++)
			if (keep[i] >= 0 && (unsigned int)keep[i] >= lo &&
			    (unsigned int)keep[i] < next)
				next = (unsigned int)keep[i];
		if (next == ~0U) {
			close_between(lo, ~0U);
			return;
		}
		if (next > lo)
			close_between(lo, next - 1);
		lo = next + 1;
	}
}

int opendir_at(int dirfd, const char *path, DIR **out)
{
	int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	*out = fdopendir(fd);
	if (!*out) {
		int r = -errno;

		close(fd);
		return r;
	}
	return 0;
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

uint64_t boot_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000ULL + (uint64_t)ts.tv_nsec / 1000000ULL;
}
