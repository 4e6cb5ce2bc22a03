#!/usr/bin/env bash
# Regenerate the web lab's screenshots in docs/web/ (one per variant,
# mid-game, with the shipped bundles) from the browser test itself, so they
# show the page and the bots as they are: run it after changing the page or
# shipping a bundle, then commit docs/web/. Needs chromium and npm, as
# tests/web_browser.rs does.
set -euo pipefail
cd "$(dirname "$0")/.."
LOKIZERO_SCREENSHOTS=1 cargo test --release --workspace --test web_browser -- --nocapture
ls -l docs/web/
