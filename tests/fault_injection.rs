//! Fault injection on the main job: a tiny training run is
//! killed with SIGKILL at least 10 times — while a replay chunk, a
//! checkpoint bundle or the metrics log is being written, and at random
//! moments — and restarted each time. `LOKIZERO_FAULT_DELAY_MS` makes every
//! writer sleep between its temporary write and the rename, and the test
//! kills when the writer's `.tmp-<name>-*` file appears, so each window is
//! hit deterministically.
//!
//! At the end: the run finished; no completed generation was lost or
//! rewritten (a bundle seen once keeps its exact weights); every bundle
//! loads (`lokizero play --games 1`); every replay chunk reads; the metrics
//! log has exactly one parsing line per generation, in order; no stray
//! files are left.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod support;

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");
// Enough generations that the run outlasts every planned kill even on an
// idle machine (each generation offers one chunk, checkpoint and metrics
// window).
const GENERATIONS: u32 = 8;
const MIN_KILLS: usize = 10;
const DELAY_MS: &str = "120";

/// Where a kill is aimed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Window {
    /// A replay chunk is being written (`replay/.tmp-gen-*`).
    Chunk,
    /// A checkpoint bundle is being written (`checkpoints/.tmp-gen-*`).
    Checkpoint,
    /// The metrics log is being rewritten (`.tmp-metrics.jsonl-*`).
    Metrics,
    /// A pseudo-random moment.
    Random,
}

fn has_entry(dir: &Path, prefix: &str) -> bool {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .any(|e| e.file_name().to_string_lossy().starts_with(prefix))
        })
        .unwrap_or(false)
}

fn in_window(run: &Path, w: Window) -> bool {
    match w {
        Window::Chunk => has_entry(&run.join("replay"), ".tmp-gen-"),
        Window::Checkpoint => has_entry(&run.join("checkpoints"), ".tmp-gen-"),
        Window::Metrics => has_entry(run, ".tmp-metrics.jsonl-"),
        Window::Random => false,
    }
}

fn spawn_train(config: &str, run: &Path, delay: bool) -> Child {
    let mut cmd = Command::new(BIN);
    cmd.args(["train", "--config", config, "--run-dir"])
        .arg(run)
        .arg("--quiet")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if delay {
        cmd.env("LOKIZERO_FAULT_DELAY_MS", DELAY_MS);
    } else {
        cmd.env_remove("LOKIZERO_FAULT_DELAY_MS");
    }
    cmd.spawn().expect("start lokizero train")
}

/// Weights of every completed generation on disk.
fn bundles(run: &Path) -> BTreeMap<u32, Vec<u8>> {
    let mut out = BTreeMap::new();
    for g in 0..=GENERATIONS {
        let dir = run.join(format!("checkpoints/gen-{g:06}"));
        if let Ok(w) = std::fs::read(dir.join("model.safetensors")) {
            out.insert(g, w);
        }
    }
    out
}

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
fn repeated_sigkill_in_every_write_window_loses_nothing() {
    let t0 = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let config_path = tmp.path().join("tiny.toml");
    std::fs::write(&config_path, support::tiny_config(GENERATIONS, 11)).unwrap();
    let config = config_path.to_str().unwrap();
    let run = tmp.path().join("run");

    let plan = [
        Window::Chunk,
        Window::Checkpoint,
        Window::Metrics,
        Window::Random,
    ];
    let mut kills: Vec<Window> = Vec::new();
    let mut seen: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
    let mut rng = 0x0F_A017_u64;
    let mut finished = false;
    let mut attempt = 0;
    while !finished && attempt < 60 {
        let window = plan[attempt % plan.len()];
        attempt += 1;
        let random_ms = 50 + splitmix(&mut rng) % 700;
        let mut child = spawn_train(config, &run, true);
        let start = Instant::now();
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                let mut err = String::new();
                if let Some(mut e) = child.stderr.take() {
                    std::io::Read::read_to_string(&mut e, &mut err).unwrap();
                }
                assert!(status.success(), "train failed after {kills:?}: {err}");
                finished = true;
                break;
            }
            let hit = match window {
                Window::Random => start.elapsed() >= Duration::from_millis(random_ms),
                w => in_window(&run, w),
            };
            if hit {
                child.kill().unwrap(); // SIGKILL
                child.wait().unwrap();
                kills.push(window);
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no progress waiting for {window:?}"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        // Completed generations never disappear nor change.
        let now = bundles(&run);
        for (g, w) in &seen {
            assert_eq!(
                now.get(g),
                Some(w),
                "generation {g} lost or rewritten after {kills:?}"
            );
        }
        seen.extend(now);
    }
    assert!(
        kills.len() >= MIN_KILLS,
        "only {} kills before the run finished: {kills:?}",
        kills.len()
    );
    for w in [Window::Chunk, Window::Checkpoint, Window::Metrics] {
        assert!(
            kills.iter().filter(|&&k| k == w).count() >= 2,
            "{w:?} window hit fewer than twice: {kills:?}"
        );
    }

    // A last invocation finds the run finished and cleans leftovers.
    let out = spawn_train(config, &run, false).wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let now = bundles(&run);
    assert_eq!(
        now.keys().copied().collect::<Vec<_>>(),
        (0..=GENERATIONS).collect::<Vec<_>>()
    );
    for (g, w) in &seen {
        assert_eq!(now.get(g), Some(w), "generation {g} rewritten");
    }

    // Every file loads.
    for g in 0..=GENERATIONS {
        let bundle = run.join(format!("checkpoints/gen-{g:06}"));
        let out = Command::new(BIN)
            .args(["play", "--model"])
            .arg(&bundle)
            .args(["--games", "1", "--nodes", "2", "--json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "generation {g} does not load: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut chunks = 0;
    for entry in std::fs::read_dir(run.join("replay")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (g, _) = selfplay::replay::parse_chunk_name(&name)
            .unwrap_or_else(|| panic!("stray file replay/{name}"));
        let chunk = selfplay::read_chunk::<rules::Shakti>(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(chunk.generation, g);
        chunks += 1;
    }
    assert!(chunks >= 2 * GENERATIONS as usize, "{chunks} chunks");
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    let gens: Vec<u64> = metrics
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("metrics line parses");
            v["generation"].as_u64().expect("generation field")
        })
        .collect();
    assert_eq!(
        gens,
        (1..=GENERATIONS as u64).collect::<Vec<_>>(),
        "{metrics}"
    );
    let mut root: Vec<String> = std::fs::read_dir(&run)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    root.sort();
    assert_eq!(
        root,
        ["checkpoints", "config.toml", "metrics.jsonl", "replay"]
    );
    for entry in std::fs::read_dir(run.join("checkpoints")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(name.starts_with("gen-"), "stray checkpoints/{name}");
    }
    eprintln!(
        "fault injection: {} kills {kills:?}, {:.1} s",
        kills.len(),
        t0.elapsed().as_secs_f64()
    );
}
