//! [`Opponent`]: a fixed player some self-play games are played against
//! (`selfplay.opponent_games`). Self-play between two copies of a weak net never shows either
//! what a stronger, fixed player punishes: a piece left to a capture two moves deep, a king left
//! open to a mate. Against an opponent that does punish it, the net's losses reach its value
//! target, and the opponent's own moves (when `selfplay.opponent_samples` is on) reach its
//! policy target as one-hot samples.
//!
//! This crate knows no engine: the `pipeline` crate implements the trait with the alpha-beta
//! engine, and tests use a stub.

use game::Game;

/// A fixed player, asked for one move at a time by any worker thread.
pub trait Opponent<G: Game>: Send + Sync {
    /// The move to play in `game` (which is not over), with the opponent's value of the
    /// position for the side to move, in [-1, 1]; `None` if it has none to offer.
    fn choose(&self, game: &G) -> Option<(G::Move, f32)>;
}
