//! One-ply greedy baseline: win at once if possible, never make a move that
//! loses at once, otherwise maximise the rules' static value of the
//! position after the action ([`rules::Game::static_value`], ties broken
//! at random). Each variant's value is in its rules module:
//! - `losers`: fewer own pieces and more enemy pieces is better (material
//!   counted with the usual 1/3/3/5/9 values; the goal is to lose it all).
//! - `viking`: material difference ([`rules::Game::material`]), plus half a
//!   pawn for giving check.
//! - `shakti`: warriors difference, plus half a warrior for giving check.
//! - `hnefatafl`, `loki`: material difference (every non-king piece 1),
//!   and the king's distance to the nearest corner (defenders want it
//!   small, attackers large), 0.25 per step.
//!
//! A variant without a value of its own gets [`rules::Game::material`]
//! (0 without one): nothing here is per variant.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rules::{Game, Player as Side};

use crate::player::Contestant;

/// A static evaluation for the greedy player: the rules' static value
/// ([`rules::Game::static_value`]) from one side's view. Every game has
/// it.
pub trait Heuristic: Game {
    /// Value of this position for `side`, in pawn-like units (higher is
    /// better for `side`). Called on non-terminal positions.
    fn heuristic(&self, side: Side) -> f64;
}

impl<G: Game> Heuristic for G {
    fn heuristic(&self, side: Side) -> f64 {
        let value = f64::from(self.static_value());
        match side {
            Side::First => value,
            Side::Second => -value,
        }
    }
}

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
    fn heuristic_counts_each_variant_s_way() {
        // Losers: White has given its queen away, which is progress.
        let g =
            rules::Losers::from_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR b KQkq - 0 1")
                .unwrap();
        assert_eq!(g.heuristic(Side::First), 9.0);
        assert_eq!(g.heuristic(Side::Second), -9.0);
        // Viking: the material of `Game::material` and half a pawn for the
        // check the rook on a4 gives.
        let v = rules::Viking::from_text("k11/12/12/R11/12/12/11K b - - 0 1").unwrap();
        assert_eq!(v.material(), Some(5.0));
        assert_eq!(v.heuristic(Side::First), 5.5);
        assert_eq!(v.heuristic(Side::Second), -5.5);
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
