//! Game clocks for matches at a real time control (`--tc 60+0.6`): each
//! side's time left, the increment, and how a player learns them.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use rules::Player as Side;

/// A time control: `base` on each side's clock at the start, `increment`
/// added after each of its turns (Fischer). Written `BASE+INC` in seconds,
/// e.g. `60+0.6`, or `BASE` alone for no increment (plain decimal
/// digits: no sign, exponent or `inf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Each side's time at the start.
    pub base: Duration,
    /// Added to a side's clock when its turn ends.
    pub increment: Duration,
}

/// A time control text that is not `BASE[+INC]` in seconds with a base
/// above zero.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad time control `{0}`: expected BASE+INC or BASE in seconds, plain digits (e.g. 60+0.6 or 10), the base above 0 and each at most 1000000")]
pub struct TimeControlError(pub String);

impl FromStr for TimeControl {
    type Err = TimeControlError;

    fn from_str(text: &str) -> Result<Self, TimeControlError> {
        let bad = || TimeControlError(text.to_string());
        let (base, inc) = text.trim().split_once('+').unwrap_or((text.trim(), "0"));
        let secs = |t: &str| {
            search::parse_plain_seconds(t)
                .filter(|s| s.is_finite() && *s >= 0.0 && *s <= 1_000_000.0)
                .map(Duration::from_secs_f64)
        };
        match (secs(base), secs(inc)) {
            (Some(base), Some(increment)) if !base.is_zero() => Ok(TimeControl { base, increment }),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}+{}",
            self.base.as_secs_f64(),
            self.increment.as_secs_f64()
        )
    }
}

/// Both clocks of a game as a player is told them before it moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameClock {
    /// Time left, indexed by [`Side::index`].
    pub remaining: [Duration; 2],
    /// The increment of both sides.
    pub increment: Duration,
    /// The side about to move.
    pub to_move: Side,
}

impl GameClock {
    /// The clock of the side to move, as the time manager reads it.
    pub fn own(&self) -> bot::Clock {
        bot::Clock {
            remaining: self.remaining[self.to_move.index()],
            increment: self.increment,
            moves_to_go: None,
        }
    }

    /// The UCI `go` line of these clocks (`go wtime .. btime .. winc ..
    /// binc ..`, milliseconds; the first player is White).
    pub fn go_command(&self) -> String {
        let ms = |d: Duration| d.as_millis();
        format!(
            "go wtime {} btime {} winc {} binc {}",
            ms(self.remaining[0]),
            ms(self.remaining[1]),
            ms(self.increment),
            ms(self.increment)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_parse_and_print() {
        let tc: TimeControl = "60+0.6".parse().unwrap();
        assert_eq!(tc.base, Duration::from_secs(60));
        assert_eq!(tc.increment, Duration::from_millis(600));
        assert_eq!(tc.to_string(), "60+0.6");
        assert_eq!(
            "10".parse::<TimeControl>().unwrap().increment,
            Duration::ZERO
        );
        for bad in [
            "",
            "0+1",
            "-5+1",
            "abc",
            "60+x",
            "inf+0",
            "1e1+0",
            "+5",
            ".5+0",
            "60+1.",
            "60+-1",
            "60 + 1",
            "1000001+0",
        ] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_go_line_names_both_clocks() {
        let clock = GameClock {
            remaining: [Duration::from_millis(1500), Duration::from_secs(2)],
            increment: Duration::from_millis(100),
            to_move: Side::Second,
        };
        assert_eq!(
            clock.go_command(),
            "go wtime 1500 btime 2000 winc 100 binc 100"
        );
        assert_eq!(clock.own().remaining, Duration::from_secs(2));
    }
}
