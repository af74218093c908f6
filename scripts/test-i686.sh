#!/usr/bin/env bash
# fastcrypt on 32-bit x86 (i686), built and tested on an x86-64 host: the
# library's unit tests and its one test binary (every backend on every
# test, the backends this CPU advertises required, as on x86-64), then a
# short run of the speed lab built for i686. scripts/test.sh runs this;
# scripts/setup.sh installs what it needs.
#
# rustup's toolchain here cannot add targets, so this uses Debian's
# `rustc-web` compiler with its own standard-library sources
# (`rust-web-src`) and builds std for i686 with -Zbuild-std (hence
# RUSTC_BOOTSTRAP). OpenSSL, a test and speed-lab peer, is built from the
# source pinned in Cargo.lock (`openssl-src`), because the i386 libssl
# packages cannot be installed beside the amd64 ones; gcc-multilib
# compiles it and ring's C code.
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

RUSTC=/usr/bin/rustc
CARGO=/usr/bin/cargo
fail() { echo "test-i686: $*" >&2; exit 1; }
[ -x "$RUSTC" ] && [ -x "$CARGO" ] ||
  fail "Debian's rustc-web/cargo-web are not installed (scripts/setup.sh installs them)"
ver=$("$RUSTC" -V | cut -d' ' -f2)
[ -d "/usr/src/rustc-$ver/library" ] ||
  fail "no std sources for rustc $ver in /usr/src/rustc-$ver (package rust-web-src, same version as rustc-web)"
command -v i686-linux-gnu-gcc >/dev/null 2>&1 || gcc -m32 -E -x c /dev/null >/dev/null 2>&1 ||
  fail "no 32-bit C compiler (package gcc-multilib)"

export RUSTC_BOOTSTRAP=1 RUSTC RUSTDOC=/usr/bin/rustdoc CARGO_TARGET_DIR=target/i686
target=i686-unknown-linux-gnu
i686() { "$CARGO" "$@" -Zbuild-std --target "$target" --locked; }
echo "test-i686: $("$RUSTC" -V), std from /usr/src/rustc-$ver"

# Warnings in our crates fail the run, as clippy -D warnings does on
# x86-64 (RUSTFLAGS would also apply to the std build). The 32-bit-only
# kernels are compiled here and nowhere else.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
check_warnings() {
  if grep -E '^warning: `fastcrypt[a-z-]*` \(' "$log"; then
    fail "warnings in fastcrypt crates on i686 (see above)"
  fi
}

FASTCRYPT_REQUIRE_BACKENDS=$(scripts/required-backends.sh x86)
export FASTCRYPT_REQUIRE_BACKENDS
echo "test-i686: required backends: ${FASTCRYPT_REQUIRE_BACKENDS:-none}"
# Release profile, like the speed lab below: std, OpenSSL and the crates
# are built once for both (a cold build compiles OpenSSL from source).
i686 test --release -p fastcrypt --lib --test all 2>&1 | tee "$log"
check_warnings

if [ "$speed" = 1 ]; then
  # The speed lab builds and runs on i686, peers included: one short pass
  # over every primitive, sizes as in the tables.
  i686 build --release -p fastcrypt-cli --features vendored-openssl 2>&1 | tee "$log"
  check_warnings
  "target/i686/$target/release/fastcrypt" speed --min-time 50ms --samples 5
fi
echo "test-i686: passed"
