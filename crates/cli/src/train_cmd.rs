//! `qizero train` and `qizero bench train`: glue between the `train` library and a run
//! directory. Loads the config, prepares the run directory, opens (or resumes) the trainer, shows
//! progress, appends `metrics.jsonl` lines, and stops cleanly on Ctrl-C or SIGTERM with a
//! checkpoint at the step reached.

use anyhow::{Context, Result, bail};
use clap::Args;
use encode::Encode;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use train::{Event, RunOptions, StopReason, Trainer, TrainerSetup};

use crate::GameName;
use crate::config::{self, RunConfig};
use crate::metrics;

/// Arguments of `qizero train`.
#[derive(Args)]
pub struct TrainArgs {
    /// The config preset (TOML), e.g. configs/xiangqi-tiny.toml.
    #[arg(long)]
    config: PathBuf,
    /// The run directory: shards are read from <run>/shards, checkpoints go to <run>/checkpoints.
    #[arg(long)]
    run: PathBuf,
    /// Stop (with a checkpoint) when the run has taken this many steps in all, counted from the
    /// run's start: the same command resumed after a kill finishes the same job. Default:
    /// train.steps, where 0 means until Ctrl-C.
    #[arg(long)]
    steps: Option<u64>,
    /// Exit instead of waiting when the window holds fewer than train.min_positions positions or
    /// the reuse cap is reached (an error if not one step could be taken).
    #[arg(long)]
    no_wait: bool,
    /// Override a config value, e.g. --set train.batch_size=128 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

/// `qizero train`.
pub fn run(args: &TrainArgs) -> Result<()> {
    let config = config::load(&args.config, &args.overrides)?;
    config.train.validate()?;
    config::prepare_run_dir(&args.run, &config)?;
    // Nets no longer set libtorch's thread count when built: this phase sets it once.
    nn::set_cpu_threads(config.net.cpu_threads);
    match config.game {
        GameName::Xiangqi => run_game::<xiangqi::Game>(args, &config),
        GameName::Draughts => run_game::<draughts::Game>(args, &config),
    }
}

fn run_game<G: Encode>(args: &TrainArgs, config: &RunConfig) -> Result<()> {
    let setup = TrainerSetup {
        run_dir: args.run.clone(),
        net: config.net.clone(),
        train: config.train.clone(),
        seed: config.seed,
        config_hash: train::config_hash(&config::to_toml(config)?),
    };
    let mut trainer =
        Trainer::<G>::open(setup).with_context(|| format!("opening the trainer of {}", args.run.display()))?;
    let t = &config.train;
    eprintln!(
        "train: {} {} on {}, {} batch {}, lr {} ({}), {}",
        G::NAME,
        trainer.net().config().architecture(),
        nn::device::device_name(trainer.net().device()),
        format!("{:?}", t.optimizer).to_lowercase(),
        t.batch_size,
        t.learning_rate,
        format!("{:?}", t.schedule).to_lowercase(),
        match trainer.last_checkpoint() {
            Some(l) => format!("resuming at step {} from {}", l.step, l.weights),
            None => "starting from fresh weights".to_owned(),
        }
    );

    let stop = crate::signals::stop_flag("stopping after this step and writing a checkpoint")?;
    let target = args.steps.or((t.steps > 0).then_some(t.steps));
    let options = RunOptions { until_step: target, no_wait: args.no_wait };
    let summary = train_until(&args.run, t, &mut trainer, options, &stop)?;

    let trained = summary.last_step - summary.first_step;
    println!(
        "steps: {} -> {} ({trained} trained), samples seen {}",
        summary.first_step, summary.last_step, summary.samples_seen
    );
    match &summary.last_checkpoint {
        Some(l) => println!("checkpoint: {}", args.run.join("checkpoints").join(&l.weights).display()),
        None => println!("checkpoint: none yet"),
    }
    if summary.corrupt.is_empty() {
        println!("corrupt shards: 0");
    } else {
        println!("corrupt shards: {} (skipped)", summary.corrupt.len());
        for c in &summary.corrupt {
            println!("  {}: {}", c.name, c.fault);
        }
    }
    match summary.reason {
        StopReason::Target => println!("stopped: reached step {}", summary.last_step),
        StopReason::Stopped => println!("stopped: signal"),
        StopReason::Starved(why) if trained == 0 => {
            bail!("not enough training data in {}: {why}", args.run.join("shards").display())
        }
        StopReason::Starved(why) => println!("stopped: out of data: {why}"),
    }
    Ok(())
}

/// Trains `trainer` (of the run at `run`) as `options` say, with a progress bar, warnings and
/// `metrics.jsonl` lines (`train`, `checkpoint`, `corrupt_shard`); `stop` ends it after the step
/// in hand, with a checkpoint.
///
/// # Errors
/// As [`Trainer::run`].
pub fn train_until<G: Encode>(
    run: &std::path::Path,
    t: &train::TrainConfig,
    trainer: &mut Trainer<G>,
    options: RunOptions,
    stop: &AtomicBool,
) -> Result<train::RunSummary> {
    let target = options.until_step;
    let bar = match target {
        Some(n) => ProgressBar::new(n),
        None => ProgressBar::no_length(),
    };
    let template = if target.is_some() {
        "{elapsed_precise} [{bar:30}] {pos}/{len} steps  {msg}"
    } else {
        "{elapsed_precise} {pos} steps  {msg}"
    };
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> "),
    );
    bar.set_position(trainer.step());
    let mut rate = Rate::new(t.batch_size);
    let record = |kind: &str, line: serde_json::Value, bar: &ProgressBar| {
        if let Err(e) = metrics::append(run, kind, line) {
            say(bar, format!("warning: {e:#}"));
        }
    };
    let mut observe = |event: &Event| match event {
        Event::Corrupt(c) => {
            say(&bar, format!("warning: {c}"));
            record("corrupt_shard", serde_json::json!({ "name": c.name, "fault": c.fault }), &bar);
        }
        Event::Waiting(why) => {
            say(&bar, format!("train: waiting for self-play data: {why}"));
            bar.set_message("waiting for data");
            rate.pause();
        }
        Event::Resumed => say(&bar, "train: new data, training again".into()),
        Event::Step(s) => {
            bar.set_position(s.step);
            bar.set_message(format!(
                "loss {:.3} (policy {:.3} value {:.3})  {:.0} samples/s",
                s.total_loss,
                s.policy_loss,
                s.value_loss,
                rate.tick()
            ));
        }
        Event::Metrics(m) => record(
            "train",
            serde_json::json!({
                "step": m.step,
                "samples_seen": m.samples_seen,
                "positions_generated": m.positions_generated,
                "window_positions": m.window_positions,
                "policy_loss": m.losses.policy,
                "value_loss": m.losses.value,
                "total_loss": m.losses.total,
                "learning_rate": m.learning_rate,
                "samples_per_s": m.samples_per_second,
                "reuse": m.samples_seen as f64 / m.positions_generated.max(1) as f64,
                "corrupt_shards": m.corrupt_shards,
            }),
            &bar,
        ),
        Event::Checkpoint(l) => {
            say(
                &bar,
                format!(
                    "train: checkpoint {} (loss {:.3}, policy {:.3}, value {:.3} over {} steps; window {} shards, {} positions)",
                    l.weights,
                    l.losses.total,
                    l.losses.policy,
                    l.losses.value,
                    l.losses.steps,
                    l.window.shards,
                    l.window.positions
                ),
            );
            record(
                "checkpoint",
                serde_json::json!({
                    "step": l.step,
                    "weights": l.weights,
                    "parent": l.parent,
                    "samples_seen": l.samples_seen,
                    "positions_generated": l.positions_generated,
                    "window_shards": l.window.shards,
                    "window_positions": l.window.positions,
                    "policy_loss": l.losses.policy,
                    "value_loss": l.losses.value,
                    "total_loss": l.losses.total,
                    "learning_rate": l.learning_rate,
                    "corrupt_shards": l.corrupt_shards,
                }),
                &bar,
            );
        }
    };
    let summary = trainer.run(options, stop, &mut observe);
    bar.finish_and_clear();
    Ok(summary?)
}

/// Prints a line to standard error above the progress bar; unlike `ProgressBar::println` it also
/// prints when the bar is hidden (standard error not a terminal), so warnings reach logs.
fn say(bar: &ProgressBar, line: String) {
    bar.suspend(|| eprintln!("{line}"));
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

/// Arguments of `qizero bench train`.
#[derive(Args)]
pub struct BenchTrainArgs {
    /// The config preset whose [net] and [train] tables are measured.
    #[arg(long)]
    config: PathBuf,
    /// Override a config value, e.g. --set train.loader_threads=2 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// Seconds each variant is timed per round.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Rounds (the variants alternate within each).
    #[arg(long, default_value_t = 3)]
    rounds: u32,
    /// Positions of synthetic random-game data to train on.
    #[arg(long, default_value_t = 20_000)]
    positions: usize,
}

/// `qizero bench train`.
pub fn bench(args: &BenchTrainArgs) -> Result<()> {
    let config = config::load(&args.config, &args.overrides)?;
    config.train.validate()?;
    // Nets no longer set libtorch's thread count when built: this phase sets it once.
    nn::set_cpu_threads(config.net.cpu_threads);
    let scratch = std::env::temp_dir().join(format!("qizero-bench-train-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let options = train::bench::BenchOptions {
        net: config.net.clone(),
        train: config.train.clone(),
        seed: config.seed,
        seconds: args.seconds,
        rounds: args.rounds,
        positions: args.positions,
        scratch: scratch.clone(),
    };
    println!(
        "bench train: {} {}, batch {}, {} optimiser, loader threads {}",
        match config.game {
            GameName::Xiangqi => "xiangqi",
            GameName::Draughts => "draughts",
        },
        config.net.architecture(),
        config.train.batch_size,
        format!("{:?}", config.train.optimizer).to_lowercase(),
        config.train.loader_threads,
    );
    let mut progress = |line: String| println!("{line}");
    let result = match config.game {
        GameName::Xiangqi => train::bench::run::<xiangqi::Game>(&options, &mut progress),
        GameName::Draughts => train::bench::run::<draughts::Game>(&options, &mut progress),
    };
    let _ = std::fs::remove_dir_all(&scratch);
    let r = result?;
    println!("window: {} positions of random games; libtorch threads {}", r.window_positions, tch::get_num_threads());
    println!("bare step (libtorch optimiser): {:.0} samples/s", r.bare);
    println!("bare step (our optimiser):      {:.0} samples/s", r.bare_our_optimizer);
    println!("trainer:                        {:.0} samples/s", r.trainer);
    println!("building one batch in one thread: {:.2} ms", r.build_ms);
    println!("ratio trainer/bare (our optimiser: the cost of data loading): {:.3}", r.trainer / r.bare_our_optimizer);
    println!("ratio trainer/bare: {:.3}", r.ratio());
    Ok(())
}
