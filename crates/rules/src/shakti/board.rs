//! The Shakti board as bitboards: tiles, pieces, side to move; sight,
//! check, move generation and move application (`docs/rules.md` §5).
//!
//! A piece always stands on a tile and tiles (not pieces) block sight, so
//! lines of sight change only when a jump removes a tile. Two facts follow
//! that keep generation cheap:
//! - a warrior step never changes whether either king is attacked, so it is
//!   legal whenever the mover is not in check;
//! - only king moves can escape a check (a jump only opens lines).

use super::action::ShaktiAction;
use super::rays::{adjacent, first_tile, SQUARES};
use crate::zobrist;
use crate::Player;

/// Zobrist key family of Shakti (the bytes of "SHAKTI").
const KEY_FAMILY: u64 = 0x5348_414B_5449;
/// Key kinds, each 49 keys wide: a hole, a king of each side, a warrior of
/// each side; the final key marks Black to move.
const HOLE: usize = 0;
const KING: [usize; 2] = [1, 2];
const WARRIOR: [usize; 2] = [3, 4];
const SIDE_KEY_INDEX: usize = 5 * SQUARES;

const fn build_keys() -> [u64; 5 * SQUARES + 1] {
    let mut keys = [0u64; 5 * SQUARES + 1];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = zobrist::key(KEY_FAMILY, i as u64);
        i += 1;
    }
    keys
}

static KEYS: [u64; 5 * SQUARES + 1] = build_keys();

#[inline]
fn key(kind: usize, sq: usize) -> u64 {
    KEYS[kind * SQUARES + sq]
}

#[inline]
fn bit(sq: usize) -> u64 {
    1u64 << sq
}

/// What the side to move faces when it has no legal move (§5, outcome
/// order: checkmate, then pass, then the draw when neither side can move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stuck {
    /// In check with no legal move: checkmated, loses.
    Checkmate,
    /// Not in check, no legal move, the opponent has one: pass.
    Pass,
    /// Neither side can move: draw.
    NeitherCanMove,
}

/// A complete Shakti board: which squares have tiles, where the pieces
/// stand, who moves. `Copy`, 32 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    /// Squares that still have a tile (a clear bit is a hole).
    pub tiles: u64,
    /// Warriors per side (`Player::index`).
    pub warriors: [u64; 2],
    /// King square per side; each side always has exactly one king (kings
    /// are never captured: warriors never capture).
    pub kings: [u8; 2],
    /// Side to move.
    pub side: Player,
}

impl Board {
    /// Squares holding any piece.
    #[inline]
    pub fn occupied(&self) -> u64 {
        self.warriors[0]
            | self.warriors[1]
            | bit(self.kings[0] as usize)
            | bit(self.kings[1] as usize)
    }

    /// Whether `p`'s king is in check: an enemy warrior is the first tile
    /// on one of its lines, at any distance (§5).
    pub fn in_check(&self, p: Player) -> bool {
        let king = self.kings[p.index()] as usize;
        let enemies = self.warriors[p.opponent().index()];
        (0..8).any(|dir| first_tile(king, dir, self.tiles).is_some_and(|t| enemies & bit(t) != 0))
    }

    /// Whether `p`'s king is in check or sees the enemy king (mutual check
    /// rule); a move is legal only if this is false for the mover afterwards.
    #[inline]
    fn king_exposed(&self, p: Player) -> bool {
        let king = self.kings[p.index()] as usize;
        let enemy = p.opponent().index();
        let attackers = self.warriors[enemy] | bit(self.kings[enemy] as usize);
        (0..8).any(|dir| first_tile(king, dir, self.tiles).is_some_and(|t| attackers & bit(t) != 0))
    }

    /// Whether the two kings see each other (forbidden by §5).
    pub fn kings_facing(&self) -> bool {
        let white = self.kings[0] as usize;
        let black = self.kings[1] as usize;
        (0..8).any(|dir| first_tile(white, dir, self.tiles) == Some(black))
    }

    /// Whether `action` (pseudo-legal for the side to move) leaves the
    /// mover's king neither in check nor facing the enemy king.
    #[inline]
    fn leaves_king_safe(&self, action: ShaktiAction) -> bool {
        let mut after = *self;
        after.apply(action);
        !after.king_exposed(self.side)
    }

    /// Call `f` on every legal move of the side to move (never `Pass`),
    /// king moves first, until `f` returns `false`. Returns `false` if `f`
    /// stopped it. Allocation-free.
    pub fn for_each_move(&self, f: &mut impl FnMut(ShaktiAction) -> bool) -> bool {
        let me = self.side.index();
        let occupied = self.occupied();
        let in_check = self.in_check(self.side);
        if !self.king_moves(occupied, in_check, f) {
            return false;
        }
        // While in check only king moves can be legal (§5 Clarifications).
        if in_check {
            return true;
        }
        let mut warriors = self.warriors[me];
        while warriors != 0 {
            let from = warriors.trailing_zeros() as usize;
            warriors &= warriors - 1;
            if !self.warrior_moves(from, occupied, f) {
                return false;
            }
        }
        true
    }

    /// King moves: not in check, to the first tile seen if empty; in check,
    /// to an adjacent tile, empty or holding an enemy warrior (captured).
    fn king_moves(
        &self,
        occupied: u64,
        in_check: bool,
        f: &mut impl FnMut(ShaktiAction) -> bool,
    ) -> bool {
        let king = self.kings[self.side.index()] as usize;
        let enemies = self.warriors[self.side.opponent().index()];
        for dir in 0..8 {
            let target = if in_check {
                // A hole next to the king closes that direction.
                adjacent(king, dir).filter(|&t| self.tiles & bit(t) != 0)
            } else {
                first_tile(king, dir, self.tiles)
            };
            let Some(to) = target else { continue };
            let free = occupied & bit(to) == 0 || (in_check && enemies & bit(to) != 0);
            let action = ShaktiAction::Step {
                from: king as u8,
                to: to as u8,
            };
            if free && self.leaves_king_safe(action) && !f(action) {
                return false;
            }
        }
        true
    }

    /// Warrior moves from `from` (the mover is not in check): a step to the
    /// first tile if empty, and a jump to the second if both are empty.
    fn warrior_moves(
        &self,
        from: usize,
        occupied: u64,
        f: &mut impl FnMut(ShaktiAction) -> bool,
    ) -> bool {
        for dir in 0..8 {
            let Some(first) = first_tile(from, dir, self.tiles) else {
                continue;
            };
            if occupied & bit(first) != 0 {
                continue;
            }
            // Tiles are unchanged by a step, so it cannot expose the king.
            let step = ShaktiAction::Step {
                from: from as u8,
                to: first as u8,
            };
            if !f(step) {
                return false;
            }
            let Some(second) = first_tile(first, dir, self.tiles) else {
                continue;
            };
            if occupied & bit(second) != 0 {
                continue;
            }
            // The removed tile may uncover a check or the enemy king.
            let jump = ShaktiAction::Jump {
                from: from as u8,
                over: first as u8,
                to: second as u8,
            };
            if self.leaves_king_safe(jump) && !f(jump) {
                return false;
            }
        }
        true
    }

    /// Whether the side to move has at least one legal move (not a pass).
    pub fn has_move(&self) -> bool {
        !self.for_each_move(&mut |_| false)
    }

    /// What happens when the side to move has no legal move.
    pub fn stuck(&self) -> Stuck {
        if self.in_check(self.side) {
            return Stuck::Checkmate;
        }
        let mut other = *self;
        other.side = self.side.opponent();
        if other.has_move() {
            Stuck::Pass
        } else {
            Stuck::NeitherCanMove
        }
    }

    /// Play `action` (legal for the side to move) and hand the turn over.
    /// Returns the change of the Zobrist hash (XOR it into the old hash).
    pub fn apply(&mut self, action: ShaktiAction) -> u64 {
        let me = self.side.index();
        let them = self.side.opponent().index();
        let mut delta = KEYS[SIDE_KEY_INDEX];
        match action {
            ShaktiAction::Pass => {}
            ShaktiAction::Step { from, to } if from == self.kings[me] => {
                let (from, to) = (from as usize, to as usize);
                self.kings[me] = to as u8;
                delta ^= key(KING[me], from) ^ key(KING[me], to);
                // A king in check may capture a warrior; its tile stays.
                if self.warriors[them] & bit(to) != 0 {
                    self.warriors[them] &= !bit(to);
                    delta ^= key(WARRIOR[them], to);
                }
            }
            ShaktiAction::Step { from, to } => {
                let (from, to) = (from as usize, to as usize);
                self.warriors[me] ^= bit(from) | bit(to);
                delta ^= key(WARRIOR[me], from) ^ key(WARRIOR[me], to);
            }
            ShaktiAction::Jump { from, over, to } => {
                let (from, over, to) = (from as usize, over as usize, to as usize);
                self.warriors[me] ^= bit(from) | bit(to);
                self.tiles &= !bit(over);
                delta ^= key(WARRIOR[me], from) ^ key(WARRIOR[me], to) ^ key(HOLE, over);
            }
        }
        self.side = self.side.opponent();
        delta
    }

    /// Zobrist hash of tiles, pieces and side to move, computed afresh.
    pub fn hash(&self) -> u64 {
        let mut h = if self.side == Player::Second {
            KEYS[SIDE_KEY_INDEX]
        } else {
            0
        };
        let mut add = |kind: usize, mut bits: u64| {
            while bits != 0 {
                h ^= key(kind, bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        };
        add(HOLE, !self.tiles & super::rays::ALL);
        for p in 0..2 {
            add(KING[p], bit(self.kings[p] as usize));
            add(WARRIOR[p], self.warriors[p]);
        }
        h
    }

    /// Perft with repetition ignored (§5 Clarifications: a pass counts as
    /// one child, a finished game has none). Allocation-free.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut count = 0u64;
        let mut any = false;
        self.for_each_move(&mut |action| {
            any = true;
            count += if depth == 1 {
                1
            } else {
                let mut child = *self;
                child.apply(action);
                child.perft(depth - 1)
            };
            true
        });
        if !any && self.stuck() == Stuck::Pass {
            let mut child = *self;
            child.apply(ShaktiAction::Pass);
            count = child.perft(depth - 1);
        }
        count
    }
}
