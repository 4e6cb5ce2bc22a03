//! Square sets as machine words, generic over the word width.
//!
//! A board of up to 64 squares fits a `u64`, up to 128 squares a `u128`
//! (Viking Chess 12x7 = 84, tafl 11x11 = 121, Shakti 7x7 = 49). Square `sq`
//! is bit `sq` (numbering of [`crate::Geometry`]). The [`Bits`] trait holds
//! the few word operations move generators need; [`SquareSet`] wraps a word
//! with set-style methods and iteration. Shared by every variant that wants
//! bitboards (chess now; tafl and Shakti may use it too).

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Shl, Shr};

/// A machine word used as a set of squares (bit `i` = square `i`).
pub trait Bits:
    Copy
    + Eq
    + Hash
    + Debug
    + Default
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    /// The empty set.
    const ZERO: Self;
    /// Number of bits (maximum squares).
    const CAPACITY: usize;

    /// The set holding only `sq` (`sq < CAPACITY`).
    fn bit(sq: usize) -> Self;
    /// Number of squares in the set.
    fn count(self) -> u32;
    /// Lowest square; meaningless on the empty set.
    fn lsb(self) -> usize;
    /// Highest square; meaningless on the empty set.
    fn msb(self) -> usize;

    /// True for the empty set.
    #[inline(always)]
    fn is_empty(self) -> bool {
        self == Self::ZERO
    }

    /// True when `sq` is in the set.
    #[inline(always)]
    fn has(self, sq: usize) -> bool {
        !(self & Self::bit(sq)).is_empty()
    }

    /// True when the set holds two or more squares.
    fn more_than_one(self) -> bool;

    /// Remove and return the lowest square; meaningless on the empty set.
    #[inline(always)]
    fn pop_lsb(&mut self) -> usize {
        let sq = self.lsb();
        *self = self.clear_lowest();
        sq
    }

    /// The set without its lowest square.
    fn clear_lowest(self) -> Self;

    /// Shift towards higher squares by `n` when `n > 0`, lower when `n < 0`.
    #[inline(always)]
    fn shift(self, n: i32) -> Self {
        if n >= 0 {
            self << (n as u32)
        } else {
            self >> ((-n) as u32)
        }
    }
}

macro_rules! impl_bits {
    ($t:ty) => {
        impl Bits for $t {
            const ZERO: Self = 0;
            const CAPACITY: usize = <$t>::BITS as usize;

            #[inline(always)]
            fn bit(sq: usize) -> Self {
                (1 as $t) << (sq as u32 & (<$t>::BITS - 1))
            }
            #[inline(always)]
            fn count(self) -> u32 {
                self.count_ones()
            }
            #[inline(always)]
            fn lsb(self) -> usize {
                self.trailing_zeros() as usize
            }
            #[inline(always)]
            fn msb(self) -> usize {
                (<$t>::BITS - 1).wrapping_sub(self.leading_zeros()) as usize
            }
            #[inline(always)]
            fn more_than_one(self) -> bool {
                self & self.wrapping_sub(1) != 0
            }
            #[inline(always)]
            fn clear_lowest(self) -> Self {
                self & self.wrapping_sub(1)
            }
        }
    };
}

impl_bits!(u64);
impl_bits!(u128);

/// A set of squares backed by a word `B` (`u64` or `u128`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SquareSet<B: Bits>(pub B);

impl<B: Bits> SquareSet<B> {
    /// The empty set.
    pub const EMPTY: Self = SquareSet(B::ZERO);

    /// The set holding only `sq`.
    #[inline]
    pub fn single(sq: usize) -> Self {
        SquareSet(B::bit(sq))
    }

    /// True when `sq` is in the set.
    #[inline]
    pub fn contains(self, sq: usize) -> bool {
        self.0.has(sq)
    }

    /// Add `sq`.
    #[inline]
    pub fn insert(&mut self, sq: usize) {
        self.0 |= B::bit(sq);
    }

    /// Remove `sq`.
    #[inline]
    pub fn remove(&mut self, sq: usize) {
        self.0 &= !B::bit(sq);
    }

    /// Number of squares.
    #[inline]
    pub fn len(self) -> usize {
        self.0.count() as usize
    }

    /// True for the empty set.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0.is_empty()
    }

    /// The squares in increasing order.
    #[inline]
    pub fn iter(self) -> SquareIter<B> {
        SquareIter(self.0)
    }
}

impl<B: Bits> FromIterator<usize> for SquareSet<B> {
    fn from_iter<I: IntoIterator<Item = usize>>(iter: I) -> Self {
        let mut s = SquareSet::EMPTY;
        for sq in iter {
            s.insert(sq);
        }
        s
    }
}

/// Iterator over the squares of a word, lowest first.
#[derive(Clone, Copy, Debug)]
pub struct SquareIter<B: Bits>(pub B);

impl<B: Bits> Iterator for SquareIter<B> {
    type Item = usize;
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.0.is_empty() {
            None
        } else {
            Some(self.0.pop_lsb())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_operations_agree_on_both_widths() {
        let s: SquareSet<u128> = [0usize, 5, 83, 127].into_iter().collect();
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 5, 83, 127]);
        assert_eq!(s.len(), 4);
        assert_eq!(s.0.msb(), 127);
        assert_eq!(s.0.lsb(), 0);
        let t: SquareSet<u64> = [3usize, 63].into_iter().collect();
        assert_eq!(t.iter().collect::<Vec<_>>(), vec![3, 63]);
        assert!(t.0.more_than_one());
        assert!(!SquareSet::<u64>::single(9).0.more_than_one());
        assert_eq!(1u64.shift(3), 8);
        assert_eq!(8u128.shift(-3), 1);
        let mut u = t;
        u.remove(3);
        assert!(!u.contains(3) && u.contains(63));
    }
}
