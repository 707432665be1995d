//! The game-agnostic vocabulary every other qizero crate speaks.
//!
//! Search (alpha-beta, MCTS), self-play, the arena and the encoders are generic over [`Game`]:
//! a position *with its history*, able to list legal moves, play and take back moves, and say
//! whether the game is over and how. The rules crates (`xiangqi`, `draughts`) implement it; this
//! crate has no dependencies and knows nothing about either game.
//!
//! Conventions that hold everywhere:
//! - [`Side::First`] moves first: Red in xiangqi, White in draughts.
//! - Results are given by [`Outcome`]; [`Outcome::value_for`] turns one into +1 / 0 / -1 from a
//!   chosen side's view. Values in search and training are always from the side to move's view.

#![warn(missing_docs)]

use std::fmt;
use std::hash::Hash;

/// One of the two players.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The side that moves first: Red in xiangqi, White in draughts.
    First,
    /// The side that moves second: Black in both games.
    Second,
}

impl Side {
    /// Both sides, first mover first.
    pub const BOTH: [Side; 2] = [Side::First, Side::Second];

    /// The other side.
    #[inline]
    #[must_use]
    pub const fn opponent(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }

    /// 0 for [`Side::First`], 1 for [`Side::Second`]: for indexing per-side arrays.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl std::ops::Not for Side {
    type Output = Side;
    #[inline]
    fn not(self) -> Side {
        self.opponent()
    }
}

/// Why a game ended in a win.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum WinReason {
    /// The loser is in check and has no legal move.
    Checkmate,
    /// The loser is not in check but has no legal move (a loss in xiangqi).
    Stalemate,
    /// The loser has no piece or no legal move left (draughts).
    NoMoves,
    /// The loser gave check on every one of its moves through a repetition (xiangqi).
    PerpetualCheck,
    /// The loser chased one piece on every one of its moves through a repetition (xiangqi).
    PerpetualChase,
    /// The loser resigned (self-play below the resignation threshold, or an engine's resign).
    Resignation,
    /// The loser ran out of time or forfeited (an external engine crashed or sent an illegal move).
    Forfeit,
    /// An arbiter decided (a match runner's adjudication rule).
    Adjudication,
}

/// Why a game ended in a draw.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DrawReason {
    /// A position occurred for the third time with no side to blame.
    Repetition,
    /// The move-count rule: too many plies without a capture (xiangqi: 120 plies).
    MoveRule,
    /// Neither side can ever mate (xiangqi: no piece left that can cross the river).
    InsufficientMaterial,
    /// Draughts: 25 moves each of only king moves without a capture.
    KingMoves,
    /// Draughts: the 16-move or 5-move endgame rule.
    Endgame,
    /// The players agreed, or an arbiter adjudicated a draw.
    Adjudication,
    /// A game cap set by the caller (for example a maximum game length in self-play).
    Cap,
}

/// How a finished game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// One side won.
    Win {
        /// The side that won.
        winner: Side,
        /// Why.
        reason: WinReason,
    },
    /// Nobody won.
    Draw(DrawReason),
}

impl Outcome {
    /// The winning side, if any.
    #[must_use]
    pub const fn winner(self) -> Option<Side> {
        match self {
            Outcome::Win { winner, .. } => Some(winner),
            Outcome::Draw(_) => None,
        }
    }

    /// +1 if `side` won, -1 if it lost, 0 for a draw.
    #[must_use]
    pub fn value_for(self, side: Side) -> f32 {
        match self.winner() {
            Some(w) if w == side => 1.0,
            Some(_) => -1.0,
            None => 0.0,
        }
    }

    /// The score in the usual tournament form: "1-0", "0-1" or "1/2-1/2".
    #[must_use]
    pub const fn score_str(self) -> &'static str {
        match self.winner() {
            Some(Side::First) => "1-0",
            Some(Side::Second) => "0-1",
            None => "1/2-1/2",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win { winner, reason } => {
                let who = match winner {
                    Side::First => "first player",
                    Side::Second => "second player",
                };
                write!(f, "{} ({who} wins by {reason:?})", self.score_str())
            }
            Outcome::Draw(reason) => write!(f, "1/2-1/2 (draw by {reason:?})"),
        }
    }
}

/// A move that is not legal in the position it was offered in ([`Game::play`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// The move, as its type writes itself for debugging.
    pub mv: String,
    /// The position's FEN.
    pub fen: String,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is not a legal move in {}", self.mv, self.fen)
    }
}

impl std::error::Error for IllegalMove {}

/// A game with its history: what search, MCTS, self-play and the arena are generic over.
///
/// Implementations keep the raw position (move generation) apart from the history-aware game
/// layer (repetition, move-count rules); this trait is the game layer. All methods that take a
/// move require it to be legal in the current position, except the two checked entry points for
/// moves from outside: [`Game::parse_move`] for text typed by people or other programs, and
/// [`Game::parse_move_strict`] for text this program wrote itself (stored games).
pub trait Game: Clone + Send + Sync + fmt::Debug + 'static {
    /// A move. Small and `Copy`: search stores many of them.
    type Move: Copy + Eq + Hash + fmt::Debug + Send + Sync + 'static;
    /// A fixed-capacity list of moves; building one does not allocate.
    type MoveList: AsRef<[Self::Move]> + AsMut<[Self::Move]> + Default;
    /// The error for bad input to [`Game::from_fen`], [`Game::parse_move`] and
    /// [`Game::parse_move_strict`].
    type Error: std::error::Error + Send + Sync + 'static;

    /// A short lowercase name: "xiangqi" or "draughts".
    const NAME: &'static str;

    /// The standard start position, no history.
    fn new() -> Self;

    /// A game starting from the position in `fen` (the game's own FEN dialect), no history.
    ///
    /// # Errors
    /// A typed error naming what is wrong with the FEN.
    fn from_fen(fen: &str) -> Result<Self, Self::Error>;

    /// The FEN of the current position.
    fn fen(&self) -> String;

    /// The side to move.
    fn side_to_move(&self) -> Side;

    /// The legal moves of the current position (empty if the side to move has none).
    /// Legal moves are listed even when the game is already decided by a history rule.
    fn legal_moves(&self) -> Self::MoveList;

    /// Plays `mv`, which must be legal here: the fast entry point for search, self-play and
    /// moves already checked (parsed by [`Game::parse_move`], taken from [`Game::legal_moves`]).
    ///
    /// # Panics
    /// In debug builds, if `mv` is not legal; in release builds an illegal move leaves the
    /// game in an unspecified (but memory-safe) state. Use [`Game::play`] for moves from outside.
    fn play_unchecked(&mut self, mv: Self::Move);

    /// Plays `mv` if it is legal here: the checked entry point for moves from outside.
    ///
    /// # Errors
    /// [`IllegalMove`] naming the move and the position, and nothing is played.
    fn play(&mut self, mv: Self::Move) -> Result<(), IllegalMove> {
        if !self.legal_moves().as_ref().contains(&mv) {
            return Err(IllegalMove { mv: format!("{mv:?}"), fen: self.fen() });
        }
        self.play_unchecked(mv);
        Ok(())
    }

    /// Takes back the last move played and returns it; `None` at the start of the history.
    fn undo(&mut self) -> Option<Self::Move>;

    /// The result if the game is over in the current position, judged with the history.
    fn outcome(&self) -> Option<Outcome>;

    /// The Zobrist key of the current position (board and side to move, not history).
    fn key(&self) -> u64;

    /// Number of moves played since the game's initial position.
    fn ply(&self) -> usize;

    /// The moves played since the initial position, oldest first.
    fn moves_played(&self) -> Vec<Self::Move>;

    /// The move in the game's engine-protocol notation (UCI for xiangqi, PDN/Hub for draughts).
    fn move_to_string(&self, mv: Self::Move) -> String;

    /// Reads a move in any notation the game accepts and checks it is legal here.
    ///
    /// # Errors
    /// A typed error saying why the text is not a legal move in this position.
    fn parse_move(&self, text: &str) -> Result<Self::Move, Self::Error>;

    /// Reads a move written exactly as [`Game::move_to_string`] writes it and checks it is legal
    /// here. Nothing else is accepted: no other notation, no surrounding whitespace, no other
    /// spelling of the same move. This is the reader for machine-written text such as stored
    /// games, where any other form means the data is not what it claims to be; for every legal
    /// `mv`, `parse_move_strict(&move_to_string(mv))` is `Ok(mv)`.
    ///
    /// # Errors
    /// A typed error if the text is not `move_to_string` of a legal move in this position.
    fn parse_move_strict(&self, text: &str) -> Result<Self::Move, Self::Error>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sides() {
        assert_eq!(!Side::First, Side::Second);
        assert_eq!(Side::Second.opponent(), Side::First);
        assert_eq!(Side::First.index(), 0);
        assert_eq!(Side::Second.index(), 1);
    }

    #[test]
    fn outcome_values() {
        let win = Outcome::Win { winner: Side::Second, reason: WinReason::Checkmate };
        assert_eq!(win.value_for(Side::Second), 1.0);
        assert_eq!(win.value_for(Side::First), -1.0);
        assert_eq!(win.score_str(), "0-1");
        let draw = Outcome::Draw(DrawReason::Repetition);
        assert_eq!(draw.value_for(Side::First), 0.0);
        assert_eq!(draw.winner(), None);
        assert_eq!(draw.to_string(), "1/2-1/2 (draw by Repetition)");
    }
}
