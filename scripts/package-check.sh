#!/usr/bin/env bash
# Packages every publishable crate the way `cargo publish` would (each
# package is built from its .crate, the CLI against the packaged library
# at the same version) and checks what users would download:
#   - every package is under 2 MiB compressed (the registry refuses more
#     than 10 MB, and vector files must stay in the repository);
#   - every package carries both licence texts and the README.
# Prints each package's size and file count. Exit 1 on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=$((2 * 1024 * 1024))
# A fresh directory, so that no stale .crate from an older version is
# checked instead of this one.
export CARGO_TARGET_DIR=target/package-check
rm -rf "$CARGO_TARGET_DIR/package"
# Cargo verifies the CLI against the library through a temporary local
# registry, and extracts its crates under $CARGO_HOME/registry/src/-<hash>/
# (local registries' directories start with '-'). An extraction of the
# same name and version from an earlier run is reused as it is, so a
# second run on one machine would build the CLI against the library as it
# was then. Remove our crates' extractions first.
for dir in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/fastcrypt*-[0-9]*; do
  [ -e "$dir" ] && rm -rf "$dir"
done
cargo package --workspace --exclude fastcrypt-benches --exclude fastcrypt-dropin --locked -q
status=0
for crate in "$CARGO_TARGET_DIR"/package/*.crate; do
  size=$(stat -c %s "$crate")
  files=$(tar -tzf "$crate")
  name=$(basename "$crate" .crate)
  printf '%-28s %8d bytes  %3d files\n' "$name" "$size" "$(wc -l <<<"$files")"
  if [ "$size" -ge "$limit" ]; then
    echo "package-check: $name is $size bytes, over the 2 MiB limit" >&2
    status=1
  fi
  for f in LICENSE-MIT LICENSE-APACHE README.md; do
    if ! grep -qx "$name/$f" <<<"$files"; then
      echo "package-check: $name lacks $f" >&2
      status=1
    fi
  done
done
exit $status
