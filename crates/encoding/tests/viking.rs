//! Viking encoding: policy map injective and invertible, and the
//! left-right mirror with colours swapped maps legal move sets and inputs.

use encoding::{transform_input, transform_policy_index, ChessPolicy, Encode};
use rules::{Game, Viking};
use std::collections::HashSet;

fn random_positions(games: usize, plies: usize, mut seed: u64) -> Vec<Viking> {
    let mut out = Vec::new();
    for _ in 0..games {
        let mut g = Viking::start();
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

/// The position mirrored left-right with colours (and side to move) swapped.
fn mirrored_text(fen: &str) -> String {
    let fields: Vec<&str> = fen.split(' ').collect();
    let rows: Vec<String> = fields[0]
        .split('/')
        .map(|row| {
            let mut cells = Vec::new();
            let mut digits = String::new();
            for c in row.chars() {
                if c.is_ascii_digit() {
                    digits.push(c);
                    continue;
                }
                if !digits.is_empty() {
                    cells.extend(std::iter::repeat_n(None, digits.parse().expect("run")));
                    digits.clear();
                }
                cells.push(Some(c));
            }
            if !digits.is_empty() {
                cells.extend(std::iter::repeat_n(None, digits.parse().expect("run")));
            }
            cells.reverse();
            let mut out = String::new();
            let mut empty = 0;
            for cell in cells {
                match cell {
                    None => empty += 1,
                    Some(c) => {
                        if empty > 0 {
                            out.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let swapped = if c.is_ascii_uppercase() {
                            c.to_ascii_lowercase()
                        } else {
                            c.to_ascii_uppercase()
                        };
                        out.push(swapped);
                    }
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            out
        })
        .collect();
    let side = if fields[1] == "w" { "b" } else { "w" };
    format!("{} {side} - - {} {}", rows.join("/"), fields[4], fields[5])
}

#[test]
fn layout_sizes() {
    assert_eq!(Viking::INPUT_PLANES, 18);
    assert_eq!(Viking::POLICY_PLANES, 8 * 11 + 8 + 9);
    assert_eq!(Viking::SYMMETRIES, 2);
    assert_eq!(Viking::policy_len(), 105 * 84);
}

#[test]
fn policy_index_is_injective_and_decodes_back() {
    let positions = random_positions(40, 250, 11);
    assert!(positions.len() > 5000);
    for g in &positions {
        let mut seen = HashSet::new();
        for m in g.legal_vec() {
            let idx = g.policy_index(m);
            assert!(idx < Viking::policy_len());
            assert!(
                seen.insert(idx),
                "{} collides in {}",
                g.action_to_text(m),
                g.to_text()
            );
            assert_eq!(g.action_from_index(idx), Some(m));
        }
    }
}

#[test]
fn long_rank_moves_use_distances_up_to_11() {
    let g = Viking::from_text("r10R/12/12/12/12/12/K9k1 w - - 0 1").expect("fen");
    let m = g.parse_move("l7a7").expect("legal")[0];
    // W is direction 6; distance 11 -> plane 6 * 11 + 10; origin l7 = 83.
    assert_eq!(g.policy_index(m), (6 * 11 + 10) * 84 + 83);
}

#[test]
fn mirror_with_colours_swapped_maps_moves_and_inputs() {
    let positions = random_positions(30, 200, 5);
    let area = 84;
    for g in positions.iter().step_by(7) {
        // Encode both through from_text so neither carries a history.
        let p = Viking::from_text(&g.to_text()).expect("fen");
        let q = Viking::from_text(&mirrored_text(&g.to_text())).expect("mirrored fen");
        let mapped: HashSet<usize> = p
            .legal_vec()
            .into_iter()
            .map(|m| transform_policy_index::<Viking>(1, p.policy_index(m)))
            .collect();
        let direct: HashSet<usize> = q
            .legal_vec()
            .into_iter()
            .map(|m| q.policy_index(m))
            .collect();
        assert_eq!(mapped, direct, "{}", g.to_text());
        assert_eq!(
            p.outcome(),
            q.outcome().map(|o| rules::Outcome {
                winner: o.winner.map(|w| w.opponent()),
                reason: o.reason,
            })
        );
        let mut x = vec![0.0; Viking::input_len()];
        let mut y = vec![0.0; Viking::input_len()];
        let mut t = vec![0.0; Viking::input_len()];
        p.encode(&mut x);
        q.encode(&mut y);
        transform_input::<Viking>(1, &x, &mut t);
        assert_eq!(t, y, "{}", g.to_text());
        assert_eq!(t.len(), Viking::INPUT_PLANES * area);
    }
    let start = Viking::start();
    assert_eq!(
        mirrored_text(&start.to_text()).replace(" b ", " w "),
        start.to_text()
    );
}

#[test]
fn symmetry_maps_are_involutions() {
    for sq in 0..84 {
        assert_eq!(Viking::map_square(1, Viking::map_square(1, sq)), sq);
        assert_eq!(Viking::map_square(0, sq), sq);
    }
    for plane in 0..Viking::POLICY_PLANES {
        assert_eq!(
            Viking::map_policy_plane(1, Viking::map_policy_plane(1, plane)),
            plane
        );
    }
    for plane in 0..Viking::INPUT_PLANES {
        assert_eq!(
            Viking::map_input_plane(1, Viking::map_input_plane(1, plane)),
            plane
        );
    }
}

#[test]
fn input_planes_are_not_flipped_for_black() {
    let mut g = Viking::start();
    g.play(g.parse_move("b3b4").expect("legal")[0]);
    let mut x = vec![0.0; Viking::input_len()];
    g.encode(&mut x);
    // Black to move: its king j1 (square 9) is on the own-king plane as is.
    assert_eq!(x[5 * 84 + 9], 1.0);
    assert_eq!(x[11 * 84 + 2], 1.0, "White king c1 on the opponent plane");
    assert_eq!(x[15 * 84], 1.0);
    assert_eq!(x[14 * 84], 0.0);
}
