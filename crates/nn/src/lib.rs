//! The policy-value net of qizero, on libtorch through `tch`: the only crate (with `train`) that
//! links libtorch.
//!
//! - [`PolicyValueNet`]: a ResNet trunk with a policy head (logits over the encoding's policy
//!   index space) and a tanh value head (side to move's view), built from a [`NetConfig`].
//! - [`checkpoint`]: safetensors files with metadata (game, encoding, architecture, step, the
//!   weights' SHA-256) and content ids; a file made for another game, encoding or architecture
//!   is refused, saying which, and so are damaged weights (non-finite values, a digest or a
//!   content id in the name that does not match) and files that are not regular files.
//! - [`InferenceService`]: one thread owns the net and batches requests from any number of
//!   searching threads; [`ServiceEvaluator`] is the `mcts::Evaluator` that talks to it. A pass
//!   that fails is an `mcts::EvalError` for each of its requesters, never a made-up answer.
//! - [`evaluator`]: the shared glue: encoding a batch, softmax over legal moves.
//!
//! Devices: `auto`, `cpu`, `cuda`, `cuda:N` ([`device::parse_device`]); inference runs without
//! gradients, in half precision on CUDA when the config asks. Building or loading a net changes
//! no libtorch-wide setting: the binary sets the CPU thread count with [`set_cpu_threads`] at
//! phase boundaries, and only fresh weights touch the global generator (seeded, under a lock).

pub mod checkpoint;
pub mod config;
pub mod device;
pub mod evaluator;
pub mod model;
pub mod service;

pub use config::NetConfig;
pub use device::set_cpu_threads;
pub use model::{Heads, PolicyValueNet};
pub use service::{InferenceService, MAX_CACHE_ENTRIES, ServiceConfig, ServiceEvaluator, ServiceStats};

use std::path::PathBuf;

/// What can go wrong with nets and checkpoints.
#[derive(Debug, thiserror::Error)]
pub enum NnError {
    /// A bad net configuration (field out of range, unknown or absent device).
    #[error("net config: {0}")]
    Config(String),
    /// A checkpoint that cannot be read or written, or is malformed.
    #[error("checkpoint {}: {message}", path.display())]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The inference service cannot start: a config field out of range, or no thread.
    #[error("inference service: {0}")]
    Service(String),
    /// Input to the net that does not fit its encoding (a plane count that is not a whole
    /// number of positions).
    #[error("net input: {0}")]
    Input(String),
    /// A libtorch operation failed (a forward pass, a copy to or from the device, reading
    /// weights back).
    #[error("libtorch: {0}")]
    Torch(String),
    /// A checkpoint made for another game, encoding or architecture.
    #[error("checkpoint {} was made for {field} '{found}', but this net needs '{expected}'", path.display())]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// Which field differs: `game`, `encoding` or `architecture`.
        field: &'static str,
        /// What the file says.
        found: String,
        /// What was asked for.
        expected: String,
    },
}
