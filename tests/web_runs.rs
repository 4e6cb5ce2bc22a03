//! The training runs page in a real browser: a tiny shakti run of two
//! generations (`lokizero train`), `lokizero serve --runs` on its parent
//! folder, and `crates/serve/tests/browser/runs.mjs` in Debian's chromium:
//! the page lists the generations in its table and curve on a phone-sized
//! window; then, with the page open, one more generation is trained and
//! the page shows it without a reload. Skipped as tests/web_browser.rs is
//! (no chromium, unless `CI` is set).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");

const TINY: &str = r#"
variant = "shakti"
generations = 2
seed = 7
threads = 2
[network]
blocks = 1
filters = 8
value_hidden = 16
[selfplay]
games_per_generation = 6
concurrent_games = 6
simulations = 8
leaves_per_tree = 2
temperature_plies = 6
ply_cap = 60
games_per_chunk = 3
[training]
batch_size = 32
sample_reuse = 1.0
min_steps = 3
"#;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn train(config: &Path, run: &Path, generations: &str) {
    let out = Command::new(BIN)
        .arg("train")
        .arg("--config")
        .arg(config)
        .arg("--run-dir")
        .arg(run)
        .args(["--quiet", "--generations", generations])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "train: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_runs_page_follows_a_run() {
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
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("tiny.toml");
    std::fs::write(&config, TINY).unwrap();
    let runs = tmp.path().join("runs");
    let run = runs.join("shakti-tiny");
    train(&config, &run, "2");

    let mut child = Command::new(BIN)
        .args(["serve", "--addr", "127.0.0.1:0", "--models"])
        .arg(root().join("models"))
        .arg("--runs")
        .arg(&runs)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start lokizero serve");
    let stdout = child.stdout.take().unwrap();
    let _server = Killed(child);
    let url = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find_map(|l| {
            l.strip_prefix("web lab: ")
                .map(|u| u.trim_end_matches('/').to_string())
        })
        .expect("lokizero serve prints its address");

    let signal = tmp.path().join("train-more");
    let node = Command::new("node")
        .arg(dir.join("runs.mjs"))
        .env("LAB_URL", &url)
        .env("CHROMIUM", &chromium)
        .env("EXPECT", "2")
        .env("TRAIN_MORE", &signal)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run node");
    // Train one more generation when the page asks (it has checked the
    // first two by then).
    let started = Instant::now();
    while !signal.exists() && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(100));
    }
    if signal.exists() {
        train(&config, &run, "3"); // the total: a resumed run trains up to it
    }
    let out = node.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    println!("{said}");
    assert!(
        out.status.success(),
        "runs page tests failed:\n{said}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
