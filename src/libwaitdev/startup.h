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

/*
 * Blocks the signals that interrupt a wait (engine_wait_signals()), first
 * thing, before any child exists: libkmod's loader process inherits the
 * mask, so that no signal but SIGKILL interrupts a module's init. They stay
 * blocked until the exit: once the outcome is decided, a signal that
 * comes later is discarded and the exit status matches what was printed.
 *
 * It also ignores SIGPIPE: a reader that went away is EPIPE (out.h).
 *
 * Not for the modprobe entry: it has no signalfd, and a signal's default
 * action is what the kernel's module helper should get there.
 */
void startup_signals(void);

/*
 * Before exec: discards the wait's signals still pending and restores the
 * signal mask and SIGPIPE's action the program started with, for CMD.
 */
void startup_restore(void);

#endif
