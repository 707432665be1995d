//! [`MctsAgent`]: PUCT search guided by an evaluator (a checkpoint's net, or the rules alone),
//! and [`NetSource`], how the arena gets an evaluator for a checkpoint without linking a net
//! library itself.
//!
//! The agent searches every move from scratch with a fixed simulation budget and plays the
//! most visited move (no noise, temperature 0), so with the same evaluator a game is
//! reproducible. An evaluator that fails makes [`Agent::choose`] return
//! [`AgentError::Evaluation`], which stops the match (it never plays a move from a half-done
//! search). A seed still goes into each search: it breaks nothing but the ties a fresh
//! tree has before any simulation.

use crate::agent::{Agent, AgentError};
use crate::spec::MctsSpec;
use mcts::{Evaluator, MctsParams, Search, UniformEvaluator};
use std::path::Path;
use std::sync::Arc;

/// Where MCTS agents get their evaluator for a checkpoint. The command line implements it
/// with libtorch (one batching inference service per checkpoint, shared by every game played
/// at once); the arena library itself links no net.
pub trait NetSource<G: game::Game>: Send + Sync {
    /// The evaluator of the checkpoint at `checkpoint`.
    ///
    /// # Errors
    /// A message naming the file and what is wrong with it (missing, damaged, another game).
    fn evaluator(&self, checkpoint: &Path) -> Result<Arc<dyn Evaluator<G>>, String>;
}

/// A [`NetSource`] that has no nets: MCTS agents with a checkpoint cannot be built (those
/// without one, guided by the rules alone, can).
#[derive(Copy, Clone, Debug, Default)]
pub struct NoNets;

impl<G: game::Game> NetSource<G> for NoNets {
    fn evaluator(&self, checkpoint: &Path) -> Result<Arc<dyn Evaluator<G>>, String> {
        Err(format!("cannot load {}: this program plays no nets", checkpoint.display()))
    }
}

/// MCTS with a fixed number of simulations per move.
pub struct MctsAgent<G: game::Game> {
    name: String,
    evaluator: Arc<dyn Evaluator<G>>,
    params: MctsParams,
    simulations: u32,
    seed: u64,
}

impl<G: game::Game> MctsAgent<G> {
    /// The agent `spec` describes (named `name`), its evaluator taken from `nets` when the spec
    /// names a checkpoint, the uniform evaluator otherwise; `seed` drives its tie-breaks.
    ///
    /// # Errors
    /// [`AgentError::Checkpoint`] when the checkpoint cannot be loaded.
    pub fn new(name: &str, spec: &MctsSpec, nets: &dyn NetSource<G>, seed: u64) -> Result<MctsAgent<G>, AgentError> {
        let evaluator: Arc<dyn Evaluator<G>> = match &spec.checkpoint {
            Some(path) => nets
                .evaluator(path)
                .map_err(|message| AgentError::Checkpoint { path: path.display().to_string(), message })?,
            None => Arc::new(UniformEvaluator),
        };
        Ok(MctsAgent::with_evaluator(name, evaluator, spec, seed))
    }

    /// The agent `spec` describes, with `evaluator` (whatever checkpoint the spec names).
    #[must_use]
    pub fn with_evaluator(name: &str, evaluator: Arc<dyn Evaluator<G>>, spec: &MctsSpec, seed: u64) -> MctsAgent<G> {
        let params = MctsParams {
            dirichlet_epsilon: 0.0,
            leaves_per_batch: spec.batch,
            temperature: 0.0,
            temperature_plies: 0,
            final_temperature: 0.0,
            ..MctsParams::default()
        };
        MctsAgent { name: name.to_string(), evaluator, params, simulations: spec.simulations, seed }
    }
}

impl<G: game::Game> Agent<G> for MctsAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) -> Result<(), AgentError> {
        Ok(())
    }

    fn choose(&mut self, game: &G) -> Result<G::Move, AgentError> {
        let seed = self.seed ^ (game.ply() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut search = Search::new(game.clone(), self.params.clone(), seed);
        search
            .run(self.evaluator.as_ref(), self.simulations)
            .map_err(|error| AgentError::Evaluation { agent: self.name.clone(), error })?;
        search.choose_move(0.0).ok_or_else(|| AgentError::NoMove { agent: self.name.clone() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> MctsSpec {
        match crate::AgentSpec::parse(text).expect("parses").kind {
            crate::spec::AgentKind::Mcts(m) => m,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn rules_only_mcts_mates_in_one() {
        // Red: the rook on a8 holds rank 8, the king on d0 the d-file; the rook b1 mates on b9.
        let game = xiangqi::Game::from_fen("4k4/R8/9/9/9/9/9/9/1R7/3K5 w - - 0 1").expect("fen");
        let mut agent = MctsAgent::new("mcts", &spec("mcts:sims=400"), &NoNets, 1).expect("builds");
        let mv = agent.choose(&game).expect("moves");
        let mut after = game.clone();
        after.play_unchecked(mv);
        assert!(matches!(after.outcome(), Some(game::Outcome::Win { .. })), "{mv:?} does not mate");
    }

    #[test]
    fn a_checkpoint_needs_a_net_source() {
        let e = MctsAgent::<xiangqi::Game>::new("m", &spec("mcts:ckpt=/no/such.safetensors"), &NoNets, 1)
            .err()
            .expect("no nets");
        assert!(e.to_string().contains("/no/such.safetensors"), "{e}");
    }
}
