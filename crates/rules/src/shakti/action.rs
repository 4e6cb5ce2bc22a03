//! Shakti actions and their text (`docs/rules.md` §5, Notation).

use super::rays::SQUARES;
use crate::{Geometry, NotationError};

/// The 7x7 board geometry (square names `a1..g7`).
pub const GEOMETRY: Geometry = Geometry::new(7, 7);

/// Text of the pass action. docs/rules.md §5 makes a forced pass part of the
/// game but gives it no notation; the project writes it `pass` (the UCI
/// convention for a null move, `0000`, is *not* used, so a pass in a game
/// record can never be mistaken for a corrupt move).
pub const PASS_TEXT: &str = "pass";

/// One Shakti action (`docs/rules.md` §5). Squares are `rank * 7 + file`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShaktiAction {
    /// A king or warrior moves to a tile on one of its lines; a king in
    /// check that steps onto an enemy warrior captures it.
    Step {
        /// Origin square (keeps its tile).
        from: u8,
        /// Destination square.
        to: u8,
    },
    /// A warrior moves to the second tile it sees; the first tile (`over`)
    /// is removed and becomes a hole.
    Jump {
        /// Origin square (keeps its tile).
        from: u8,
        /// The first tile seen, removed by the jump.
        over: u8,
        /// The second tile seen, the destination.
        to: u8,
    },
    /// The side to move is not in check and has no legal move (only then).
    Pass,
}

impl ShaktiAction {
    /// Origin square, `None` for a pass.
    pub fn from(self) -> Option<usize> {
        match self {
            ShaktiAction::Step { from, .. } | ShaktiAction::Jump { from, .. } => {
                Some(from as usize)
            }
            ShaktiAction::Pass => None,
        }
    }

    /// Destination square, `None` for a pass.
    pub fn to(self) -> Option<usize> {
        match self {
            ShaktiAction::Step { to, .. } | ShaktiAction::Jump { to, .. } => Some(to as usize),
            ShaktiAction::Pass => None,
        }
    }

    /// Move text: `b2d4` (from, to; a jump is written the same way, the
    /// removed tile is implied) or `pass`.
    pub fn text(self) -> String {
        match (self.from(), self.to()) {
            (Some(from), Some(to)) => format!("{}{}", GEOMETRY.name(from), GEOMETRY.name(to)),
            _ => PASS_TEXT.to_string(),
        }
    }
}

/// Check that `text` is in the notation (`pass`, or two square names);
/// the reason names what is wrong.
///
/// # Errors
/// [`NotationError::MissingSquare`] without a square a1..g7 where one is
/// needed, [`NotationError::SameSquare`] for one square twice.
pub fn check_well_formed(text: &str) -> Result<(), NotationError> {
    if text == PASS_TEXT {
        return Ok(());
    }
    let (from, used) =
        GEOMETRY
            .parse_square_prefix(text)
            .ok_or_else(|| NotationError::MissingSquare {
                which: "origin (or `pass`)".into(),
            })?;
    let rest = text.get(used..).unwrap_or("");
    let to = GEOMETRY
        .parse_square(rest)
        .ok_or_else(|| NotationError::MissingSquare {
            which: format!("destination in {rest:?}"),
        })?;
    if from == to || from >= SQUARES || to >= SQUARES {
        return Err(NotationError::SameSquare);
    }
    Ok(())
}
