//! The qizero trainer: turns the self-play shards of a run directory into checkpoints.
//!
//! ```text
//! runs/<name>/shards/*.shard  --scan-->  replay window (newest shards, parsed once, cached)
//!     --draw (seed, step)-->  batch (replay to ply, encode, random symmetry, policy target, value target, legal-move mask)
//!     --net (train mode)-->   loss = policy cross-entropy (softmax over legal moves) + value_loss_weight * value MSE
//!     --optimiser (SGD+Nesterov or AdamW, weight decay in the optimiser, lr schedule)-->
//!     checkpoints/<step>-<id>.safetensors + <step>.optim.safetensors + <step>.json
//! ```
//!
//! - [`config`]: [`TrainConfig`], the `[train]` table, every field documented with unit, default
//!   and range.
//! - [`window`]: the replay window ([`ReplayWindow`]): which shards, what is cached, how corrupt
//!   shards are skipped and reported.
//! - [`batch`]: how batch `step` is drawn (a pure function of seed, step and window) and built.
//! - [`optim`]: the optimisers, over tensors, with state that is checkpointed.
//! - [`lineage`]: the checkpoint files and the manifest that marks one complete.
//! - [`trainer`]: [`Trainer`], the loop: readiness, steps, checkpoints, resume.
//! - [`bench`](mod@bench): trainer throughput against a bare libtorch training step.
//! - [`synthetic`]: random-game shards for tests and benchmarks.
//!
//! # Targets
//! - **Policy** (`policy_target`): `auto` trains towards the search's improved policy where a
//!   sample has one (Gumbel root search, shard format 2), else towards the visit shares pi;
//!   `visits` always towards pi. The choice is made when a shard is loaded into the window.
//! - **Value** (`value_target`): `z` (the game result), `q` (the search's root value) or
//!   `mix:X`, `(1 - X) * z + X * q`, applied when a batch is built.
//!
//! # Rules the trainer keeps
//! - **Window.** The newest shards (by name, which is creation time) until they hold
//!   `window_positions` positions; positions are drawn uniformly from it, with replacement.
//! - **Start.** No step runs until the window holds `min_positions` positions. With no data
//!   [`Trainer::run`] waits, polling `shards/` every `poll_seconds` and saying why
//!   ([`Event::Waiting`]), or returns [`StopReason::Starved`] when asked not to wait.
//! - **Reuse cap.** With `R = max_samples_per_new_sample > 0`, a step runs only if
//!   `samples_seen + batch_size <= floor(R * positions_generated)`, where `samples_seen` counts
//!   every sample trained since the run began (checkpointed) and `positions_generated` counts
//!   the positions of every valid shard the trainer has seen in `shards/` (never less than the
//!   last checkpoint recorded, so deleted shards still count). Otherwise it waits as above.
//! - **Checkpoints** every `checkpoint_every` steps and when the run stops (target, signal or
//!   starvation) with steps not yet saved. Everything is written to a temporary name, flushed and
//!   renamed; the manifest comes last. A process killed at any moment loses only the steps since
//!   the last manifest and leaves nothing a reader would take for a checkpoint.
//! - **Resume.** [`Trainer::open`] loads the newest manifest's weights and optimiser state, its
//!   step and samples seen. Since batch `s` depends only on (seed, s, window), a resumed run
//!   computes the same losses and weights as an uninterrupted one over the same shards (the
//!   content-addressed weight file names are then equal too).
//! - **Corrupt shards** are skipped with a warning naming the file and the fault
//!   ([`Event::Corrupt`]), counted in every metrics line and manifest, and listed in the
//!   [`RunSummary`].
//!
//! Training runs in `f32` on the net config's device (`half` applies to inference only).

pub mod batch;
pub mod bench;
pub mod config;
pub mod fsutil;
pub mod lineage;
pub mod optim;
pub mod synthetic;
pub mod trainer;
pub mod window;

pub use config::{ConfigError, OptimizerKind, PolicyTarget, Schedule, TargetError, TrainConfig, ValueTarget};
pub use lineage::{Lineage, MeanLosses};
/// The content id checkpoints are named by; it lives with the checkpoint format in `nn`.
pub use nn::checkpoint::content_id;
pub use optim::Optimizer;
pub use trainer::{Event, Metrics, Readiness, RunOptions, RunSummary, StepStats, StopReason, Trainer, TrainerSetup};
pub use window::{CorruptShard, ReplayWindow, WindowInfo, WindowSnapshot};

use std::path::{Path, PathBuf};

/// What can go wrong while training.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A `[train]` field out of range.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Building or loading the net failed (bad net config, checkpoint mismatch, ...).
    #[error(transparent)]
    Net(#[from] nn::NnError),
    /// A file or directory could not be read or written.
    #[error("{}: {message}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// A checkpoint file (manifest or optimiser state) is malformed or inconsistent.
    #[error("{}: {message}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The shards directory cannot be listed.
    #[error("listing shards: {0}")]
    Shards(String),
    /// A libtorch operation failed.
    #[error("libtorch: {0}")]
    Torch(String),
    /// A step was asked for with an empty window.
    #[error("no training data: the replay window is empty")]
    NoData,
    /// The loss is not a finite number: training diverged (the weights were not updated).
    #[error("the loss at step {step} is not finite (policy {policy}, value {value}): training diverged")]
    NonFinite {
        /// The step that would have been taken.
        step: u64,
        /// The policy loss.
        policy: f64,
        /// The value loss.
        value: f64,
    },
}

impl TrainError {
    pub(crate) fn io(path: &Path, e: impl std::fmt::Display) -> TrainError {
        TrainError::Io { path: path.to_path_buf(), message: e.to_string() }
    }
}

/// The config hash recorded in every manifest: the lowercase hex SHA-256 of the effective run
/// config as TOML text (what the run directory's `config.toml` holds).
#[must_use]
pub fn config_hash(toml_text: &str) -> String {
    fsutil::sha256_hex(toml_text.as_bytes())
}
