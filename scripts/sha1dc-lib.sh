#!/usr/bin/env bash
# sha1dc-lib: the drop-in libsha1detectcoll (crates/fastcrypt-sha1dc),
# built and laid out for installing under the reference's names.
#
#   scripts/sha1dc-lib.sh [--locked|--frozen|--offline|-q|-v]...
#   scripts/sha1dc-lib.sh prelink IN.a OUT.a   # the archive step alone
#
# Staging builds the crate in release and writes, in the target
# directory (`cargo metadata`'s, so CARGO_TARGET_DIR and build.target-dir
# are honoured),
#
#   sha1dc/lib/libsha1detectcoll.so.1   the shared library (soname)
#   sha1dc/lib/libsha1detectcoll.so     -> libsha1detectcoll.so.1
#   sha1dc/lib/libsha1detectcoll.a      the static library, prelinked
#   sha1dc/include/sha1dc/sha1.h        the header
#
# for crates/fastcrypt-sha1dc/README.md's install commands. Other cargo
# options (--target, --target-dir, profiles) are refused: the files are
# taken from the host's release directory.
#
# Why prelink: the archive cargo writes is every object of the crate, of
# fastcrypt and of Rust's standard library, all with global symbols. A
# program that links a second Rust static library (git with its Rust
# parts, say) then fails with "multiple definition of
# `rust_eh_personality'". `prelink` joins the objects into one
# relocatable object (`ld -r`), keeping only what the API functions reach
# (--gc-sections), and makes every symbol but the API's (`SHA1DC*`)
# local. Three more steps keep the result linkable beside another Rust
# runtime: the undefined symbols that only removed code referenced are
# dropped (objcopy would otherwise turn std's weak references to newer
# glibc functions, `pidfd_spawnp`, into strong ones that fail to link on
# older systems, and the script checks that no weak reference became
# strong); the COMDAT groups are dissolved (every Rust object has a
# `DW.ref.rust_eh_personality` group, and the linker keeps one group per
# name, leaving our code pointing at the other library's copy); and the
# LLVM bitcode sections are dropped (a linker's LTO plugin would try to
# read them, and fails on the joined section). It needs GNU binutils
# (ld, objcopy, ar, readelf). The crate's tests link the C test program
# against the result, beside a Rust static library of their own in
# either order, and check that it defines nothing global but the API.
set -euo pipefail

die() {
  echo "sha1dc-lib: $*" >&2
  exit 1
}

# The functions the header declares: the only global symbols the archive
# keeps.
API_GLOB='SHA1DC*'

need_binutils() {
  for tool in ld objcopy ar readelf; do
    command -v "$tool" >/dev/null || die "$tool not found (GNU binutils)"
  done
}

# The names of the symbols of an object or archive with binding $2 that
# are undefined ($3 = UND) or defined ($3 = DEF); readelf, not nm (see
# below).
symbols() {
  readelf -sW "$1" 2>/dev/null |
    awk -v bind="$2" -v want="$3" '$5 == bind && $8 != "" &&
      ((want == "UND" && $7 == "UND") || (want == "DEF" && $7 != "UND")) {print $8}' |
    sort -u
}

prelink() {
  local in=$1 out=$2
  [ -f "$in" ] || die "no archive $in"
  need_binutils
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # The API's entry points are the roots --gc-sections keeps; the same
  # names the header declares, read from the archive itself (readelf, not
  # nm: nm hands objects with LLVM bitcode to a plugin, which may be too
  # old to read them and then reports no symbols).
  local roots=()
  local sym
  while read -r sym; do
    roots+=(-u "$sym")
  done < <(symbols "$in" GLOBAL DEF | grep '^SHA1DC')
  [ ${#roots[@]} -gt 0 ] || die "$in defines no SHA1DC* function"
  # An archive of 32-bit objects needs ld's i386 emulation on an x86-64
  # host; the others are linked as the host's.
  # (awk reads readelf's whole output: a reader that quit at the first
  # match would make the pipeline fail under pipefail.)
  local emul=() class
  class=$(readelf -h "$in" 2>/dev/null | awk '/Class:/ && !c {c = $2} END {print c}')
  if [ "$class" = ELF32 ]; then
    emul=(-m elf_i386)
  fi
  ld -r ${emul[@]+"${emul[@]}"} --gc-sections "${roots[@]}" -o "$tmp/joined.o" \
    --whole-archive "$in" --no-whole-archive
  # References that only the removed sections made: ld leaves them as
  # local undefined symbols, which objcopy would make global and strong.
  symbols "$tmp/joined.o" LOCAL UND >"$tmp/dead-refs"
  objcopy --wildcard --keep-global-symbol="$API_GLOB" \
    --strip-unneeded-symbols="$tmp/dead-refs" \
    --remove-section=.group \
    --remove-section=.llvmbc --remove-section=.llvmcmd \
    "$tmp/joined.o" "$tmp/sha1detectcoll.o"
  # No weak reference of the input may have become a strong one.
  local strong
  strong=$(comm -12 <(symbols "$in" WEAK UND) <(symbols "$tmp/sha1detectcoll.o" GLOBAL UND))
  [ -z "$strong" ] || die "weak references became strong: $(echo "$strong" | tr '\n' ' ')"
  # Nothing global but the API.
  local extra
  extra=$(symbols "$tmp/sha1detectcoll.o" GLOBAL DEF | grep -v '^SHA1DC' || true)
  [ -z "$extra" ] || die "global symbols besides the API: $(echo "$extra" | tr '\n' ' ')"
  rm -f "$tmp/out.a"
  ar crs "$tmp/out.a" "$tmp/sha1detectcoll.o"
  mv "$tmp/out.a" "$out"
}

if [ "${1:-}" = prelink ]; then
  [ $# -eq 3 ] || die "usage: $0 prelink IN.a OUT.a"
  prelink "$2" "$3"
  exit 0
fi

cd "$(dirname "$0")/.."
for a in "$@"; do
  case $a in
    --locked | --frozen | --offline | -q | --quiet | -v | --verbose) ;;
    *) die "unsupported option $a (the staged files come from the host's release build)" ;;
  esac
done
[ -z "${CARGO_BUILD_TARGET:-}" ] || die "CARGO_BUILD_TARGET is set: the staged files come from the host's release build"
need_binutils
cargo build --release -p fastcrypt-sha1dc "$@"
target=$(cargo metadata --format-version 1 --no-deps "$@" |
  sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
[ -d "$target/release" ] || die "cannot find the target directory (cargo metadata said '$target')"
rel=$target/release
stage=$target/sha1dc
rm -rf "$stage"
install -d "$stage/lib" "$stage/include/sha1dc"
install -m 0755 "$rel/libsha1detectcoll.so" "$stage/lib/libsha1detectcoll.so.1"
ln -s libsha1detectcoll.so.1 "$stage/lib/libsha1detectcoll.so"
prelink "$rel/libsha1detectcoll.a" "$stage/lib/libsha1detectcoll.a"
install -m 0644 crates/fastcrypt-sha1dc/include/sha1dc/sha1.h "$stage/include/sha1dc/sha1.h"
echo "staged in $stage:"
(cd "$stage" && find . -mindepth 2 \( -type f -o -type l \) | sort | sed 's/^\.\//  /')
echo "to install it: crates/fastcrypt-sha1dc/README.md, \"Installing under the reference's name\""
