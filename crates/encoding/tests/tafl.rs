//! `hnefatafl` and `loki` encodings: the policy map is injective on legal
//! actions, and every D4 symmetry maps legal actions, inputs and policy
//! indices consistently with a transformed position built from text.

use encoding::tafl::tafl_map_square;
use encoding::{transform_input, transform_policy_index, Encode};
use rules::tafl::board::{GEOMETRY, SQUARES};
use rules::tafl::state::{COMMAND, EXCHANGE, FREEZE, HOP};
use rules::tafl::{Hnefatafl, Loki, Tafl, TaflAction};
use rules::zobrist::splitmix64;
use rules::{Game, Player};
use std::collections::HashSet;

trait TaflGame: Encode<Action = TaflAction> {
    fn tafl(&self) -> &Tafl;
    const LOKI: bool;
}
impl TaflGame for Hnefatafl {
    fn tafl(&self) -> &Tafl {
        self.state()
    }
    const LOKI: bool = false;
}
impl TaflGame for Loki {
    fn tafl(&self) -> &Tafl {
        self.state()
    }
    const LOKI: bool = true;
}

/// Position text of `t` transformed by symmetry `sym` (turn start only).
fn transformed_text(t: &Tafl, sym: usize, loki: bool) -> String {
    let mut cells = vec![None; SQUARES];
    for sq in 0..SQUARES {
        cells[tafl_map_square(sym, sq)] = t.piece_at(sq).map(|p| p.to_char());
    }
    let board = GEOMETRY.format_board(&cells, |c| c);
    let side = if t.side() == Player::First { "a" } else { "d" };
    if !loki {
        return format!("{board} {side}");
    }
    let uses = |s: Player| -> String {
        [EXCHANGE, COMMAND, FREEZE, HOP]
            .iter()
            .map(|&p| t.uses(s, p).to_string())
            .collect()
    };
    let frozen: Vec<String> = (0..SQUARES)
        .filter(|&sq| t.frozen() & (1u128 << sq) != 0)
        .map(|sq| format!("{}:1", GEOMETRY.name(tafl_map_square(sym, sq))))
        .collect();
    let frozen = if frozen.is_empty() {
        "-".to_string()
    } else {
        format!("f={}", frozen.join(","))
    };
    format!(
        "{board} {side} {}/{} {frozen}",
        uses(Player::First),
        uses(Player::Second)
    )
}

fn map_action(sym: usize, a: TaflAction) -> TaflAction {
    let m = |s: u8| tafl_map_square(sym, s as usize) as u8;
    match a {
        TaflAction::Move { from, to } => TaflAction::Move {
            from: m(from),
            to: m(to),
        },
        TaflAction::Hop { from, to } => TaflAction::Hop {
            from: m(from),
            to: m(to),
        },
        TaflAction::Freeze(t) => TaflAction::Freeze(m(t)),
        TaflAction::ExchangeTarget(t) => TaflAction::ExchangeTarget(m(t)),
        TaflAction::ExchangePartner(o) => TaflAction::ExchangePartner(m(o)),
        TaflAction::CommandFirst { from, to } => TaflAction::CommandFirst {
            from: m(from),
            to: m(to),
        },
        TaflAction::CommandSecond { from, to } => TaflAction::CommandSecond {
            from: m(from),
            to: m(to),
        },
    }
}

fn encoded<G: Encode>(g: &G) -> Vec<f32> {
    let mut v = vec![f32::NAN; G::input_len()];
    g.encode(&mut v);
    v
}

/// Policy indices are in range and distinct on the legal actions.
fn check_injective<G: TaflGame>(g: &G) -> usize {
    let legal = g.legal_vec();
    let idx: HashSet<usize> = legal.iter().map(|&a| g.policy_index(a)).collect();
    assert_eq!(idx.len(), legal.len(), "{}", g.to_text());
    assert!(idx.iter().all(|&i| i < G::policy_len()));
    legal.len()
}

/// `image` is `g` transformed by `sym`: same legal actions mapped, the
/// transformed input, and the transformed policy indices.
fn check_image<G: TaflGame>(g: &G, image: &G, sym: usize) {
    let mapped: HashSet<TaflAction> = g
        .legal_vec()
        .into_iter()
        .map(|a| map_action(sym, a))
        .collect();
    let legal: HashSet<TaflAction> = image.legal_vec().into_iter().collect();
    assert_eq!(mapped, legal, "sym {sym}: {}", g.to_text());
    let mut t = vec![0.0; G::input_len()];
    transform_input::<G>(sym, &encoded(g), &mut t);
    assert_eq!(t, encoded(image), "sym {sym}: {}", g.to_text());
    for a in g.legal_vec() {
        assert_eq!(
            image.policy_index(map_action(sym, a)),
            transform_policy_index::<G>(sym, g.policy_index(a)),
            "sym {sym} {a:?}"
        );
    }
}

/// Random legal games; at every turn start check injectivity and all 8
/// symmetries, also after one random first part of a split turn.
fn check_random_games<G: TaflGame>(games: u64, plies: usize) -> (usize, usize) {
    let (mut positions, mut mid) = (0, 0);
    let mut rng = 0x5EED_u64;
    for _ in 0..games {
        let mut g = G::start();
        for _ in 0..plies {
            if g.outcome().is_some() {
                break;
            }
            if !g.mid_turn() && !g.tafl().has_refusals() {
                positions += 1;
                check_injective(&g);
                let splits: Vec<TaflAction> = g
                    .legal_vec()
                    .into_iter()
                    .filter(|a| {
                        matches!(
                            a,
                            TaflAction::ExchangeTarget(_) | TaflAction::CommandFirst { .. }
                        )
                    })
                    .collect();
                rng = splitmix64(rng);
                let split = (!splits.is_empty()).then(|| splits[rng as usize % splits.len()]);
                for sym in 0..G::SYMMETRIES {
                    let image = G::from_text(&transformed_text(g.tafl(), sym, G::LOKI))
                        .unwrap_or_else(|e| panic!("sym {sym}: {e}"));
                    check_image(&g, &image, sym);
                    if let Some(a) = split {
                        let (mut c, mut ci) = (g.clone(), image.clone());
                        c.play(a);
                        ci.play(map_action(sym, a));
                        if c.mid_turn() {
                            check_injective(&c);
                            check_image(&c, &ci, sym);
                            mid += 1;
                        }
                    }
                }
            }
            let legal = g.legal_vec();
            rng = splitmix64(rng);
            g.play(legal[rng as usize % legal.len()]);
        }
    }
    (positions, mid)
}

#[test]
fn hnefatafl_policy_injective_and_symmetries_consistent() {
    let (positions, _) = check_random_games::<Hnefatafl>(8, 120);
    assert!(positions > 500, "{positions}");
}

#[test]
fn loki_policy_injective_and_symmetries_consistent() {
    let (positions, mid) = check_random_games::<Loki>(6, 80);
    assert!(positions > 200 && mid > 100, "{positions} {mid}");
}

#[test]
fn symmetry_group_is_d4_with_identity_first() {
    for sq in 0..SQUARES {
        assert_eq!(tafl_map_square(0, sq), sq);
    }
    // The eight images of b1 are distinct: the group has 8 elements.
    let b1 = GEOMETRY.parse_square("b1").unwrap();
    let images: HashSet<usize> = (0..8).map(|s| tafl_map_square(s, b1)).collect();
    assert_eq!(images.len(), 8);
    // Throne fixed, corners permuted.
    let throne = GEOMETRY.parse_square("f6").unwrap();
    assert!((0..8).all(|s| tafl_map_square(s, throne) == throne));
    assert_eq!(GEOMETRY.name(tafl_map_square(1, 0)), "k1");
}

#[test]
fn start_encoding_planes() {
    let g = Loki::start();
    let v = encoded(&g);
    let area = SQUARES;
    let count = |p: usize| {
        v[p * area..(p + 1) * area]
            .iter()
            .filter(|&&x| x == 1.0)
            .count()
    };
    assert_eq!(count(0), 20); // attackers' soldiers
    assert_eq!(count(5), 8); // defenders' soldiers
    assert_eq!(count(10), 1); // king
    assert_eq!(
        (1..5).chain(6..10).map(count).collect::<Vec<_>>(),
        vec![1; 8]
    );
    assert_eq!(count(17), 0); // attackers to move
    assert!(v[18 * area..26 * area].iter().all(|&x| x == 1.0)); // 3 uses / 3
    assert_eq!(count(26), area);
    assert_eq!(<Hnefatafl as Encode>::POLICY_PLANES, 40);
}
