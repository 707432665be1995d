//! Self-play for qizero: worker threads that play games against themselves with MCTS and write
//! the finished games, with their training samples, as shards into a run's `shards/` directory.
//!
//! - [`Selfplay`]: one self-play process's setup; [`Selfplay::run`] starts its workers
//!   (`workers` threads, each with `games_in_flight` games whose leaves go to the evaluator in
//!   one batch per round) and returns when they are done: the game quota is played, or the
//!   stop flag is set (then the finished games are written and the rest dropped), or an error
//!   stops every worker (an evaluator that fails, a shard that cannot be written: the finished
//!   games are written, the games in flight dropped, and the error returned).
//! - [`ModelSource`]: where the evaluator comes from and how a newer model is picked up
//!   (between games). This crate knows nothing of nets: the `pipeline` crate implements the
//!   source with `nn` (the run's newest checkpoint or its gate's best, generation 0 first);
//!   tests use [`FixedModel`] with
//!   `mcts::UniformEvaluator`.
//! - [`SelfplayConfig`]: the `[selfplay]` table (simulations, playout-cap randomisation, games
//!   in flight, workers, shard size, ply cap, resignation, model polling).
//! - [`Opponent`]: a fixed player (the alpha-beta engine, in the pipeline) that a share of the
//!   games is played against (`opponent_games`).
//! - [`Progress`] / [`Totals`] / [`ShardReport`] / [`Observer`]: live counters for a progress
//!   display and a report per shard written (one `metrics.jsonl` line in the pipeline).
//! - [`seed`]: how every random choice derives from the run seed, the process instance and the
//!   worker index (reproducible per worker, different across processes).
//!
//! How a worker plays a move, resigns and writes shards is described in the `worker` module
//! (see [`Selfplay::run`]). Shards are written by [`shard::write_shard`]: atomically, under
//! names unique across threads and processes, so any number of self-play processes can share
//! one run directory, and a worker killed at any moment leaves no partial shard a reader
//! would take.

mod config;
mod model;
mod opponent;
mod progress;
pub mod seed;
mod worker;

pub use config::{ConfigError, SelfplayConfig};
pub use model::{FixedModel, Model, ModelSource, SourceError};
pub use opponent::Opponent;
pub use progress::{NoObserver, Observer, Progress, ShardReport, Totals};

use encode::Encode;
use mcts::MctsParams;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;
use worker::{Shared, Worker};

/// What can stop self-play with an error.
#[derive(Debug, thiserror::Error)]
pub enum SelfplayError {
    /// A `[selfplay]` field out of range.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// An `[mcts]` field out of range.
    #[error(transparent)]
    Params(#[from] mcts::ParamsError),
    /// A shard could not be written.
    #[error("writing a shard: {0}")]
    Shard(#[from] shard::ShardError),
    /// The model source failed (a newer checkpoint that cannot be loaded).
    #[error("model source: {0}")]
    Model(SourceError),
    /// `selfplay.opponent_games` asks for games against an opponent, and none was given.
    #[error("selfplay.opponent_games = {0} asks for games against a fixed opponent, and this self-play job has none")]
    NoOpponent(f32),
    /// A worker thread could not be started.
    #[error("starting self-play worker {worker}: {error}")]
    Thread {
        /// The worker's index.
        worker: usize,
        /// The operating system's error.
        error: std::io::Error,
    },
    /// The evaluator failed (a forward pass, a device copy, a stopped inference service): the
    /// worker stopped, its games in flight were dropped, and its finished games were written.
    #[error("self-play worker {worker}: {error}")]
    Evaluation {
        /// The worker's index.
        worker: usize,
        /// The evaluator's error, naming the cause.
        error: mcts::EvalError,
    },
    /// A worker's search panicked (an evaluator that panicked rather than return an error).
    /// Its finished games were written first.
    #[error("self-play worker {worker} panicked: {message}")]
    WorkerPanicked {
        /// The worker's index.
        worker: usize,
        /// The panic message.
        message: String,
    },
}

/// One self-play process: what to play with, where to write, when to stop.
pub struct Selfplay<'a, G: Encode> {
    /// The `[selfplay]` table. Its `workers` is the number of threads started.
    pub config: &'a SelfplayConfig,
    /// The search parameters (noise, temperature schedule, leaves per batch, ...).
    pub mcts: &'a MctsParams,
    /// The evaluator, and newer models as they appear.
    pub source: &'a dyn ModelSource<G>,
    /// The fixed opponent of `config.opponent_games`' share of the games; required when that
    /// share is above 0, unused otherwise.
    pub opponent: Option<&'a dyn Opponent<G>>,
    /// The directory shards are written into (a run's `shards/`; created if missing).
    pub shard_dir: &'a Path,
    /// The run's seed.
    pub seed: u64,
    /// This process's instance number, the process-unique part of the worker seeds
    /// ([`seed::worker_seed`]).
    pub instance: u64,
    /// Games to play in all, over all workers; `None` plays until `stop` is set.
    pub max_games: Option<u64>,
    /// Set it (from a Ctrl-C handler, say) to stop: workers finish their current round, write
    /// their finished games and return; games in flight are dropped.
    pub stop: &'a AtomicBool,
    /// Live counters, for a progress display.
    pub progress: &'a Progress,
    /// Told of each shard written and each model change.
    pub observer: &'a dyn Observer,
}

impl<G: Encode> Selfplay<'_, G> {
    /// Checks the configuration, then runs `config.workers` workers on scoped threads until
    /// `max_games` games are finished or `stop` is set. Every finished game is in a shard when
    /// this returns, also when it returns an error (as far as the shards can be written).
    /// Returns the final counters.
    ///
    /// # Errors
    /// A configuration out of range (before anything is played); a shard that cannot be
    /// written; the model source failing; the evaluator failing
    /// ([`SelfplayError::Evaluation`]); a worker that panicked. The first error stops every
    /// worker; each writes its finished games before returning and drops its games in flight
    /// (a game whose search failed is never written, not even in part).
    pub fn run(&self) -> Result<Totals, SelfplayError> {
        self.config.validate()?;
        self.mcts.validate()?;
        if self.config.opponent_games > 0.0 && self.opponent.is_none() {
            return Err(SelfplayError::NoOpponent(self.config.opponent_games));
        }
        let shared = Shared {
            config: self.config,
            mcts: self.mcts,
            source: self.source,
            opponent: if self.config.opponent_games > 0.0 { self.opponent } else { None },
            shard_dir: self.shard_dir,
            max_games: self.max_games,
            stop: self.stop,
            progress: self.progress,
            observer: self.observer,
            started: AtomicU64::new(0),
            abort: AtomicBool::new(false),
            last_poll: Mutex::new(Instant::now()),
        };
        let results: Vec<Result<(), SelfplayError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..self.config.workers)
                .map(|k| {
                    let shared = &shared;
                    let seed = seed::worker_seed(self.seed, self.instance, k);
                    let id = shard::unique_worker_id(&format!("sp{k}-"));
                    std::thread::Builder::new()
                        .name(format!("selfplay-{k}"))
                        .spawn_scoped(scope, move || Worker::new(shared, k, id, seed).run())
                })
                .collect();
            handles
                .into_iter()
                .enumerate()
                .map(|(k, handle)| match handle {
                    Ok(handle) => handle.join().unwrap_or_else(|_| {
                        Err(SelfplayError::WorkerPanicked { worker: k, message: "panicked outside the search".into() })
                    }),
                    Err(e) => {
                        shared.abort.store(true, Ordering::Relaxed);
                        Err(SelfplayError::Thread { worker: k, error: e })
                    }
                })
                .collect()
        });
        results.into_iter().collect::<Result<(), _>>()?;
        Ok(self.progress.snapshot())
    }
}
