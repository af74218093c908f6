#!/usr/bin/env bash
# The SHA-NI kernels' register contract, checked on release machine code.
#
# `sha1rnds4` and the other SHA instructions have only legacy-SSE
# encodings, and on Intel a legacy-SSE instruction that follows a write to
# the upper half of a vector register pays for it: a bare `sha1rnds4`
# chain ran 1.8x slower after a write to ymm16, and the detection kernel
# 100 times slower when LLVM gave ymm16 to a filter inlined into it (see
# `sha1::x86_shani::compress_dc_evex`). `vzeroupper` clears ymm0-15 only.
# Such a build passes every functional test, so this script disassembles
# the speed lab's binary, `fastcrypt-speed` (it links every SHA-NI kernel:
# hashing, detection, HMAC, PBKDF2, multi-buffer), and checks each
# function that contains a SHA instruction:
#   - no zmm register and no ymm16-31;
#   - ymm0-15 only in a function that also runs `vzeroupper`.
# It also requires the main kernels to be found, so that a renamed or
# inlined-away kernel cannot pass unchecked.
#
# Usage: scripts/sse-only.sh [--bin PATH]
#   --bin PATH   an already built x86-64 binary (with symbols) to check
# Exit status: 0 clean; 1 a violation or a kernel not found; 2 a tool is
# missing or the build fails.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=""
while [ $# -gt 0 ]; do
    case "$1" in
    --bin) bin=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "sse-only: unknown argument $1" >&2; exit 2 ;;
    esac
done
command -v objdump >/dev/null 2>&1 || { echo "sse-only: objdump is not installed" >&2; exit 2; }
if [ -z "$bin" ]; then
    (cd "$root" && cargo build --release -p fastcrypt-cli --bin fastcrypt-speed) >&2 || {
        echo "sse-only: build failed" >&2
        exit 2
    }
    bin=${CARGO_TARGET_DIR:-$root/target}/release/fastcrypt-speed
fi

objdump -d --no-show-raw-insn -C "$bin" | awk '
function finish() {
    if (name == "" || !sha) return
    n++
    short = name
    sub(/^[0-9a-f]+ </, "", short); sub(/>:$/, "", short)
    found[short] = 1
    if (hi > 0 || (lo > 0 && !vz)) {
        bad++
        printf "sse-only: %s writes %s\n", short, (hi > 0 ? "zmm or ymm16-31" : "ymm without vzeroupper")
        printf "%s", bad_lines
    }
}
/^[0-9a-f]+ <.*>:$/ { finish(); name = $0; sha = 0; hi = 0; lo = 0; vz = 0; bad_lines = ""; next }
/\t(sha1rnds4|sha1nexte|sha1msg1|sha1msg2) / { sha = 1 }
/%zmm|%ymm(1[6-9]|2[0-9]|3[01])([^0-9]|$)/ { hi++; if (hi <= 3) bad_lines = bad_lines "    " $0 "\n" }
/%ymm([0-9]|1[0-5])([^0-9]|$)/ { lo++; if (!hi && lo <= 3) bad_lines = bad_lines "    " $0 "\n" }
/\tvzeroupper/ { vz = 1 }
END {
    finish()
    split("compress_shani compress_dc_sse compress_dc_avx compress_dc_evex compress_lanes hmac_finish_shani pbkdf2_shani pbkdf2_keyed_shani", want, " ")
    for (i in want) {
        k = "fastcrypt::sha1::x86_shani::" want[i]
        if (!(k in found)) { printf "sse-only: %s not found with SHA instructions\n", k; bad++ }
    }
    printf "sse-only: %d functions with SHA instructions checked, %d problem(s)\n", n, bad + 0
    exit bad > 0
}'
