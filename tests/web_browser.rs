//! The web lab in a real browser: starts `lokizero serve` on a free
//! loopback port with the shipped bundles, then runs
//! `crates/serve/tests/browser/browser.mjs`, which drives the page in
//! Debian's chromium (headless) with playwright-core from npm: for every
//! variant a clicked move and the bot's answer, an illegal click that
//! changes nothing, the last move of a position one move from the end, a
//! screenshot of each variant mid-game; a phone-sized window, a reload,
//! the flipped board, results in words, check, take-back, drag and typed
//! moves, the Loki powers' guidance and the taken pieces (also in a new
//! tab), the rules panel, the self-play games line, the evaluation
//! graph, the line's arrows, Top moves, a move list that starts with the
//! second player and the arrow keys; then a whole
//! losers game, bot against bot. The screenshots go to a scratch folder, or with
//! `LOKIZERO_SCREENSHOTS=1` to `docs/web/` (how the committed ones were
//! made).
//!
//! Skipped, with a message, when `/usr/bin/chromium` (or `$CHROMIUM`) is
//! absent, except when `CI` is set (`.ci/run` sets it and installs
//! chromium), where that is a failure. No browser is ever downloaded.

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_page_works_in_chromium() {
    let Some((chromium, dir)) = support::browser() else {
        return;
    };
    let models = root().join("models");
    let server = support::Server::start(&["--models".as_ref(), models.as_os_str()]);
    let url = &server.url;
    let mut node = Command::new("node");
    if std::env::var_os("LOKIZERO_SCREENSHOTS").is_some() {
        node.env("SCREENSHOTS", root().join("docs/web"));
    }
    let out = node
        .arg(dir.join("browser.mjs"))
        .env("LAB_URL", url)
        .env("CHROMIUM", &chromium)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "browser tests failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
