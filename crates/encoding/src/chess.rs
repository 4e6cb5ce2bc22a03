//! Network encoding of the chess family: Losers (8x8) and Viking (12x7).
//!
//! One mechanism, per-variant data in [`ChessLayout`].
//!
//! # Frame
//! The network sees the board from the side to move. Losers: for Black the
//! board is flipped top-bottom (rank `r` -> `7 - r`, files unchanged), so
//! the side to move's pawns always go up (AlphaZero). Viking: never
//! flipped — both sides' pawns already move up (`docs/rules.md` §2); the
//! side to move is told by the own/opponent planes and two colour planes.
//!
//! # Input planes `[C, H, W]`
//! | plane | meaning |
//! |---|---|
//! | 0..6 | side to move's pawns, knights, bishops, rooks, queens, king |
//! | 6..12 | the opponent's, same order |
//! | 12 | 1 everywhere if the position occurred once before |
//! | 13 | 1 everywhere if it occurred twice before |
//! | 14 | 1 everywhere if White is to move |
//! | 15 | 1 everywhere if Black is to move |
//! | 16 | halfmove clock / 100 (capped at 1) everywhere |
//! | 17 | 1 everywhere (marks the board inside the convolution padding) |
//! | 18..22 | Losers only: castling rights own O-O, own O-O-O, opponent O-O, opponent O-O-O |
//! | 22 | Losers only: the en-passant target square |
//!
//! Losers `C = 23`, Viking `C = 18`.
//!
//! # Policy planes `[P, H, W]` (AlphaZero), indexed by the origin square
//! | planes | meaning |
//! |---|---|
//! | `dir * D + (dist - 1)` | queen-like move: 8 directions (N, NE, E, NW, S, SW, W, SE, in the network frame) x `D` distances; also king moves, castling (king two squares), pawn moves, en passant and promotion to a queen |
//! | `8D .. 8D+8` | knight moves, offsets in [`KNIGHT_OFFSETS`] order |
//! | `8D+8 + 3*piece + (df+1)` | under-promotion to knight/bishop/rook (`piece` 0..3) with file step `df` in -1, 0, 1 |
//!
//! `D = max(W, H) - 1`: 7 on 8x8 (`P = 73`), 11 on 12x7 (`P = 105`; the
//! long distances exist only along the 12-wide ranks). A move is fixed by
//! its origin, its displacement and its promotion piece; the displacement is
//! either a queen line (direction, distance) or a knight jump, never both,
//! and promotion to a queen is the only promotion on the queen planes, so
//! distinct legal moves get distinct indices.
//!
//! # Symmetries
//! Losers: identity only. The vertical flip with colours swapped is already
//! the network frame, and the left-right mirror breaks castling (king on e,
//! queen on d). Viking: identity and the left-right mirror with colours
//! swapped (`docs/rules.md` §2), the true symmetry of the start position
//! and rules; never top-bottom.

use rules::bitset::Bits;
use rules::chess::{Chess, ChessVariant, LosersRules, Move, Piece, VikingRules};
use rules::Game;

use crate::Encode;

/// Knight offsets (file step, rank step), network frame.
pub const KNIGHT_OFFSETS: [(isize, isize); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];

/// Queen-line directions (file step, rank step), network frame.
pub const DIRECTIONS: [(isize, isize); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (-1, 1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (1, -1),
];

/// Per-variant layout data of the chess encoding.
pub trait ChessLayout: ChessVariant {
    /// Flip the board top-bottom when Black is to move.
    const FLIP_FOR_BLACK: bool;
    /// Castling-rights planes (4) or none.
    const CASTLING_PLANES: usize;
    /// An en-passant plane (1) or none.
    const EP_PLANES: usize;
    /// Queen-move distances `D = max(W, H) - 1`.
    const DISTANCES: usize = if Self::WIDTH > Self::HEIGHT {
        Self::WIDTH - 1
    } else {
        Self::HEIGHT - 1
    };
    /// Input planes.
    const INPUTS: usize = 18 + Self::CASTLING_PLANES + Self::EP_PLANES;
    /// Policy planes.
    const POLICY: usize = 8 * Self::DISTANCES + 8 + 9;
}

impl ChessLayout for LosersRules {
    const FLIP_FOR_BLACK: bool = true;
    const CASTLING_PLANES: usize = 4;
    const EP_PLANES: usize = 1;
}

impl ChessLayout for VikingRules {
    const FLIP_FOR_BLACK: bool = false;
    const CASTLING_PLANES: usize = 0;
    const EP_PLANES: usize = 0;
}

/// Square `sq` of the board in the network frame of `side` (and back: the
/// map is an involution).
#[inline]
fn frame<V: ChessLayout>(sq: usize, side: usize) -> usize {
    if V::FLIP_FOR_BLACK && side == 1 {
        (V::HEIGHT - 1 - sq / V::WIDTH) * V::WIDTH + sq % V::WIDTH
    } else {
        sq
    }
}

fn fill(out: &mut [f32], plane: usize, area: usize, value: f32) {
    out[plane * area..(plane + 1) * area].fill(value);
}

/// Write the input planes of `g` (layout in the module docs).
pub fn encode_input<V: ChessLayout>(g: &Chess<V>, out: &mut [f32]) {
    let area = V::WIDTH * V::HEIGHT;
    out[..V::INPUTS * area].fill(0.0);
    let b = g.board();
    let us = b.side();
    for (rel, colour) in [(0, us), (6, us ^ 1)] {
        for p in Piece::ALL {
            let mut set = b.pieces(colour, p);
            while !set.is_empty() {
                let sq = set.pop_lsb();
                out[(rel + p as usize) * area + frame::<V>(sq, us)] = 1.0;
            }
        }
    }
    let reps = g.repetitions();
    fill(out, 12, area, (reps >= 1) as u8 as f32);
    fill(out, 13, area, (reps >= 2) as u8 as f32);
    fill(out, 14 + us, area, 1.0);
    fill(out, 16, area, (b.halfmove() as f32 / 100.0).min(1.0));
    fill(out, 17, area, 1.0);
    if V::CASTLING_PLANES == 4 {
        // Rights bits: K=1, Q=2 (White), k=4, q=8 (Black).
        let rights = b.castling();
        let own = (rights >> (2 * us)) & 3;
        let opp = (rights >> (2 * (us ^ 1))) & 3;
        for (i, on) in [own & 1, own & 2, opp & 1, opp & 2].into_iter().enumerate() {
            fill(out, 18 + i, area, (on != 0) as u8 as f32);
        }
    }
    if V::EP_PLANES == 1 {
        if let Some(ep) = b.ep_square() {
            out[(18 + V::CASTLING_PLANES) * area + frame::<V>(ep, us)] = 1.0;
        }
    }
}

/// Policy plane and network-frame origin square of move `m` by `side`.
pub fn move_plane<V: ChessLayout>(m: Move, side: usize) -> (usize, usize) {
    let w = V::WIDTH as isize;
    let from = frame::<V>(m.from(), side);
    let to = frame::<V>(m.to(), side);
    let df = (to as isize % w) - (from as isize % w);
    let dr = (to as isize / w) - (from as isize / w);
    let d = V::DISTANCES;
    let under = match m.promotion() {
        Some(Piece::Knight) => Some(0),
        Some(Piece::Bishop) => Some(1),
        Some(Piece::Rook) => Some(2),
        _ => None,
    };
    if let Some(piece) = under {
        return (8 * d + 8 + 3 * piece + (df.clamp(-1, 1) + 1) as usize, from);
    }
    if let Some(k) = KNIGHT_OFFSETS.iter().position(|&o| o == (df, dr)) {
        return (8 * d + k, from);
    }
    let dir = DIRECTIONS
        .iter()
        .position(|&o| o == (df.signum(), dr.signum()))
        .unwrap_or(0);
    let dist = df.unsigned_abs().max(dr.unsigned_abs()).max(1);
    (dir * d + dist - 1, from)
}

/// Flat policy index `plane * H * W + square` of `m` in `g`.
pub fn policy_index_of<V: ChessLayout>(g: &Chess<V>, m: Move) -> usize {
    let (plane, sq) = move_plane::<V>(m, g.board().side());
    plane * V::WIDTH * V::HEIGHT + sq
}

/// Decoding of a policy index back into a move.
pub trait ChessPolicy {
    /// The legal move whose policy index is `idx`, if any.
    fn action_from_index(&self, idx: usize) -> Option<Move>;
}

impl<V: ChessLayout> ChessPolicy for Chess<V> {
    fn action_from_index(&self, idx: usize) -> Option<Move> {
        let area = V::WIDTH * V::HEIGHT;
        if idx >= V::POLICY * area {
            return None;
        }
        // Decode by matching: legal moves are few and this is not on the
        // search's hot path (the search maps moves to indices).
        self.legal_vec()
            .into_iter()
            .find(|&m| policy_index_of(self, m) == idx)
    }
}

/// Mirror of a policy plane left-right (Viking symmetry 1).
fn mirror_policy_plane<V: ChessLayout>(plane: usize) -> usize {
    let d = V::DISTANCES;
    if plane < 8 * d {
        let (dir, dist) = (plane / d, plane % d);
        let (df, dr) = DIRECTIONS[dir];
        let m = DIRECTIONS
            .iter()
            .position(|&o| o == (-df, dr))
            .unwrap_or(dir);
        m * d + dist
    } else if plane < 8 * d + 8 {
        let (df, dr) = KNIGHT_OFFSETS[plane - 8 * d];
        8 * d
            + KNIGHT_OFFSETS
                .iter()
                .position(|&o| o == (-df, dr))
                .unwrap_or(0)
    } else {
        let u = plane - 8 * d - 8;
        8 * d + 8 + 3 * (u / 3) + (2 - u % 3)
    }
}

impl Encode for Chess<LosersRules> {
    const INPUT_PLANES: usize = LosersRules::INPUTS;
    const POLICY_PLANES: usize = LosersRules::POLICY;
    const HEIGHT: usize = 8;
    const WIDTH: usize = 8;
    /// Identity only (module docs).
    const SYMMETRIES: usize = 1;
    const ENCODING_VERSION: u32 = 1;

    fn encode(&self, out: &mut [f32]) {
        encode_input(self, out);
    }

    fn policy_index(&self, action: Move) -> usize {
        policy_index_of(self, action)
    }

    fn map_square(_sym: usize, sq: usize) -> usize {
        sq
    }

    fn map_policy_plane(_sym: usize, plane: usize) -> usize {
        plane
    }
}

impl Encode for Chess<VikingRules> {
    const INPUT_PLANES: usize = VikingRules::INPUTS;
    const POLICY_PLANES: usize = VikingRules::POLICY;
    const HEIGHT: usize = 7;
    const WIDTH: usize = 12;
    /// Identity and the left-right mirror with colours swapped.
    const SYMMETRIES: usize = 2;
    const ENCODING_VERSION: u32 = 1;

    fn encode(&self, out: &mut [f32]) {
        encode_input(self, out);
    }

    fn policy_index(&self, action: Move) -> usize {
        policy_index_of(self, action)
    }

    fn map_square(sym: usize, sq: usize) -> usize {
        if sym == 1 {
            sq - sq % 12 + (11 - sq % 12)
        } else {
            sq
        }
    }

    /// Colours swap: the White-to-move and Black-to-move planes exchange.
    fn map_input_plane(sym: usize, plane: usize) -> usize {
        match (sym, plane) {
            (1, 14) => 15,
            (1, 15) => 14,
            _ => plane,
        }
    }

    fn map_policy_plane(sym: usize, plane: usize) -> usize {
        if sym == 1 {
            mirror_policy_plane::<VikingRules>(plane)
        } else {
            plane
        }
    }
}
