//! Full turns and their one-token notation (`docs/rules.md` §4,
//! "Notation of actions"): `d1d3`, `h:d1d3`, `f:e5`, `x:e5d4`,
//! `g:d4d6d6f6` / `g:d4d6`.
//!
//! A turn is what the repetition ban counts; [`crate::tafl::TaflAction`] is
//! the atomic sub-decision the search sees.

use std::fmt;

use super::board::{GEOMETRY, NO_SQUARE};
use crate::NotationError;

/// One complete turn. Squares are `rank * 11 + file`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Turn {
    /// Plain rook move `d1d3`.
    Move {
        /// The piece's square.
        from: u8,
        /// The empty square it moves to.
        to: u8,
    },
    /// Hop `h:d1d3` (Horse power).
    Hop {
        /// The Horse's square.
        from: u8,
        /// The square it lands on.
        to: u8,
    },
    /// Freeze `f:e5` of the enemy piece on `target` (Wizard power).
    Freeze {
        /// The frozen enemy piece's square.
        target: u8,
    },
    /// Exchange `x:e5d4`: the enemy piece on `enemy` swaps with the own
    /// piece on `own` (Trickster power).
    Exchange {
        /// The enemy piece's square.
        enemy: u8,
        /// The own piece's square.
        own: u8,
    },
    /// Command `g:d4d6d6f6`: the piece on `from` moves to `mid`, then to
    /// `to`; `to` is `None` (`g:d4d6`) when the game ended on the first
    /// move (General power).
    Command {
        /// The commanded piece's square.
        from: u8,
        /// Where its first move stops.
        mid: u8,
        /// Where its second move ends (`None` if the game ended at `mid`).
        to: Option<u8>,
    },
}

impl Turn {
    /// Compact code identifying the token (what the repetition ban compares).
    pub fn code(self) -> u32 {
        let pack = |kind: u32, a: u8, b: u8, c: u8| {
            (kind << 21) | (u32::from(a) << 14) | (u32::from(b) << 7) | u32::from(c)
        };
        match self {
            Turn::Move { from, to } => pack(0, from, to, NO_SQUARE),
            Turn::Hop { from, to } => pack(1, from, to, NO_SQUARE),
            Turn::Freeze { target } => pack(2, target, NO_SQUARE, NO_SQUARE),
            Turn::Exchange { enemy, own } => pack(3, enemy, own, NO_SQUARE),
            Turn::Command { from, mid, to } => pack(4, from, mid, to.unwrap_or(NO_SQUARE)),
        }
    }

    /// Parse one token. Checks the notation only, not legality.
    ///
    /// # Errors
    /// The [`NotationError`] saying what is wrong with the token.
    pub fn parse(text: &str) -> Result<Turn, NotationError> {
        let (prefix, rest) = match text.split_once(':') {
            Some((p, r)) => (Some(p), r),
            None => (None, text),
        };
        let squares = parse_squares(rest)?;
        let sq = |i: usize| squares[i] as u8;
        match (prefix, squares.len()) {
            (None, 2) => Ok(Turn::Move {
                from: sq(0),
                to: sq(1),
            }),
            (Some("h"), 2) => Ok(Turn::Hop {
                from: sq(0),
                to: sq(1),
            }),
            (Some("f"), 1) => Ok(Turn::Freeze { target: sq(0) }),
            (Some("x"), 2) => Ok(Turn::Exchange {
                enemy: sq(0),
                own: sq(1),
            }),
            (Some("g"), 2) => Ok(Turn::Command {
                from: sq(0),
                mid: sq(1),
                to: None,
            }),
            (Some("g"), 4) if squares[1] == squares[2] => Ok(Turn::Command {
                from: sq(0),
                mid: sq(1),
                to: Some(sq(3)),
            }),
            (Some("g"), 4) => Err(NotationError::BrokenCommand),
            (Some(p), _) if !["h", "f", "x", "g"].contains(&p) => {
                Err(NotationError::UnknownPrefix(p.to_string()))
            }
            (_, n) => Err(NotationError::SquareCount(n)),
        }
    }
}

/// Split a run of square names (`d1d3`, `k10k11`).
fn parse_squares(mut text: &str) -> Result<Vec<usize>, NotationError> {
    let mut out = Vec::new();
    while !text.is_empty() {
        let (sq, used) =
            GEOMETRY
                .parse_square_prefix(text)
                .ok_or_else(|| NotationError::MissingSquare {
                    which: format!("{text:?}"),
                })?;
        out.push(sq);
        text = &text[used..];
    }
    if out.is_empty() {
        return Err(NotationError::NoSquares);
    }
    Ok(out)
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = |s: u8| GEOMETRY.name(s as usize);
        match *self {
            Turn::Move { from, to } => write!(f, "{}{}", n(from), n(to)),
            Turn::Hop { from, to } => write!(f, "h:{}{}", n(from), n(to)),
            Turn::Freeze { target } => write!(f, "f:{}", n(target)),
            Turn::Exchange { enemy, own } => write!(f, "x:{}{}", n(enemy), n(own)),
            Turn::Command {
                from,
                mid,
                to: None,
            } => write!(f, "g:{}{}", n(from), n(mid)),
            Turn::Command {
                from,
                mid,
                to: Some(to),
            } => write!(f, "g:{}{}{}{}", n(from), n(mid), n(mid), n(to)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip() {
        for t in [
            "d1d3",
            "k10k11",
            "h:d1d3",
            "f:e5",
            "x:e5d4",
            "g:d4d6d6f6",
            "g:d4d6",
        ] {
            assert_eq!(Turn::parse(t).map(|t| t.to_string()), Ok(t.to_string()));
        }
        for bad in [
            "",
            "d1",
            "d1d3d5",
            "q:d1d3",
            "g:d4d6d7f7",
            "f:e5e6",
            "z1d3",
            "x:e5",
        ] {
            assert!(Turn::parse(bad).is_err(), "{bad}");
        }
    }
}
