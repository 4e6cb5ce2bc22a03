//! What a self-play call counts: games, positions, searches, evaluations
//! and the resignation figures.

use serde::{Deserialize, Serialize};

use crate::resign::ResignSample;

/// Statistics of a self-play call.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SelfPlayStats {
    /// Games finished.
    pub games: usize,
    /// Positions with a recorded search target.
    pub positions: usize,
    /// Plies played (all moves, recorded or not).
    pub plies: usize,
    /// Network evaluations requested.
    pub evaluations: u64,
    /// Moves searched with the full budget (recorded unless the position
    /// had a single legal action, which is never searched).
    #[serde(default)]
    pub full_searches: usize,
    /// Moves searched with the fast budget (playout cap randomisation; not recorded).
    #[serde(default)]
    pub fast_searches: usize,
    /// Of `games`, those read back from disk (a resumed generation), not
    /// played by this call; `reused_plies` likewise.
    #[serde(default)]
    pub reused_games: usize,
    /// Plies of the reused games.
    #[serde(default)]
    pub reused_plies: usize,
    /// Resignation was on (`SelfPlayConfig::resign`).
    #[serde(default)]
    pub resign_on: bool,
    /// Games ended by a resignation.
    #[serde(default)]
    pub resigned: usize,
    /// Games with resignation disabled and played out (resignation on).
    #[serde(default)]
    pub played_out: usize,
    /// Would-be resignations of the played-out games, for the
    /// false-positive rate ([`crate::resign::false_positive_rate`]).
    #[serde(default)]
    pub resign_samples: Vec<ResignSample>,
}

impl SelfPlayStats {
    /// Add `other`'s counts to these.
    pub fn merge(&mut self, other: SelfPlayStats) {
        self.games += other.games;
        self.positions += other.positions;
        self.plies += other.plies;
        self.evaluations += other.evaluations;
        self.full_searches += other.full_searches;
        self.fast_searches += other.fast_searches;
        self.reused_games += other.reused_games;
        self.reused_plies += other.reused_plies;
        self.resign_on |= other.resign_on;
        self.resigned += other.resigned;
        self.played_out += other.played_out;
        self.resign_samples.extend(other.resign_samples);
    }
}
