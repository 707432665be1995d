//! FEN in the Pikafish / Fairy-Stockfish convention.
//!
//! `rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1`: ranks from Black's
//! back rank (9) down to Red's (0), upper case for Red, `w` (Red) or `b` (Black) to move, two
//! unused `-` fields, the plies since the last capture, and the full-move number.
//!
//! Reading is lenient about *form* where other tools are (the trailing fields may be left out;
//! `h` and `e` are read as horse and elephant, as Fairy-Stockfish writes them) and strict about
//! *substance*: the board must be one a game could reach piece by piece. Every fault is a
//! [`FenError`] naming what is wrong and where. Writing always gives the full six-field form
//! with Pikafish's letters.

use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::types::{Color, FILES, Kind, Piece, RANKS, Square};
use std::fmt;

/// The start position.
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// Largest capture clock a FEN may carry: at 120 the game is already over.
pub const MAX_RULE_PLIES: u16 = 119;

/// What is wrong with a FEN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// The text is empty.
    Empty,
    /// The board has the wrong number of ranks.
    RankCount {
        /// How many `/`-separated ranks were found.
        found: usize,
    },
    /// A rank describes more or fewer than 9 squares.
    RankLength {
        /// The rank (9 = Black's back rank, the first in the FEN).
        rank: usize,
        /// How many squares it described.
        squares: usize,
    },
    /// A character that is neither a piece letter nor a digit 1-9.
    UnknownPiece {
        /// The character.
        ch: char,
        /// The rank it appeared on.
        rank: usize,
    },
    /// A side has no king.
    KingMissing(Color),
    /// A side has more pieces of a kind than the game provides.
    TooMany {
        /// Whose pieces.
        color: Color,
        /// Which kind.
        kind: Kind,
        /// How many the FEN has.
        count: u32,
    },
    /// A piece stands on a square it can never reach (advisor or king outside the palace,
    /// elephant off its seven points, soldier behind its start line or sideways before the river).
    UnreachableSquare {
        /// The piece.
        piece: Piece,
        /// The square.
        square: Square,
    },
    /// Two soldiers of one side stand on the same file before crossing the river: impossible,
    /// since a soldier moves sideways only after crossing.
    StackedSoldiers {
        /// Whose soldiers.
        color: Color,
        /// The file (0 = a).
        file: usize,
    },
    /// The side-to-move field is missing.
    MissingSide,
    /// The side-to-move field is not `w`, `r` or `b`.
    BadSide(String),
    /// The capture-clock field is not a number.
    BadRuleField(String),
    /// The capture clock is 120 or more: the game would already be over.
    RuleFieldOutOfRange(u32),
    /// The full-move field is not a positive number.
    BadFullmove(String),
    /// Extra text after the six fields.
    TrailingText(String),
    /// The kings face each other on an open file.
    KingsFacing,
    /// The side that just moved is in check: its king could be captured.
    OpponentInCheck(Color),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => write!(f, "empty FEN"),
            FenError::RankCount { found } => {
                write!(f, "the board has {found} ranks; a xiangqi board has 10, separated by '/'")
            }
            FenError::RankLength { rank, squares } => {
                write!(f, "rank {rank} describes {squares} squares; every rank has 9")
            }
            FenError::UnknownPiece { ch, rank } => {
                write!(f, "unknown piece letter '{ch}' on rank {rank} (expected one of KABNRCP kabnrcp or a digit 1-9)")
            }
            FenError::KingMissing(c) => write!(f, "{} has no king", c.name()),
            FenError::TooMany { color, kind, count } => {
                write!(f, "{} has {count} {}s; at most {} is possible", color.name(), kind.name(), kind.max_count())
            }
            FenError::UnreachableSquare { piece, square } => write!(
                f,
                "a {} {} on {square} is on a square it can never reach",
                piece.color.name(),
                piece.kind.name()
            ),
            FenError::StackedSoldiers { color, file } => write!(
                f,
                "{} has two soldiers on file {} before the river, which cannot happen",
                color.name(),
                (b'a' + *file as u8) as char
            ),
            FenError::MissingSide => write!(f, "missing side to move (expected 'w' or 'b' after the board)"),
            FenError::BadSide(s) => write!(f, "side to move '{s}' is not 'w' or 'b'"),
            FenError::BadRuleField(s) => write!(f, "half-move clock '{s}' is not a number"),
            FenError::RuleFieldOutOfRange(n) => {
                write!(
                    f,
                    "half-move clock {n} is out of range 0..=119 (at 120 plies without capture the game is drawn)"
                )
            }
            FenError::BadFullmove(s) => {
                write!(f, "full-move number '{s}' is not a positive number")
            }
            FenError::TrailingText(s) => write!(f, "unexpected text after the FEN: '{s}'"),
            FenError::KingsFacing => write!(f, "the kings face each other on an open file"),
            FenError::OpponentInCheck(c) => {
                write!(f, "{} is not to move but is in check (its king could be captured)", c.name())
            }
        }
    }
}

impl std::error::Error for FenError {}

/// True if a piece of `piece` could ever stand on `sq`.
#[must_use]
pub fn reachable(piece: Piece, sq: Square) -> bool {
    // Work in the owner's frame: rank 0 is its own back rank.
    let (f, r) = match piece.color {
        Color::Red => (sq.file(), sq.rank()),
        Color::Black => (sq.file(), RANKS - 1 - sq.rank()),
    };
    match piece.kind {
        Kind::King => (3..=5).contains(&f) && r <= 2,
        Kind::Advisor => matches!((f, r), (3, 0) | (5, 0) | (4, 1) | (3, 2) | (5, 2)),
        Kind::Elephant => matches!((f, r), (2, 0) | (6, 0) | (0, 2) | (4, 2) | (8, 2) | (2, 4) | (6, 4)),
        Kind::Soldier => r >= 5 || (r >= 3 && f % 2 == 0),
        Kind::Horse | Kind::Rook | Kind::Cannon => true,
    }
}

impl Position {
    /// Reads a FEN; see the module docs for what is accepted.
    ///
    /// # Errors
    /// A [`FenError`] naming the first fault found.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let mut fields = fen.split_whitespace();
        let board = fields.next().ok_or(FenError::Empty)?;
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != RANKS {
            return Err(FenError::RankCount { found: ranks.len() });
        }

        let mut pos = Position::empty(Color::Red);
        let mut counts = [[0u32; 7]; 2];
        for (i, text) in ranks.iter().enumerate() {
            let rank = RANKS - 1 - i;
            let mut file = 0usize;
            for ch in text.chars() {
                if let Some(d) = ch.to_digit(10).filter(|d| (1..=9).contains(d)) {
                    file += d as usize;
                } else if let Some(piece) = Piece::from_fen_char(ch) {
                    if let Some(sq) = Square::from_coords(file, rank) {
                        counts[piece.color.index()][piece.kind.index()] += 1;
                        let n = counts[piece.color.index()][piece.kind.index()];
                        if n > piece.kind.max_count() {
                            return Err(FenError::TooMany { color: piece.color, kind: piece.kind, count: n });
                        }
                        if !reachable(piece, sq) {
                            return Err(FenError::UnreachableSquare { piece, square: sq });
                        }
                        pos.put(piece, sq);
                    }
                    file += 1;
                } else {
                    return Err(FenError::UnknownPiece { ch, rank });
                }
                if file > FILES {
                    break;
                }
            }
            if file != FILES {
                // Count what the rank described for the message, even past the ninth square.
                let squares = text.chars().map(|c| c.to_digit(10).filter(|d| *d >= 1).map_or(1, |d| d as usize)).sum();
                return Err(FenError::RankLength { rank, squares });
            }
        }
        for color in Color::BOTH {
            if counts[color.index()][Kind::King.index()] == 0 {
                return Err(FenError::KingMissing(color));
            }
            let soldiers = pos.pieces(color, Kind::Soldier);
            for file in 0..FILES {
                let uncrossed = soldiers.filter(|s| s.file() == file && s.on_own_side(color)).count();
                if uncrossed > 1 {
                    return Err(FenError::StackedSoldiers { color, file });
                }
            }
        }

        let side = match fields.next() {
            None => return Err(FenError::MissingSide),
            Some("w" | "r" | "W" | "R") => Color::Red,
            Some("b" | "B") => Color::Black,
            Some(other) => return Err(FenError::BadSide(other.to_string())),
        };
        pos.side = side;
        pos.key ^= crate::zobrist::side(side);

        // Optional fields: "- -", then the capture clock and the full-move number.
        let mut rest: Vec<&str> = fields.collect();
        while rest.first() == Some(&"-") {
            rest.remove(0);
        }
        if let Some(text) = rest.first() {
            let n: u32 = text.parse().map_err(|_| FenError::BadRuleField((*text).to_string()))?;
            if n > u32::from(MAX_RULE_PLIES) {
                return Err(FenError::RuleFieldOutOfRange(n));
            }
            pos.rule_plies = n as u16;
        }
        if let Some(text) = rest.get(1) {
            let n: u32 = text
                .parse()
                .ok()
                .filter(|&n: &u32| n >= 1)
                .ok_or_else(|| FenError::BadFullmove((*text).to_string()))?;
            pos.fullmove = n;
        }
        if rest.len() > 2 {
            return Err(FenError::TrailingText(rest[2..].join(" ")));
        }

        let (red_king, black_king) = (pos.king(Color::Red), pos.king(Color::Black));
        if red_king.file() == black_king.file()
            && (Bitboard(crate::attacks::between(red_king, black_king)) & pos.occupied()).is_empty()
        {
            return Err(FenError::KingsFacing);
        }
        if pos.checkers_of(side).is_nonempty() {
            return Err(FenError::OpponentInCheck(!side));
        }
        debug_assert!(pos.is_consistent());
        Ok(pos)
    }

    /// The FEN of this position, six fields, Pikafish letters.
    #[must_use]
    pub fn fen(&self) -> String {
        let mut out = String::with_capacity(90);
        for rank in (0..RANKS).rev() {
            let mut empty = 0;
            for file in 0..FILES {
                match Square::from_coords(file, rank).and_then(|s| self.piece_at(s)) {
                    Some(p) => {
                        if empty > 0 {
                            out.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        out.push(p.fen_char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                out.push('/');
            }
        }
        let side = if self.side == Color::Red { 'w' } else { 'b' };
        out.push_str(&format!(" {side} - - {} {}", self.rule_plies, self.fullmove));
        out
    }
}

impl std::str::FromStr for Position {
    type Err = FenError;
    fn from_str(s: &str) -> Result<Position, FenError> {
        Position::from_fen(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_round_trip() {
        let pos = Position::from_fen(START_FEN).expect("start");
        assert_eq!(pos.fen(), START_FEN);
        assert!(pos.is_consistent());
    }

    #[test]
    fn short_forms_are_read() {
        let pos = Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w").expect("short");
        assert_eq!(pos.fen(), START_FEN);
        let fsf = Position::from_fen("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1")
            .expect("fsf letters");
        assert_eq!(fsf.fen(), START_FEN);
        let clock = Position::from_fen("4k4/9/9/9/9/9/9/9/9/3K5 b - - 37 20").expect("clock");
        assert_eq!((clock.rule_plies(), clock.fullmove()), (37, 20));
        assert_eq!(clock.fen(), "4k4/9/9/9/9/9/9/9/9/3K5 b - - 37 20");
    }

    fn err(fen: &str) -> FenError {
        match Position::from_fen(fen) {
            Ok(p) => panic!("accepted {fen}: {p:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn malformed_fens_are_named() {
        assert_eq!(err(""), FenError::Empty);
        assert_eq!(err("   "), FenError::Empty);
        assert_eq!(err("4k4/9/9 w"), FenError::RankCount { found: 3 });
        assert_eq!(err("4k4/9/9/9/9/9/9/9/9/3K4 w"), FenError::RankLength { rank: 0, squares: 8 });
        assert_eq!(err("4k5/9/9/9/9/9/9/9/9/3K5 w"), FenError::RankLength { rank: 9, squares: 10 });
        assert_eq!(err("4k4/9/9/9/9/9/9/9/9/3K4x w"), FenError::UnknownPiece { ch: 'x', rank: 0 });
        assert_eq!(err("4k4/9/9/9/9/9/9/9/9/3K0 w"), FenError::UnknownPiece { ch: '0', rank: 0 });
        assert_eq!(err("4k4/9/9/9/9/9/9/9/9/9 w"), FenError::KingMissing(Color::Red));
        assert_eq!(
            err("4k4/9/9/9/9/9/9/9/4K4/3K5 w"),
            FenError::TooMany { color: Color::Red, kind: Kind::King, count: 2 }
        );
        assert_eq!(
            err("4k4/9/9/9/9/9/9/9/9/RRR1K4 w"),
            FenError::TooMany { color: Color::Red, kind: Kind::Rook, count: 3 }
        );
        assert!(matches!(err("4k4/9/9/9/9/9/9/9/9/A2K5 w"), FenError::UnreachableSquare { .. }));
        assert!(matches!(err("4k4/9/9/9/9/9/9/9/1P7/3K5 w"), FenError::UnreachableSquare { .. }));
        assert!(matches!(err("4k4/9/9/9/9/9/9/9/9/K8 w"), FenError::UnreachableSquare { .. }));
        assert!(matches!(err("4k4/9/9/9/9/9/9/9/9/1B1K5 w"), FenError::UnreachableSquare { .. }));
        assert_eq!(err("4k4/9/9/9/9/P8/P8/9/9/3K5 w"), FenError::StackedSoldiers { color: Color::Red, file: 0 });
        assert_eq!(err("4k4/9/9/9/9/9/9/9/9/3K5"), FenError::MissingSide);
        assert_eq!(err("4k4/9/9/9/9/9/9/9/9/3K5 x"), FenError::BadSide("x".into()));
        assert_eq!(err("4k4/9/9/9/9/9/9/9/9/3K5 w - - x 1"), FenError::BadRuleField("x".into()));
        assert_eq!(err("4k4/9/9/9/9/9/9/9/9/3K5 w - - 120 1"), FenError::RuleFieldOutOfRange(120));
        assert_eq!(err("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 0"), FenError::BadFullmove("0".into()));
        assert_eq!(err("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1 z"), FenError::TrailingText("z".into()));
        assert_eq!(err("4k4/9/9/9/9/9/9/9/9/4K4 w"), FenError::KingsFacing);
        assert_eq!(err("4k4/9/9/9/9/9/9/9/9/3KR4 w"), FenError::OpponentInCheck(Color::Black));
        // Messages say what and where.
        assert_eq!(
            err("4k4/9/9/9/9/9/9/9/9/A2K5 w").to_string(),
            "a red advisor on a0 is on a square it can never reach"
        );
    }
}
