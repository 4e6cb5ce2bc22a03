//! `copenhagen` (`docs/rules.md` §6) against the Copenhagen Hnefatafl
//! engine `hnefatafl-text-protocol` (crate `hnefatafl-copenhagen` 6.4.1).
//!
//! `tests/data/copenhagen/vectors.jsonl` holds positions the engine
//! reached from the start (made by `scripts/copenhagen-oracle.py`; the
//! folder's README says how). Each is replayed here from its move list
//! and compared with what the engine said: the board, the side to move,
//! the game status, the sorted legal moves, what every legal move captures
//! and whether it ends the game, and the moves it refused. The engine is
//! not needed: only the data is read.

use rules::tafl::board::{GEOMETRY, SQUARES};
use rules::tafl::{Copenhagen, Turn};
use rules::{Game, Outcome, Player};
use serde_json::Value;

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/copenhagen/vectors.jsonl"
);

/// The engine's `final_status` word for an outcome.
fn status(outcome: Option<Outcome>) -> &'static str {
    match outcome {
        None => "ongoing",
        Some(o) => match o.winner {
            Some(Player::First) => "attacker_wins",
            Some(Player::Second) => "defender_wins",
            None => "draw",
        },
    }
}

/// The engine's `show_board_open_tafl` text in this project's notation.
fn engine_board(text: &str) -> String {
    text.trim_matches('/')
        .chars()
        .map(|c| match c {
            'A' => 's',
            'D' => 'S',
            other => other,
        })
        .collect()
}

/// A list field: a JSON array of strings, or one space-separated string.
fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => s.split_whitespace().map(str::to_string).collect(),
        Value::Array(a) => a
            .iter()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// Squares whose piece the move `token` removed (its own square aside),
/// and the position after it.
fn captured_by(game: &Copenhagen, token: &str) -> Result<(Vec<String>, Copenhagen), String> {
    let Ok(Turn::Move { from, .. }) = Turn::parse(token) else {
        return Err(format!("{token}: not a plain move"));
    };
    let actions = game
        .parse_move(token)
        .map_err(|e| format!("{token}: {e}"))?;
    let mut child = game.clone();
    for a in actions {
        child.play(a);
    }
    let mut gone: Vec<String> = (0..SQUARES)
        .filter(|&sq| {
            sq != usize::from(from)
                && game.state().piece_at(sq).is_some()
                && child.state().piece_at(sq).is_none()
        })
        .map(|sq| GEOMETRY.name(sq))
        .collect();
    gone.sort();
    Ok((gone, child))
}

/// Compare one record; the first difference found, if any.
fn check(rec: &Value) -> Result<usize, String> {
    let moves = strings(&rec["moves"]);
    let mut game = Copenhagen::start();
    for (i, token) in moves.iter().enumerate() {
        if game.outcome().is_some() {
            return Err(format!(
                "after {} moves the game is over ({}), the engine played on",
                i,
                status(game.outcome())
            ));
        }
        let actions = game
            .parse_move(token)
            .map_err(|e| format!("move {} {token}: refused here ({e})", i + 1))?;
        for a in actions {
            game.play(a);
        }
    }
    let board = engine_board(rec["board"].as_str().unwrap_or(""));
    let text = game.to_text();
    if text != format!("{board} {}", rec["side"].as_str().unwrap_or("?")) {
        return Err(format!("position: ours {text}, engine's {board}"));
    }
    let ours = status(game.outcome());
    if ours != rec["status"] {
        return Err(format!("status: ours {ours}, engine's {}", rec["status"]));
    }
    let mut legal: Vec<String> = game
        .legal_vec()
        .into_iter()
        .map(|a| game.action_to_text(a))
        .collect();
    legal.sort();
    let expected = strings(&rec["legal"]);
    if legal != expected {
        let extra: Vec<&String> = legal.iter().filter(|m| !expected.contains(m)).collect();
        let missing: Vec<&String> = expected.iter().filter(|m| !legal.contains(m)).collect();
        return Err(format!(
            "legal moves: ours only {extra:?}, engine's only {missing:?}"
        ));
    }
    for token in &legal {
        let (gone, child) = captured_by(&game, token)?;
        let theirs = strings(&rec["captures"][token.as_str()]);
        if gone != theirs {
            return Err(format!(
                "{token} captures: ours {gone:?}, engine's {theirs:?}"
            ));
        }
        let end = status(child.outcome());
        let their_end = rec["ends"][token.as_str()].as_str().unwrap_or("ongoing");
        if end != their_end {
            return Err(format!("after {token}: ours {end}, engine's {their_end}"));
        }
    }
    if let Some(refused) = rec["refused"].as_object() {
        for token in refused.keys() {
            if game.parse_move(token).is_ok() {
                return Err(format!("{token}: the engine refuses it, we accept it"));
            }
        }
    }
    Ok(legal.len())
}

#[test]
fn engine_agreement() {
    let text = std::fs::read_to_string(DATA).unwrap_or_else(|e| panic!("{DATA}: {e}"));
    let (mut positions, mut moves, mut failed) = (0usize, 0usize, Vec::new());
    let mut tags = std::collections::BTreeMap::<String, usize>::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let rec: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        positions += 1;
        for t in strings(&rec["tags"]) {
            *tags.entry(t).or_default() += 1;
        }
        match check(&rec) {
            Ok(k) => moves += k,
            Err(e) => failed.push(format!(
                "line {} ({}): {e}\n  moves: {}",
                n + 1,
                rec["id"].as_str().unwrap_or("?"),
                strings(&rec["moves"]).join(" ")
            )),
        }
    }
    println!(
        "{} of {positions} positions agree ({moves} legal moves compared); tags {tags:?}",
        positions - failed.len()
    );
    if let Some(first) = failed.first() {
        panic!(
            "{} of {positions} positions disagree with the engine; the first:\n{first}",
            failed.len()
        );
    }
    assert!(positions >= 300, "only {positions} positions");
    // The data shows every ruling the script looks for (its tags).
    for tag in [
        "capture",
        "shieldwall",
        "king-capture",
        "edge-fort",
        "encirclement",
        "cannot-escape",
        "no-attackers",
        "refused",
        "move-limit",
        "finished-attacker_wins",
        "finished-defender_wins",
        "finished-draw",
    ] {
        assert!(tags.contains_key(tag), "no position tagged {tag}");
    }
}
