//! [`ModelSource`]: where the workers get the evaluator they search with, and how they pick up a
//! newer model. The library knows nothing of nets or checkpoints (it must not link libtorch);
//! the `pipeline` crate implements this with `nn` (the newest checkpoint of the run, or the one
//! its gate chose, served by one batching inference service), and tests use [`FixedModel`] with
//! `mcts::UniformEvaluator`.
//!
//! The workers call [`ModelSource::poll`] only between games, at most once per
//! `model_poll_seconds` for the whole process, and ask [`ModelSource::current`] before every
//! search round. A source shared by all workers that swaps its net in place (as the pipeline's
//! does) changes the model under games already in flight: a game may span two models. A shard
//! names the model current when it was written, which is the newest that played any of its
//! moves.

use game::Game;
use mcts::Evaluator;
use std::sync::Arc;

/// The evaluator to search with, and the id of the model behind it.
pub struct Model<G: Game> {
    /// The model's id, as written into shard headers (a checkpoint's file stem, `<step>-<id>`).
    pub id: Arc<str>,
    /// The evaluator that answers with this model.
    pub evaluator: Arc<dyn Evaluator<G>>,
}

impl<G: Game> Clone for Model<G> {
    fn clone(&self) -> Self {
        Model { id: Arc::clone(&self.id), evaluator: Arc::clone(&self.evaluator) }
    }
}

impl<G: Game> std::fmt::Debug for Model<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model").field("id", &self.id).finish_non_exhaustive()
    }
}

/// An error from a [`ModelSource`]: a newer model exists but cannot be loaded, say.
pub type SourceError = Box<dyn std::error::Error + Send + Sync>;

/// Gives the workers their evaluator, and a newer one when there is one.
pub trait ModelSource<G: Game>: Send + Sync {
    /// The model to search with now. Called before every search round, so it should be cheap
    /// (clone two `Arc`s).
    fn current(&self) -> Model<G>;

    /// Looks for a newer model and switches [`ModelSource::current`] to it if there is one.
    /// Returns the new model's id when it switched.
    ///
    /// # Errors
    /// The newer model cannot be loaded; self-play stops with this error rather than silently
    /// playing on with an old model.
    fn poll(&self) -> Result<Option<Arc<str>>, SourceError>;
}

/// One model that never changes: for tests, benchmarks, and self-play with a fixed net.
pub struct FixedModel<G: Game>(pub Model<G>);

impl<G: Game> FixedModel<G> {
    /// `evaluator` under the id `id`.
    pub fn new(id: &str, evaluator: impl Evaluator<G> + 'static) -> FixedModel<G> {
        FixedModel(Model { id: id.into(), evaluator: Arc::new(evaluator) })
    }
}

impl<G: Game> ModelSource<G> for FixedModel<G> {
    fn current(&self) -> Model<G> {
        self.0.clone()
    }

    fn poll(&self) -> Result<Option<Arc<str>>, SourceError> {
        Ok(None)
    }
}
