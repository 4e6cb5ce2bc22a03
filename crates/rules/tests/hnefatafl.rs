//! `hnefatafl` rules (`docs/rules.md` §3).

mod tafl_support;
use rules::tafl::Hnefatafl;
use tafl_support::*;

const ORACLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/tafl/hnefatafl_cases.jsonl"
);

#[test]
fn oracle_cases() {
    assert_eq!(check_oracle::<Hnefatafl>(ORACLE), 17);
}

use rules::{ActionError, EndReason, Game, Outcome, Player, PositionError};

fn captured() -> Option<Outcome> {
    Some(Outcome::win(Player::First, EndReason::KingCaptured))
}

fn case<'a>(
    ruling: &'a str,
    start: (&str, &str),
    moves: &'a [&'a str],
    fen: (&str, &str),
    outcome: Option<Outcome>,
    legal: Option<&'a [&'a str]>,
) -> Case<'a> {
    Case {
        ruling,
        start: setup(start.0, start.1),
        moves,
        fen: setup(fen.0, fen.1),
        outcome,
        legal,
    }
}

/// One row per ruling of docs/rules.md §3, each with its exact result.
#[test]
fn rulings_table() {
    let draw = Some(Outcome::draw(EndReason::NoLegalAction));
    let cases = [
        case(
            "multiple captures in one move (three defenders)",
            ("se1 Sd5 Sf5 Se6 sc5 sg5 se7 Kj9", "a"),
            &["e1e5"],
            ("sc5 sg5 se7 se5 Kj9", "d"),
            None,
            None,
        ),
        case(
            "defender captured against corner a1",
            ("sc4 Sb1 Kj9", "a"),
            &["c4c1"],
            ("sc1 Kj9", "d"),
            None,
            None,
        ),
        case(
            "attacker captured against a corner; attackers then have no move: draw",
            ("Sc4 sb1 Kj9", "d"),
            &["c4c1"],
            ("Sc1 Kj9", "a"),
            draw,
            Some(&[]),
        ),
        case(
            "attacker captured against the empty throne",
            ("se6 Sd2 sb10 Kj9", "d"),
            &["d2d6"],
            ("Sd6 sb10 Kj9", "a"),
            None,
            None,
        ),
        case(
            "defender captured against the empty throne",
            ("Sf7 sf10 Kj9", "a"),
            &["f10f8"],
            ("sf8 Kj9", "d"),
            None,
            None,
        ),
        case(
            "no capture of a defender against the occupied throne",
            ("Kf6 Sf7 sf10", "a"),
            &["f10f8"],
            ("Kf6 Sf7 sf8", "d"),
            None,
            None,
        ),
        case(
            "the throne occupied by the king is hostile to attackers (king as far piece)",
            ("Kf6 sf7 Sf10 sb10", "d"),
            &["f10f8"],
            ("Kf6 Sf8 sb10", "a"),
            None,
            None,
        ),
        case(
            "board edge not hostile",
            ("Sa5 sc5 Kj9", "a"),
            &["c5b5"],
            ("Sa5 sb5 Kj9", "d"),
            None,
            None,
        ),
        case(
            "moving into a sandwich is safe",
            ("sd5 sf5 Se9 Kj9", "d"),
            &["e9e5"],
            ("sd5 Se5 sf5 Kj9", "a"),
            None,
            None,
        ),
        case(
            "only the moved piece's neighbours are examined",
            ("sd5 Se5 sf5 sb2 Kj9", "a"),
            &["b2b3"],
            ("sd5 Se5 sf5 sb3 Kj9", "d"),
            None,
            None,
        ),
        case(
            "the armed king captures as the moving piece",
            ("Kd8 se5 Sf5 sb10", "d"),
            &["d8d5"],
            ("Kd5 Sf5 sb10", "a"),
            None,
            None,
        ),
        case(
            "the king completes a sandwich as the far piece",
            ("Kg5 sf5 Se9 sb10", "d"),
            &["e9e5"],
            ("Se5 Kg5 sb10", "a"),
            None,
            None,
        ),
        case(
            "king captured by two attackers in a line",
            ("Kc3 sb3 sd9 Sj9", "a"),
            &["d9d3"],
            ("sb3 sd3 Sj9", "d"),
            captured(),
            Some(&[]),
        ),
        case(
            "king beside the empty throne captured by one attacker",
            ("Kg6 si6 Sj9", "a"),
            &["i6h6"],
            ("sh6 Sj9", "d"),
            captured(),
            Some(&[]),
        ),
        case(
            "king beside a corner captured by one attacker",
            ("Ka2 sa5 Sj9", "a"),
            &["a5a3"],
            ("sa3 Sj9", "d"),
            captured(),
            Some(&[]),
        ),
        case(
            "king on the throne captured by two in a line",
            ("Kf6 se6 sg9 Sj9", "a"),
            &["g9g6"],
            ("se6 sg6 Sj9", "d"),
            captured(),
            Some(&[]),
        ),
        case(
            "the board edge does not help capture the king",
            ("Ka5 sc5 sb9 Sj9", "a"),
            &["b9b5"],
            ("Ka5 sb5 sc5 Sj9", "d"),
            None,
            None,
        ),
        case(
            "king reaching a corner wins and still captures",
            ("Ka5 sb1 Sc1 sj9", "d"),
            &["a5a1"],
            ("Ka1 Sc1 sj9", "a"),
            Some(Outcome::win(Player::Second, EndReason::KingEscaped)),
            Some(&[]),
        ),
        case(
            "soldiers never land on corners or the throne, but pass the empty throne",
            ("sf3 sa2 Kj9", "a"),
            &[],
            ("sf3 sa2 Kj9", "a"),
            None,
            Some(&[
                "f3f4", "f3f5", "f3f7", "f3f8", "f3f9", "f3f10", "f3f11", "f3f2", "f3f1", "f3e3",
                "f3d3", "f3c3", "f3b3", "f3a3", "f3g3", "f3h3", "f3i3", "f3j3", "f3k3", "a2a3",
                "a2a4", "a2a5", "a2a6", "a2a7", "a2a8", "a2a9", "a2a10", "a2b2", "a2c2", "a2d2",
                "a2e2", "a2f2", "a2g2", "a2h2", "a2i2", "a2j2", "a2k2",
            ]),
        ),
        case(
            "the king may land on the throne",
            ("Kf5 sb10", "d"),
            &[],
            ("Kf5 sb10", "d"),
            None,
            Some(&[
                "f5f6", "f5f7", "f5f8", "f5f9", "f5f10", "f5f11", "f5f4", "f5f3", "f5f2", "f5f1",
                "f5e5", "f5d5", "f5c5", "f5b5", "f5a5", "f5g5", "f5h5", "f5i5", "f5j5", "f5k5",
            ]),
        ),
        case(
            "no legal move: draw",
            ("Kj9 Sb2", "a"),
            &[],
            ("Kj9 Sb2", "a"),
            draw,
            Some(&[]),
        ),
        case(
            "the third identical action is refused (a2a3 played twice)",
            ("sa2 Sa4 Sb2 sk6 Kj9", "a"),
            &[
                "a2a3", "j9j10", "a3a2", "j10j9", "a2a3", "j9j8", "a3a2", "j8j9",
            ],
            ("sa2 Sa4 Sb2 sk6 Kj9", "a"),
            None,
            Some(&[
                "k6k7", "k6k8", "k6k9", "k6k10", "k6k5", "k6k4", "k6k3", "k6k2", "k6j6", "k6i6",
                "k6h6", "k6g6", "k6e6", "k6d6", "k6c6", "k6b6", "k6a6",
            ]),
        ),
        case(
            "every action refused by repetition: no legal action, draw",
            ("sa2 Sa4 Sb2 Sb3 Kj9", "a"),
            &[
                "a2a3", "j9j10", "a3a2", "j10j9", "a2a3", "j9j8", "a3a2", "j8j9",
            ],
            ("sa2 Sa4 Sb2 Sb3 Kj9", "a"),
            draw,
            Some(&[]),
        ),
        case(
            "repetition counts per side: the defenders may play a5a4 the attackers played twice",
            ("sa5 Sa8 Kj9", "a"),
            &[
                "a5a4", "a8a7", "a4a5", "a7a8", "a5a4", "a8a6", "a4b4", "a6a5", "b4b3", "a5a4",
            ],
            ("Sa4 sb3 Kj9", "a"),
            None,
            None,
        ),
    ];
    run_cases::<Hnefatafl>(&cases);
}

#[test]
fn start_position_and_text() {
    let g = Hnefatafl::start();
    assert_eq!(g.to_text(), rules::tafl::HNEFATAFL_START);
    assert_eq!(g.side_to_move(), Player::First);
    assert_eq!(g.legal_vec().len(), 116);
    let with_fields = format!("{} 0000/0000 -", rules::tafl::HNEFATAFL_START);
    assert_eq!(pos::<Hnefatafl>(&with_fields).to_text(), g.to_text());
    assert_eq!(
        g.position_hash(),
        pos::<Hnefatafl>(&with_fields).position_hash()
    );
}

#[test]
fn bad_position_texts_are_typed_errors() {
    let bad = |t: &str| Hnefatafl::from_text(t).err();
    assert!(matches!(bad("11/11 a"), Some(PositionError::Board(_))));
    assert!(matches!(
        bad(&setup("Kf6", "x")),
        Some(PositionError::Field { .. })
    ));
    assert!(matches!(
        bad(&setup("Kf6", "")),
        Some(PositionError::FieldCount { .. })
    ));
    assert!(matches!(
        bad(&setup("Kf6", "a 0000/0000")),
        Some(PositionError::FieldCount { .. })
    ));
    assert_eq!(
        bad(&setup("Kf6 Tb2", "a")),
        Some(PositionError::BadChar { ch: 'T' })
    );
    assert_eq!(
        bad(&setup("Kf6 kb2", "a")),
        Some(PositionError::BadChar { ch: 'k' })
    );
    assert!(matches!(
        bad(&setup("Kf6 sb2", "a 3333/3333 -")),
        Some(PositionError::Illegal(_))
    ));
    assert!(matches!(
        bad(&setup("Kf6 Kb2", "a")),
        Some(PositionError::Illegal(_))
    ));
    assert!(matches!(
        bad(&setup("Sf6 Kb2", "a")),
        Some(PositionError::Illegal(_))
    ));
    assert!(matches!(
        bad(&setup("sa1 Kb2", "a")),
        Some(PositionError::Illegal(_))
    ));
}

#[test]
fn bad_moves_are_typed_errors() {
    let g = Hnefatafl::start();
    for m in ["", "d1", "d1d", "z1z2", "d1d3d5", "h:d1d3x"] {
        assert!(
            matches!(g.parse_move(m), Err(ActionError::Malformed { .. })),
            "{m}"
        );
    }
    for m in [
        "d1e2",
        "d1d6",
        "f6f7",
        "h:d1d3",
        "f:e5",
        "x:e5d4",
        "g:d1d2d2d1",
        "e5e4",
    ] {
        assert_eq!(
            g.parse_move(m),
            Err(ActionError::Illegal {
                text: m.to_string()
            }),
            "{m}"
        );
    }
    let over: Hnefatafl = pos(&setup("Kj9 Sb2", "a"));
    assert_eq!(over.parse_move("b2b3"), Err(ActionError::GameOver));
}

/// Perft to depth 4 by three paths: the generic action perft, full-turn
/// enumeration and atomic walking. Counts measured: 116, 6788, 806344,
/// 50456804.
#[test]
fn perft_depth_4_agrees_between_methods() {
    let g = Hnefatafl::start();
    let measured = [116u64, 6_788, 806_344, 50_456_804];
    for (d, &n) in (1..=4).zip(&measured) {
        let turns = rules::tafl::perft_turns(g.state(), d);
        assert_eq!(turns, rules::tafl::perft_atomic(g.state(), d), "depth {d}");
        assert_eq!(turns, rules::perft(&g, d), "depth {d}");
        assert_eq!(turns, n, "depth {d}");
    }
}

#[test]
#[ignore = "slow: depth 5"]
fn perft_depth_5_agrees_between_methods() {
    let g = Hnefatafl::start();
    assert_eq!(
        rules::tafl::perft_turns(g.state(), 5),
        rules::tafl::perft_atomic(g.state(), 5)
    );
}

/// `win_candidates` marks exactly the winning king escape and king capture
/// here, and every marked-out action really does not win.
#[test]
fn win_candidates_mark_the_escape_and_the_capture() {
    let candidates = |text: &str| -> Vec<(String, bool)> {
        let g = Hnefatafl::from_text(text).unwrap();
        let legal = g.legal_vec();
        let mut flags = Vec::new();
        g.win_candidates(&legal, &mut flags);
        legal
            .iter()
            .zip(flags)
            .map(|(&a, f)| (g.action_to_text(a), f))
            .collect()
    };
    let marked = |c: &[(String, bool)]| -> Vec<String> {
        c.iter()
            .filter(|(_, f)| *f)
            .map(|(t, _)| t.clone())
            .collect()
    };
    // Defenders: the king on b1 reaches the corner a1 or, along the empty
    // first rank, k1.
    let escape = candidates("11/11/11/11/11/10s/11/11/11/11/1K9 d");
    let mut m = marked(&escape);
    m.sort();
    assert_eq!(m, vec!["b1a1", "b1k1"]);
    let mut g = Hnefatafl::from_text("11/11/11/11/11/10s/11/11/11/11/1K9 d").unwrap();
    g.play(g.parse_move("b1a1").unwrap()[0]);
    assert_eq!(g.outcome().unwrap().reason, EndReason::KingEscaped);
    // Attackers: g5g3 sandwiches the king on f3 against e3; every move
    // landing next to the king is a candidate, nothing else.
    let capture = candidates("11/11/11/11/11/11/6s4/11/4sK5/11/11 a");
    let m = marked(&capture);
    assert!(m.contains(&"g5g3".to_string()), "{m:?}");
    assert!(
        m.iter()
            .all(|t| ["f2", "f4", "g3"].iter().any(|sq| t.ends_with(sq))),
        "{m:?}"
    );
    let mut g = Hnefatafl::from_text("11/11/11/11/11/11/6s4/11/4sK5/11/11 a").unwrap();
    g.play(g.parse_move("g5g3").unwrap()[0]);
    assert_eq!(g.outcome(), captured());
}
