#!/usr/bin/env bash
# Runs every fuzz target for N seconds (default 60). Needs cargo-fuzz
# (`cargo install cargo-fuzz`); works on stable through RUSTC_BOOTSTRAP.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
secs=${1:-60}
export RUSTC_BOOTSTRAP=1
for t in $(cargo fuzz list); do
  echo "==> $t ($secs s)"
  cargo fuzz run -O "$t" -- -max_total_time="$secs" -max_len=4096 2>&1 | grep -E "DONE|ERROR|SUMMARY|panicked" || true
  test "${PIPESTATUS[0]}" -eq 0 || { echo "fuzz: $t failed (artifacts under fuzz/artifacts/$t)"; exit 1; }
done
