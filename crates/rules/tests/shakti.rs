//! Shakti rules tests (`docs/rules.md` §5): the oracle cases, the six
//! named cases, every clarification, passes, repetition, perft, notation
//! and bad input.

use rules::shakti::{START_45, START_49};
use rules::{ActionError, EndReason, Game, Outcome, Player, PositionError, Shakti, ShaktiAction};

fn game(text: &str) -> Shakti {
    match Shakti::from_text(text) {
        Ok(g) => g,
        Err(e) => panic!("{text:?} does not parse: {e}"),
    }
}

/// Sorted legal action texts.
fn moves(g: &Shakti) -> Vec<String> {
    let mut v: Vec<String> = g
        .legal_vec()
        .into_iter()
        .map(|a| g.action_to_text(a))
        .collect();
    v.sort();
    v
}

fn moves_of(text: &str) -> Vec<String> {
    moves(&game(text))
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn play(g: &mut Shakti, text: &str) {
    match g.parse_move(text) {
        Ok(actions) => actions.into_iter().for_each(|a| g.play(a)),
        Err(e) => panic!("{text} in {}: {e}", g.to_text()),
    }
}

fn mate_for(winner: Player) -> Option<Outcome> {
    Some(Outcome::win(winner, EndReason::Checkmate))
}

// ---------------------------------------------------------------- oracle

fn oracle_outcome(o: &serde_json::Value) -> Option<Outcome> {
    if o.is_null() {
        return None;
    }
    Some(match (o["result"].as_str(), o["reason"].as_str()) {
        (Some("1-0"), Some("checkmate")) => Outcome::win(Player::First, EndReason::Checkmate),
        (Some("0-1"), Some("checkmate")) => Outcome::win(Player::Second, EndReason::Checkmate),
        (Some("1/2-1/2"), Some("no_legal_moves_both_sides")) => {
            Outcome::draw(EndReason::NoMovesEitherSide)
        }
        (Some("1/2-1/2"), Some("threefold_repetition")) => {
            Outcome::draw(EndReason::ThreefoldRepetition)
        }
        other => panic!("unknown oracle outcome {other:?}"),
    })
}

/// Every case of `tests/data/shakti/cases.jsonl`: exact sorted legal
/// moves (a forced pass is our single action `pass`), check, side to move,
/// outcome, and the position text round trip.
#[test]
fn oracle_cases_match_exactly() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/shakti/cases.jsonl");
    let text = std::fs::read_to_string(path).expect("oracle file readable");
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).expect("json line");
        let fen = case["fen"].as_str().expect("fen");
        let mut g = game(case["start"].as_str().expect("start"));
        for m in case["moves_played"].as_array().expect("moves_played") {
            play(&mut g, m.as_str().expect("move text"));
        }
        assert_eq!(g.to_text(), fen, "replayed position");
        let mut expected: Vec<String> = case["legal_moves"]
            .as_array()
            .expect("legal_moves")
            .iter()
            .map(|m| m.as_str().expect("move").to_string())
            .collect();
        if case["pass"].as_bool() == Some(true) {
            assert!(expected.is_empty(), "{fen}: pass with moves");
            expected.push("pass".to_string());
        }
        assert_eq!(moves(&g), expected, "{fen}");
        let in_check = case["in_check"].as_bool().expect("in_check");
        assert_eq!(g.in_check(), in_check, "{fen}");
        let side = match case["side_to_move"].as_str() {
            Some("w") => Player::First,
            Some("b") => Player::Second,
            other => panic!("bad side {other:?}"),
        };
        assert_eq!(g.side_to_move(), side, "{fen}");
        assert_eq!(g.outcome(), oracle_outcome(&case["outcome"]), "{fen}");
        checked += 1;
    }
    assert_eq!(checked, 29);
}

// ------------------------------------------------- the six named cases

#[test]
fn holes_are_passed_over() {
    // a1 warrior: a2 step, then over the a3 hole to a4 (jump, a2 removed).
    assert_eq!(
        moves_of("k6/7/x6/7/x6/x6/W5K w"),
        strs(&["a1a4", "a1a6", "a1b1", "a1b2", "a1c1", "a1c3", "g1f1", "g1f2", "g1g2"])
    );
    // King on a1 with b1..f1 holes sees g1 across five holes.
    assert_eq!(
        moves_of("k6/7/7/7/7/7/Kxxxxx1 w"),
        strs(&["a1a2", "a1b2", "a1g1"])
    );
}

#[test]
fn distant_check_across_holes() {
    // Black warrior a7, holes a2..a6: White's a1 king is in check at
    // distance 6, so it may only step to adjacent tiles.
    let g = game("w6/x6/x6/x6/x6/x6/K5k w");
    assert!(g.in_check());
    assert_eq!(moves(&g), strs(&["a1b1", "a1b2"]));
    // The same along a rank of holes.
    let g = game("6k/7/7/7/7/7/Kxxxxxw w");
    assert!(g.in_check());
    assert_eq!(moves(&g), strs(&["a1a2", "a1b2"]));
}

#[test]
fn check_is_blocked_only_by_tiles() {
    // One empty tile (a4) between warrior and king: no check. The king
    // may not go to a4 (it would then be in check across a5, a6).
    let g = game("w6/x6/x6/7/x6/x6/K5k w");
    assert!(!g.in_check());
    assert_eq!(moves(&g), strs(&["a1b1", "a1b2"]));
    // A tile blocks whoever stands on it.
    let g = game("w6/x6/x6/W6/x6/x6/K5k w");
    assert!(!g.in_check());
}

#[test]
fn jump_uncovering_a_check_is_illegal() {
    // d-file: K d1, holes d2 d4 d5 d6, the d3 tile shields d1 from d7.
    // The e3 warrior may step to d3 but not jump over it to c3.
    let with_king = moves_of("3k3/3x3/3x3/3x3/4W2/3x3/3K3 w");
    assert_eq!(with_king.len(), 18);
    assert!(with_king.contains(&"e3d3".to_string()));
    // Removing d3 would let the kings see each other; for the same reason
    // the king itself may not go to d3.
    assert!(!with_king.contains(&"e3c3".to_string()));
    assert!(!with_king.contains(&"d1d3".to_string()));
    // A black warrior on d7: the jump would uncover a check.
    let with_warrior = moves_of("k2w3/3x3/3x3/3x3/4W2/3x3/3K3 w");
    assert!(with_warrior.contains(&"e3d3".to_string()));
    assert!(!with_warrior.contains(&"e3c3".to_string()));
    // Nothing behind d3: the jump is legal.
    assert!(moves_of("k6/3x3/3x3/3x3/4W2/3x3/3K3 w").contains(&"e3c3".to_string()));
}

#[test]
fn a_protected_warrior_cannot_be_taken() {
    // Unprotected: the checking b2 warrior is taken, the only legal move.
    let g = game("6k/7/7/7/7/1w5/K1W4 w");
    assert!(g.in_check());
    assert_eq!(moves(&g), strs(&["a1b2"]));
    // Protected by a warrior behind it on the diagonal: mate.
    let g = game("6k/7/7/7/2w4/1w5/K6 w");
    assert!(g.in_check());
    assert_eq!(moves(&g), Vec::<String>::new());
    assert_eq!(g.outcome(), mate_for(Player::Second));
    // Protected by its own king (mutual check rule): mate.
    let g = game("7/7/7/3k3/3x3/3w3/xxxKxxx w");
    assert_eq!(moves(&g), Vec::<String>::new());
    assert_eq!(g.outcome(), mate_for(Player::Second));
}

#[test]
fn a_first_tile_held_by_any_piece_closes_the_direction() {
    // Own warrior on b1: a1 cannot move or jump east; b1 steps to c1 but
    // cannot jump the king on d1.
    let list = moves_of("3k3/7/7/7/7/7/WW1K3 w");
    assert!(!list.iter().any(|m| m == "a1b1" || m == "a1c1"));
    assert!(list.contains(&"b1c1".to_string()));
    assert!(!list.contains(&"b1e1".to_string()));
    // Enemy warrior on b1: a1 moves only north and north-east.
    let a1_moves: Vec<String> = moves_of("3k3/7/7/7/7/7/Ww1K3 w")
        .into_iter()
        .filter(|m| m.starts_with("a1"))
        .collect();
    assert_eq!(a1_moves, strs(&["a1a2", "a1a3", "a1b2", "a1c3"]));
    // King d1 with its own warrior on the first tile west (c1 empty, b1
    // warrior): the king stops at c1, never beyond.
    let list = moves_of("3k3/7/7/7/7/7/1W1K3 w");
    assert!(list.contains(&"d1c1".to_string()));
    assert!(!list.contains(&"d1b1".to_string()) && !list.contains(&"d1a1".to_string()));
}

// ------------------------------------------------------- other rulings

#[test]
fn no_move_may_make_the_kings_see_each_other() {
    // d2 would face the d4 king across the d3 hole.
    assert_eq!(
        moves_of("7/7/7/3k3/3x3/7/3K3 w"),
        strs(&["d1c1", "d1c2", "d1e1", "d1e2"])
    );
}

#[test]
fn in_check_a_hole_next_to_the_king_closes_that_direction() {
    // a2 and b1 are holes; only b2 is adjacent, although c1.. d1 would be
    // first tiles seen.
    let g = game("w5k/x6/x6/x6/x6/x6/Kxx4 w");
    assert!(g.in_check());
    assert_eq!(moves(&g), strs(&["a1b2"]));
}

#[test]
fn in_check_only_king_moves_are_legal() {
    // The g1 warrior has moves, but the king is in check across b2.
    let g = game("6k/7/7/7/2w4/1x5/K5W w");
    assert!(g.in_check());
    assert_eq!(moves(&g), strs(&["a1a2", "a1b1"]));
}

#[test]
fn origin_keeps_its_tile_and_only_jumps_remove_tiles() {
    let mut g = Shakti::start();
    play(&mut g, "b2b3");
    assert_eq!(g.to_text(), "7/1w1k1w1/7/7/1W5/3K1W1/7 b");
    let mut g = Shakti::start();
    play(&mut g, "b2b4");
    assert_eq!(g.to_text(), "7/1w1k1w1/7/1W5/1x5/3K1W1/7 b");
    play(&mut g, "d6d5");
    assert_eq!(g.to_text(), "7/1w3w1/3k3/1W5/1x5/3K1W1/7 w");
    // A captured warrior leaves its tile (the king now stands on it).
    let mut g = game("6k/7/7/7/7/1w5/K1W4 w");
    play(&mut g, "a1b2");
    assert_eq!(g.to_text(), "6k/7/7/7/7/1K5/2W4 b");
    assert_eq!(g.warriors(Player::Second), 0);
}

#[test]
fn giving_check_or_uncovering_one_by_a_jump_is_allowed() {
    // c5b6 puts a warrior next to the a7 king.
    let mut g = game("k6/7/2W4/7/7/7/6K w");
    play(&mut g, "c5b6");
    assert!(g.in_check());
    assert_eq!(g.side_to_move(), Player::Second);
    // a6 jumps over d6 (removing it) to f6: d3 now checks d7 across holes.
    let mut g = game("3k3/Wxx1x2/3x3/3x3/3W3/7/6K w");
    assert!(!g.in_check());
    play(&mut g, "a6f6");
    // a6 keeps its tile; d6 is now a hole.
    assert_eq!(g.to_text(), "3k3/1xxxxW1/3x3/3x3/3W3/7/6K b");
    assert!(g.in_check());
}

/// White is walled in (a1 K, a2 W, b1 W; every line from them is holes);
/// Black's king shuttles c7 <-> d7.
const WALLED_WHITE: &str = "xxk1xxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/Wxxxxxx/KWxxxxx";

#[test]
fn a_side_without_moves_passes_and_the_pass_counts_as_one_child() {
    let mut g = game(&format!("{WALLED_WHITE} w"));
    assert!(!g.in_check());
    assert_eq!(g.legal_vec(), vec![ShaktiAction::Pass]);
    assert_eq!(moves(&g), strs(&["pass"]));
    assert_eq!(g.outcome(), None);
    assert_eq!((g.perft(1), g.perft(2), g.perft(3)), (1, 1, 1));
    assert_eq!(rules::perft(&g, 3), 1);
    play(&mut g, "pass");
    assert_eq!(g.to_text(), format!("{WALLED_WHITE} b"));
    assert_eq!(g.ply(), 1);
    assert_eq!(moves(&g), strs(&["c7d7"]));
    // A pass is never legal when a move exists.
    assert_eq!(
        g.parse_move("pass"),
        Err(ActionError::Illegal {
            text: "pass".to_string()
        })
    );
}

#[test]
fn checkmate_comes_before_the_neither_can_move_draw() {
    // White is in check with no move; Black could not move either.
    let g = game("wxxxxxx/xxxxxxx/xxkxxxx/xxxxxxx/xxxxxxx/xxxxxxx/Kxxxxxx w");
    assert!(g.in_check());
    assert_eq!(moves(&g), Vec::<String>::new());
    assert_eq!(g.outcome(), mate_for(Player::Second));
    assert_eq!(g.perft(1), 0);
    assert_eq!(g.perft(3), 0);
}

#[test]
fn neither_side_can_move_is_a_draw_with_no_children() {
    let g = game("xxxxxkx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/Kxxxxxx w");
    assert_eq!(
        g.outcome(),
        Some(Outcome::draw(EndReason::NoMovesEitherSide))
    );
    assert_eq!(g.legal_vec(), Vec::<ShaktiAction>::new());
    assert_eq!((g.perft(1), rules::perft(&g, 1)), (0, 0));
}

#[test]
fn threefold_repetition_counts_the_start_position() {
    let mut g = Shakti::start();
    let cycle = ["d2d1", "d6d7", "d1d2", "d7d6"];
    for (i, m) in cycle.iter().chain(cycle.iter()).enumerate() {
        assert_eq!(g.outcome(), None, "before ply {i}");
        play(&mut g, m);
    }
    assert_eq!(g.repetition_count(), 3);
    assert_eq!(g.to_text(), START_49);
    assert_eq!(
        g.outcome(),
        Some(Outcome::draw(EndReason::ThreefoldRepetition))
    );
    assert_eq!(g.legal_vec(), Vec::<ShaktiAction>::new());
    assert_eq!(g.parse_move("d2d1"), Err(ActionError::GameOver));
    // Perft ignores repetition.
    assert_eq!(g.perft(1), 28);
}

#[test]
fn positions_after_a_pass_count_for_repetition() {
    // From Black to move: c7d7 pass d7c7 pass (the position recurs right
    // after a pass) twice over: the third occurrence is reached by a pass.
    let mut g = game(&format!("{WALLED_WHITE} b"));
    for (i, m) in ["c7d7", "pass", "d7c7", "pass"]
        .iter()
        .cycle()
        .take(8)
        .enumerate()
    {
        assert_eq!(g.outcome(), None, "before ply {i}");
        play(&mut g, m);
    }
    assert_eq!(g.repetition_count(), 3);
    assert_eq!(
        g.outcome(),
        Some(Outcome::draw(EndReason::ThreefoldRepetition))
    );
}

#[test]
fn a_position_where_one_must_pass_is_drawn_on_its_third_occurrence() {
    // Ruling made in shakti/mod.rs: repetition ends the game even where the
    // side to move would otherwise pass.
    let mut g = game(&format!("{WALLED_WHITE} w"));
    for m in ["pass", "c7d7", "pass", "d7c7"].iter().cycle().take(8) {
        play(&mut g, m);
    }
    assert_eq!(g.repetition_count(), 3);
    assert_eq!(
        g.outcome(),
        Some(Outcome::draw(EndReason::ThreefoldRepetition))
    );
    assert_eq!(g.legal_vec(), Vec::<ShaktiAction>::new());
}

#[test]
fn jumps_and_captures_restart_the_repetition_history() {
    let mut g = Shakti::start();
    play(&mut g, "b2b4");
    assert_eq!(g.repetition_count(), 1);
    for m in [
        "d6d7", "d2d1", "d7d6", "d1d2", "d6d7", "d2d1", "d7d6", "d1d2",
    ] {
        play(&mut g, m);
    }
    assert_eq!(g.repetition_count(), 3);
    assert_eq!(
        g.outcome(),
        Some(Outcome::draw(EndReason::ThreefoldRepetition))
    );
}

// ---------------------------------------------------------------- perft

#[test]
fn perft_49_tiles() {
    let g = Shakti::start();
    let expected = [28, 768, 20445, 531917];
    for (depth, &n) in (1..=4).zip(expected.iter()) {
        assert_eq!(g.perft(depth), n, "depth {depth}");
        assert_eq!(rules::perft(&g, depth), n, "generic, depth {depth}");
    }
    // Allocation-free perft: depth 5 takes well under a second.
    assert_eq!(g.perft(5), 13_668_377);
}

#[test]
fn perft_45_tiles() {
    let g = Shakti::start_45();
    let expected = [26, 660, 16535, 403471];
    for (depth, &n) in (1..=4).zip(expected.iter()) {
        assert_eq!(g.perft(depth), n, "depth {depth}");
        assert_eq!(rules::perft(&g, depth), n, "generic, depth {depth}");
    }
    assert_eq!(g.perft(5), 9_874_591);
}

#[test]
#[ignore = "generic perft to depth 5 clones 23M game states (about 1 s in release)"]
fn perft_depth_5_through_the_game_trait() {
    assert_eq!(rules::perft(&Shakti::start(), 5), 13_668_377);
    assert_eq!(rules::perft(&Shakti::start_45(), 5), 9_874_591);
}

// ---------------------------------------------- notation and hashing

#[test]
fn start_positions_and_text_round_trip() {
    assert_eq!(Shakti::start().to_text(), START_49);
    assert_eq!(Shakti::start_45().to_text(), START_45);
    assert_eq!(game(START_45), Shakti::start_45());
    assert_eq!(game(START_49), Shakti::start());
    assert_eq!(Shakti::start().side_to_move(), Player::First);
    assert_eq!(Shakti::start().king(Player::Second), 5 * 7 + 3);
    assert_eq!(
        Shakti::start().tiles().count_ones() - Shakti::start_45().tiles().count_ones(),
        4
    );
}

/// Tiny deterministic generator for random playouts.
fn next(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *seed >> 33
}

#[test]
fn random_games_keep_hash_text_and_rules_consistent() {
    let mut seed = 7u64;
    let mut actions = Vec::new();
    for game_no in 0..200 {
        let mut plies = 0;
        let mut g = if game_no % 2 == 0 {
            Shakti::start()
        } else {
            Shakti::start_45()
        };
        for _ in 0..150 {
            g.legal_actions(&mut actions);
            assert_eq!(actions.is_empty(), g.outcome().is_some(), "{}", g.to_text());
            if actions.is_empty() {
                break;
            }
            let a = actions[next(&mut seed) as usize % actions.len()];
            let text = g.action_to_text(a);
            assert_eq!(g.parse_move(&text), Ok(vec![a]));
            g.play(a);
            plies += 1;
            let fresh = game(&g.to_text());
            assert_eq!(fresh.to_text(), g.to_text());
            assert_eq!(fresh.position_hash(), g.position_hash());
            assert_eq!(g.ply(), plies);
        }
    }
}

// ------------------------------------------------------------ bad input

#[test]
fn malformed_position_texts_are_typed_errors() {
    assert!(matches!(
        Shakti::from_text("7/1w1k1w1/7/7/7/1W1K1W1/7"),
        Err(PositionError::FieldCount { found: 1, .. })
    ));
    assert!(matches!(
        Shakti::from_text("7/7/7 w"),
        Err(PositionError::Board(_))
    ));
    assert!(matches!(
        Shakti::from_text("8/1w1k1w1/7/7/7/1W1K1W1/7 w"),
        Err(PositionError::Board(_))
    ));
    assert_eq!(
        Shakti::from_text("7/1w1k1w1/7/7/7/1W1K1W1/6q w"),
        Err(PositionError::BadChar { ch: 'q' })
    );
    assert!(matches!(
        Shakti::from_text("7/1w1k1w1/7/7/7/1W1K1W1/7 x"),
        Err(PositionError::Field {
            field: "side to move",
            ..
        })
    ));
    assert!(matches!(
        Shakti::from_text(""),
        Err(PositionError::FieldCount { found: 0, .. })
    ));
}

#[test]
fn impossible_positions_are_refused() {
    // Two white kings, no black king.
    for text in ["7/1w1K1w1/7/7/7/1W1K1W1/7 w", "7/1w3w1/7/7/7/1W1K1W1/7 w"] {
        assert!(
            matches!(Shakti::from_text(text), Err(PositionError::Illegal(_))),
            "{text}"
        );
    }
    // Kings that see each other across holes.
    assert!(matches!(
        Shakti::from_text("3k3/3x3/3x3/3x3/3x3/3x3/3K3 w"),
        Err(PositionError::Illegal(_))
    ));
    // The side not to move (Black) in check from d5 across the d6 hole.
    assert!(matches!(
        Shakti::from_text("3k3/3x3/3W3/7/7/7/K6 w"),
        Err(PositionError::Illegal(_))
    ));
    assert!(Shakti::from_text("3k3/3x3/3W3/7/7/7/K6 b").is_ok());
}

#[test]
fn malformed_and_illegal_moves_are_typed_errors() {
    let g = Shakti::start();
    for text in ["", "b2", "b2b9", "z1a1", "b2b2", "b2b3x", "passs", "0000"] {
        assert!(
            matches!(g.parse_move(text), Err(ActionError::Malformed { .. })),
            "{text}"
        );
    }
    for text in ["b2e5", "pass", "d6d5", "b2b5"] {
        assert_eq!(
            g.parse_move(text),
            Err(ActionError::Illegal {
                text: text.to_string()
            })
        );
    }
    let mate = game("6k/7/7/7/2w4/1w5/K6 w");
    assert_eq!(mate.parse_move("a1a2"), Err(ActionError::GameOver));
}
