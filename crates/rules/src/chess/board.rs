//! The chess board state: square sets per piece kind and colour, rule state
//! (side to move, castling rights, en-passant square, clocks) and an
//! incrementally updated Zobrist hash. Small and `Copy`, so search and
//! perft use copy-make.

use std::marker::PhantomData;

use super::moves::{Move, Piece, CASTLE, EN_PASSANT};
use super::spec::ChessVariant;
use super::tables::{Tables, SQ_MASK};
use crate::bitset::Bits;
use crate::{Geometry, PositionError};

/// "No en-passant square".
pub(crate) const NO_SQ: u8 = u8::MAX;

/// A chess position of variant `V` (board and rule state, no history).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board<V: ChessVariant> {
    /// Squares holding each piece kind (both colours).
    pub(crate) kinds: [V::B; 6],
    /// Squares holding each colour's pieces (0 White, 1 Black).
    pub(crate) colours: [V::B; 2],
    /// Side to move: 0 White, 1 Black.
    pub(crate) side: u8,
    /// Castling rights bits (`K`=1, `Q`=2, `k`=4, `q`=8).
    pub(crate) castling: u8,
    /// En-passant target square, or [`NO_SQ`]. Kept only when a pawn of
    /// the side to move attacks it (as Fairy-Stockfish writes FENs), so
    /// the hash compares positions the way repetition needs.
    pub(crate) ep: u8,
    /// Plies since the last capture or pawn move.
    pub(crate) halfmove: u16,
    /// Full-move number (starts at 1, incremented after Black moves).
    pub(crate) fullmove: u16,
    /// Zobrist hash of pieces, side, castling and en passant.
    pub(crate) hash: u64,
    _v: PhantomData<V>,
}

impl<V: ChessVariant> Board<V> {
    /// Board geometry.
    pub fn geometry() -> Geometry {
        Geometry::new(V::WIDTH, V::HEIGHT)
    }

    #[inline(always)]
    pub(crate) fn occupied(&self) -> V::B {
        self.colours[0] | self.colours[1]
    }

    /// Squares of colour `c`'s (0 White, 1 Black) pieces of kind `p`.
    #[inline(always)]
    pub fn pieces(&self, c: usize, p: Piece) -> V::B {
        self.colours[c & 1] & self.kinds[p as usize]
    }

    /// King square of colour `c` (positions always hold one king per side).
    #[inline(always)]
    pub(crate) fn king(&self, c: usize) -> usize {
        self.pieces(c, Piece::King).lsb()
    }

    /// Kind of the piece on `sq`, if any.
    #[inline(always)]
    pub(crate) fn kind_at(&self, sq: usize) -> Option<Piece> {
        let b = V::B::bit(sq);
        Piece::ALL
            .into_iter()
            .find(|&p| !(self.kinds[p as usize] & b).is_empty())
    }

    /// Colour and kind on `sq`.
    pub fn piece_at(&self, sq: usize) -> Option<(usize, Piece)> {
        let colour = if self.colours[0].has(sq) { 0 } else { 1 };
        self.kind_at(sq).map(|p| (colour, p))
    }

    /// Side to move (0 White, 1 Black).
    pub fn side(&self) -> usize {
        self.side as usize
    }

    /// Castling rights bits (`K`=1, `Q`=2, `k`=4, `q`=8).
    pub fn castling(&self) -> u8 {
        self.castling
    }

    /// En-passant target square, if a capture there is possible.
    pub fn ep_square(&self) -> Option<usize> {
        (self.ep != NO_SQ).then_some(self.ep as usize)
    }

    /// Plies since the last capture or pawn move.
    pub fn halfmove(&self) -> u32 {
        self.halfmove as u32
    }

    /// Zobrist hash (board, side, castling, en passant).
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Enemy pieces of colour `by` attacking `sq` with occupancy `occ`.
    #[inline(always)]
    pub(crate) fn attackers(&self, t: &Tables<V::B>, sq: usize, by: usize, occ: V::B) -> V::B {
        let s = sq & SQ_MASK;
        let them = self.colours[by & 1];
        let queens = self.kinds[Piece::Queen as usize];
        let rq = (self.kinds[Piece::Rook as usize] | queens) & them;
        let bq = (self.kinds[Piece::Bishop as usize] | queens) & them;
        let mut a = (t.pawn_attackers[by & 1][s] & self.kinds[0] & them)
            | (t.knight[s] & self.kinds[1] & them)
            | (t.king[s] & self.kinds[5] & them);
        if !(t.rook_pseudo[s] & rq).is_empty() {
            a |= t.rook_attacks(s, occ) & rq;
        }
        if !(t.bishop_pseudo[s] & bq).is_empty() {
            a |= t.bishop_attacks(s, occ) & bq;
        }
        a
    }

    /// True when the side to move's king is attacked.
    pub fn in_check(&self) -> bool {
        let t = V::tables();
        let us = self.side();
        !self
            .attackers(t, self.king(us), us ^ 1, self.occupied())
            .is_empty()
    }

    /// True when colour `c` has only its king left.
    #[inline(always)]
    pub fn bare(&self, c: usize) -> bool {
        !self.colours[c & 1].more_than_one()
    }

    #[inline(always)]
    fn toggle(&mut self, t: &Tables<V::B>, c: usize, p: usize, sq: usize) {
        let b = V::B::bit(sq);
        self.kinds[p] ^= b;
        self.colours[c] ^= b;
        self.hash ^= t.z_piece[(c * 6 + p) % 12][sq & SQ_MASK];
    }

    /// Set the en-passant square `ep`, only if a pawn of colour
    /// `capturer` attacks it.
    #[inline(always)]
    fn set_ep(&mut self, t: &Tables<V::B>, ep: usize, capturer: usize) {
        let c = capturer & 1;
        if !(t.pawn_attackers[c][ep & SQ_MASK] & self.pieces(c, Piece::Pawn)).is_empty() {
            self.ep = ep as u8;
            self.hash ^= t.z_ep[ep % V::WIDTH];
        }
    }

    /// Play `m`, a move legal in this position.
    #[inline]
    pub fn play(&mut self, m: Move) {
        let t = V::tables();
        let us = self.side as usize;
        let them = us ^ 1;
        let (from, to) = (m.from(), m.to());
        let Some(moving) = self.kind_at(from) else {
            return; // not a move of this position; the contract allows anything but UB
        };
        if self.ep != NO_SQ {
            self.hash ^= t.z_ep[self.ep as usize % V::WIDTH];
            self.ep = NO_SQ;
        }
        self.halfmove = self.halfmove.saturating_add(1);
        if m.kind() == EN_PASSANT {
            let cap = if V::PAWN_UP[us] {
                to - V::WIDTH
            } else {
                to + V::WIDTH
            };
            self.toggle(t, them, 0, cap);
            self.halfmove = 0;
        } else if self.colours[them].has(to) {
            if let Some(captured) = self.kind_at(to) {
                self.toggle(t, them, captured as usize, to);
            }
            self.halfmove = 0;
        }
        self.toggle(t, us, moving as usize, from);
        let placed = m.promotion().unwrap_or(moving);
        self.toggle(t, us, placed as usize, to);
        if m.kind() == CASTLE {
            if let Some(c) = V::CASTLES
                .iter()
                .find(|c| c.king_to == to && c.colour == us)
            {
                self.toggle(t, us, Piece::Rook as usize, c.rook_from);
                self.toggle(t, us, Piece::Rook as usize, c.rook_to);
            }
        }
        if moving == Piece::Pawn {
            self.halfmove = 0;
            if V::EN_PASSANT && from.abs_diff(to) == 2 * V::WIDTH {
                self.set_ep(t, (from + to) / 2, them);
            }
        }
        let keep = t.castle_keep[from & SQ_MASK] & t.castle_keep[to & SQ_MASK];
        if self.castling & !keep != 0 {
            self.hash ^= t.z_castle[self.castling as usize & 15];
            self.castling &= keep;
            self.hash ^= t.z_castle[self.castling as usize & 15];
        }
        if us == 1 {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.side ^= 1;
        self.hash ^= t.z_black;
    }

    /// Parse a FEN (`board side castling ep [halfmove fullmove]`).
    ///
    /// # Errors
    /// [`PositionError`] naming the bad field; never panics.
    pub fn from_fen(text: &str) -> Result<Self, PositionError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if !(fields.len() == 4 || fields.len() == 6) {
            return Err(PositionError::FieldCount {
                found: fields.len(),
                expected: "6 (or 4 without the clocks)".into(),
            });
        }
        let geo = Self::geometry();
        let cells = geo.parse_board(fields[0], |c| {
            Piece::from_letter(c).map(|p| (usize::from(c.is_ascii_lowercase()), p))
        })?;
        let t = V::tables();
        let mut b = Board {
            kinds: [V::B::ZERO; 6],
            colours: [V::B::ZERO; 2],
            side: 0,
            castling: 0,
            ep: NO_SQ,
            halfmove: 0,
            fullmove: 1,
            hash: 0,
            _v: PhantomData,
        };
        for (sq, cell) in cells.iter().enumerate() {
            if let Some((c, p)) = *cell {
                b.toggle(t, c, p as usize, sq);
            }
        }
        b.side = match fields[1] {
            "w" => 0,
            "b" => 1,
            s => return Err(field("side to move", s, "expected w or b")),
        };
        if b.side == 1 {
            b.hash ^= t.z_black;
        }
        b.validate_pieces()?;
        b.parse_castling(fields[2])?;
        b.parse_ep(fields[3])?;
        if fields.len() == 6 {
            b.halfmove = fields[4]
                .parse()
                .map_err(|_| field("halfmove clock", fields[4], "not a number 0..65535"))?;
            b.fullmove = fields[5]
                .parse()
                .ok()
                .filter(|&n: &u16| n >= 1)
                .ok_or_else(|| field("fullmove number", fields[5], "not a number 1..65535"))?;
        }
        Ok(b)
    }

    fn validate_pieces(&self) -> Result<(), PositionError> {
        for c in 0..2 {
            let kings = self.pieces(c, Piece::King).count();
            if kings != 1 {
                return Err(PositionError::Illegal(format!(
                    "{} has {kings} kings, expected exactly 1",
                    ["White", "Black"][c]
                )));
            }
            let (lo, hi) = V::PAWN_RANKS[c];
            let mut pawns = self.pieces(c, Piece::Pawn);
            while !pawns.is_empty() {
                let sq = pawns.pop_lsb();
                let rank = sq / V::WIDTH;
                if rank < lo || rank > hi {
                    return Err(PositionError::Illegal(format!(
                        "{} pawn on {} (pawns stand on ranks {}..{})",
                        ["White", "Black"][c],
                        Self::geometry().name(sq),
                        lo + 1,
                        hi + 1
                    )));
                }
            }
        }
        Ok(())
    }

    fn parse_castling(&mut self, text: &str) -> Result<(), PositionError> {
        if text == "-" {
            return Ok(());
        }
        for ch in text.chars() {
            let c = V::CASTLES
                .iter()
                .find(|c| c.letter == ch)
                .ok_or_else(|| field("castling", text, "expected - or letters of KQkq"))?;
            if self.castling & c.right != 0 {
                return Err(field("castling", text, "a right is repeated"));
            }
            if !self.pieces(c.colour, Piece::King).has(c.king_from)
                || !self.pieces(c.colour, Piece::Rook).has(c.rook_from)
            {
                return Err(field(
                    "castling",
                    text,
                    "king and rook are not on their start squares",
                ));
            }
            self.castling |= c.right;
        }
        self.hash ^= V::tables().z_castle[self.castling as usize & 15];
        Ok(())
    }

    fn parse_ep(&mut self, text: &str) -> Result<(), PositionError> {
        if text == "-" {
            return Ok(());
        }
        if !V::EN_PASSANT {
            return Err(field("en passant", text, "this variant has no en passant"));
        }
        let geo = Self::geometry();
        let sq = geo
            .parse_square(text)
            .ok_or_else(|| field("en passant", text, "not a square"))?;
        let them = self.side() ^ 1;
        // The pawn that just double-stepped stands one step beyond `sq`
        // in its direction; `sq` and the square behind it must be empty.
        let (pawn, origin) = match (V::PAWN_UP[them], V::DOUBLE_STEP_RANK[them]) {
            (true, Some(r)) if sq / V::WIDTH == r + 1 => (sq + V::WIDTH, sq - V::WIDTH),
            (false, Some(r)) if sq / V::WIDTH + 1 == r => (sq - V::WIDTH, sq + V::WIDTH),
            _ => return Err(field("en passant", text, "not on the double-step rank")),
        };
        let occ = self.occupied();
        if !self.pieces(them, Piece::Pawn).has(pawn) || occ.has(sq) || occ.has(origin) {
            return Err(field(
                "en passant",
                text,
                "no pawn that just made a double step",
            ));
        }
        self.set_ep(V::tables(), sq, self.side());
        Ok(())
    }

    /// Write the FEN. The en-passant field is set only when a pawn of the
    /// side to move attacks the square (as Fairy-Stockfish writes it).
    pub fn to_fen(&self) -> String {
        let geo = Self::geometry();
        let cells: Vec<Option<(usize, Piece)>> =
            (0..geo.squares()).map(|sq| self.piece_at(sq)).collect();
        let board = geo.format_board(&cells, |(c, p)| {
            if c == 0 {
                p.letter().to_ascii_uppercase()
            } else {
                p.letter()
            }
        });
        let castling: String = V::CASTLES
            .iter()
            .filter(|c| self.castling & c.right != 0)
            .map(|c| c.letter)
            .collect();
        format!(
            "{board} {} {} {} {} {}",
            ["w", "b"][self.side()],
            if castling.is_empty() {
                "-".into()
            } else {
                castling
            },
            self.ep_square().map_or("-".into(), |s| geo.name(s)),
            self.halfmove,
            self.fullmove
        )
    }
}

fn field(field: &'static str, text: &str, reason: &str) -> PositionError {
    PositionError::Field {
        field,
        text: text.to_string(),
        reason: reason.to_string(),
    }
}
