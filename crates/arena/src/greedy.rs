//! One-ply greedy baseline: win at once if possible, never make a move that
//! loses at once, otherwise maximise a small per-variant heuristic of the
//! position after the action (ties broken at random).
//!
//! Each variant provides its data through [`Heuristic`]:
//! - `losers`: fewer own pieces and more enemy pieces is better (material
//!   counted with the usual 1/3/3/5/9 values; the goal is to lose it all).
//! - `viking`: material difference, plus half a pawn for giving check.
//! - `shakti`: warriors difference, plus half a warrior for giving check.
//! - `hnefatafl`, `loki`: material difference (every non-king piece 1),
//!   and the king's distance to the nearest corner (defenders want it
//!   small, attackers large), 0.25 per step.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rules::{Game, Player as Side};

use crate::player::Contestant;

/// A static evaluation for the greedy player; every variant of the list
/// (`rules::for_each_variant!`) has one.
pub trait Heuristic: Game {
    /// Value of this position for `side`, in pawn-like units (higher is
    /// better for `side`). Called on non-terminal positions.
    fn heuristic(&self, side: Side) -> f64;
}

/// Piece values summed by side from the board field of a chess FEN
/// (upper case = White = `First`).
fn chess_material(fen: &str) -> [f64; 2] {
    let mut m = [0.0; 2];
    for c in fen.split(' ').next().unwrap_or("").chars() {
        let v = match c.to_ascii_lowercase() {
            'p' | 'o' => 1.0,
            'n' | 'b' => 3.0,
            'r' => 5.0,
            'q' => 9.0,
            _ => 0.0,
        };
        m[usize::from(c.is_ascii_lowercase())] += v;
    }
    m
}

impl Heuristic for rules::Losers {
    fn heuristic(&self, side: Side) -> f64 {
        let m = chess_material(&self.to_text());
        m[side.opponent().index()] - m[side.index()]
    }
}

impl Heuristic for rules::Viking {
    fn heuristic(&self, side: Side) -> f64 {
        let m = chess_material(&self.to_text());
        let check = if self.in_check() && self.side_to_move() != side {
            0.5
        } else {
            0.0
        };
        m[side.index()] - m[side.opponent().index()] + check
    }
}

impl Heuristic for rules::Shakti {
    fn heuristic(&self, side: Side) -> f64 {
        let w = |s: Side| f64::from(self.warriors(s).count_ones());
        let check = if self.in_check() && self.side_to_move() != side {
            0.5
        } else {
            0.0
        };
        w(side) - w(side.opponent()) + check
    }
}

/// Tafl: pieces per side from the board field (attackers lower case) and
/// the king's distance (Chebyshev) to the nearest corner.
fn tafl_value(state: &rules::tafl::Tafl, side: Side) -> f64 {
    use rules::tafl::board::{CORNERS, SIZE};
    let mut count = [0.0; 2];
    for sq in 0..SIZE * SIZE {
        if let Some(p) = state.piece_at(sq) {
            if p.kind != rules::tafl::board::Kind::King {
                count[p.side.index()] += 1.0;
            }
        }
    }
    let dist = state.king_square().map_or(0.0, |k| {
        CORNERS
            .iter()
            .map(|&c| {
                let (kr, kf) = (k / SIZE, k % SIZE);
                let (cr, cf) = (c / SIZE, c % SIZE);
                kr.abs_diff(cr).max(kf.abs_diff(cf))
            })
            .min()
            .unwrap_or(0) as f64
    });
    // Defenders (Second) want the king near a corner.
    let king_term = match side {
        Side::Second => -0.25 * dist,
        Side::First => 0.25 * dist,
    };
    count[side.index()] - count[side.opponent().index()] + king_term
}

impl Heuristic for rules::Hnefatafl {
    fn heuristic(&self, side: Side) -> f64 {
        tafl_value(self.state(), side)
    }
}

impl Heuristic for rules::Loki {
    fn heuristic(&self, side: Side) -> f64 {
        tafl_value(self.state(), side)
    }
}

// Every variant of the list needs a heuristic (a new entry without one
// fails to compile here).
rules::every_variant_implements!(Heuristic);

/// The greedy player (module docs).
pub struct GreedyPlayer {
    rng: SmallRng,
}

impl GreedyPlayer {
    /// A greedy player; `seed` breaks ties.
    pub fn new(seed: u64) -> Self {
        GreedyPlayer {
            rng: SmallRng::seed_from_u64(seed),
        }
    }
}

/// Score of playing `action` in `game` for the mover: `+inf` for an
/// immediate win, `-inf` for an immediate loss, 0 for a draw, else the
/// heuristic.
pub fn greedy_score<G: Heuristic>(game: &G, action: G::Action) -> f64 {
    let me = game.side_to_move();
    let mut next = game.clone();
    next.play(action);
    match next.outcome() {
        Some(o) => match o.winner {
            Some(w) if w == me => f64::INFINITY,
            Some(_) => f64::NEG_INFINITY,
            None => 0.0,
        },
        None => next.heuristic(me),
    }
}

impl<G: Heuristic> Contestant<G> for GreedyPlayer {
    fn name(&self) -> String {
        "greedy".into()
    }
    fn choose(&mut self, game: &G) -> Option<G::Action> {
        let legal = game.legal_vec();
        let scores: Vec<f64> = legal.iter().map(|&a| greedy_score(game, a)).collect();
        let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let ties: Vec<usize> = (0..legal.len()).filter(|&i| scores[i] == best).collect();
        if ties.is_empty() {
            return None;
        }
        Some(legal[ties[self.rng.random_range(0..ties.len())]])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heuristic_of_start_positions() {
        let g = rules::Losers::start();
        assert_eq!(g.heuristic(Side::First), 0.0);
        let v = rules::Viking::start();
        assert_eq!(v.heuristic(Side::Second), 0.0);
        let s = rules::Shakti::start();
        assert_eq!(s.heuristic(Side::First), 0.0);
        let h = rules::Hnefatafl::start();
        // 24 attackers vs 12 defenders; king on the centre, 5 from a corner.
        assert_eq!(h.heuristic(Side::First), 12.0 + 1.25);
        assert_eq!(h.heuristic(Side::Second), -12.0 - 1.25);
    }

    #[test]
    fn greedy_plays_mate_in_one() {
        // Viking: Black king a7, White rooks b2 (holds the b-file) and h4,
        // White king l1. Rh4-a4 is the only mate.
        let g = rules::Viking::from_text("k11/12/12/7R4/12/1R10/11K w - - 0 1").unwrap();
        for seed in 0..5 {
            let mut p = GreedyPlayer::new(seed);
            let a = Contestant::<rules::Viking>::choose(&mut p, &g).unwrap();
            assert_eq!(g.action_to_text(a), "h4a4");
        }
    }
}
