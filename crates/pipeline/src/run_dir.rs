//! [`RunDir`]: the one owner of every path in a run directory. No other code joins
//! `"checkpoints"`, `"shards"` and the like by hand; the libraries below this crate (trainer,
//! self-play, shards) are handed the folders they work in.
//!
//! ```text
//! <run>/
//!   config.toml          the effective config, written at start      (config::prepare)
//!   shards/              self-play output, one file per batch of games (shard::write_shard)
//!   checkpoints/         <step>-<sha12>.safetensors, <step>.optim.safetensors, <step>.json
//!                        (the trainer: train::lineage)
//!   best                 the gate's verdict (gate::Best, written by the arena)
//!   arena/               matches.jsonl (matches::MatchLog), <a>-vs-<b>/ game records,
//!                        ratings.json (the arena)
//!   metrics.jsonl        one versioned event per line (metrics::MetricsLog; every process)
//!   plots/               PNG files (plots::write_all)
//!   leases/              trainer.lease, arena.lease (lease::Lease)
//!   STOP                 present = every process stops at its next safe point
//!   slurm/               job scripts and submitted job ids, on a cluster
//!   experiment-done.json a run of `qizero experiment` that spent its whole budget
//!                        (experiment::DoneRecord, written by the experiment harness)
//! ```
//!
//! # Sharing a run directory
//! Processes talk only through these files, so self-play workers, the trainer and the arena may
//! run as separate processes, on separate machines sharing the folder. The rules that make that
//! safe (see also the `durable` crate):
//! - **One writer per file.** Shards are named uniquely per writer; `checkpoints/` belongs to
//!   the trainer and `best`, `arena/` to the arena, each guarded by its lease; `metrics.jsonl`
//!   is the one shared file, and every line goes in with a single append.
//! - **Every write is atomic** ([`durable::write_atomic`]): temporary file in the same folder,
//!   fsync, rename, fsync the folder. A reader sees a whole file or none, never a half one.
//! - **Readers tolerate files that vanish or appear late**: a shard listed and then gone is
//!   skipped, a missing `best` means "generation 0", a lineage file marks a checkpoint complete
//!   only once its weights are there.

use crate::error::PipelineError;
use std::path::{Path, PathBuf};

/// The run directory at a path. Cheap to clone; makes nothing until [`RunDir::create`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunDir {
    root: PathBuf,
}

/// Who holds a lease on the run directory (one live holder each).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// The trainer: the only writer of `checkpoints/`.
    Trainer,
    /// The arena: the only writer of `best`, `arena/` and the ratings.
    Arena,
}

impl Role {
    /// The role's name, as in its lease file's name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Role::Trainer => "trainer",
            Role::Arena => "arena",
        }
    }
}

impl RunDir {
    /// The run directory at `root`.
    #[must_use]
    pub fn new(root: impl Into<PathBuf>) -> RunDir {
        RunDir { root: root.into() }
    }

    /// The folder itself.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `config.toml`: the effective configuration.
    #[must_use]
    pub fn config(&self) -> PathBuf {
        self.root.join("config.toml")
    }

    /// `shards/`: self-play output.
    #[must_use]
    pub fn shards(&self) -> PathBuf {
        self.root.join("shards")
    }

    /// `checkpoints/`: weights, optimiser state and lineage.
    #[must_use]
    pub fn checkpoints(&self) -> PathBuf {
        self.root.join("checkpoints")
    }

    /// `best`: the gate's verdict.
    #[must_use]
    pub fn best(&self) -> PathBuf {
        self.root.join("best")
    }

    /// `arena/`: the match log, game records and ratings.
    #[must_use]
    pub fn arena(&self) -> PathBuf {
        self.root.join("arena")
    }

    /// `arena/matches.jsonl`: one line per complete match.
    #[must_use]
    pub fn matches(&self) -> PathBuf {
        self.arena().join("matches.jsonl")
    }

    /// `arena/ratings.json`: the Elo ladder.
    #[must_use]
    pub fn ratings(&self) -> PathBuf {
        self.arena().join("ratings.json")
    }

    /// The records folder of the match between `a` and `b`, relative to the run (as the match
    /// log names it): `arena/<a>-vs-<b>`, each name made safe for a file name.
    #[must_use]
    pub fn match_records_name(a: &str, b: &str) -> String {
        format!("arena/{}-vs-{}", file_safe(a), file_safe(b))
    }

    /// A path the run's files name relative to the run (a match log's records folder).
    #[must_use]
    pub fn resolve(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    /// `metrics.jsonl`: the event log.
    #[must_use]
    pub fn metrics(&self) -> PathBuf {
        self.root.join("metrics.jsonl")
    }

    /// `plots/`.
    #[must_use]
    pub fn plots(&self) -> PathBuf {
        self.root.join("plots")
    }

    /// `leases/`.
    #[must_use]
    pub fn leases(&self) -> PathBuf {
        self.root.join("leases")
    }

    /// `leases/<role>.lease`.
    #[must_use]
    pub fn lease(&self, role: Role) -> PathBuf {
        self.leases().join(format!("{}.lease", role.name()))
    }

    /// `STOP`: present = every process stops at its next safe point.
    #[must_use]
    pub fn stop_file(&self) -> PathBuf {
        self.root.join("STOP")
    }

    /// `experiment-done.json`: written by `qizero experiment` once the run has spent its whole
    /// time budget ([`crate::experiment::DoneRecord`]); absent in other runs.
    #[must_use]
    pub fn experiment_done(&self) -> PathBuf {
        self.root.join("experiment-done.json")
    }

    /// `slurm/`: rendered job scripts and submitted job ids.
    #[must_use]
    pub fn slurm(&self) -> PathBuf {
        self.root.join("slurm")
    }

    /// True if the folder holds a run (its `config.toml` exists).
    #[must_use]
    pub fn exists(&self) -> bool {
        self.config().is_file()
    }

    /// Makes the run directory and its folders, and checks that each can be written (a file
    /// written and removed in each), so a read-only or full run directory is reported before
    /// any work is done rather than after it.
    ///
    /// # Errors
    /// A folder cannot be made, or written into (naming it and why).
    pub fn create(&self) -> Result<(), PipelineError> {
        for dir in [self.root.clone(), self.shards(), self.checkpoints(), self.arena(), self.plots(), self.leases()] {
            std::fs::create_dir_all(&dir).map_err(|e| PipelineError::file("creating", &dir, e))?;
            let probe = dir.join(format!(".write-probe-{}", std::process::id()));
            durable::write_atomic(&probe, b"qizero")
                .map_err(|e| PipelineError::NotWritable { dir: dir.clone(), reason: e.source.to_string() })?;
            std::fs::remove_file(&probe).map_err(|e| PipelineError::NotWritable { dir, reason: e.to_string() })?;
        }
        Ok(())
    }
}

/// A name as a file name: letters, digits, `-`, `_`, `=`, `.` kept, the rest `_`.
pub(crate) fn file_safe(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_alphanumeric() || "-_=.".contains(c) { c } else { '_' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        let run = RunDir::new("/r");
        assert_eq!(run.config(), Path::new("/r/config.toml"));
        assert_eq!(run.matches(), Path::new("/r/arena/matches.jsonl"));
        assert_eq!(run.lease(Role::Trainer), Path::new("/r/leases/trainer.lease"));
        assert_eq!(RunDir::match_records_name("ckpt-5", "alphabeta:depth=1"), "arena/ckpt-5-vs-alphabeta_depth=1");
        assert_eq!(run.resolve("arena/x"), Path::new("/r/arena/x"));
    }

    #[test]
    fn create_checks_each_folder() {
        let root = std::env::temp_dir().join(format!("qizero-rundir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let run = RunDir::new(&root);
        run.create().expect("creates");
        assert!(run.shards().is_dir() && run.leases().is_dir());
        // A folder that is a file cannot be written into: named in the error.
        std::fs::remove_dir_all(run.plots()).expect("removes");
        std::fs::write(run.plots(), b"not a folder").expect("writes");
        let e = run.create().expect_err("plots is a file");
        assert!(e.to_string().contains("plots"), "{e}");
        let _ = std::fs::remove_dir_all(&root);
    }
}
