//! Exact rules of the lokizero variants.
//!
//! Every variant implements [`Game`]: legal actions, play, outcome, position
//! text (FEN-like) and action text, a position hash for repetition, and
//! [`perft`]. The authoritative rulings are `shared/RULES.md`; each variant
//! module cites its section.
//!
//! Turns need not alternate (Shakti passes, Loki's multi-part actions), so
//! callers must always ask [`Game::side_to_move`] instead of assuming parity.

pub mod game;
pub mod geometry;
pub mod perft;
pub mod variant;
pub mod zobrist;

pub mod shakti;
pub mod tafl;

pub use game::{ActionError, EndReason, Game, Outcome, Player, PositionError};
pub use geometry::Geometry;
pub use perft::{perft, perft_divide};
pub use tafl::{Hnefatafl, Loki};
pub use variant::VariantId;
