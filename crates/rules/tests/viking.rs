//! Viking Chess (docs/rules.md §2) against the Fairy-Stockfish oracle
//! (tests/data/viking, `fen_std` notation) and the docs/rules.md cases.

use rules::{EndReason, Game, Outcome, Player, Viking};
use serde_json::Value;

mod chess_oracle;

use chess_oracle::{board_moves, list, sorted_moves};
use rules::chess::VikingRules;

fn records(file: &str) -> Vec<Value> {
    chess_oracle::records(&chess_oracle::oracle_dir("viking"), file)
}

fn game(fen: &str) -> Viking {
    chess_oracle::game::<VikingRules>(fen)
}

/// Oracle perft counts checked (fast or deep tier); the oracle's FEN made
/// into this project's notation first.
fn check_perft(deep: bool) -> usize {
    let fix: fn(&str) -> String = |fen| match fen.split_once(' ') {
        Some((board, rest)) => format!("{} {rest}", board.replace('o', "p")),
        None => fen.to_string(),
    };
    chess_oracle::check_perft::<VikingRules>(&chess_oracle::oracle_dir("viking"), fix, deep)
}

fn insufficient(g: &Viking) -> bool {
    let fen = g.to_text();
    let board = fen.split(' ').next().unwrap_or("");
    let others: Vec<char> = board
        .chars()
        .filter(|c| c.is_ascii_alphabetic() && !"kK".contains(*c))
        .collect();
    others.is_empty() || (others.len() == 1 && "bnBN".contains(others[0]))
}

/// One oracle record: the board's moves always; the outcome by docs/rules.md,
/// which adds automatic draws (50 moves, insufficient material) that the
/// oracle does not adjudicate.
fn check_record(r: &Value) {
    let fen = r["fen_std"].as_str().expect("fen_std");
    let g = game(fen);
    let expected: Vec<String> = r["legal_moves"]
        .as_array()
        .expect("legal_moves")
        .iter()
        .map(|m| m.as_str().expect("move").to_string())
        .collect();
    assert_eq!(board_moves(&g), expected, "moves of {fen}");
    assert_eq!(
        g.in_check(),
        r["in_check"].as_bool().expect("in_check"),
        "check in {fen}"
    );
    let outcome = g.outcome();
    if let Some(end) = r["game_end"].as_object() {
        let reason = match end["reason"].as_str().expect("reason") {
            "checkmate" => EndReason::Checkmate,
            "stalemate" => EndReason::Stalemate,
            other => panic!("unknown reason {other}"),
        };
        let winner = match end["result"].as_str().expect("result") {
            "1-0" => Some(Player::First),
            "0-1" => Some(Player::Second),
            _ => None,
        };
        assert_eq!(
            outcome,
            Some(Outcome { winner, reason }),
            "outcome of {fen}"
        );
    } else if insufficient(&g) {
        assert_eq!(
            outcome,
            Some(Outcome::draw(EndReason::InsufficientMaterial)),
            "{fen}"
        );
        assert!(sorted_moves(&g).is_empty());
    } else if r["claimable_draw"].is_object() {
        assert_eq!(
            outcome,
            Some(Outcome::draw(EndReason::FiftyMoveRule)),
            "{fen}"
        );
        assert!(sorted_moves(&g).is_empty());
    } else {
        assert_eq!(outcome, None, "outcome of {fen}");
        assert_eq!(sorted_moves(&g), expected, "legal actions of {fen}");
    }
}

#[test]
fn every_oracle_vector_agrees() {
    let recs = records("vectors.jsonl");
    assert_eq!(recs.len(), 2400);
    for r in &recs {
        check_record(r);
    }
}

#[test]
fn every_oracle_edge_case_agrees() {
    let recs = records("edge_cases.jsonl");
    assert_eq!(recs.len(), 18);
    for r in &recs {
        check_record(r);
    }
}

#[test]
fn position_text_round_trips_every_oracle_fen() {
    for r in records("vectors.jsonl")
        .iter()
        .chain(records("edge_cases.jsonl").iter())
    {
        let fen = r["fen_std"].as_str().expect("fen");
        assert_eq!(game(fen).to_text(), fen);
    }
}

#[test]
fn oracle_perft_up_to_30m_nodes() {
    assert_eq!(check_perft(false), 51);
}

#[test]
#[ignore = "deep perft, minutes: cargo test --release -- --ignored"]
fn oracle_perft_deep() {
    assert_eq!(check_perft(true), 8);
}

#[test]
fn rules_case_start_position_and_perft() {
    let g = Viking::start();
    assert_eq!(
        g.to_text(),
        "12/12/12/12/1PPPP2pppp1/RPNNPPppnnpr/RBKQBPpbqkbr w - - 0 1"
    );
    for (d, &n) in [17u64, 290, 6489, 144_563, 3_815_255].iter().enumerate() {
        assert_eq!(g.fast_perft(d as u32 + 1), n);
    }
    assert_eq!(rules::perft(&g, 3), 6489);
}

#[test]
fn rules_case_first_moves_include_pawn_captures() {
    let g = Viking::start();
    assert!(sorted_moves(&g).contains(&"f1g2".to_string()));
    let mut g = g;
    let b3b4 = g.parse_move("b3b4").expect("legal");
    g.play(b3b4[0]);
    assert!(sorted_moves(&g).contains(&"g1f2".to_string()));
}

#[test]
fn rules_case_both_sides_pawns_move_up_and_promote_on_rank_7() {
    let g = game("3r1n6/4P7/12/12/12/12/K10k w - - 0 1");
    assert_eq!(
        sorted_moves(&g),
        list("a1a2 a1b1 a1b2 e6e7q e6e7r e6e7b e6e7n e6d7q e6d7r e6d7b e6d7n e6f7q e6f7r e6f7b e6f7n")
    );
    let mut g = game("3RBN5k/4p7/12/12/12/12/K11 b - - 0 1");
    let promo = g.parse_move("e6d7q").expect("legal");
    g.play(promo[0]);
    assert_eq!(g.to_text(), "3qBN5k/12/12/12/12/12/K11 w - - 0 2");
    // A black pawn on rank 1 steps once, up; no double step for anyone.
    let g = game("K10k/12/12/12/12/12/4p7 b - - 0 1");
    assert_eq!(sorted_moves(&g), list("e1e2 l7k6 l7k7 l7l6"));
}

#[test]
fn rules_case_checkmate_wins_stalemate_draws() {
    let mate = game("11k/10Q1/9K2/12/12/12/12 b - - 0 1");
    assert_eq!(
        mate.outcome(),
        Some(Outcome::win(Player::First, EndReason::Checkmate))
    );
    let stale = game("11k/9Q2/12/12/12/12/K11 b - - 0 1");
    assert_eq!(stale.outcome(), Some(Outcome::draw(EndReason::Stalemate)));
}

#[test]
fn rules_case_insufficient_material_draws() {
    for fen in [
        "11k/12/12/12/12/12/K11 w - - 0 1",
        "11k/12/12/12/12/12/KB10 w - - 0 1",
        "11k/12/12/12/12/12/KN10 b - - 0 1",
        "10nk/12/12/12/12/12/K11 w - - 0 1",
    ] {
        let g = game(fen);
        assert_eq!(
            g.outcome(),
            Some(Outcome::draw(EndReason::InsufficientMaterial)),
            "{fen}"
        );
        assert!(g.legal_vec().is_empty());
    }
    for fen in [
        "11k/12/12/12/12/12/KP10 w - - 0 1",
        "11k/12/12/12/12/12/KR10 w - - 0 1",
        "10nk/12/12/12/12/12/KB10 w - - 0 1",
    ] {
        assert_eq!(game(fen).outcome(), None, "{fen}");
    }
}

#[test]
fn threefold_repetition_and_fifty_moves_draw() {
    let mut g = Viking::start();
    for m in "c2a3 j2l3 a3c2 l3j2 c2a3 j2l3 a3c2".split_whitespace() {
        let a = g.parse_move(m).expect("legal");
        g.play(a[0]);
    }
    assert_eq!(g.outcome(), None);
    let a = g.parse_move("l3j2").expect("legal");
    g.play(a[0]);
    assert_eq!(
        g.outcome(),
        Some(Outcome::draw(EndReason::ThreefoldRepetition))
    );
    let g = game("11k/12/12/12/12/4p7/K11 w - - 100 90");
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::FiftyMoveRule)));
}

#[test]
fn malformed_positions_and_moves_are_typed_errors() {
    use rules::{ActionError as A, PositionError as E};
    for fen in [
        "12/12/12/12/1PPPP2pppp1/RPNNPPppnnpr/RBKQBPpbqkbr w KQ - 0 1",
        "12/12/12/12/1PPPP2pppp1/RPNNPPppnnpr/RBKQBPpbqkbr w - e3 0 1",
        "12/12/12/12/1PPPP2pppp1/RPNNPPppnnpr/RBKQBPpbqkb w - - 0 1",
        "12/12/12/12/1PPPP2pppp1/RPNNPPppnnpr w - - 0 1",
        "P10k/12/12/12/12/12/K11 w - - 0 1",
        "12/12/12/12/12/12/K11 w - - 0 1",
        "13/12/12/12/12/12/K10k w - - 0 1",
        "99/12/12/12/12/12/K10k w - - 0 1",
    ] {
        let err = Viking::from_text(fen).expect_err(fen);
        assert!(!err.to_string().is_empty());
        assert!(!matches!(err, E::FieldCount { .. }), "{fen}: {err}");
    }
    let g = Viking::start();
    for text in ["m1m2", "a8a9", "l6l7k", "b3b4b5", ""] {
        assert!(
            matches!(g.parse_move(text), Err(A::Malformed { .. })),
            "{text:?}"
        );
    }
    for text in ["b3b5", "g2g3", "b3b4q"] {
        assert!(
            matches!(g.parse_move(text), Err(A::Illegal { .. })),
            "{text:?}"
        );
    }
}

#[test]
fn random_games_never_panic_and_hash_matches_a_fresh_parse() {
    let mut seed = 0x9876_5432_u64;
    for _ in 0..100 {
        let mut g = Viking::start();
        for _ in 0..400 {
            let moves = g.legal_vec();
            if moves.is_empty() {
                assert!(g.outcome().is_some());
                break;
            }
            seed = rules::zobrist::splitmix64(seed);
            let m = moves[(seed % moves.len() as u64) as usize];
            assert_eq!(g.parse_move(&g.action_to_text(m)), Ok(vec![m]));
            g.play(m);
            let fresh = game(&g.to_text());
            assert_eq!(fresh.position_hash(), g.position_hash());
            assert_eq!(board_moves(&fresh), board_moves(&g));
        }
    }
}

#[test]
fn material_counts_classical_values_white_minus_black() {
    assert_eq!(Viking::start().material(), Some(0.0));
    // The start position without Black's queen (i7): +9.
    let no_queen = game("12/12/12/12/1PPPP2pppp1/RPNNPPppnnpr/RBKQBPpb1kbr w - - 0 1");
    assert_eq!(no_queen.material(), Some(9.0));
    // White: king and rook; Black: king, knight, two pawns: 5 - 5 = 0.
    let even = game("11k/10pp/12/12/12/12/R3n6K w - - 0 1");
    assert_eq!(even.material(), Some(0.0));
    // Losers Chess has no material measure (shedding pieces is its goal).
    assert_eq!(rules::Losers::start().material(), None);
}
