#!/usr/bin/env bash
# Build the Copenhagen Hnefatafl engine `hnefatafl-text-protocol` (crate
# `hnefatafl-copenhagen`, AGPL-3.0, by the hnefatafl.org author) from
# crates.io, without its GUI and neural-network engine, for `copenhagen`
# matches (`lokizero match ... htp:PATH[:depthN|:Ns]`, docs/usage.md) and
# for remaking the rules oracle data (scripts/copenhagen-oracle.py). It is
# run as a separate program only; none of its code is in this repository.
#
#   scripts/install-htp.sh [ROOT]    # default ROOT: ~/.local/share/lokizero/htp
#
# About 5 minutes on 2 cores. Prints the executable's path (ROOT/bin/...).
set -euo pipefail

version=6.4.1
root=${1:-${XDG_DATA_HOME:-$HOME/.local/share}/lokizero/htp}
bin="$root/bin/hnefatafl-text-protocol"

if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "$version"; then
  echo "$bin"
  exit 0
fi
command -v cargo >/dev/null || {
  echo "install-htp.sh: cargo not found (install Rust: https://rustup.rs)" >&2
  exit 1
}
cargo install hnefatafl-copenhagen --version "$version" --locked \
  --no-default-features --bin hnefatafl-text-protocol --root "$root" >&2
"$bin" --version >/dev/null
echo "$bin"
