//! `arena/matches.jsonl`: the arena's log of complete matches, one versioned JSON object per
//! line ([`MatchLine`]: `v` = [`MATCHES_VERSION`], then the [`MatchEntry`]'s fields). Only
//! complete matches are written: a match given up (a stop, a failure) leaves no line, so the
//! arena plays it again. The arena is the only writer; it rewrites the whole file with each new
//! line through [`durable::write_atomic`], so a reader never sees a half line.
//!
//! Lines written before the version field existed read as version 0 with the same fields. A
//! line that does not read is reported and skipped: that match is played again.

use crate::error::PipelineError;
use arena::Score;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The version of the lines this build writes.
pub const MATCHES_VERSION: u32 = 1;

/// Largest match log read back.
pub const MAX_MATCHES_BYTES: u64 = 1 << 28;

/// What a match was for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchKind {
    /// Against the random baseline.
    Random,
    /// Against the alpha-beta baseline.
    Alphabeta,
    /// Against the current best: the gate.
    Gate,
}

/// One complete match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchEntry {
    /// The checkpoint rated (`ckpt-<step>`).
    pub a: String,
    /// Its opponent.
    pub b: String,
    /// What the match was for.
    pub kind: MatchKind,
    /// The step of checkpoint `a`.
    pub step: u64,
    /// A's wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// A's losses.
    pub losses: u32,
    /// Gate matches: `pass` or `fail`.
    pub verdict: Option<String>,
    /// SPRT gates: the final log-likelihood ratio.
    pub llr: Option<f64>,
    /// Wall-clock seconds the match took.
    pub seconds: f64,
    /// The folder of its records, relative to the run.
    pub records: String,
}

impl MatchEntry {
    /// A's wins, draws and losses.
    #[must_use]
    pub fn score(&self) -> Score {
        Score { wins: self.wins, draws: self.draws, losses: self.losses }
    }

    /// True for a gate match that passed.
    #[must_use]
    pub fn passed(&self) -> bool {
        self.kind == MatchKind::Gate && self.verdict.as_deref() == Some("pass")
    }
}

/// One line of the log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchLine {
    /// The format version (0: written before versions existed).
    #[serde(default)]
    pub v: u32,
    /// The match.
    #[serde(flatten)]
    pub entry: MatchEntry,
}

/// The log at one path: reading it, and (for the arena, its one writer) adding to it.
#[derive(Clone, Debug)]
pub struct MatchLog {
    path: PathBuf,
}

/// What [`MatchLog::read`] found.
#[derive(Clone, Debug, Default)]
pub struct Matches {
    /// Every complete match, in log order.
    pub entries: Vec<MatchEntry>,
    /// Lines that did not read, with their line number and what is wrong.
    pub skipped: Vec<(usize, String)>,
}

impl MatchLog {
    /// The log at `path` (a run's [`crate::RunDir::matches`]).
    #[must_use]
    pub fn new(path: PathBuf) -> MatchLog {
        MatchLog { path }
    }

    /// The file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every complete match so far; a missing file is an empty log.
    ///
    /// # Errors
    /// The file exists but cannot be read.
    pub fn read(&self) -> Result<Matches, PipelineError> {
        let text = match durable::read_text_bounded(&self.path, MAX_MATCHES_BYTES) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Matches::default()),
            Err(e) => return Err(e.into()),
        };
        let mut found = Matches::default();
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            match serde_json::from_str::<MatchLine>(line) {
                Ok(l) if l.v <= MATCHES_VERSION => found.entries.push(l.entry),
                Ok(l) => found.skipped.push((i + 1, format!("version {} is newer than this build reads", l.v))),
                Err(e) => found.skipped.push((i + 1, e.to_string())),
            }
        }
        Ok(found)
    }

    /// Adds `entry` as the last line (the whole file rewritten atomically, lines that did not
    /// read kept as they were).
    ///
    /// # Errors
    /// The file cannot be read or written.
    pub fn append(&self, entry: &MatchEntry) -> Result<(), PipelineError> {
        let mut text = match durable::read_text_bounded(&self.path, MAX_MATCHES_BYTES) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(e.into()),
        };
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        let line = MatchLine { v: MATCHES_VERSION, entry: entry.clone() };
        let json = serde_json::to_string(&line)
            .map_err(|e| PipelineError::Format { path: self.path.clone(), message: e.to_string() })?;
        text.push_str(&json);
        text.push('\n');
        durable::write_atomic(&self.path, text.as_bytes())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(step: u64, kind: MatchKind) -> MatchEntry {
        MatchEntry {
            a: format!("ckpt-{step}"),
            b: "random".into(),
            kind,
            step,
            wins: 3,
            draws: 1,
            losses: 0,
            verdict: None,
            llr: None,
            seconds: 1.5,
            records: "arena/x".into(),
        }
    }

    #[test]
    fn appends_reads_and_skips_bad_lines() {
        let dir = std::env::temp_dir().join(format!("qizero-matches-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let log = MatchLog::new(dir.join("matches.jsonl"));
        assert!(log.read().expect("missing is empty").entries.is_empty());
        log.append(&entry(0, MatchKind::Random)).expect("appends");
        // A line of the format before versions, and one cut short by a crash.
        let mut text = std::fs::read_to_string(log.path()).expect("reads");
        text.push_str(r#"{"a":"ckpt-5","b":"random","kind":"random","step":5,"wins":1,"draws":0,"losses":0,"verdict":null,"llr":null,"seconds":2.0,"records":"arena/y"}"#);
        text.push_str("\n{\"v\":1,\"a\":\"ck");
        std::fs::write(log.path(), text).expect("writes");
        log.append(&entry(10, MatchKind::Alphabeta)).expect("appends");
        let m = log.read().expect("reads");
        assert_eq!(m.entries.iter().map(|e| e.step).collect::<Vec<_>>(), [0, 5, 10]);
        assert_eq!(m.skipped.len(), 1);
        assert_eq!(m.skipped[0].0, 3);
        let first = std::fs::read_to_string(log.path()).expect("reads");
        assert!(first.starts_with("{\"v\":1,\"a\":\"ckpt-0\""), "{first}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
