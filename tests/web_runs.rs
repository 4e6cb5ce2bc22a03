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

/// `GET path` on the server at `url` (`http://HOST:PORT`): the status and
/// the JSON body.
fn http_get(url: &str, path: &str) -> (u16, serde_json::Value) {
    use std::io::{Read, Write};
    let host = url.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap_or_default())
}

#[test]
fn a_run_in_a_store_is_listed_with_its_generations_and_games() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("tiny.toml");
    std::fs::write(&config, support::tiny_config(2, 5)).unwrap();
    // A distributed run in a folder store (the same layout as in S3).
    let store = tmp.path().join("store-run");
    let out = Command::new(BIN)
        .arg("train")
        .arg("--store")
        .arg(&store)
        .arg("--config")
        .arg(&config)
        .args(["--quiet", "--poll", "0.3"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "train --store: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // An object that is not a chunk, in the replay folder: skipped.
    std::fs::write(store.join("replay/stray.bin"), b"not a chunk").unwrap();

    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
    let server = support::Server::start(&[
        "--models".as_ref(),
        models.as_os_str(),
        "--store".as_ref(),
        store.as_os_str(),
    ]);
    let (status, runs) = http_get(&server.url, "/api/runs");
    assert_eq!(status, 200, "{runs}");
    assert_eq!(runs["runs"][0]["name"], "store-run", "{runs}");
    assert_eq!(runs["runs"][0]["variant"], "shakti", "{runs}");
    assert_eq!(runs["runs"][0]["generations"], 2, "{runs}");
    let (status, run) = http_get(&server.url, "/api/runs/store-run");
    assert_eq!(status, 200, "{run}");
    assert_eq!(run["rows"].as_array().unwrap().len(), 2, "{run}");
    let (status, games) = http_get(&server.url, "/api/runs/store-run/games");
    assert_eq!(status, 200, "{games}");
    let listed = games["games"].as_array().unwrap();
    assert!(!listed.is_empty(), "{games}");
    assert!(listed
        .iter()
        .all(|g| !g["moves"].as_array().unwrap().is_empty()));
    // The newest game first: its generation is the highest listed.
    let generation = |g: &serde_json::Value| g["generation"].as_u64().unwrap();
    assert_eq!(
        generation(&listed[0]),
        listed.iter().map(generation).max().unwrap()
    );
}
