//! `qizero run`, `qizero arena`: the main job and the arena, as the `pipeline` crate runs them.

use anyhow::Result;
use clap::Args;
use pipeline::arena::{Arena, ladder_table};
use pipeline::{GameName, RunConfig, RunDir, config};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::ui::{Terminal, lease_options};

/// Arguments of `qizero run`.
#[derive(Args)]
pub struct RunArgs {
    /// The config preset (TOML), e.g. configs/xiangqi-tiny.toml.
    #[arg(long)]
    config: PathBuf,
    /// The run directory (made if missing; an existing one is resumed, and must have been made
    /// with the same config).
    #[arg(long)]
    run: PathBuf,
    /// Override a config value, e.g. --set run.generations=20 (repeatable; part of the run's
    /// config, so a resume needs the same overrides).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

/// `qizero run`.
pub fn run(args: &RunArgs) -> Result<()> {
    let config = config::load(&args.config, &args.overrides)?;
    let run = RunDir::new(&args.run);
    config::prepare(&run, &config)?;
    let stop = crate::signals::stop_flag_for(
        &run,
        "stopping at the next safe point: self-play writes its finished games, training a checkpoint, \
         the arena drops the match in progress; run the same command to go on",
    )?;
    let lease = lease_options();
    match config.game {
        GameName::Xiangqi => pipeline::schedule::run::<xiangqi::Game>(&run, &config, &lease, &stop, &Terminal)?,
        GameName::Draughts => pipeline::schedule::run::<draughts::Game>(&run, &config, &lease, &stop, &Terminal)?,
    }
    Ok(())
}

/// Arguments of `qizero arena`.
#[derive(Args)]
pub struct ArenaArgs {
    /// The run directory (its config.toml says the game and the [arena] settings).
    #[arg(long)]
    run: PathBuf,
    /// Rate every complete checkpoint, not only generation checkpoints (steps that are
    /// multiples of train.checkpoint_every, and step 0).
    #[arg(long)]
    all: bool,
    /// Override an [arena] value for this command only, e.g. --set arena.games_vs_random=100
    /// (repeatable; other tables are the run's and cannot change).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// Keep going: after rating what is there, wait for the trainer's next checkpoints and rate
    /// each as it appears, until Ctrl-C, SIGTERM or the run's STOP file (the arena job of
    /// `qizero slurm`).
    #[arg(long)]
    follow: bool,
}

/// `qizero arena`.
pub fn arena(args: &ArenaArgs) -> Result<()> {
    if let Some(o) = args.overrides.iter().find(|o| !o.trim_start().starts_with("arena.")) {
        anyhow::bail!("--set {o}: only arena.* values can change for an existing run");
    }
    let run = RunDir::new(&args.run);
    let config = config::of_run(&run, &args.overrides)?;
    run.create()?;
    nn::set_cpu_threads(config.net.cpu_threads);
    let stop = crate::signals::stop_flag_for(&run, "stopping: giving up the match in progress")?;
    match config.game {
        GameName::Xiangqi => arena_game::<xiangqi::Game>(args, &run, &config, &stop),
        GameName::Draughts => arena_game::<draughts::Game>(args, &run, &config, &stop),
    }
}

fn arena_game<G: arena::ArenaGame + encode::Encode>(
    args: &ArenaArgs,
    run: &RunDir,
    config: &RunConfig,
    stop: &AtomicBool,
) -> Result<()> {
    let lease = lease_options();
    let arena = Arena::<G>::open(run, config, &lease, stop, &Terminal)?;
    // Generation 0 first: written here if the run has no checkpoint yet, or waited for while a
    // live trainer writes it.
    let zero = pipeline::models::generation_zero::<G>(run, config, &lease, stop)?;
    println!(
        "arena: {} in {}; {} simulations per move; gate {}{}",
        G::NAME,
        run.root().display(),
        config.arena.simulations,
        arena.gate().describe(),
        if args.follow { "; following new checkpoints until stopped" } else { "" }
    );
    let mut rated = std::collections::BTreeSet::new();
    loop {
        let mut checkpoints = pipeline::models::checkpoints(run);
        if !args.all {
            let every = config.train.checkpoint_every;
            checkpoints.retain(|(step, _)| step % every == 0);
        }
        if checkpoints.first().is_none_or(|(step, _)| *step != 0) {
            checkpoints.insert(0, (0, zero.clone()));
        }
        let mut played = false;
        for (step, path) in &checkpoints {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            if !rated.insert(*step) {
                continue;
            }
            if let Some(report) = arena.rate(*step, path)? {
                if !report.played.is_empty() {
                    println!("{}", report.line());
                    played = true;
                }
            }
        }
        if played || !args.follow {
            if let Some(r) = arena.update_ratings()? {
                print!("{}", ladder_table(&r));
            }
            match pipeline::plots::write_all(run, &Terminal) {
                Ok(files) if !files.is_empty() => println!("plots: {}", run.plots().display()),
                Ok(_) => {}
                Err(e) => eprintln!("warning: {e}"),
            }
        }
        if !args.follow || stop.load(Ordering::Relaxed) {
            break;
        }
        // Look for new checkpoints as often as the trainer looks for new shards.
        let until = std::time::Instant::now() + std::time::Duration::from_secs_f64(config.train.poll_seconds);
        while std::time::Instant::now() < until && !stop.load(Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
    if stop.load(Ordering::Relaxed) {
        println!("arena: stopped; the same command goes on from the last complete match");
    }
    Ok(())
}
