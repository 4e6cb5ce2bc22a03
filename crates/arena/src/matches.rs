//! Matches: `n` games between two players, alternating colours, games in
//! parallel.

use rayon::prelude::*;
use rules::{Game, Player as Side};
use serde::Serialize;

use crate::game::{play_game, GameResult};
use crate::player::Player;

/// Win/draw/loss counts from player A's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Wdl {
    /// Games A won.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Games A lost.
    pub losses: u32,
}

impl Wdl {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }
    /// Score of A in `[0, 1]` (a draw counts one half).
    pub fn score(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games().max(1) as f64
    }
    /// Fraction of games A won.
    pub fn win_rate(&self) -> f64 {
        self.wins as f64 / self.games().max(1) as f64
    }
}

/// One finished game of a match.
#[derive(Clone, Debug)]
pub struct MatchGame {
    /// Game number (0-based); even games A plays first.
    pub index: usize,
    /// Whether A moved first.
    pub a_first: bool,
    /// The game.
    pub result: GameResult,
}

/// Play `games` games of A against B; game `i` has A moving first when
/// `i` is even. `make_a`/`make_b` build a fresh player per game (from the
/// game index, e.g. as a seed), so games run in parallel on `concurrency`
/// threads. `opening(i)` gives each game's start position (varied openings).
pub fn play_match<G, A, B>(
    games: usize,
    concurrency: usize,
    ply_cap: u32,
    opening: impl Fn(usize) -> G + Sync,
    make_a: A,
    make_b: B,
) -> (Wdl, Vec<MatchGame>)
where
    G: Game,
    A: Fn(usize) -> Box<dyn Player<G>> + Sync,
    B: Fn(usize) -> Box<dyn Player<G>> + Sync,
{
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(concurrency.max(1))
        .build();
    let run = || {
        (0..games)
            .into_par_iter()
            .map(|i| {
                let (mut a, mut b) = (make_a(i), make_b(i));
                let a_first = i % 2 == 0;
                let start = opening(i);
                let result = if a_first {
                    play_game(&start, a.as_mut(), b.as_mut(), ply_cap)
                } else {
                    play_game(&start, b.as_mut(), a.as_mut(), ply_cap)
                };
                MatchGame {
                    index: i,
                    a_first,
                    result,
                }
            })
            .collect::<Vec<_>>()
    };
    let played = match pool {
        Ok(pool) => pool.install(run),
        Err(_) => run(),
    };
    let mut wdl = Wdl::default();
    for g in &played {
        let a_side = if g.a_first { Side::First } else { Side::Second };
        match g.result.winner {
            None => wdl.draws += 1,
            Some(w) if w == a_side => wdl.wins += 1,
            Some(_) => wdl.losses += 1,
        }
    }
    (wdl, played)
}
