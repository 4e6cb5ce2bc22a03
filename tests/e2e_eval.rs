//! The training loop's evaluation and gating (`[eval]`): every generation
//! is played against the current best one, the random baseline and a
//! fixed anchor (`uct:8`), the
//! results land in `metrics.jsonl` and `model.json`, a learning curve PNG
//! is drawn, and with gating an undecided SPRT keeps self-play on the old
//! best generation while training continues from the newest.

mod support;

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");

fn train(dir: &Path, gate: bool) -> Vec<serde_json::Value> {
    train_with(dir, gate, 4, "")
}

/// A three-generation run with `[eval]` (plus the `extra` keys).
fn train_with(dir: &Path, gate: bool, vs_previous: usize, extra: &str) -> Vec<serde_json::Value> {
    let eval = format!(
        r#"
[eval]
enabled = true
games_vs_previous = {vs_previous}
games_vs_random = 2
anchors = ["uct:8"]
games_vs_anchors = 2
simulations = 4
contempt = 0.3
concurrency = 2
ply_cap = 40
opening_plies = 2
gate = {gate}
{extra}
"#
    );
    let run = dir.join("run");
    let out = train_config(dir, &(support::tiny_config(3, 5) + &eval), &run);
    assert!(
        out.status.success(),
        "train failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let png = std::fs::read(run.join("learning-curve.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    std::fs::read_to_string(run.join("metrics.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `lokizero train --quiet` of the config text `toml` (written into `dir`)
/// into run directory `run`.
fn train_config(dir: &Path, toml: &str, run: &Path) -> std::process::Output {
    let config = dir.join("run.toml");
    std::fs::write(&config, toml).unwrap();
    Command::new(BIN)
        .args(["train", "--config", config.to_str().unwrap()])
        .args(["--run-dir", run.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap()
}

fn check_eval_fields(lines: &[serde_json::Value]) {
    assert_eq!(lines.len(), 3);
    let mut cpu = 0.0;
    for (i, m) in lines.iter().enumerate() {
        let g = i as u64 + 1;
        assert_eq!(m["generation"], g);
        let eval = &m["eval"];
        assert_eq!(eval["generation"], g);
        let prev = &eval["vs_previous"];
        assert_eq!(prev["games"], 4);
        let wdl: u64 = ["wins", "draws", "losses"]
            .iter()
            .map(|k| prev[k].as_u64().unwrap())
            .sum();
        assert_eq!(wdl, 4);
        assert_eq!(
            prev["opponent"],
            format!("gen-{:06}", m["selfplay_generation"].as_u64().unwrap())
        );
        assert_eq!(eval["baselines"][0]["opponent"], "random");
        assert_eq!(eval["baselines"][0]["games"], 2);
        assert_eq!(eval["baselines"][1]["opponent"], "uct:8");
        assert_eq!(eval["baselines"][1]["games"], 2);
        assert!(prev["sprt"]["llr"].is_number());
        let total = m["cpu_seconds_total"].as_f64().unwrap();
        assert!(total > cpu, "cumulative CPU time grows");
        cpu = total;
    }
}

#[test]
fn gated_run_keeps_selfplay_on_the_best_generation() {
    let tmp = tempfile::tempdir().unwrap();
    let lines = train(tmp.path(), true);
    check_eval_fields(&lines);
    // Four games cannot reach the SPRT's bounds (at elo1 = 10 even a 4-0
    // sweep has LLR 4 ln(s1/s0) = 0.11 < 2.94), so nothing is promoted:
    // self-play stays on generation 0 and every generation is measured
    // against it.
    for m in &lines {
        assert_eq!(m["promoted"], false);
        assert_eq!(m["selfplay_generation"], 0);
        assert_eq!(m["eval"]["vs_previous"]["sprt"]["decision"], "continue");
    }
    // The verdict is also in the bundle's model.json.
    let meta: serde_json::Value = serde_json::from_slice(
        &std::fs::read(tmp.path().join("run/checkpoints/gen-000003/model.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(meta["training"]["promoted"], false);
}

#[test]
fn ungated_run_promotes_every_generation_and_chains_elo() {
    let tmp = tempfile::tempdir().unwrap();
    let lines = train(tmp.path(), false);
    check_eval_fields(&lines);
    let mut elo_prev = 0.0;
    for (i, m) in lines.iter().enumerate() {
        assert_eq!(m["promoted"], true);
        assert_eq!(m["selfplay_generation"], i as u64);
        // Chained Elo = reference's Elo + this match's with one virtual
        // draw: always finite, even after a 4-0 sweep.
        let prev = &m["eval"]["vs_previous"];
        let [w, d, l] = ["wins", "draws", "losses"].map(|k| prev[k].as_f64().unwrap());
        let s = (w + 0.5 * (d + 1.0)) / (w + d + l + 1.0);
        let step = -400.0 * (1.0 / s - 1.0).log10();
        let elo = m["elo"].as_f64().expect("finite chained Elo");
        assert!(
            (elo - (elo_prev + step)).abs() < 1e-6,
            "{elo} vs {elo_prev} + {step}"
        );
        // After a sweep one end of the interval is unbounded (the upper
        // after a win sweep, the lower after a loss sweep), which JSON holds
        // as null (the result of a seeded run depends on thread timing).
        let upper = m["elo_upper"].as_f64().unwrap_or(f64::INFINITY);
        let lower = m["elo_lower"].as_f64().unwrap_or(f64::NEG_INFINITY);
        assert!(lower < elo && elo < upper, "{m}");
        elo_prev = elo;
    }
}

#[test]
fn evaluation_every_second_generation_skips_the_others() {
    let tmp = tempfile::tempdir().unwrap();
    let lines = train_with(tmp.path(), false, 0, "every = 2");
    assert_eq!(lines.len(), 3);
    // Generations 1 and 3 are promoted unevaluated; 2 is measured against
    // generation 1 and the baselines, and the curve is drawn from it.
    for (i, m) in lines.iter().enumerate() {
        let g = i as u64 + 1;
        assert_eq!(m["promoted"], true);
        assert_eq!(m["selfplay_generation"], g - 1);
        if g == 2 {
            assert_eq!(m["eval"]["generation"], 2);
            assert_eq!(m["eval"]["baselines"][1]["opponent"], "uct:8");
        } else {
            assert!(m["eval"].is_null(), "generation {g}: {m}");
        }
    }
    // No evaluation reached (every = 5 in a one-generation run): no
    // empty chart.
    let eval = "[eval]\nenabled = true\nevery = 5\ngames_vs_previous = 0\n";
    let run = tmp.path().join("late");
    let out = train_config(tmp.path(), &(support::tiny_config(1, 5) + eval), &run);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!run.join("learning-curve.png").exists());
    // Gating and the Elo chain need every generation evaluated.
    for (keys, message) in [
        (
            "games_vs_previous = 0\ngate = true",
            "eval.gate = true needs eval.every = 1",
        ),
        (
            "games_vs_previous = 4",
            "eval.every > 1 needs eval.games_vs_previous = 0",
        ),
    ] {
        let eval = format!("[eval]\nenabled = true\nevery = 3\n{keys}\n");
        let never = tmp.path().join("never");
        let out = train_config(tmp.path(), &(support::tiny_config(1, 5) + &eval), &never);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(message), "{err}");
        assert!(!never.exists());
    }
}

/// `lokizero ladder --fixed 1`: the first player is the fixed ladder, the
/// others play only it, and as bundles with a lineage they draw a learning
/// curve (`curve.png`). A fixed ladder of no player, or of more than there
/// are, is refused before any game.
#[test]
fn a_fixed_ladder_plays_a_gauntlet_and_draws_a_curve() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ladder");
    let shakti = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/shakti");
    let players: Vec<String> = [8, 16]
        .iter()
        .map(|n| format!("bundle:{}:{n}", shakti.display()))
        .collect();
    let ladder = |fixed: &str| {
        Command::new(BIN)
            .args([
                "ladder",
                "random",
                &players[0],
                &players[1],
                "--fixed",
                fixed,
            ])
            .args(["--games", "2", "--concurrency", "2", "--ply-cap", "40"])
            .args(["--variant", "shakti", "--out", out.to_str().unwrap()])
            .output()
            .unwrap()
    };
    let run = ladder("1");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("ladder.json")).unwrap()).unwrap();
    let pairs: Vec<(u64, u64)> = json["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["a"].as_u64().unwrap(), p["b"].as_u64().unwrap()))
        .collect();
    assert_eq!(pairs, [(0, 1), (0, 2)], "the two bundles never meet");
    let md = std::fs::read_to_string(out.join("ladder.md")).unwrap();
    assert!(
        md.contains("A fixed ladder: `random` plays everyone"),
        "{md}"
    );
    let png = std::fs::read(out.join("curve.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    for bad in ["0", "4"] {
        let refused = ladder(bad);
        assert!(!refused.status.success(), "--fixed {bad}");
        let err = String::from_utf8_lossy(&refused.stderr);
        assert!(
            err.contains(&format!("a fixed ladder of {bad} players among 3")),
            "{err}"
        );
    }
}

/// A ladder run again into the same folder plays only what it lacks: with
/// a player added (a run's next generation, say), the pairs already played
/// are read back from their journals (`games/pair-*.jsonl`) with the same
/// results, and only the new player's pairs are played; run once more,
/// nothing is played. A damaged journal stops the ladder naming the file,
/// and is left as it was.
#[test]
fn a_ladder_resumes_and_grows_without_replaying_its_pairs() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ladder");
    let shakti = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/shakti");
    let bundle = |n: u32| format!("bundle:{}:{n}", shakti.display());
    let ladder = |players: &[String]| {
        let output = Command::new(BIN)
            .arg("ladder")
            .args(players)
            .args(["--fixed", "1", "--games", "4", "--concurrency", "2"])
            .args(["--ply-cap", "40", "--variant", "shakti", "--seed", "9"])
            .args(["--out", out.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).to_string();
        let json = output.status.success().then(|| {
            let text = std::fs::read_to_string(out.join("ladder.json")).unwrap();
            serde_json::from_str::<serde_json::Value>(&text).unwrap()
        });
        (json, stderr)
    };
    let two = ["random".to_string(), bundle(8)];
    let (first, err) = ladder(&two);
    let first = first.unwrap_or_else(|| panic!("{err}"));
    assert!(!err.contains("already played"), "{err}");
    let three = [two[0].clone(), two[1].clone(), bundle(16)];
    let (grown, err) = ladder(&three);
    let grown = grown.unwrap_or_else(|| panic!("{err}"));
    let resumed = format!("random vs {}: 4 games already played", bundle(8));
    assert!(err.contains(&resumed), "{err}");
    assert!(
        !err.contains(&format!("random vs {}: 4 games already", bundle(16))),
        "{err}"
    );
    assert_eq!(grown["pairs"][0]["wdl"], first["pairs"][0]["wdl"]);
    assert_eq!(grown["pairs"].as_array().unwrap().len(), 2);
    // Once more: every pair read back, the same ratings.
    let (again, err) = ladder(&three);
    let again = again.unwrap_or_else(|| panic!("{err}"));
    assert_eq!(err.matches("4 games already played").count(), 2, "{err}");
    assert_eq!(again["ratings"], grown["ratings"]);
    // The same players in another order: the same pairs, read back.
    let reordered = [three[1].clone(), three[0].clone(), three[2].clone()];
    let (_, err) = ladder(&reordered);
    assert!(
        err.contains(&format!("{} vs random: 4 games already played", bundle(8))),
        "{err}"
    );
    // One player under two spellings is refused.
    let slash = format!("bundle:{}/:8", shakti.display());
    let twice = [three[0].clone(), three[1].clone(), slash];
    let (refused, err) = ladder(&twice);
    assert!(refused.is_none());
    assert!(err.contains("are one player"), "{err}");
    // A damaged journal is named, and kept.
    let journals: Vec<_> = std::fs::read_dir(out.join("games"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("pair-"))
        .collect();
    // random-8, random-16, and 8-16 from the reordered ladder.
    assert_eq!(journals.len(), 3, "{journals:?}");
    let before: Vec<Vec<u8>> = journals.iter().map(|j| std::fs::read(j).unwrap()).collect();
    for journal in &journals {
        std::fs::write(journal, "[1, 2]\n").unwrap();
    }
    let (failed, err) = ladder(&three);
    assert!(failed.is_none());
    assert!(err.contains("not a match journal"), "{err}");
    assert!(
        journals
            .iter()
            .any(|j| err.contains(&j.display().to_string())),
        "{err}"
    );
    for journal in &journals {
        assert_eq!(std::fs::read(journal).unwrap(), b"[1, 2]\n");
    }
    for (journal, text) in journals.iter().zip(&before) {
        std::fs::write(journal, text).unwrap();
    }
    // Fewer games than a journal holds: refused, not counted silently.
    let fewer = Command::new(BIN)
        .arg("ladder")
        .args(&three)
        .args(["--fixed", "1", "--games", "2", "--concurrency", "2"])
        .args(["--ply-cap", "40", "--variant", "shakti", "--seed", "9"])
        .args(["--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&fewer.stderr);
    assert!(!fewer.status.success());
    assert!(
        err.contains("holds 4 games, more than the 2 games asked for"),
        "{err}"
    );
}
