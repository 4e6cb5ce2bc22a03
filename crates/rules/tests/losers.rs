//! Losers Chess (docs/rules.md §1) against the Fairy-Stockfish oracle
//! (tests/data/losers) and the docs/rules.md cases.

use rules::{EndReason, Game, Losers, Outcome, Player};
use serde_json::Value;

mod chess_oracle;

use chess_oracle::{board_moves, list, sorted_moves};
use rules::chess::LosersRules;

fn records(file: &str) -> Vec<Value> {
    chess_oracle::records(&chess_oracle::oracle_dir("losers"), file)
}

fn game(fen: &str) -> Losers {
    chess_oracle::game::<LosersRules>(fen)
}

/// Oracle perft counts checked (fast or deep tier); the oracle's FEN made
/// into this project's notation first.
fn check_perft(deep: bool) -> usize {
    let fix: fn(&str) -> String = |fen| fen.to_string();
    chess_oracle::check_perft::<LosersRules>(&chess_oracle::oracle_dir("losers"), fix, deep)
}

fn winner(result: &str) -> Option<Player> {
    match result {
        "1-0" => Some(Player::First),
        "0-1" => Some(Player::Second),
        _ => None,
    }
}

/// Compare one oracle record: the move list always; the outcome under
/// docs/rules.md (`result_if_stalemate_is_draw`); a claimable 50-move draw is an
/// automatic draw here, with the board's move list still the oracle's.
fn check_record(r: &Value) {
    let fen = r["fen"].as_str().expect("fen");
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
            "bare_king" => EndReason::BareKing,
            "checkmate" => EndReason::Checkmate,
            "stalemate" => EndReason::Stalemate,
            other => panic!("unknown reason {other}"),
        };
        let result = end["result_if_stalemate_is_draw"].as_str().expect("result");
        let want = Outcome {
            winner: winner(result),
            reason,
        };
        assert_eq!(outcome, Some(want), "outcome of {fen}");
        assert!(sorted_moves(&g).is_empty());
    } else if r["claimable_draw"].is_object() {
        assert_eq!(
            outcome,
            Some(Outcome::draw(EndReason::FiftyMoveRule)),
            "{fen}"
        );
        assert!(
            sorted_moves(&g).is_empty(),
            "game over by the 50-move rule: {fen}"
        );
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
    assert_eq!(recs.len(), 19);
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
        let fen = r["fen"].as_str().expect("fen");
        assert_eq!(game(fen).to_text(), fen);
    }
}

#[test]
fn oracle_perft_up_to_30m_nodes() {
    assert_eq!(check_perft(false), 63);
}

#[test]
#[ignore = "deep perft, minutes: cargo test --release -- --ignored"]
fn oracle_perft_deep() {
    assert_eq!(check_perft(true), 9);
}

#[test]
fn generic_perft_through_the_game_trait_agrees() {
    let start = Losers::start();
    assert_eq!(rules::perft(&start, 4), 152_955);
    let ep = game("r1bq1bnr/4p1p1/1p1pk3/p5Pp/2P5/1PN4P/P1P2KP1/R1BQ1B1R w - h6 0 14");
    assert_eq!(rules::perft(&ep, 5), 10_999);
}

fn play(g: &mut Losers, moves: &str) {
    for m in moves.split_whitespace() {
        let actions = g.parse_move(m).unwrap_or_else(|e| panic!("{m}: {e}"));
        g.play(actions[0]);
    }
}

#[test]
fn rules_case_xray_bishop_pins_through_the_king() {
    let mut g = game("8/4P2p/2pk2p1/1p6/1n2P3/B6N/3NKPPP/5B1R w - - 1 22");
    assert_eq!(sorted_moves(&g), list("a3b4"));
    play(&mut g, "a3b4");
    assert!(g.in_check());
    assert!(matches!(
        g.parse_move("d6e7"),
        Err(rules::ActionError::Illegal { .. })
    ));
    assert_eq!(sorted_moves(&g), list("d6d7 d6c7 d6e6 d6e5 c6c5"));
}

#[test]
fn rules_case_promotion_may_block_a_check() {
    let g = game("r6K/1k4P1/8/8/8/8/8/8 w - - 0 1");
    assert_eq!(sorted_moves(&g), list("h8h7 g7g8q g7g8r g7g8b g7g8n"));
}

#[test]
fn rules_case_start_perft() {
    let g = Losers::start();
    let want = [20, 400, 8067, 152_955, 2_723_795, 46_038_682];
    for (d, &n) in want.iter().enumerate() {
        assert_eq!(g.fast_perft(d as u32 + 1), n);
    }
}

#[test]
fn rules_case_quiet_evasions_when_no_capture_exists() {
    let mut g = Losers::start();
    play(&mut g, "d2d4 c7c5 d4c5 d8a5");
    assert!(g.in_check());
    // Fairy-Stockfish lists the same six evasions; none is a capture.
    assert_eq!(sorted_moves(&g), list("b1c3 b1d2 b2b4 c1d2 c2c3 d1d2"));
}

#[test]
fn rules_case_en_passant_is_compulsory() {
    let mut g = game("4k3/8/8/8/4p3/8/3P4/4K3 w - - 0 1");
    play(&mut g, "d2d4");
    assert_eq!(g.to_text(), "4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1");
    assert_eq!(sorted_moves(&g), list("e4d3"));
    play(&mut g, "e4d3");
    assert_eq!(g.to_text(), "4k3/8/8/8/8/3p4/8/4K3 w - - 0 2");
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(Player::First, EndReason::BareKing))
    );
}

#[test]
fn rules_case_forced_capture_checkmates_and_the_mated_side_wins() {
    let mut g = game("r1b1kb1r/p2ppp1p/2q2np1/8/7P/7R/PP1PPPP1/RNB1KBN1 w Qkq - 0 1");
    play(&mut g, "g2g3");
    assert_eq!(sorted_moves(&g), list("c6c1"));
    play(&mut g, "c6c1");
    assert!(g.in_check());
    assert!(g.legal_vec().is_empty());
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(Player::First, EndReason::Checkmate))
    );
}

#[test]
fn rules_case_forced_capture_leaves_a_bare_king_that_wins() {
    let mut g = game("4k3/8/8/8/8/8/4r2P/4K3 w - - 0 1");
    assert_eq!(sorted_moves(&g), list("e1e2"));
    play(&mut g, "e1e2");
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(Player::Second, EndReason::BareKing))
    );
    assert!(g.legal_vec().is_empty());
}

#[test]
fn rules_case_bare_king_already_won() {
    let g = game("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1");
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(Player::First, EndReason::BareKing))
    );
    assert!(g.legal_vec().is_empty());
    assert_eq!(g.parse_move("e1e2"), Err(rules::ActionError::GameOver));
    assert_eq!(g.fast_perft(3), 0);
}

#[test]
fn both_kings_bare_side_to_move_wins() {
    let g = game("4k3/8/8/8/8/8/8/4K3 b - - 0 1");
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(Player::Second, EndReason::BareKing))
    );
}

#[test]
fn stalemate_is_a_draw() {
    let g = game("7k/5Q2/6K1/p7/P7/8/8/8 b - - 0 1");
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::Stalemate)));
}

#[test]
fn threefold_repetition_draws() {
    let mut g = Losers::start();
    play(&mut g, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1");
    assert_eq!(g.outcome(), None);
    assert_eq!(g.repetitions(), 1);
    play(&mut g, "f6g8");
    assert_eq!(g.repetitions(), 2);
    assert_eq!(
        g.outcome(),
        Some(Outcome::draw(EndReason::ThreefoldRepetition))
    );
    assert!(g.legal_vec().is_empty());
}

#[test]
fn fifty_move_rule_draws_after_100_plies_unless_mate() {
    let mut g = game("4k3/p7/8/8/8/8/4P3/4K2R w K - 99 80");
    assert_eq!(g.outcome(), None);
    play(&mut g, "h1h2");
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::FiftyMoveRule)));
    let mated = game("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 100 3");
    assert_eq!(
        mated.outcome(),
        Some(Outcome::win(Player::First, EndReason::Checkmate))
    );
}

#[test]
fn castling_moves_the_rook_and_clears_rights() {
    let mut g = game("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
    play(&mut g, "e1g1");
    assert_eq!(
        g.to_text(),
        "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b kq - 1 1"
    );
    play(&mut g, "e8c8");
    assert_eq!(
        g.to_text(),
        "2kr3r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 w - - 2 2"
    );
}

#[test]
fn malformed_positions_are_typed_errors() {
    use rules::PositionError as E;
    let bad = [
        ("", "field count"),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
            "side",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1",
            "castling",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1",
            "ep",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1",
            "ep pawn",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
            "clock",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0",
            "fullmove",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1",
            "row",
        ),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "rows"),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQXBNR w KQkq - 0 1",
            "char",
        ),
        (
            "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",
            "no black king",
        ),
        ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "pawn on the last rank"),
        (
            "4k3/8/8/8/8/8/8/4K2R w Q - 0 1",
            "castling right without rook",
        ),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 7", "field count"),
    ];
    for (fen, why) in bad {
        let err = Losers::from_text(fen).expect_err(why);
        assert!(!err.to_string().is_empty());
        if why == "field count" {
            assert!(matches!(err, E::FieldCount { .. }), "{why}: {err}");
        }
    }
    // Four fields (no clocks) are accepted.
    let g = game("4k3/8/8/8/8/8/8/4K3 w - -");
    assert_eq!(g.to_text(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
}

#[test]
fn malformed_and_illegal_moves_are_typed_errors() {
    use rules::ActionError as E;
    let g = Losers::start();
    for text in [
        "", "e2", "e2e", "e2e4x", "e2e4qq", "i2i4", "e0e4", "e2e9", "e2e2", "é2e4", "e7e8k",
    ] {
        assert!(
            matches!(g.parse_move(text), Err(E::Malformed { .. })),
            "{text:?}"
        );
    }
    for text in ["e2e5", "e1g1", "e7e5", "b1b3", "e2e4q"] {
        assert!(
            matches!(g.parse_move(text), Err(E::Illegal { .. })),
            "{text:?}"
        );
    }
    assert_eq!(g.parse_move(" e2e4 ").map(|a| a.len()), Ok(1));
}

#[test]
fn random_games_never_panic_and_hash_matches_a_fresh_parse() {
    let mut seed = 0x1234_5678_u64;
    for _ in 0..200 {
        let mut g = Losers::start();
        for _ in 0..300 {
            let moves = g.legal_vec();
            if moves.is_empty() {
                assert!(g.outcome().is_some());
                break;
            }
            seed = rules::zobrist::splitmix64(seed);
            let m = moves[(seed % moves.len() as u64) as usize];
            let text = g.action_to_text(m);
            assert_eq!(g.parse_move(&text), Ok(vec![m]));
            g.play(m);
            let fresh = game(&g.to_text());
            assert_eq!(fresh.position_hash(), g.position_hash(), "{}", g.to_text());
            assert_eq!(board_moves(&fresh), board_moves(&g));
        }
    }
}
