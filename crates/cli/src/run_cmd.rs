//! `qizero run`: the main job. Generations of self-play, training and the arena in one process,
//! all state in the run directory, so the same command resumes where a stop left off.
//!
//! Generation `g` (from 1) is complete when the run has `g * run.games_per_generation` self-play
//! games in its shards, a checkpoint at step `g * train.checkpoint_every`, and (when the arena is
//! due) that checkpoint's matches in `arena/matches.jsonl`. Generation 0 is the randomly
//! initialised net, written as the step-0 checkpoint before anything else. Each phase looks at
//! the directory, not at a state file of its own, to see what is left to do:
//!
//! 1. self-play until the shards hold the generation's games (with the newest generation's
//!    checkpoint, or the best one: `run.selfplay_model`);
//! 2. training until the generation's step; if the trainer runs out of data (the reuse cap),
//!    a quarter generation's more games first;
//! 3. the arena: the new checkpoint against random, alpha-beta and the current best; ratings and
//!    plots brought up to date; one summary line.
//!
//! A stop (Ctrl-C, SIGTERM) lands at a safe point in whatever phase is running: self-play writes
//! its finished games, the trainer a checkpoint at the step reached, the arena drops the match in
//! progress (it is played again). Nothing complete is lost, and nothing is done twice.

use anyhow::{Context, Result, bail};
use arena::ArenaGame;
use clap::Args;
use encode::Encode;
use nn::InferenceService;
use selfplay::FixedModel;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use train::{RunOptions, StopReason, Trainer, TrainerSetup};

use crate::GameName;
use crate::arena_cmd::{Arena, MatchKind, Report, checkpoint_name, ladder_table};
use crate::config::{self, RunConfig, SelfplayModel};
use crate::metrics;

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
    config::prepare_run_dir(&args.run, &config)?;
    let stop = crate::signals::stop_flag(
        "stopping at the next safe point: self-play writes its finished games, training a checkpoint; \
         run the same command to go on",
    )?;
    match config.game {
        GameName::Xiangqi => run_game::<xiangqi::Game>(&args.run, &config, &stop),
        GameName::Draughts => run_game::<draughts::Game>(&args.run, &config, &stop),
    }
}

/// Games in the run's shards (headers only; damaged shards count nothing: the trainer reports
/// them).
fn games_in(shards: &Path) -> Result<u64> {
    let mut games = 0;
    for path in shard::list_shards(shards).with_context(|| format!("listing {}", shards.display()))? {
        if let Ok((_, counts)) = shard::read_header(&path) {
            games += counts.games;
        }
    }
    Ok(games)
}

fn set_threads(n: usize) {
    let n = if n == 0 { std::thread::available_parallelism().map_or(1, usize::from) } else { n };
    tch::set_num_threads(i32::try_from(n).unwrap_or(1));
}

fn minutes(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}m{:02}s", s / 60, s % 60)
}

/// The whole job for game `G`.
fn run_game<G: ArenaGame + Encode>(run: &Path, config: &RunConfig, stop: &AtomicBool) -> Result<()> {
    let schedule = &config.run;
    let per_gen_steps = config.train.checkpoint_every;
    let started = Instant::now();
    set_threads(schedule.train_threads);
    let setup = TrainerSetup {
        run_dir: run.to_path_buf(),
        net: config.net.clone(),
        train: config.train.clone(),
        seed: config.seed,
        config_hash: train::config_hash(&config::to_toml(config)?),
    };
    let mut trainer = Trainer::<G>::open(setup).with_context(|| format!("opening the trainer of {}", run.display()))?;
    if trainer.last_checkpoint().is_none() {
        let l = trainer.checkpoint().context("writing the step-0 checkpoint")?;
        println!("run: generation 0 is the randomly initialised net ({})", l.weights);
    }
    let arena = Arena::<G>::new(run, config, stop);
    let total = if schedule.generations == 0 { "until Ctrl-C".to_owned() } else { schedule.generations.to_string() };
    println!(
        "run: {} {} in {}; generations: {total}, each {} self-play games and {} training steps; \
         self-play with the {} checkpoint; arena every {} generation(s), gate {}",
        G::NAME,
        config.net.architecture(),
        run.display(),
        schedule.games_per_generation,
        per_gen_steps,
        match schedule.selfplay_model {
            SelfplayModel::Latest => "newest",
            SelfplayModel::Best => "best",
        },
        schedule.arena_every,
        arena.gate_text(),
    );
    let checkpoint_at = |step: u64| -> Result<PathBuf> {
        nn::checkpoint::complete_in(&run.join("checkpoints"))
            .into_iter()
            .find(|(s, _)| *s == step)
            .map(|(_, p)| p)
            .with_context(|| {
                format!("the checkpoint of step {step} is missing from {}", run.join("checkpoints").display())
            })
    };
    let due = |g: u64| g == 0 || g % schedule.arena_every == 0 || g == schedule.generations;

    // Whatever generation the trainer has finished, its arena may still be pending.
    let mut done = trainer.step() / per_gen_steps;
    if trainer.step() % per_gen_steps == 0 && due(done) {
        set_threads(config.net.cpu_threads);
        if let Some(report) = arena.rate(trainer.step(), &checkpoint_at(trainer.step())?)? {
            print_report(&arena, &report, done, run)?;
        }
    }
    let mut generation_times: Vec<Duration> = Vec::new();
    while !stop.load(Ordering::Relaxed) && (schedule.generations == 0 || done < schedule.generations) {
        if config.run.max_minutes > 0.0 {
            let mean = generation_times.iter().sum::<Duration>() / generation_times.len().max(1) as u32;
            if started.elapsed() + mean > Duration::from_secs_f64(60.0 * config.run.max_minutes) {
                println!(
                    "run: time budget of {} minutes reached after {} (a generation takes about {})",
                    config.run.max_minutes,
                    minutes(started.elapsed()),
                    minutes(mean)
                );
                break;
            }
        }
        let g = done + 1;
        let gen_started = Instant::now();
        let target_step = g * per_gen_steps;
        let target_games = g * schedule.games_per_generation;
        let have = games_in(&run.join("shards"))?;
        let mut positions_before = trainer.positions_generated();
        if have < target_games {
            set_threads(config.net.cpu_threads);
            selfplay_phase::<G>(run, config, &arena, trainer.step(), target_games - have, g, have, stop)?;
        }
        if stop.load(Ordering::Relaxed) {
            break;
        }
        set_threads(schedule.train_threads);
        let summary = loop {
            let options = RunOptions { until_step: Some(target_step), no_wait: true };
            let summary = crate::train_cmd::train_until(run, &config.train, &mut trainer, options, stop)?;
            match &summary.reason {
                StopReason::Target | StopReason::Stopped => break summary,
                StopReason::Starved(why) => {
                    let more = schedule.games_per_generation.div_ceil(4);
                    println!("run: training needs more data ({why}): {more} more self-play games");
                    set_threads(config.net.cpu_threads);
                    let have = games_in(&run.join("shards"))?;
                    selfplay_phase::<G>(run, config, &arena, trainer.step(), more, g, have, stop)?;
                    if stop.load(Ordering::Relaxed) {
                        break summary;
                    }
                    set_threads(schedule.train_threads);
                }
            }
        };
        if summary.reason == StopReason::Stopped || trainer.step() < target_step {
            break;
        }
        done = g;
        let positions = trainer.positions_generated().saturating_sub(std::mem::take(&mut positions_before));
        let losses = trainer.last_checkpoint().map(|l| l.losses.clone());
        let mut report = None;
        if due(g) {
            set_threads(config.net.cpu_threads);
            report = arena.rate(target_step, &checkpoint_at(target_step)?)?;
            if report.is_none() {
                break;
            }
        }
        let elapsed = gen_started.elapsed();
        generation_times.push(elapsed);
        let ratings = arena.update_ratings()?;
        let mut line = format!("gen {g}");
        if schedule.generations > 0 {
            line.push_str(&format!("/{}", schedule.generations));
        }
        line.push_str(&format!(" (step {target_step}, {}): {positions} new positions", minutes(elapsed)));
        if let Some(l) = &losses {
            line.push_str(&format!("; loss {:.3} (policy {:.3}, value {:.3})", l.total, l.policy, l.value));
        }
        if let Some(r) = &report {
            line.push_str(&format!("; {}", results_text(r)));
        }
        if let Some(r) = &ratings {
            if let Some(p) = r.players.iter().find(|p| p.name == checkpoint_name(target_step)) {
                line.push_str(&format!("; Elo {:.0} [{:.0}, {:.0}]", p.elo, p.lo, p.hi));
            }
        }
        println!("{line}");
        let event = serde_json::json!({
            "generation": g,
            "step": target_step,
            "positions": positions,
            "seconds": elapsed.as_secs_f64(),
            "policy_loss": losses.as_ref().map(|l| l.policy),
            "value_loss": losses.as_ref().map(|l| l.value),
            "best": report.as_ref().map(|r| r.best.clone()),
        });
        if let Err(e) = metrics::append(run, "generation", event) {
            eprintln!("warning: {e:#}");
        }
        if let Err(e) = crate::plots::write_all(run) {
            eprintln!("warning: plots: {e:#}");
        }
    }
    // A run cut short by its time budget ends on a generation the arena may have skipped.
    let last_step = done * per_gen_steps;
    if !stop.load(Ordering::Relaxed) && done > 0 && !due(done) {
        set_threads(config.net.cpu_threads);
        if let Some(report) = arena.rate(last_step, &checkpoint_at(last_step)?)? {
            print_report(&arena, &report, done, run)?;
        }
    }
    if let Some(r) = arena.update_ratings()? {
        println!("ratings (random = 0, 95% intervals), {}:", run.join("arena").join("ratings.json").display());
        print!("{}", ladder_table(&r));
        let find = |name: &str| r.players.iter().find(|p| p.name == name);
        let entries = arena.entries()?;
        let last = checkpoint_name(last_step);
        if let (Some(first), Some(newest)) = (find(&checkpoint_name(0)), find(&last)) {
            let vs_random = entries.iter().find(|e| e.a == last && e.kind == MatchKind::Random);
            let score = vs_random.map_or_else(String::new, |e| {
                let s = e.score();
                format!(" scores {s} ({:.0}%) against random;", 100.0 * s.fraction())
            });
            println!(
                "final: {last}{score} Elo {:.0} [{:.0}, {:.0}], {:+.0} over generation 0 ({:.0} [{:.0}, {:.0}])",
                newest.elo,
                newest.lo,
                newest.hi,
                newest.elo - first.elo,
                first.elo,
                first.lo,
                first.hi
            );
        }
    }
    if let Err(e) = crate::plots::write_all(run) {
        eprintln!("warning: plots: {e:#}");
    }
    if stop.load(Ordering::Relaxed) {
        println!("run: stopped after {}; run the same command to go on", minutes(started.elapsed()));
    } else {
        println!("run: {done} generation(s) done in {}", minutes(started.elapsed()));
    }
    Ok(())
}

/// The gate and baseline results of a report, short.
fn results_text(r: &Report) -> String {
    let mut parts = Vec::new();
    if let Some(m) = r.get(MatchKind::Gate) {
        let s = m.score();
        parts.push(format!("gate {} {} vs {}", m.verdict.as_deref().unwrap_or("?").to_uppercase(), s, m.b));
    }
    for kind in [MatchKind::Random, MatchKind::Alphabeta] {
        if let Some(m) = r.get(kind) {
            let s = m.score();
            parts.push(format!("vs {} {} ({:.0}%)", m.b, s, 100.0 * s.fraction()));
        }
    }
    parts.join("; ")
}

fn print_report<G: ArenaGame + Encode>(arena: &Arena<'_, G>, report: &Report, g: u64, run: &Path) -> Result<()> {
    if report.played.is_empty() {
        return Ok(());
    }
    let mut line = format!("gen {g}: {}", results_text(report));
    if let Some(r) = arena.update_ratings()? {
        if let Some(p) = r.players.iter().find(|p| p.name == report.name) {
            line.push_str(&format!("; Elo {:.0} [{:.0}, {:.0}]", p.elo, p.lo, p.hi));
        }
    }
    println!("{line}");
    if let Err(e) = crate::plots::write_all(run) {
        eprintln!("warning: plots: {e:#}");
    }
    Ok(())
}

/// Plays `games` self-play games for generation `g` with the model `run.selfplay_model` names.
#[allow(clippy::too_many_arguments)]
fn selfplay_phase<G: ArenaGame + Encode>(
    run: &Path,
    config: &RunConfig,
    arena: &Arena<'_, G>,
    step: u64,
    games: u64,
    g: u64,
    have: u64,
    stop: &AtomicBool,
) -> Result<()> {
    let path = match config.run.selfplay_model {
        SelfplayModel::Latest => nn::checkpoint::latest_in(&run.join("checkpoints")).map(|(_, p)| p),
        SelfplayModel::Best => {
            let best = Arena::<G>::best(&arena.entries()?);
            match best {
                Some(name) => Some(arena.path_of(&name)?),
                None => nn::checkpoint::latest_in(&run.join("checkpoints")).map(|(_, p)| p),
            }
        }
    };
    let Some(path) = path else {
        bail!("no checkpoint to play self-play with in {}", run.join("checkpoints").display())
    };
    let (net, _) = nn::checkpoint::load(&path, G::NAME, G::ENCODING, &config.net)
        .with_context(|| format!("loading {}", path.display()))?;
    let id = path.file_stem().map_or_else(|| path.display().to_string(), |s| s.to_string_lossy().into_owned());
    let service = InferenceService::start(net, config.inference.clone())?;
    let source = FixedModel::new(&id, service.evaluator::<G>());
    // Unique per generation and per games already written: a resumed phase plays new games.
    let instance = (g << 40) ^ have ^ config.seed.rotate_left(17);
    println!("run: generation {g}: {games} self-play games with {id} (trainer at step {step})");
    crate::selfplay_cmd::play(run, config, &config.selfplay, &source, &service, Some(games), instance, stop)?;
    Ok(())
}
