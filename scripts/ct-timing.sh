#!/usr/bin/env bash
# Statistical constant-time test (dudect style) of the SIMD kernels that
# valgrind cannot run: SHA-NI SHA-1, VPCLMULQDQ GHASH, VAES+VPCLMULQDQ
# AES-GCM, with the PCLMULQDQ / AES-NI backends alongside for comparison,
# and two deliberately leaky twins that must be flagged. The harness is
# benches/src/bin/ct_timing.rs; the method and the latest results are in
# docs/constant-time.md.
#
# Usage: scripts/ct-timing.sh [SAMPLES [SECONDS]] [-- HARNESS-ARGS...]
#   SAMPLES   measurements per target and cache mode (default 1000000)
#   SECONDS   time limit per target and cache mode (default 60)
#   HARNESS-ARGS   passed on, e.g. --cache warm, --only vaes, --seed 7,
#                  --markdown (also print a Markdown table)
# The run is pinned to one CPU (the last one) with taskset when available:
# a migration between cores in the middle of a measurement would be noise.
# Exit status: 0 when no real target exceeds |t| = 4.5 and every leaky twin
# was detected; 1 otherwise; 2 when the build fails or the CPU lacks RDTSCP.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
samples=1000000
seconds=60
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
    case "$1" in
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    esac
    samples=$1; shift
fi
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
    seconds=$1; shift
fi
[ "${1:-}" = "--" ] && shift

echo "ct-timing: building the harness (release)" >&2
(cd "$root" && cargo build --release -p fastcrypt-benches --bin ct_timing) >&2 || {
    echo "ct-timing: build failed" >&2
    exit 2
}
target_dir=${CARGO_TARGET_DIR:-$root/target}
bin=$target_dir/release/ct_timing

cpu=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: //')
echo "cpu:     $cpu ($(nproc) CPUs online)"
echo "rustc:   $(rustc --version)"
echo "commit:  $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "budget:  $samples samples or $seconds s per target and cache mode"

pin=()
if command -v taskset >/dev/null 2>&1; then
    last=$(($(nproc) - 1))
    pin=(taskset -c "$last")
    echo "pinned:  CPU $last"
fi
start=$(date +%s)
set +e
"${pin[@]}" "$bin" --samples "$samples" --seconds "$seconds" "$@"
rc=$?
set -e
echo "wall:    $(($(date +%s) - start)) s"
exit "$rc"
