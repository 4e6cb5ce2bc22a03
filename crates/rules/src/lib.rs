//! Exact rules of the lokizero variants.
//!
//! Every variant implements [`Game`]: legal actions, play, outcome, position
//! text (FEN-like) and action text, a position hash for repetition, and
//! [`perft`]. The authoritative rulings are `shared/RULES.md`; each variant
//! module cites its section.
//!
//! Turns need not alternate (Shakti passes, Loki's multi-part actions), so
//! callers must always ask [`Game::side_to_move`] instead of assuming parity.

pub mod bitset;
pub mod chess;
pub mod game;
pub mod geometry;
pub mod perft;
pub mod variant;
pub mod zobrist;

pub mod shakti;
pub mod tafl;

pub use chess::{Losers, Viking};
pub use game::{ActionError, EndReason, Game, Outcome, Player, PositionError};
pub use geometry::Geometry;
pub use perft::{perft, perft_divide};
pub use shakti::{Shakti, ShaktiAction};
pub use tafl::{Hnefatafl, Loki};
pub use variant::VariantId;

/// Run `$body` with the type alias `$G` bound to the game type of the
/// runtime variant id `$variant`; variants not built yet evaluate
/// `$missing` (a value of the same type as `$body`, e.g. an error).
///
/// ```
/// let name = rules::with_variant!(rules::VariantId::Shakti, G => <G as rules::Game>::VARIANT.as_str(), else "missing");
/// assert_eq!(name, "shakti");
/// ```
#[macro_export]
macro_rules! with_variant {
    ($variant:expr, $G:ident => $body:expr, else $missing:expr) => {
        match $variant {
            $crate::VariantId::Shakti => {
                type $G = $crate::Shakti;
                $body
            }
            $crate::VariantId::Losers => {
                type $G = $crate::Losers;
                $body
            }
            $crate::VariantId::Viking => {
                type $G = $crate::Viking;
                $body
            }
            $crate::VariantId::Hnefatafl => {
                type $G = $crate::Hnefatafl;
                $body
            }
            $crate::VariantId::Loki => {
                type $G = $crate::Loki;
                $body
            }
            #[allow(unreachable_patterns)]
            _ => $missing,
        }
    };
}
