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

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Kills the service when the test ends, passed or not.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_page_works_in_chromium() {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but {chromium} is missing (apt-get install chromium)"
        );
        eprintln!("SKIPPED: browser tests ({chromium} not installed; apt-get install chromium)");
        return;
    }
    let dir = root().join("crates/serve/tests/browser");
    if !dir.join("node_modules/playwright-core").is_dir() {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status()
            .expect("run npm (apt-get install npm)");
        assert!(status.success(), "npm ci failed in {}", dir.display());
    }
    let mut child = Command::new(BIN)
        .args(["serve", "--addr", "127.0.0.1:0", "--models"])
        .arg(root().join("models"))
        .stdout(Stdio::piped())
        .spawn()
        .expect("start lokizero serve");
    let stdout = child.stdout.take().expect("piped stdout");
    let _server = Server(child);
    // `web lab: http://127.0.0.1:PORT/` is the line the README promises.
    let url = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find_map(|line| {
            line.strip_prefix("web lab: ")
                .map(|u| u.trim_end_matches('/').to_string())
        })
        .expect("lokizero serve prints its address");
    let mut node = Command::new("node");
    if std::env::var_os("LOKIZERO_SCREENSHOTS").is_some() {
        node.env("SCREENSHOTS", root().join("docs/web"));
    }
    let out = node
        .arg(dir.join("browser.mjs"))
        .env("LAB_URL", &url)
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
