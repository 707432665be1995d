//! From a stored game back to positions: replays a [`GameRecord`]'s moves from its start FEN
//! and hands over, for each sample, the game *with its history* at the sample's ply and the
//! sample's visit distribution (and improved policy, if any) as moves of that game.
//!
//! Everything read from a shard is checked here, because a shard may come from another build
//! or another machine: the start FEN must parse, every move must be legal where it is played,
//! sample plies must increase and stay within the game, every pi and improved move must be
//! legal at its ply, and shares and values must be finite and in range. A failure is a
//! [`ShardError::Decode`] naming the file, the game id and the ply.
//!
//! Moves (played, in pi and in improved) are read with [`Game::parse_move_strict`]: a shard holds only what
//! [`Game::move_to_string`] wrote, so a move in any other form (xiangqi WXF or Chinese, draughts
//! PDN, stray whitespace) is a corrupt shard, not a notation to be guessed at.

use crate::{GameRecord, Sample, ShardError};
use game::Game;
use std::path::Path;

/// What [`GameRecord::replay_with`] hands its visitor for each sample.
pub struct SampleView<'a, G: Game> {
    /// The game at the sample's ply, with every earlier move as history.
    pub game: &'a G,
    /// The sample as stored.
    pub sample: &'a Sample,
    /// The sample's visit distribution as moves of `game`, in stored order.
    pub pi: &'a [(G::Move, f32)],
    /// The sample's improved policy as moves of `game`, in stored order; empty if it has none.
    pub improved: &'a [(G::Move, f32)],
}

/// A sample with its position rebuilt: what [`GameRecord::replay`] returns.
#[derive(Clone, Debug)]
pub struct ReplayedSample<G: Game> {
    /// The game at this ply, with every earlier move as history.
    pub game: G,
    /// Visit shares over legal moves of `game` (only moves with visits).
    pub pi: Vec<(G::Move, f32)>,
    /// The search's improved policy over legal moves of `game`; empty if the sample has none.
    pub improved: Vec<(G::Move, f32)>,
    /// The final result from the side to move's view (+1, 0, -1).
    pub z: f32,
    /// The search's root value, from the side to move's view.
    pub root_value: f32,
    /// Moves played before this position.
    pub ply: u32,
}

impl GameRecord {
    /// Replays the game, calling `visit` at each sample's ply, and returns the game after its
    /// last move. `path` names the shard in errors.
    ///
    /// # Errors
    /// [`ShardError::Decode`] naming `path`, the game id and the ply, if the start FEN, a move
    /// or a sample is invalid for `G` (see the [module docs](self)). Samples before the fault
    /// have been visited.
    pub fn replay_with<G: Game>(&self, path: &Path, mut visit: impl FnMut(SampleView<'_, G>)) -> Result<G, ShardError> {
        let id = self.game_id;
        let mut game = G::from_fen(&self.start_fen)
            .map_err(|e| ShardError::decode(path, format!("game {id}: bad start FEN '{}': {e}", self.start_fen)))?;
        let mut samples = self.samples.iter().peekable();
        let mut last_ply: Option<u32> = None;
        let (mut pi, mut improved) = (Vec::new(), Vec::new());
        for ply in 0..=self.moves.len() {
            while let Some(sample) = samples.next_if(|s| s.ply as usize == ply) {
                if last_ply == Some(sample.ply) {
                    return Err(ShardError::decode(path, format!("game {id}: two samples at ply {ply}")));
                }
                last_ply = Some(sample.ply);
                decode_sample(&game, sample, &mut pi, &mut improved)
                    .map_err(|msg| ShardError::decode(path, format!("game {id}, ply {ply}: {msg}")))?;
                visit(SampleView { game: &game, sample, pi: &pi, improved: &improved });
            }
            if let Some(sample) = samples.peek() {
                if (sample.ply as usize) < ply {
                    return Err(ShardError::decode(
                        path,
                        format!("game {id}: sample at ply {} out of order (after ply {ply})", sample.ply),
                    ));
                }
            }
            let Some(text) = self.moves.get(ply) else { break };
            let mv = game.parse_move_strict(text).map_err(|e| {
                ShardError::decode(path, format!("game {id}, ply {ply}: move '{text}' is not legal: {e}"))
            })?;
            game.play_unchecked(mv);
        }
        if let Some(sample) = samples.next() {
            return Err(ShardError::decode(
                path,
                format!("game {id}: sample at ply {} but the game has only {} moves", sample.ply, self.moves.len()),
            ));
        }
        Ok(game)
    }

    /// Replays the game and returns each sample with its position (one clone of the game per
    /// sample). `path` names the shard in errors.
    ///
    /// # Errors
    /// As [`GameRecord::replay_with`].
    pub fn replay<G: Game>(&self, path: &Path) -> Result<Vec<ReplayedSample<G>>, ShardError> {
        let mut out = Vec::with_capacity(self.samples.len());
        self.replay_with::<G>(path, |view| {
            out.push(ReplayedSample {
                game: view.game.clone(),
                pi: view.pi.to_vec(),
                improved: view.improved.to_vec(),
                z: view.sample.z,
                root_value: view.sample.root_value,
                ply: view.sample.ply,
            });
        })?;
        Ok(out)
    }
}

/// Checks a sample's values and parses its pi and improved moves in `game` into `pi` and
/// `improved` (cleared first).
fn decode_sample<G: Game>(
    game: &G,
    sample: &Sample,
    pi: &mut Vec<(G::Move, f32)>,
    improved: &mut Vec<(G::Move, f32)>,
) -> Result<(), String> {
    let in_range = |v: f32| v.is_finite() && (-1.0..=1.0).contains(&v);
    if !in_range(sample.z) {
        return Err(format!("z {} is not in [-1, 1]", sample.z));
    }
    if !in_range(sample.root_value) {
        return Err(format!("root value {} is not in [-1, 1]", sample.root_value));
    }
    decode_moves(game, "pi", &sample.pi, pi)?;
    decode_moves(game, "improved", &sample.improved, improved)
}

/// Parses a stored distribution (`what`: its field name, for errors) into `out` (cleared first).
fn decode_moves<G: Game>(
    game: &G,
    what: &str,
    stored: &[(String, f32)],
    out: &mut Vec<(G::Move, f32)>,
) -> Result<(), String> {
    out.clear();
    for (text, share) in stored {
        if !(share.is_finite() && *share >= 0.0) {
            return Err(format!("{what} share {share} of move '{text}' is not a finite non-negative number"));
        }
        let mv = game.parse_move_strict(text).map_err(|e| format!("{what} move '{text}' is not legal: {e}"))?;
        out.push((mv, *share));
    }
    Ok(())
}
