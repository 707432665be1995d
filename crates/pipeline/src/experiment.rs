//! `qizero experiment`: training configurations ("arms") compared at an equal wall-clock
//! budget, all rated on one Elo ladder with fixed anchors.
//!
//! An experiment is a spec ([`Spec`], a TOML file: arms, seeds, the budget, the ladder) and a
//! directory ([`ExperimentDir`]). [`run`] does three things, each resumable:
//!
//! 1. **Training** ([`runs`]): each arm x seed, seed by seed, is a run directory
//!    `runs/<arm>-s<seed>` trained in process by [`crate::schedule::run`] for `budget_minutes`
//!    of wall clock (its `run.max_minutes`, generations until then, its own arena off; see
//!    [`spec`]). A run that spent its budget gets `experiment-done.json` ([`DoneRecord`]: wall
//!    time, net evaluations, positions, samples, steps, generations, each generation
//!    checkpoint's time). **Every run gets exactly one uninterrupted budget**: a done run is
//!    skipped, and a run folder without the record (interrupted) is removed and trained again
//!    from scratch. The scheduler starts no generation that would end past the budget (judged
//!    by the generations so far of its kind, with the arena or without), so a run ends within
//!    about one generation of it; the record keeps its exact wall time. Runs go one after
//!    another on the same machine, each with the whole machine.
//! 2. **The ladder** ([`ladder`]): the rated checkpoints of every done run (each run's last, or
//!    every generation checkpoint) play every anchor, and neighbouring anchors play each other;
//!    each finished pairing is a line of `ladder/pairings.jsonl`, and a resumed ladder plays
//!    only what the log lacks.
//! 3. **Results** ([`results`]): ratings with `random` at 0 and 95% intervals, a table per
//!    checkpoint and a summary per arm, printed and written as `results.md` and
//!    `results.json`, and `elo.png` (Elo against wall-clock minutes, one colour per arm, one
//!    line per seed, the anchors as horizontal lines).
//!
//! A stop (Ctrl-C, SIGTERM) ends the run in progress at its next safe point (it is trained
//! again from scratch next time) or drops the pairing in progress; the same command goes on.
//! One experiment process per directory: it holds `leases/experiment.lease`.
//!
//! ```text
//! <dir>/
//!   runs/<arm>-s<seed>/    a run directory (RunDir), plus experiment-done.json once done
//!   ladder/pairings.jsonl  one versioned line per finished pairing (ladder::PairingLine)
//!   ladder/records/        <a>-vs-<b>/ game records of each pairing
//!   results.md             the tables, markdown
//!   results.json           the same, versioned (results::Results)
//!   elo.png                Elo against wall-clock minutes
//!   leases/                experiment.lease
//! ```

pub mod ladder;
pub mod results;
pub mod runs;
pub mod spec;

pub use results::Results;
pub use runs::{CheckpointTime, DoneRecord};
pub use spec::{Plan, Spec, plan};

use crate::error::PipelineError;
use crate::lease::{Lease, LeaseOptions};
use crate::report::Reporter;
use crate::run_dir::{RunDir, file_safe};
use arena::ArenaGame;
use encode::Encode;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// The one owner of every path of an experiment directory (the layout is in the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExperimentDir {
    root: PathBuf,
}

impl ExperimentDir {
    /// The experiment directory at `root`; makes nothing.
    #[must_use]
    pub fn new(root: impl Into<PathBuf>) -> ExperimentDir {
        ExperimentDir { root: root.into() }
    }

    /// The folder itself.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `runs/`.
    #[must_use]
    pub fn runs(&self) -> PathBuf {
        self.root.join("runs")
    }

    /// `runs/<name>`: a run directory.
    #[must_use]
    pub fn run(&self, name: &str) -> RunDir {
        RunDir::new(self.runs().join(name))
    }

    /// `ladder/`.
    #[must_use]
    pub fn ladder(&self) -> PathBuf {
        self.root.join("ladder")
    }

    /// `ladder/pairings.jsonl`.
    #[must_use]
    pub fn pairings(&self) -> PathBuf {
        self.ladder().join("pairings.jsonl")
    }

    /// `ladder/records/<a>-vs-<b>`: the game records of a pairing, names made file-safe.
    #[must_use]
    pub fn records(&self, a: &str, b: &str) -> PathBuf {
        self.ladder().join("records").join(format!("{}-vs-{}", file_safe(a), file_safe(b)))
    }

    /// `results.md`.
    #[must_use]
    pub fn results_md(&self) -> PathBuf {
        self.root.join("results.md")
    }

    /// `results.json`.
    #[must_use]
    pub fn results_json(&self) -> PathBuf {
        self.root.join("results.json")
    }

    /// `elo.png`.
    #[must_use]
    pub fn elo_png(&self) -> PathBuf {
        self.root.join("elo.png")
    }

    /// `leases/`.
    #[must_use]
    pub fn leases(&self) -> PathBuf {
        self.root.join("leases")
    }

    /// `leases/experiment.lease`: one live experiment process per directory.
    #[must_use]
    pub fn lease(&self) -> PathBuf {
        self.leases().join("experiment.lease")
    }
}

/// How [`run`] goes about it.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Train nothing: rate the runs that are done (others are left as they are).
    pub only_ladder: bool,
}

/// Runs the experiment `plan` in `dir` (see the module docs) for game `G`; its results, or
/// `None` if `stop` was raised first.
///
/// # Errors
/// Another experiment holds the directory; a run fails, or a done run was made with another
/// config; a pairing cannot be played; no run is done (nothing to rate); a file cannot be
/// written.
pub fn run<G: ArenaGame + Encode>(
    dir: &ExperimentDir,
    plan: &Plan,
    options: &Options,
    lease: &LeaseOptions,
    stop: &AtomicBool,
    reporter: &dyn Reporter,
) -> Result<Option<Results>, PipelineError> {
    for d in [dir.root().to_path_buf(), dir.runs(), dir.ladder()] {
        std::fs::create_dir_all(&d).map_err(|e| PipelineError::file("creating", &d, e))?;
    }
    let _held = Lease::acquire_at(&dir.leases(), dir.lease(), "experiment", None, lease)?;
    let spec = &plan.spec;
    reporter.say(&format!(
        "experiment {}: {} arm(s) x {} seed(s) of {}, {} wall-clock minutes each, in {}",
        spec.name,
        spec.arms.len(),
        spec.seeds.len(),
        plan.game.as_str(),
        spec.budget_minutes,
        dir.root().display()
    ));
    let mut done = Vec::new();
    for (i, planned) in plan.runs.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let run = dir.run(&planned.name);
        let n = format!("{}/{}", i + 1, plan.runs.len());
        if options.only_ladder {
            match DoneRecord::read(&run)? {
                Some(record) => {
                    crate::config::check_same(&run, &planned.config)?;
                    done.push((run, record));
                }
                None => {
                    reporter.say(&format!("experiment: run {n} {}: not done, not rated (--only-ladder)", planned.name))
                }
            }
            continue;
        }
        let record = match runs::next(&run, planned, lease, reporter)? {
            runs::Next::Skip(record) => {
                reporter.say(&format!(
                    "experiment: run {n} {}: done ({} generations in {:.1} min), skipped",
                    planned.name,
                    record.generations,
                    record.wall_seconds / 60.0
                ));
                record
            }
            runs::Next::Train => {
                reporter.say(&format!(
                    "experiment: run {n} {}: training for {} minutes (overrides: {})",
                    planned.name,
                    spec.budget_minutes,
                    planned.overrides.join(" ")
                ));
                let Some(record) = runs::train::<G>(&run, planned, lease, stop, reporter)? else {
                    reporter.say(&format!(
                        "experiment: run {} stopped before its budget was spent: it is trained again from scratch \
                         next time",
                        planned.name
                    ));
                    return Ok(None);
                };
                reporter.say(&format!(
                    "experiment: run {n} {}: done: {} generations, {} steps, {} net evaluations in {:.1} min",
                    planned.name,
                    record.generations,
                    record.steps,
                    record.evaluations,
                    record.wall_seconds / 60.0
                ));
                record
            }
        };
        done.push((run, record));
    }
    if done.is_empty() {
        return Err(PipelineError::Config(format!(
            "no run of {} is done yet: nothing to rate (run without --only-ladder to train them)",
            dir.root().display()
        )));
    }
    let anchors = ladder::anchors(&spec.ladder)?;
    let entrants = ladder::entrants(&done, spec.ladder.checkpoints)?;
    let Some(lines) = ladder::play::<G>(dir, plan, &anchors, &entrants, stop, reporter)? else { return Ok(None) };
    let r = results::assemble(plan, &anchors, &entrants, &lines)?;
    write(dir, &r)?;
    reporter.say(results::text(&r).trim_end());
    reporter.say(&format!(
        "experiment: results in {}, {} and {}",
        dir.results_md().display(),
        dir.results_json().display(),
        dir.elo_png().display()
    ));
    Ok(Some(r))
}

/// Writes `results.md`, `results.json` and `elo.png`.
///
/// # Errors
/// A file cannot be written, or the plot drawn.
pub fn write(dir: &ExperimentDir, r: &Results) -> Result<(), PipelineError> {
    let json = dir.results_json();
    let text = serde_json::to_string_pretty(r)
        .map_err(|e| PipelineError::Format { path: json.clone(), message: e.to_string() })?;
    durable::write_atomic(&json, text.as_bytes())?;
    durable::write_atomic(&dir.results_md(), results::markdown(r).as_bytes())?;
    crate::plots::write_experiment_elo(&dir.elo_png(), &results::plot(r))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        let d = ExperimentDir::new("/e");
        assert_eq!(d.run("puct-s1").root(), Path::new("/e/runs/puct-s1"));
        assert_eq!(d.run("puct-s1").experiment_done(), Path::new("/e/runs/puct-s1/experiment-done.json"));
        assert_eq!(d.pairings(), Path::new("/e/ladder/pairings.jsonl"));
        assert_eq!(
            d.records("puct-s1/ckpt-40", "alphabeta:depth=1"),
            Path::new("/e/ladder/records/puct-s1_ckpt-40-vs-alphabeta_depth=1")
        );
        assert_eq!(
            (d.results_md(), d.results_json(), d.elo_png()),
            ("/e/results.md".into(), "/e/results.json".into(), "/e/elo.png".into())
        );
        assert_eq!(d.lease(), Path::new("/e/leases/experiment.lease"));
    }
}
