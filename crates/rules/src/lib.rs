//! Exact rules of the lokizero variants.
//!
//! Every variant implements [`Game`]: legal actions, play, outcome, position
//! text (FEN-like) and action text, a position hash for repetition, and
//! [`perft()`]. The authoritative rulings are `docs/rules.md`; each variant
//! module cites its section.
//!
//! Turns need not alternate (Shakti passes, Loki's multi-part actions), so
//! callers must always ask [`Game::side_to_move`] instead of assuming parity.
//!
//! Play moves from their text and count positions ([`perft()`]):
//! ```
//! use rules::{perft, Game, Losers};
//!
//! let mut game = Losers::start();
//! assert_eq!(perft(&game, 2), 400); // as in chess: no capture is possible yet
//! for token in ["e2e4", "d7d5"] {
//!     for action in game.parse_move(token).expect("a legal move") {
//!         game.play(action);
//!     }
//! }
//! // Captures are compulsory in Losers chess: exd5 is White's only move.
//! let legal = game.legal_vec();
//! assert_eq!(legal.len(), 1);
//! assert_eq!(game.action_to_text(legal[0]), "e4d5");
//! assert!(game.parse_move("g1f3").is_err());
//! ```

/// `impl Clone` for a game state whose only heap fields are the listed
/// `Vec`s (the other fields `Copy`), with a `clone_from` that reuses their
/// allocations. Why: the search copies its root into a scratch position
/// for every descent (`search::Mcts`, `clone_from`), and the derived
/// `clone_from` allocates a new history each time, then grows it on the
/// first move (1.7 % of Loki self-play time in `perf`).
macro_rules! clone_reusing_vecs {
    ($ty:ident $(<$param:ident: $bound:path>)?; $($vec:ident),+) => {
        impl$(<$param: $bound>)? Clone for $ty$(<$param>)? {
            fn clone(&self) -> Self {
                Self {
                    $($vec: self.$vec.clone(),)+
                    ..*self
                }
            }

            fn clone_from(&mut self, source: &Self) {
                $(
                    let mut $vec = std::mem::take(&mut self.$vec);
                    $vec.clone_from(&source.$vec);
                )+
                *self = Self {
                    $($vec,)+
                    ..*source
                };
            }
        }
    };
}

pub mod bitset;
pub mod book;
pub mod chess;
pub mod describe;
pub mod game;
pub mod geometry;
pub mod perft;
pub mod pgn;
pub mod variant;
pub mod zobrist;

pub mod shakti;
pub mod tafl;

pub use chess::{Losers, SanError, Viking};
pub use describe::Describe;
pub use game::{ActionError, EndReason, Game, NotationError, Outcome, Player, PositionError};
pub use geometry::Geometry;
pub use perft::{perft, perft_divide, perft_turns, perft_turns_divide};
pub use shakti::{Shakti, ShaktiAction};
pub use tafl::{Copenhagen, Hnefatafl, Loki};
pub use variant::{Variant, VariantId};
