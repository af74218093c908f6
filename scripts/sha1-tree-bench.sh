#!/usr/bin/env bash
# sha1-tree-bench: `fastcrypt sha1` as a whole program against the
# everyday tools, on the workloads it was built for:
#
#   1. a tree of 20,000 files shaped like a source tree, every file named
#      on the command line: `fastcrypt sha1` (collision detection on, the
#      default), `fastcrypt sha1 --no-detect`, `fastcrypt sha1 -j 1`
#      (one file after another, streamed: the threads' and batches'
#      share), GNU `sha1sum`, Debian's `sha1cdsum` (collision-detecting)
#      and `git hash-object --stdin-paths` (sha1dc, as git hashes blobs);
#      sha1cdsum is Debian's where apt has it, else the Rust port that
#      the sha1collisiondetection crate ships, built with cargo install;
#   2. one small file: start-up cost, `fastcrypt sha1` against `sha1sum`,
#      run interleaved (paired per round);
#   3. one 1 GiB file: `fastcrypt sha1 --pieces 256K` (BitTorrent piece
#      hashes on the multi-buffer kernels and every core) against one
#      stream: `fastcrypt sha1 --no-detect`, `fastcrypt sha1`, `sha1sum`
#      and `sha1cdsum`.
#
#   scripts/sha1-tree-bench.sh                 # full size (a few minutes)
#   TREE_FILES=2000 BIG_MIB=128 scripts/sha1-tree-bench.sh   # quick
#
# The tree is deterministic (SEED): files in directories of 100, sizes
# drawn from a log-normal distribution with median 5 KiB (sigma 1.3, so
# the mean is about 12 KiB, a tenth of the files above 30 KiB), capped at
# 1 MiB, plus 2% empty files; contents are pseudo-random bytes. 20,000
# files come to about 230 MiB. Every tool gets the same file list, from
# `find -print0 | sort -z`, through `xargs -0` (which splits it to fit
# ARG_MAX, identically for all), and git the same list on stdin. The page
# cache is warm: the data is read once before timing and hyperfine runs
# WARMUP untimed rounds of each command. Output goes to /dev/null.
#
# Prints the CPU (from /proc/cpuinfo), the core count and the tools'
# versions, hyperfine's summaries, and a table of mean times with the
# ratio to sha1sum and the throughput. Not part of the test suite.
#
# Environment: TREE_FILES (20000), BIG_MIB (1024), SEED (2024), WARMUP
# (2), RUNS (hyperfine --min-runs, 5), SMALL_ROUNDS (the start-up
# test's interleaved rounds, 500), WORK (where the data goes; default a
# temporary directory removed at the end; give one to keep and reuse the
# data), FASTCRYPT (a built binary; default: build the release one,
# linked statically with scripts/build-static.sh, as README.md advises
# for start-up).
# Installs hyperfine and sha1collisiondetection with apt-get (through
# sudo when not root) when they are missing (see above for sha1cdsum
# where apt has no such package); without sha1cdsum its rows are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

TREE_FILES=${TREE_FILES:-20000}
BIG_MIB=${BIG_MIB:-1024}
SEED=${SEED:-2024}
WARMUP=${WARMUP:-2}
RUNS=${RUNS:-5}
SMALL_ROUNDS=${SMALL_ROUNDS:-500}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

need_pkg() { # command package
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "sha1-tree-bench: installing $2 (for $1)" >&2
  as_root apt-get install -y -q "$2" >/dev/null 2>&1 ||
    { as_root apt-get update -q >/dev/null 2>&1 && as_root apt-get install -y -q "$2" >/dev/null 2>&1; } ||
    true
  command -v "$1" >/dev/null 2>&1
}

need_pkg hyperfine hyperfine || { echo "sha1-tree-bench: hyperfine is needed" >&2; exit 1; }
# sha1cdsum: Debian's (the C reference detector; package
# sha1collisiondetection, in Debian 13 and later) or, where apt has none
# (Debian 12), the Rust port of the same detector that the
# sha1collisiondetection crate ships as its `sha1cdsum` binary, built
# once into the target directory. The header says which one ran.
tools=$(realpath -m "${CARGO_TARGET_DIR:-target}/bench-tools")
have_cd=1
if ! command -v sha1cdsum >/dev/null && [ -x "$tools/bin/sha1cdsum" ]; then
  sha1cdsum=$tools/bin/sha1cdsum
  cd_version="sha1collisiondetection crate 0.3.4 (Rust port), $sha1cdsum"
elif need_pkg sha1cdsum sha1collisiondetection; then
  sha1cdsum=$(command -v sha1cdsum)
  cd_version=$(dpkg-query -W -f '${Package} ${Version} (Debian, C)' sha1collisiondetection 2>/dev/null || echo "$sha1cdsum")
else
  sha1cdsum=$tools/bin/sha1cdsum
  echo "sha1-tree-bench: building sha1cdsum from the sha1collisiondetection crate into $tools" >&2
  CARGO_TARGET_DIR=$tools/build cargo install --quiet --locked --root "$tools" \
    sha1collisiondetection --version 0.3.4 --features clap >&2 || true
  cd_version="sha1collisiondetection crate 0.3.4 (Rust port), $sha1cdsum"
  [ -x "$sha1cdsum" ] || {
    have_cd=0
    echo "sha1-tree-bench: no sha1cdsum: its rows are skipped" >&2
  }
fi
command -v git >/dev/null || { echo "sha1-tree-bench: git is needed" >&2; exit 1; }
command -v python3 >/dev/null || { echo "sha1-tree-bench: python3 is needed" >&2; exit 1; }

if [ -z "${FASTCRYPT:-}" ]; then
  FASTCRYPT=$(scripts/build-static.sh -q --release)
fi
FASTCRYPT=$(realpath "$FASTCRYPT")

if [ -z "${WORK:-}" ]; then
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/sha1-tree-bench.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
WORK=$(realpath "$WORK")

# The data, made once per set of parameters (a stamp records them).
stamp="files=$TREE_FILES big=$BIG_MIB seed=$SEED"
if [ "$(cat "$WORK/stamp" 2>/dev/null)" != "$stamp" ]; then
  echo "sha1-tree-bench: generating $TREE_FILES files and a $BIG_MIB MiB file in $WORK" >&2
  rm -rf "$WORK/tree" "$WORK/big" "$WORK/small" "$WORK/stamp"
  python3 - "$WORK" "$TREE_FILES" "$BIG_MIB" "$SEED" <<'EOF'
import math, os, random, sys

work, files, big_mib, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
exts = [".c", ".h", ".rs", ".py", ".md", ".txt", ".json", ".go"]
total = 0
for i in range(files):
    d = os.path.join(work, "tree", f"d{i // 10000:02d}", f"s{i // 100 % 100:02d}")
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    if rng.random() < 0.02:
        size = 0
    else:
        size = min(int(rng.lognormvariate(math.log(5 * 1024), 1.3)), 1 << 20)
    total += size
    with open(os.path.join(d, f"f{i:05d}{rng.choice(exts)}"), "wb") as f:
        f.write(rng.randbytes(size))
with open(os.path.join(work, "small"), "wb") as f:
    f.write(rng.randbytes(100))
# The big file: 16 MiB of pseudo-random bytes, each copy shifted by one
# byte, so that no two pieces are alike.
block = rng.randbytes(16 << 20)
with open(os.path.join(work, "big"), "wb") as f:
    for k in range(big_mib // 16):
        f.write(block[k:] + block[:k])
    f.write(block[: (big_mib % 16) << 20])
print(f"sha1-tree-bench: tree of {files} files, {total / (1 << 20):.1f} MiB", file=sys.stderr)
EOF
  echo "$stamp" >"$WORK/stamp"
fi

cd "$WORK/tree"
find . -type f -print0 | sort -z >"$WORK/list0"
tr '\0' '\n' <"$WORK/list0" >"$WORK/list"
tree_bytes=$(find . -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
big_bytes=$(stat -c %s "$WORK/big")
# Warm the page cache.
xargs -0 -a "$WORK/list0" cat >/dev/null
cat "$WORK/big" >/dev/null

echo "cpu:      $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "cores:    $(nproc) (online: $(getconf _NPROCESSORS_ONLN)); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "date:     $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "fastcrypt: $("$FASTCRYPT" --version) ($FASTCRYPT)"
echo "sha1sum:  $(sha1sum --version | head -1)"
[ "$have_cd" = 1 ] && echo "sha1cdsum: $cd_version"
echo "git:      $(git --version)"
echo "hyperfine: $(hyperfine --version)"
echo "tree:     $(wc -l <"$WORK/list") files, $tree_bytes bytes; big: $big_bytes bytes"
echo

fc=$FASTCRYPT
xa="xargs -0 -a $WORK/list0"
tree_cmds=(
  -n "fastcrypt sha1" "$xa $fc sha1 >/dev/null"
  -n "fastcrypt sha1 --no-detect" "$xa $fc sha1 --no-detect >/dev/null"
  -n "fastcrypt sha1 -j 1" "$xa $fc sha1 -j 1 >/dev/null"
  -n "sha1sum" "$xa sha1sum >/dev/null"
)
[ "$have_cd" = 1 ] && tree_cmds+=(-n "sha1cdsum" "$xa $sha1cdsum >/dev/null")
tree_cmds+=(-n "git hash-object" "git hash-object --no-filters --stdin-paths <$WORK/list >/dev/null")

# xargs exits 123 when a command fails; a failure here is a bug, so no
# --ignore-failure.
echo "== tree: $(wc -l <"$WORK/list") files"
hyperfine --style basic --warmup "$WARMUP" --min-runs "$RUNS" --export-json "$WORK/tree.json" "${tree_cmds[@]}"
echo
echo "== one small file (100 bytes): start-up, $SMALL_ROUNDS interleaved rounds"
# Start-up is a millisecond, less than the host's load phases last, so
# the commands run interleaved (each round runs each once, in an order
# rotated every round) and are compared by the median of the per-round
# ratios, not by means from separate runs.
python3 - "$WORK" "$SMALL_ROUNDS" "$fc" <<'EOF'
import json, os, statistics, sys, time

work, rounds, fc = sys.argv[1], int(sys.argv[2]), sys.argv[3]
small = os.path.join(work, "small")
cmds = [("fastcrypt sha1", [fc, "sha1", small]),
        ("fastcrypt sha1 --no-detect", [fc, "sha1", "--no-detect", small]),
        ("sha1sum", ["sha1sum", small])]
null = os.open(os.devnull, os.O_WRONLY)
def once(argv):
    t = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1)])
    _, status = os.waitpid(pid, 0)
    dt = time.perf_counter() - t
    if status != 0:
        sys.exit(f"sha1-tree-bench: {argv} failed")
    return dt
times = {name: [] for name, _ in cmds}
for r in range(20 + rounds):
    k = r % len(cmds)
    for name, argv in cmds[k:] + cmds[:k]:
        dt = once(argv)
        if r >= 20:  # warm-up rounds
            times[name].append(dt)
base = times["sha1sum"]
results = []
for name, _ in cmds:
    t = times[name]
    ratio = statistics.median(b / a for a, b in zip(t, base))
    q = statistics.quantiles(t, n=4)
    print(f"  {name:<28} median {statistics.median(t) * 1e3:6.3f} ms  (quartiles {q[0] * 1e3:.3f}-{q[2] * 1e3:.3f})"
          f"  sha1sum/this per round: median {ratio:.2f}x")
    results.append({"command": name, "mean": statistics.median(t), "stddev": (q[2] - q[0]) / 2,
                    "paired": ratio})
with open(os.path.join(work, "small.json"), "w") as f:
    json.dump({"results": results}, f)
EOF
echo
big_cd=()
[ "$have_cd" = 1 ] && big_cd=(-n "sha1cdsum" "$sha1cdsum $WORK/big >/dev/null")
echo "== one $BIG_MIB MiB file"
hyperfine --style basic --warmup 1 --min-runs "$RUNS" --export-json "$WORK/big.json" \
  -n "fastcrypt sha1 --pieces 256K" "$fc sha1 --pieces 256K $WORK/big >/dev/null" \
  -n "fastcrypt sha1 --pieces 256K -j 1" "$fc sha1 --pieces 256K -j 1 $WORK/big >/dev/null" \
  -n "fastcrypt sha1 --no-detect" "$fc sha1 --no-detect $WORK/big >/dev/null" \
  -n "fastcrypt sha1" "$fc sha1 $WORK/big >/dev/null" \
  -n "sha1sum" "sha1sum $WORK/big >/dev/null" \
  "${big_cd[@]}"

echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) (on a shared machine, trust ratios within one run only)"
python3 - "$WORK" "$tree_bytes" "$big_bytes" <<'EOF'
import json, sys

work, tree_bytes, big_bytes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
print("== summary: mean wall time (small: median); ratio = sha1sum's time / this one's (above 1:")
print("   faster; small: the median of the per-round ratios)")
print(f"{'workload':<12} {'command':<36} {'mean':>10} {'+/-':>8} {'vs sha1sum':>10} {'MB/s':>8}")
for name, size in (("tree", tree_bytes), ("small", 0), ("big", big_bytes)):
    with open(f"{work}/{name}.json") as f:
        results = json.load(f)["results"]
    base = next(r["mean"] for r in results if r["command"] == "sha1sum")
    for r in results:
        mean, sd = r["mean"], r["stddev"] or 0.0
        rate = f"{size / mean / 1e6:8.0f}" if size else f"{'-':>8}"
        unit = (1e3, "ms") if mean < 10 else (1, "s")
        ratio = r.get("paired", base / mean)
        print(f"{name:<12} {r['command']:<36} {mean * unit[0]:8.2f}{unit[1]:<2} {sd * unit[0]:6.2f}{unit[1]:<2}"
              f" {ratio:9.2f}x {rate}")
EOF
