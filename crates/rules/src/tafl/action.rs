//! Atomic sub-decisions: what the search and the network choose between
//! (`docs/rules.md` §4, last paragraph).
//!
//! A plain move, a hop and a freeze are one action each. An exchange is two:
//! [`TaflAction::ExchangeTarget`] (the enemy piece) then
//! [`TaflAction::ExchangePartner`] (the own piece). A command is one or two:
//! [`TaflAction::CommandFirst`] (the commanded piece's first move, played at
//! once with its captures) then [`TaflAction::CommandSecond`], unless the
//! game ended on the first move. Between the parts the side to move is
//! unchanged and `mid_turn()` is true.
//!
//! Text of the atomic actions (`action_to_text`), context free:
//!
//! | action                    | text       |
//! |---------------------------|------------|
//! | `Move { d1, d3 }`         | `d1d3`     |
//! | `Hop { d1, d3 }`          | `h:d1d3`   |
//! | `Freeze(e5)`              | `f:e5`     |
//! | `ExchangeTarget(e5)`      | `x:e5`     |
//! | `ExchangePartner(d4)`     | `x>d4`     |
//! | `CommandFirst { d4, d6 }` | `g:d4d6`   |
//! | `CommandSecond { d6, f6 }`| `g>d6f6`   |
//!
//! [`turn_text`] joins the actions of one completed turn into its token
//! (`x:e5` + `x>d4` = `x:e5d4`, `g:d4d6` + `g>d6f6` = `g:d4d6d6f6`).

use std::fmt;

use super::board::GEOMETRY;

/// One atomic sub-decision. Squares are `rank * 11 + file`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TaflAction {
    /// Plain rook move (a whole turn).
    Move {
        /// The piece's square.
        from: u8,
        /// The empty square it moves to.
        to: u8,
    },
    /// Hop (a whole turn).
    Hop {
        /// The Horse's square.
        from: u8,
        /// The square it lands on.
        to: u8,
    },
    /// Freeze the enemy piece on the square (a whole turn).
    Freeze(u8),
    /// Exchange, part 1: the enemy piece to swap.
    ExchangeTarget(u8),
    /// Exchange, part 2: the own piece to swap with it (ends the turn).
    ExchangePartner(u8),
    /// Command, part 1: the commanded piece's first move.
    CommandFirst {
        /// The commanded piece's square.
        from: u8,
        /// Where it stops after its first move.
        to: u8,
    },
    /// Command, part 2: the same piece's second move (ends the turn).
    CommandSecond {
        /// The piece's square after its first move.
        from: u8,
        /// Where it ends the turn.
        to: u8,
    },
}

impl fmt::Display for TaflAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = |s: u8| GEOMETRY.name(s as usize);
        match *self {
            TaflAction::Move { from, to } => write!(f, "{}{}", n(from), n(to)),
            TaflAction::Hop { from, to } => write!(f, "h:{}{}", n(from), n(to)),
            TaflAction::Freeze(t) => write!(f, "f:{}", n(t)),
            TaflAction::ExchangeTarget(t) => write!(f, "x:{}", n(t)),
            TaflAction::ExchangePartner(o) => write!(f, "x>{}", n(o)),
            TaflAction::CommandFirst { from, to } => write!(f, "g:{}{}", n(from), n(to)),
            TaflAction::CommandSecond { from, to } => write!(f, "g>{}{}", n(from), n(to)),
        }
    }
}

/// The token of one completed turn from its atomic actions, e.g.
/// `[ExchangeTarget(e5), ExchangePartner(d4)]` -> `x:e5d4`
/// (`docs/rules.md` §4 notation). The text of each action is appended
/// without its `x>`/`g>` continuation marker.
pub fn turn_text(actions: &[TaflAction]) -> String {
    let mut out = String::new();
    for a in actions {
        let text = a.to_string();
        match a {
            TaflAction::ExchangePartner(_) | TaflAction::CommandSecond { .. } => {
                out.push_str(&text[2..])
            }
            _ => out.push_str(&text),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turn_text_joins_parts() {
        let sq = |s: &str| GEOMETRY.parse_square(s).unwrap() as u8;
        let x = [
            TaflAction::ExchangeTarget(sq("e5")),
            TaflAction::ExchangePartner(sq("d4")),
        ];
        assert_eq!(turn_text(&x), "x:e5d4");
        let g = [
            TaflAction::CommandFirst {
                from: sq("d4"),
                to: sq("d6"),
            },
            TaflAction::CommandSecond {
                from: sq("d6"),
                to: sq("f6"),
            },
        ];
        assert_eq!(turn_text(&g), "g:d4d6d6f6");
        assert_eq!(turn_text(&g[..1]), "g:d4d6");
        assert_eq!(
            turn_text(&[TaflAction::Move {
                from: sq("k10"),
                to: sq("k11")
            }]),
            "k10k11"
        );
    }
}
