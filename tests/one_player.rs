//! One bundle player everywhere: `lokizero match` (the bundle player of
//! matches, ladders and evaluations) and `lokizero uci` (the bot GUIs
//! load) are the same player, so on the same position with the same node
//! budget they choose the same move; and `lokizero match` plays
//! `lokizero uci` as an external engine on every variant.

use std::path::{Path, PathBuf};
use std::process::Command;

use rules::VariantId;

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");

/// The repository's shipped bundle of `variant`.
fn shipped(variant: VariantId) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../models")
        .join(variant.as_str())
}

/// An executable that starts `lokizero uci` (a match takes an engine as
/// one path); it finds `models/<variant>/` above the binary.
fn uci_wrapper(dir: &Path) -> PathBuf {
    let path = dir.join("lokizero-uci");
    std::fs::write(&path, format!("#!/bin/sh\nexec \"{BIN}\" uci \"$@\"\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path
}

/// One game record: who moved first, the position the players started
/// from (after the random opening plies) and the actions they played.
struct Record {
    first: String,
    start: String,
    actions: Vec<String>,
}

/// The records of a match file: PGN (losers, viking; the actions are the
/// movetext's tokens) or one tab-separated line per game.
fn records(text: &str) -> Vec<Record> {
    if text.starts_with(';') {
        return text
            .split("[Event ")
            .skip(1)
            .map(|game| {
                let first = game
                    .lines()
                    .find_map(|l| l.strip_prefix("[White \""))
                    .and_then(|l| l.strip_suffix("\"]"))
                    .unwrap()
                    .to_string();
                let start = game
                    .lines()
                    .find_map(|l| l.strip_prefix("[FEN \""))
                    .and_then(|l| l.strip_suffix("\"]"))
                    .unwrap_or("startpos")
                    .to_string();
                let movetext = game.split("\n\n").nth(1).unwrap_or("");
                let actions = movetext
                    .split_whitespace()
                    .filter(|t| !t.ends_with('.') && !["1-0", "0-1", "1/2-1/2"].contains(t))
                    .map(str::to_string)
                    .collect();
                Record {
                    first,
                    start,
                    actions,
                }
            })
            .collect();
    }
    text.lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            Record {
                first: fields[1].to_string(),
                start: fields[5].to_string(),
                actions: fields[6].split_whitespace().map(str::to_string).collect(),
            }
        })
        .collect()
}

/// `lokizero match A B` for `variant`, two games (one colour-swapped
/// pair, which shares its opening), `--json`; the summary and the records.
fn play_pair(
    variant: VariantId,
    a: &str,
    b: &str,
    extra: &[&str],
    records_path: &Path,
) -> (serde_json::Value, Vec<Record>) {
    let out = Command::new(BIN)
        .args(["match", a, b, "--variant", variant.as_str(), "--games", "2"])
        .args(["--concurrency", "1", "--json", "--pgn"])
        .arg(records_path)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{variant}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = std::fs::read_to_string(records_path).unwrap();
    (summary, records(&text))
}

#[test]
fn match_and_uci_choose_the_same_move_and_match_plays_uci_on_every_variant() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = uci_wrapper(tmp.path());
    for variant in VariantId::ALL {
        let bundle = format!("bundle:{}:48", shipped(variant).display());
        let uci = format!("uci:{}:48", engine.display());
        for seed in ["11", "12"] {
            // The pair shares its random opening: game 0 has the bundle
            // player move first from it, game 1 the UCI bot; each plays one
            // ply before the cap.
            let path = tmp.path().join(format!("{variant}-{seed}.txt"));
            let (summary, games) = play_pair(
                variant,
                &bundle,
                &uci,
                &[
                    "--openings-random-plies",
                    "3",
                    "--ply-cap",
                    "1",
                    "--seed",
                    seed,
                ],
                &path,
            );
            assert_eq!(summary["forfeits"], serde_json::json!([]), "{variant}");
            assert_eq!(games.len(), 2, "{variant}");
            let by_bundle = games
                .iter()
                .find(|g| g.first.starts_with("bundle:"))
                .unwrap();
            let by_uci = games.iter().find(|g| g.first.starts_with("uci:")).unwrap();
            // The same opening, then the first player's move.
            assert_eq!(by_bundle.start, by_uci.start, "{variant}");
            assert!(!by_bundle.actions.is_empty(), "{variant}");
            assert_eq!(
                by_bundle.actions[0],
                by_uci.actions[0],
                "{variant} seed {seed}: the match's bundle player and the UCI bot chose differently"
            );
        }
        // Whole games against the UCI bot: no forfeit, every game scored.
        let path = tmp.path().join(format!("{variant}-games.txt"));
        let (summary, games) = play_pair(
            variant,
            &format!("bundle:{}:8", shipped(variant).display()),
            &format!("uci:{}:8", engine.display()),
            &["--ply-cap", "24", "--seed", "3"],
            &path,
        );
        assert_eq!(summary["forfeits"], serde_json::json!([]), "{variant}");
        assert_eq!(summary["games"], 2, "{variant}");
        // Both players moved several times (a game ends at the 24-ply cap
        // or earlier by the rules).
        assert!(
            games.iter().all(|g| g.actions.len() >= 4),
            "{variant}: {:?}",
            games.iter().map(|g| g.actions.len()).collect::<Vec<_>>()
        );
    }
}
