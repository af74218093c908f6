#!/usr/bin/env bash
# amd64 vs 386: the same fastcrypt code built for x86-64 and for 32-bit
# x86 (i686), measured on this machine and printed as old/new tables
# (`fastcrypt benchcmp`: ns/op with delta, MB/s with speed-up), the form
# of the classic write-ups' amd64/386 tables. "old" is amd64, "new" 386.
#
#   scripts/amd64-vs-386.sh                    # sha1 rc4 ghash, 5 pairs
#   PAIRS=9 scripts/amd64-vs-386.sh sha1 --sizes 8,1K,8K
#
# Arguments are passed to `fastcrypt speed` (algorithms, --sizes,
# --backend; the default measures every backend, no peers). Two processes
# cannot be interleaved sample by sample, so the two builds run
# alternately, PAIRS times each (A B A B ...), and benchcmp summarises each
# side by the median over all its samples: a load phase of a few seconds
# then hits both sides instead of one.
#
# Writes $RESULTS/amd64.txt and $RESULTS/386.txt (Go benchmark lines;
# RESULTS defaults to bench-results/386). Needs what scripts/test-i686.sh
# needs (scripts/setup.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-5}
RESULTS=${RESULTS:-bench-results/386}
MIN_TIME=${MIN_TIME:-300ms}
[ $# -gt 0 ] || set -- sha1 rc4 ghash
has_backend=0
for a in "$@"; do case "$a" in --backend | --backend=*) has_backend=1 ;; esac; done
[ "$has_backend" = 1 ] || set -- "$@" --backend all

cargo build -q --release --locked -p fastcrypt-cli
amd64=${CARGO_TARGET_DIR:-target}/release/fastcrypt
(
  # shellcheck source=scripts/i686-env.sh
  . scripts/i686-env.sh
  i686 build -q --release -p fastcrypt-cli
)
i386=${I386_BIN:-target/i686/i686-unknown-linux-gnu/release/fastcrypt}

mkdir -p "$RESULTS"
: >"$RESULTS/amd64.txt"
: >"$RESULTS/386.txt"
for i in $(seq 1 "$PAIRS"); do
  echo "pair $i/$PAIRS" >&2
  "$amd64" speed --format go --peers none --min-time "$MIN_TIME" --samples 5 "$@" >>"$RESULTS/amd64.txt"
  "$i386" speed --format go --peers none --min-time "$MIN_TIME" --samples 5 "$@" >>"$RESULTS/386.txt"
done
echo "# amd64 (old) vs 386 (new), $(grep -m1 '^cpu:' "$RESULTS/amd64.txt"), $PAIRS alternating runs each"
"$amd64" benchcmp "$RESULTS/amd64.txt" "$RESULTS/386.txt"
