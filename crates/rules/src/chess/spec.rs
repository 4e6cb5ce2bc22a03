//! Per-variant data of the chess family: geometry, pawn rules, castling,
//! capture obligation and how a game ends. The move generator and the game
//! logic read only these constants, so a variant is data, not code.

use std::fmt::Debug;
use std::hash::Hash;
use std::sync::LazyLock;

use super::tables::{Castle, Tables};
use crate::bitset::Bits;

/// The rule data of one chess variant.
pub trait ChessVariant:
    Copy + Clone + Debug + Default + PartialEq + Eq + Hash + Send + Sync + 'static
{
    /// Square-set word wide enough for the board.
    type B: Bits;
    /// Files of the board.
    const WIDTH: usize;
    /// Ranks of the board.
    const HEIGHT: usize;
    /// Per colour (0 White, 1 Black): pawns move towards higher ranks.
    const PAWN_UP: [bool; 2];
    /// Per colour: the rank (0-based) from which a pawn may double-step.
    const DOUBLE_STEP_RANK: [Option<usize>; 2];
    /// En passant exists (only meaningful with double steps).
    const EN_PASSANT: bool;
    /// Castling moves (empty: no castling).
    const CASTLES: &'static [Castle];
    /// Per colour: the promotion rank (0-based).
    const PROMOTION_RANK: [usize; 2];
    /// Per colour: lowest and highest rank a pawn may stand on.
    const PAWN_RANKS: [(usize, usize); 2];
    /// If a legal capture exists, only captures are legal (Losers).
    const MANDATORY_CAPTURE: bool;
    /// A checkmated side to move wins (Losers) instead of losing.
    const MATED_SIDE_WINS: bool;
    /// A side reduced to its bare king wins (Losers).
    const BARE_KING_WINS: bool;
    /// K v K, K+B v K, K+N v K are drawn (Viking).
    const INSUFFICIENT_MATERIAL_DRAW: bool;
    /// More material is better, as in FIDE chess (Viking), so material
    /// measures progress ([`crate::Game::material`]); not in Losers, where
    /// shedding pieces is the goal.
    const MATERIAL_MEASURES_PROGRESS: bool;
    /// Display name ([`crate::Describe::NAME`]).
    const NAME: &'static str;
    /// Start position text.
    const START_FEN: &'static str;
    /// Zobrist key family.
    const ZOBRIST_FAMILY: u64;
    /// The precomputed tables for this geometry.
    fn tables() -> &'static Tables<Self::B>;
}

/// Losers Chess data (`docs/rules.md` §1): FIDE 8x8 with mandatory
/// capture; a mated or bare side to move wins.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LosersRules;

const fn castle(
    right: u8,
    letter: char,
    colour: usize,
    k: (usize, usize),
    r: (usize, usize),
) -> Castle {
    Castle {
        right,
        letter,
        colour,
        king_from: k.0,
        king_to: k.1,
        rook_from: r.0,
        rook_to: r.1,
    }
}

/// FIDE castling on 8x8 (king e-file to g/c, rook h/a to f/d), in FEN
/// letter order `KQkq`.
const FIDE_CASTLES: [Castle; 4] = [
    castle(1, 'K', 0, (4, 6), (7, 5)),
    castle(2, 'Q', 0, (4, 2), (0, 3)),
    castle(4, 'k', 1, (60, 62), (63, 61)),
    castle(8, 'q', 1, (60, 58), (56, 59)),
];

static LOSERS_TABLES: LazyLock<Tables<u64>> = LazyLock::new(|| {
    Tables::new(
        8,
        8,
        [true, false],
        &FIDE_CASTLES,
        LosersRules::ZOBRIST_FAMILY,
    )
});

impl ChessVariant for LosersRules {
    type B = u64;
    const WIDTH: usize = 8;
    const HEIGHT: usize = 8;
    const PAWN_UP: [bool; 2] = [true, false];
    const DOUBLE_STEP_RANK: [Option<usize>; 2] = [Some(1), Some(6)];
    const EN_PASSANT: bool = true;
    const CASTLES: &'static [Castle] = &FIDE_CASTLES;
    const PROMOTION_RANK: [usize; 2] = [7, 0];
    const PAWN_RANKS: [(usize, usize); 2] = [(1, 6), (1, 6)];
    const MANDATORY_CAPTURE: bool = true;
    const MATED_SIDE_WINS: bool = true;
    const BARE_KING_WINS: bool = true;
    const INSUFFICIENT_MATERIAL_DRAW: bool = false;
    const MATERIAL_MEASURES_PROGRESS: bool = false;
    const NAME: &'static str = "Losers Chess";
    const START_FEN: &'static str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    const ZOBRIST_FAMILY: u64 = 0x4C4F_5345_5253; // "LOSERS"
    #[inline(always)]
    fn tables() -> &'static Tables<u64> {
        &LOSERS_TABLES
    }
}

/// Viking Chess data (`docs/rules.md` §2): 12x7, pawns of both sides
/// move up and promote on rank 7; no double step, en passant or castling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct VikingRules;

static VIKING_TABLES: LazyLock<Tables<u128>> =
    LazyLock::new(|| Tables::new(12, 7, [true, true], &[], VikingRules::ZOBRIST_FAMILY));

impl ChessVariant for VikingRules {
    type B = u128;
    const WIDTH: usize = 12;
    const HEIGHT: usize = 7;
    const PAWN_UP: [bool; 2] = [true, true];
    const DOUBLE_STEP_RANK: [Option<usize>; 2] = [None, None];
    const EN_PASSANT: bool = false;
    const CASTLES: &'static [Castle] = &[];
    const PROMOTION_RANK: [usize; 2] = [6, 6];
    const PAWN_RANKS: [(usize, usize); 2] = [(0, 5), (0, 5)];
    const MANDATORY_CAPTURE: bool = false;
    const MATED_SIDE_WINS: bool = false;
    const BARE_KING_WINS: bool = false;
    const INSUFFICIENT_MATERIAL_DRAW: bool = true;
    const MATERIAL_MEASURES_PROGRESS: bool = true;
    const NAME: &'static str = "Viking Chess";
    const START_FEN: &'static str = "12/12/12/12/1PPPP2pppp1/RPNNPPppnnpr/RBKQBPpbqkbr w - - 0 1";
    const ZOBRIST_FAMILY: u64 = 0x5649_4B49_4E47; // "VIKING"
    #[inline(always)]
    fn tables() -> &'static Tables<u128> {
        &VIKING_TABLES
    }
}
