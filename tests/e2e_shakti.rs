//! End to end on Shakti with a tiny network: train two generations, export,
//! reload the bundle, play games; then resume after SIGKILL and check that
//! completed generations and every file survive.

use std::path::Path;
use std::process::{Command, Stdio};
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

fn lokizero(args: &[&str]) -> std::process::Output {
    Command::new(BIN).args(args).output().expect("run lokizero")
}

/// `lokizero train --config CONFIG --run-dir RUN --quiet`.
fn train(config: &str, run: &Path) -> std::process::Output {
    lokizero(&[
        "train",
        "--config",
        config,
        "--run-dir",
        run.to_str().unwrap(),
        "--quiet",
    ])
}

fn write_config(dir: &Path, text: &str) -> String {
    let path = dir.join("tiny.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn trains_exports_reloads_and_plays() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), TINY);
    let run = tmp.path().join("run");
    let out = train(&config, &run);
    assert!(
        out.status.success(),
        "train failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bundle = run.join("checkpoints/gen-000002");
    assert!(bundle.join("model.safetensors").exists() && bundle.join("model.json").exists());
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(bundle.join("model.json")).unwrap()).unwrap();
    assert_eq!(meta["variant"], "shakti");
    assert_eq!(meta["generation"], 2);
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    assert_eq!(
        metrics.lines().count(),
        2,
        "one metrics line per generation"
    );

    let out = lokizero(&[
        "play",
        "--model",
        bundle.to_str().unwrap(),
        "--vs",
        "random",
        "--games",
        "2",
        "--nodes",
        "4",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "play failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["games"], 2);
    let total = summary["wins"].as_u64().unwrap()
        + summary["draws"].as_u64().unwrap()
        + summary["losses"].as_u64().unwrap();
    assert_eq!(total, 2);

    // Re-running the finished run does no more work and keeps every bundle.
    let out = train(&config, &run);
    assert!(out.status.success());
    assert_eq!(
        std::fs::read_to_string(run.join("metrics.jsonl")).unwrap(),
        metrics
    );
}

#[test]
fn wrong_variant_and_corrupt_bundles_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(
        tmp.path(),
        &TINY.replace("generations = 2", "generations = 1"),
    );
    let run = tmp.path().join("run");
    assert!(lokizero(&[
        "train",
        "--config",
        &config,
        "--run-dir",
        run.to_str().unwrap(),
        "--quiet"
    ])
    .status
    .success());
    let bundle = run.join("checkpoints/gen-000001");
    let weights = bundle.join("model.safetensors");
    let bytes = std::fs::read(&weights).unwrap();
    std::fs::write(&weights, &bytes[..bytes.len() / 2]).unwrap();
    let out = lokizero(&["play", "--model", bundle.to_str().unwrap(), "--games", "1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("checksum mismatch"), "{err}");

    let meta_path = bundle.join("model.json");
    let meta = std::fs::read_to_string(&meta_path)
        .unwrap()
        .replace("\"shakti\"", "\"losers\"");
    std::fs::write(&meta_path, meta).unwrap();
    let out = lokizero(&["play", "--model", bundle.to_str().unwrap(), "--games", "1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("losers"), "{err}");
}

#[test]
fn sigkill_mid_generation_then_resume_loses_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(
        tmp.path(),
        &TINY.replace("generations = 2", "generations = 3"),
    );
    let run = tmp.path().join("run");
    let run_s = run.to_str().unwrap();
    // Kill the run at several moments, each time after it made progress.
    for delay_ms in [300u64, 900, 1500] {
        let mut child = Command::new(BIN)
            .args(["train", "--config", &config, "--run-dir", run_s, "--quiet"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let t = Instant::now();
        while t.elapsed() < Duration::from_millis(delay_ms) {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill(); // SIGKILL on Unix
        let _ = child.wait();
    }
    let out = lokizero(&["train", "--config", &config, "--run-dir", run_s, "--quiet"]);
    assert!(
        out.status.success(),
        "resume failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for g in 0..=3 {
        let bundle = run.join(format!("checkpoints/gen-{g:06}"));
        let out = lokizero(&[
            "play",
            "--model",
            bundle.to_str().unwrap(),
            "--games",
            "1",
            "--nodes",
            "2",
            "--json",
        ]);
        assert!(
            out.status.success(),
            "generation {g} bundle does not load: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    for line in metrics.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("every metrics line parses");
    }
    // No temporary files left where a reader would mistake them for data.
    for entry in std::fs::read_dir(run.join("replay")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            name.starts_with("gen-") || name.starts_with(".tmp-"),
            "unexpected file {name}"
        );
    }
}

/// Resignation on (threshold 1: every searched position counts as lost, so
/// each game with resignation enabled ends at its first search), half the
/// games played out: the metrics log the resignations, the measured
/// false-positive rate and the threshold for the next generation, which the
/// next generation then uses. Also the learning metrics of every line, with
/// the moves-left head on.
#[test]
fn resignation_and_learning_metrics_are_logged_per_generation() {
    let tmp = tempfile::tempdir().unwrap();
    let text = TINY
        .replace(
            "games_per_chunk = 3\n",
            "games_per_chunk = 3\nresign = true\nresign_threshold = 1.0\nresign_threshold_max = 1.0\n\
             resign_consecutive = 1\nresign_playout_fraction = 0.5\n",
        )
        .replace("value_hidden = 16\n", "value_hidden = 16\nmoves_left = true\n");
    let config = write_config(tmp.path(), &text);
    let run = tmp.path().join("run");
    let out = train(&config, &run);
    assert!(
        out.status.success(),
        "train failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(run.join("metrics.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    let first = &lines[0];
    assert_eq!(first["resign_threshold"], 1.0);
    let (resigned, played_out) = (
        first["resigned_games"].as_u64().unwrap(),
        first["resign_played_out_games"].as_u64().unwrap(),
    );
    assert_eq!(resigned + played_out, 6, "{first}");
    assert!(played_out >= 1, "seed 7 plays some games out: {first}");
    // Threshold 1 takes every played-out player with a window: the rate is
    // the share of those that did not lose.
    let fp = first["resign_false_positive_rate"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&fp), "{first}");
    let next = first["resign_threshold_next"].as_f64().unwrap();
    assert!((-1.0..=1.0).contains(&next));
    assert_eq!(lines[1]["resign_threshold"].as_f64().unwrap(), next);
    for line in &lines {
        assert!(line["policy_entropy"].as_f64().unwrap() > 0.0, "{line}");
        // The moves-left head is trained: its loss is logged.
        assert!(line["moves_left_loss"].as_f64().unwrap() > 0.0, "{line}");
        assert!(line["games_per_hour"].as_f64().unwrap() > 0.0);
        assert!(line["train_samples_total"].as_u64().unwrap() >= 32);
    }
    // Totals accumulate: generation 2 adds its own positions and samples.
    let total = |l: &serde_json::Value, k: &str| l[k].as_u64().unwrap();
    assert_eq!(
        total(&lines[1], "selfplay_positions_total"),
        total(first, "selfplay_positions_total") + total(&lines[1], "selfplay_positions")
    );
    assert_eq!(
        total(&lines[1], "train_samples_total"),
        total(first, "train_samples_total") + 32 * total(&lines[1], "train_steps")
    );
}

/// A generation whose self-play was all on disk before an interruption is
/// resumed without replaying it, and its metrics say so: the reused games
/// are counted, and the rates that would time only the reload are null.
#[test]
fn a_resumed_generation_marks_its_reused_self_play() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), TINY);
    let run = tmp.path().join("run");
    assert!(train(&config, &run).status.success());
    // As if killed after generation 2's self-play was written but before
    // its training finished: drop its checkpoint and metrics line.
    std::fs::remove_dir_all(run.join("checkpoints/gen-000002")).unwrap();
    let metrics = run.join("metrics.jsonl");
    let text = std::fs::read_to_string(&metrics).unwrap();
    let first = text.lines().next().unwrap().to_string();
    std::fs::write(&metrics, format!("{first}\n")).unwrap();
    let out = train(&config, &run);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("generation 1 is the last completed, continuing with 2"),
        "{stderr}"
    );
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&metrics)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    let second = &lines[1];
    assert_eq!(second["generation"], 2);
    assert_eq!(second["selfplay_reused_games"], 6, "{second}");
    assert_eq!(second["games"], 6);
    assert!(second["positions_per_second"].is_null(), "{second}");
    assert!(second["games_per_hour"].is_null(), "{second}");
    // Generation 1 played everything itself.
    assert_eq!(lines[0]["selfplay_reused_games"], 0);
    assert!(lines[0]["games_per_hour"].as_f64().unwrap() > 0.0);
    // The complete run again: nothing to train, and it says so.
    let out = train(&config, &run);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("generation 2 is the last completed; this run asks for generations up to 2, so there is nothing to train"),
        "{stderr}"
    );
    assert!(!stderr.contains("continuing with"), "{stderr}");
}

/// `lokizero train --init-from BUNDLE`: a new run continues the bundle's
/// generation numbering and CPU total, `--generations N` trains N more,
/// and a bundle of another shape or variant is refused before anything is
/// written.
#[test]
fn init_from_continues_a_bundle() {
    let tmp = tempfile::tempdir().unwrap();
    let one_gen = TINY.replace("generations = 2", "generations = 1");
    let config = write_config(tmp.path(), &one_gen);
    let first = tmp.path().join("first");
    assert!(train(&config, &first).status.success());
    let bundle = first.join("checkpoints/gen-000001");

    let second = tmp.path().join("second");
    let out = lokizero(&[
        "train",
        "--config",
        &config,
        "--run-dir",
        second.to_str().unwrap(),
        "--init-from",
        bundle.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!second.join("checkpoints/gen-000000").exists());
    let meta = |g: &str| -> serde_json::Value {
        let path = second.join(format!("checkpoints/{g}/model.json"));
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    };
    assert_eq!(meta("gen-000001")["generation"], 1);
    let continued = meta("gen-000002");
    assert_eq!(continued["generation"], 2);
    let cpu = |m: &serde_json::Value| m["training"]["cpu_seconds_total"].as_f64().unwrap();
    assert!(cpu(&continued) > cpu(&meta("gen-000001")));
    // The lineage: generations and CPU-hours of the whole line, and the
    // bundle it was continued from as its ancestor.
    let lineage = &continued["lineage"];
    assert_eq!(lineage["generations"], 2);
    let hours = lineage["cpu_hours"].as_f64().unwrap();
    assert!((hours * 3600.0 - cpu(&continued)).abs() < 1e-6, "{lineage}");
    let parent: serde_json::Value =
        serde_json::from_slice(&std::fs::read(bundle.join("model.json")).unwrap()).unwrap();
    assert_eq!(parent["lineage"]["ancestors"], serde_json::json!([]));
    assert_eq!(
        lineage["ancestors"],
        serde_json::json!([{"generation": 1, "weights_sha256": parent["weights_sha256"]}])
    );
    let metrics = std::fs::read_to_string(second.join("metrics.jsonl")).unwrap();
    assert_eq!(metrics.lines().count(), 1, "{metrics}");

    // Resuming the continued run trains nothing more (generation 2 = 1 + 1).
    assert!(train(&config, &second).status.success());
    assert!(!second.join("checkpoints/gen-000003").exists());

    // Another shape: refused, naming the field, and nothing written.
    let wider = one_gen.replace("filters = 8", "filters = 16");
    let wider_config = tmp.path().join("wider.toml");
    std::fs::write(&wider_config, wider).unwrap();
    let third = tmp.path().join("third");
    let out = lokizero(&[
        "train",
        "--config",
        wider_config.to_str().unwrap(),
        "--run-dir",
        third.to_str().unwrap(),
        "--init-from",
        bundle.to_str().unwrap(),
        "--quiet",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("filters"), "{err}");
    assert!(!third.join("checkpoints").join("gen-000001").exists());
    assert!(!third.join("config.toml").exists(), "nothing written");

    // A bundle of another variant: refused by name.
    let losers = one_gen.replace("variant = \"shakti\"", "variant = \"losers\"");
    let losers_config = tmp.path().join("losers.toml");
    std::fs::write(&losers_config, losers).unwrap();
    let out = lokizero(&[
        "train",
        "--config",
        losers_config.to_str().unwrap(),
        "--run-dir",
        tmp.path().join("fourth").to_str().unwrap(),
        "--init-from",
        bundle.to_str().unwrap(),
        "--quiet",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("shakti"), "{err}");
}

/// `[selfplay] branch_fraction = 1`: generation 1 plays from the start
/// (no earlier games), every game of generation 2 starts from a position
/// of generation 1's games, and training replays those records.
#[test]
fn branched_self_play_starts_from_earlier_games() {
    use rules::Game;
    let tmp = tempfile::tempdir().unwrap();
    let text = TINY.replace(
        "games_per_chunk = 3",
        "games_per_chunk = 3\nbranch_fraction = 1.0",
    );
    let config = write_config(tmp.path(), &text);
    let run = tmp.path().join("run");
    let out = train(&config, &run);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let starts = |g: u32| -> Vec<String> {
        let mut starts = Vec::new();
        for part in 0..2 {
            let path = run.join(format!("replay/gen-{g:06}-part-{part:04}.bin"));
            let chunk = selfplay::read_chunk::<rules::Shakti>(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            starts.extend(chunk.games.into_iter().map(|r| r.start));
        }
        starts
    };
    let start = rules::Shakti::start().to_text();
    assert!(starts(1).iter().all(|s| *s == start));
    let branched = starts(2);
    assert_eq!(branched.len(), 6);
    assert!(branched.iter().all(|s| *s != start), "{branched:?}");
    assert!(run.join("checkpoints/gen-000002").exists());
}

/// A config that extends another, with `--set` overrides: the run records
/// the merged, complete config, a re-run with the same flags resumes, and
/// a bad `--set` is refused naming the argument before anything changes.
#[test]
fn extends_and_set_are_recorded_in_the_run_and_resume() {
    let tmp = tempfile::tempdir().unwrap();
    write_config(tmp.path(), TINY);
    let child = tmp.path().join("experiments/child.toml");
    std::fs::create_dir_all(child.parent().unwrap()).unwrap();
    std::fs::write(
        &child,
        "# tiny with one generation\nextends = \"../tiny.toml\"\ngenerations = 1\n",
    )
    .unwrap();
    let run = tmp.path().join("run");
    let run_s = run.to_str().unwrap();
    let child_s = child.to_str().unwrap();
    let args = [
        "train",
        "--config",
        child_s,
        "--set",
        "seed=9",
        "--set",
        "selfplay.games_per_generation=4",
        "--run-dir",
        run_s,
        "--quiet",
    ];
    let out = lokizero(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recorded = std::fs::read_to_string(run.join("config.toml")).unwrap();
    assert!(!recorded.contains("extends"), "{recorded}");
    let parsed: toml::Table = recorded.parse().unwrap();
    assert_eq!(parsed["generations"].as_integer(), Some(1));
    assert_eq!(parsed["seed"].as_integer(), Some(9));
    assert_eq!(parsed["network"]["filters"].as_integer(), Some(8));
    assert_eq!(
        parsed["selfplay"]["games_per_generation"].as_integer(),
        Some(4)
    );
    // The recorded config is complete: defaults are written out.
    assert!(
        parsed["training"].get("weight_decay").is_some(),
        "{recorded}"
    );
    assert!(run.join("checkpoints/gen-000001").exists());

    // The same invocation again: the run is complete, nothing is redone.
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    let out = lokizero(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(run.join("metrics.jsonl")).unwrap(),
        metrics
    );

    // Resumed with another seed: the earlier config is kept beside the
    // new one and the changed key is named.
    let reseeded: Vec<&str> = args
        .iter()
        .map(|&a| if a == "seed=9" { "seed=10" } else { a })
        .collect();
    let out = lokizero(&reseeded);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("the config differs from this run's earlier one in seed;"),
        "{stderr}"
    );
    let kept: toml::Table = std::fs::read_to_string(run.join("config-to-gen1.toml"))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(kept["seed"].as_integer(), Some(9));
    let now: toml::Table = std::fs::read_to_string(run.join("config.toml"))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(now["seed"].as_integer(), Some(10));
    // Changed again before another generation is trained: the kept config
    // is still the one that trained generation 1.
    let reseeded: Vec<&str> = args
        .iter()
        .map(|&a| if a == "seed=9" { "seed=11" } else { a })
        .collect();
    let out = lokizero(&reseeded);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kept: toml::Table = std::fs::read_to_string(run.join("config-to-gen1.toml"))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(kept["seed"].as_integer(), Some(9));

    // A bad --set: refused with the argument and the key, the run's
    // config.toml untouched.
    let before = std::fs::read_to_string(run.join("config.toml")).unwrap();
    let out = lokizero(&[
        "train",
        "--config",
        child_s,
        "--set",
        "network.filters=wide",
        "--run-dir",
        run_s,
        "--quiet",
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--set network.filters=wide: network.filters: invalid type"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(run.join("config.toml")).unwrap(),
        before
    );
}

/// `--init-from` a bundle of another variant whose encoding has the same
/// planes (the shipped hnefatafl network for a copenhagen run): the run
/// starts from its network as a copenhagen lineage, without the other
/// variant's measurements.
#[test]
fn init_from_takes_a_variant_with_the_same_encoding() {
    let tmp = tempfile::tempdir().unwrap();
    let config = TINY
        .replace("variant = \"shakti\"", "variant = \"copenhagen\"")
        .replace("generations = 2", "generations = 1")
        .replace("blocks = 1", "blocks = 3")
        .replace("filters = 8", "filters = 32")
        .replace("value_hidden = 16", "value_hidden = 64")
        .replace("games_per_generation = 6", "games_per_generation = 2")
        .replace("concurrent_games = 6", "concurrent_games = 2")
        .replace("games_per_chunk = 3", "games_per_chunk = 2")
        .replace("ply_cap = 60", "ply_cap = 30");
    let config = write_config(tmp.path(), &config);
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/hnefatafl");
    let run = tmp.path().join("run");
    let out = lokizero(&[
        "train",
        "--config",
        &config,
        "--run-dir",
        run.to_str().unwrap(),
        "--init-from",
        source.to_str().unwrap(),
        "--quiet",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("a hnefatafl network starts this copenhagen run"),
        "{err}"
    );
    let read = |path: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(path.join("model.json")).unwrap()).unwrap()
    };
    let parent = read(&source);
    let g = parent["generation"].as_u64().unwrap();
    let first = read(&run.join(format!("checkpoints/gen-{g:06}")));
    assert_eq!(first["variant"], "copenhagen");
    assert_eq!(first["weights_sha256"], parent["weights_sha256"]);
    assert!(first["strength"].is_null(), "{first}");
    assert!(first["lineage"]["promoted_by"].is_null(), "{first}");
    let next = read(&run.join(format!("checkpoints/gen-{:06}", g + 1)));
    assert_eq!(next["variant"], "copenhagen");
    let ancestors = next["lineage"]["ancestors"].as_array().unwrap();
    assert_eq!(
        ancestors.last().unwrap()["weights_sha256"],
        parent["weights_sha256"]
    );
}
