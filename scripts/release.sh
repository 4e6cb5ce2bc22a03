#!/usr/bin/env bash
# Put a release together in one folder a maintainer can upload:
#
#   dist/lokizero-VERSION/
#     lokizero-VERSION-TARGET.tar.gz   bin/lokizero, share/lokizero/models/<variant>/,
#                                      README.md, CHANGELOG.md, licences
#     bundles/<variant>.tar.gz         each shipped bundle alone (`lokizero models install` takes it)
#     onnx/<variant>.onnx              each bundle's network as ONNX (docs/models.md)
#     NOTES.md                         this version's CHANGELOG.md section
#     SHA256SUMS                       `sha256sum -c SHA256SUMS` checks them all
#
#   scripts/release.sh [OUT_DIR]        (default dist/)
#
# Builds the binary with `cargo build --release --locked` unless LOKIZERO_BIN
# names one, whose `--version` must match the workspace's (Cargo.toml).
# NOTES.md is that version's section of CHANGELOG.md, or [Unreleased] when
# it has none yet. A failed run removes the half-built folder.
set -euo pipefail
# Paths given relative to the caller's folder stay so.
out_root=$(realpath -m "${1:-$(dirname "$0")/../dist}")
[ -n "${LOKIZERO_BIN:-}" ] && LOKIZERO_BIN=$(realpath -m "$LOKIZERO_BIN")
cd "$(dirname "$0")/.."

if [ -z "${LOKIZERO_BIN:-}" ]; then
  cargo build --release --locked
  LOKIZERO_BIN=$PWD/target/release/lokizero
fi
bin=$LOKIZERO_BIN
[ -x "$bin" ] || { echo "error: $bin is not an executable" >&2; exit 1; }
version=$("$bin" --version | awk '{print $2}')
cargo_version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
if [ "$version" != "$cargo_version" ]; then
  echo "error: $bin is version $version but Cargo.toml says $cargo_version; rebuild it" >&2
  exit 1
fi
target=$(uname -m)-$(uname -s | tr '[:upper:]' '[:lower:]')
name=lokizero-$version
dir=$out_root/$name
[ -e "$dir" ] && { echo "error: $dir exists; remove it or pick another OUT_DIR" >&2; exit 1; }
mkdir -p "$dir/bundles" "$dir/onnx"
stage=$(mktemp -d)
done=0
# A failed release leaves nothing half-built behind.
trap 'rm -rf "$stage"; [ "$done" = 1 ] || { rm -rf "$dir"; echo "error: release failed; $dir removed" >&2; }' EXIT

variants=()
for meta in models/*/model.json; do
  variants+=("$(basename "$(dirname "$meta")")")
done

# The binary with the shipped bundles in the layout it searches.
pkg=$stage/$name-$target
mkdir -p "$pkg/bin" "$pkg/share/lokizero/models"
cp "$bin" "$pkg/bin/lokizero"
cp -r models/. "$pkg/share/lokizero/models/"
cp README.md CHANGELOG.md LICENSE-MIT LICENSE-APACHE "$pkg/"
tar -C "$stage" -czf "$dir/$name-$target.tar.gz" "$name-$target"

for v in "${variants[@]}"; do
  tar -C models -czf "$dir/bundles/$v.tar.gz" "$v"
  "$bin" export --model "models/$v" --onnx "$dir/onnx/$v.onnx" >/dev/null
done

# This version's notes: its CHANGELOG.md section, else [Unreleased].
notes() {
  awk -v want="$1" '
    /^## \[/ { on = index($0, "## [" want "]") == 1; if (on) { print; next } }
    on' CHANGELOG.md
}
notes "$version" >"$dir/NOTES.md"
if [ ! -s "$dir/NOTES.md" ]; then
  notes Unreleased >"$dir/NOTES.md"
  echo "note: CHANGELOG.md has no [$version] section, so NOTES.md is its [Unreleased] section; for a real release rename that section to [$version] - DATE in CHANGELOG.md and run this again" >&2
fi
[ -s "$dir/NOTES.md" ] || { echo "error: CHANGELOG.md has no section for $version nor [Unreleased]" >&2; exit 1; }

(cd "$dir" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | sort | xargs sha256sum >SHA256SUMS)
done=1
echo "release $version for $target in $dir:"
(cd "$dir" && find . -type f | sort | xargs ls -l | awk '{printf "  %10d  %s\n", $5, $9}')
