//! Training in a run directory: the `train` library's trainer with progress for the user and
//! `train`, `checkpoint` and `corrupt_shard` metrics lines. `qizero train` and the scheduler's
//! training phase both come through [`train_until`]; [`open`] opens (or resumes) the trainer
//! under the run's trainer lease, writing generation 0 if the run has no checkpoint yet.

use crate::config::RunConfig;
use crate::error::PipelineError;
use crate::lease::{GENERATION_ZERO, Lease, LeaseOptions};
use crate::metrics::{CheckpointEvent, MetricsEvent, MetricsLog, TrainEvent};
use crate::models::open_trainer;
use crate::report::{Progress, Reporter};
use crate::run_dir::{Role, RunDir};
use encode::Encode;
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use train::{Event, RunOptions, RunSummary, Trainer};

/// A trainer with the lease that makes it the run's only one.
pub struct HeldTrainer<G: Encode> {
    /// The trainer.
    pub trainer: Trainer<G>,
    /// The run's trainer lease, held while the trainer lives.
    pub lease: Lease,
}

/// Takes the run's trainer lease and opens its trainer (resuming from the newest checkpoint),
/// writing the step-0 checkpoint (generation 0) if there is none yet.
///
/// # Errors
/// Another live trainer holds the lease (named); the trainer cannot open the run; the step-0
/// checkpoint cannot be written.
pub fn open<G: Encode>(
    run: &RunDir,
    config: &RunConfig,
    lease: &LeaseOptions,
    reporter: &dyn Reporter,
) -> Result<HeldTrainer<G>, PipelineError> {
    let lease = acquire_lease(run, lease)?;
    let mut trainer = open_trainer::<G>(run, config)?;
    if trainer.last_checkpoint().is_none() {
        let l = trainer.checkpoint()?;
        reporter.say(&format!("train: generation 0 is the net initialised from the run seed ({})", l.weights));
    }
    Ok(HeldTrainer { trainer, lease })
}

/// The run's trainer lease. A self-play process that finds the run without a checkpoint writes
/// generation 0 under this lease ([`crate::models::generation_zero`]), holding it for the
/// seconds that takes; a trainer started beside it (as a run's jobs usually start) waits that
/// out instead of failing. Any other live holder is another trainer: refused at once. The wait
/// is bounded by the lease's staleness time.
fn acquire_lease(run: &RunDir, options: &LeaseOptions) -> Result<Lease, PipelineError> {
    let deadline = Instant::now() + options.stale_after;
    loop {
        match Lease::acquire(run, Role::Trainer, options) {
            Err(PipelineError::LeaseHeld(why)) if Instant::now() < deadline => {
                let holder = Lease::holder(run, Role::Trainer, options)?;
                if holder.is_some_and(|h| h.purpose.as_deref() != Some(GENERATION_ZERO)) {
                    return Err(PipelineError::LeaseHeld(why));
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            other => return other,
        }
    }
}

/// Trains `trainer` (of `run`) as `options` say, with progress, warnings and metrics lines;
/// `stop` ends it after the step in hand (with a checkpoint).
///
/// # Errors
/// As [`Trainer::run`].
pub fn train_until<G: Encode>(
    run: &RunDir,
    config: &train::TrainConfig,
    trainer: &mut Trainer<G>,
    options: RunOptions,
    stop: &AtomicBool,
    reporter: &dyn Reporter,
) -> Result<RunSummary, PipelineError> {
    let bar = reporter.progress(options.until_step, "steps");
    bar.set_position(trainer.step());
    let metrics = MetricsLog::new(run.metrics());
    let mut rate = Rate::new(config.batch_size);
    let record = |event: MetricsEvent, bar: &dyn Progress| {
        if let Err(e) = metrics.append(event) {
            bar.say(&format!("warning: {e}"));
        }
    };
    let mut observe = |event: &Event| match event {
        Event::Corrupt(c) => {
            bar.say(&format!("warning: {c}"));
            record(MetricsEvent::CorruptShard { name: c.name.clone(), fault: c.fault.clone() }, &*bar);
        }
        Event::Waiting(why) => {
            bar.say(&format!("train: waiting for self-play data: {why}"));
            bar.set_message("waiting for data");
            rate.pause();
        }
        Event::Resumed => bar.say("train: new data, training again"),
        Event::Step(s) => {
            bar.set_position(s.step);
            let material = s.material_loss.map(|m| format!(" material {m:.3}")).unwrap_or_default();
            bar.set_message(&format!(
                "loss {:.3} (policy {:.3} value {:.3}{material})  {:.0} samples/s",
                s.total_loss,
                s.policy_loss,
                s.value_loss,
                rate.tick()
            ));
        }
        Event::Metrics(m) => record(
            MetricsEvent::Train(TrainEvent {
                step: m.step,
                samples_seen: m.samples_seen,
                positions_generated: m.positions_generated,
                window_positions: m.window_positions,
                policy_loss: m.losses.policy,
                value_loss: m.losses.value,
                material_loss: m.losses.material,
                total_loss: m.losses.total,
                learning_rate: m.learning_rate,
                samples_per_s: m.samples_per_second,
                reuse: m.samples_seen as f64 / m.positions_generated.max(1) as f64,
                corrupt_shards: m.corrupt_shards,
            }),
            &*bar,
        ),
        Event::Checkpoint(l) => {
            bar.say(&format!(
                "train: checkpoint {} (loss {:.3}, policy {:.3}, value {:.3} over {} steps; window {} shards, {} positions)",
                l.weights,
                l.losses.total,
                l.losses.policy,
                l.losses.value,
                l.losses.steps,
                l.window.shards,
                l.window.positions
            ));
            record(
                MetricsEvent::Checkpoint(CheckpointEvent {
                    step: l.step,
                    weights: l.weights.clone(),
                    parent: l.parent.clone(),
                    samples_seen: l.samples_seen,
                    positions_generated: l.positions_generated,
                    window_shards: l.window.shards,
                    window_positions: l.window.positions,
                    policy_loss: l.losses.policy,
                    value_loss: l.losses.value,
                    material_loss: l.losses.material,
                    total_loss: l.losses.total,
                    learning_rate: l.learning_rate,
                    corrupt_shards: l.corrupt_shards,
                }),
                &*bar,
            );
        }
    };
    Ok(trainer.run(options, stop, &mut observe)?)
}

/// Samples per second over the last steps, for the progress line.
struct Rate {
    batch: usize,
    last: Option<Instant>,
    smoothed: f64,
}

impl Rate {
    fn new(batch: usize) -> Rate {
        Rate { batch, last: None, smoothed: 0.0 }
    }

    fn pause(&mut self) {
        self.last = None;
    }

    fn tick(&mut self) -> f64 {
        let now = Instant::now();
        if let Some(last) = self.last.replace(now) {
            let r = self.batch as f64 / now.duration_since(last).as_secs_f64().max(1e-9);
            self.smoothed = if self.smoothed == 0.0 { r } else { 0.9 * self.smoothed + 0.1 * r };
        }
        self.smoothed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_trainer_waits_out_generation_zero_but_not_another_trainer() {
        let root = std::env::temp_dir().join(format!("qizero-train-lease-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let run = RunDir::new(&root);
        run.create().expect("creates");
        let text = "game = \"xiangqi\"\n[net]\nblocks = 1\nchannels = 8\npolicy_channels = 1\nvalue_hidden = 8\n\
                    device = \"cpu\"\n";
        let config = crate::config::parse(text, &[]).expect("parses");
        std::fs::write(run.config(), crate::config::to_toml(&config).expect("writes")).expect("writes the config");
        let options = LeaseOptions::on("here");

        // A self-play process holds the lease while it writes generation 0 (here: 300 ms): the
        // trainer waits, then opens.
        let held = Lease::acquire_for(&run, Role::Trainer, GENERATION_ZERO, &options).expect("takes");
        let started = Instant::now();
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            drop(held);
        });
        let first = open::<xiangqi::Game>(&run, &config, &options, &crate::report::Quiet).expect("waits, then opens");
        assert!(started.elapsed() >= Duration::from_millis(250), "{:?}", started.elapsed());
        releaser.join().expect("joins");
        assert_eq!(first.trainer.last_checkpoint().map(|l| l.step), Some(0), "generation 0 written");

        // A lease held for anything else is another trainer's: refused at once, named.
        let started = Instant::now();
        let Err(e) = open::<xiangqi::Game>(&run, &config, &options, &crate::report::Quiet) else {
            panic!("a second trainer opened beside the first");
        };
        assert!(matches!(e, PipelineError::LeaseHeld(_)), "{e}");
        assert!(e.to_string().contains("another trainer holds"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
        drop(first);
        let _ = std::fs::remove_dir_all(&root);
    }
}
