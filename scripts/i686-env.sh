# Sourced by the scripts that build fastcrypt for 32-bit x86 (i686) on an
# x86-64 host (scripts/test-i686.sh, scripts/amd64-vs-386.sh): checks the
# toolchain and sets the environment; `i686 ARGS...` then runs cargo for
# i686 (`i686 test --release -p fastcrypt`).
#
# rustup's toolchain here cannot add targets, so this uses Debian's
# `rustc-web` compiler with its own standard-library sources
# (`rust-web-src`) and builds std for i686 with -Zbuild-std (hence
# RUSTC_BOOTSTRAP); gcc-multilib compiles ring's C code. OpenSSL, a test
# and speed-lab peer, is Debian's i386 build (libssl-dev:i386, beside the
# amd64 one through multiarch): building it from source (the CLI's
# `vendored-openssl` feature) took about 6 minutes of CI's i686 step.
# scripts/setup.sh installs all of it.
i686_fail() { echo "i686: $*" >&2; exit 1; }
RUSTC=/usr/bin/rustc
CARGO=/usr/bin/cargo
[ -x "$RUSTC" ] && [ -x "$CARGO" ] ||
  i686_fail "Debian's rustc-web/cargo-web are not installed (scripts/setup.sh installs them)"
i686_rustc_ver=$("$RUSTC" -V | cut -d' ' -f2)
i686_want=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
[ "$(printf '%s\n%s\n' "$i686_rustc_ver" "$i686_want" | sort -V | head -n1)" = "$i686_want" ] ||
  i686_fail "Debian's rustc-web is $i686_rustc_ver, older than the workspace's rust-version $i686_want (scripts/setup.sh installs the newest the package lists offer; if apt-get update failed there, run it again)"
[ -d "/usr/src/rustc-$i686_rustc_ver/library" ] ||
  i686_fail "no std sources for rustc $i686_rustc_ver in /usr/src/rustc-$i686_rustc_ver (package rust-web-src, same version as rustc-web)"
command -v i686-linux-gnu-gcc >/dev/null 2>&1 || gcc -m32 -E -x c /dev/null >/dev/null 2>&1 ||
  i686_fail "no 32-bit C compiler (package gcc-multilib)"
[ -e /usr/lib/i386-linux-gnu/libcrypto.so ] &&
  echo '#include <openssl/opensslv.h>' | gcc -m32 -E -x c - >/dev/null 2>&1 ||
  i686_fail "no 32-bit OpenSSL (package libssl-dev:i386, after dpkg --add-architecture i386)"

i686_target=i686-unknown-linux-gnu
export RUSTC_BOOTSTRAP=1 RUSTC RUSTDOC=/usr/bin/rustdoc CARGO_TARGET_DIR=target/i686
# openssl-sys, cross-compiling: where the i386 library and headers are
# (gcc -m32 finds the arch-specific headers under /usr/include/i386-linux-gnu).
export I686_UNKNOWN_LINUX_GNU_OPENSSL_LIB_DIR=/usr/lib/i386-linux-gnu
export I686_UNKNOWN_LINUX_GNU_OPENSSL_INCLUDE_DIR=/usr/include
i686() { "$CARGO" "$@" -Zbuild-std --target "$i686_target" --locked; }
