#!/usr/bin/env bash
# build-static: `fastcrypt` (the everyday tools, not the speed lab)
# linked statically against glibc (`-C target-feature=+crt-static`),
# for the fastest start-up. A dynamically linked Rust program loads
# libgcc_s and libm beside libc before `main`; on the machines measured
# that costs ~0.4 ms, more than GNU sha1sum's whole run on one small file
# (README.md, "The command line"). Static glibc cannot load NSS modules
# or dlopen; `fastcrypt` needs neither.
#
#   scripts/build-static.sh --release         # target/release/fastcrypt
#   scripts/build-static.sh --profile test    # target/debug/fastcrypt
#
# Arguments go to `cargo rustc` (--release or --profile NAME, --locked,
# -q; not --target). Only the final
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
# Where cargo put it: the profile's directory (dev and test share debug).
dir=debug
next_is_profile=
for a in "$@"; do
  if [ -n "$next_is_profile" ]; then
    dir=$a
    next_is_profile=
    continue
  fi
  case "$a" in
    --release | -r) dir=release ;;
    --profile) next_is_profile=1 ;;
    --profile=*) dir=${a#--profile=} ;;
  esac
done
case "$dir" in dev | test) dir=debug ;; bench) dir=release ;; esac
bin=${CARGO_TARGET_DIR:-target}/$dir/fastcrypt
if [ ! -x "$bin" ]; then
  echo "build-static: no $bin after the build (--target or a configured target-dir?)" >&2
  exit 1
fi
# Static: no program interpreter and no shared library needed.
if readelf -lW "$bin" | grep -q 'program interpreter' || readelf -dW "$bin" | grep -q '(NEEDED)'; then
  echo "build-static: $bin is dynamically linked" >&2
  exit 1
fi
echo "$bin"
