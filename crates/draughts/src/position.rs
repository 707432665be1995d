//! The raw position: men and kings of both colours, the side to move, and the Zobrist key.
//! No history: repetition and the endgame counting rules live in the game layer
//! ([`crate::Game`]).
//!
//! A position is four words, so it is copied freely; [`Position::make`] returns the previous
//! state for [`Position::unmake`].

use crate::bitboard::{BOARD, Squares, bit};
use crate::moves::Move;
use crate::types::{Color, Kind, Piece, SQUARES, Square};

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (s, z ^ (z >> 31))
}

/// Zobrist keys by [colour][man = 0, king = 1][bit index], and Black to move. Fixed seed, so keys
/// are the same on every build.
const KEYS: ([[[u64; 64]; 2]; 2], u64) = {
    let mut t = [[[0u64; 64]; 2]; 2];
    let mut state = 0x5131_7a65_726f_0002;
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 2 {
            let mut i = 0;
            while i < 64 {
                let (ns, v) = splitmix(state);
                state = ns;
                t[c][k][i] = v;
                i += 1;
            }
            k += 1;
        }
        c += 1;
    }
    (t, splitmix(state).1)
};
static PIECE_KEYS: [[[u64; 64]; 2]; 2] = KEYS.0;
const BLACK_TO_MOVE: u64 = KEYS.1;

/// Row 1 (squares 1-5), where White's men promote, and row 10 (46-50), where Black's do.
pub(crate) const PROMOTION: [u64; 2] = {
    let mut w = 0u64;
    let mut b = 0u64;
    let mut n = 0;
    while n < 5 {
        w |= 1 << n; // squares 1-5: bits 0-4
        b |= 1 << (45 + n + 4); // squares 46-50: bits 49-53
        n += 1;
    }
    [w, b]
};

/// What [`Position::unmake`] needs: the state before the move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Undo {
    pieces: [u64; 2],
    kings: u64,
    key: u64,
}

/// An international draughts position.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Position {
    /// Pieces by colour (men and kings).
    pub(crate) pieces: [u64; 2],
    /// Kings of both colours.
    pub(crate) kings: u64,
    pub(crate) side: Color,
    pub(crate) key: u64,
}

#[inline]
fn piece_key(color: Color, king: bool, index: u32) -> u64 {
    PIECE_KEYS[color.index()][usize::from(king)][index as usize]
}

impl Position {
    /// An empty board with `side` to move.
    #[must_use]
    pub fn empty(side: Color) -> Position {
        let key = if side == Color::Black { BLACK_TO_MOVE } else { 0 };
        Position { pieces: [0; 2], kings: 0, side, key }
    }

    /// The standard start position: Black on 1-20, White on 31-50, White to move.
    #[must_use]
    pub fn startpos() -> Position {
        let mut pos = Position::empty(Color::White);
        for n in 1..=20 {
            pos.put(Square::from_number(n), Piece { color: Color::Black, kind: Kind::Man });
        }
        for n in 31..=50 {
            pos.put(Square::from_number(n), Piece { color: Color::White, kind: Kind::Man });
        }
        pos
    }

    /// Puts `piece` on `sq` (which must be empty). For building positions.
    pub fn put(&mut self, sq: Square, piece: Piece) {
        let b = bit(sq);
        debug_assert!((self.pieces[0] | self.pieces[1]) & b == 0);
        self.pieces[piece.color.index()] |= b;
        if piece.kind == Kind::King {
            self.kings |= b;
        }
        self.key ^= piece_key(piece.color, piece.kind == Kind::King, sq.bit_index());
    }

    /// Sets the side to move.
    pub fn set_side_to_move(&mut self, side: Color) {
        if side != self.side {
            self.side = side;
            self.key ^= BLACK_TO_MOVE;
        }
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

    /// The piece on `sq`, if any.
    #[must_use]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let b = bit(sq);
        let color = if self.pieces[0] & b != 0 {
            Color::White
        } else if self.pieces[1] & b != 0 {
            Color::Black
        } else {
            return None;
        };
        let kind = if self.kings & b != 0 { Kind::King } else { Kind::Man };
        Some(Piece { color, kind })
    }

    /// Squares holding `color`'s pieces.
    pub fn pieces_of(&self, color: Color) -> impl ExactSizeIterator<Item = Square> + use<> {
        Squares(self.pieces[color.index()])
    }

    /// Number of `color`'s men and kings.
    #[must_use]
    pub fn count(&self, color: Color, kind: Kind) -> u32 {
        let mine = self.pieces[color.index()];
        match kind {
            Kind::Man => (mine & !self.kings).count_ones(),
            Kind::King => (mine & self.kings).count_ones(),
        }
    }

    /// `color`'s men and kings as a mask: bit [`Square::bit_index`] is set for each square held.
    /// For evaluation code that works on whole-board masks; see the crate's `bitboard` module
    /// for the layout (a ghost bit after every ten squares, so the four diagonal steps are the
    /// shifts -6, -5, +5, +6 everywhere).
    #[inline]
    #[must_use]
    pub fn pieces_mask(&self, color: Color) -> u64 {
        self.pieces[color.index()]
    }

    /// The kings of both colours, as a mask laid out like [`Position::pieces_mask`].
    #[inline]
    #[must_use]
    pub fn kings_mask(&self) -> u64 {
        self.kings
    }

    /// All occupied squares, as a mask.
    #[inline]
    pub(crate) fn occupied(&self) -> u64 {
        self.pieces[0] | self.pieces[1]
    }

    /// Empty playable squares, as a mask.
    #[inline]
    pub(crate) fn empty_squares(&self) -> u64 {
        BOARD & !self.occupied()
    }

    /// Plays `mv`, which must be legal here, and returns what [`Position::unmake`] needs.
    #[inline]
    pub fn make(&mut self, mv: &Move) -> Undo {
        let undo = Undo { pieces: self.pieces, kings: self.kings, key: self.key };
        let us = self.side;
        let (from, to) = (bit(mv.from()), bit(mv.to()));
        let was_king = self.kings & from != 0;
        // Captured pieces leave the board.
        let captured = mv.captured_mask();
        let mut c = captured;
        while c != 0 {
            let i = c.trailing_zeros();
            c &= c - 1;
            self.key ^= piece_key(!us, self.kings >> i & 1 != 0, i);
        }
        self.pieces[(!us).index()] &= !captured;
        self.kings &= !captured;
        // The mover leaves its origin (which may also be its destination).
        self.pieces[us.index()] &= !from;
        self.kings &= !from;
        self.key ^= piece_key(us, was_king, mv.from().bit_index());
        let king = was_king || PROMOTION[us.index()] & to != 0;
        self.pieces[us.index()] |= to;
        if king {
            self.kings |= to;
        }
        self.key ^= piece_key(us, king, mv.to().bit_index());
        self.side = !us;
        self.key ^= BLACK_TO_MOVE;
        undo
    }

    /// Takes back the last move made, given what [`Position::make`] returned.
    #[inline]
    pub fn unmake(&mut self, undo: Undo) {
        self.pieces = undo.pieces;
        self.kings = undo.kings;
        self.key = undo.key;
        self.side = !self.side;
    }

    /// The position after `mv` (copy-make).
    #[must_use]
    pub fn after(&self, mv: &Move) -> Position {
        let mut next = *self;
        next.make(mv);
        next
    }

    /// The key computed from scratch, to check the incremental one.
    #[must_use]
    pub fn key_from_scratch(&self) -> u64 {
        let mut key = if self.side == Color::Black { BLACK_TO_MOVE } else { 0 };
        for color in Color::BOTH {
            for sq in self.pieces_of(color) {
                key ^= piece_key(color, self.kings & bit(sq) != 0, sq.bit_index());
            }
        }
        key
    }

    /// Checks the internal invariants (debug builds and tests).
    #[must_use]
    pub fn is_consistent(&self) -> bool {
        self.pieces[0] & self.pieces[1] == 0
            && (self.pieces[0] | self.pieces[1]) & !BOARD == 0
            && self.kings & !(self.pieces[0] | self.pieces[1]) == 0
            && self.key == self.key_from_scratch()
    }

    /// Iterates over every (square, piece).
    pub fn iter(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(|s| self.piece_at(s).map(|p| (s, p)))
    }

    /// The 50 squares as Hub writes a position: `e` empty, `w`/`b` men, `W`/`B` kings.
    #[must_use]
    pub fn board_chars(&self) -> String {
        let mut out = String::with_capacity(SQUARES);
        for s in Square::all() {
            out.push(match self.piece_at(s) {
                None => 'e',
                Some(Piece { color: Color::White, kind: Kind::Man }) => 'w',
                Some(Piece { color: Color::Black, kind: Kind::Man }) => 'b',
                Some(Piece { color: Color::White, kind: Kind::King }) => 'W',
                Some(Piece { color: Color::Black, kind: Kind::King }) => 'B',
            });
        }
        out
    }
}

impl std::fmt::Display for Position {
    /// The board as text, White at the bottom: `o`/`x` men, `O`/`X` kings (White/Black).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for row in 0..10 {
            for col in 0..10 {
                let ch = match Square::from_row_column(row, col) {
                    None => ' ',
                    Some(s) => match self.piece_at(s) {
                        None => '.',
                        Some(Piece { color: Color::White, kind: Kind::Man }) => 'o',
                        Some(Piece { color: Color::White, kind: Kind::King }) => 'O',
                        Some(Piece { color: Color::Black, kind: Kind::Man }) => 'x',
                        Some(Piece { color: Color::Black, kind: Kind::King }) => 'X',
                    },
                };
                write!(f, "{ch} ")?;
            }
            writeln!(f)?;
        }
        write!(f, "{} to move", self.side.name())
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({}:{})", self.side.letter(), self.board_chars())
    }
}
