//! Network encoding of Shakti (`docs/rules.md` §5).
//!
//! # Frame
//! The network sees the board from the side to move: for White the board
//! as it is, for Black with the ranks flipped (`rank -> 6 - rank`), so the
//! side to move always starts at the bottom and its pieces are "own".
//! Shakti's rules treat both colours alike, so no colour plane is needed.
//! Network squares are `rank * 7 + file` in that frame.
//!
//! # Input planes (`[8, 7, 7]`)
//! | plane | meaning |
//! |---|---|
//! | 0 | 1 where the square has a tile (0 = hole) |
//! | 1 | own king |
//! | 2 | own warriors |
//! | 3 | enemy king |
//! | 4 | enemy warriors |
//! | 5 | all 1 when the side to move is in check |
//! | 6 | all 1 when the position occurred before (a third occurrence would draw) |
//! | 7 | all 1 (marks the board against the convolutions' zero padding) |
//!
//! # Policy planes (`[49, 7, 7]`)
//! A move is indexed at its origin square (network frame) on plane
//! `direction * 6 + (distance - 1)`: direction in the network frame, clockwise
//! from north (N, NE, E, SE, S, SW, W, NW), distance 1..=6 in squares
//! (holes passed over count). Every move runs along a line (steps, king
//! moves and jumps alike), and origin + direction + distance fixes the
//! destination, so the distinct legal moves of a position (distinct
//! origin/destination pairs) get distinct indices.
//! The pass is plane [`PASS_PLANE`] at the centre square d4
//! ([`PASS_SQUARE`]): every symmetry fixes the centre, so the pass index
//! maps to itself, and it is the only index on that plane.
//!
//! # Symmetries
//! All 8 of the square's symmetry group D4: lines, distances and adjacency
//! are preserved, and the two starts are symmetric under it too. Index
//! `m * 4 + r`: first mirror the files if `m == 1`, then turn a quarter
//! clockwise `r` times. Index 0 is the identity.

use crate::Encode;
use rules::shakti::rays::{direction_and_distance, SIZE, SQUARES};
use rules::{Game, Player, Shakti, ShaktiAction};

/// Number of move planes: 8 directions x 6 distances.
pub const MOVE_PLANES: usize = 48;
/// Policy plane of the pass.
pub const PASS_PLANE: usize = MOVE_PLANES;
/// Square of the pass index (d4, fixed by every symmetry).
pub const PASS_SQUARE: usize = 3 * SIZE + 3;
/// Flat policy index of the pass.
pub const PASS_INDEX: usize = PASS_PLANE * SQUARES + PASS_SQUARE;

/// Board square -> network square (and back: the map is its own inverse).
#[inline]
fn to_network(side: Player, sq: usize) -> usize {
    match side {
        Player::First => sq,
        Player::Second => (SIZE - 1 - sq / SIZE) * SIZE + sq % SIZE,
    }
}

/// Board direction -> network direction (rank flip for Black: N <-> S,
/// NE <-> SE, NW <-> SW).
#[inline]
fn dir_to_network(side: Player, dir: usize) -> usize {
    match side {
        Player::First => dir,
        Player::Second => (12 - dir) % 8,
    }
}

/// Set `plane` (one 7x7 slice of `out`) at every square of `bits` (board
/// frame), seen from `side`.
fn fill_bits(out: &mut [f32], plane: usize, bits: u64, side: Player) {
    let mut rest = bits;
    while rest != 0 {
        let sq = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        out[plane * SQUARES + to_network(side, sq)] = 1.0;
    }
}

fn fill_constant(out: &mut [f32], plane: usize, on: bool) {
    let value = if on { 1.0 } else { 0.0 };
    out[plane * SQUARES..(plane + 1) * SQUARES].fill(value);
}

impl Encode for Shakti {
    const INPUT_PLANES: usize = 8;
    const POLICY_PLANES: usize = MOVE_PLANES + 1;
    const HEIGHT: usize = SIZE;
    const WIDTH: usize = SIZE;
    const SYMMETRIES: usize = 8;
    const ENCODING_VERSION: u32 = 1;

    fn encode(&self, out: &mut [f32]) {
        let out = &mut out[..Self::input_len()];
        out.fill(0.0);
        let me = self.side_to_move();
        let them = me.opponent();
        fill_bits(out, 0, self.tiles(), me);
        fill_bits(out, 1, 1u64 << self.king(me), me);
        fill_bits(out, 2, self.warriors(me), me);
        fill_bits(out, 3, 1u64 << self.king(them), me);
        fill_bits(out, 4, self.warriors(them), me);
        fill_constant(out, 5, self.in_check());
        fill_constant(out, 6, self.repetition_count() >= 2);
        fill_constant(out, 7, true);
    }

    fn policy_index(&self, action: ShaktiAction) -> usize {
        let side = self.side_to_move();
        let (Some(from), Some(to)) = (action.from(), action.to()) else {
            return PASS_INDEX;
        };
        // Legal moves always run along a line; anything else is a caller
        // bug, mapped to the pass index rather than panicking.
        let Some((dir, dist)) = direction_and_distance(from, to) else {
            return PASS_INDEX;
        };
        let plane = dir_to_network(side, dir) * 6 + (dist - 1);
        plane * SQUARES + to_network(side, from)
    }

    fn map_square(sym: usize, sq: usize) -> usize {
        let (mut f, mut r) = (sq % SIZE, sq / SIZE);
        if sym >= 4 {
            f = SIZE - 1 - f;
        }
        for _ in 0..sym % 4 {
            // A quarter turn clockwise: (file, rank) -> (rank, 6 - file).
            (f, r) = (r, SIZE - 1 - f);
        }
        r * SIZE + f
    }

    fn map_policy_plane(sym: usize, plane: usize) -> usize {
        if plane >= MOVE_PLANES {
            return plane;
        }
        let (dir, dist) = (plane / 6, plane % 6);
        let mirrored = if sym >= 4 { (8 - dir) % 8 } else { dir };
        ((mirrored + 2 * (sym % 4)) % 8) * 6 + dist
    }
}
