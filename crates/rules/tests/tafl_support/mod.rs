//! Helpers shared by the `hnefatafl` and `loki` rule tests.
#![allow(dead_code, reason = "each test file uses its own subset")]

use rules::tafl::{Hnefatafl, Loki, Tafl, TaflAction};
use rules::{EndReason, Game, Outcome, Player};

/// The two tafl games, with access to their shared state.
pub trait TaflGame: Game<Action = TaflAction> {
    fn tafl(&self) -> &Tafl;
}
impl TaflGame for Hnefatafl {
    fn tafl(&self) -> &Tafl {
        self.state()
    }
}
impl TaflGame for Loki {
    fn tafl(&self) -> &Tafl {
        self.state()
    }
}

/// Position from text, panicking with the error (test input is fixed).
pub fn pos<G: Game>(text: &str) -> G {
    G::from_text(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Play full-turn tokens through `parse_move` + `play`.
pub fn play_tokens<G: Game>(game: &mut G, tokens: &[&str]) {
    for t in tokens {
        let actions = game
            .parse_move(t)
            .unwrap_or_else(|e| panic!("{t} in {}: {e}", game.to_text()));
        for a in actions {
            game.play(a);
        }
    }
}

/// Sorted tokens of the legal full turns.
pub fn turn_tokens<G: TaflGame>(game: &G) -> Vec<String> {
    let mut v: Vec<String> = game
        .tafl()
        .legal_turns()
        .iter()
        .map(|t| t.to_string())
        .collect();
    v.sort();
    v
}

/// Sorted tokens of every turn reachable through the atomic actions
/// (each completed turn rendered with `turn_text`).
pub fn atomic_turn_tokens<G: TaflGame>(game: &G) -> Vec<String> {
    let mut out = Vec::new();
    walk(game, &mut Vec::new(), &mut out);
    out.sort();
    out
}

fn walk<G: TaflGame>(game: &G, prefix: &mut Vec<TaflAction>, out: &mut Vec<String>) {
    for a in game.legal_vec() {
        let mut child = game.clone();
        child.play(a);
        prefix.push(a);
        if child.mid_turn() {
            let before = out.len();
            walk(&child, prefix, out);
            assert!(out.len() > before, "dead end after {prefix:?}");
        } else {
            out.push(rules::tafl::turn_text(prefix));
        }
        prefix.pop();
    }
}

/// Outcome from the oracle's `{result, reason}`.
pub fn outcome_of(v: &serde_json::Value) -> Option<Outcome> {
    if v.is_null() {
        return None;
    }
    let reason = match v["reason"].as_str() {
        Some("king captured") => EndReason::KingCaptured,
        Some("king reached corner") => EndReason::KingEscaped,
        Some("no legal action") => EndReason::NoLegalAction,
        other => panic!("unknown reason {other:?}"),
    };
    Some(match v["result"].as_str() {
        Some("attackers") => Outcome::win(Player::First, reason),
        Some("defenders") => Outcome::win(Player::Second, reason),
        Some("draw") => Outcome::draw(reason),
        other => panic!("unknown result {other:?}"),
    })
}

/// Check every case of an oracle file: resulting text, legal turn list
/// (by both the turn and the atomic paths) and outcome.
pub fn check_oracle<G: TaflGame>(file: &str) -> usize {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).expect("oracle json");
        let note = case["note"].as_str().unwrap_or("");
        let mut game: G = pos(case["start_fen"].as_str().expect("start_fen"));
        let moves: Vec<&str> = case["moves_played"]
            .as_array()
            .expect("moves_played")
            .iter()
            .map(|m| m.as_str().expect("move"))
            .collect();
        play_tokens(&mut game, &moves);
        assert_eq!(game.to_text(), case["fen"].as_str().unwrap(), "{note}");
        let expected: Vec<String> = case["legal_actions"]
            .as_array()
            .expect("legal_actions")
            .iter()
            .map(|m| m.as_str().expect("action").to_string())
            .collect();
        assert_eq!(turn_tokens(&game), expected, "{note}");
        assert_eq!(atomic_turn_tokens(&game), expected, "{note} (atomic)");
        assert_eq!(game.outcome(), outcome_of(&case["outcome"]), "{note}");
        // The resulting text re-parses to the same legal turns (no history
        // needed unless the case relies on repetition).
        if !note.contains("repetition") {
            let again: G = pos(&game.to_text());
            assert_eq!(turn_tokens(&again), expected, "{note} (re-parsed)");
        }
        n += 1;
    }
    n
}

/// Position text from a piece list like `"Kf6 sd4 Se5"` (piece letter,
/// square) and the remaining fields (`"a"`, `"d 3333/3333 -"`).
pub fn setup(pieces: &str, rest: &str) -> String {
    let g = rules::Geometry::new(11, 11);
    let mut cells: Vec<Option<char>> = vec![None; 121];
    for p in pieces.split_whitespace() {
        let sq = g
            .parse_square(&p[1..])
            .unwrap_or_else(|| panic!("square in {p}"));
        cells[sq] = p.chars().next();
    }
    format!("{} {rest}", g.format_board(&cells, |c| c))
}

/// One table row: start position, tokens played, and the exact expected
/// position text, outcome and (when given) sorted legal turn tokens.
pub struct Case<'a> {
    pub ruling: &'a str,
    pub start: String,
    pub moves: &'a [&'a str],
    pub fen: String,
    pub outcome: Option<Outcome>,
    pub legal: Option<&'a [&'a str]>,
}

/// Run a table of cases.
pub fn run_cases<G: TaflGame>(cases: &[Case<'_>]) {
    for c in cases {
        let mut g: G = pos(&c.start);
        play_tokens(&mut g, c.moves);
        assert_eq!(g.to_text(), c.fen, "{}", c.ruling);
        assert_eq!(g.outcome(), c.outcome, "{}", c.ruling);
        if let Some(legal) = c.legal {
            let mut expected: Vec<String> = legal.iter().map(|s| s.to_string()).collect();
            expected.sort();
            assert_eq!(turn_tokens(&g), expected, "{}", c.ruling);
        }
        assert_eq!(
            atomic_turn_tokens(&g),
            turn_tokens(&g),
            "{} (atomic)",
            c.ruling
        );
    }
}

/// Sorted legal turn tokens starting with `prefix`.
pub fn tokens_with<G: TaflGame>(game: &G, prefix: &str) -> Vec<String> {
    turn_tokens(game)
        .into_iter()
        .filter(|t| t.starts_with(prefix))
        .collect()
}
