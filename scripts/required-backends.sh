#!/usr/bin/env bash
# Prints, comma-separated, the backends this CPU must run in a build for
# ARCH (x86_64, the default, or x86 for 32-bit builds), from the flags
# /proc/cpuinfo advertises: the value for FASTCRYPT_REQUIRE_BACKENDS, which
# turns a kernel that detection wrongly skips into a failed test. One list
# for scripts/test.sh (x86-64) and scripts/test-i686.sh (32-bit x86).
#
# Each line pairs a backend name with the flags it needs; a backend that
# only one architecture has says so.
set -euo pipefail
arch=${1:-x86_64}
case "$arch" in
  x86_64 | x86) ;;
  *) echo "usage: $0 [x86_64|x86]" >&2; exit 2 ;;
esac
[ -r /proc/cpuinfo ] || exit 0
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2 || true) "
required=()
# need NAME ARCHES FLAG...: NAME is required when every FLAG is present and
# the build's architecture is in ARCHES ("any", or a comma list).
need() {
  local name=$1 arches=$2 f
  shift 2
  [ "$arches" = any ] || [[ ",$arches," == *",$arch,"* ]] || return 0
  for f in "$@"; do [[ "$flags" == *" $f "* ]] || return 0; done
  required+=("$name")
}
# GHASH without carry-less multiply, and AES-GCM's pair built on it.
need sse2 any sse2
need aes_sse2 any sse2
need ssse3 any ssse3
need avx2 any avx2 bmi1 bmi2
need shani any sha_ni sse4_1
need pclmul any pclmulqdq ssse3 sse4_1
need vpclmul any vpclmulqdq avx2
need avx512 any avx512f avx512bw
need vpclmul_avx512 any vpclmulqdq avx512f avx512bw avx512vl
need aesni_pclmul any aes pclmulqdq ssse3 sse4_1
need vaes_vpclmul any vaes vpclmulqdq aes pclmulqdq avx2
need vaes_avx512 any vaes vpclmulqdq aes pclmulqdq avx512f avx512bw avx512vl
# RC4's asm kernels: one per register file.
need x86_64 x86_64 sse4_1
need x86 x86 sse2
(IFS=,; echo "${required[*]:-}")
