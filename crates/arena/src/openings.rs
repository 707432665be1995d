//! Openings files: the start positions of a match, one FEN per line.
//!
//! `#` starts a comment (to the end of the line); blank lines are skipped. Every FEN is read by
//! the game's own FEN reader and must leave a game that is not over, so a bad file is rejected
//! before any game starts. The match plays each opening twice, colours swapped, which cancels
//! most of whatever advantage an opening gives one side.

use game::Game;
use std::fmt;

/// An openings line that does not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningsError {
    /// 1-based line number.
    pub line: usize,
    /// The FEN as written.
    pub fen: String,
    /// Why it was rejected.
    pub message: String,
}

impl fmt::Display for OpeningsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "openings line {}: '{}': {}", self.line, self.fen, self.message)
    }
}

impl std::error::Error for OpeningsError {}

/// Reads an openings file's text into games, one per opening, in file order.
///
/// # Errors
/// The first line whose FEN does not read or whose game is already over; a text without any
/// opening is an error at line 0.
pub fn parse_openings<G: Game>(text: &str) -> Result<Vec<G>, OpeningsError> {
    let mut games = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let fen = line.split('#').next().unwrap_or_default().trim();
        if fen.is_empty() {
            continue;
        }
        let error = |message: String| OpeningsError { line: i + 1, fen: fen.to_string(), message };
        let game = G::from_fen(fen).map_err(|e| error(e.to_string()))?;
        if let Some(outcome) = game.outcome() {
            return Err(error(format!("the game is already over: {outcome}")));
        }
        games.push(game);
    }
    if games.is_empty() {
        return Err(OpeningsError { line: 0, fen: String::new(), message: "no opening in the file".to_string() });
    }
    Ok(games)
}

/// The shipped openings of `G` (`data/openings/<game>.txt`, compiled in).
///
/// # Panics
/// Never for a committed file: the tests read both.
#[must_use]
pub fn shipped<G: crate::ArenaGame>() -> Vec<G> {
    parse_openings(G::SHIPPED_OPENINGS).unwrap_or_else(|e| panic!("data/openings/{}.txt: {e}", G::NAME))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ArenaGame;
    use std::collections::HashSet;

    /// Every line of the shipped file is a distinct, playable position, and there are enough.
    fn check_shipped<G: ArenaGame>() {
        let games = shipped::<G>();
        assert!(games.len() >= 20, "{}: only {} openings", G::NAME, games.len());
        let keys: HashSet<u64> = games.iter().map(G::key).collect();
        assert_eq!(keys.len(), games.len(), "{}: a position appears twice", G::NAME);
        for game in &games {
            assert!(!game.legal_moves().as_ref().is_empty());
            assert_ne!(game.key(), G::new().key(), "{}: the start position is not an opening", G::NAME);
            // Our FEN of it reads back to the same position.
            let again = G::from_fen(&game.fen()).unwrap_or_else(|e| panic!("{}: {e}", game.fen()));
            assert_eq!(again.key(), game.key());
        }
        assert!(G::SHIPPED_OPENINGS.lines().any(|l| l.starts_with("# Source:")), "{}: no # Source: header", G::NAME);
    }

    #[test]
    fn shipped_xiangqi_openings_are_valid() {
        check_shipped::<xiangqi::Game>();
    }

    #[test]
    fn shipped_draughts_openings_are_valid() {
        check_shipped::<draughts::Game>();
    }

    #[test]
    fn bad_lines_are_named() {
        let text = "# comment\n\nW:W31-50:B1-20  # start\nW:W31-50:B1-20:junk\n";
        let e = parse_openings::<draughts::Game>(text).expect_err("bad FEN");
        assert_eq!(e.line, 4);
        assert!(e.to_string().starts_with("openings line 4: 'W:W31-50:B1-20:junk': "), "{e}");
        let e = parse_openings::<draughts::Game>("B:W31:B\n").expect_err("over");
        assert!(e.message.contains("already over"), "{e}");
        let e = parse_openings::<xiangqi::Game>("# nothing\n").expect_err("empty");
        assert_eq!(e.to_string(), "openings line 0: '': no opening in the file");
    }
}
