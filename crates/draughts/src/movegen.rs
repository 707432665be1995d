//! Legal move generation under the FMJD rules, without heap allocation.
//!
//! - Capturing is compulsory, and of all capture sequences only those taking the most pieces
//!   are legal (kings and men count the same).
//! - Men step diagonally forward; they capture forward and backward. Kings fly: they move, and
//!   capture, over any distance along a diagonal, and after a capture may land on any empty
//!   square beyond the captured piece.
//! - Captured pieces stay on the board until the move ends: they cannot be jumped twice and they
//!   block the way. The moving piece's own origin counts as empty, so a capture may pass over
//!   it or end on it.
//! - A man promotes only if its move ends on the far row; passing through it while capturing
//!   does not promote it, and it goes on capturing as a man.
//! - Moves with the same origin, destination and set of captured pieces are one move: only the
//!   first route found is kept.
//!
//! Quiet moves and the test for "any capture at all" are whole-board shifts; capture sequences
//! are found by a depth-first search per piece.

use crate::bitboard::{BLACK_FORWARD, DIRECTIONS, WHITE_FORWARD, on_board, shift, square_at};
use crate::moves::{MAX_CAPTURES, Move};
use crate::position::Position;
use crate::types::Color;
use arrayvec::ArrayVec;

/// Capacity of a [`MoveList`]: ample for any position (the largest known move counts of
/// international draughts are around 100; a king on the long diagonal has at most 17 quiet moves).
pub const MAX_MOVES: usize = 256;

/// A fixed-capacity list of moves.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

/// State of the capture search for one side.
struct CaptureSearch<'a> {
    /// Pieces of the side being captured that have not been taken yet on this route.
    enemy: u64,
    /// Occupied squares, the moving piece's origin removed (captured pieces stay).
    occupied: u64,
    from: u8,
    /// Landing squares so far (bit indices), for the route.
    path: ArrayVec<u8, MAX_CAPTURES>,
    /// Most pieces any route found so far takes.
    best: u32,
    out: &'a mut MoveList,
}

impl CaptureSearch<'_> {
    /// Records a finished route ending on bit `at` with `captured` taken.
    fn record(&mut self, at: u32, captured: u64) {
        let n = captured.count_ones();
        if n < self.best {
            return;
        }
        if n > self.best {
            self.best = n;
            self.out.clear();
        }
        let from = square_at(u32::from(self.from));
        let to = square_at(at);
        if self.out.iter().any(|m| m.from() == from && m.to() == to && m.captured_mask() == captured) {
            return;
        }
        // The path holds every landing square; the last one is the destination.
        let inner: ArrayVec<u8, MAX_CAPTURES> = self.path[..self.path.len().saturating_sub(1)]
            .iter()
            .map(|&i| square_at(u32::from(i)).number() as u8)
            .collect();
        if self.out.try_push(Move::capture(from, to, captured, &inner)).is_err() {
            debug_assert!(false, "move list overflow");
        }
    }

    /// Continues a man's capture from bit `at`, having taken `captured`.
    fn man(&mut self, at: u32, captured: u64) {
        let mut extended = false;
        for d in DIRECTIONS {
            let over = at as i32 + d;
            let land = over + d;
            if !on_board(land) {
                continue;
            }
            let (over_bit, land_bit) = (1u64 << over, 1u64 << land);
            if self.enemy & over_bit != 0 && self.occupied & land_bit == 0 {
                extended = true;
                self.enemy ^= over_bit;
                self.path.push(land as u8);
                self.man(land as u32, captured | over_bit);
                self.path.pop();
                self.enemy ^= over_bit;
            }
        }
        if !extended && captured != 0 {
            self.record(at, captured);
        }
    }

    /// Continues a king's capture from bit `at`, having taken `captured`.
    fn king(&mut self, at: u32, captured: u64) {
        let mut extended = false;
        for d in DIRECTIONS {
            let mut over = at as i32 + d;
            while on_board(over) && self.occupied & (1u64 << over) == 0 {
                over += d;
            }
            if !on_board(over) || self.enemy & (1u64 << over) == 0 {
                continue;
            }
            let over_bit = 1u64 << over;
            let mut land = over + d;
            while on_board(land) && self.occupied & (1u64 << land) == 0 {
                extended = true;
                self.enemy ^= over_bit;
                self.path.push(land as u8);
                self.king(land as u32, captured | over_bit);
                self.path.pop();
                self.enemy ^= over_bit;
                land += d;
            }
        }
        if !extended && captured != 0 {
            self.record(at, captured);
        }
    }
}

impl Position {
    /// True if the side to move has a capture.
    #[must_use]
    pub fn has_capture(&self) -> bool {
        let us = self.side.index();
        let empty = self.empty_squares();
        let enemy = self.pieces[1 - us];
        let men = self.pieces[us] & !self.kings;
        for d in DIRECTIONS {
            // A man on i with an enemy on i + d and an empty square on i + 2d.
            if men & shift(enemy, -d) & shift(empty, -2 * d) != 0 {
                return true;
            }
        }
        let mut kings = self.pieces[us] & self.kings;
        while kings != 0 {
            let k = kings.trailing_zeros() as i32;
            kings &= kings - 1;
            for d in DIRECTIONS {
                let mut i = k + d;
                while on_board(i) && empty & (1u64 << i) != 0 {
                    i += d;
                }
                if on_board(i) && enemy & (1u64 << i) != 0 && on_board(i + d) && empty & (1u64 << (i + d)) != 0 {
                    return true;
                }
            }
        }
        false
    }

    /// Appends the legal captures (all taking the maximum number of pieces) to `out`, which
    /// must be empty. Returns the number of pieces each takes (0 if there is no capture).
    fn generate_captures(&self, out: &mut MoveList) -> u32 {
        let us = self.side.index();
        let mut search = CaptureSearch {
            enemy: self.pieces[1 - us],
            occupied: self.occupied(),
            from: 0,
            path: ArrayVec::new(),
            best: 1,
            out,
        };
        let mut mine = self.pieces[us];
        while mine != 0 {
            let at = mine.trailing_zeros();
            mine &= mine - 1;
            let b = 1u64 << at;
            search.from = at as u8;
            search.occupied ^= b;
            if self.kings & b != 0 {
                search.king(at, 0);
            } else {
                search.man(at, 0);
            }
            search.occupied ^= b;
        }
        if search.out.is_empty() { 0 } else { search.best }
    }

    fn generate_quiet(&self, out: &mut MoveList) {
        let us = self.side;
        let empty = self.empty_squares();
        let men = self.pieces[us.index()] & !self.kings;
        let forward = if us == Color::White { WHITE_FORWARD } else { BLACK_FORWARD };
        for d in forward {
            let mut targets = shift(men, d) & empty;
            while targets != 0 {
                let to = targets.trailing_zeros();
                targets &= targets - 1;
                out.push(Move::quiet(square_at((to as i32 - d) as u32), square_at(to)));
            }
        }
        let mut kings = self.pieces[us.index()] & self.kings;
        while kings != 0 {
            let k = kings.trailing_zeros();
            kings &= kings - 1;
            for d in DIRECTIONS {
                let mut i = k as i32 + d;
                while on_board(i) && empty & (1u64 << i) != 0 {
                    out.push(Move::quiet(square_at(k), square_at(i as u32)));
                    i += d;
                }
            }
        }
    }

    /// All legal moves: the maximum captures if there is any capture, else the quiet moves.
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        if self.generate_captures(&mut list) == 0 {
            self.generate_quiet(&mut list);
        }
        list
    }

    /// The number of legal moves, counting quiet moves without listing them.
    #[must_use]
    pub fn count_legal(&self) -> usize {
        if self.has_capture() {
            let mut list = MoveList::new();
            self.generate_captures(&mut list);
            return list.len();
        }
        let us = self.side;
        let empty = self.empty_squares();
        let men = self.pieces[us.index()] & !self.kings;
        let forward = if us == Color::White { WHITE_FORWARD } else { BLACK_FORWARD };
        let mut n = forward.iter().map(|&d| (shift(men, d) & empty).count_ones() as usize).sum();
        let mut kings = self.pieces[us.index()] & self.kings;
        while kings != 0 {
            let k = kings.trailing_zeros() as i32;
            kings &= kings - 1;
            for d in DIRECTIONS {
                let mut i = k + d;
                while on_board(i) && empty & (1u64 << i) != 0 {
                    n += 1;
                    i += d;
                }
            }
        }
        n
    }

    /// True if `mv` is legal here (same origin, destination and captured set as a legal move).
    #[must_use]
    pub fn is_legal(&self, mv: &Move) -> bool {
        self.legal_moves().contains(mv)
    }

    /// The legal move equal to `mv`, with the generator's route: for moves read from text.
    #[must_use]
    pub fn find_legal(&self, mv: &Move) -> Option<Move> {
        self.legal_moves().iter().find(|m| *m == mv).copied()
    }
}
