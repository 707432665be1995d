//! The qizero run directory and everything separate processes share through it: self-play
//! workers, the trainer and the arena talk only through these files (as in KataGo), so they run
//! in one process under `qizero run`, as separate processes, or on separate machines sharing the
//! folder.
//!
//! - [`RunDir`]: the one owner of every path of a run directory (the layout is in its docs).
//! - [`config`]: the run's configuration, one TOML table per component, `--set` overrides, and
//!   `config.toml` in the run directory.
//! - [`metrics`]: `metrics.jsonl`, one typed, versioned [`metrics::MetricsEvent`] per line, one
//!   writer and one reader (the plots use it).
//! - [`matches`]: `arena/matches.jsonl`, the typed, versioned log of complete matches.
//! - [`gate`]: the gate and its verdict, the `best` file self-play follows.
//! - [`arena`]: rating checkpoints against random, alpha-beta and the best; the Elo ladder.
//! - [`models`]: generation 0 (one source: the trainer's step-0 checkpoint), following the
//!   newest or the best checkpoint, the self-play model source.
//! - [`selfplay`], [`training`]: the self-play and training phases in a run directory, with
//!   their metrics.
//! - [`schedule`]: the generation scheduler `qizero run` drives.
//! - [`lease`]: one live trainer and one live arena per run directory, without `flock`.
//! - [`experiment`]: `qizero experiment`, arms compared at an equal wall-clock budget on one
//!   Elo ladder with fixed anchors.
//! - [`plots`]: PNG plots of losses, throughput and Elo.
//! - [`report`]: how the pipeline tells the user what it does (the binary draws it).
//!
//! Every file is written through [`durable::write_atomic`]; readers tolerate files that vanish
//! or appear late. Errors are [`PipelineError`]s naming the file or part at fault.

pub mod arena;
pub mod config;
mod error;
pub mod experiment;
pub mod gate;
pub mod lease;
pub mod matches;
pub mod metrics;
pub mod models;
mod nets;
pub mod plots;
pub mod report;
mod run_dir;
pub mod schedule;
pub mod selfplay;
pub mod slurm;
pub mod training;

pub use config::{GameName, RunConfig};
pub use error::PipelineError;
pub use nets::CheckpointNets;
pub use report::{Progress, Quiet, Reporter};
pub use run_dir::{Role, RunDir};
