#!/usr/bin/env bash
# fastcrypt on 32-bit x86 (i686), built and tested on an x86-64 host: the
# library's unit tests and its one test binary (every backend on every
# test, the backends this CPU advertises required, as on x86-64), the
# CLI's unit tests and `fastcrypt cpu` test, then a short run of the speed
# lab built for i686. scripts/test.sh runs this.
# scripts/i686-env.sh: the toolchain (Debian's rustc-web with -Zbuild-std,
# gcc-multilib, libssl-dev:i386), which scripts/setup.sh installs.
#
# Usage: scripts/test-i686.sh [--no-speed]
set -euo pipefail
cd "$(dirname "$0")/.."
speed=1
case "${1:-}" in
  "") ;;
  --no-speed) speed=0 ;;
  *) echo "usage: $0 [--no-speed]" >&2; exit 2 ;;
esac
# shellcheck source=scripts/i686-env.sh
. scripts/i686-env.sh
echo "test-i686: $("$RUSTC" -V), std from /usr/src/rustc-$i686_rustc_ver"

# Warnings in our crates fail the run, as clippy -D warnings does on
# x86-64 (RUSTFLAGS would also apply to the std build). The 32-bit-only
# kernels are compiled here and nowhere else.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
check_warnings() {
  if grep -E '^warning: `fastcrypt[a-z-]*` \(' "$log"; then
    i686_fail "warnings in fastcrypt crates on i686 (see above)"
  fi
}

FASTCRYPT_REQUIRE_BACKENDS=$(scripts/required-backends.sh x86)
export FASTCRYPT_REQUIRE_BACKENDS
echo "test-i686: required backends: ${FASTCRYPT_REQUIRE_BACKENDS:-none}"
# Release profile, like the speed lab below. One cargo run builds the
# library's unit tests, its test binary and the CLI (its unit tests and
# a CLI test, which builds the `fastcrypt` binary): the library is then
# compiled once for the tests and the binary, and its two builds (unit
# tests and library) run on both cores at once. Split into a library run
# and a CLI run it took 523 s instead of 284 s (AMD EPYC Zen 4, sources
# touched, dependencies built).
i686 test --release -p fastcrypt -p fastcrypt-cli --lib --test all --test cpu_cli 2>&1 | tee "$log"
check_warnings

if [ "$speed" = 1 ]; then
  # The speed lab runs on i686, peers included: one short pass over
  # every primitive, sizes as in the tables.
  "$CARGO_TARGET_DIR/$i686_target/release/fastcrypt" speed --min-time 50ms --samples 5
fi
echo "test-i686: passed"
