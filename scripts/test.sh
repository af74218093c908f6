#!/usr/bin/env bash
# fastcrypt's whole test run: what CI runs (.ci/run) and what README.md
# gives as the test command. Run scripts/setup.sh first on a fresh machine.
# Each step's header shows the time elapsed since the start.
#
#  1. vendored vectors match the sha256 in their SOURCES.md;
#  2. rustfmt --check on every tracked .rs file (cargo fmt misses files
#     it cannot reach through `mod` items, and fuzz/ is its own
#     workspace) and clippy -D warnings on every target, fuzz/ included;
#  3. the test suite (one binary, every backend on every test) with the
#     backends this CPU advertises in /proc/cpuinfo *required*: a kernel
#     that detection wrongly skips fails the run instead of hiding;
#  4. the CLI tests, the RustCrypto drop-in programs (crates/fastcrypt-dropin)
#     and doc tests;
#  5. the library (and `fastcrypt cpu`) again built with
#     --cfg fastcrypt_backend="portable"; then built for 32-bit x86 with
#     every backend required as on x86-64, and the speed lab run on it
#     (scripts/test-i686.sh);
#  6. the examples, the docs (no warnings), `fastcrypt` linked statically
#     (scripts/build-static.sh --release) giving the dynamic build's
#     output, libsha1detectcoll staged for installing
#     (scripts/sha1dc-lib.sh), and the packages (contents, licences, under 2 MiB each:
#     scripts/package-check.sh);
#  7. the constant-time check (valgrind, release profile): AES key schedule,
#     AES-GCM seal/open, tag compare, GHASH, SHA-1 and HMAC on every backend
#     valgrind can run, each family with leaky twins that must be flagged;
#     then the static listing of the SIMD kernels (scripts/ct-static.sh):
#     no branch or address derived from a secret register; and the SHA-NI
#     kernels' machine code: no zmm or ymm16-31, and ymm only with
#     vzeroupper, beside the legacy-SSE SHA instructions
#     (scripts/sse-only.sh);
#  8. the fuzz smoke: every fuzz target 15 s from its seeds in fuzz/seeds
#     (no sanitizer, debug assertions on); any crash fails.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each header also shows the disk space left: CI machines have small disks.
step() {
  printf '\n==> [%dm%02ds] [%s free] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) \
    "$(df -h --output=avail . 2>/dev/null | tail -1 | tr -d ' ')" "$*"
}
# Disk: this run builds the workspace in several configurations (x86-64
# test and doc, portable-only, i686, release for valgrind, fuzz), so it
# keeps no incremental caches and only line tables as debug info
# (backtraces keep file:line), and in CI drops each side build's target
# directory when its step is done. Override either variable to keep them.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
export CARGO_PROFILE_DEV_DEBUG=${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}
export CARGO_PROFILE_TEST_DEBUG=${CARGO_PROFILE_TEST_DEBUG:-line-tables-only}
drop() { if [ -n "${CI:-}" ]; then rm -rf "$@"; fi; }

step "vendored test vectors"
scripts/check-testdata.sh

step "rustfmt --check (every tracked .rs file)"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z -- '*.rs' | xargs -0 rustfmt --edition 2021 --check
else
  find . -name '*.rs' -not -path './target/*' -not -path './fuzz/target/*' -print0 |
    xargs -0 rustfmt --edition 2021 --check
fi

step "cargo clippy -D warnings (workspace, fuzz/, fastcrypt without default features)"
cargo clippy --workspace --all-targets --locked -q -- -D warnings
# The same target directory: the dependencies fuzz/ shares with the
# workspace (same versions and features) are checked once.
CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target} \
  cargo clippy --manifest-path fuzz/Cargo.toml --all-targets --locked -q -- -D warnings
# The library as a `default-features = false` user builds it (no std, no
# RustCrypto traits), and with the traits alone.
cargo clippy -p fastcrypt --lib --no-default-features --locked -q -- -D warnings
cargo clippy -p fastcrypt --lib --no-default-features --features rustcrypto --locked -q -- -D warnings

# Backends this CPU must run, from the kernel's own view of the CPU.
FASTCRYPT_REQUIRE_BACKENDS=$(scripts/required-backends.sh x86_64)
export FASTCRYPT_REQUIRE_BACKENDS
step "cargo test --workspace (required backends: ${FASTCRYPT_REQUIRE_BACKENDS:-none})"
cargo test --workspace --locked

step "portable-only build: --cfg fastcrypt_backend=\"portable\""
# The library's tests, and `fastcrypt cpu`, which must still report the
# CPU's features and blame the build, not the CPU, for the missing kernels.
FASTCRYPT_REQUIRE_BACKENDS="" RUSTFLAGS='--cfg fastcrypt_backend="portable"' \
  CARGO_TARGET_DIR=target/portable-only \
  cargo test -p fastcrypt --locked --test all -q
RUSTFLAGS='--cfg fastcrypt_backend="portable"' CARGO_TARGET_DIR=target/portable-only \
  cargo test -p fastcrypt-cli --locked --test cpu_cli -q
drop target/portable-only

step "32-bit x86 (i686): the library's tests and a speed-lab pass (scripts/test-i686.sh)"
# Required in CI; elsewhere skipped, loudly, when the host cannot build it.
if [ "$(uname -m)" != x86_64 ]; then
  echo "skipped: the i686 build runs on x86-64 hosts"
elif [ -z "${CI:-}" ] && ! [ -x /usr/bin/rustc ]; then
  echo "SKIPPED: Debian's rustc-web is not installed (scripts/setup.sh installs it); CI requires this step"
else
  scripts/test-i686.sh
  drop target/i686
fi

step "examples (crates/fastcrypt/examples)"
# `cargo test --workspace` built them (test profile, the workspace's
# features): this build only finds them, and each runs as a user runs it.
cargo build -q --locked --workspace --examples --profile test
for ex in crates/fastcrypt/examples/*.rs; do
  name=$(basename "$ex" .rs)
  echo "-- $name"
  "${CARGO_TARGET_DIR:-target}/debug/examples/$name" README.md
done

step "docs: cargo doc -D warnings, every feature"
RUSTDOCFLAGS="-D warnings" cargo doc -q --locked --no-deps --all-features \
  -p fastcrypt -p fastcrypt-cli -p fastcrypt-sha1dc
# What follows builds in release (target/release, fuzz/target) only.
drop target/debug target/doc

step "fastcrypt linked statically (scripts/build-static.sh): same output"
# The release build README recommends, against the dynamically linked
# release build as the reference: the two share every dependency's
# build, only the link differs.
cargo build -q --locked --release -p fastcrypt-cli --bin fastcrypt
bin=${CARGO_TARGET_DIR:-target}/release/fastcrypt
ref=$(mktemp -d)
trap 'rm -rf "$ref"' EXIT
cp "$bin" "$ref/fastcrypt"
scripts/build-static.sh -q --locked --release >/dev/null
sd=crates/fastcrypt/testdata/sha1dc
printf 'abc' >"$ref/abc"
for args in "sha1 $sd/shattered-1.pdf $sd/sha-mbles-2.bin $ref/abc" \
  "sha1 --no-detect -j 2 $sd/shattered-2.pdf $ref/abc" \
  "sha1 --pieces 4K $sd/shattered-1.pdf" "cpu"; do
  # shellcheck disable=SC2086 # word-split on purpose
  want=$("$ref/fastcrypt" $args 2>&1; echo "exit $?")
  # shellcheck disable=SC2086
  got=$("$bin" $args 2>&1; echo "exit $?")
  if [ "$want" != "$got" ]; then
    echo "static fastcrypt differs on: $args" >&2
    diff <(echo "$want") <(echo "$got") >&2 || true
    exit 1
  fi
  echo "-- fastcrypt $args: same (${want##*exit })"
done
rm -rf "$ref"
trap - EXIT

step "libsha1detectcoll staged for installing (scripts/sha1dc-lib.sh)"
# The C API tests (cargo test above) link the prelinked archive; this is
# the README's build of the whole installable tree, in release.
scripts/sha1dc-lib.sh -q --locked
stage=${CARGO_TARGET_DIR:-target}/sha1dc
# (grep -c reads all of readelf's output: -q would quit early and the
# pipeline could fail under pipefail.)
if [ "$(readelf -d "$stage/lib/libsha1detectcoll.so.1" | grep -c 'SONAME.*\[libsha1detectcoll\.so\.1\]')" != 1 ]; then
  echo "the staged shared library's soname is not libsha1detectcoll.so.1" >&2
  exit 1
fi
probe=$(mktemp -d)
"${CC:-cc}" -I"$stage/include" -o "$probe/probe" -x c - -x none "$stage/lib/libsha1detectcoll.a" <<'EOF'
#include <sha1dc/sha1.h>
#include <stdio.h>
int main(void)
{
	SHA1_CTX c;
	unsigned char d[20];
	SHA1DCInit(&c);
	SHA1DCUpdate(&c, "abc", 3);
	int r = SHA1DCFinal(d, &c);
	printf("%02x%02x %d\n", d[0], d[19], r);
	return 0;
}
EOF
got=$("$probe/probe")
rm -rf "$probe"
if [ "$got" != "a99d 0" ]; then
  echo "a C program linked against the staged archive printed '$got', not 'a99d 0'" >&2
  exit 1
fi
echo "-- the soname is libsha1detectcoll.so.1; a C program links the staged archive and hashes \"abc\""

step "packages: contents, licences, size (scripts/package-check.sh)"
if [ -n "$(git status --porcelain 2>/dev/null)" ]; then
  echo "skipped: uncommitted changes (cargo package packs what git has)"
else
  scripts/package-check.sh
  drop target/package-check
fi

step "constant-time check (valgrind, release profile, and the aes crate's software AES)"
scripts/ct-check.sh --release --aes-soft

step "static constant-time check of the SIMD kernels valgrind cannot run"
scripts/ct-static.sh

step "SHA-NI kernels: no upper vector state beside legacy-SSE code (scripts/sse-only.sh)"
if [ "$(uname -m)" != x86_64 ]; then
  echo "skipped: x86-64 machine code only"
else
  scripts/sse-only.sh
fi
step "fuzz smoke: every target 15 s from fuzz/seeds (scripts/fuzz.sh --smoke)"
scripts/fuzz.sh --smoke 15

step "all tests passed"
