//! Time management: how long to think about one move under a UCI clock.

use std::time::Duration;

/// The clock state a UCI `go` gives for the side to move (milliseconds
/// converted to [`Duration`]s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Time left on the side to move's clock.
    pub remaining: Duration,
    /// Increment added after each move.
    pub increment: Duration,
    /// Moves until the next time control (`movestogo`); `None` = sudden
    /// death (the rest of the game on this clock).
    pub moves_to_go: Option<u32>,
}

/// Moves the rest of a sudden-death game is assumed to last.
pub const SUDDEN_DEATH_MOVES: u32 = 30;

impl Clock {
    /// The thinking time for this move, never more than the time left minus
    /// `overhead` (the transmission and GUI delay the engine must leave).
    ///
    /// With `T` = remaining - overhead (at least 0), `I` = increment and
    /// `m` = moves to go (30 for sudden death):
    /// `budget = min(T / m + 3/4 I, T / 2)`, or `min(T / m + 3/4 I, 4/5 T)`
    /// for the last move before a time control (`m = 1`). Spending a fixed
    /// share of the remaining time plus most of the increment is the
    /// classic scheme of chess engines (e.g. Stockfish's `TimeManagement`
    /// before its refinements); the cap keeps a reserve, so the clock never
    /// falls below `overhead` as long as the increment covers the overhead.
    pub fn budget(&self, overhead: Duration) -> Duration {
        let (share, cap) = self.share_and_cap(overhead);
        share.min(cap)
    }

    /// The share of the clock a move takes and the cap on any move (see
    /// [`Clock::budget`]).
    fn share_and_cap(&self, overhead: Duration) -> (Duration, Duration) {
        let t = self.remaining.saturating_sub(overhead);
        let m = self.moves_to_go.unwrap_or(SUDDEN_DEATH_MOVES).max(1);
        let share = t / m + self.increment * 3 / 4;
        let cap = if m == 1 { t * 4 / 5 } else { t / 2 };
        (share, cap)
    }

    /// The longest this move may take when its root stays unclear
    /// ([`search::Budget::time_max`]): [`EXTENSION`] times the share of
    /// [`Clock::budget`], within the same cap (half the time left, four
    /// fifths before a time control) and at most a tenth of the time left,
    /// so a low clock is not spent on thinking longer. At least
    /// [`Clock::budget`].
    pub fn extended(&self, overhead: Duration) -> Duration {
        let (share, cap) = self.share_and_cap(overhead);
        let left = self.remaining.saturating_sub(overhead);
        (share * EXTENSION)
            .min(cap)
            .min(left / 10)
            .max(self.budget(overhead))
    }
}

/// How many times its usual share of the clock a move with an unclear
/// root may take ([`Clock::extended`]).
pub const EXTENSION: u32 = 2;

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn sudden_death_with_increment() {
        let c = Clock {
            remaining: MS(60_050),
            increment: MS(1000),
            moves_to_go: None,
        };
        // (60050 - 50) / 30 + 750 = 2750 ms
        assert_eq!(c.budget(MS(50)), MS(2750));
    }

    #[test]
    fn an_unclear_move_may_take_twice_its_share_within_the_cap() {
        let c = Clock {
            remaining: MS(60_050),
            increment: MS(1000),
            moves_to_go: None,
        };
        // Twice the 2750 ms share.
        assert_eq!(c.extended(MS(50)), MS(5500));
        let low = Clock {
            remaining: MS(3_050),
            ..c
        };
        // share 100 + 750 = 850 ms; twice is 1700, but a tenth of the
        // 3000 ms left is 300: no extension on a low clock.
        assert_eq!(low.budget(MS(50)), MS(850));
        assert_eq!(low.extended(MS(50)), MS(850));
        let mid = Clock {
            remaining: MS(20_050),
            ..c
        };
        // share 666 + 750 = 1416 ms; twice 2833, a tenth of 20 s is 2000.
        assert_eq!(mid.extended(MS(50)), MS(2000));
        let empty = Clock {
            remaining: MS(20),
            ..c
        };
        assert_eq!(empty.extended(MS(50)), MS(0));
    }

    #[test]
    fn low_clock_keeps_a_reserve() {
        let c = Clock {
            remaining: MS(150),
            increment: MS(1000),
            moves_to_go: None,
        };
        // share 100/30 + 750 = 753 ms, capped at half of 100 ms
        assert_eq!(c.budget(MS(50)), MS(50));
        let empty = Clock {
            remaining: MS(20),
            ..c
        };
        assert_eq!(empty.budget(MS(50)), MS(0));
    }

    #[test]
    fn moves_to_go_one_uses_most_of_the_time() {
        let c = Clock {
            remaining: MS(10_000),
            increment: MS(0),
            moves_to_go: Some(1),
        };
        assert_eq!(c.budget(MS(0)), MS(8000));
        let c40 = Clock {
            moves_to_go: Some(40),
            ..c
        };
        assert_eq!(c40.budget(MS(0)), MS(250));
    }
}
