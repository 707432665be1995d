//! Building a [`GameRecord`] while a game is played: the writer's side of [`crate::replay`].
//!
//! Self-play calls [`GameRecorder::record_sample`] after each search it wants to train on and
//! [`GameRecorder::record_move`] before playing each move, then [`GameRecorder::finish`] with
//! the result. The recorder turns moves into text, normalises the visit distribution (and the
//! improved policy, when the search gives one), and at the end fills in each sample's z from
//! the result and the side that was to move: the one place where the outcome is turned to the
//! side to move's view.

use crate::{GameRecord, GameResult, Sample};
use game::{Game, Outcome, Side};
use std::marker::PhantomData;

/// Collects one game's moves and samples as it is played.
#[derive(Clone, Debug)]
pub struct GameRecorder<G: Game> {
    game_id: u64,
    start_fen: String,
    moves: Vec<String>,
    samples: Vec<Sample>,
    /// The side to move at each sample, for z.
    movers: Vec<Side>,
    _game: PhantomData<fn() -> G>,
}

impl<G: Game> GameRecorder<G> {
    /// Starts recording `game` under `game_id`. Moves already in `game`'s history are recorded
    /// too: the record starts from the position before them, so a replay sees the same history
    /// the players saw.
    #[must_use]
    pub fn new(game_id: u64, game: &G) -> Self {
        let mut start = game.clone();
        while start.undo().is_some() {}
        let start_fen = start.fen();
        let mut moves = Vec::with_capacity(256);
        for mv in game.moves_played() {
            moves.push(start.move_to_string(mv));
            start.play_unchecked(mv);
        }
        GameRecorder { game_id, start_fen, moves, samples: Vec::new(), movers: Vec::new(), _game: PhantomData }
    }

    /// Records a sample at `game`'s current position: `visits` are the search's visit counts
    /// (or any non-negative weights) of legal moves of this position, `improved` the search's
    /// improved policy over them (Gumbel root search; an empty slice when the search gave none,
    /// as PUCT does), `root_value` the search's value of it from the side to move's view. In
    /// both lists, moves with weight 0 (or a weight that is not a positive finite number) are
    /// dropped and the rest are normalised to shares summing to 1 (the sample's `pi` and
    /// `improved`); `root_value` is clamped to [-1, 1] (NaN becomes 0).
    ///
    /// `game` must be the recorded game at its current ply (debug builds check the ply). At
    /// most one sample per ply; record it before [`GameRecorder::record_move`].
    pub fn record_sample(&mut self, game: &G, visits: &[(G::Move, f32)], improved: &[(G::Move, f32)], root_value: f32) {
        debug_assert_eq!(game.ply(), self.moves.len(), "the recorder and the game are at different plies");
        let pi = shares(game, visits);
        let improved = shares(game, improved);
        let root_value = if root_value.is_nan() { 0.0 } else { root_value.clamp(-1.0, 1.0) };
        self.samples.push(Sample { ply: self.moves.len() as u32, pi, z: 0.0, root_value, improved });
        self.movers.push(game.side_to_move());
    }

    /// Records `mv`, a legal move of `game`'s current position, about to be played: call it
    /// before `game.play_unchecked(mv)`, since the notation depends on the position it is played from.
    pub fn record_move(&mut self, game: &G, mv: G::Move) {
        debug_assert_eq!(game.ply(), self.moves.len(), "the recorder and the game are at different plies");
        self.moves.push(game.move_to_string(mv));
    }

    /// Moves recorded so far (the ply of the position the next move is played from).
    #[must_use]
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// Samples recorded so far.
    #[must_use]
    pub fn sample_count(&self) -> usize {
        self.samples.len()
    }

    /// Ends the game with `result` and returns its record, each sample's z set to the result's
    /// value for the side that was to move at that sample.
    #[must_use]
    pub fn finish(mut self, result: GameResult) -> GameRecord {
        for (sample, &mover) in self.samples.iter_mut().zip(&self.movers) {
            sample.z = result.value_for(mover);
        }
        GameRecord {
            game_id: self.game_id,
            start_fen: self.start_fen,
            moves: self.moves,
            result,
            samples: self.samples,
        }
    }

    /// [`GameRecorder::finish`] with a rules outcome (the reason stored by
    /// [`crate::outcome_reason`]).
    #[must_use]
    pub fn finish_outcome(self, outcome: Outcome) -> GameRecord {
        self.finish(GameResult::from(outcome))
    }
}

/// The positive finite weights of `weights` as moves in `game`'s notation with shares summing
/// to 1, in the given order; the rest dropped.
fn shares<G: Game>(game: &G, weights: &[(G::Move, f32)]) -> Vec<(String, f32)> {
    let kept = |w: &f32| w.is_finite() && *w > 0.0;
    let total: f32 = weights.iter().map(|&(_, w)| w).filter(kept).sum();
    weights.iter().filter(|(_, w)| kept(w)).map(|&(mv, w)| (game.move_to_string(mv), w / total)).collect()
}
