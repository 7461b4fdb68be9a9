/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * coldplug.h - ask the kernel to replay "add" for devices that existed
 * before we subscribed, as udevadm trigger and mdevd-coldplug do, so that
 * their MODALIAS reaches the module loader. Only bus devices are
 * triggered: they are the ones drivers bind to.
 */
#ifndef WAITDEV_COLDPLUG_H
#define WAITDEV_COLDPLUG_H

#include "sysfs.h"

/* Writes "add" to /sys/bus/SUBSYSTEM/devices/DEV/uevent for every bus
 * device with a modalias; returns the number triggered or -errno. */
int coldplug_trigger(struct sysfs *sysfs);

#endif
