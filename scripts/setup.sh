#!/usr/bin/env bash
# Installs what fastcrypt's build, tests and speed lab need on Debian/Ubuntu:
# OpenSSL headers (the `openssl` crate links the system libcrypto, the peer
# in the speed lab and the differential tests), pkg-config, and valgrind
# (the constant-time check), binutils and python3 (the static constant-time
# listing, scripts/ct-static.sh). Rust itself must already be installed
# (rustup).
set -euo pipefail
need=()
for pkg in libssl-dev pkg-config valgrind binutils python3; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${need[@]}" >/dev/null
  echo "setup: installed ${need[*]}"
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install Rust with rustup (https://rustup.rs), stable 1.85 or later" >&2
  exit 1
fi
for comp in rustfmt clippy; do
  rustup component list --installed 2>/dev/null | grep -q "^$comp" || rustup component add "$comp" 2>/dev/null || true
done
# cargo-fuzz for the fuzz smoke run (scripts/fuzz.sh --smoke, from
# test.sh); kept if already installed.
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --version 0.13.2 --locked -q
  echo "setup: installed $(cargo fuzz --version)"
fi
echo "setup: $(cargo --version), $(pkg-config --modversion openssl 2>/dev/null | sed 's/^/OpenSSL /')"
