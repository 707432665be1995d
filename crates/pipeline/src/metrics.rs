//! `metrics.jsonl`: one versioned JSON event per line, written by [`MetricsLog::append`] and
//! read back by [`read`] (the plots and any other reader use it; nothing parses these lines by
//! hand).
//!
//! A line is a [`MetricsLine`]: the format version `v` ([`METRICS_VERSION`]), the time
//! `time_ms` (milliseconds since the Unix epoch) and the event, tagged by `event`:
//!
//! | `event`          | written by                  | when                                  |
//! |------------------|-----------------------------|---------------------------------------|
//! | `selfplay`       | each self-play process      | a shard was written                   |
//! | `train`          | the trainer                 | every `train.metrics_every` steps     |
//! | `checkpoint`     | the trainer                 | a checkpoint was written              |
//! | `corrupt_shard`  | the trainer                 | a shard was skipped as corrupt        |
//! | `arena`          | the arena                   | a match was complete                  |
//! | `generation`     | `qizero run`'s scheduler    | a generation ended                    |
//!
//! Field by field, see each variant of [`MetricsEvent`]. Several processes append to the one
//! file, each line with a single `write` ([`durable::append_line`]), which keeps lines whole.
//! Lines written before the version field existed (no `v`) read as version 0 with the same
//! fields; a line that does not parse (cut short by a crash, from a newer build, a stray edit)
//! is skipped and counted, never guessed at.

use crate::error::PipelineError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The version of the lines this build writes.
pub const METRICS_VERSION: u32 = 1;

/// Largest metrics file read back (about a million lines).
pub const MAX_METRICS_BYTES: u64 = 1 << 30;

/// One line of `metrics.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricsLine {
    /// The format version of the line (0: written before versions existed).
    #[serde(default)]
    pub v: u32,
    /// Milliseconds since the Unix epoch.
    #[serde(default)]
    pub time_ms: u64,
    /// What happened.
    #[serde(flatten)]
    pub event: MetricsEvent,
}

/// What a line records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum MetricsEvent {
    /// A self-play shard was written.
    Selfplay(SelfplayEvent),
    /// Training progress.
    Train(TrainEvent),
    /// A checkpoint was written.
    Checkpoint(CheckpointEvent),
    /// A shard was skipped as corrupt.
    CorruptShard {
        /// The shard's file name.
        name: String,
        /// What is wrong with it.
        fault: String,
    },
    /// A match of the arena was complete.
    Arena(crate::matches::MatchEntry),
    /// A generation of `qizero run` ended.
    Generation(GenerationEvent),
}

/// The counts of one self-play shard.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SelfplayEvent {
    /// The worker's index in its process.
    pub worker: usize,
    /// The worker's id (unique across processes).
    pub worker_id: String,
    /// The shard's file name.
    pub shard: Option<String>,
    /// The model that played (checkpoint stem).
    pub model: String,
    /// Games in the shard.
    pub games: u64,
    /// Positions (moves) played in them.
    pub positions: u64,
    /// Training samples recorded.
    pub samples: u64,
    /// Wins of the first mover.
    pub first_wins: u64,
    /// Draws.
    pub draws: u64,
    /// Wins of the second mover.
    pub second_wins: u64,
    /// Games ended by resignation.
    pub resigned: u64,
    /// Games ended by the ply cap.
    pub capped: u64,
    /// Games drawn by repetition. 0 in lines written before the field existed.
    pub repetitions: u64,
    /// Games played with resignation off.
    pub no_resign_games: u64,
    /// Of those, games in which a side would have resigned.
    pub would_resign: u64,
    /// Of those, games the would-be resigner did not lose.
    pub false_resigns: u64,
    /// Moves played by the worker since its previous shard.
    pub moves_played: u64,
    /// Seconds since the worker's previous shard.
    pub seconds: f64,
    /// Positions per second of the worker.
    pub positions_per_s: f64,
    /// Positions the worker sent to the evaluator since its previous shard (every search
    /// round's leaves, cache hits included): the compute a run spends on self-play, which
    /// `qizero experiment` sums. 0 in lines written before the field existed.
    pub evaluations: u64,
    /// Net evaluations per second of the worker.
    pub evals_per_s: f64,
    /// The worker's mean positions per evaluator call.
    pub worker_batch: f64,
    /// The inference service's mean forward batch so far.
    pub mean_batch: f64,
    /// The share of positions the inference service has answered from its evaluation cache so
    /// far (0 with the cache off).
    pub cache_hit_rate: f64,
}

/// Training progress: means since the previous such line.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrainEvent {
    /// The step count.
    pub step: u64,
    /// Samples trained since the run began.
    pub samples_seen: u64,
    /// Positions in all valid shards seen.
    pub positions_generated: u64,
    /// Positions in the replay window.
    pub window_positions: u64,
    /// Mean policy cross-entropy (nats).
    pub policy_loss: f64,
    /// Mean value squared error.
    pub value_loss: f64,
    /// Mean squared error of the material head (a net with the head only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub material_loss: Option<f64>,
    /// Mean total loss.
    pub total_loss: f64,
    /// The learning rate of the last step.
    pub learning_rate: f64,
    /// Samples trained per second of stepping.
    pub samples_per_s: f64,
    /// Samples trained per position generated.
    pub reuse: f64,
    /// Corrupt shards skipped so far.
    pub corrupt_shards: usize,
}

/// A checkpoint written by the trainer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CheckpointEvent {
    /// Its step.
    pub step: u64,
    /// Its weights' file name.
    pub weights: String,
    /// The previous checkpoint's weights file name.
    pub parent: Option<String>,
    /// Samples trained since the run began.
    pub samples_seen: u64,
    /// Positions in all valid shards seen.
    pub positions_generated: u64,
    /// Shards in the replay window.
    pub window_shards: usize,
    /// Positions in the replay window.
    pub window_positions: u64,
    /// Mean policy loss since the parent.
    pub policy_loss: f64,
    /// Mean value loss since the parent.
    pub value_loss: f64,
    /// Mean material loss since the parent (a net with the material head only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub material_loss: Option<f64>,
    /// Mean total loss since the parent.
    pub total_loss: f64,
    /// The learning rate of the last step.
    pub learning_rate: f64,
    /// Corrupt shards skipped so far.
    pub corrupt_shards: usize,
}

/// A generation of `qizero run`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GenerationEvent {
    /// The generation, from 1.
    pub generation: u64,
    /// Its checkpoint's step.
    pub step: u64,
    /// Positions self-play generated for it.
    pub positions: u64,
    /// Wall-clock seconds it took.
    pub seconds: f64,
    /// Its checkpoint's mean policy loss.
    pub policy_loss: Option<f64>,
    /// Its checkpoint's mean value loss.
    pub value_loss: Option<f64>,
    /// The best checkpoint after its gate, if it was rated.
    pub best: Option<String>,
}

/// The writer of a run's `metrics.jsonl`.
#[derive(Clone, Debug)]
pub struct MetricsLog {
    path: PathBuf,
}

impl MetricsLog {
    /// The log at `path` (a run's [`crate::RunDir::metrics`]).
    #[must_use]
    pub fn new(path: PathBuf) -> MetricsLog {
        MetricsLog { path }
    }

    /// Appends `event`, stamped with the version and the time, as one line.
    ///
    /// # Errors
    /// The file cannot be opened or written.
    pub fn append(&self, event: MetricsEvent) -> Result<(), PipelineError> {
        let line = MetricsLine { v: METRICS_VERSION, time_ms: now_ms(), event };
        let text = serde_json::to_string(&line)
            .map_err(|e| PipelineError::Format { path: self.path.clone(), message: e.to_string() })?;
        durable::append_line(&self.path, &text)?;
        Ok(())
    }
}

/// What [`read`] found.
#[derive(Clone, Debug, Default)]
pub struct Metrics {
    /// Every line that parsed, in file order.
    pub lines: Vec<MetricsLine>,
    /// Lines skipped: unreadable, or of a version newer than this build reads.
    pub skipped: usize,
}

/// What a run's log says the run did, over every session of it: self-play summed over the
/// `selfplay` lines, generations over the `generation` lines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Totals {
    /// Self-play games.
    pub games: u64,
    /// Positions (moves) played in them.
    pub positions: u64,
    /// Positions self-play sent to the net ([`SelfplayEvent::evaluations`]).
    pub evaluations: u64,
    /// Training samples self-play recorded ([`SelfplayEvent::samples`]).
    pub samples: u64,
    /// Generations of `qizero run` that ended.
    pub generations: u64,
    /// Wall-clock seconds those generations took (self-play, training and arena).
    pub generation_seconds: f64,
}

impl Totals {
    /// Counts one line's event: a `selfplay` line's work, a `generation` line's time; any other
    /// event counts nothing.
    pub fn add(&mut self, event: &MetricsEvent) {
        match event {
            MetricsEvent::Selfplay(s) => {
                self.games += s.games;
                self.positions += s.positions;
                self.evaluations += s.evaluations;
                self.samples += s.samples;
            }
            MetricsEvent::Generation(g) => {
                self.generations += 1;
                self.generation_seconds += g.seconds;
            }
            _ => {}
        }
    }

    /// Self-play evaluations per second of generation time: how much search a wall-clock budget
    /// buys on the machine that ran it. `None` before a generation has ended.
    #[must_use]
    pub fn evaluations_per_second(&self) -> Option<f64> {
        (self.generation_seconds > 0.0).then(|| self.evaluations as f64 / self.generation_seconds)
    }
}

impl Metrics {
    /// The run's [`Totals`] from these lines.
    #[must_use]
    pub fn totals(&self) -> Totals {
        let mut t = Totals::default();
        for line in &self.lines {
            t.add(&line.event);
        }
        t
    }
}

/// Reads the log at `path`; a missing file is an empty log.
///
/// # Errors
/// The file exists but cannot be read (or is not a regular file, or is larger than
/// [`MAX_METRICS_BYTES`]).
pub fn read(path: &Path) -> Result<Metrics, PipelineError> {
    let text = match durable::read_text_bounded(path, MAX_METRICS_BYTES) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Metrics::default()),
        Err(e) => return Err(e.into()),
    };
    let mut metrics = Metrics::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<MetricsLine>(line) {
            Ok(m) if m.v <= METRICS_VERSION => metrics.lines.push(m),
            _ => metrics.skipped += 1,
        }
    }
    Ok(metrics)
}

/// Milliseconds since the Unix epoch.
#[must_use]
pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_bad_ones_are_counted() {
        let dir = std::env::temp_dir().join(format!("qizero-metrics-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("metrics.jsonl");
        let log = MetricsLog::new(path.clone());
        let train = TrainEvent { step: 10, policy_loss: 3.0, value_loss: 0.5, ..TrainEvent::default() };
        log.append(MetricsEvent::Train(train.clone())).expect("appends");
        log.append(MetricsEvent::CorruptShard { name: "x.shard".into(), fault: "bad checksum".into() })
            .expect("appends");
        // A line from before versions, one cut short, one from a newer build.
        durable::append_line(&path, r#"{"event":"train","step":20,"time_ms":5,"policy_loss":2.0}"#).expect("appends");
        durable::append_line(&path, r#"{"v":1,"event":"tra"#).expect("appends");
        durable::append_line(&path, r#"{"v":99,"event":"train","step":30}"#).expect("appends");
        let m = read(&path).expect("reads");
        assert_eq!(m.skipped, 2);
        assert_eq!(m.lines.len(), 3);
        assert_eq!(m.lines[0].v, METRICS_VERSION);
        assert_eq!(m.lines[0].event, MetricsEvent::Train(train));
        assert!(matches!(&m.lines[2].event, MetricsEvent::Train(t) if t.step == 20 && t.policy_loss == 2.0));
        assert_eq!(m.lines[2].v, 0);
        let text = std::fs::read_to_string(&path).expect("reads");
        assert!(text.starts_with(r#"{"v":1,"time_ms":"#), "{text}");
        assert!(read(&dir.join("none.jsonl")).expect("missing is empty").lines.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn totals_sum_selfplay_and_generations() {
        let line = |event| MetricsLine { v: METRICS_VERSION, time_ms: 0, event };
        let shard = |games, positions, evaluations| {
            let samples = positions / 2;
            MetricsEvent::Selfplay(SelfplayEvent { games, positions, evaluations, samples, ..SelfplayEvent::default() })
        };
        let generation = |generation, seconds| {
            MetricsEvent::Generation(GenerationEvent { generation, seconds, ..GenerationEvent::default() })
        };
        let mut m = Metrics { lines: vec![line(shard(3, 300, 9_000))], skipped: 0 };
        assert_eq!(m.totals().evaluations_per_second(), None, "no generation has ended");
        m.lines.extend([
            line(generation(1, 10.0)),
            line(MetricsEvent::Train(TrainEvent { step: 5, ..TrainEvent::default() })),
            line(shard(2, 100, 3_000)),
            line(generation(2, 20.0)),
        ]);
        let t = m.totals();
        assert_eq!(
            t,
            Totals {
                games: 5,
                positions: 400,
                evaluations: 12_000,
                samples: 200,
                generations: 2,
                generation_seconds: 30.0
            }
        );
        assert_eq!(t.evaluations_per_second(), Some(400.0));
    }
}
