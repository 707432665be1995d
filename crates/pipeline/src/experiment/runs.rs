//! The training phase of an experiment: each planned run trained once for its whole budget,
//! in process with [`crate::schedule::run`], and its [`DoneRecord`] written at the end.
//!
//! # The resume rule
//! Equal wall clock is the point of the comparison, so every run gets exactly one
//! uninterrupted budget:
//! - a run with `experiment-done.json` is done and skipped (its config must still be the one
//!   the plan makes, or the experiment is refused, naming the difference);
//! - a run folder without it was interrupted (Ctrl-C, a crash, a power cut): it is removed and
//!   the run started again from scratch, since resuming it would give it more wall clock (two
//!   starts, two warm-ups) or less than the others;
//! - a run stopped by Ctrl-C writes no record, so the next start trains it from scratch.

use super::spec::PlannedRun;
use crate::config;
use crate::error::PipelineError;
use crate::lease::{Lease, LeaseOptions};
use crate::metrics::{self, MetricsEvent};
use crate::report::Reporter;
use crate::run_dir::{Role, RunDir};
use arena::ArenaGame;
use encode::Encode;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The version of `experiment-done.json` this build writes.
pub const DONE_VERSION: u32 = 1;

/// Largest `experiment-done.json` read (a few hundred bytes per generation).
const MAX_DONE_BYTES: u64 = 1 << 24;

/// `experiment-done.json`: a run that spent its whole budget, and what it used. Written once
/// (through [`durable::write_atomic`]) when [`crate::schedule::run`] returns without a stop.
///
/// ```json
/// {"v":1,"run":"puct-s1","arm":"puct","seed":1,"budget_minutes":8.0,
///  "started_ms":1767225600000,"finished_ms":1767226080000,"finished":"2026-01-01 00:08:00 UTC",
///  "wall_seconds":480.0,"evaluations":5120000,"positions":71000,"samples":18000,"games":896,
///  "steps":2100,"generations":7,
///  "checkpoints":[{"generation":0,"step":0,"seconds":0.0,"evaluations":0,"positions":0,"samples":0}, ...]}
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DoneRecord {
    /// The format version ([`DONE_VERSION`]).
    pub v: u32,
    /// The run's folder name, `<arm>-s<seed>`.
    pub run: String,
    /// Its arm.
    pub arm: String,
    /// Its seed.
    pub seed: u64,
    /// The budget it had (its `run.max_minutes`).
    pub budget_minutes: f64,
    /// When the harness started it, milliseconds since the Unix epoch.
    pub started_ms: u64,
    /// When it ended.
    pub finished_ms: u64,
    /// `finished_ms` as `YYYY-MM-DD HH:MM:SS UTC`.
    pub finished: String,
    /// Wall-clock seconds from start to end (a monotonic clock).
    pub wall_seconds: f64,
    /// Positions self-play sent to the net (the `evaluations` of its `selfplay` metrics lines).
    pub evaluations: u64,
    /// Positions (moves) self-play played.
    pub positions: u64,
    /// Training samples self-play recorded.
    pub samples: u64,
    /// Self-play games.
    pub games: u64,
    /// Training steps taken (the newest checkpoint's step).
    pub steps: u64,
    /// Generations finished.
    pub generations: u64,
    /// Each generation checkpoint (step 0 first) with its time and the work done by then.
    pub checkpoints: Vec<CheckpointTime>,
}

/// A generation checkpoint of a done run, placed in wall-clock time.
///
/// Its time is exact to the millisecond: the `time_ms` of the run's `generation` line in
/// `metrics.jsonl` (written by the scheduler the moment the generation ended, its checkpoint
/// written) minus the moment the harness started the run. Generation 0, the net before any
/// learning, is at 0. The work counts are the sums of the `selfplay` lines before that
/// `generation` line (the scheduler runs its phases one after another, so file order is time
/// order).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointTime {
    /// The generation (0: the step-0 checkpoint).
    pub generation: u64,
    /// The checkpoint's step.
    pub step: u64,
    /// Seconds since the run started.
    pub seconds: f64,
    /// Self-play positions sent to the net by then.
    pub evaluations: u64,
    /// Self-play positions played by then.
    pub positions: u64,
    /// Training samples recorded by then.
    pub samples: u64,
}

impl DoneRecord {
    /// The newest generation checkpoint.
    #[must_use]
    pub fn last(&self) -> Option<&CheckpointTime> {
        self.checkpoints.iter().max_by_key(|c| c.step)
    }

    /// Reads `experiment-done.json` of `run`; `None` when there is none.
    ///
    /// # Errors
    /// The file exists but does not read, or is of another version.
    pub fn read(run: &RunDir) -> Result<Option<DoneRecord>, PipelineError> {
        let path = run.experiment_done();
        let bytes = match durable::read_bounded(&path, MAX_DONE_BYTES) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let record: DoneRecord = serde_json::from_slice(&bytes)
            .map_err(|e| PipelineError::Format { path: path.clone(), message: e.to_string() })?;
        if record.v != DONE_VERSION {
            return Err(PipelineError::Format {
                path,
                message: format!("version {} (this build reads {DONE_VERSION})", record.v),
            });
        }
        Ok(Some(record))
    }

    /// Writes it as `experiment-done.json` of `run`.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write(&self, run: &RunDir) -> Result<(), PipelineError> {
        let path = run.experiment_done();
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| PipelineError::Format { path: path.clone(), message: e.to_string() })?;
        durable::write_atomic(&path, text.as_bytes())?;
        Ok(())
    }

    /// The record of `planned`, trained in `run` from `started_ms` for `wall_seconds`, from the
    /// run's metrics and checkpoints.
    ///
    /// # Errors
    /// `metrics.jsonl` does not read.
    pub fn of_run(
        run: &RunDir,
        planned: &PlannedRun,
        started_ms: u64,
        wall_seconds: f64,
    ) -> Result<DoneRecord, PipelineError> {
        let lines = metrics::read(&run.metrics())?.lines;
        let mut now = metrics::Totals::default();
        let mut checkpoints =
            vec![CheckpointTime { generation: 0, step: 0, seconds: 0.0, evaluations: 0, positions: 0, samples: 0 }];
        for line in &lines {
            now.add(&line.event);
            if let MetricsEvent::Generation(g) = &line.event {
                checkpoints.push(CheckpointTime {
                    generation: g.generation,
                    step: g.step,
                    seconds: line.time_ms.saturating_sub(started_ms) as f64 / 1000.0,
                    evaluations: now.evaluations,
                    positions: now.positions,
                    samples: now.samples,
                });
            }
        }
        let finished_ms = metrics::now_ms();
        Ok(DoneRecord {
            v: DONE_VERSION,
            run: planned.name.clone(),
            arm: planned.arm.clone(),
            seed: planned.seed,
            budget_minutes: planned.config.run.max_minutes,
            started_ms,
            finished_ms,
            finished: arena::record::utc_time(finished_ms),
            wall_seconds,
            evaluations: now.evaluations,
            positions: now.positions,
            samples: now.samples,
            games: now.games,
            steps: crate::models::checkpoints(run).last().map_or(0, |(s, _)| *s),
            generations: checkpoints.iter().map(|c| c.generation).max().unwrap_or(0),
            checkpoints,
        })
    }
}

/// What to do with a planned run.
#[derive(Clone, Debug, PartialEq)]
pub enum Next {
    /// Done: skip it.
    Skip(DoneRecord),
    /// Train it from scratch (its folder is absent, or was an interrupted run and is removed).
    Train,
}

/// Looks at the folder of `planned` (see the resume rule in the module docs): a done run is
/// checked against the plan and skipped, an interrupted one removed (unless a live process
/// holds one of its leases) and trained again.
///
/// # Errors
/// A done run made with another config; a record that does not read; a run another live
/// process works in; a folder that cannot be removed.
pub fn next(
    run: &RunDir,
    planned: &PlannedRun,
    lease: &LeaseOptions,
    reporter: &dyn Reporter,
) -> Result<Next, PipelineError> {
    if let Some(done) = DoneRecord::read(run)? {
        config::check_same(run, &planned.config)?;
        return Ok(Next::Skip(done));
    }
    if run.root().exists() {
        // A live `qizero run` (or another experiment) in it holds a lease: never remove its work.
        drop((Lease::acquire(run, Role::Trainer, lease)?, Lease::acquire(run, Role::Arena, lease)?));
        std::fs::remove_dir_all(run.root()).map_err(|e| PipelineError::file("removing", run.root(), e))?;
        reporter.say(&format!(
            "experiment: {} was interrupted before its budget was spent: removed, training it again from scratch \
             (every run gets one uninterrupted budget)",
            planned.name
        ));
    }
    Ok(Next::Train)
}

/// Trains `planned` in `run` (absent: see [`next`]) for its whole budget; its record, or `None`
/// if `stop` was raised (then the folder stays, to be removed and trained again next time).
///
/// # Errors
/// The run's phases fail (see [`crate::schedule::run`]); the record cannot be written.
pub fn train<G: ArenaGame + Encode>(
    run: &RunDir,
    planned: &PlannedRun,
    lease: &LeaseOptions,
    stop: &AtomicBool,
    reporter: &dyn Reporter,
) -> Result<Option<DoneRecord>, PipelineError> {
    let started_ms = metrics::now_ms();
    let started = Instant::now();
    config::prepare(run, &planned.config)?;
    crate::schedule::run::<G>(run, &planned.config, lease, stop, reporter)?;
    if stop.load(Ordering::Relaxed) {
        return Ok(None);
    }
    let record = DoneRecord::of_run(run, planned, started_ms, started.elapsed().as_secs_f64())?;
    record.write(run)?;
    Ok(Some(record))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::spec::{Spec, plan};
    use crate::metrics::{GenerationEvent, MetricsLog, SelfplayEvent};
    use crate::report::Quiet;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("qizero-exp-runs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn planned() -> PlannedRun {
        let preset = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/xiangqi-tiny.toml");
        let text = format!(
            "name = \"t\"\nbudget_minutes = 1.0\nseeds = [7]\n[[arm]]\nname = \"a\"\nconfig = \"{}\"\n",
            preset.display()
        );
        plan(Spec::parse(&text).expect("parses"), None).expect("plans").runs.remove(0)
    }

    fn options() -> LeaseOptions {
        LeaseOptions::on(&crate::lease::host_name())
    }

    /// A run folder as `train` leaves it after its budget: config, metrics, and the record.
    fn finished(run: &RunDir, planned: &PlannedRun) -> DoneRecord {
        let started = metrics::now_ms() - 5_000;
        config::prepare(run, &planned.config).expect("prepares");
        let log = MetricsLog::new(run.metrics());
        let sp = |e| {
            MetricsEvent::Selfplay(SelfplayEvent {
                games: 4,
                positions: 100,
                samples: 90,
                evaluations: e,
                ..SelfplayEvent::default()
            })
        };
        log.append(sp(800)).expect("appends");
        log.append(MetricsEvent::Generation(GenerationEvent {
            generation: 1,
            step: 300,
            ..GenerationEvent::default()
        }))
        .expect("appends");
        log.append(sp(1200)).expect("appends");
        log.append(MetricsEvent::Generation(GenerationEvent {
            generation: 2,
            step: 600,
            ..GenerationEvent::default()
        }))
        .expect("appends");
        let record = DoneRecord::of_run(run, planned, started, 6.0).expect("record");
        record.write(run).expect("writes");
        record
    }

    #[test]
    fn the_record_sums_the_metrics_and_places_each_checkpoint() {
        let dir = scratch("record");
        let (run, p) = (RunDir::new(&dir), planned());
        let r = finished(&run, &p);
        assert_eq!((r.run.as_str(), r.arm.as_str(), r.seed, r.budget_minutes), ("a-s7", "a", 7, 1.0));
        assert_eq!((r.evaluations, r.positions, r.samples, r.games, r.generations), (2000, 200, 180, 8, 2));
        let steps: Vec<(u64, u64)> = r.checkpoints.iter().map(|c| (c.step, c.evaluations)).collect();
        assert_eq!(steps, [(0, 0), (300, 800), (600, 2000)], "the work done by each checkpoint");
        assert_eq!(r.checkpoints[0].seconds, 0.0);
        assert!(r.checkpoints[1].seconds >= 5.0 && r.checkpoints[2].seconds < 60.0, "{:?}", r.checkpoints);
        assert_eq!(r.last().map(|c| c.step), Some(600));
        assert_eq!(DoneRecord::read(&run).expect("reads"), Some(r));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn done_runs_are_skipped_and_interrupted_ones_restarted() {
        let dir = scratch("resume");
        let p = planned();
        // Absent: train.
        let run = RunDir::new(dir.join("a-s7"));
        assert_eq!(next(&run, &p, &options(), &Quiet).expect("absent"), Next::Train);
        // Done: skipped, and its folder stays as it is.
        let record = finished(&run, &p);
        assert_eq!(next(&run, &p, &options(), &Quiet).expect("done"), Next::Skip(record));
        assert!(run.config().is_file());
        // Done, but with another config: refused, naming the difference.
        let mut other = p.clone();
        other.config.seed = 8;
        let e = next(&run, &other, &options(), &Quiet).expect_err("other config");
        assert!(e.to_string().contains("seed"), "{e}");
        // Interrupted (no record): removed, and trained again from scratch.
        std::fs::remove_file(run.experiment_done()).expect("removes the record");
        assert_eq!(next(&run, &p, &options(), &Quiet).expect("partial"), Next::Train);
        assert!(!run.root().exists(), "the interrupted run is gone");
        // An interrupted run that a live process works in is left alone.
        config::prepare(&run, &p.config).expect("prepares");
        let held = Lease::acquire(&run, Role::Trainer, &LeaseOptions::on("elsewhere")).expect("a lease");
        let e = next(&run, &p, &options(), &Quiet).expect_err("held");
        assert!(e.to_string().contains("trainer"), "{e}");
        assert!(run.config().is_file());
        drop(held);
        // A record that does not read is an error, never a guess.
        std::fs::write(run.experiment_done(), b"{").expect("writes");
        let e = next(&run, &p, &options(), &Quiet).expect_err("bad record");
        assert!(e.to_string().contains("experiment-done.json"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
