#!/bin/sh
# shellcheck disable=SC2086 # $wrap is split on purpose: a command prefix
# The waitdev binary called as "modprobe" (the kernel's module helper):
# dry-run loads with dependencies and softdeps, exit 1 for an unknown
# module, and how it answers without libkmod.
#   modprobe-entry.sh WAITDEV MAKE-FIXTURE.SH
# WAITDEV_WRAPPER, when set, goes before every run of waitdev (valgrind:
# tools/valgrind).
set -u
wrap=${WAITDEV_WRAPPER:-}
waitdev=$1
fixture=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {	# check DESCRIPTION COMMAND...: the command must succeed
	desc=$1
	shift
	if "$@"; then
		echo "ok: $desc"
	else
		echo "FAILED: $desc"
		fail=1
	fi
}
ln -s "$(readlink -f "$waitdev")" "$tmp/modprobe"
if $wrap "$waitdev" --version | grep -q 'modload: none'; then
	$wrap "$tmp/modprobe" -q fs-ext4 2>"$tmp/err"
	check "exit 1 without libkmod" test $? = 1
	check "says why" grep -q 'built without libkmod' "$tmp/err"
	exit $fail
fi
dir=$(sh "$fixture" "$tmp/tree") || { echo "FAILED: fixture"; exit 1; }
$wrap "$tmp/modprobe" -n -d "$dir" \
	usb:v1234p5678d0100dc00dsc00dp00ic08isc06ip50in00 2>"$tmp/err"
check "dry run by alias exits 0" test $? = 0
check "dependency, softdep, module in that order" \
	test "$(sed -n 's/.*would load //p' "$tmp/err" | tr '\n' ' ')" = \
	"fake_a fake_c fake_b "
$wrap "$tmp/modprobe" -n -d "$dir" fake_c 2>"$tmp/err"
check "dry run by name exits 0" test $? = 0
check "by name loads just it" grep -q 'would load fake_c' "$tmp/err"
$wrap "$tmp/modprobe" -q -n -d "$dir" -- no_such_module 2>"$tmp/err"
check "unknown module exits 1" test $? = 1
check "-q keeps it quiet" test ! -s "$tmp/err"
$wrap "$tmp/modprobe" 2>"$tmp/err"
check "no name is a usage error (2)" test $? = 2
echo "modprobe-entry: $( [ $fail = 0 ] && echo passed || echo failed)"
exit $fail
