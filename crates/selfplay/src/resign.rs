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

/// Fewest played-out samples [`calibrate_threshold`] acts on; with fewer
/// the threshold stays where it is (one or two games are noise).
pub const MIN_CALIBRATION_SAMPLES: usize = 10;

/// The next threshold: as high as the samples allow (at most `ceiling`,
/// at least -1) with a false-positive rate of at most `target`.
///
/// The rate only changes at sample values. Scanning them upward, the last
/// value `v` whose rate is within the target is acceptable, and so is every
/// threshold up to the next sample value `v'` (same would-be resignations):
/// the result is the midpoint of `v` and `v'` (not `v'` itself, which the
/// data rules out), or `ceiling` when no sample up to `ceiling` breaks the
/// target. When even the lowest sample is a false positive beyond the
/// target, the threshold goes just below it. With fewer than
/// [`MIN_CALIBRATION_SAMPLES`] samples `current` is kept.
pub fn calibrate_threshold(
    samples: &[ResignSample],
    target: f64,
    current: f32,
    ceiling: f32,
) -> f32 {
    if samples.len() < MIN_CALIBRATION_SAMPLES {
        return current.clamp(-1.0, ceiling);
    }
    let mut sorted: Vec<ResignSample> = samples
        .iter()
        .copied()
        .filter(|s| s.resign_value <= ceiling)
        .collect();
    sorted.sort_by(|a, b| a.resign_value.total_cmp(&b.resign_value));
    let Some(lowest) = sorted.first().map(|s| s.resign_value) else {
        // Nobody would resign even at the ceiling: the ceiling is safe.
        return ceiling;
    };
    // Index of the last sample of the last acceptable group of equal values.
    let mut last_ok: Option<usize> = None;
    let mut false_pos = 0usize;
    for (i, s) in sorted.iter().enumerate() {
        false_pos += (s.score > -1.0) as usize;
        let end_of_group = sorted
            .get(i + 1)
            .is_none_or(|n| n.resign_value > s.resign_value);
        if end_of_group && false_pos as f64 <= target * (i + 1) as f64 {
            last_ok = Some(i);
        }
    }
    let threshold = match last_ok {
        Some(i) => match sorted.get(i + 1) {
            Some(next) => 0.5 * (sorted[i].resign_value + next.resign_value),
            None => ceiling,
        },
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

    /// Each sample three times: 12 samples, the same rates.
    fn thrice(samples: &[ResignSample]) -> Vec<ResignSample> {
        samples.iter().flat_map(|s| [*s; 3]).collect()
    }

    #[test]
    fn calibration_picks_the_highest_threshold_within_target() {
        let samples = thrice(&[s(-0.99, -1.0), s(-0.95, -1.0), s(-0.9, 0.0), s(-0.6, 1.0)]);
        // Target 0: every would-be resignation up to -0.95 lost; -0.9 is a
        // draw, so the threshold stops halfway between.
        assert!((calibrate_threshold(&samples, 0.0, -0.8, -0.5) - -0.925).abs() < 1e-6);
        // Target 0.34 admits -0.9 (3 of 9), not -0.6 (6 of 12).
        assert!((calibrate_threshold(&samples, 0.34, -0.8, -0.5) - -0.75).abs() < 1e-6);
        // Never above the ceiling; samples above it do not count.
        assert_eq!(calibrate_threshold(&samples, 1.0, -0.8, -0.7), -0.7);
        // A false positive at the lowest value: just below it.
        let bad = thrice(&[s(-0.98, 0.0), s(-0.97, -1.0), s(-0.96, 0.0), s(-0.5, -1.0)]);
        assert!((calibrate_threshold(&bad, 0.05, -0.9, -0.5) - -0.99).abs() < 1e-6);
        // Too few samples: keep the current threshold.
        assert_eq!(calibrate_threshold(&samples[..9], 0.05, -0.9, -0.5), -0.9);
        // All lost: the ceiling.
        let lost = thrice(&[s(-0.99, -1.0), s(-0.8, -1.0), s(-0.7, -1.0), s(-0.6, -1.0)]);
        assert_eq!(calibrate_threshold(&lost, 0.05, -0.9, -0.5), -0.5);
        // Nobody below the ceiling: the ceiling.
        let high = thrice(&[s(0.1, 1.0), s(0.2, 0.0), s(0.3, 1.0), s(0.4, 1.0)]);
        assert_eq!(calibrate_threshold(&high, 0.05, -0.9, -0.5), -0.5);
    }

    #[test]
    fn a_threshold_with_no_false_positive_is_not_lowered() {
        // At the current -0.15 every would-be resignation lost; the next
        // value, -0.1, is a win: the threshold goes up to halfway, not down.
        let samples = thrice(&[s(-0.9, -1.0), s(-0.7, -1.0), s(-0.2, -1.0), s(-0.1, 1.0)]);
        assert_eq!(false_positive_rate(&samples, -0.15), Some((0.0, 9)));
        let next = calibrate_threshold(&samples, 0.05, -0.15, 0.0);
        assert!(next >= -0.15 && (next - -0.15).abs() < 1e-6, "{next}");
    }
}
