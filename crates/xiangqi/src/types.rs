//! Squares, colours, pieces and moves: the small value types the rest of the crate is built on.
//!
//! The board has 9 files (`a`..`i`, from Red's left) and 10 ranks (`0`..`9`, from Red's back
//! rank). A square is `rank * 9 + file`, so `a0` = 0 and `i9` = 89. Red sits at the bottom and
//! moves first.

use std::fmt;

/// Number of squares on the board.
pub const SQUARES: usize = 90;
/// Number of files (columns).
pub const FILES: usize = 9;
/// Number of ranks (rows).
pub const RANKS: usize = 10;

/// A player colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Red: the first player, at the bottom (ranks 0-4 are Red's side of the river).
    Red = 0,
    /// Black: the second player, at the top (ranks 5-9).
    Black = 1,
}

impl Color {
    /// Both colours, Red first.
    pub const BOTH: [Color; 2] = [Color::Red, Color::Black];

    /// 0 for Red, 1 for Black.
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
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }

    /// Lower-case English name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Black => "black",
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
            Color::Red => game::Side::First,
            Color::Black => game::Side::Second,
        }
    }
}

impl From<game::Side> for Color {
    fn from(s: game::Side) -> Color {
        match s {
            game::Side::First => Color::Red,
            game::Side::Second => Color::Black,
        }
    }
}

/// A kind of piece, without colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// King (general): one step orthogonally inside the palace.
    King = 0,
    /// Advisor: one step diagonally inside the palace.
    Advisor = 1,
    /// Elephant: two steps diagonally, blocked by a piece on the eye, never across the river.
    Elephant = 2,
    /// Horse: one step orthogonally then one diagonally outwards, blocked by a piece on the leg.
    Horse = 3,
    /// Rook (chariot): any distance orthogonally.
    Rook = 4,
    /// Cannon: moves like a rook, captures by jumping exactly one piece (the screen).
    Cannon = 5,
    /// Soldier: one step forward; also sideways once across the river.
    Soldier = 6,
}

impl Kind {
    /// All kinds, in index order.
    pub const ALL: [Kind; 7] =
        [Kind::King, Kind::Advisor, Kind::Elephant, Kind::Horse, Kind::Rook, Kind::Cannon, Kind::Soldier];

    /// Index 0..7.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// How many of this kind a side starts with (and can at most have).
    #[must_use]
    pub const fn max_count(self) -> u32 {
        match self {
            Kind::King => 1,
            Kind::Soldier => 5,
            _ => 2,
        }
    }

    /// Lower-case FEN letter (Black's); Red's is the upper-case one.
    #[must_use]
    pub const fn fen_char(self) -> char {
        match self {
            Kind::King => 'k',
            Kind::Advisor => 'a',
            Kind::Elephant => 'b',
            Kind::Horse => 'n',
            Kind::Rook => 'r',
            Kind::Cannon => 'c',
            Kind::Soldier => 'p',
        }
    }

    /// Lower-case English name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Kind::King => "king",
            Kind::Advisor => "advisor",
            Kind::Elephant => "elephant",
            Kind::Horse => "horse",
            Kind::Rook => "rook",
            Kind::Cannon => "cannon",
            Kind::Soldier => "soldier",
        }
    }
}

/// A coloured piece.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece.
    pub color: Color,
    /// What piece.
    pub kind: Kind,
}

impl Piece {
    /// A piece of `color` and `kind`.
    #[inline]
    #[must_use]
    pub const fn new(color: Color, kind: Kind) -> Piece {
        Piece { color, kind }
    }

    /// The FEN letter: upper case for Red, lower case for Black.
    #[must_use]
    pub fn fen_char(self) -> char {
        let c = self.kind.fen_char();
        match self.color {
            Color::Red => c.to_ascii_uppercase(),
            Color::Black => c,
        }
    }

    /// Reads a FEN letter. Accepts the Fairy-Stockfish aliases `h` (horse) and `e` (elephant).
    #[must_use]
    pub fn from_fen_char(ch: char) -> Option<Piece> {
        let color = if ch.is_ascii_uppercase() { Color::Red } else { Color::Black };
        let kind = match ch.to_ascii_lowercase() {
            'k' => Kind::King,
            'a' => Kind::Advisor,
            'b' | 'e' => Kind::Elephant,
            'n' | 'h' => Kind::Horse,
            'r' => Kind::Rook,
            'c' => Kind::Cannon,
            'p' => Kind::Soldier,
            _ => return None,
        };
        Some(Piece { color, kind })
    }
}

/// A square, `rank * 9 + file`; always in `0..90`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square with this index, if it is below 90.
    #[inline]
    #[must_use]
    pub const fn new(index: usize) -> Option<Square> {
        if index < SQUARES { Some(Square(index as u8)) } else { None }
    }

    /// The square on `file` (0..9) and `rank` (0..10), if both are on the board.
    #[inline]
    #[must_use]
    pub const fn from_coords(file: usize, rank: usize) -> Option<Square> {
        if file < FILES && rank < RANKS { Some(Square((rank * FILES + file) as u8)) } else { None }
    }

    /// Internal constructor for indices known to be in range.
    #[inline]
    pub(crate) const fn from_index(index: u32) -> Square {
        debug_assert!(index < SQUARES as u32);
        Square(index as u8)
    }

    /// Index 0..90.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File 0..9 (`a` = 0).
    #[inline]
    #[must_use]
    pub const fn file(self) -> usize {
        self.0 as usize % FILES
    }

    /// Rank 0..10 (Red's back rank = 0).
    #[inline]
    #[must_use]
    pub const fn rank(self) -> usize {
        self.0 as usize / FILES
    }

    /// The square moved by (`df`, `dr`), if it stays on the board.
    #[inline]
    #[must_use]
    pub const fn offset(self, df: i32, dr: i32) -> Option<Square> {
        let f = self.file() as i32 + df;
        let r = self.rank() as i32 + dr;
        if f >= 0 && f < FILES as i32 && r >= 0 && r < RANKS as i32 {
            Some(Square((r as usize * FILES + f as usize) as u8))
        } else {
            None
        }
    }

    /// The square seen from the other side (rotated 180 degrees).
    #[inline]
    #[must_use]
    pub const fn rotate(self) -> Square {
        Square((SQUARES - 1 - self.0 as usize) as u8)
    }

    /// The square mirrored left-right (file `a` <-> `i`).
    #[inline]
    #[must_use]
    pub const fn mirror(self) -> Square {
        Square((self.rank() * FILES + (FILES - 1 - self.file())) as u8)
    }

    /// True if this square is on `color`'s own side of the river.
    #[inline]
    #[must_use]
    pub const fn on_own_side(self, color: Color) -> bool {
        match color {
            Color::Red => self.rank() <= 4,
            Color::Black => self.rank() >= 5,
        }
    }

    /// True if this square is inside `color`'s palace.
    #[inline]
    #[must_use]
    pub const fn in_palace(self, color: Color) -> bool {
        let f = self.file();
        let r = self.rank();
        f >= 3
            && f <= 5
            && match color {
                Color::Red => r <= 2,
                Color::Black => r >= 7,
            }
    }

    /// Iterates over all 90 squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..SQUARES as u8).map(Square)
    }

    /// Parses `e0`-style coordinates: file `a`..`i`, rank `0`..`9`.
    #[must_use]
    pub fn parse(text: &str) -> Option<Square> {
        let b = text.as_bytes();
        if b.len() != 2 || !(b'a'..=b'i').contains(&b[0]) || !b[1].is_ascii_digit() {
            return None;
        }
        Square::from_coords((b[0] - b'a') as usize, (b[1] - b'0') as usize)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file() as u8) as char, self.rank())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A move: from-square and to-square, packed in 16 bits. A capture is a move whose
/// to-square holds an enemy piece; the position knows which.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(u16);

impl Move {
    /// A placeholder that is never a legal move (a1a1): stands for a null move in search.
    pub const NULL: Move = Move(0);

    /// The move from `from` to `to`.
    #[inline]
    #[must_use]
    pub const fn new(from: Square, to: Square) -> Move {
        Move(from.0 as u16 | (to.0 as u16) << 7)
    }

    /// Origin square.
    #[inline]
    #[must_use]
    pub const fn from(self) -> Square {
        Square((self.0 & 0x7f) as u8)
    }

    /// Destination square.
    #[inline]
    #[must_use]
    pub const fn to(self) -> Square {
        Square((self.0 >> 7) as u8)
    }

    /// The packed 14-bit form (`from | to << 7`), stable across versions.
    #[inline]
    #[must_use]
    pub const fn to_u16(self) -> u16 {
        self.0
    }

    /// Unpacks [`Move::to_u16`]; `None` if either square is off the board.
    #[must_use]
    pub const fn from_u16(v: u16) -> Option<Move> {
        let from = (v & 0x7f) as usize;
        let to = ((v >> 7) & 0x7f) as usize;
        if v >> 14 == 0 && from < SQUARES && to < SQUARES { Some(Move(v)) } else { None }
    }

    /// The move seen from the other side (both squares rotated 180 degrees).
    #[must_use]
    pub const fn rotate(self) -> Move {
        Move::new(self.from().rotate(), self.to().rotate())
    }

    /// The move mirrored left-right.
    #[must_use]
    pub const fn mirror(self) -> Move {
        Move::new(self.from().mirror(), self.to().mirror())
    }
}

impl fmt::Display for Move {
    /// UCI coordinates with ranks 0-9, as Pikafish writes them: `h2e2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_coordinates() {
        let e0 = Square::parse("e0").expect("e0");
        assert_eq!(e0.index(), 4);
        assert_eq!(e0.to_string(), "e0");
        let i9 = Square::parse("i9").expect("i9");
        assert_eq!(i9.index(), 89);
        assert_eq!(i9.rotate().to_string(), "a0");
        assert_eq!(e0.mirror(), e0);
        assert_eq!(Square::parse("a0").map(Square::mirror), Square::parse("i0"));
        assert!(Square::parse("j0").is_none());
        assert!(Square::parse("a10").is_none());
        assert!(e0.in_palace(Color::Red) && !e0.in_palace(Color::Black));
        assert!(Square::parse("e4").expect("e4").on_own_side(Color::Red));
        assert!(!Square::parse("e5").expect("e5").on_own_side(Color::Red));
    }

    #[test]
    fn move_packing() {
        for a in Square::all() {
            for b in [Square::from_index(0), Square::from_index(45), Square::from_index(89)] {
                let m = Move::new(a, b);
                assert_eq!((m.from(), m.to()), (a, b));
                assert_eq!(Move::from_u16(m.to_u16()), Some(m));
            }
        }
        assert_eq!(Move::from_u16(0x7f), None);
    }

    #[test]
    fn fen_letters() {
        for ch in "KABNRCPkabnrcp".chars() {
            let p = Piece::from_fen_char(ch).expect("letter");
            assert_eq!(p.fen_char(), ch);
        }
        assert_eq!(Piece::from_fen_char('H'), Some(Piece::new(Color::Red, Kind::Horse)));
        assert_eq!(Piece::from_fen_char('e'), Some(Piece::new(Color::Black, Kind::Elephant)));
        assert_eq!(Piece::from_fen_char('x'), None);
    }
}
