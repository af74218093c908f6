#!/usr/bin/env bash
# Constant-time check of fastcrypt under valgrind: the ctgrind technique
# (A. Langley, 2010). Memcheck tracks undefined bits and reports every
# conditional branch and every memory address that depends on them. The
# probes (crates/fastcrypt/tests/suite/ct.rs, one table) mark keys, H,
# plaintexts, messages and tags undefined, run the library on one backend,
# check that the secret reached the outputs and declassify only those;
# any branch or table index derived from a secret on the way is reported.
#
# Probed, on every backend valgrind can execute: AES key setup, AES-GCM
# seal and open (AES-128/256, a good and a bad tag), tag comparison, GHASH,
# SHA-1 and HMAC-SHA1. A backend whose instructions valgrind's virtual CPU
# hides is listed as skipped, with the features it lacks. Every family has
# leaky twins (a table S-box, an early-exit compare, a branch on a secret
# ...) that must be flagged, so a check that cannot fail fails here.
#
# The one secret-dependent branch allowed is AES-GCM open's branch on its
# own verdict (decrypt, or wipe the buffer): an error is excused only when
# its innermost frame is fastcrypt::aes_gcm::Gcm::open at a source line
# that branches on `ok` or on `ct_eq(..)`. That is why the build carries
# line tables (debug info does not change the code): without them valgrind
# could not tell open's own branch from a leak inlined into it.
#
# Usage: scripts/ct-check.sh [--release | --profile NAME] [--bin PATH]
#                            [--aes-soft] [--jobs N]
#   --release     check the release build, the code users get (the default)
#   --profile P   check another cargo profile's build (e.g. test: quicker)
#   --bin PATH    check this test binary (`--test all`) instead of building
#   --aes-soft    also build with --cfg aes_backend="soft" given to the
#                 `aes` crate alone (a per-package profile rustflag, through
#                 RUSTC_BOOTSTRAP: only `aes` and what depends on it are
#                 compiled again) and probe its software AES under the
#                 portable AES-GCM: under valgrind the crate otherwise
#                 takes AES-NI, as it does on this CPU
#   --jobs N      valgrind runs at once (default 2)
# Exit status: 0 when every probe gave its expected verdict (skipped
# backends aside); 1 otherwise; 2 when valgrind is missing or a build
# fails.
# CI: scripts/setup.sh installs valgrind; scripts/test.sh runs this.
# `cargo test --test all -- --ignored ct_valgrind` runs it on that binary.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=""
profile=release
aes_soft=no
jobs=2
while [ $# -gt 0 ]; do
    case "$1" in
    --bin) bin=$2; shift 2 ;;
    --release) profile=release; shift ;;
    --profile) profile=$2; shift 2 ;;
    --aes-soft) aes_soft=yes; shift ;;
    --jobs) jobs=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "ct-check: unknown argument $1" >&2; exit 2 ;;
    esac
done

if ! command -v valgrind >/dev/null 2>&1; then
    echo "ct-check: valgrind is not installed (apt-get install valgrind)" >&2
    exit 2
fi

start=$SECONDS

# build [soft]: prints the path of the `--test all` binary; with `soft`,
# the build whose `aes` crate has its software AES.
build() {
    local json soft=() env=()
    if [ "${1:-}" = soft ]; then
        env=(RUSTC_BOOTSTRAP=1)
        soft=(-Zprofile-rustflags
            --config "profile.$profile.package.aes.rustflags=[\"--cfg\", \"aes_backend=\\\"soft\\\"\"]")
    fi
    echo "ct-check: building --test all, profile $profile${1:+, aes_backend=\"soft\" for the aes crate}" >&2
    json=$(cd "$root" && env "${env[@]}" cargo test -p fastcrypt --test all --no-run \
        --profile "$profile" "${soft[@]}" \
        --config "profile.$profile.package.fastcrypt.debug=\"line-tables-only\"" \
        --message-format=json) || {
        echo "ct-check: build failed" >&2
        return 2
    }
    printf '%s\n' "$json" | grep -o '"executable":"[^"]*"' |
        sed 's/^"executable":"//; s/"$//' | tail -n 1
}

built="$profile build"
if [ -z "$bin" ]; then
    bin=$(build) || exit 2
else
    built="given binary"
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "ct-check: no test binary (${bin:-cargo printed none})" >&2
    exit 2
fi
soft_bin=""
if [ "$aes_soft" = yes ]; then
    soft_bin=$(build soft) || exit 2
fi

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Probes, in the table's order: "binary name label" per line.
"$bin" --list | sed -n 's/^\([a-z0-9_]*_ct_probe\/[a-z0-9_]*\): test$/\1/p' >"$dir/names"
if [ ! -s "$dir/names" ]; then
    echo "ct-check: $bin lists no *_ct_probe/* trials" >&2
    exit 2
fi
while read -r name; do
    echo "$bin $name ${name#*/}"
    case "$name" in
    aes_key_ct_probe/portable | aes_gcm_ct_probe/portable)
        [ -n "$soft_bin" ] && echo "$soft_bin $name portable+aes_soft"
        [ -z "$soft_bin" ] && echo "- $name portable+aes_soft"
        ;;
    esac
done <"$dir/names" >"$dir/probes"

# run I BINARY NAME: valgrind's log of probe I in $dir/I.log.
run() {
    local env=()
    [ "$2" != "$bin" ] && env=(FASTCRYPT_CT_AES_SOFT=1)
    env "${env[@]}" FASTCRYPT_CT_EXPECT_VALGRIND=1 valgrind --tool=memcheck \
        --track-origins=yes --fullpath-after= --num-callers=8 \
        "$2" "$3" --exact --test-threads=1 >"$dir/$1.log" 2>&1 || true
}
i=0
while read -r b name label; do
    i=$((i + 1))
    [ "$b" = - ] && continue
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    run "$i" "$b" "$name" &
done <"$dir/probes"
wait

# verdict LOG: clean, flagged, skipped or "did not run"; the excused
# verdict branches go to $dir/allowed, the reason for a skip to stdout's
# second line.
open_re='^[[:space:]]*(if ok \{|if !?ct_eq\()'
# Gcm::open as valgrind names it: legacy symbol mangling, or v0
# (`<fastcrypt::aes_gcm::Gcm>::open`), which rustc uses when
# RUSTC_BOOTSTRAP makes it a nightly, as for the --aes-soft build.
open_fn='(fastcrypt::aes_gcm::Gcm|<fastcrypt::aes_gcm::Gcm>)::open'
verdict() {
    local log=$1 reason
    reason=$(sed -n 's/.*\.\.\. ignored (\(.*\))$/\1/p' "$log" | head -n 1)
    if [ -n "$reason" ]; then
        printf 'skipped\n%s\n' "$reason"
        return
    fi
    if ! grep -q '1 passed' "$log"; then
        echo "did not run"
        return
    fi
    local contexts
    contexts=$(sed -n 's/.*ERROR SUMMARY: [0-9]* errors from \([0-9]*\) contexts.*/\1/p' "$log")
    # Each error: its kind, then its innermost frame.
    local leaks=0 seen=0 kind frame file line
    while IFS=$'\t' read -r kind frame; do
        seen=$((seen + 1))
        if [ "$kind" = cond ] &&
            [[ "$frame" =~ $open_fn\ \((.*/src/aes_gcm/mod\.rs):([0-9]+)\)$ ]]; then
            file=${BASH_REMATCH[2]} line=${BASH_REMATCH[3]}
            if sed -n "${line}p" "$file" 2>/dev/null | grep -Eq "$open_re"; then
                echo "${file#"$root"/}:$line: $(sed -n "${line}p" "$file" | sed 's/^ *//')" >>"$dir/allowed"
                continue
            fi
        fi
        leaks=$((leaks + 1))
    done < <(awk '
        / depends on uninitialised value|Use of uninitialised value|uninitialised byte|Invalid / {
            kind = ($0 ~ /Conditional jump/) ? "cond" : "other"; want = 1; next
        }
        want && /^==[0-9]+==    at / {
            sub(/^==[0-9]+==    at 0x[0-9A-Fa-f]+: /, ""); print kind "\t" $0; want = 0
        }' "$log")
    if [ "${contexts:-0}" -ne "$seen" ]; then
        echo "unparsed ($seen of ${contexts:-?} errors read)"
    elif [ "$leaks" -gt 0 ]; then
        echo flagged
    else
        echo clean
    fi
}

printf '%-10s %-22s %-8s %s\n' probe backend verdict expected
failed=0 ok=0 skipped=0 i=0
: >"$dir/allowed"
: >"$dir/notes"
while read -r b name label; do
    i=$((i + 1))
    family=${name%_ct_probe/*}
    expect=clean
    [[ "$label" == leaky_* ]] && expect=flagged
    if [ "$b" = - ]; then
        got=skipped
        echo "  $family/$label: valgrind's CPU has AES-NI, so the aes crate takes it; --aes-soft builds with its software AES" >>"$dir/notes"
    else
        { read -r got; read -r reason || true; } < <(verdict "$dir/$i.log")
        [ "$got" = skipped ] && echo "  $family/$label: $reason" >>"$dir/notes"
    fi
    printf '%-10s %-22s %-8s %s\n' "$family" "$label" "$got" "$expect"
    if [ "$got" = skipped ]; then
        skipped=$((skipped + 1))
    elif [ "$got" = "$expect" ]; then
        ok=$((ok + 1))
    else
        failed=$((failed + 1))
        cp "$dir/$i.log" "$dir/failed-$i.log"
    fi
done <"$dir/probes"

if [ -s "$dir/notes" ]; then
    echo "skipped (not executable under valgrind here):"
    cat "$dir/notes"
fi
if [ -s "$dir/allowed" ]; then
    echo "allowed: AES-GCM open's branch on its verdict"
    sort -u "$dir/allowed" | sed 's/^/  /'
fi
for log in "$dir"/failed-*.log; do
    [ -e "$log" ] || continue
    echo "---- $(sed -n 's/^test \([^ ]*\) \.\.\..*/\1/p' "$log" | head -n 1) under valgrind:"
    sed 's/^/    /' "$log"
done
summary="$ok as expected, $failed wrong, $skipped skipped; $((SECONDS - start)) s ($built)"
if [ "$failed" -ne 0 ]; then
    echo "ct-check: FAILED: $summary" >&2
    exit 1
fi
echo "ct-check: $summary"
