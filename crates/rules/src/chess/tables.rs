//! Precomputed attack and line tables for one board geometry.
//!
//! Built once per variant from its width, height and pawn directions, so
//! the same code serves the 8x8 (`u64`) and 12x7 (`u128`) boards. Arrays
//! have 128 entries per square whatever the board size: indices are masked
//! with `& 127`, which lets the compiler drop bounds checks on the hot path.

use crate::bitset::Bits;
use crate::zobrist;

/// Index mask of the fixed-size per-square arrays.
pub(crate) const SQ_MASK: usize = 127;

/// Ray directions as (file step, rank step). The first four increase the
/// square number (their first blocker is the lowest set bit), the last four
/// decrease it (first blocker = highest set bit).
pub(crate) const DIRS: [(isize, isize); 8] = [
    (0, 1),   // N
    (1, 1),   // NE
    (1, 0),   // E
    (-1, 1),  // NW
    (0, -1),  // S
    (-1, -1), // SW
    (-1, 0),  // W
    (1, -1),  // SE
];

/// Rook directions (indices into [`DIRS`]).
pub(crate) const ROOK_DIRS: [usize; 4] = [0, 2, 4, 6];
/// Bishop directions (indices into [`DIRS`]).
pub(crate) const BISHOP_DIRS: [usize; 4] = [1, 3, 5, 7];

/// One castling move (king and rook squares) and the right it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Castle {
    /// Bit of the castling-rights byte (`K`=1, `Q`=2, `k`=4, `q`=8).
    pub right: u8,
    /// FEN letter of the right.
    pub letter: char,
    /// Side: 0 White, 1 Black.
    pub colour: usize,
    /// King start square.
    pub king_from: usize,
    /// King end square.
    pub king_to: usize,
    /// Rook start square.
    pub rook_from: usize,
    /// Rook end square.
    pub rook_to: usize,
}

/// Every table the move generator needs for one geometry.
pub struct Tables<B: Bits> {
    /// Files of the board (squares are `rank * width + file`).
    pub width: usize,
    /// Squares of the board (`width * height`).
    pub squares: usize,
    /// All squares of the board.
    pub board: B,
    /// Squares not on the first (a) file.
    pub not_first_file: B,
    /// Squares not on the last file.
    pub not_last_file: B,
    /// Squares of each rank.
    pub rank: [B; 16],
    /// `knight[sq]`: squares a knight on `sq` attacks.
    pub knight: [B; 128],
    /// `king[sq]`: squares a king on `sq` attacks.
    pub king: [B; 128],
    /// `pawn_attacks[c][sq]`: squares a pawn of colour `c` on `sq` attacks.
    pub pawn_attacks: [[B; 128]; 2],
    /// `pawn_attackers[c][sq]`: squares from which a pawn of colour `c`
    /// attacks `sq` (not simply the other colour's table: Viking pawns of
    /// both sides move up).
    pub pawn_attackers: [[B; 128]; 2],
    /// Empty-board rays per direction.
    pub rays: [[B; 128]; 8],
    /// Empty-board rook attacks.
    pub rook_pseudo: [B; 128],
    /// Empty-board bishop attacks.
    pub bishop_pseudo: [B; 128],
    /// Squares strictly between two squares on a line (empty otherwise).
    pub between: Box<[[B; 128]; 128]>,
    /// The whole line through two squares (empty if not on a line).
    pub line: Box<[[B; 128]; 128]>,
    /// Castling rights kept when a move touches a square.
    pub castle_keep: [u8; 128],
    /// Zobrist keys of a piece (colour * 6 + kind) on a square.
    pub z_piece: [[u64; 128]; 12],
    /// Zobrist key of Black to move.
    pub z_black: u64,
    /// Zobrist keys of the castling-rights byte.
    pub z_castle: [u64; 16],
    /// Zobrist keys of the en-passant file.
    pub z_ep: [u64; 16],
}

fn square(width: usize, height: usize, f: isize, r: isize) -> Option<usize> {
    (f >= 0 && r >= 0 && (f as usize) < width && (r as usize) < height)
        .then(|| r as usize * width + f as usize)
}

fn boxed<B: Bits>() -> Box<[[B; 128]; 128]> {
    match vec![[B::ZERO; 128]; 128].into_boxed_slice().try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("vector has exactly 128 rows"),
    }
}

impl<B: Bits> Tables<B> {
    /// Tables for a `width` x `height` board. `pawn_up[c]`: pawns of colour
    /// `c` move towards higher ranks. `family` seeds the Zobrist keys.
    pub fn new(
        width: usize,
        height: usize,
        pawn_up: [bool; 2],
        castles: &[Castle],
        family: u64,
    ) -> Self {
        assert!(width * height <= B::CAPACITY && width * height <= 128 && height <= 16);
        let n = width * height;
        let at = |f: isize, r: isize| square(width, height, f, r);
        let mut t = Tables {
            width,
            squares: n,
            board: B::ZERO,
            not_first_file: B::ZERO,
            not_last_file: B::ZERO,
            rank: [B::ZERO; 16],
            knight: [B::ZERO; 128],
            king: [B::ZERO; 128],
            pawn_attacks: [[B::ZERO; 128]; 2],
            pawn_attackers: [[B::ZERO; 128]; 2],
            rays: [[B::ZERO; 128]; 8],
            rook_pseudo: [B::ZERO; 128],
            bishop_pseudo: [B::ZERO; 128],
            between: boxed(),
            line: boxed(),
            castle_keep: [0xF; 128],
            z_piece: [[0; 128]; 12],
            z_black: zobrist::key(family, 0),
            z_castle: [0; 16],
            z_ep: [0; 16],
        };
        for sq in 0..n {
            let (f, r) = ((sq % width) as isize, (sq / width) as isize);
            let b = B::bit(sq);
            t.board |= b;
            t.rank[r as usize] |= b;
            if f != 0 {
                t.not_first_file |= b;
            }
            if f as usize != width - 1 {
                t.not_last_file |= b;
            }
            for (df, dr) in [
                (1, 2),
                (2, 1),
                (2, -1),
                (1, -2),
                (-1, -2),
                (-2, -1),
                (-2, 1),
                (-1, 2),
            ] {
                if let Some(to) = at(f + df, r + dr) {
                    t.knight[sq] |= B::bit(to);
                }
            }
            for (d, &(df, dr)) in DIRS.iter().enumerate() {
                if let Some(to) = at(f + df, r + dr) {
                    t.king[sq] |= B::bit(to);
                }
                let (mut cf, mut cr) = (f + df, r + dr);
                while let Some(to) = at(cf, cr) {
                    t.rays[d][sq] |= B::bit(to);
                    cf += df;
                    cr += dr;
                }
            }
            for (c, &moves_up) in pawn_up.iter().enumerate() {
                let up = if moves_up { 1 } else { -1 };
                for df in [-1, 1] {
                    if let Some(to) = at(f + df, r + up) {
                        t.pawn_attacks[c][sq] |= B::bit(to);
                        t.pawn_attackers[c][to] |= B::bit(sq);
                    }
                }
            }
            t.rook_pseudo[sq] = ROOK_DIRS.iter().fold(B::ZERO, |a, &d| a | t.rays[d][sq]);
            t.bishop_pseudo[sq] = BISHOP_DIRS.iter().fold(B::ZERO, |a, &d| a | t.rays[d][sq]);
        }
        for a in 0..n {
            for d in 0..8 {
                let opposite = t.rays[(d + 4) % 8][a];
                let mut ray = t.rays[d][a];
                while !ray.is_empty() {
                    let b = ray.pop_lsb();
                    // Squares between a and b: on a's ray towards b and on
                    // b's ray back towards a.
                    t.between[a][b] = t.rays[d][a] & t.rays[(d + 4) % 8][b];
                    t.line[a][b] = t.rays[d][a] | opposite | B::bit(a);
                }
            }
        }
        for c in castles {
            t.castle_keep[c.king_from] &= !c.right;
            t.castle_keep[c.rook_from] &= !c.right;
        }
        for p in 0..12 {
            for sq in 0..n {
                t.z_piece[p][sq] = zobrist::key(family, 1 + (p * 128 + sq) as u64);
            }
        }
        for i in 0..16 {
            t.z_castle[i] = if i == 0 {
                0
            } else {
                zobrist::key(family, 4000 + i as u64)
            };
            t.z_ep[i] = zobrist::key(family, 5000 + i as u64);
        }
        t
    }

    /// Attacks of a slider along direction `d` from `sq` given occupancy.
    #[inline(always)]
    pub fn ray_attacks(&self, d: usize, sq: usize, occ: B) -> B {
        let ray = self.rays[d & 7][sq & SQ_MASK];
        let blockers = ray & occ;
        if blockers.is_empty() {
            return ray;
        }
        let first = if d < 4 {
            blockers.lsb()
        } else {
            blockers.msb()
        };
        ray ^ self.rays[d & 7][first & SQ_MASK]
    }

    /// Rook attacks from `sq`.
    #[inline(always)]
    pub fn rook_attacks(&self, sq: usize, occ: B) -> B {
        self.ray_attacks(0, sq, occ)
            | self.ray_attacks(2, sq, occ)
            | self.ray_attacks(4, sq, occ)
            | self.ray_attacks(6, sq, occ)
    }

    /// Bishop attacks from `sq`.
    #[inline(always)]
    pub fn bishop_attacks(&self, sq: usize, occ: B) -> B {
        self.ray_attacks(1, sq, occ)
            | self.ray_attacks(3, sq, occ)
            | self.ray_attacks(5, sq, occ)
            | self.ray_attacks(7, sq, occ)
    }

    /// Squares strictly between `a` and `b` (empty if not aligned).
    #[inline(always)]
    pub fn between(&self, a: usize, b: usize) -> B {
        self.between[a & SQ_MASK][b & SQ_MASK]
    }

    /// Full line through `a` and `b` (empty if not aligned).
    #[inline(always)]
    pub fn line(&self, a: usize, b: usize) -> B {
        self.line[a & SQ_MASK][b & SQ_MASK]
    }
}
