//! Resignation in self-play with a measured false-positive rate.
//!
//! Source: AlphaGo Zero (Silver et al., Nature 2017, "Mastering the game of
//! Go without human knowledge", Methods, "Self-play"): a player resigns when
//! its search value falls below a threshold `v_resign`; resignation is
//! disabled in a fraction of games (10 % there), which are played out, and
//! `v_resign` is chosen so that fewer than 5 % of the games that *would*
//! have been resigned were in fact not lost (the false positives).
//!
//! Here the value is the root's `W - L` from the side to move (in
//! `[-1, 1]`), and a player resigns after `consecutive` own searched moves
//! in a row at or below the threshold (one bad search is not enough). A
//! draw counts as a false positive: resigning turns it into a loss.
//!
//! The mechanism is split in two: [`ResignTracker`] follows one game (it
//! says when to resign, and in a played-out game it records the lowest
//! threshold at which each player *would* have resigned), and
//! [`false_positive_rate`] / [`calibrate_threshold`] turn the played-out
//! games of a generation into the measured rate and the next threshold.

use std::collections::VecDeque;

use rules::Player;
use serde::{Deserialize, Serialize};

/// One player of one played-out game (resignation disabled).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResignSample {
    /// The lowest threshold at which this player would have resigned: the
    /// minimum over windows of `consecutive` own searched moves of the
    /// window's highest value. The player resigns at threshold `t` iff
    /// `resign_value <= t`.
    pub resign_value: f32,
    /// The game's result for this player: 1 win, 0 draw, -1 loss.
    pub score: f32,
}

/// Follows one game's root values for both players.
#[derive(Clone, Debug)]
pub struct ResignTracker {
    /// Resignation allowed in this game (false: played out and measured).
    enabled: bool,
    consecutive: usize,
    /// The last `consecutive` root values of each player ([First, Second]).
    recent: [VecDeque<f32>; 2],
    /// Per player, the lowest window maximum seen so far.
    resign_value: [Option<f32>; 2],
}

fn index(p: Player) -> usize {
    match p {
        Player::First => 0,
        Player::Second => 1,
    }
}

impl ResignTracker {
    /// A tracker for a game where resignation is `enabled` (false for the
    /// played-out games that measure false positives), resigning after
    /// `consecutive` (at least 1) own values at or below the threshold.
    pub fn new(enabled: bool, consecutive: u32) -> Self {
        ResignTracker {
            enabled,
            consecutive: consecutive.max(1) as usize,
            recent: [VecDeque::new(), VecDeque::new()],
            resign_value: [None, None],
        }
    }

    /// Whether resignation is allowed in this game.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Record `value` (root `W - L` of a finished search, from `player`'s
    /// view) and return whether `player` resigns now: resignation enabled
    /// and its last `consecutive` values all `<= threshold`.
    pub fn observe(&mut self, player: Player, value: f32, threshold: f32) -> bool {
        let i = index(player);
        let recent = &mut self.recent[i];
        if recent.len() == self.consecutive {
            recent.pop_front();
        }
        recent.push_back(value);
        if recent.len() < self.consecutive {
            return false;
        }
        let window_max = recent.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let lowest = self.resign_value[i].map_or(window_max, |v| v.min(window_max));
        self.resign_value[i] = Some(lowest);
        self.enabled && window_max <= threshold
    }

    /// The samples of a finished played-out game (none when resignation was
    /// enabled: those games stop at the resignation, so their results say
    /// nothing about false positives). `winner` is `None` for a draw.
    pub fn samples(&self, winner: Option<Player>) -> Vec<ResignSample> {
        if self.enabled {
            return Vec::new();
        }
        [Player::First, Player::Second]
            .into_iter()
            .filter_map(|p| {
                let score = match winner {
                    None => 0.0,
                    Some(w) if w == p => 1.0,
                    Some(_) => -1.0,
                };
                self.resign_value[index(p)].map(|resign_value| ResignSample {
                    resign_value,
                    score,
                })
            })
            .collect()
    }
}

/// The false-positive rate at `threshold`: of the played-out players who
/// would have resigned (`resign_value <= threshold`), the fraction that
/// did not lose. `None` when none would have resigned. Also returns how
/// many would have.
pub fn false_positive_rate(samples: &[ResignSample], threshold: f32) -> Option<(f64, usize)> {
    let would: Vec<&ResignSample> = samples
        .iter()
        .filter(|s| s.resign_value <= threshold)
        .collect();
    if would.is_empty() {
        return None;
    }
    let false_pos = would.iter().filter(|s| s.score > -1.0).count();
    Some((false_pos as f64 / would.len() as f64, would.len()))
}

/// The next threshold: the highest `t <= ceiling` (and `>= -1`) whose
/// false-positive rate on `samples` is at most `target`. Candidates are the
/// sample values themselves (the rate only changes there) and `ceiling`.
/// With a false positive already at the lowest sample, the threshold goes
/// just below it, so no played-out player of this generation would have
/// resigned. Without samples the `current` threshold is kept.
pub fn calibrate_threshold(
    samples: &[ResignSample],
    target: f64,
    current: f32,
    ceiling: f32,
) -> f32 {
    if samples.is_empty() {
        return current;
    }
    let mut sorted: Vec<ResignSample> = samples.to_vec();
    sorted.sort_by(|a, b| a.resign_value.total_cmp(&b.resign_value));
    let mut best: Option<f32> = None;
    let mut false_pos = 0usize;
    for (i, s) in sorted.iter().enumerate() {
        false_pos += (s.score > -1.0) as usize;
        // Ties: the rate at `t` counts every sample with that value.
        let last_of_value = sorted
            .get(i + 1)
            .is_none_or(|n| n.resign_value > s.resign_value);
        if last_of_value && s.resign_value <= ceiling && false_pos as f64 <= target * (i + 1) as f64
        {
            best = Some(s.resign_value);
        }
    }
    let lowest = sorted[0].resign_value;
    let threshold = match best {
        // Every would-be resignation up to `ceiling` is within the target:
        // the ceiling itself is as good as the highest sample below it.
        Some(b) if false_positive_rate(samples, ceiling).is_some_and(|(r, _)| r <= target) => {
            b.max(ceiling)
        }
        Some(b) => b,
        None => lowest - 0.01,
    };
    threshold.clamp(-1.0, ceiling)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(resign_value: f32, score: f32) -> ResignSample {
        ResignSample {
            resign_value,
            score,
        }
    }

    #[test]
    fn resigns_after_consecutive_low_values_only() {
        let mut t = ResignTracker::new(true, 2);
        assert!(!t.observe(Player::First, -0.95, -0.9));
        // The other player's values do not count toward First's streak.
        assert!(!t.observe(Player::Second, 0.95, -0.9));
        assert!(t.observe(Player::First, -0.92, -0.9));
        // A value above the threshold breaks the streak.
        let mut t = ResignTracker::new(true, 2);
        assert!(!t.observe(Player::First, -0.95, -0.9));
        assert!(!t.observe(Player::First, -0.5, -0.9));
        assert!(!t.observe(Player::First, -0.95, -0.9));
        assert!(t.observe(Player::First, -0.99, -0.9));
    }

    #[test]
    fn played_out_games_record_the_would_be_threshold() {
        let mut t = ResignTracker::new(false, 2);
        // First: windows (-0.2,-0.8)->-0.2, (-0.8,-0.95)->-0.8, (-0.95,-0.3)->-0.3.
        for v in [-0.2, -0.8, -0.95, -0.3] {
            assert!(
                !t.observe(Player::First, v, -0.5),
                "never resigns when disabled"
            );
        }
        // Second has a single value: no full window, no sample.
        t.observe(Player::Second, -1.0, -0.5);
        assert_eq!(t.samples(None), vec![s(-0.8, 0.0)]);
        assert_eq!(t.samples(Some(Player::Second)), vec![s(-0.8, -1.0)]);
        // Enabled games give no samples.
        let mut t = ResignTracker::new(true, 1);
        t.observe(Player::First, -0.1, -0.9);
        assert!(t.samples(Some(Player::First)).is_empty());
    }

    #[test]
    fn false_positive_rate_by_hand() {
        let samples = [
            s(-0.99, -1.0),
            s(-0.95, -1.0),
            s(-0.9, 0.0),
            s(-0.6, 1.0),
            s(0.1, 1.0),
        ];
        assert_eq!(false_positive_rate(&samples, -1.0), None);
        assert_eq!(false_positive_rate(&samples, -0.95), Some((0.0, 2)));
        assert_eq!(false_positive_rate(&samples, -0.9), Some((1.0 / 3.0, 3)));
        assert_eq!(false_positive_rate(&samples, -0.6), Some((0.5, 4)));
    }

    #[test]
    fn calibration_picks_the_highest_threshold_within_target() {
        let samples = [s(-0.99, -1.0), s(-0.95, -1.0), s(-0.9, 0.0), s(-0.6, 1.0)];
        // Target 0: up to -0.95 every would-be resignation lost.
        assert_eq!(calibrate_threshold(&samples, 0.0, -0.8, -0.5), -0.95);
        // Target 0.34 admits -0.9 (1 of 3), not -0.6 (2 of 4).
        assert_eq!(calibrate_threshold(&samples, 0.34, -0.8, -0.5), -0.9);
        // Never above the ceiling.
        assert_eq!(calibrate_threshold(&samples, 1.0, -0.8, -0.7), -0.7);
        // A false positive at the lowest value: just below it.
        let bad = [s(-0.98, 0.0), s(-0.97, -1.0)];
        assert!((calibrate_threshold(&bad, 0.05, -0.9, -0.5) - -0.99).abs() < 1e-6);
        // No samples: keep the current threshold.
        assert_eq!(calibrate_threshold(&[], 0.05, -0.9, -0.5), -0.9);
        // All lost: the ceiling.
        let lost = [s(-0.99, -1.0), s(-0.8, -1.0)];
        assert_eq!(calibrate_threshold(&lost, 0.05, -0.9, -0.5), -0.5);
    }
}
