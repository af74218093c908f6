#!/usr/bin/env bash
# build-static: `fastcrypt` (the everyday tools, not the speed lab)
# linked statically against glibc (`-C target-feature=+crt-static`),
# for the fastest start-up. A dynamically linked Rust program loads
# libgcc_s and libm beside libc before `main`; on the machines measured
# that costs ~0.4 ms, more than GNU sha1sum's whole run on one small file
# (README.md, "The command line"). Static glibc cannot load NSS modules
# or dlopen; `fastcrypt` needs neither.
#
#   scripts/build-static.sh --release     # target/release/fastcrypt
#   scripts/build-static.sh               # target/debug/fastcrypt
#
# Arguments go to `cargo rustc` (profile, --locked, -q). Only the final
# link changes, so the dependencies' builds are shared with `cargo build`;
# the flag goes to the binary's own rustc call because, given to every
# crate (RUSTFLAGS), it would also reach the proc-macro crates, which
# cannot be linked statically. Prints the binary's path.
set -euo pipefail
cd "$(dirname "$0")/.."
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64 | Linux-i?86) ;;
  *) echo "build-static: only for Linux with glibc" >&2; exit 2 ;;
esac
cargo rustc "$@" -p fastcrypt-cli --bin fastcrypt -- -C target-feature=+crt-static
profile=debug
for a in "$@"; do
  case "$a" in
    --release | -r) profile=release ;;
  esac
done
bin=${CARGO_TARGET_DIR:-target}/$profile/fastcrypt
if ldd "$bin" >/dev/null 2>&1 && ! ldd "$bin" 2>&1 | grep -q 'statically linked'; then
  echo "build-static: $bin is still dynamically linked" >&2
  exit 1
fi
echo "$bin"
