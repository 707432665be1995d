//! Squares, colours, pieces: the value types of the draughts crate.
//!
//! The 50 playable squares are numbered 1..=50 as in every draughts publication: square 1 is
//! the top-left dark square seen from White, five per row, row by row down to 50. Black starts
//! on 1-20 and moves down (towards 50); White starts on 31-50, moves up, and moves first.
//!
//! Inside the crate a square maps to a bit of a `u64` with one unused ("ghost") bit after every
//! two rows: bit = (n - 1) + (n - 1) / 10. With that layout the four diagonal steps are the same
//! shift everywhere (+5, +6 down, -5, -6 up) and a step off the left or right edge lands on a
//! ghost bit, which is never a playable square. See [`crate::bitboard`].

use std::fmt;

/// Number of playable squares.
pub const SQUARES: usize = 50;

/// A player colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// White: moves first, starts on 31-50, men move towards row 1 (squares 1-5).
    White = 0,
    /// Black: starts on 1-20, men move towards squares 46-50.
    Black = 1,
}

impl Color {
    /// Both colours, White first.
    pub const BOTH: [Color; 2] = [Color::White, Color::Black];

    /// 0 for White, 1 for Black.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The other colour.
    #[inline]
    #[must_use]
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// Lower-case English name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// The FEN / Hub letter: `W` or `B`.
    #[must_use]
    pub const fn letter(self) -> char {
        match self {
            Color::White => 'W',
            Color::Black => 'B',
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.opponent()
    }
}

impl From<Color> for game::Side {
    fn from(c: Color) -> game::Side {
        match c {
            Color::White => game::Side::First,
            Color::Black => game::Side::Second,
        }
    }
}

impl From<game::Side> for Color {
    fn from(s: game::Side) -> Color {
        match s {
            game::Side::First => Color::White,
            game::Side::Second => Color::Black,
        }
    }
}

/// Man or king.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A man: steps diagonally forward, captures in all four directions, promotes on the far row.
    Man,
    /// A king: flies along diagonals, moving and capturing over any distance.
    King,
}

/// A coloured piece.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece.
    pub color: Color,
    /// Man or king.
    pub kind: Kind,
}

/// A playable square, numbered 1..=50.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square with this number, if it is in 1..=50.
    #[inline]
    #[must_use]
    pub const fn new(number: u32) -> Option<Square> {
        if number >= 1 && number <= SQUARES as u32 { Some(Square(number as u8)) } else { None }
    }

    /// Internal constructor for numbers known to be in range.
    #[inline]
    pub(crate) const fn from_number(number: u8) -> Square {
        debug_assert!(number >= 1 && number <= SQUARES as u8);
        Square(number)
    }

    /// The square's number, 1..=50.
    #[inline]
    #[must_use]
    pub const fn number(self) -> u32 {
        self.0 as u32
    }

    /// Row 0..10 from the top (Black's back row, squares 1-5, is row 0).
    #[inline]
    #[must_use]
    pub const fn row(self) -> u32 {
        (self.0 as u32 - 1) / 5
    }

    /// Column 0..10 from the left (as seen by White).
    #[inline]
    #[must_use]
    pub const fn column(self) -> u32 {
        let i = (self.0 as u32 - 1) % 5;
        if self.row() % 2 == 0 { 2 * i + 1 } else { 2 * i }
    }

    /// The square on `row` and `column` (both 0..10), if it is a dark (playable) square.
    #[must_use]
    pub const fn from_row_column(row: u32, column: u32) -> Option<Square> {
        if row >= 10 || column >= 10 || (row + column) % 2 == 0 {
            return None;
        }
        Some(Square((row * 5 + column / 2 + 1) as u8))
    }

    /// The bit of this square in the crate's internal layout.
    #[inline]
    #[must_use]
    pub const fn bit_index(self) -> u32 {
        let n = self.0 as u32 - 1;
        n + n / 10
    }

    /// The square seen from the other side (n <-> 51 - n).
    #[inline]
    #[must_use]
    pub const fn rotate(self) -> Square {
        Square(51 - self.0)
    }

    /// True if a man of `color` on this square has reached the far row.
    #[inline]
    #[must_use]
    pub const fn is_promotion_row(self, color: Color) -> bool {
        match color {
            Color::White => self.0 <= 5,
            Color::Black => self.0 >= 46,
        }
    }

    /// All 50 squares in order.
    pub fn all() -> impl Iterator<Item = Square> {
        (1..=SQUARES as u8).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry() {
        let s1 = Square::new(1).expect("1");
        assert_eq!((s1.row(), s1.column()), (0, 1));
        let s6 = Square::new(6).expect("6");
        assert_eq!((s6.row(), s6.column()), (1, 0));
        let s50 = Square::new(50).expect("50");
        assert_eq!((s50.row(), s50.column()), (9, 8));
        for s in Square::all() {
            assert_eq!(Square::from_row_column(s.row(), s.column()), Some(s));
            assert_eq!(s.rotate().rotate(), s);
        }
        assert_eq!(Square::new(0), None);
        assert_eq!(Square::new(51), None);
        assert_eq!(s50.bit_index(), 53);
        assert_eq!(Square::new(11).map(Square::bit_index), Some(11));
    }
}
