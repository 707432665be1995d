//! `qizero selfplay`: self-play workers writing shards into a run directory
//! ([`pipeline::selfplay`]), with the checkpoint the run's newest or its gate's best names
//! ([`pipeline::models`]).

use anyhow::Result;
use clap::{Args, ValueEnum};
use pipeline::config::SelfplayModel;
use pipeline::models::{CheckpointSource, generation_zero};
use pipeline::{GameName, RunConfig, RunDir, config};
use std::path::PathBuf;

use crate::ui::{Terminal, lease_options};

/// Which checkpoint self-play plays.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModelArg {
    /// The newest complete checkpoint, picked up as the trainer writes them.
    Latest,
    /// The checkpoint the gate chose (the run's `best` file; generation 0 before any verdict),
    /// followed as the arena decides.
    Best,
}

/// Arguments of `qizero selfplay`.
#[derive(Args)]
pub struct SelfplayArgs {
    /// The config preset (TOML), e.g. configs/xiangqi-tiny.toml.
    #[arg(long)]
    config: PathBuf,
    /// The run directory: shards go to <run>/shards, checkpoints are read from <run>/checkpoints.
    #[arg(long)]
    run: PathBuf,
    /// Which checkpoint to play: latest or best (default: the config's run.selfplay_model).
    #[arg(long, value_enum)]
    model: Option<ModelArg>,
    /// Games to play in all (over all workers), then stop; without it, play until Ctrl-C.
    #[arg(long)]
    games: Option<u64>,
    /// Worker threads (overrides selfplay.workers for this process only; not part of the run's
    /// config, so processes with different worker counts can share a run).
    #[arg(long)]
    workers: Option<usize>,
    /// Override a config value, e.g. --set selfplay.simulations=64 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// The process-unique part of the worker seeds (drawn at random when absent and printed);
    /// pass a printed one back to replay a process's games.
    #[arg(long)]
    instance: Option<u64>,
}

/// `qizero selfplay`.
pub fn run(args: &SelfplayArgs) -> Result<()> {
    let config = config::load(&args.config, &args.overrides)?;
    let run = RunDir::new(&args.run);
    config::prepare(&run, &config)?;
    nn::set_cpu_threads(config.net.cpu_threads);
    match config.game {
        GameName::Xiangqi => run_game::<xiangqi::Game>(args, &run, &config),
        GameName::Draughts => run_game::<draughts::Game>(args, &run, &config),
    }
}

fn run_game<G: encode::Encode + alphabeta::SearchGame>(
    args: &SelfplayArgs,
    run: &RunDir,
    config: &RunConfig,
) -> Result<()> {
    let mut sp = config.selfplay.clone();
    if let Some(workers) = args.workers {
        sp.workers = workers;
    }
    sp.validate()?;
    let follow = match args.model {
        Some(ModelArg::Latest) => SelfplayModel::Latest,
        Some(ModelArg::Best) => SelfplayModel::Best,
        None => config.run.selfplay_model,
    };
    let stop = crate::signals::stop_flag_for(run, "stopping: writing the finished games")?;
    generation_zero::<G>(run, config, &lease_options(), &stop)?;
    let instance = args.instance.unwrap_or_else(pipeline::selfplay::random_instance);
    let source = CheckpointSource::<G>::start(run, config, follow)?.with_leaf_teacher(&sp);
    let opponent = pipeline::selfplay::EngineOpponent::for_config(&sp);
    eprintln!(
        "selfplay: {} with model {} ({}), {} worker(s) x {} games in flight, {} simulations per move{}{}{}, instance {instance}",
        G::NAME,
        selfplay::ModelSource::current(&source).id,
        match follow {
            SelfplayModel::Latest => "following the newest checkpoint",
            SelfplayModel::Best => "following the gate's best",
        },
        sp.workers,
        sp.games_in_flight,
        sp.simulations,
        sp.leaf_teacher_note(),
        sp.opponent_note(),
        sp.opening_note()
    );
    let job = pipeline::selfplay::Job {
        run,
        config,
        selfplay: &sp,
        source: &source,
        opponent: opponent.as_ref().map(|o| o as &dyn selfplay::Opponent<G>),
        max_games: args.games,
        instance,
        stop: &stop,
        reporter: &Terminal,
    };
    pipeline::selfplay::play(&job)?;
    Ok(())
}
