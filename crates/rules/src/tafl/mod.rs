//! Tafl: `hnefatafl` (`docs/rules.md` §3), `loki` (§4) and `copenhagen`
//! (§6) on one mechanism. `loki` is `hnefatafl` plus data-driven special
//! pieces and power uses; `hnefatafl` is `loki` with neither; `copenhagen`
//! is `hnefatafl` with the ruleset switch [`Tafl::parse_rules`] set (the
//! board-level differences are in [`copenhagen`]).
//!
//! Modules: [`board`] (squares, pieces, the sandwich test), [`turn`] (full
//! turns and their tokens), [`action`] (atomic sub-decisions), [`state`]
//! (the shared state and its position text), `movegen` (legal actions and
//! turns), `play` (applying them), [`games`] (the two `Game` types).
//!
//! Rulings made here (docs/rules.md §3–4 lists them as code rulings):
//! - Exchange captures: every enemy piece on either swapped square or next
//!   to one that is sandwiched afterwards, in either line, is captured (the
//!   text says "now sandwiched": a state test, as for the swapped enemy
//!   piece itself, not only sandwiches through the swapped squares).
//! - Command with several Generals: a General may command another General;
//!   a piece is commandable when some General other than itself is on the
//!   board.
//! - A position text without a king is a finished game won by the attackers;
//!   a king on a corner one won by the defenders; more than one king, or a
//!   non-king piece on the throne or a corner, is refused. Frozen entries
//!   must name a non-king, non-Wizard piece of the side to move with `:1`.
//! - Hnefatafl position texts are written `board side` (2 fields).
//! - Atomic texts and the full-turn token: see [`action`].

pub mod action;
pub mod board;
pub mod copenhagen;
pub mod describe;
pub mod games;
mod movegen;
pub mod perft;
mod play;
pub mod state;
pub mod turn;

pub use action::{turn_text, TaflAction};
pub use games::{Copenhagen, Hnefatafl, Loki, COPENHAGEN_START, HNEFATAFL_START, LOKI_START};
pub use perft::{perft_atomic, perft_turns};
pub use state::{Pending, Tafl};
pub use turn::Turn;
