//! Whole-turn perft ([`rules::perft_turns`]): Loki counts turns in the
//! notation of `docs/rules.md` §4 (one command or exchange is one turn),
//! and every other variant counts exactly as the action perft.

use rules::tafl::{turn_text, Loki};
use rules::{Game, Hnefatafl, Losers, Shakti, Variant, Viking};

/// Whole turns equal actions for a variant that never splits a turn.
fn same_as_actions<G: Variant>(depth: u32) {
    let g = G::start();
    for d in 0..=depth {
        assert_eq!(
            rules::perft_turns(&g, d),
            rules::perft(&g, d),
            "{} depth {d}",
            G::VARIANT
        );
    }
}

#[test]
fn variants_without_split_turns_count_as_before() {
    same_as_actions::<Losers>(3);
    same_as_actions::<Viking>(3);
    same_as_actions::<Hnefatafl>(2);
    same_as_actions::<Shakti>(3);
}

/// The counts of `docs/rules.md` §4, by the generic atomic walk and by
/// Loki's own full-turn enumeration.
#[test]
fn loki_counts_whole_turns() {
    let g = Loki::start();
    assert_eq!(rules::perft_turns(&g, 1), 1488);
    assert_eq!(rules::perft_turns(&g, 2), 1_342_834);
    assert_eq!(rules::tafl::perft_turns(g.state(), 2), 1_342_834);
    assert_eq!(rules::perft(&g, 1), 255, "atomic actions");
}

/// `perft_turns_divide` gives each legal full turn once, as the actions
/// that make its token, with the counts summing to the total.
#[test]
fn loki_divide_lists_every_turn_once() {
    let g = Loki::start();
    let lines = rules::perft_turns_divide(&g, 2);
    let mut tokens: Vec<String> = lines.iter().map(|(a, _)| turn_text(a)).collect();
    tokens.sort();
    let mut expected: Vec<String> = g.legal_turns().iter().map(|t| t.to_string()).collect();
    expected.sort();
    assert_eq!(tokens, expected);
    assert!(tokens.contains(&"g:d1d2d2d3".to_string()));
    let total: u64 = lines.iter().map(|(_, n)| n).sum();
    assert_eq!(total, 1_342_834);
    // Each token parses back to the same actions.
    for (actions, _) in &lines {
        assert_eq!(g.parse_move(&turn_text(actions)).as_ref(), Ok(actions));
    }
}

/// A finished game has no turns; depth 0 is the position itself.
#[test]
fn edge_depths() {
    // The king stands on the corner a1: the defenders have won.
    let over = Loki::from_text("11/11/11/11/11/11/11/11/11/11/K10 a 3333/3333 -")
        .expect("a finished position");
    assert!(over.outcome().is_some());
    assert_eq!(rules::perft_turns(&over, 3), 0);
    assert!(rules::perft_turns_divide(&over, 3).is_empty());
    assert_eq!(rules::perft_turns(&Loki::start(), 0), 1);
    assert_eq!(rules::perft_turns_divide(&Loki::start(), 0).len(), 1488);
}
