#!/bin/sh
# Prints the sizes of the static waitdev binaries (tools/build-static)
# next to what an initramfs would otherwise carry to do the same job:
# busybox-static and Debian's udevadm with the shared libraries it needs.
# Targets: < 512 KiB with libblkid and libkmod, < 128 KiB with neither.
#   bench/sizes.sh [BUILD-STATIC-DIR]
set -eu
dir=${1:-$(dirname "$0")/../build-static}
kib() { echo $(( ($(stat -L -c %s "$1") + 1023) / 1024 )); }
row() { printf '%-58s %8s\n' "$1" "$2"; }

echo "command: $0 $*"
echo "date:    $(date '+%Y-%m-%d %H:%M:%S %z')"
row "file" "KiB"
for f in "$dir"/bin/waitdev "$dir"/bin-min/waitdev; do
	[ -e "$f" ] || { echo "sizes: $f missing: run tools/build-static" >&2; exit 1; }
	row "$(basename "$(dirname "$f")")/waitdev ($("$f" --version | sed 's/^[^(]*(//; s/, udev.*//'))" "$(kib "$f")"
done
total=0
for p in waitdev rootwait consolewait; do
	total=$((total + $(kib "$dir/bin/$p")))
done
row "bin/: three separate programs instead of one plus links" "$total"
if [ -e /bin/busybox ]; then
	row "busybox-static (/bin/busybox)" "$(kib /bin/busybox)"
fi
udevadm=$(command -v udevadm || true)
if [ -n "$udevadm" ]; then
	libs=$(ldd "$udevadm" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }')
	sum=$(kib "$udevadm")
	for l in $libs; do
		sum=$((sum + $(kib "$l")))
	done
	row "udevadm" "$(kib "$udevadm")"
	row "udevadm + its shared libraries (incl. glibc)" "$sum"
fi
max=$(kib "$dir/bin/waitdev")
min=$(kib "$dir/bin-min/waitdev")
[ "$max" -lt 512 ] && [ "$min" -lt 128 ] &&
	echo "targets met: $max KiB < 512, $min KiB < 128" ||
	{ echo "targets MISSED: $max KiB (< 512), $min KiB (< 128)"; exit 1; }
