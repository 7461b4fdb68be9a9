/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * startup.h - what every program (waitdev, rootwait, consolewait, the
 * modprobe entry) does first, before it opens anything.
 *
 * An initramfs's /init may run with descriptors 0-2 closed (the kernel's
 * "unable to open an initial console"). The first descriptors a program
 * then opens become its stdin, stdout and stderr: a printf() lands in a
 * netlink socket, and a dup2(fd, fd) onto 0-2 silently does nothing.
 * mdevd's fd_sanitize() is the model.
 */
#ifndef WAITDEV_STARTUP_H
#define WAITDEV_STARTUP_H

/*
 * Opens /dev/null on each of 0, 1 and 2 that is closed (or, without
 * /dev/null, an O_PATH descriptor of "/" that reads and writes nothing),
 * so that nothing the program opens later takes their place.
 */
void startup_fds(void);

#endif
