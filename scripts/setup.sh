#!/usr/bin/env bash
# Installs what fastcrypt's build, tests and speed lab need on Debian/Ubuntu:
# OpenSSL headers (the `openssl` crate links the system libcrypto, the peer
# in the speed lab and the differential tests), pkg-config, and valgrind
# (the constant-time check), binutils and python3 (the static constant-time
# listing, scripts/ct-static.sh). Rust itself must already be installed
# (rustup). On x86-64 Debian it also installs the 32-bit x86 toolchain
# that scripts/test-i686.sh uses: Debian's rustc-web/cargo-web with their
# std sources (rust-web-src, for -Zbuild-std), gcc-multilib and the i386
# OpenSSL (libssl-dev:i386, through multiarch: the i386 architecture is
# added to dpkg; apt keeps the amd64 and i386 OpenSSL at one version).
set -euo pipefail
need=()
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
# The workspace's minimum Rust, for rustup's toolchain and Debian's
# rustc-web (the i686 build) alike.
want=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' "$(dirname "$0")/../Cargo.toml")
# gcc: the C library's tests compile C programs with `cc`.
pkgs=(libssl-dev pkg-config valgrind binutils python3 gcc libc6-dev)
i686_pkgs=(rustc-web cargo-web rust-web-src gcc-multilib libssl-dev:i386)
[ "$(uname -m)" = x86_64 ] && pkgs+=("${i686_pkgs[@]}")
# With libssl-dev:i386 beside the native one, a bare `dpkg -s libssl-dev`
# fails as ambiguous: ask for the native architecture's too.
native=$(dpkg --print-architecture 2>/dev/null || echo none)
for pkg in "${pkgs[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || dpkg -s "$pkg:$native" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  if [[ " ${need[*]} " == *":i386 "* ]] && ! dpkg --print-foreign-architectures | grep -qx i386; then
    $sudo dpkg --add-architecture i386
  fi
  # A mirror caught mid-sync fails `apt-get update` for a few minutes
  # ("File has unexpected size ... Mirror sync in progress?"): retry, then
  # go on with the lists apt has (the install below fails if it must).
  for delay in 15 45 90 end; do
    $sudo apt-get update -qq && break
    if [ "$delay" = end ]; then
      echo "setup: apt-get update kept failing; going on with the package lists apt has" >&2
    else
      echo "setup: apt-get update failed; retrying in ${delay}s" >&2
      sleep "$delay"
    fi
  done
  # The i686 toolchain is Debian's (bookworm and later); where a release
  # lacks it, install the rest and let scripts/test.sh say the i686 step
  # cannot run.
  missing=()
  for pkg in "${need[@]}"; do
    apt-cache show "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: not in this system's package lists: ${missing[*]} (32-bit x86 tests need them)" >&2
    for pkg in "${missing[@]}"; do
      for i in "${!need[@]}"; do [ "${need[$i]}" = "$pkg" ] && unset 'need[$i]'; done
    done
  fi
  base=() tool=()
  for pkg in "${need[@]}"; do
    if [[ " ${i686_pkgs[*]} " == *" $pkg "* ]]; then tool+=("$pkg"); else base+=("$pkg"); fi
  done
  [ ${#base[@]} -eq 0 ] || $sudo apt-get install -y -qq "${base[@]}" >/dev/null
  # Without recommends: rustc-web would otherwise pull in LLVM tools.
  [ ${#tool[@]} -eq 0 ] || $sudo apt-get install -y -qq --no-install-recommends "${tool[@]}" >/dev/null
  [ ${#need[@]} -eq 0 ] || echo "setup: installed ${need[*]}"
fi
# Debian's rustc-web must be at least the workspace's rust-version, or
# scripts/test-i686.sh cannot build. Its updates come through
# bookworm-security, and when one of that suite's index files is caught
# mid-sync apt keeps the suite's old lists whole: seen 2026-12-05, the
# suite's i386 index failing, rustc-web 1.96 in the mirror and 1.85 the
# candidate. The toolchain's packages are amd64 and arch-independent
# ones, so the lists are fetched again for amd64 alone, then (for a few
# minutes) whole, before giving up (test-i686.sh then names the problem).
# version_ge A B: A >= B.
version_ge() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n1)" = "$2" ]; }
web_ver() { /usr/bin/rustc -V 2>/dev/null | cut -d' ' -f2; }
if [ "$(uname -m)" = x86_64 ] && [ -x /usr/bin/rustc ] && ! version_ge "$(web_ver)" "$want"; then
  export DEBIAN_FRONTEND=noninteractive
  for delay in 0 30 60 120 240 end; do
    if [ "$delay" = 0 ]; then
      $sudo apt-get update -qq -o APT::Architectures=amd64 || true
    fi
    cand=$(apt-cache policy rustc-web 2>/dev/null | sed -n 's/^ *Candidate: \([0-9.]*\).*/\1/p')
    if [ -n "$cand" ] && version_ge "$cand" "$want"; then
      $sudo apt-get install -y -qq --no-install-recommends rustc-web cargo-web rust-web-src >/dev/null
      echo "setup: rustc-web $(web_ver) installed"
      break
    fi
    if [ "$delay" = end ]; then
      echo "setup: Debian's rustc-web is $(web_ver) (candidate ${cand:-none}), older than the workspace's rust-version $want: the i686 tests cannot build" >&2
      break
    fi
    [ "$delay" = 0 ] && continue
    echo "setup: rustc-web $(web_ver), candidate ${cand:-none}, needs $want: updating the package lists again in ${delay}s" >&2
    sleep "$delay"
    $sudo apt-get update -qq || true
  done
  # Every architecture's lists back for later installs.
  $sudo apt-get update -qq || true
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install Rust with rustup (https://rustup.rs), stable $want or later" >&2
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
