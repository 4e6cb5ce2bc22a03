//! Losers encoding: policy map injective and invertible on legal moves of
//! random-game positions; input planes from the side to move's view.

use encoding::{ChessPolicy, Encode};
use rules::{Game, Losers};
use std::collections::HashSet;

fn random_positions(games: usize, plies: usize, mut seed: u64) -> Vec<Losers> {
    let mut out = Vec::new();
    for _ in 0..games {
        let mut g = Losers::start();
        for _ in 0..plies {
            let moves = g.legal_vec();
            if moves.is_empty() {
                break;
            }
            out.push(g.clone());
            seed = rules::zobrist::splitmix64(seed);
            g.play(moves[(seed % moves.len() as u64) as usize]);
        }
    }
    out
}

#[test]
fn layout_sizes() {
    assert_eq!(Losers::INPUT_PLANES, 23);
    assert_eq!(Losers::POLICY_PLANES, 73);
    assert_eq!(Losers::SYMMETRIES, 1);
    assert_eq!(Losers::policy_len(), 73 * 64);
}

#[test]
fn policy_index_is_injective_and_decodes_back() {
    let positions = random_positions(60, 200, 7);
    assert!(positions.len() > 5000);
    for g in &positions {
        let moves = g.legal_vec();
        let mut seen = HashSet::new();
        for &m in &moves {
            let idx = g.policy_index(m);
            assert!(idx < Losers::policy_len());
            assert!(
                seen.insert(idx),
                "{} collides in {}",
                g.action_to_text(m),
                g.to_text()
            );
            assert_eq!(g.action_from_index(idx), Some(m));
        }
    }
    let g = Losers::start();
    assert_eq!(g.action_from_index(Losers::policy_len()), None);
    assert_eq!(g.action_from_index(0), None, "a1 north 1: blocked by a2");
}

#[test]
fn known_moves_land_on_documented_planes() {
    let g = Losers::start();
    let idx = |t: &str| g.policy_index(g.parse_move(t).expect("legal")[0]);
    // e2e4: N (dir 0), distance 2 -> plane 1, origin e2 = 12.
    assert_eq!(idx("e2e4"), 64 + 12);
    // g1f3: knight offset (-1, 2) is index 7 -> plane 56 + 7, origin g1 = 6.
    assert_eq!(idx("g1f3"), (56 + 7) * 64 + 6);
    // Black's e7e5 is e2e4 of the flipped board.
    let mut b = g.clone();
    b.play(g.parse_move("e2e4").expect("legal")[0]);
    let e7e5 = b.parse_move("e7e5").expect("legal")[0];
    assert_eq!(b.policy_index(e7e5), 64 + 12);
    // Under-promotion: plane 56 + 8 + 3 * piece + (df + 1).
    let p = Losers::from_text("7k/1P5p/8/8/8/8/8/K7 w - - 0 1").expect("fen");
    let under = p.parse_move("b7b8n").expect("legal")[0];
    assert_eq!(p.policy_index(under), (64 + 1) * 64 + 49);
    let queen = p.parse_move("b7b8q").expect("legal")[0];
    assert_eq!(p.policy_index(queen), 49);
}

#[test]
fn input_planes_are_from_the_side_to_move() {
    let mut g = Losers::start();
    g.play(g.parse_move("e2e4").expect("legal")[0]);
    let mut x = vec![-1.0; Losers::input_len()];
    g.encode(&mut x);
    let plane = |p: usize| &x[p * 64..(p + 1) * 64];
    // Black to move, flipped: its pawns on network rank 2 (squares 8..16).
    assert!(plane(0)[8..16].iter().all(|&v| v == 1.0));
    assert_eq!(plane(0).iter().sum::<f32>(), 8.0);
    // White's e4 pawn (rank index 3) appears flipped on rank index 4.
    assert_eq!(plane(6)[4 * 8 + 4], 1.0);
    assert_eq!(plane(6)[3 * 8 + 4], 0.0);
    // White's remaining pawns on rank index 6 (rank 2 flipped).
    assert_eq!(plane(6)[48..56].iter().sum::<f32>(), 7.0);
    assert!(plane(15).iter().all(|&v| v == 1.0) && plane(14).iter().all(|&v| v == 0.0));
    assert!(plane(17).iter().all(|&v| v == 1.0));
    for p in 18..22 {
        assert!(plane(p).iter().all(|&v| v == 1.0), "castling plane {p}");
    }
    assert!(
        plane(22).iter().all(|&v| v == 0.0),
        "no capture on e3: no ep square"
    );
    let ep = Losers::from_text("4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1").expect("fen");
    ep.encode(&mut x);
    // d3 = 19, flipped for Black -> rank 5, file d = 43.
    assert_eq!(x[22 * 64 + 43], 1.0);
    assert_eq!(x[22 * 64..23 * 64].iter().sum::<f32>(), 1.0);
}
