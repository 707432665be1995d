//! Opening books: positions reached by known opening lines, with the moves to play from them.
//!
//! A book is text, one line of moves per line from the game's start position, in any notation
//! the game reads (UCI or WXF for xiangqi, PDN or Hub for draughts); `#` starts a comment. Every
//! position along a line gets the line's next move. A move that several lines share is weighted
//! by how many do. Reading checks every move: a book can hold no illegal move.

use crate::SearchGame;
use rand::Rng;
use std::collections::HashMap;
use std::fmt;

/// A book line that does not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookError {
    /// 1-based line number.
    pub line: usize,
    /// The move text that failed.
    pub text: String,
    /// Why.
    pub message: String,
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "book line {}: move '{}': {}", self.line, self.text, self.message)
    }
}

impl std::error::Error for BookError {}

/// An opening book for game `G`.
pub struct Book<G: SearchGame> {
    entries: HashMap<u64, Vec<(G::Move, u32)>>,
}

impl<G: SearchGame> Book<G> {
    /// Reads a book; see the module docs for the format.
    ///
    /// # Errors
    /// The first move that is not legal where its line reaches.
    pub fn from_text(text: &str) -> Result<Book<G>, BookError> {
        let mut entries: HashMap<u64, Vec<(G::Move, u32)>> = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or_default();
            let mut game = G::new();
            for token in line.split_whitespace() {
                let mv = game.parse_move(token).map_err(|e| BookError {
                    line: i + 1,
                    text: token.to_string(),
                    message: e.to_string(),
                })?;
                let moves = entries.entry(game.book_key()).or_default();
                match moves.iter_mut().find(|(m, _)| *m == mv) {
                    Some((_, w)) => *w += 1,
                    None => moves.push((mv, 1)),
                }
                game.play_unchecked(mv);
            }
        }
        Ok(Book { entries })
    }

    /// Number of positions in the book.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True if the book holds no position.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The book moves for the current position with their weights.
    #[must_use]
    pub fn moves(&self, game: &G) -> &[(G::Move, u32)] {
        self.entries.get(&game.book_key()).map_or(&[], Vec::as_slice)
    }

    /// A book move chosen at random by weight, if the position is in the book.
    pub fn pick(&self, game: &G, rng: &mut impl Rng) -> Option<G::Move> {
        let moves = self.moves(game);
        let total: u32 = moves.iter().map(|(_, w)| w).sum();
        if total == 0 {
            return None;
        }
        let mut x = rng.random_range(0..total);
        for &(mv, w) in moves {
            if x < w {
                return Some(mv);
            }
            x -= w;
        }
        None
    }
}

/// The xiangqi book shipped with qizero (`data/books/xiangqi.txt`, compiled in).
///
/// # Panics
/// Never for a committed book: `tests` read it.
#[must_use]
pub fn xiangqi() -> Book<xiangqi::Game> {
    Book::from_text(include_str!("../../../data/books/xiangqi.txt"))
        .unwrap_or_else(|e| panic!("data/books/xiangqi.txt: {e}"))
}

/// The draughts book shipped with qizero (`data/books/draughts.txt`, compiled in).
///
/// # Panics
/// Never for a committed book: `tests` read it.
#[must_use]
pub fn draughts() -> Book<draughts::Game> {
    Book::from_text(include_str!("../../../data/books/draughts.txt"))
        .unwrap_or_else(|e| panic!("data/books/draughts.txt: {e}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn shipped_books_read() {
        assert!(!super::xiangqi().is_empty());
        assert!(!super::draughts().is_empty());
    }
}
