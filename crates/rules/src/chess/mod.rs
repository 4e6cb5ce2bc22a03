//! The chess family: Losers Chess (`docs/rules.md` §1) and Viking Chess
//! (§2) on one move generator.
//!
//! - [`spec`]: each variant's rule data (geometry, pawn direction, double
//!   step, en passant, castling, promotion rank, capture obligation, end
//!   rules). The generator reads only these constants.
//! - [`tables`]: attack/line tables and Zobrist keys built per geometry.
//! - [`board`]: the `Copy` board, FEN, making a move.
//! - [`movegen`]: legal generation (checks, pins, en passant, castling) into
//!   a list or a counter.
//! - [`game`]: [`Losers`] and [`Viking`] as [`crate::Game`]s.
//! - [`san`]: Standard Algebraic Notation (PGN standard §8.2.3), written
//!   and read from the rule data.
//!
//! Rulings made here (docs/rules.md §1–2 lists them as code rulings):
//! - Losers, both kings bare (not reachable in play, only by FEN): the
//!   side to move wins (§1: the side to move with a bare king wins;
//!   Fairy-Stockfish gives it to the side that just moved).
//! - The 50-move rule and threefold repetition end the game automatically
//!   (Fairy-Stockfish treats them as claims); a checkmate or stalemate on
//!   the 100th ply takes precedence, as in FIDE.
//! - Repetition compares board, side to move, castling rights and the
//!   en-passant square when a pawn of the side to move attacks it (as
//!   Fairy-Stockfish writes FENs), and counts back only to the last capture
//!   or pawn move.
//! - Perft (`fast_perft`) ignores the draws by rule, like the oracle.
//! - A FEN whose side not to move is in check is accepted (the oracle has
//!   one); its king is never a capture target.
//! - A FEN en-passant square no pawn can capture on is accepted and dropped.

pub mod board;
pub mod describe;
pub mod game;
pub mod movegen;
pub mod moves;
pub mod perft;
pub mod san;
pub mod spec;
pub mod tables;

pub use board::Board;
pub use game::{Chess, Losers, Viking};
pub use moves::{Move, Piece};
pub use san::SanError;
pub use spec::{ChessVariant, LosersRules, VikingRules};
