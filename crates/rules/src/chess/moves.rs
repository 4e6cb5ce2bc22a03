//! Chess moves: a compact `Move` value and its UCI text.

use crate::{Geometry, NotationError};

/// Piece kinds, also the index of the per-kind square sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Piece {
    /// Pawn (`P`).
    Pawn = 0,
    /// Knight (`N`).
    Knight = 1,
    /// Bishop (`B`).
    Bishop = 2,
    /// Rook (`R`).
    Rook = 3,
    /// Queen (`Q`).
    Queen = 4,
    /// King (`K`).
    King = 5,
}

impl Piece {
    /// All kinds in index order.
    pub const ALL: [Piece; 6] = [
        Piece::Pawn,
        Piece::Knight,
        Piece::Bishop,
        Piece::Rook,
        Piece::Queen,
        Piece::King,
    ];

    /// Lower-case letter (`p n b r q k`).
    pub fn letter(self) -> char {
        ['p', 'n', 'b', 'r', 'q', 'k'][self as usize]
    }

    /// Kind from a letter of either case.
    pub fn from_letter(c: char) -> Option<Piece> {
        Some(match c.to_ascii_lowercase() {
            'p' => Piece::Pawn,
            'n' => Piece::Knight,
            'b' => Piece::Bishop,
            'r' => Piece::Rook,
            'q' => Piece::Queen,
            'k' => Piece::King,
            _ => return None,
        })
    }
}

/// Move kind tags stored in [`Move`].
pub(crate) const NORMAL: u8 = 0;
/// Promotions: `PROMO_BASE + piece index` (knight 1 .. queen 4).
pub(crate) const PROMO_BASE: u8 = 0;
pub(crate) const EN_PASSANT: u8 = 5;
pub(crate) const CASTLE: u8 = 6;

/// One chess move: origin, destination and kind (plain, promotion to a
/// piece, en passant, castling). Castling is the king's move (`e1g1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    from: u8,
    to: u8,
    kind: u8,
}

impl Move {
    #[inline(always)]
    pub(crate) fn new(from: usize, to: usize, kind: u8) -> Move {
        Move {
            from: from as u8,
            to: to as u8,
            kind,
        }
    }

    /// Origin square.
    #[inline(always)]
    pub fn from(self) -> usize {
        self.from as usize
    }

    /// Destination square (the king's destination for castling).
    #[inline(always)]
    pub fn to(self) -> usize {
        self.to as usize
    }

    /// The piece a pawn promotes to, if this is a promotion.
    #[inline(always)]
    pub fn promotion(self) -> Option<Piece> {
        match self.kind {
            1..=4 => Some(Piece::ALL[(self.kind - PROMO_BASE) as usize]),
            _ => None,
        }
    }

    /// True for an en-passant capture.
    #[inline(always)]
    pub fn is_en_passant(self) -> bool {
        self.kind == EN_PASSANT
    }

    /// True for castling.
    #[inline(always)]
    pub fn is_castle(self) -> bool {
        self.kind == CASTLE
    }

    #[inline(always)]
    pub(crate) fn kind(self) -> u8 {
        self.kind
    }

    /// UCI text on board `geo`: `e2e4`, `e7e8q`, `l6l7q`.
    pub fn to_uci(self, geo: Geometry) -> String {
        let mut s = geo.name(self.from());
        s.push_str(&geo.name(self.to()));
        if let Some(p) = self.promotion() {
            s.push(p.letter());
        }
        s
    }
}

/// Parse UCI text into (from, to, promotion) without checking legality.
///
/// # Errors
/// The [`NotationError`] saying what is malformed.
pub fn parse_uci(
    geo: Geometry,
    text: &str,
) -> Result<(usize, usize, Option<Piece>), NotationError> {
    if !text.is_ascii() {
        return Err(NotationError::NotAscii);
    }
    let missing = |which: &str| NotationError::MissingSquare {
        which: which.into(),
    };
    let (from, used) = geo
        .parse_square_prefix(text)
        .ok_or_else(|| missing("origin"))?;
    let rest = &text[used..];
    let (to, used) = geo
        .parse_square_prefix(rest)
        .ok_or_else(|| missing("destination"))?;
    let promo = match &rest[used..] {
        "" => None,
        p if p.len() == 1 => match Piece::from_letter(p.chars().next().unwrap_or('?')) {
            Some(k @ (Piece::Knight | Piece::Bishop | Piece::Rook | Piece::Queen)) => Some(k),
            _ => return Err(NotationError::BadPromotion(p.to_string())),
        },
        p => return Err(NotationError::Trailing(p.to_string())),
    };
    if from == to {
        return Err(NotationError::SameSquare);
    }
    Ok((from, to, promo))
}
