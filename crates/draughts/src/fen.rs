//! FEN for international draughts: `W:W31-50:B1-20`.
//!
//! The side to move (`W` or `B`), then one field per colour, each a colour letter followed by a
//! comma-separated list of squares; `K` before a square marks a king, and `a-b` stands for every
//! square from `a` to `b` (men only, or `Ka-b` for kings). Fields are separated by `:`; the two
//! colour fields may come in either order and may be empty (`W:W:B1`). A trailing `.` (as some
//! PDN files write) and surrounding whitespace are ignored.
//!
//! Reading rejects, with a [`FenError`] naming the fault: a missing or unknown side, a field
//! that does not start with `W` or `B`, a colour given twice, a square that is not a number in
//! 1..=50, a reversed range, a square listed twice, more than 20 pieces for a side, and a man
//! standing on its own promotion row (it would have become a king).
//!
//! Writing lists each colour's squares in order, men runs of three or more as ranges:
//! `W:W31-50:B1-20`, `B:WK3,28,33-35:B12,K44`.

use crate::position::Position;
use crate::types::{Color, Kind, Piece, Square};
use std::fmt;

/// The start position.
pub const START_FEN: &str = "W:W31-50:B1-20";

/// What is wrong with a draughts FEN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// The text is empty.
    Empty,
    /// The side to move is not `W` or `B`.
    BadSide(String),
    /// A colour field does not start with `W` or `B`.
    BadField(String),
    /// A colour has two fields.
    RepeatedColor(Color),
    /// More than two colour fields.
    TooManyFields(usize),
    /// A square is not a number in 1..=50.
    BadSquare(String),
    /// A range runs backwards (`40-31`).
    ReversedRange(String),
    /// A square is listed twice.
    DuplicateSquare(Square),
    /// A side has more than 20 pieces.
    TooManyPieces(Color, usize),
    /// A man stands on the row where it would have promoted.
    ManOnPromotionRow(Color, Square),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => write!(f, "empty FEN"),
            FenError::BadSide(s) => write!(f, "side to move '{s}' is not 'W' or 'B'"),
            FenError::BadField(s) => write!(f, "field '{s}' does not start with the colour letter 'W' or 'B'"),
            FenError::RepeatedColor(c) => write!(f, "{} pieces are given twice", c.name()),
            FenError::TooManyFields(n) => write!(f, "{n} colour fields; expected at most two (W and B)"),
            FenError::BadSquare(s) => write!(f, "'{s}' is not a square number 1-50 (optionally K-prefixed or a range)"),
            FenError::ReversedRange(s) => write!(f, "range '{s}' runs backwards"),
            FenError::DuplicateSquare(s) => write!(f, "square {s} is listed twice"),
            FenError::TooManyPieces(c, n) => write!(f, "{} has {n} pieces; at most 20 are possible", c.name()),
            FenError::ManOnPromotionRow(c, s) => {
                write!(f, "a {} man on {s} stands on its promotion row (it would be a king)", c.name())
            }
        }
    }
}

impl std::error::Error for FenError {}

fn parse_square(text: &str, whole: &str) -> Result<Square, FenError> {
    text.parse::<u32>().ok().and_then(Square::new).ok_or_else(|| FenError::BadSquare(whole.to_string()))
}

/// Parses one colour field's list into (square, kind) pairs.
fn parse_list(list: &str) -> Result<Vec<(Square, Kind)>, FenError> {
    let mut out = Vec::new();
    for token in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let (kind, body) = match token.strip_prefix(['K', 'k']) {
            Some(rest) => (Kind::King, rest),
            None => (Kind::Man, token),
        };
        match body.split_once('-') {
            None => out.push((parse_square(body, token)?, kind)),
            Some((a, b)) => {
                let b = b.strip_prefix(['K', 'k']).unwrap_or(b);
                let (a, b) = (parse_square(a, token)?, parse_square(b, token)?);
                if a > b {
                    return Err(FenError::ReversedRange(token.to_string()));
                }
                out.extend((a.number()..=b.number()).filter_map(Square::new).map(|s| (s, kind)));
            }
        }
    }
    Ok(out)
}

impl Position {
    /// Reads a FEN; see the module docs for the form.
    ///
    /// # Errors
    /// A [`FenError`] naming the first fault found.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let text = fen.trim().trim_end_matches('.').trim();
        let mut fields = text.split(':').map(str::trim);
        let side = match fields.next() {
            None | Some("") => return Err(FenError::Empty),
            Some("W" | "w") => Color::White,
            Some("B" | "b") => Color::Black,
            Some(other) => return Err(FenError::BadSide(other.to_string())),
        };
        let mut pos = Position::empty(side);
        let mut seen = [false; 2];
        let mut occupied = 0u64;
        let mut n_fields = 0;
        for field in fields {
            n_fields += 1;
            if n_fields > 2 {
                return Err(FenError::TooManyFields(n_fields));
            }
            let color = match field.chars().next() {
                Some('W' | 'w') => Color::White,
                Some('B' | 'b') => Color::Black,
                _ => return Err(FenError::BadField(field.to_string())),
            };
            if std::mem::replace(&mut seen[color.index()], true) {
                return Err(FenError::RepeatedColor(color));
            }
            let squares = parse_list(&field[1..])?;
            if squares.len() > 20 {
                return Err(FenError::TooManyPieces(color, squares.len()));
            }
            for (sq, kind) in squares {
                let b = crate::bitboard::bit(sq);
                if occupied & b != 0 {
                    return Err(FenError::DuplicateSquare(sq));
                }
                if kind == Kind::Man && sq.is_promotion_row(color) {
                    return Err(FenError::ManOnPromotionRow(color, sq));
                }
                occupied |= b;
                pos.put(sq, Piece { color, kind });
            }
        }
        Ok(pos)
    }

    /// The FEN of this position; see the module docs for the form.
    #[must_use]
    pub fn fen(&self) -> String {
        let mut out = String::new();
        out.push(self.side_to_move().letter());
        for color in Color::BOTH {
            out.push(':');
            out.push(color.letter());
            let squares: Vec<(Square, Kind)> =
                self.pieces_of(color).filter_map(|s| self.piece_at(s).map(|p| (s, p.kind))).collect();
            let mut items: Vec<String> = Vec::new();
            let mut i = 0;
            while i < squares.len() {
                let (s, kind) = squares[i];
                // A run of consecutive men.
                let mut j = i;
                while kind == Kind::Man
                    && j + 1 < squares.len()
                    && squares[j + 1].1 == Kind::Man
                    && squares[j + 1].0.number() == squares[j].0.number() + 1
                {
                    j += 1;
                }
                if j - i >= 2 {
                    items.push(format!("{}-{}", s, squares[j].0));
                    i = j + 1;
                    continue;
                }
                items.push(if kind == Kind::King { format!("K{s}") } else { s.to_string() });
                i += 1;
            }
            out.push_str(&items.join(","));
        }
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
    fn start_position() {
        let pos = Position::from_fen(START_FEN).expect("start");
        assert_eq!(pos, Position::startpos());
        assert_eq!(pos.fen(), START_FEN);
    }

    #[test]
    fn forms_that_read() {
        let a = Position::from_fen("B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46").expect("a");
        assert_eq!(a.fen(), "B:W6,9-11,20-23,30,K31,33,37,41-44,46:BK17,K24");
        assert_eq!(Position::from_fen(&a.fen()), Ok(a));
        assert_eq!(Position::from_fen(" W:W31-50:B1-20. "), Ok(Position::startpos()));
        assert_eq!(Position::from_fen("W:B1-20:W31-50"), Ok(Position::startpos()));
        let empty = Position::from_fen("W:W:B").expect("empty board");
        assert_eq!(empty.fen(), "W:W:B");
        let kings = Position::from_fen("W:WK1-3:B40").expect("king range");
        assert_eq!(kings.fen(), "W:WK1,K2,K3:B40");
    }

    #[test]
    fn faults_are_named() {
        let err = |s: &str| Position::from_fen(s).expect_err(s);
        assert_eq!(err(""), FenError::Empty);
        assert_eq!(err("X:W1:B2"), FenError::BadSide("X".into()));
        assert_eq!(err("W:Z1:B2"), FenError::BadField("Z1".into()));
        assert_eq!(err("W:W31:W32"), FenError::RepeatedColor(Color::White));
        assert_eq!(err("W:W31:B1:W2"), FenError::TooManyFields(3));
        assert_eq!(err("W:W51:B1"), FenError::BadSquare("51".into()));
        assert_eq!(err("W:Wx:B1"), FenError::BadSquare("x".into()));
        assert_eq!(err("W:W40-31:B1"), FenError::ReversedRange("40-31".into()));
        assert_eq!(err("W:W31,31:B1"), FenError::DuplicateSquare(Square::new(31).expect("31")));
        assert_eq!(err("W:W31:B31"), FenError::DuplicateSquare(Square::new(31).expect("31")));
        assert_eq!(err("W:W6-30:B1"), FenError::TooManyPieces(Color::White, 25));
        assert_eq!(err("W:W3:B20"), FenError::ManOnPromotionRow(Color::White, Square::new(3).expect("3")));
        assert_eq!(err("W:W30:B47"), FenError::ManOnPromotionRow(Color::Black, Square::new(47).expect("47")));
        assert_eq!(err("W:W3:B20").to_string(), "a white man on 3 stands on its promotion row (it would be a king)");
    }
}
