//! The training runs page in a real browser: a tiny shakti run of two
//! generations (`lokizero train`), `lokizero serve --runs` on its parent
//! folder, and `crates/serve/tests/browser/runs.mjs` in Debian's chromium:
//! the page lists the generations in its table and curve on a phone-sized
//! window; then, with the page open, one more generation is trained and
//! the page shows it without a reload. And `lokizero train --serve`: the
//! lab's bot follows the run, the page shows each new generation without
//! a reload and the bot plays. Skipped as tests/web_browser.rs is (no
//! chromium, unless `CI` is set).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod support;

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");

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
    let Some((chromium, dir)) = support::browser() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("tiny.toml");
    std::fs::write(&config, support::tiny_config(2, 7)).unwrap();
    let runs = tmp.path().join("runs");
    let run = runs.join("shakti-tiny");
    train(&config, &run, "2");

    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
    let server = support::Server::start(&[
        "--models".as_ref(),
        models.as_os_str(),
        "--runs".as_ref(),
        runs.as_os_str(),
    ]);
    let url = &server.url;

    let signal = tmp.path().join("train-more");
    let node = Command::new("node")
        .arg(dir.join("runs.mjs"))
        .env("LAB_URL", url)
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

#[test]
fn train_serve_shows_each_new_generation_live() {
    let Some((chromium, dir)) = support::browser() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("tiny.toml");
    // More generations than the page needs: the run is stopped once the
    // page has seen it move on.
    std::fs::write(&config, support::tiny_config(500, 11)).unwrap();
    let run = tmp.path().join("shakti-live");
    let trainer = support::Server::run(&[
        "train".as_ref(),
        "--config".as_ref(),
        config.as_os_str(),
        "--run-dir".as_ref(),
        run.as_os_str(),
        "--quiet".as_ref(),
        "--serve".as_ref(),
        "127.0.0.1:0".as_ref(),
    ]);
    let out = Command::new("node")
        .arg(dir.join("live.mjs"))
        .env("LAB_URL", &trainer.url)
        .env("CHROMIUM", &chromium)
        .output()
        .expect("run node");
    let said = String::from_utf8_lossy(&out.stdout);
    println!("{said}");
    assert!(
        out.status.success(),
        "train --serve page tests failed:\n{said}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
