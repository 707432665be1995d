//! A classical alpha-beta engine, the yardstick every trained net is measured against.
//!
//! The search ([`Searcher`]) is generic over [`SearchGame`]: a [`game::Game`] (the history-aware
//! game layer, so repetitions, perpetual check and chase and the draw rules apply inside the
//! tree exactly as in a game) plus what a classical search needs besides: a static evaluation,
//! capture ordering, check detection and null moves. The two games implement it in
//! [`xiangqi_eval`] and [`draughts_eval`], each with its own evaluation.
//!
//! Scores are in hundredths of the game's unit piece (a xiangqi soldier, a draughts man), from
//! the side to move's view; mates are [`MATE`] minus the distance in plies.

pub mod bench;
pub mod book;
pub mod draughts_eval;
mod search;
pub mod teacher;
mod tt;
pub mod xiangqi_eval;

pub use search::{Limits, Score, SearchInfo, SearchResult, Searcher};
pub use teacher::LeafTeacher;
pub use tt::TranspositionTable;

use game::Outcome;

/// The score of giving mate now; a mate `n` plies away scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores at or beyond this (in absolute value) are mates.
pub const MATE_BOUND: i32 = MATE - 1_000;

/// What the search needs from a game beyond [`game::Game`].
pub trait SearchGame: game::Game {
    /// Null-move pruning is sound here (false where zugzwang is common, as in draughts).
    const NULL_MOVE: bool;

    /// Static evaluation from the side to move's view, in hundredths of a unit piece.
    fn evaluate(&self) -> i32;

    /// True if the side to move is under a forcing threat: in check (xiangqi), or obliged to
    /// capture (draughts). The search treats such a node as forcing: it extends it by a ply,
    /// prunes nothing there, and never reduces or prunes a move that leads to one.
    fn in_check(&self) -> bool;

    /// True if `mv` captures.
    fn is_capture(&self, mv: &Self::Move) -> bool;

    /// Ordering key for captures, larger first (most valuable victim, least valuable attacker).
    fn capture_order(&self, mv: &Self::Move) -> i32;

    /// A number that identifies `mv` among the legal moves of its position, for the
    /// transposition table, killer moves and the history table.
    fn move_id(mv: &Self::Move) -> u32;

    /// The moves quiescence search looks at, and whether standing pat is allowed (it is not when
    /// the side to move is in check, or must capture).
    fn quiescence_moves(&self) -> (Self::MoveList, bool);

    /// True if the side to move has pieces besides king and pawns/men (guards null moves
    /// against zugzwang).
    fn has_non_pawn_material(&self) -> bool;

    /// Passes the move (only called when [`SearchGame::NULL_MOVE`] and not in check); undone by
    /// [`game::Game::undo`].
    fn play_null(&mut self);

    /// The result by the game's history rules (repetition and draw counts), a repetition inside
    /// the search (earlier occurrence at or after `root_ply`) judged at its first recurrence.
    fn rule_outcome(&self, root_ply: usize) -> Option<Outcome>;

    /// Book key of the current position: the Zobrist key is fine.
    fn book_key(&self) -> u64 {
        self.key()
    }
}
