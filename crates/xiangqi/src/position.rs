//! The raw position: where the pieces stand, whose move it is, the capture clock, and the
//! incremental Zobrist key. No history: repetition and the other game-end rules live in
//! [`crate::Game`].
//!
//! A position is only ever built from a validated FEN ([`Position::from_fen`]) or by playing
//! legal moves, so it always has exactly one king per side and the side not to move is never in
//! check. [`Position::make`] / [`Position::unmake`] update everything incrementally; `Position`
//! is also small enough (about 300 bytes) to copy-make where that reads better.

use crate::attacks::{self, rotated_index};
use crate::bitboard::Bitboard;
use crate::types::{Color, Kind, Move, Piece, SQUARES, Square};
use crate::zobrist;

/// Everything needed to take a move back with [`Position::unmake`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Undo {
    /// The piece captured by the move, if any.
    pub captured: Option<Piece>,
    /// The capture clock before the move.
    pub rule_plies: u16,
    /// The key before the move.
    pub key: u64,
}

/// A xiangqi position.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    pub(crate) board: [Option<Piece>; SQUARES],
    pub(crate) by_color: [Bitboard; 2],
    pub(crate) by_kind: [Bitboard; 7],
    /// Occupancy in file-major order (bit `file * 10 + rank`), for file lookups of sliders.
    pub(crate) occ_t: u128,
    pub(crate) kings: [Square; 2],
    pub(crate) side: Color,
    pub(crate) key: u64,
    /// Plies since the last capture (the FEN half-move field).
    pub(crate) rule_plies: u16,
    /// The FEN full-move number: starts at 1, goes up after each Black move.
    pub(crate) fullmove: u32,
}

impl Position {
    /// The standard start position.
    #[must_use]
    pub fn startpos() -> Position {
        Position::from_fen(crate::START_FEN).unwrap_or_else(|e| unreachable!("start FEN is valid: {e}"))
    }

    /// An empty board (no kings): only for building positions piece by piece inside the crate.
    pub(crate) fn empty(side: Color) -> Position {
        Position {
            board: [None; SQUARES],
            by_color: [Bitboard::EMPTY; 2],
            by_kind: [Bitboard::EMPTY; 7],
            occ_t: 0,
            kings: [Square::from_index(0); 2],
            side,
            key: zobrist::side(side),
            rule_plies: 0,
            fullmove: 1,
        }
    }

    /// The piece on `sq`, if any.
    #[inline]
    #[must_use]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// The side to move.
    #[inline]
    #[must_use]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The Zobrist key of board and side to move.
    #[inline]
    #[must_use]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Plies since the last capture.
    #[inline]
    #[must_use]
    pub fn rule_plies(&self) -> u16 {
        self.rule_plies
    }

    /// The FEN full-move number.
    #[inline]
    #[must_use]
    pub fn fullmove(&self) -> u32 {
        self.fullmove
    }

    /// Where `color`'s king stands.
    #[inline]
    #[must_use]
    pub fn king(&self, color: Color) -> Square {
        self.kings[color.index()]
    }

    /// All occupied squares.
    #[inline]
    #[must_use]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// All occupied squares in file-major ("rotated") order, square (file, rank) at bit
    /// `file * 10 + rank`: the `occ_t` that the slider lookups of [`attacks`] take beside
    /// [`Position::occupied`]. Kept up to date as moves are made.
    #[inline]
    #[must_use]
    pub fn occupied_rotated(&self) -> u128 {
        self.occ_t
    }

    /// Squares holding `color`'s pieces.
    #[inline]
    #[must_use]
    pub fn pieces_of(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// Squares holding pieces of `kind`, both colours.
    #[inline]
    #[must_use]
    pub fn kind(&self, kind: Kind) -> Bitboard {
        self.by_kind[kind.index()]
    }

    /// Squares holding `color`'s pieces of `kind`.
    #[inline]
    #[must_use]
    pub fn pieces(&self, color: Color, kind: Kind) -> Bitboard {
        self.by_color[color.index()] & self.by_kind[kind.index()]
    }

    /// Iterates over (square, piece) for every piece on the board.
    pub fn iter(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(|s| self.board[s.index()].map(|p| (s, p)))
    }

    /// Puts `piece` on the empty square `sq`, updating every derived field.
    #[inline]
    pub(crate) fn put(&mut self, piece: Piece, sq: Square) {
        debug_assert!(self.board[sq.index()].is_none());
        self.board[sq.index()] = Some(piece);
        let b = Bitboard::from_square(sq);
        self.by_color[piece.color.index()] |= b;
        self.by_kind[piece.kind.index()] |= b;
        self.occ_t |= 1u128 << rotated_index(sq);
        self.key ^= zobrist::piece(piece, sq);
        if piece.kind == Kind::King {
            self.kings[piece.color.index()] = sq;
        }
    }

    /// Removes and returns the piece on the occupied square `sq`.
    #[inline]
    fn take(&mut self, sq: Square) -> Piece {
        let piece = self.board[sq.index()].take();
        let Some(piece) = piece else { unreachable!("take from empty square {sq}") };
        let b = Bitboard::from_square(sq);
        self.by_color[piece.color.index()] ^= b;
        self.by_kind[piece.kind.index()] ^= b;
        self.occ_t ^= 1u128 << rotated_index(sq);
        self.key ^= zobrist::piece(piece, sq);
        piece
    }

    /// Plays `mv`, which must be legal (pseudo-legal moves that leave the king in check corrupt
    /// nothing but break the invariant that the side not to move is never in check).
    ///
    /// # Panics
    /// Panics if the from-square is empty (a move that was never generated here).
    #[inline]
    pub fn make(&mut self, mv: Move) -> Undo {
        let undo = Undo { captured: self.board[mv.to().index()], rule_plies: self.rule_plies, key: self.key };
        if undo.captured.is_some() {
            self.take(mv.to());
            self.rule_plies = 0;
        } else {
            self.rule_plies = self.rule_plies.saturating_add(1);
        }
        let piece = self.take(mv.from());
        self.put(piece, mv.to());
        if self.side == Color::Black {
            self.fullmove += 1;
        }
        self.side = !self.side;
        self.key ^= zobrist::BLACK_TO_MOVE;
        undo
    }

    /// Takes back `mv`, which must be the last move made, with the [`Undo`] that made returned.
    ///
    /// # Panics
    /// Panics if `mv` was not the last move made (its to-square is empty).
    #[inline]
    pub fn unmake(&mut self, mv: Move, undo: Undo) {
        self.side = !self.side;
        if self.side == Color::Black {
            self.fullmove -= 1;
        }
        let piece = self.take(mv.to());
        self.put(piece, mv.from());
        if let Some(captured) = undo.captured {
            self.put(captured, mv.to());
        }
        self.rule_plies = undo.rule_plies;
        self.key = undo.key;
    }

    /// Passes the move (null move, for search): only the side to move changes; the capture clock
    /// is kept. The side to move must not be in check.
    #[inline]
    pub fn make_null(&mut self) -> Undo {
        let undo = Undo { captured: None, rule_plies: self.rule_plies, key: self.key };
        if self.side == Color::Black {
            self.fullmove += 1;
        }
        self.side = !self.side;
        self.key ^= zobrist::BLACK_TO_MOVE;
        undo
    }

    /// Takes back [`Position::make_null`].
    #[inline]
    pub fn unmake_null(&mut self, undo: Undo) {
        self.side = !self.side;
        if self.side == Color::Black {
            self.fullmove -= 1;
        }
        self.key = undo.key;
    }

    /// The position after `mv` (copy-make), leaving `self` unchanged.
    #[must_use]
    pub fn after(&self, mv: Move) -> Position {
        let mut next = self.clone();
        next.make(mv);
        next
    }

    /// The key computed from scratch, for checking the incremental one.
    #[must_use]
    pub fn key_from_scratch(&self) -> u64 {
        self.iter().fold(zobrist::side(self.side), |k, (s, p)| k ^ zobrist::piece(p, s))
    }

    /// True if square `sq` would be attacked by `by`'s king, rooks, cannons, horses or soldiers
    /// with occupancy `occ` / `occ_t`, ignoring `by`'s pieces on `ignore` (a square just captured
    /// on). Advisors and elephants are left out: they can never reach the enemy palace, so this
    /// answers "is a king on `sq` in check".
    #[inline]
    pub(crate) fn king_attacked(&self, sq: Square, by: Color, occ: u128, occ_t: u128, ignore: u128) -> bool {
        let them = self.by_color[by.index()].0 & !ignore;
        let rooks = them & (self.by_kind[Kind::Rook.index()].0 | self.by_kind[Kind::King.index()].0);
        let cannons = them & self.by_kind[Kind::Cannon.index()].0;
        let horses = them & self.by_kind[Kind::Horse.index()].0;
        let soldiers = them & self.by_kind[Kind::Soldier.index()].0;
        (soldiers & attacks::soldier_attackers(by, sq)) != 0
            || (horses != 0 && horses & attacks::horse_attackers(sq, occ) != 0)
            || (rooks != 0 && rooks & attacks::rook(sq, occ, occ_t) != 0)
            || (cannons != 0 && cannons & attacks::cannon_captures(sq, occ, occ_t) != 0)
    }

    /// The pieces of `by` giving check to the other side's king (flying king included).
    #[must_use]
    pub fn checkers_of(&self, by: Color) -> Bitboard {
        let ksq = self.king(!by);
        let occ = self.occupied().0;
        let them = self.by_color[by.index()].0;
        let k = |kind: Kind| them & self.by_kind[kind.index()].0;
        Bitboard(
            (k(Kind::Soldier) & attacks::soldier_attackers(by, ksq))
                | (k(Kind::Horse) & attacks::horse_attackers(ksq, occ))
                | ((k(Kind::Rook) | k(Kind::King)) & attacks::rook(ksq, occ, self.occ_t))
                | (k(Kind::Cannon) & attacks::cannon_captures(ksq, occ, self.occ_t)),
        )
    }

    /// The enemy pieces checking the side to move.
    #[inline]
    #[must_use]
    pub fn checkers(&self) -> Bitboard {
        self.checkers_of(!self.side)
    }

    /// True if the side to move is in check.
    #[inline]
    #[must_use]
    pub fn in_check(&self) -> bool {
        let us = self.side;
        self.king_attacked(self.king(us), !us, self.occupied().0, self.occ_t, 0)
    }

    /// True if the pseudo-legal move `mv` leaves the mover's king safe.
    #[inline]
    pub(crate) fn is_safe(&self, mv: Move) -> bool {
        let (from, to) = (mv.from(), mv.to());
        let us = self.side;
        let to_bit = 1u128 << to.index();
        let occ = (self.occupied().0 & !(1u128 << from.index())) | to_bit;
        let occ_t = (self.occ_t & !(1u128 << rotated_index(from))) | 1u128 << rotated_index(to);
        let ksq = if from == self.king(us) { to } else { self.king(us) };
        !self.king_attacked(ksq, !us, occ, occ_t, to_bit)
    }

    /// True if playing the legal move `mv` puts the opponent in check.
    #[must_use]
    pub fn gives_check(&self, mv: Move) -> bool {
        let next = self.after(mv);
        next.in_check()
    }

    /// True if `mv` captures.
    #[inline]
    #[must_use]
    pub fn is_capture(&self, mv: Move) -> bool {
        self.board[mv.to().index()].is_some()
    }

    /// All squares attacked by the piece on `sq` (capture targets of any colour for a cannon;
    /// for every other piece the squares it could move to if they held an enemy).
    #[must_use]
    pub fn attacks_from(&self, sq: Square) -> Bitboard {
        let Some(piece) = self.piece_at(sq) else {
            return Bitboard::EMPTY;
        };
        let occ = self.occupied().0;
        Bitboard(match piece.kind {
            Kind::King => attacks::king(sq),
            Kind::Advisor => attacks::advisor(sq),
            Kind::Elephant => attacks::elephant(sq, occ),
            Kind::Horse => attacks::horse(sq, occ),
            Kind::Rook => attacks::rook(sq, occ, self.occ_t),
            Kind::Cannon => attacks::cannon_captures(sq, occ, self.occ_t),
            Kind::Soldier => attacks::soldier(piece.color, sq),
        })
    }

    /// All pieces of `by` that attack `sq` (could capture a piece standing there), with every
    /// kind included. Used by the chase rules; move generation has faster paths.
    #[must_use]
    pub fn attackers_to(&self, sq: Square, by: Color) -> Bitboard {
        let occ = self.occupied().0;
        let them = self.by_color[by.index()].0;
        let k = |kind: Kind| them & self.by_kind[kind.index()].0;
        let elephants = k(Kind::Elephant);
        let mut elephant_attackers = 0;
        for e in Bitboard(elephants) {
            if attacks::elephant(e, occ) >> sq.index() & 1 != 0 {
                elephant_attackers |= 1u128 << e.index();
            }
        }
        Bitboard(
            (k(Kind::Soldier) & attacks::soldier_attackers(by, sq))
                | (k(Kind::Horse) & attacks::horse_attackers(sq, occ))
                | (k(Kind::Rook) & attacks::rook(sq, occ, self.occ_t))
                | (k(Kind::Cannon) & attacks::cannon_captures(sq, occ, self.occ_t))
                | (k(Kind::Advisor) & attacks::advisor(sq))
                | (k(Kind::King) & attacks::king(sq))
                | elephant_attackers,
        )
    }

    /// Checks every internal invariant (debug builds and tests).
    #[must_use]
    pub fn is_consistent(&self) -> bool {
        let mut by_color = [Bitboard::EMPTY; 2];
        let mut by_kind = [Bitboard::EMPTY; 7];
        let mut occ_t = 0u128;
        for (s, p) in self.iter() {
            by_color[p.color.index()] |= Bitboard::from_square(s);
            by_kind[p.kind.index()] |= Bitboard::from_square(s);
            occ_t |= 1u128 << rotated_index(s);
        }
        by_color == self.by_color
            && by_kind == self.by_kind
            && occ_t == self.occ_t
            && self.key == self.key_from_scratch()
            && Color::BOTH.iter().all(|&c| self.pieces(c, Kind::King) == Bitboard::from_square(self.king(c)))
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.fen())
    }
}

impl std::fmt::Display for Position {
    /// The board as text, Black at the top, with file letters and rank numbers.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for rank in (0..10).rev() {
            write!(f, "{rank} ")?;
            for file in 0..9 {
                let ch = Square::from_coords(file, rank).and_then(|s| self.piece_at(s)).map_or('.', Piece::fen_char);
                write!(f, " {ch}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "   a b c d e f g h i")?;
        write!(f, "{} to move", self.side.name())
    }
}
