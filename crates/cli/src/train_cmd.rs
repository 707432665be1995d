//! `qizero train` and `qizero bench train`: the trainer of a run directory
//! ([`pipeline::training`]: the trainer lease, generation 0, metrics), and its throughput.

use anyhow::{Result, bail};
use clap::Args;
use encode::Encode;
use pipeline::{GameName, RunConfig, RunDir, config};
use std::path::PathBuf;
use train::{RunOptions, StopReason};

use crate::ui::{Terminal, lease_options};

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
    let run = RunDir::new(&args.run);
    config::prepare(&run, &config)?;
    nn::set_cpu_threads(config.net.cpu_threads);
    match config.game {
        GameName::Xiangqi => run_game::<xiangqi::Game>(args, &run, &config),
        GameName::Draughts => run_game::<draughts::Game>(args, &run, &config),
    }
}

fn run_game<G: Encode>(args: &TrainArgs, run: &RunDir, config: &RunConfig) -> Result<()> {
    let mut held = pipeline::training::open::<G>(run, config, &lease_options(), &Terminal)?;
    let trainer = &mut held.trainer;
    let t = &config.train;
    eprintln!(
        "train: {} {} on {}, {} batch {}, lr {} ({}), {}",
        G::NAME,
        trainer.net().config().architecture(),
        nn::device::device_name(trainer.net().device()),
        t.optimizer,
        t.batch_size,
        t.learning_rate,
        t.schedule,
        match trainer.last_checkpoint() {
            Some(l) => format!("resuming at step {} from {}", l.step, l.weights),
            None => "starting from fresh weights".to_owned(),
        }
    );
    let stop = crate::signals::stop_flag_for(run, "stopping after this step and writing a checkpoint")?;
    let target = args.steps.or((t.steps > 0).then_some(t.steps));
    let options = RunOptions { until_step: target, no_wait: args.no_wait, resume_later: false };
    let summary = pipeline::training::train_until(run, t, trainer, options, &stop, &Terminal)?;

    let trained = summary.last_step - summary.first_step;
    println!(
        "steps: {} -> {} ({trained} trained), samples seen {}",
        summary.first_step, summary.last_step, summary.samples_seen
    );
    match &summary.last_checkpoint {
        Some(l) => println!("checkpoint: {}", run.checkpoints().join(&l.weights).display()),
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
            bail!("not enough training data in {}: {why}", run.shards().display())
        }
        StopReason::Starved(why) => println!("stopped: out of data: {why}"),
    }
    Ok(())
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
        config.train.optimizer,
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
