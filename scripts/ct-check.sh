#!/usr/bin/env bash
# Constant-time check of fastcrypt's portable GHASH: the ctgrind technique
# (A. Langley, 2010). Valgrind's memcheck tracks undefined bits and reports
# every conditional branch and every memory address that depends on them.
# The probes in crates/fastcrypt/tests/suite/ghash.rs (module `ct`) mark H
# undefined with a client request, run key setup, updates, clone, reset and
# finalize of the portable backend, and declassify only the output; any
# branch or table index derived from H is then reported as an error.
#
# To show that the check can fail, two deliberately leaky probes (a table
# indexed by a byte of H, a branch on bits of H) must each be flagged.
#
# Usage: scripts/ct-check.sh [--release] [--bin PATH]
#   --bin PATH   test binary to check (default: build `--test all` and use it)
#   --release    build the test binary with the release profile (opt-level 3,
#                LTO), the code users get
# Exit status: 0 when the portable probe is clean and both leaky probes are
# flagged; 1 otherwise; 2 when valgrind is missing or the build fails.
# CI: install valgrind (apt-get install valgrind) and run this script; the
# `ghash_ct_valgrind` test runs it too, and reports itself ignored when
# valgrind is absent.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=""
profile=()
while [ $# -gt 0 ]; do
    case "$1" in
    --bin) bin=$2; shift 2 ;;
    --release) profile=(--release); shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "ct-check: unknown argument $1" >&2; exit 2 ;;
    esac
done

if ! command -v valgrind >/dev/null 2>&1; then
    echo "ct-check: valgrind is not installed (apt-get install valgrind)" >&2
    exit 2
fi

if [ -z "$bin" ]; then
    echo "ct-check: building the test binary ${profile[*]:-}" >&2
    json=$(cd "$root" && cargo test -p fastcrypt --test all --no-run "${profile[@]}" --message-format=json) || {
        echo "ct-check: build failed" >&2
        exit 2
    }
    bin=$(printf '%s\n' "$json" | grep -o '"executable":"[^"]*"' | sed 's/^"executable":"//; s/"$//' | tail -n 1)
    if [ -z "$bin" ]; then
        echo "ct-check: could not find the test binary in cargo's output" >&2
        exit 2
    fi
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed=0

# probe NAME EXPECT: EXPECT is "clean" or "flagged".
probe() {
    local name=$1 expect=$2 rc
    set +e
    FASTCRYPT_CT_EXPECT_VALGRIND=1 valgrind --tool=memcheck --error-exitcode=99 \
        --track-origins=yes "$bin" "$name" --exact --test-threads=1 >"$log" 2>&1
    rc=$?
    set -e
    local ran=no
    grep -q '1 passed' "$log" && ran=yes
    local verdict
    if [ "$ran" != yes ]; then
        verdict="did not run (or its functional check failed)"
    elif [ "$rc" -eq 99 ]; then
        verdict=flagged
    elif [ "$rc" -eq 0 ]; then
        verdict=clean
    else
        verdict="exit status $rc"
    fi
    if [ "$verdict" = "$expect" ]; then
        printf 'ct-check: %-32s %s (as expected)\n' "$name" "$verdict"
    else
        printf 'ct-check: %-32s %s, expected %s\n' "$name" "$verdict" "$expect"
        sed 's/^/    /' "$log"
        failed=1
    fi
    grep -E 'ERROR SUMMARY|uninitialised' "$log" | sort | uniq -c | sed 's/^/    /' || true
}

probe ghash_ct_probe/portable clean
probe ghash_ct_probe/leaky_table flagged
probe ghash_ct_probe/leaky_branch flagged

if [ "$failed" -ne 0 ]; then
    echo "ct-check: FAILED" >&2
    exit 1
fi
echo "ct-check: portable GHASH shows no secret-dependent branch or address; both leaks were caught"
