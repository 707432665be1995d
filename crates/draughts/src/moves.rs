//! The draughts move: from, to, the set of pieces captured, and the landing squares in between.

use crate::bitboard::{Squares, bit};
use crate::types::Square;
use std::fmt;
use std::hash::{Hash, Hasher};

/// The most pieces one move can capture (all twenty of the opponent's).
pub const MAX_CAPTURES: usize = 20;

/// A move. Two moves are *the same move* (equal, same hash) when they have the same origin,
/// destination and set of captured pieces, whatever route they take: published perft counts and
/// the rules treat them as one. The route ([`Move::path`]) is kept for notation; a move built
/// by the generator carries the first route found.
#[derive(Copy, Clone)]
pub struct Move {
    from: Square,
    to: Square,
    /// Captured pieces, as a mask in the crate's bit layout.
    captured: u64,
    /// Landing squares strictly between `from` and `to`, in order (multi-captures only).
    path: [u8; MAX_CAPTURES - 1],
    path_len: u8,
}

impl Move {
    /// A move without capture.
    #[inline]
    #[must_use]
    pub const fn quiet(from: Square, to: Square) -> Move {
        Move { from, to, captured: 0, path: [0; MAX_CAPTURES - 1], path_len: 0 }
    }

    /// A capture with the given captured mask and intermediate landing squares.
    #[inline]
    pub(crate) fn capture(from: Square, to: Square, captured: u64, path: &[u8]) -> Move {
        let mut m = Move { from, to, captured, path: [0; MAX_CAPTURES - 1], path_len: path.len() as u8 };
        m.path[..path.len()].copy_from_slice(path);
        m
    }

    /// A capture from public parts: `captured` squares and the intermediate `path`. Used when
    /// reading notation; the caller checks the move against the legal ones.
    #[must_use]
    pub fn with_captures(from: Square, to: Square, captured: &[Square], path: &[Square]) -> Option<Move> {
        if captured.len() > MAX_CAPTURES || path.len() >= MAX_CAPTURES {
            return None;
        }
        let mask = captured.iter().fold(0, |m, &s| m | bit(s));
        let path: Vec<u8> = path.iter().map(|s| s.number() as u8).collect();
        Some(Move::capture(from, to, mask, &path))
    }

    /// Origin square.
    #[inline]
    #[must_use]
    pub const fn from(&self) -> Square {
        self.from
    }

    /// Destination square.
    #[inline]
    #[must_use]
    pub const fn to(&self) -> Square {
        self.to
    }

    /// True if the move captures.
    #[inline]
    #[must_use]
    pub const fn is_capture(&self) -> bool {
        self.captured != 0
    }

    /// Number of pieces captured.
    #[inline]
    #[must_use]
    pub const fn capture_count(&self) -> u32 {
        self.captured.count_ones()
    }

    /// The captured squares, in square order.
    pub fn captured(&self) -> impl ExactSizeIterator<Item = Square> + use<> {
        Squares(self.captured)
    }

    /// The captured squares as a mask in the crate's bit layout.
    #[inline]
    #[must_use]
    pub(crate) const fn captured_mask(&self) -> u64 {
        self.captured
    }

    /// The landing squares strictly between origin and destination, in order.
    pub fn path(&self) -> impl ExactSizeIterator<Item = Square> + '_ {
        self.path[..self.path_len as usize].iter().map(|&n| Square::from_number(n))
    }
}

impl PartialEq for Move {
    fn eq(&self, other: &Move) -> bool {
        self.from == other.from && self.to == other.to && self.captured == other.captured
    }
}

impl Eq for Move {}

impl Hash for Move {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.from, self.to, self.captured).hash(state);
    }
}

impl fmt::Display for Move {
    /// The Hub form, unambiguous without the position: `32-28`, or for a capture the origin,
    /// destination and captured squares joined by `x`: `28x19x23`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.captured == 0 {
            return write!(f, "{}-{}", self.from, self.to);
        }
        write!(f, "{}x{}", self.from, self.to)?;
        for s in self.captured() {
            write!(f, "x{s}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
