//! The lineage manifest of a checkpoint: `checkpoints/<step>.json`, written last, so its presence
//! marks the checkpoint complete.
//!
//! A checkpoint at step `S` is three files in `checkpoints/`, written in this order, each to a
//! hidden temporary name, flushed and renamed:
//! 1. `S-<id>.safetensors`: the weights ([`nn::checkpoint`]); `<id>` is the first 12 hex digits of
//!    the SHA-256 of the weights themselves (every variable, batch-norm statistics included, in
//!    name order: name, shape, little-endian `f32` values), so equal weights get equal names.
//! 2. `S.optim.safetensors`: the optimiser state ([`crate::optim`]).
//! 3. `S.json`: this manifest.
//!
//! A process killed anywhere in between leaves at most files without a manifest, which
//! [`latest`] ignores and the next checkpoint at that step replaces.
//!
//! # Retention
//! Checkpoints are written every `train.checkpoint_every` steps and when a trainer stops (not
//! when `qizero run` pauses it for self-play). Weights and manifests are kept for good: they are
//! the run's generations. The optimiser state, needed only to resume, is removed from all but
//! the newest `train.keep_optimizer_states` checkpoints ([`prune_optimizer_states`]), so an
//! older manifest may name an optimiser file that is gone.
//!
//! # Fields (JSON object)
//! | key                  | value                                                                  |
//! |----------------------|------------------------------------------------------------------------|
//! | `format`             | `qizero-lineage-1`                                                     |
//! | `game`, `encoding`, `architecture` | what the weights are for (as in the weights' metadata)   |
//! | `step`               | optimiser steps taken since the run began                              |
//! | `weights`            | file name of the weights, `S-<id>.safetensors`                         |
//! | `optimizer_state`    | file name of the optimiser state, `S.optim.safetensors`                |
//! | `optimizer`          | `sgd` or `adamw`                                                       |
//! | `parent`             | the previous checkpoint's weights file name, `null` for the first      |
//! | `samples_seen`       | positions trained on since the run began (steps x batch size)          |
//! | `positions_generated`| positions in all valid shards the trainer had seen                     |
//! | `window`             | `{shards, positions, oldest, newest}`: the replay window at this step  |
//! | `losses`             | `{steps, policy, value, total}`: means over the steps since `parent`   |
//! | `learning_rate`      | the learning rate of the last step                                     |
//! | `seed`               | the run seed                                                           |
//! | `config_hash`        | SHA-256 (hex) of the run's `config.toml`, as the file lies on disk     |
//! | `corrupt_shards`     | shards skipped as corrupt so far by this trainer process               |
//! | `created_ms`         | when it was written, milliseconds since the Unix epoch                 |

use crate::TrainError;
use crate::window::WindowInfo;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The value of the `format` key.
pub const FORMAT: &str = "qizero-lineage-1";

/// Mean losses over a stretch of steps.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MeanLosses {
    /// Steps averaged over (0: no step, losses 0).
    pub steps: u64,
    /// Policy cross-entropy (nats).
    pub policy: f64,
    /// Value mean squared error.
    pub value: f64,
    /// The material head's mean squared error (a net with the head only; absent before the
    /// head existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<f64>,
    /// Total loss (policy + value weight x value + material weight x material).
    pub total: f64,
}

/// The manifest of one checkpoint. Fields as in the [module docs](self).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lineage {
    /// `qizero-lineage-1`.
    pub format: String,
    /// The game.
    pub game: String,
    /// The encoding id.
    pub encoding: String,
    /// The net's architecture string.
    pub architecture: String,
    /// Optimiser steps since the run began.
    pub step: u64,
    /// The weights' file name.
    pub weights: String,
    /// The optimiser state's file name.
    pub optimizer_state: String,
    /// `sgd` or `adamw`.
    pub optimizer: String,
    /// The previous checkpoint's weights file name.
    pub parent: Option<String>,
    /// Positions trained on since the run began.
    pub samples_seen: u64,
    /// Positions in all valid shards seen.
    pub positions_generated: u64,
    /// The replay window.
    pub window: WindowInfo,
    /// Mean losses since the parent.
    pub losses: MeanLosses,
    /// The learning rate of the last step.
    pub learning_rate: f64,
    /// The run seed.
    pub seed: u64,
    /// SHA-256 of the effective config.
    pub config_hash: String,
    /// Corrupt shards skipped so far.
    pub corrupt_shards: usize,
    /// Milliseconds since the Unix epoch.
    pub created_ms: u64,
}

impl Lineage {
    /// Writes the manifest to `dir/<step>.json` atomically.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write(&self, dir: &Path) -> Result<PathBuf, TrainError> {
        let path = dir.join(format!("{}.json", self.step));
        let mut text = serde_json::to_string_pretty(self).map_err(|e| TrainError::io(&path, e))?;
        text.push('\n');
        crate::fsutil::write_atomic(&path, text.as_bytes())?;
        Ok(path)
    }

    /// Reads a manifest.
    ///
    /// # Errors
    /// Unreadable file, bad JSON, missing fields, or another format.
    pub fn read(path: &Path) -> Result<Lineage, TrainError> {
        let text = std::fs::read_to_string(path).map_err(|e| TrainError::io(path, e))?;
        let lineage: Lineage = serde_json::from_str(&text)
            .map_err(|e| TrainError::Corrupt { path: path.to_path_buf(), message: e.to_string() })?;
        if lineage.format != FORMAT {
            return Err(TrainError::Corrupt {
                path: path.to_path_buf(),
                message: format!("lineage format '{}', this build reads '{FORMAT}'", lineage.format),
            });
        }
        Ok(lineage)
    }
}

/// The steps of every manifest `<step>.json` in `dir`, ascending (none if `dir` is missing).
#[must_use]
pub fn steps_in(dir: &Path) -> Vec<u64> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut steps: Vec<u64> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".json")).and_then(|s| s.parse().ok()))
        .collect();
    steps.sort_unstable();
    steps
}

/// Applies the retention policy after a checkpoint was written: the optimiser state is kept
/// for the newest `keep` manifests only (resuming needs just the newest); weights and manifests
/// are never removed (they are the run's generations). Returns how many files were removed.
///
/// # Errors
/// A manifest cannot be read, or a file cannot be removed.
pub fn prune_optimizer_states(dir: &Path, keep: usize) -> Result<usize, TrainError> {
    let steps = steps_in(dir);
    let mut removed = 0;
    for &step in steps.iter().rev().skip(keep.max(1)) {
        let lineage = Lineage::read(&dir.join(format!("{step}.json")))?;
        let path = dir.join(&lineage.optimizer_state);
        match std::fs::remove_file(&path) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(TrainError::io(&path, e)),
        }
    }
    Ok(removed)
}

/// Every complete checkpoint in `dir` (a run's `checkpoints/`), by step: those whose weights
/// `<step>-<id>.safetensors` and manifest `<step>.json` are both there (the trainer writes the
/// lineage last, so a checkpoint without one is still being written or was cut off). Returns
/// each step with its weights' path; empty when there is none (or no directory).
#[must_use]
pub fn complete(dir: &Path) -> Vec<(u64, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut found: Vec<(u64, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
        let Some(stem) = name.strip_suffix(".safetensors") else { continue };
        let Some(step) = stem.split('-').next().and_then(|s| s.parse::<u64>().ok()) else { continue };
        if dir.join(format!("{step}.json")).exists() {
            found.push((step, path));
        }
    }
    found.sort();
    found.dedup_by_key(|(step, _)| *step);
    found
}

/// The newest complete checkpoint in a run's `checkpoints/` directory ([`complete`]): its step
/// and weights' path; `None` when there is none (or no directory).
#[must_use]
pub fn newest(dir: &Path) -> Option<(u64, PathBuf)> {
    complete(dir).pop()
}

/// Removes what a trainer killed while writing a checkpoint leaves in `dir`: checkpoint files
/// newer than `newest` (the newest manifest's step) and the checkpoint files' temporary files.
/// Other processes' temporary files there (the run directory's write probe) are theirs to
/// finish: a self-play task starting beside the trainer lost its probe when they were removed.
///
/// # Errors
/// `dir` cannot be listed, or a file removed.
pub fn remove_incomplete(dir: &Path, newest: u64) -> Result<(), TrainError> {
    let entries = std::fs::read_dir(dir).map_err(|e| TrainError::io(dir, e))?;
    let step_of = |name: &str| name.split(['-', '.']).next().and_then(|s| s.parse::<u64>().ok());
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let incomplete = match durable::temp_target(name) {
            Some(target) => step_of(target).is_some(),
            None => step_of(name).is_some_and(|s| s > newest) && name.ends_with(".safetensors"),
        };
        if incomplete {
            let path = entry.path();
            std::fs::remove_file(&path).map_err(|e| TrainError::io(&path, e))?;
        }
    }
    Ok(())
}

/// The newest complete checkpoint in `dir`: the manifest with the highest step, read.
///
/// # Errors
/// That manifest cannot be read, or a file it names is missing (a damaged checkpoint directory:
/// reported, never skipped silently).
pub fn latest(dir: &Path) -> Result<Option<Lineage>, TrainError> {
    let Some(&step) = steps_in(dir).last() else { return Ok(None) };
    let lineage = Lineage::read(&dir.join(format!("{step}.json")))?;
    for name in [&lineage.weights, &lineage.optimizer_state] {
        let path = dir.join(name);
        if !path.is_file() {
            return Err(TrainError::Corrupt {
                path: dir.join(format!("{step}.json")),
                message: format!("names {name}, which is missing"),
            });
        }
    }
    Ok(Some(lineage))
}
