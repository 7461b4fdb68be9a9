#!/bin/busybox sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# /bench/init in the initramfs of bench/qemu-bench.py: the harness's /init
# runs it (after WAITDEV-INIT-START) when the command line says bench=MODE.
#
# bench=race benchplugs=N benchuuid=UUID
#   loads the USB and disk drivers, then N times: starts waitdev and the
#   polling loops together under `guest-stamp race` (which prints
#   BENCH-READY: the host plugs the stick, and BENCH-RESULT: the stamps),
#   says BENCH-DONE (the host unplugs), waits until sda is gone.
# bench=rootdelay rootdelay=N root=DEV
#   what a kernel with the drivers built in does with rootdelay=N and no
#   initramfs: load the drivers, sleep N seconds, mount root= and go on.
mode=$1
plugs=20
uuid=
delay=10
root=/dev/sda1
for arg in $(cat /proc/cmdline); do
	case $arg in
	benchplugs=*) plugs=${arg#benchplugs=} ;;
	benchuuid=*) uuid=${arg#benchuuid=} ;;
	rootdelay=*) delay=${arg#rootdelay=} ;;
	root=*) root=${arg#root=} ;;
	esac
done
uptime() { cut -d' ' -f1 /proc/uptime; }

# as the kernel would have them, built in: loaded before anything waits
for m in xhci_pci usb_storage sd_mod; do
	/sbin/modprobe "$m" || echo "BENCH-ERROR modprobe $m"
done

case $mode in
race)
	sleep 1	# the root hubs settle
	gs=/bench/guest-stamp
	t=30	# every waiter's own timeout
	# waitdev built without libblkid: ready at size > 0, like the loops
	min=
	if [ -x /bench/waitdev-min ]; then
		min=":: waitdev-nolibs /bench/waitdev-min -q --no-kmsg
			--source kernel --root /dev/sda1 --timeout $t"
	fi
	i=1
	while [ "$i" -le "$plugs" ]; do
		echo "BENCH-ROUND $i $(uptime)"
		# waitdev -v: its probe lines ("sda1: probe: N reads, ...")
		# go with guest-stamp's stderr to a file in the initramfs, printed
		# after the round, so the console never slows a waiter
		# shellcheck disable=SC2086
		$gs race sda1 $((t + 10)) \
			waitdev /sbin/waitdev -v --no-kmsg --source kernel \
				--root /dev/sda1 --timeout $t $min \
			:: poll-1000ms-findfs $gs poll 1000 $t \
				--exec /bin/findfs "UUID=$uuid" \
			:: poll-500ms $gs poll 500 $t /dev/sda1 \
			:: poll-50ms $gs poll 50 $t /dev/sda1 \
			:: poll-5ms $gs poll 5 $t /sys/class/block/sda1 \
			:: rootdelay-10s $gs delay 10000 /dev/sda1 \
			2>/bench/stderr
		grep ': probe: ' /bench/stderr |
			sed "s/^/BENCH-PROBE $i /"
		# anything else guest-stamp or a waiter said but the waitdev -v
		# lines
		grep -v '^waitdev: ' /bench/stderr >&2
		echo "BENCH-DONE $i"
		n=0
		while [ -e /sys/class/block/sda ] && [ "$n" -lt 300 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		echo "BENCH-GONE $i $(uptime)"
		sleep 0.5
		i=$((i + 1))
	done
	echo "BENCH-FINISHED $(uptime)"
	;;
rootdelay)
	echo "BENCH-ROOTDELAY $delay $(uptime)"
	sleep "$delay"
	# the harness's: mount, switch_root (or say it failed, power off)
	exec /sbin/switch-to-root "$root" "${fstype:-ext4}"
	;;
*)
	echo "BENCH-ERROR unknown mode $mode"
	;;
esac
poweroff -f
