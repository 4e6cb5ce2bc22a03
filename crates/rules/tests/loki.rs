//! `loki` rules (`docs/rules.md` §4).

mod tafl_support;
use rules::tafl::Loki;
use tafl_support::*;

const ORACLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/tafl/loki_cases.jsonl"
);

#[test]
fn oracle_cases() {
    assert_eq!(check_oracle::<Loki>(ORACLE), 17);
}

/// Perft in full turns to depth 3 by full-turn enumeration and by atomic
/// action walking (run side by side). Counts measured: 1488, 1342834,
/// 2042241123.
#[test]
fn perft_depth_3_agrees_between_methods() {
    let g = Loki::start();
    let measured = [1_488u64, 1_342_834, 2_042_241_123];
    for (d, &n) in (1..=3).zip(&measured) {
        let (turns, atomic) = std::thread::scope(|s| {
            let t = s.spawn(|| rules::tafl::perft_turns(g.state(), d));
            let a = rules::tafl::perft_atomic(g.state(), d);
            (t.join().expect("perft thread"), a)
        });
        assert_eq!(turns, atomic, "depth {d}");
        assert_eq!(turns, n, "depth {d}");
    }
    // Depth 1 in atomic actions: every first part counted once.
    assert_eq!(rules::perft(&g, 1), g.legal_vec().len() as u64);
}

#[test]
#[ignore = "slow: depth 4"]
fn perft_depth_4_agrees_between_methods() {
    let g = Loki::start();
    assert_eq!(
        rules::tafl::perft_turns(g.state(), 4),
        rules::tafl::perft_atomic(g.state(), 4)
    );
}

use rules::tafl::TaflAction;
use rules::{ActionError, EndReason, Game, Outcome, Player, PositionError};

/// The position after playing `moves` from the set-up `pieces` + `rest`.
fn after(pieces: &str, rest: &str, moves: &[&str]) -> Loki {
    let mut g: Loki = pos(&setup(pieces, rest));
    play_tokens(&mut g, moves);
    // Every completion reachable through the atomic actions matches the
    // full-turn list, with no dead end.
    assert_eq!(atomic_turn_tokens(&g), turn_tokens(&g), "{}", g.to_text());
    g
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn captured() -> Option<Outcome> {
    Some(Outcome::win(Player::First, EndReason::KingCaptured))
}

#[test]
fn exchange_immunities() {
    // Kings and enemy Tricksters cannot be exchanged; the own Trickster may
    // be the own piece.
    let g = after("tb10 sc3 Kj9 Td8 Se5", "a 3333/3333 -", &[]);
    assert_eq!(tokens_with(&g, "x:"), strs(&["x:e5b10", "x:e5c3"]));
    // A frozen piece cannot be the own piece; the king never.
    let g = after("Tc3 Se5 Kj9 sb10", "d 3333/3333 f=e5:1", &[]);
    assert_eq!(tokens_with(&g, "x:"), strs(&["x:b10c3"]));
}

#[test]
fn exchange_captures() {
    // The swapped enemy piece is captured (vertical sandwich).
    let g = after("ta10 Sh9 se5 se4 se3 Kj2", "a 3333/3333 -", &["x:h9e4"]);
    assert_eq!(g.to_text(), setup("ta10 sh9 se5 se3 Kj2", "d 2333/3333 -"));
    // A king sandwiched after the attackers' exchange: attackers win.
    let g = after("ta10 sc5 Kd5 Se5 sh9", "a 3333/3333 -", &["x:e5h9"]);
    assert_eq!(g.to_text(), setup("ta10 sc5 se5 Sh9", "d 2333/3333 -"));
    assert_eq!(g.outcome(), captured());
    // Defenders' exchange: the king completes the sandwich of f5.
    let g = after("Ta10 se5 sf5 Kg5 Sh9", "d 3333/3333 -", &["x:e5h9"]);
    assert_eq!(g.to_text(), setup("Ta10 Se5 Kg5 sh9", "a 3333/2333 -"));
    assert_eq!(g.outcome(), None);
}

#[test]
fn exchange_is_two_atomic_actions() {
    let mut g: Loki = pos(&setup("ta10 Se5 Kj9", "a 3333/3333 -"));
    let actions = g.parse_move("x:e5a10").unwrap();
    assert_eq!(actions.len(), 2);
    g.play(actions[0]);
    assert!(g.mid_turn());
    assert_eq!(g.side_to_move(), Player::First);
    let partners: Vec<String> = g.legal_vec().iter().map(|&a| g.action_to_text(a)).collect();
    assert_eq!(partners, strs(&["x>a10"]));
    assert_eq!(g.parse_move("x>a10"), Ok(vec![actions[1]]));
    assert!(matches!(
        g.parse_move("x>b10"),
        Err(ActionError::Illegal { .. })
    ));
    g.play(actions[1]);
    assert!(!g.mid_turn());
    assert_eq!(g.to_text(), setup("Sa10 te5 Kj9", "d 2333/3333 -"));
    assert_eq!(rules::tafl::turn_text(&actions), "x:e5a10");
}

#[test]
fn command_rules() {
    // Only non-king, non-frozen pieces other than the sole General; the
    // second move is mandatory and may return to the start square.
    let g = after("ge10 sa2 sc6 Sa4 Sb2 Sb3 Kj9", "a 3333/3333 f=c6:1", &[]);
    assert_eq!(tokens_with(&g, "g:"), strs(&["g:a2a3a3a2"]));
    assert_eq!(tokens_with(&g, "c6"), Vec::<String>::new());
    // Two Generals command each other.
    let g = after("ge10 gc8 Kj9", "a 3333/3333 -", &[]);
    let geo = rules::Geometry::new(11, 11);
    let mut origins: Vec<String> = tokens_with(&g, "g:")
        .iter()
        .filter_map(|t| geo.parse_square_prefix(&t[2..]).map(|(sq, _)| geo.name(sq)))
        .collect();
    origins.dedup();
    assert_eq!(origins, strs(&["c8", "e10"]));
    // A command whose first move captures the king ends the game there.
    let mut g = after("ga10 sd9 sf5 Ke5", "a 3333/3333 -", &[]);
    assert!(turn_tokens(&g).contains(&"g:d9d5".to_string()));
    assert_eq!(tokens_with(&g, "g:d9d5d5"), Vec::<String>::new());
    let first = g.parse_move("g:d9d5").unwrap();
    assert_eq!(first, vec![TaflAction::CommandFirst { from: 91, to: 47 }]);
    g.play(first[0]);
    assert!(!g.mid_turn());
    assert_eq!(g.outcome(), captured());
    assert_eq!(g.to_text(), setup("ga10 sd5 sf5", "d 3233/3333 -"));
}

#[test]
fn freeze_rules() {
    // Not the king, not a Wizard.
    let g = after("wa10 Kj9 Wc3 Se5 Hh4", "a 3333/3333 -", &[]);
    assert_eq!(tokens_with(&g, "f:"), strs(&["f:e5", "f:h4"]));
    // Frozen for exactly its owner's next turn.
    let g = after("wa10 sb2 Kj9 Se5", "a 3333/3333 -", &["f:e5"]);
    assert_eq!(g.to_text(), setup("wa10 sb2 Kj9 Se5", "d 3323/3333 f=e5:1"));
    let king: Vec<String> = [
        "j10", "j11", "j8", "j7", "j6", "j5", "j4", "j3", "j2", "j1", "i9", "h9", "g9", "f9", "e9",
        "d9", "c9", "b9", "a9", "k9",
    ]
    .iter()
    .map(|s| format!("j9{s}"))
    .collect();
    let mut king_sorted = king.clone();
    king_sorted.sort();
    assert_eq!(turn_tokens(&g), king_sorted);
    let g = after(
        "wa10 sb2 Kj9 Se5",
        "a 3333/3333 -",
        &["f:e5", "j9j10", "b2b3"],
    );
    assert_eq!(g.to_text(), setup("wa10 sb3 Kj10 Se5", "d 3323/3333 -"));
    let mut free: Vec<String> = [
        "e6", "e7", "e8", "e9", "e10", "e11", "e4", "e3", "e2", "e1", "d5", "c5", "b5", "a5", "f5",
        "g5", "h5", "i5", "j5", "k5",
    ]
    .iter()
    .map(|s| format!("e5{s}"))
    .collect();
    free.sort();
    assert_eq!(tokens_with(&g, "e5"), free);
    // A frozen piece cannot move, hop, be commanded or be exchanged by its
    // owner.
    let g = after("Ta10 Gb10 Hc10 Se5 Se6 Kj9 sb2", "d 3333/3333 f=e5:1", &[]);
    let with_e5: Vec<String> = turn_tokens(&g)
        .into_iter()
        .filter(|t| t.contains("e5"))
        .collect();
    assert_eq!(with_e5, Vec::<String>::new());
    // ... but it may be hopped over.
    assert_eq!(tokens_with(&g, "h:e6"), strs(&["h:e6e4"]));
    // Frozen General and Horse still lend Command and Hop.
    let g = after("Gb2 Hc3 Se7 Se8 Kj9 sa10", "d 3333/3333 f=b2:1,c3:1", &[]);
    assert_eq!(tokens_with(&g, "h:"), strs(&["h:e7e9", "h:e8e6"]));
    assert!(!tokens_with(&g, "g:e7").is_empty() && !tokens_with(&g, "g:e8").is_empty());
    assert_eq!(tokens_with(&g, "g:").len(), tokens_with(&g, "g:e").len());
}

#[test]
fn hop_rules() {
    // Not over the king or an enemy Horse; over a friendly Horse; a Horse
    // hops itself.
    let g = after("Kd5 He4 hc4 sd4 Sd3 sc3", "a 3333/3333 -", &[]);
    assert_eq!(
        tokens_with(&g, "h:"),
        strs(&["h:c3c5", "h:c3e3", "h:c4c2", "h:d4b4", "h:d4d2"])
    );
    // Never onto a corner or the throne; the empty throne is not a piece;
    // frozen pieces cannot hop but may be hopped over.
    let g = after(
        "sa2 sa3 sf8 Sf7 se6 sb8 sb7 hk5 Ki2",
        "a 3333/3333 f=b8:1",
        &[],
    );
    assert_eq!(tokens_with(&g, "h:"), strs(&["h:a2a4", "h:b7b9"]));
    // The jumped piece is not captured by being jumped.
    let g = after("hk5 sd6 Sd5 Kj9", "a 3333/3333 -", &["h:d6d4"]);
    assert_eq!(g.to_text(), setup("hk5 Sd5 sd4 Kj9", "d 3332/3333 -"));
}

#[test]
fn powers_need_their_piece_and_uses() {
    let g = after("sb2 Kj9 Se5", "a 3333/3333 -", &[]);
    assert!(turn_tokens(&g).iter().all(|t| !t.contains(':')));
    let g = after("wa10 tb10 gc10 hd10 Se5 Se6 Kj9", "a 0000/3333 -", &[]);
    assert!(turn_tokens(&g).iter().all(|t| !t.contains(':')));
    assert_eq!(turn_tokens(&g).len(), g.legal_vec().len());
}

#[test]
fn repetition_of_power_tokens() {
    // `f:e5` is the same action whatever stands on e5.
    let g = after(
        "wa10 sb2 Se5 Se8 Kj9",
        "a 3333/3333 -",
        &[
            "f:e5", "j9j10", "f:e5", "j10j9", "b2b3", "e5d5", "b3b2", "e8e5",
        ],
    );
    assert_eq!(g.to_text(), setup("wa10 sb2 Sd5 Se5 Kj9", "a 3313/3333 -"));
    assert_eq!(tokens_with(&g, "f:"), strs(&["f:d5"]));
    assert!(matches!(
        g.parse_move("f:e5"),
        Err(ActionError::Illegal { .. })
    ));
    // A command counts as one action; a first move whose only completion is
    // refused is not offered (the plain move a2a3 still is).
    let g = after(
        "ge10 sa2 Sa4 Sb2 Sb3 Kj9",
        "a 3333/3333 -",
        &["g:a2a3a3a2", "j9j10", "g:a2a3a3a2", "j10j9"],
    );
    assert_eq!(
        g.to_text(),
        setup("ge10 sa2 Sa4 Sb2 Sb3 Kj9", "a 3133/3333 -")
    );
    assert_eq!(tokens_with(&g, "g:"), Vec::<String>::new());
    assert_eq!(tokens_with(&g, "a2"), strs(&["a2a3"]));
    // An exchange target whose only partner is refused is not offered.
    let g = after(
        "ta10 Se5 Kj9",
        "a 9333/3333 -",
        &[
            "x:e5a10", "j9j10", "x:a10e5", "j10j9", "x:e5a10", "j9j8", "x:a10e5", "j8j9",
        ],
    );
    assert_eq!(g.to_text(), setup("ta10 Se5 Kj9", "a 5333/3333 -"));
    assert_eq!(tokens_with(&g, "x:"), Vec::<String>::new());
    assert!(!g
        .legal_vec()
        .iter()
        .any(|a| matches!(a, TaflAction::ExchangeTarget(_))));
}

#[test]
fn position_text() {
    let plain = setup("ta10 Se5 Kj9", "a");
    assert_eq!(
        pos::<Loki>(&plain).to_text(),
        setup("ta10 Se5 Kj9", "a 3333/3333 -")
    );
    assert_eq!(Loki::start().to_text(), rules::tafl::LOKI_START);
    let bad = |rest: &str| Loki::from_text(&setup("ta10 Se5 sb2 Kj9", rest)).err();
    assert!(matches!(
        bad("a 333/3333 -"),
        Some(PositionError::Field { .. })
    ));
    assert!(matches!(
        bad("a 3333/3333 f=e5:2"),
        Some(PositionError::Field { .. })
    ));
    assert!(matches!(
        bad("a 3333/3333 e5"),
        Some(PositionError::Field { .. })
    ));
    assert!(matches!(
        bad("d 3333/3333 f=e6:1"),
        Some(PositionError::Illegal(_))
    ));
    assert!(matches!(
        bad("a 3333/3333 f=e5:1"),
        Some(PositionError::Illegal(_))
    ));
    assert!(matches!(
        bad("a 3333/3333"),
        Some(PositionError::FieldCount { .. })
    ));
    let g = after("ta10 Se5 sb2 Kj9", "d 3333/3333 f=e5:1", &[]);
    assert_eq!(g.to_text(), setup("ta10 Se5 sb2 Kj9", "d 3333/3333 f=e5:1"));
}
