#!/usr/bin/env bash
# Verifies every vendored vector file against the sha256 in its SOURCES.md.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for sources in $(find crates -name SOURCES.md -path '*testdata*'); do
  dir=$(dirname "$sources")
  # Table rows look like: | `path` | `sha256` |
  while IFS='|' read -r _ file sum _; do
    file=$(echo "$file" | tr -d ' `'); sum=$(echo "$sum" | tr -d ' `')
    [[ "$sum" =~ ^[0-9a-f]{64}$ ]] || continue
    got=$(sha256sum "$dir/$file" | cut -d' ' -f1)
    if [ "$got" != "$sum" ]; then
      echo "MISMATCH $dir/$file: $got (SOURCES.md says $sum)"; status=1
    fi
  done < "$sources"
done
[ $status -eq 0 ] && echo "testdata: every file matches its SOURCES.md"
exit $status
