//! [`PipelineError`]: everything that can stop a pipeline process, each naming the file or the
//! part at fault. Causes are part of the message (no separate source), so an error chain prints
//! each one once.

use std::path::{Path, PathBuf};

/// What can go wrong in the pipeline.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// A file or folder operation failed.
    #[error("{op} {}: {reason}", path.display())]
    File {
        /// What was being done.
        op: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The operating system's reason.
        reason: String,
    },
    /// A run-directory folder cannot be written into (read-only, full, not a folder).
    #[error("the run directory cannot be written: {}: {reason}", dir.display())]
    NotWritable {
        /// The folder.
        dir: PathBuf,
        /// Why.
        reason: String,
    },
    /// A configuration that does not read or is out of range.
    #[error("{0}")]
    Config(String),
    /// A file of the run directory that does not read (bad JSON, another format version).
    #[error("{}: {message}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Another live process holds the lease this one needs.
    #[error("{0}")]
    LeaseHeld(String),
    /// A checkpoint the run needs is not there.
    #[error("{0}")]
    MissingCheckpoint(String),
    /// The trainer failed.
    #[error(transparent)]
    Train(#[from] train::TrainError),
    /// A net or checkpoint failed to load or build.
    #[error(transparent)]
    Net(#[from] nn::NnError),
    /// Self-play failed.
    #[error("self-play: {0}")]
    Selfplay(#[from] selfplay::SelfplayError),
    /// A match could not be played.
    #[error("{0}")]
    Match(String),
    /// A shard could not be read or listed.
    #[error(transparent)]
    Shard(#[from] shard::ShardError),
    /// A plot could not be drawn.
    #[error("plots: {0}")]
    Plot(String),
}

impl PipelineError {
    /// A [`PipelineError::File`] from an I/O error.
    pub(crate) fn file(op: &'static str, path: &Path, e: impl std::fmt::Display) -> PipelineError {
        PipelineError::File { op, path: path.to_path_buf(), reason: e.to_string() }
    }
}

impl From<durable::FileError> for PipelineError {
    fn from(e: durable::FileError) -> PipelineError {
        PipelineError::File { op: e.op, path: e.path, reason: e.source.to_string() }
    }
}
