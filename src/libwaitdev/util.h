/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* util.h - small helpers shared by every module of libwaitdev. */
#ifndef WAITDEV_UTIL_H
#define WAITDEV_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)

static inline bool streq(const char *a, const char *b)
{
	return a && b && __builtin_strcmp(a, b) == 0;
}

/* Copies at most @size - 1 bytes and always terminates; returns false
 * when @src did not fit. */
bool strscpy(char *dst, const char *src, size_t size);

/* Strict unsigned decimal parse of the whole string; -EINVAL or -ERANGE. */
int parse_u64(const char *s, uint64_t *out);
/*
 * Parses a non-negative decimal number of seconds with up to millisecond
 * precision ("3", "2.5", "0.010") into milliseconds.
 */
int parse_seconds_ms(const char *s, uint64_t *ms);

/*
 * A relative path whose every component is a real name: not empty, not
 * "." or ".." (a DEVNAME below /dev, a DEVPATH below /sys without its
 * leading '/'). Such a path cannot climb out of the directory it is
 * opened in.
 */
bool relpath_is_safe(const char *p);

/* The byte two hex digits at @s spell, -1 when they are not two. */
int hex_byte(const char *s);

/*
 * Decodes udev's \xNN escapes (DEVLINKS, /dev/disk/by-label names,
 * ID_FS_LABEL_ENC) into @out; false when it does not fit.
 */
bool udev_unescape(const char *in, char *out, size_t size);

/*
 * Copies @in to @out with every control character (below 0x20, and DEL)
 * written as udev's "\xNN", the form udev_unescape() reads: a message
 * quoting what a user or a device gave stays one line and cannot drive
 * the console's terminal. Cut at @size, never inside an escape.
 */
void escape_controls(const char *in, char *out, size_t size);

/*
 * The length of the UTF-8 sequence @s starts with when it is a valid one
 * (1 for ASCII, 2 to 4 else), 0 when it is not: no overlong form, no
 * surrogate, nothing above U+10FFFF, no sequence cut by the string's end.
 */
size_t utf8_char_len(const char *s);

/*
 * Copies @in to @out for one line of text a human reads: control
 * characters (C0, DEL and C1), a backslash and every byte that is not
 * part of valid UTF-8 as udev's "\xNN", the form udev_unescape() reads.
 * What does not fit in @size (at least 32) is cut, never inside an
 * escape or a character, and ends in "...(truncated)". Returns false
 * when cut. A name a device gave cannot break the line, drive the
 * terminal or make the line unbounded.
 */
bool escape_name(const char *in, char *out, size_t size);

/*
 * vsnprintf() into @err (if any) through escape_controls(): how the
 * parsers fill in the error message they return.
 */
void error_vformat(char *err, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* error_vformat() with the arguments here; returns -EINVAL, what the
 * parsers return with the message. */
int parse_error(char *err, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Whether -errno @r says this process or the system ran out of something
 * (descriptors, memory) rather than anything about the file: then what
 * was being read is unknown, not absent.
 */
static inline bool errno_is_resource(int r)
{
	return r == -EMFILE || r == -ENFILE || r == -ENOMEM;
}

/* Reads a whole small file into @buf (NUL-terminated); returns the length
 * or a negative errno. */
ssize_t read_file_at(int dirfd, const char *path, char *buf, size_t size);

/* Opens the directory @path below @dirfd for readdir(): 0 with *@out set
 * (closedir() it), or a negative errno. */
int opendir_at(int dirfd, const char *path, DIR **out);

/* @fd, or in its place a close-on-exec duplicate above 2 when it is one of
 * 0-2 (@fd is closed): a descriptor of ours must not be stdio, which
 * consolewait replaces by the console (dup2(fd, fd) would keep O_CLOEXEC).
 * Returns the descriptor or a negative errno. */
int fd_above_stdio(int fd);

/*
 * In a child fork()ed from us: closes every descriptor above 2 but the
 * @n in @keep (negative ones ignored), so that it holds none of the
 * parent's sockets, pipes and timers.
 */
void close_fds_except(const int *keep, size_t n);

/* CLOCK_MONOTONIC in milliseconds / nanoseconds. */
uint64_t now_ms(void);
uint64_t now_ns(void);
/* CLOCK_BOOTTIME in milliseconds: since boot, the kernel log's clock. */
uint64_t boot_ms(void);

#endif
