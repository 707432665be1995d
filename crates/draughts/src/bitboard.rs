//! Sets of squares as `u64` masks in the ghost-column layout (see [`crate::types`]).
//!
//! Bit `(n - 1) + (n - 1) / 10` holds square `n`; bits 10, 21, 32 and 43 are ghosts and bits
//! 54.. are unused, so [`BOARD`] has exactly 50 bits. The diagonal step in direction `d` (one of
//! [`DIRECTIONS`]) moves bit `i` to bit `i + d`, and a step off the board lands on a ghost or
//! outside 0..54: masking with [`BOARD`] removes it.

use crate::types::Square;

/// The 50 playable squares.
pub const BOARD: u64 = {
    let mut b = 0u64;
    let mut n = 0;
    while n < 50 {
        b |= 1 << (n + n / 10);
        n += 1;
    }
    b
};

/// The four diagonal steps as bit offsets: up-left, up-right (towards square 1), down-left,
/// down-right (towards square 50).
pub const DIRECTIONS: [i32; 4] = [-6, -5, 5, 6];

/// Steps White's men move along (towards row 1).
pub const WHITE_FORWARD: [i32; 2] = [-6, -5];
/// Steps Black's men move along (towards row 10).
pub const BLACK_FORWARD: [i32; 2] = [5, 6];

/// Moves every bit of `bb` by `d` (left for positive `d`), dropping bits pushed past either end.
#[inline]
#[must_use]
pub const fn shift(bb: u64, d: i32) -> u64 {
    if d >= 0 { bb << d } else { bb >> -d }
}

/// The bit of `sq`.
#[inline]
#[must_use]
pub const fn bit(sq: Square) -> u64 {
    1 << sq.bit_index()
}

const fn square_numbers() -> [u8; 64] {
    let mut t = [0u8; 64];
    let mut n = 0;
    while n < 50 {
        t[n + n / 10] = (n + 1) as u8;
        n += 1;
    }
    t
}

/// Square number of each bit (0 for ghosts and unused bits).
static SQUARE_OF_BIT: [u8; 64] = square_numbers();

/// The square at bit `index`, which must be a playable bit.
#[inline]
#[must_use]
pub fn square_at(index: u32) -> Square {
    Square::from_number(SQUARE_OF_BIT[index as usize])
}

/// True if bit `index` (possibly negative or past the board) is a playable square.
#[inline]
#[must_use]
pub const fn on_board(index: i32) -> bool {
    index >= 0 && index < 64 && BOARD >> index & 1 != 0
}

/// Iterates over the squares of a mask, lowest bit first (square order).
#[derive(Copy, Clone, Debug)]
pub struct Squares(pub u64);

impl Iterator for Squares {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(square_at(i))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout() {
        assert_eq!(BOARD.count_ones(), 50);
        for ghost in [10, 21, 32, 43] {
            assert_eq!(BOARD >> ghost & 1, 0);
        }
        let all: Vec<u32> = Squares(BOARD).map(Square::number).collect();
        assert_eq!(all, (1..=50).collect::<Vec<_>>());
    }

    #[test]
    fn steps_follow_the_diagonals() {
        // Every step of +-5 / +-6 that stays on the board joins diagonal neighbours.
        for s in Square::all() {
            for d in DIRECTIONS {
                let j = s.bit_index() as i32 + d;
                if on_board(j) {
                    let t = square_at(j as u32);
                    assert_eq!(s.row().abs_diff(t.row()), 1, "{s} {d}");
                    assert_eq!(s.column().abs_diff(t.column()), 1, "{s} {d}");
                }
            }
        }
        // And every diagonal neighbour is reached by one of them.
        let neighbours: usize =
            Square::all().map(|s| DIRECTIONS.iter().filter(|&&d| on_board(s.bit_index() as i32 + d)).count()).sum();
        // A 10x10 board has 2 * 9 * 9 diagonally adjacent pairs, half of them on dark squares;
        // counted from both ends that is 162.
        assert_eq!(neighbours, 162);
    }
}
