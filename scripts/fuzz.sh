#!/usr/bin/env bash
# Fuzzing with cargo-fuzz (`cargo install cargo-fuzz --locked`), on stable
# through RUSTC_BOOTSTRAP. docs/fuzzing.md says what each target checks.
#
#   scripts/fuzz.sh --smoke [SECS]
#       CI: builds every target once (no sanitizer, debug assertions on,
#       the standard library's UB checks off: see build_plain),
#       then runs each for SECS seconds (default 30) from its seeds in
#       fuzz/seeds/<target>; new inputs go to a temporary directory. Any
#       crash or failed assertion fails the run.
#   scripts/fuzz.sh [SECS]
#       Every target for SECS seconds (default 60) under AddressSanitizer,
#       growing fuzz/corpus/<target> (not tracked) from the seeds.
#   scripts/fuzz.sh --campaign DIR [TARGET=RUNS ...]
#       A long run, one target at a time at low priority (one core), each
#       for RUNS executions (default 20000000; naming some targets runs
#       only those). Built once at the start, without sanitizer, so the
#       tree may change meanwhile. Corpus, logs, crashes and DIR/summary.txt
#       (libFuzzer's final stats per target) go to DIR.
#   scripts/fuzz.sh --record DIR...
#       the DIRs' summary.txt as docs/fuzzing.md's record: a Markdown table
#       of every run that ended (an interrupted one with exit 72 and its
#       last status line), the total, then the summaries themselves.
#
# A crash leaves its input in fuzz/artifacts/<target>/ (DIR/artifacts/ for
# a campaign); `cargo fuzz run -s none -O -a <target> <file>` replays it.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
export RUSTC_BOOTSTRAP=1
# Every target's inputs are at most this long (docs/fuzzing.md: why).
max_len=1024
# Where cargo-fuzz puts the binaries (its default --target is the host).
bin_dir=target/$(rustc -vV | sed -n 's/^host: //p')/release
# Scratch space (logs, the smoke's corpus), removed on exit.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

targets() { cargo fuzz list; }

seeds_of() {
  local t=$1
  if [ ! -d "seeds/$t" ] || [ -z "$(ls -A "seeds/$t")" ]; then
    echo "fuzz: no seeds for $t in fuzz/seeds/$t" >&2
    exit 1
  fi
  echo "seeds/$t"
}

# No sanitizer: several times the executions per second of an ASan build.
# Debug assertions and overflow checks on (-a); with `quick`, without the
# standard library's UB precondition checks (-Zub-checks=no): under them
# LLVM spends minutes on the SHA-1 collision-detection kernels (on an AMD
# EPYC Zen 4 the library alone took 7 min 55 s instead of 1 min 09 s),
# too much for the smoke run; campaigns keep them.
build_plain() {
  # cargo-fuzz has no --locked; this fails if fuzz/Cargo.lock is stale.
  cargo metadata --locked --format-version 1 >/dev/null
  if [ "${1:-}" = quick ]; then
    RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-Zub-checks=no" cargo fuzz build -O -a -s none
  else
    cargo fuzz build -O -a -s none
  fi
}

smoke() {
  local secs=${1:-30} start=$SECONDS log seeds
  build_plain quick
  for t in $(targets); do
    echo "==> $t ($secs s)"
    seeds=$(seeds_of "$t")
    mkdir -p "$tmp/$t" "artifacts/$t"
    log="$tmp/$t.log"
    if ! "$bin_dir/$t" "$tmp/$t" "$seeds" -max_total_time="$secs" \
      -max_len=$max_len -artifact_prefix="artifacts/$t/" >"$log" 2>&1; then
      tail -40 "$log"
      echo "fuzz: $t failed (the crashing input is under fuzz/artifacts/$t)"
      exit 1
    fi
    grep -E "DONE" "$log" | tail -1
  done
  echo "fuzz: smoke passed in $((SECONDS - start)) s"
}

asan() {
  local secs=${1:-60} log=$tmp/log seeds
  for t in $(targets); do
    echo "==> $t ($secs s, AddressSanitizer)"
    seeds=$(seeds_of "$t")
    mkdir -p "corpus/$t"
    if ! cargo fuzz run -O "$t" "corpus/$t" "$seeds" -- \
      -max_total_time="$secs" -max_len=$max_len >"$log" 2>&1; then
      tail -40 "$log"
      echo "fuzz: $t failed (the crashing input is under fuzz/artifacts/$t)"
      exit 1
    fi
    grep -E "DONE" "$log" | tail -1
  done
}

campaign() {
  local dir=${1:?usage: scripts/fuzz.sh --campaign DIR [TARGET=RUNS ...]}
  shift
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  local plan=("$@")
  if [ ${#plan[@]} -eq 0 ]; then
    for t in $(targets); do plan+=("$t=20000000"); done
  fi
  build_plain
  local s=$dir/summary.txt
  {
    echo "campaign started $(date -u +%FT%TZ)"
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
    echo "rustc: $(rustc --version); $(cargo fuzz --version)"
    echo "build: cargo fuzz build -O -a -s none (no sanitizer; debug assertions and overflow checks on)"
  } >"$s"
  mkdir -p "$dir/bin"
  for p in "${plan[@]}"; do cp "$bin_dir/${p%%=*}" "$dir/bin/"; done
  local t runs rc t0 seeds
  for p in "${plan[@]}"; do
    t=${p%%=*} runs=${p#*=}
    seeds=$(seeds_of "$t")
    seeds=$(cd "$seeds" && pwd)
    mkdir -p "$dir/corpus/$t" "$dir/artifacts/$t"
    local cmd=(nice -n 10 "$dir/bin/$t" "$dir/corpus/$t" "$seeds" -max_len=$max_len
      -runs="$runs" -print_final_stats=1 -artifact_prefix="$dir/artifacts/$t/")
    echo "== $t start $(date -u +%FT%TZ): ${cmd[*]}" >>"$s"
    t0=$SECONDS
    rc=0
    "${cmd[@]}" >"$dir/$t.log" 2>&1 || rc=$?
    {
      echo "== $t end $(date -u +%FT%TZ), exit $rc, wall $((SECONDS - t0)) s"
      grep -E '^stat::' "$dir/$t.log" || true
      # The final status line (DONE, or the last one of an interrupted run).
      grep -E '^#[0-9]+' "$dir/$t.log" | tail -1 || true
      echo "corpus: $(ls "$dir/corpus/$t" | wc -l) files, $(du -sb "$dir/corpus/$t" | cut -f1) bytes (new units; seeds: $(ls "$seeds" | wc -l) files)"
      echo "crashes: $(ls "$dir/artifacts/$t" | wc -l) files in $dir/artifacts/$t"
    } >>"$s"
  done
  echo "campaign finished $(date -u +%FT%TZ)" >>"$s"
  cat "$s"
}

record() {
  [ $# -gt 0 ] || { echo "usage: scripts/fuzz.sh --record DIR..." >&2; exit 2; }
  local d s=()
  for d in "$@"; do s+=("$d/summary.txt"); done
  awk '
    /^== .* start / {
      t = $2; c = $0; sub(/^.*-max_len=/, "-max_len=", c); sub(/ -print_final_stats.*/, "", c); set[t] = c
    }
    /^== .* end / {
      w = $0; sub(/^.*wall /, "", w); wall[t] = w; x = $0; sub(/^.*exit /, "", x); sub(/,.*/, "", x)
      ex[t] = (x == 72) ? "72 (interrupted)" : x
      order[++n] = t
    }
    /^stat::number_of_executed_units/ { runs[t] = $2; total += $2 }
    /^stat::average_exec_per_sec/ { eps[t] = $2 }
    /^#[0-9]+/ {
      for (i = 1; i <= NF; i++) { if ($i == "cov:") cov[t] = $(i + 1); if ($i == "ft:") ft[t] = $(i + 1); if ($i == "corp:") corp[t] = $(i + 1) }
    }
    /^corpus:/ { g = $0; sub(/^corpus: /, "", g); sub(/ \(new units.*/, "", g); grown[t] = g }
    /^crashes:/ { crashes[t] = $2 }
    END {
      print "| target | executions | exec/s | cov | ft | corp (units/bytes) | corpus dir (new units) | crashes | exit | wall | settings |"
      print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
      for (i = 1; i <= n; i++) {
        t = order[i]
        printf "| `%s` | %d | %s | %s | %s | %s | %s | %s | %s | %s | `%s` |\n", t, runs[t], eps[t], cov[t], ft[t], corp[t], grown[t], crashes[t], ex[t], wall[t], set[t]
      }
      printf "\nTotal executions: %d (%d runs)\n", total, n
    }' "${s[@]}"
  for d in "${s[@]}"; do
    printf '\n```text\n'
    cat "$d"
    printf '```\n'
  done
}

case "${1:-}" in
  --smoke) smoke "${2:-30}" ;;
  --campaign) shift; campaign "$@" ;;
  --record) shift; record "$@" ;;
  *) asan "${1:-60}" ;;
esac
