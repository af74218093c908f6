#!/usr/bin/env bash
# Static constant-time listing of fastcrypt's x86 kernels, for the backends
# valgrind cannot run (SHA-NI, VAES, VPCLMULQDQ) and, for comparison, the
# PCLMULQDQ / AES-NI ones and the shared AES key schedule.
#
# Builds the release timing harness (benches/src/bin/ct_timing.rs: it links
# every kernel through the public API, with the workspace's release profile,
# and keeps its symbol table), disassembles it with
# `objdump -d --no-show-raw-insn -M intel -C`, finds each kernel by its
# `#[target_feature]` entry function's symbol, and runs scripts/ct-static.py
# over it, which prints, per kernel instance:
#   - every conditional branch, with the instruction that set its flags;
#   - every call and indirect jump;
#   - every memory access, grouped by addressing form (base + index*scale
#     + displacement), with a count and an example;
#   - what a taint filter found: secret-derived values (anything moved from
#     a vector register into a scalar one or into the flags; for the AES key
#     schedule, every scalar load) followed through registers, flags and
#     fixed stack slots, and reported where they reach a branch or an
#     address. See docs/constant-time.md for what the filter does and does
#     not see, and the per-kernel argument.
# The one-line-per-instruction listing goes to
# target/ct-static/listing.txt. The listing is printed, not compared with a
# committed copy: register allocation and block order change with every
# compiler release, so an exact expectation would fail for no reason.
#
# Usage: scripts/ct-static.sh [--bin PATH]
#   --bin PATH   an already built binary to check (x86-64, with symbols)
# Exit status: 0 when every kernel was found and every taint report is one
# that docs/constant-time.md explains; 1 when a kernel is missing (inlined
# away, renamed, or not linked) or a report is unexplained; 2 when a tool
# is missing or the build fails.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=""
while [ $# -gt 0 ]; do
    case "$1" in
    --bin) bin=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "ct-static: unknown argument $1" >&2; exit 2 ;;
    esac
done

for tool in objdump nm python3; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "ct-static: $tool is not installed" >&2
        exit 2
    fi
done

target_dir=${CARGO_TARGET_DIR:-$root/target}
if [ -z "$bin" ]; then
    echo "ct-static: building the release harness" >&2
    (cd "$root" && cargo build --release -p fastcrypt-benches --bin ct_timing) >&2 || {
        echo "ct-static: build failed" >&2
        exit 2
    }
    bin=$target_dir/release/ct_timing
fi

out=$target_dir/ct-static
mkdir -p "$out"
objdump -d --no-show-raw-insn -M intel -C "$bin" >"$out/disassembly.txt"
echo "binary:  $bin"
echo "rustc:   $(rustc --version)"
echo "commit:  $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo
python3 "$root/scripts/ct-static.py" "$bin" "$out/disassembly.txt" "$out/listing.txt"
