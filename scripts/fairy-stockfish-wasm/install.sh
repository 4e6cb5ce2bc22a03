#!/usr/bin/env bash
# Install the npm package fairy-stockfish-nnue.wasm at the version pinned in
# package-lock.json, beside the wrapper (node_modules/, not committed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
npm ci --no-audit --no-fund --loglevel=error
