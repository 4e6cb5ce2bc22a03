//! Match results as counts: [`WdlCounts`], the record that matches tally
//! and that Elo ([`crate::elo`]), SPRT ([`crate::sprt`]) and ladders read.
//! A module of its own so those modules import it from here rather than
//! from `matches`, which itself uses Elo and SPRT.

use serde::Serialize;

/// Win/draw/loss counts of a match from player A's view (whole games;
/// [`search::Wdl`] is the other WDL: a position's win/draw/loss
/// probabilities).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WdlCounts {
    /// Games A won.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Games A lost.
    pub losses: u32,
}

impl WdlCounts {
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
