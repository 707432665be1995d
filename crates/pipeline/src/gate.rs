//! The gate and its verdict, published as the run directory's `best` file.
//!
//! A new checkpoint plays the current best ([`crate::arena::Arena::rate`]); the gate
//! ([`Gate`]) says whether it passed: an SPRT (`arena.gate = "sprt"`, stopping early once
//! decided; undecided after `gate_games` = fail), a win rate over `gate_games` games
//! (`"winrate"`), or no test at all (`"none"`: every checkpoint becomes the best). The first
//! checkpoint rated (generation 0) is the best until a gate passes.
//!
//! The verdict goes into `best` ([`Best`]), written atomically by the arena, its only writer:
//! which checkpoint self-play should use, and the evidence. Self-play processes that follow the
//! gate (`qizero selfplay --model best`, `run.selfplay_model = "best"`) read it between games,
//! as KataGo's self-play follows its gatekeeper's accepted models. A missing `best` means
//! generation 0.
//!
//! # `best` (JSON)
//! | key          | value                                                                 |
//! |--------------|-----------------------------------------------------------------------|
//! | `format`     | `qizero-best-1`                                                       |
//! | `checkpoint` | the best checkpoint's name, `ckpt-<step>`                             |
//! | `step`       | its step                                                              |
//! | `weights`    | its weights' file name in `checkpoints/`                              |
//! | `evidence`   | `{against, wins, draws, losses, games, test, llr}`: the gate match it won (`against` = the previous best; `null` with zero games for the first checkpoint rated) |
//! | `decided_ms` | when, milliseconds since the Unix epoch                               |

use crate::error::PipelineError;
use arena::sprt::Verdict;
use arena::{ArenaConfig, GateKind, Score};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The `format` this build writes and reads.
pub const BEST_FORMAT: &str = "qizero-best-1";

/// Largest `best` file read.
const MAX_BEST_BYTES: u64 = 1 << 16;

/// The gate's verdict: the checkpoint self-play should use, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Best {
    /// `qizero-best-1`.
    pub format: String,
    /// The best checkpoint's name, `ckpt-<step>`.
    pub checkpoint: String,
    /// Its step.
    pub step: u64,
    /// Its weights' file name in `checkpoints/`.
    pub weights: String,
    /// The match that made it the best.
    pub evidence: Evidence,
    /// When the verdict was written, milliseconds since the Unix epoch.
    pub decided_ms: u64,
}

/// What made a checkpoint the best.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// The previous best it beat (`None` for the first checkpoint rated).
    pub against: Option<String>,
    /// Its wins against it.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Its losses.
    pub losses: u32,
    /// Games played.
    pub games: u32,
    /// The test, in words ([`Gate::describe`]).
    pub test: String,
    /// SPRT gates: the final log-likelihood ratio.
    pub llr: Option<f64>,
}

impl Best {
    /// The verdict naming `checkpoint` (step `step`, weights `weights`) with `evidence`.
    #[must_use]
    pub fn new(checkpoint: &str, step: u64, weights: &str, evidence: Evidence) -> Best {
        Best {
            format: BEST_FORMAT.to_owned(),
            checkpoint: checkpoint.to_owned(),
            step,
            weights: weights.to_owned(),
            evidence,
            decided_ms: crate::metrics::now_ms(),
        }
    }

    /// Reads `path`; `None` if there is no file (no verdict yet: generation 0 is the best).
    ///
    /// # Errors
    /// The file exists but cannot be read, is not JSON of this shape, or of another format.
    pub fn read(path: &Path) -> Result<Option<Best>, PipelineError> {
        let text = match durable::read_text_bounded(path, MAX_BEST_BYTES) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let format = |message: String| PipelineError::Format { path: path.to_path_buf(), message };
        let best: Best = serde_json::from_str(&text).map_err(|e| format(e.to_string()))?;
        if best.format != BEST_FORMAT {
            return Err(format(format!("format '{}', this build reads '{BEST_FORMAT}'", best.format)));
        }
        Ok(Some(best))
    }

    /// Writes the verdict to `path` atomically.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write(&self, path: &Path) -> Result<(), PipelineError> {
        let mut text = serde_json::to_string_pretty(self)
            .map_err(|e| PipelineError::Format { path: path.to_path_buf(), message: e.to_string() })?;
        text.push('\n');
        durable::write_atomic(path, text.as_bytes())?;
        Ok(())
    }
}

/// The gate of a run, from its `[arena]` table.
#[derive(Copy, Clone, Debug)]
pub struct Gate<'a> {
    config: &'a ArenaConfig,
}

impl<'a> Gate<'a> {
    /// The gate `config` describes.
    #[must_use]
    pub fn new(config: &'a ArenaConfig) -> Gate<'a> {
        Gate { config }
    }

    /// The test in words.
    #[must_use]
    pub fn describe(&self) -> String {
        let c = self.config;
        match c.gate {
            GateKind::Sprt => format!(
                "SPRT elo0 {} elo1 {} alpha {} beta {}, at most {} games",
                c.sprt_elo0, c.sprt_elo1, c.sprt_alpha, c.sprt_beta, c.gate_games
            ),
            GateKind::Winrate => format!("{:.0}% of {} games", 100.0 * c.gate_win_rate, c.gate_games),
            GateKind::None => "none (every checkpoint becomes the best)".to_owned(),
        }
    }

    /// True if the gate plays no games (every checkpoint passes).
    #[must_use]
    pub fn plays(&self) -> bool {
        self.config.gate != GateKind::None
    }

    /// Games a gate match plays at most.
    #[must_use]
    pub fn max_games(&self) -> usize {
        self.config.gate_games
    }

    /// An early verdict on `score` so far (SPRT only), if the test has decided.
    #[must_use]
    pub fn early(&self, score: &Score) -> Option<bool> {
        if self.config.gate != GateKind::Sprt {
            return None;
        }
        match self.config.sprt().verdict(score) {
            Verdict::Continue => None,
            Verdict::Pass => Some(true),
            Verdict::Fail => Some(false),
        }
    }

    /// The verdict on a finished gate match: passed, and the SPRT's log-likelihood ratio.
    #[must_use]
    pub fn verdict(&self, score: &Score) -> (bool, Option<f64>) {
        let c = self.config;
        match c.gate {
            GateKind::Sprt => (self.early(score) == Some(true), Some(c.sprt().llr(score))),
            GateKind::Winrate => (score.fraction() >= c.gate_win_rate, None),
            GateKind::None => (true, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_round_trips_and_refuses_other_formats() {
        let dir = std::env::temp_dir().join(format!("qizero-best-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("best");
        assert_eq!(Best::read(&path).expect("missing"), None);
        let evidence = Evidence {
            against: Some("ckpt-0".into()),
            wins: 25,
            draws: 5,
            losses: 10,
            games: 40,
            test: "55% of 40 games".into(),
            llr: None,
        };
        let best = Best::new("ckpt-100", 100, "100-0123456789ab.safetensors", evidence);
        best.write(&path).expect("writes");
        assert_eq!(Best::read(&path).expect("reads"), Some(best));
        std::fs::write(&path, r#"{"format":"qizero-best-9"}"#).expect("writes");
        assert!(Best::read(&path).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn verdicts() {
        let winrate = ArenaConfig { gate: GateKind::Winrate, gate_win_rate: 0.55, ..ArenaConfig::default() };
        let gate = Gate::new(&winrate);
        assert_eq!(gate.verdict(&Score { wins: 6, draws: 0, losses: 4 }), (true, None));
        assert_eq!(gate.verdict(&Score { wins: 5, draws: 0, losses: 5 }), (false, None));
        assert_eq!(gate.early(&Score { wins: 60, draws: 0, losses: 0 }), None);
        let sprt = ArenaConfig { gate: GateKind::Sprt, ..ArenaConfig::default() };
        let gate = Gate::new(&sprt);
        assert_eq!(gate.early(&Score { wins: 150, draws: 20, losses: 30 }), Some(true));
        assert_eq!(gate.early(&Score { wins: 30, draws: 20, losses: 150 }), Some(false));
        let (pass, llr) = gate.verdict(&Score { wins: 1, draws: 0, losses: 1 });
        assert!(!pass && llr.is_some(), "undecided at the end fails");
        assert!(
            Gate::new(&ArenaConfig { gate: GateKind::None, ..ArenaConfig::default() }).verdict(&Score::default()).0
        );
    }
}
