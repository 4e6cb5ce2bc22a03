//! Lines of sight on the 7x7 Shakti board, precomputed as bitboards
//! (`docs/rules.md` §5: a piece sees along its 8 lines, passing over holes
//! and stopping at the first tile).
//!
//! Squares are numbered `rank * 7 + file` (as in [`crate::Geometry`]); bit
//! `sq` of a `u64` stands for square `sq`.

/// Board side length.
pub const SIZE: usize = 7;
/// Number of squares.
pub const SQUARES: usize = SIZE * SIZE;
/// Bitboard with every square set.
pub const ALL: u64 = (1u64 << SQUARES) - 1;

/// `(file step, rank step)` of the 8 directions, clockwise from north
/// (N, NE, E, SE, S, SW, W, NW). Turning the board a quarter clockwise maps
/// direction `d` to `(d + 2) % 8`, which the encoding relies on.
pub const DIRS: [(isize, isize); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

/// Every square strictly beyond `sq` along `dir`, up to the board edge.
const fn ray(sq: usize, dir: usize) -> u64 {
    let (df, dr) = DIRS[dir];
    let mut f = (sq % SIZE) as isize + df;
    let mut r = (sq / SIZE) as isize + dr;
    let mut bits = 0u64;
    while f >= 0 && r >= 0 && f < SIZE as isize && r < SIZE as isize {
        bits |= 1u64 << (r as usize * SIZE + f as usize);
        f += df;
        r += dr;
    }
    bits
}

const fn build_rays() -> [[u64; SQUARES]; 8] {
    let mut rays = [[0u64; SQUARES]; 8];
    let mut dir = 0;
    while dir < 8 {
        let mut sq = 0;
        while sq < SQUARES {
            rays[dir][sq] = ray(sq, dir);
            sq += 1;
        }
        dir += 1;
    }
    rays
}

/// `RAYS[dir][sq]`: the squares beyond `sq` along `dir`.
pub const RAYS: [[u64; SQUARES]; 8] = build_rays();

/// Whether square indices grow along `dir` (then the nearest square of a
/// ray is its lowest bit, otherwise its highest).
#[inline]
const fn ascending(dir: usize) -> bool {
    let (df, dr) = DIRS[dir];
    dr > 0 || (dr == 0 && df > 0)
}

/// The square of `mask` (a subset of one ray along `dir`) nearest to the
/// ray's origin.
#[inline]
pub fn nearest(dir: usize, mask: u64) -> Option<usize> {
    if mask == 0 {
        None
    } else if ascending(dir) {
        Some(mask.trailing_zeros() as usize)
    } else {
        Some(63 - mask.leading_zeros() as usize)
    }
}

/// The first tile seen from `sq` along `dir` (holes are passed over).
#[inline]
pub fn first_tile(sq: usize, dir: usize, tiles: u64) -> Option<usize> {
    nearest(dir, RAYS[dir][sq] & tiles)
}

/// The square next to `sq` along `dir`, whether tile or hole.
#[inline]
pub fn adjacent(sq: usize, dir: usize) -> Option<usize> {
    nearest(dir, RAYS[dir][sq])
}

/// Direction and distance (1..=6) from `from` to `to` when they share a
/// line; `None` otherwise.
pub fn direction_and_distance(from: usize, to: usize) -> Option<(usize, usize)> {
    let df = (to % SIZE) as isize - (from % SIZE) as isize;
    let dr = (to / SIZE) as isize - (from / SIZE) as isize;
    if (df == 0 && dr == 0) || (df != 0 && dr != 0 && df.abs() != dr.abs()) {
        return None;
    }
    let dir = DIRS.iter().position(|&d| d == (df.signum(), dr.signum()))?;
    Some((dir, df.abs().max(dr.abs()) as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rays_of_the_corner_and_centre() {
        // a1 north: a2..a7; a1 north-east: the long diagonal b2..g7.
        assert_eq!(RAYS[0][0], (1..7).map(|r| 1u64 << (r * 7)).sum::<u64>());
        assert_eq!(RAYS[1][0], (1..7).map(|i| 1u64 << (i * 8)).sum::<u64>());
        assert_eq!(RAYS[4][0], 0);
        // Every ray from d4 has 3 squares.
        for rays in RAYS {
            assert_eq!(rays[24].count_ones(), 3);
        }
        assert_eq!(first_tile(24, 4, ALL & !(1 << 17)), Some(10));
        assert_eq!(first_tile(24, 0, ALL), Some(31));
        assert_eq!(adjacent(0, 5), None);
        assert_eq!(direction_and_distance(0, 48), Some((1, 6)));
        assert_eq!(direction_and_distance(24, 3), Some((4, 3)));
        assert_eq!(direction_and_distance(0, 8 + 7), None);
    }
}
