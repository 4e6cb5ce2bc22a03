//! The 11x11 tafl board: pieces, special squares, neighbour steps and the
//! custodial-capture test (`docs/rules.md` §3).

use crate::{Geometry, Player};

/// Board side length.
pub const SIZE: usize = 11;
/// Number of squares.
pub const SQUARES: usize = SIZE * SIZE;
/// Square numbering shared with every variant (`rank * 11 + file`).
pub const GEOMETRY: Geometry = Geometry::new(SIZE, SIZE);
/// The throne, f6 (`docs/rules.md` §3).
pub const THRONE: usize = 5 * SIZE + 5;
/// The four corners a1, k1, a11, k11.
pub const CORNERS: [usize; 4] = [0, SIZE - 1, SQUARES - SIZE, SQUARES - 1];
/// Marker for "no square" in compact square fields.
pub const NO_SQUARE: u8 = 127;

/// Directions in the order used everywhere (policy planes included):
/// north (+rank), east (+file), south, west.
pub const DIRECTIONS: [(isize, isize); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

/// Bit of square `sq` in a 121-bit square set.
#[inline]
pub const fn bit(sq: usize) -> u128 {
    1u128 << sq
}

/// Corner squares as a set.
pub const CORNER_MASK: u128 = bit(0) | bit(SIZE - 1) | bit(SQUARES - SIZE) | bit(SQUARES - 1);
/// Squares only the king may land on: corners and throne.
pub const SPECIAL_MASK: u128 = CORNER_MASK | bit(THRONE);

/// `STEP[sq][dir]`: the neighbour of `sq` in direction `dir`, or
/// [`NO_SQUARE`] off the board.
pub const STEP: [[u8; 4]; SQUARES] = build_steps();

const fn build_steps() -> [[u8; 4]; SQUARES] {
    let mut table = [[NO_SQUARE; 4]; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let (file, rank) = ((sq % SIZE) as isize, (sq / SIZE) as isize);
        let mut d = 0;
        while d < 4 {
            let (f, r) = (file + DIRECTIONS[d].0, rank + DIRECTIONS[d].1);
            if f >= 0 && r >= 0 && f < SIZE as isize && r < SIZE as isize {
                table[sq][d] = (r as usize * SIZE + f as usize) as u8;
            }
            d += 1;
        }
        sq += 1;
    }
    table
}

/// Neighbour of `sq` in direction `dir`.
#[inline]
pub fn step(sq: usize, dir: usize) -> Option<usize> {
    let n = STEP[sq][dir];
    (n != NO_SQUARE).then_some(n as usize)
}

/// Piece kinds. Special kinds only occur in `loki` (`docs/rules.md` §4);
/// they move and are captured like soldiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Plain piece `S`/`s`.
    Soldier = 0,
    /// The defenders' king `K`.
    King = 1,
    /// Trickster `T`/`t` (lends Exchange).
    Trickster = 2,
    /// General `G`/`g` (lends Command).
    General = 3,
    /// Wizard `W`/`w` (lends Freeze).
    Wizard = 4,
    /// Horse `H`/`h` (lends Hop).
    Horse = 5,
}

impl Kind {
    /// All kinds, in index order.
    pub const ALL: [Kind; 6] = [
        Kind::Soldier,
        Kind::King,
        Kind::Trickster,
        Kind::General,
        Kind::Wizard,
        Kind::Horse,
    ];

    /// Upper-case notation letter.
    pub fn letter(self) -> char {
        ['S', 'K', 'T', 'G', 'W', 'H'][self as usize]
    }

    /// True for the four kinds that lend a power.
    pub fn is_special(self) -> bool {
        !matches!(self, Kind::Soldier | Kind::King)
    }
}

/// A piece: side and kind. Defenders are upper case in the notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Owner (`First` = attackers).
    pub side: Player,
    /// Kind.
    pub kind: Kind,
}

impl Piece {
    /// Notation character (attackers lower case).
    pub fn to_char(self) -> char {
        let c = self.kind.letter();
        match self.side {
            Player::First => c.to_ascii_lowercase(),
            Player::Second => c,
        }
    }

    /// Parse a notation character; `None` for unknown ones and for an
    /// attacking king (`k`), which does not exist.
    pub fn from_char(c: char) -> Option<Piece> {
        let kind = Kind::ALL
            .into_iter()
            .find(|k| k.letter() == c.to_ascii_uppercase())?;
        let side = if c.is_ascii_uppercase() {
            Player::Second
        } else {
            Player::First
        };
        (kind != Kind::King || side == Player::Second).then_some(Piece { side, kind })
    }
}

/// Board contents, one entry per square.
pub type Cells = [Option<Piece>; SQUARES];

/// True when `sq` is the far side of a sandwich made by `mover`: one of
/// `mover`'s pieces (the king included: it is armed, and frozen pieces still
/// count), or an empty hostile square. An empty corner or empty throne is
/// hostile to everyone; the throne occupied by the king is hostile to
/// attackers only, and then the king is the mover's own piece anyway
/// (`docs/rules.md` §3, "Hostile squares").
#[inline]
pub fn anvil(cells: &Cells, sq: usize, mover: Player) -> bool {
    match cells[sq] {
        Some(p) => p.side == mover,
        None => SPECIAL_MASK & bit(sq) != 0,
    }
}

/// Enemy pieces captured by `mover`'s piece that has just landed on `to`:
/// only its four neighbours are examined (`docs/rules.md` §3).
/// Returns the set of captured squares (not yet removed).
#[inline]
pub fn landing_captures(cells: &Cells, to: usize, mover: Player) -> u128 {
    let mut captured = 0u128;
    for dir in 0..4 {
        let Some(victim) = step(to, dir) else {
            continue;
        };
        let Some(p) = cells[victim] else { continue };
        if p.side == mover {
            continue;
        }
        if let Some(far) = step(victim, dir) {
            if anvil(cells, far, mover) {
                captured |= bit(victim);
            }
        }
    }
    captured
}

/// True when the piece on `sq` (an enemy of `mover`) is sandwiched in
/// either line by `mover`'s pieces or hostile squares.
pub fn sandwiched(cells: &Cells, sq: usize, mover: Player) -> bool {
    [(0, 2), (1, 3)].into_iter().any(|(a, b)| {
        matches!((step(sq, a), step(sq, b)), (Some(x), Some(y))
            if anvil(cells, x, mover) && anvil(cells, y, mover))
    })
}

/// Iterate the squares of a set in increasing order.
#[inline]
pub fn squares_of(mut set: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if set == 0 {
            None
        } else {
            let sq = set.trailing_zeros() as usize;
            set &= set - 1;
            Some(sq)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_stop_at_the_edge() {
        assert_eq!(step(0, 0), Some(11));
        assert_eq!(step(0, 1), Some(1));
        assert_eq!(step(0, 2), None);
        assert_eq!(step(0, 3), None);
        assert_eq!(step(SQUARES - 1, 0), None);
        assert_eq!(GEOMETRY.name(THRONE), "f6");
        let names: Vec<String> = CORNERS.iter().map(|&s| GEOMETRY.name(s)).collect();
        assert_eq!(names, ["a1", "k1", "a11", "k11"]);
    }

    #[test]
    fn piece_chars_round_trip() {
        for c in "SKTGWHstgwh".chars() {
            assert_eq!(Piece::from_char(c).map(Piece::to_char), Some(c));
        }
        assert_eq!(Piece::from_char('k'), None);
        assert_eq!(Piece::from_char('x'), None);
    }
}
