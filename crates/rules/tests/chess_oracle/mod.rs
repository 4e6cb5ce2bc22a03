//! Shared helpers of the losers and viking oracle tests: reading the
//! Fairy-Stockfish oracle files and checking their perft entries. One copy
//! for both variants; each test file passes its oracle folder.

#![allow(dead_code, reason = "each test file uses its own subset")]

use rules::chess::spec::ChessVariant;
use rules::chess::Chess;
use rules::Game;
use serde_json::Value;

/// The oracle folder of `variant` (`tests/data/<variant>`, see its README).
pub fn oracle_dir(variant: &str) -> String {
    format!("{}/tests/data/{variant}", env!("CARGO_MANIFEST_DIR"))
}

/// The JSON lines of `file` in `dir`.
pub fn records(dir: &str, file: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(format!("{dir}/{file}")).expect("oracle file");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

/// Parse a FEN, panicking with the FEN and the error (tests only).
pub fn game<V: ChessVariant>(fen: &str) -> Chess<V> {
    Chess::<V>::from_text(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Legal actions as sorted UCI texts.
pub fn sorted_moves<V: ChessVariant>(g: &Chess<V>) -> Vec<String> {
    let mut v: Vec<String> = g.legal_vec().iter().map(|&m| g.action_to_text(m)).collect();
    v.sort();
    v
}

/// The board's moves (draw rules ignored, as the oracle) as sorted texts.
pub fn board_moves<V: ChessVariant>(g: &Chess<V>) -> Vec<String> {
    let mut out = Vec::new();
    g.board_moves(&mut out);
    let mut v: Vec<String> = out.iter().map(|&m| g.action_to_text(m)).collect();
    v.sort();
    v
}

/// A space-separated move list, sorted.
pub fn list(moves: &str) -> Vec<String> {
    let mut v: Vec<String> = moves.split_whitespace().map(str::to_string).collect();
    v.sort();
    v
}

/// `(name, fen, counts by depth)` of `perft.json` in `dir`; `fen_fix` turns
/// the oracle's FEN into this project's notation.
pub fn perft_positions(dir: &str, fen_fix: fn(&str) -> String) -> Vec<(String, String, Vec<u64>)> {
    let text = std::fs::read_to_string(format!("{dir}/perft.json")).expect("perft.json");
    let v: Value = serde_json::from_str(&text).expect("json");
    v["positions"]
        .as_array()
        .expect("positions")
        .iter()
        .map(|p| {
            (
                p["name"].as_str().expect("name").to_string(),
                fen_fix(p["fen"].as_str().expect("fen")),
                p["perft"]
                    .as_array()
                    .expect("perft")
                    .iter()
                    .map(|n| n.as_u64().expect("count"))
                    .collect(),
            )
        })
        .collect()
}

/// Check every oracle perft count at or below 30M nodes (fast tier) or
/// above it (deep tier); returns how many were checked.
pub fn check_perft<V: ChessVariant>(dir: &str, fen_fix: fn(&str) -> String, deep: bool) -> usize {
    const MAX_FAST: u64 = 30_000_000;
    let mut checked = 0;
    for (name, fen, counts) in perft_positions(dir, fen_fix) {
        let g = game::<V>(&fen);
        for (i, &want) in counts.iter().enumerate() {
            if (want > MAX_FAST) != deep {
                continue;
            }
            let depth = i as u32 + 1;
            assert_eq!(g.fast_perft(depth), want, "{name} depth {depth}");
            checked += 1;
        }
    }
    checked
}
