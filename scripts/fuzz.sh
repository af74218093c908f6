#!/usr/bin/env bash
# Runs every fuzz target for N seconds (default 60). Needs cargo-fuzz
# (`cargo install cargo-fuzz`); works on stable through RUSTC_BOOTSTRAP.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
secs=${1:-60}
export RUSTC_BOOTSTRAP=1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for t in $(cargo fuzz list); do
  echo "==> $t ($secs s)"
  if ! cargo fuzz run -O "$t" -- -max_total_time="$secs" -max_len=4096 >"$log" 2>&1; then
    tail -40 "$log"
    echo "fuzz: $t failed (the crashing input is under fuzz/artifacts/$t)"
    exit 1
  fi
  grep -E "DONE|Done" "$log" | tail -2
done
