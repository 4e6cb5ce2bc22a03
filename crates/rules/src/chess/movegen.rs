//! Legal move generation: checks, pins, en passant, castling, promotion,
//! and the capture obligation of Losers (applied after legality).
//!
//! Generation writes into a [`Sink`], so the same code fills a move list or
//! just counts moves (perft's bulk counting at depth 1) without building
//! them.

use super::board::{Board, NO_SQ};
use super::moves::{Move, Piece, CASTLE, EN_PASSANT, NORMAL};
use super::spec::ChessVariant;
use super::tables::{Tables, SQ_MASK};
use crate::bitset::Bits;

/// Receiver of generated moves.
pub trait Sink<B: Bits> {
    /// One move.
    fn push(&mut self, m: Move);
    /// Moves of one piece from `from` to every square of `targets`.
    fn push_set(&mut self, from: usize, mut targets: B) {
        while !targets.is_empty() {
            let to = targets.pop_lsb();
            self.push(Move::new(from, to, NORMAL));
        }
    }
    /// Pawn moves to every square of `targets`, each from `to - delta`;
    /// with `promote`, the four promotions of each.
    fn push_pawns(&mut self, mut targets: B, delta: isize, promote: bool) {
        while !targets.is_empty() {
            let to = targets.pop_lsb();
            let from = (to as isize - delta) as usize;
            if promote {
                for k in [4u8, 3, 2, 1] {
                    self.push(Move::new(from, to, k));
                }
            } else {
                self.push(Move::new(from, to, NORMAL));
            }
        }
    }
    /// Number of moves received so far.
    fn pushed(&self) -> usize;
}

impl<B: Bits> Sink<B> for Vec<Move> {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        Vec::push(self, m);
    }
    #[inline(always)]
    fn pushed(&self) -> usize {
        self.len()
    }
}

/// A sink that only counts.
#[derive(Default)]
pub struct Counter(pub usize);

impl<B: Bits> Sink<B> for Counter {
    #[inline(always)]
    fn push(&mut self, _m: Move) {
        self.0 += 1;
    }
    #[inline(always)]
    fn push_set(&mut self, _from: usize, targets: B) {
        self.0 += targets.count() as usize;
    }
    #[inline(always)]
    fn push_pawns(&mut self, targets: B, _delta: isize, promote: bool) {
        self.0 += (targets.count() as usize) << (2 * promote as usize);
    }
    #[inline(always)]
    fn pushed(&self) -> usize {
        self.0
    }
}

/// Check and pin information of the side to move.
struct Ctx<B: Bits> {
    us: usize,
    them: usize,
    ksq: usize,
    occ: B,
    own: B,
    enemy: B,
    checkers: B,
    pinned: B,
    /// Squares a non-king move must land on (blocks or checker capture).
    check_mask: B,
}

impl<V: ChessVariant> Board<V> {
    fn ctx(&self, t: &Tables<V::B>) -> Ctx<V::B> {
        let us = self.side();
        let them = us ^ 1;
        let ksq = self.king(us);
        let occ = self.occupied();
        let own = self.colours[us];
        // The enemy king is never a capture target (only reachable in a
        // FEN where the side not to move is in check, which is accepted).
        let enemy = self.colours[them] & !self.kinds[Piece::King as usize];
        let checkers = self.attackers(t, ksq, them, occ);
        let queens = self.kinds[Piece::Queen as usize];
        let k = ksq & SQ_MASK;
        let mut snipers = ((t.rook_pseudo[k] & (self.kinds[Piece::Rook as usize] | queens))
            | (t.bishop_pseudo[k] & (self.kinds[Piece::Bishop as usize] | queens)))
            & self.colours[them];
        let mut pinned = V::B::ZERO;
        while !snipers.is_empty() {
            let s = snipers.pop_lsb();
            let between = t.between(ksq, s) & occ;
            if !between.is_empty() && !between.more_than_one() {
                pinned |= between & own;
            }
        }
        let check_mask = if checkers.is_empty() {
            t.board
        } else if checkers.more_than_one() {
            V::B::ZERO
        } else {
            t.between(ksq, checkers.lsb()) | checkers
        };
        Ctx {
            us,
            them,
            ksq,
            occ,
            own,
            enemy,
            checkers,
            pinned,
            check_mask,
        }
    }

    /// Generate the legal moves into `sink`. With mandatory capture the
    /// legal captures are generated first and, if there is any, nothing
    /// else (`docs/rules.md` §1: legality before the capture obligation).
    #[inline]
    pub fn generate<S: Sink<V::B>>(&self, sink: &mut S) {
        let t = V::tables();
        let cx = self.ctx(t);
        if V::MANDATORY_CAPTURE {
            let before = sink.pushed();
            self.gen_phase::<S, true, false>(t, &cx, sink);
            if sink.pushed() == before {
                self.gen_phase::<S, false, true>(t, &cx, sink);
            }
        } else {
            self.gen_phase::<S, true, true>(t, &cx, sink);
        }
    }

    /// Append the legal moves to `out` (cleared first).
    pub fn legal_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        self.generate(out);
    }

    /// Number of legal moves, without building them.
    #[inline]
    pub fn count_moves(&self) -> usize {
        let mut c = Counter(0);
        self.generate(&mut c);
        c.0
    }

    /// Moves whose destination holds an enemy piece (`CAPS`), or empty
    /// squares (`QUIETS`), or both; en passant counts as a capture.
    #[inline(always)]
    fn gen_phase<S: Sink<V::B>, const CAPS: bool, const QUIETS: bool>(
        &self,
        t: &Tables<V::B>,
        cx: &Ctx<V::B>,
        sink: &mut S,
    ) {
        let empty = !cx.occ & t.board;
        let mut dest = V::B::ZERO;
        if CAPS {
            dest |= cx.enemy;
        }
        if QUIETS {
            dest |= empty;
        }
        self.gen_king(t, cx, dest, sink);
        if cx.checkers.more_than_one() {
            return;
        }
        let target = dest & cx.check_mask;
        self.gen_pieces(t, cx, target, sink);
        self.gen_pawns::<S, CAPS, QUIETS>(t, cx, target, sink);
        if CAPS && V::EN_PASSANT && self.ep != NO_SQ {
            self.gen_ep(t, cx, sink);
        }
        if QUIETS && cx.checkers.is_empty() && !V::CASTLES.is_empty() && self.castling != 0 {
            self.gen_castles(t, cx, sink);
        }
    }

    #[inline(always)]
    fn gen_king<S: Sink<V::B>>(&self, t: &Tables<V::B>, cx: &Ctx<V::B>, dest: V::B, sink: &mut S) {
        let mut cand = t.king[cx.ksq & SQ_MASK] & dest;
        let occ = cx.occ ^ V::B::bit(cx.ksq);
        let mut ok = V::B::ZERO;
        while !cand.is_empty() {
            let to = cand.pop_lsb();
            if self.attackers(t, to, cx.them, occ).is_empty() {
                ok |= V::B::bit(to);
            }
        }
        sink.push_set(cx.ksq, ok);
    }

    #[inline(always)]
    fn gen_pieces<S: Sink<V::B>>(
        &self,
        t: &Tables<V::B>,
        cx: &Ctx<V::B>,
        target: V::B,
        sink: &mut S,
    ) {
        let own = cx.own;
        // Pinned pieces cannot help against a check.
        let movable = if cx.checkers.is_empty() {
            own
        } else {
            own & !cx.pinned
        };
        let mut knights = self.kinds[Piece::Knight as usize] & movable & !cx.pinned;
        while !knights.is_empty() {
            let from = knights.pop_lsb();
            sink.push_set(from, t.knight[from & SQ_MASK] & target);
        }
        let queens = self.kinds[Piece::Queen as usize];
        let mut diag = (self.kinds[Piece::Bishop as usize] | queens) & movable;
        while !diag.is_empty() {
            let from = diag.pop_lsb();
            let mut to = t.bishop_attacks(from, cx.occ) & target;
            if cx.pinned.has(from) {
                to &= t.line(cx.ksq, from);
            }
            sink.push_set(from, to);
        }
        let mut ortho = (self.kinds[Piece::Rook as usize] | queens) & movable;
        while !ortho.is_empty() {
            let from = ortho.pop_lsb();
            let mut to = t.rook_attacks(from, cx.occ) & target;
            if cx.pinned.has(from) {
                to &= t.line(cx.ksq, from);
            }
            sink.push_set(from, to);
        }
    }

    #[inline(always)]
    fn gen_pawns<S: Sink<V::B>, const CAPS: bool, const QUIETS: bool>(
        &self,
        t: &Tables<V::B>,
        cx: &Ctx<V::B>,
        target: V::B,
        sink: &mut S,
    ) {
        let us = cx.us;
        let w = V::WIDTH as isize;
        let fwd = if V::PAWN_UP[us] { w } else { -w };
        let pawns = self.pieces(us, Piece::Pawn);
        let free = pawns & !cx.pinned;
        let promo = t.rank[V::PROMOTION_RANK[us] & 15];
        let empty = !cx.occ & t.board;
        if QUIETS {
            let one = free.shift(fwd as i32) & empty;
            let single = one & target;
            sink.push_pawns(single & !promo, fwd, false);
            sink.push_pawns(single & promo, fwd, true);
            if let Some(r) = V::DOUBLE_STEP_RANK[us] {
                let step_rank = (r as isize + fwd.signum()) as usize;
                let two = (one & t.rank[step_rank & 15]).shift(fwd as i32) & empty & target;
                sink.push_pawns(two, 2 * fwd, false);
            }
        }
        if CAPS {
            let caps = cx.enemy & target;
            for (mask, d) in [(t.not_first_file, fwd - 1), (t.not_last_file, fwd + 1)] {
                let hit = (free & mask).shift(d as i32) & caps;
                sink.push_pawns(hit & !promo, d, false);
                sink.push_pawns(hit & promo, d, true);
            }
        }
        // Pinned pawns move only along the pin line (never while in check).
        let mut pinned = pawns & cx.pinned;
        if !cx.checkers.is_empty() {
            return;
        }
        while !pinned.is_empty() {
            let from = pinned.pop_lsb();
            let line = t.line(cx.ksq, from);
            let mut to = V::B::ZERO;
            if QUIETS {
                let one = (from as isize + fwd) as usize;
                if line.has(one) && empty.has(one) {
                    to |= V::B::bit(one);
                    if V::DOUBLE_STEP_RANK[us] == Some(from / V::WIDTH) {
                        let two = (one as isize + fwd) as usize;
                        if empty.has(two) {
                            to |= V::B::bit(two);
                        }
                    }
                }
            }
            if CAPS {
                to |= t.pawn_attacks[us][from & SQ_MASK] & cx.enemy & line;
            }
            let mut to_set = to;
            while !to_set.is_empty() {
                let sq = to_set.pop_lsb();
                if promo.has(sq) {
                    for k in [4u8, 3, 2, 1] {
                        sink.push(Move::new(from, sq, k));
                    }
                } else {
                    sink.push(Move::new(from, sq, NORMAL));
                }
            }
        }
    }

    /// En passant, checked by replaying the capture on the occupancy
    /// (covers pins along the rank the two pawns leave).
    #[inline(never)]
    fn gen_ep<S: Sink<V::B>>(&self, t: &Tables<V::B>, cx: &Ctx<V::B>, sink: &mut S) {
        let ep = self.ep as usize;
        let fwd = if V::PAWN_UP[cx.us] {
            V::WIDTH as isize
        } else {
            -(V::WIDTH as isize)
        };
        let cap = (ep as isize - fwd) as usize;
        let mut from_set = t.pawn_attackers[cx.us][ep & SQ_MASK] & self.pieces(cx.us, Piece::Pawn);
        while !from_set.is_empty() {
            let from = from_set.pop_lsb();
            let occ = (cx.occ ^ V::B::bit(from) ^ V::B::bit(cap)) | V::B::bit(ep);
            let attackers = self.attackers(t, cx.ksq, cx.them, occ) & !V::B::bit(cap);
            if attackers.is_empty() {
                sink.push(Move::new(from, ep, EN_PASSANT));
            }
        }
    }

    #[inline(never)]
    fn gen_castles<S: Sink<V::B>>(&self, t: &Tables<V::B>, cx: &Ctx<V::B>, sink: &mut S) {
        for c in V::CASTLES {
            if c.colour != cx.us || self.castling & c.right == 0 {
                continue;
            }
            if !(t.between(c.king_from, c.rook_from) & cx.occ).is_empty() {
                continue;
            }
            // The king may not pass through or land on an attacked square.
            let mut path = t.between(c.king_from, c.king_to) | V::B::bit(c.king_to);
            let mut safe = true;
            while !path.is_empty() {
                let sq = path.pop_lsb();
                if !self.attackers(t, sq, cx.them, cx.occ).is_empty() {
                    safe = false;
                    break;
                }
            }
            if safe {
                sink.push(Move::new(c.king_from, c.king_to, CASTLE));
            }
        }
    }
}
