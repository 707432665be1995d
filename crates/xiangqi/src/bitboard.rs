//! A set of squares as a 90-bit mask in a `u128` (bit `i` = square `i`).
//!
//! Sliding pieces need the occupancy of a file as a contiguous bit field, which a rank-major
//! mask does not give; [`Position`](crate::Position) therefore also keeps a *file-major*
//! ("rotated") occupancy mask where square (file, rank) is bit `file * 10 + rank`. See
//! [`crate::attacks`].

use crate::types::{SQUARES, Square};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// The 90 valid bits.
pub const BOARD_MASK: u128 = (1u128 << SQUARES) - 1;

/// A set of squares.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u128);

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 90 squares.
    pub const FULL: Bitboard = Bitboard(BOARD_MASK);

    /// The set holding only `sq`.
    #[inline]
    #[must_use]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1u128 << sq.index())
    }

    /// True if no square is set.
    #[inline]
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True if at least one square is set.
    #[inline]
    #[must_use]
    pub const fn is_nonempty(self) -> bool {
        self.0 != 0
    }

    /// True if `sq` is in the set.
    #[inline]
    #[must_use]
    pub const fn has(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }

    /// Number of squares in the set.
    #[inline]
    #[must_use]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// True if more than one square is set.
    #[inline]
    #[must_use]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square, if any.
    #[inline]
    #[must_use]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 { None } else { Some(Square::from_index(self.0.trailing_zeros())) }
    }

    /// The set with `sq` added.
    #[inline]
    #[must_use]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1u128 << sq.index())
    }

    /// The set with `sq` removed.
    #[inline]
    #[must_use]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1u128 << sq.index()))
    }
}

impl Iterator for Bitboard {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = Square::from_index(self.0.trailing_zeros());
        self.0 &= self.0 - 1;
        Some(sq)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

impl BitOr for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 | rhs.0)
    }
}

impl BitAnd for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitand(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & rhs.0)
    }
}

impl BitXor for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitxor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 ^ rhs.0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & BOARD_MASK)
    }
}

impl BitOrAssign for Bitboard {
    #[inline]
    fn bitor_assign(&mut self, rhs: Bitboard) {
        self.0 |= rhs.0;
    }
}

impl BitAndAssign for Bitboard {
    #[inline]
    fn bitand_assign(&mut self, rhs: Bitboard) {
        self.0 &= rhs.0;
    }
}

impl BitXorAssign for Bitboard {
    #[inline]
    fn bitxor_assign(&mut self, rhs: Bitboard) {
        self.0 ^= rhs.0;
    }
}

impl std::fmt::Debug for Bitboard {
    /// Draws the set as a board, rank 9 at the top.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f)?;
        for rank in (0..10).rev() {
            for file in 0..9 {
                let set = Square::from_coords(file, rank).is_some_and(|s| self.has(s));
                write!(f, "{}", if set { 'x' } else { '.' })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterate_and_count() {
        let squares: Vec<Square> = [0, 8, 45, 89].iter().filter_map(|&i| Square::new(i)).collect();
        let bb = squares.iter().fold(Bitboard::EMPTY, |b, &s| b.with(s));
        assert_eq!(bb.count(), 4);
        assert!(bb.more_than_one());
        assert_eq!(bb.collect::<Vec<_>>(), squares);
        assert_eq!((!Bitboard::EMPTY).count(), 90);
        assert_eq!(bb.without(squares[0]).first(), Some(squares[1]));
    }
}
