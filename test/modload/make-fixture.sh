#!/bin/sh
# Builds a tiny module tree for the libkmod tests: three fake modules
# (ELF objects with a .modinfo section, no code that could ever load)
# and the indexes depmod makes from them, in OUTDIR/lib/modules/VERSION.
#   fake_a  alias pci:v00008086d00001234sv*sd*bc*sc*i*; exports a symbol
#   fake_b  alias usb:v1234p5678d*dc*dsc*dp*ic08isc06ip50in*; uses fake_a's
#           symbol (modules.dep) and has softdep pre: fake_c
#   fake_c  no alias
set -eu
out=$1
version=6.1.0-waitdev-fixture
cc=${CC:-cc}
depmod=$(command -v depmod || echo /sbin/depmod)
dir=$out/lib/modules/$version/kernel
mkdir -p "$dir"
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT

modinfo() {	# modinfo NAME "KEY=VALUE\0..."
	printf 'static const char modinfo[] __attribute__((section(".modinfo"), used, aligned(1))) =\n\t"license=GPL\\0name=%s\\0vermagic=%s SMP mod_unload \\0%s";\n' \
		"$1" "$version" "$2"
}
{
	modinfo fake_a 'alias=pci:v00008086d00001234sv*sd*bc*sc*i*\0'
	echo 'int fake_a_helper(void) { return 1; }'
	echo 'static const char ksymtab_strings[] __attribute__((section("__ksymtab_strings"), used, aligned(1))) = "fake_a_helper";'
} > "$src/fake_a.c"
{
	modinfo fake_b 'alias=usb:v1234p5678d*dc*dsc*dp*ic08isc06ip50in*\0softdep=pre: fake_c\0'
	echo 'extern int fake_a_helper(void);'
	echo 'int fake_b_init(void) { return fake_a_helper(); }'
} > "$src/fake_b.c"
modinfo fake_c '' > "$src/fake_c.c"
for m in fake_a fake_b fake_c; do
	"$cc" -c "$src/$m.c" -o "$dir/$m.ko"
done
"$depmod" -b "$out" "$version" 2>/dev/null
# fail loudly if depmod did not produce what the tests rely on
grep -q 'fake_b.ko: kernel/fake_a.ko' "$out/lib/modules/$version/modules.dep"
grep -q 'softdep fake_b pre: fake_c' "$out/lib/modules/$version/modules.softdep"
echo "$out/lib/modules/$version"
