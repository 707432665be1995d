//! `qizero match`: agent A against agent B, with a progress bar and the score, Elo and its 95%
//! interval from A's side, on a clock if asked (`--tc 10+0.1`). The match itself is
//! `arena::run_match`; this module reads the arguments and the openings file and reports.

use crate::GameName;
use anyhow::{Context, Result};
use arena::spec::{AgentKind, MctsSpec};
use arena::{AgentSpec, ArenaGame, GameResult, MatchConfig, Score, TimeControl};
use clap::Args;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `qizero match`.
#[derive(Args)]
pub struct MatchArgs {
    /// The game.
    #[arg(long, value_enum)]
    game: GameName,
    /// Agent A, whose side the score is from: random,
    /// alphabeta[:depth=N,movetime=MS,nodes=N,hash=MB,book=true],
    /// mcts[:ckpt=PATH,sims=N,batch=N,reuse=false,root=gumbel,considered=N,prove=true,teach=W],
    /// uci:PROGRAM[,movetime=MS,ranks=1-10,Option=value...] (xiangqi) or hub:PROGRAM[,...] (draughts). ckpt=default is the shipped model of the game; mcts without
    /// ckpt searches with the rules alone; considered=N is the Gumbel root's move count (16),
    /// prove=true its one-move mate look-ahead, teach=W the capture search mixed into leaf values.
    #[arg(long)]
    a: AgentSpec,
    /// Agent B, in the same form.
    #[arg(long)]
    b: AgentSpec,
    /// Games in all; each opening is played twice, colours swapped.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    games: u64,
    /// Openings file, one FEN per line (default: the shipped data/openings/GAME.txt).
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Games played at once, each on its own thread (default: the number of CPUs).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    concurrency: Option<u64>,
    /// Milliseconds per move for agents whose spec sets no limit of its own (with --tc, only
    /// for agents that do not play to the clock).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    movetime: u64,
    /// Play on a clock: BASE seconds per game for each side, INC seconds added after each move
    /// (10+0.1, 60, 0.5+0.05; at most 3 decimals). A move that takes longer than the time left
    /// loses the game on time. Alpha-beta, UCI and Hub agents are told both clocks and budget
    /// their time (limits in their spec still apply, --movetime does not); MCTS agents stop at
    /// their sims or when their time management says; random agents ignore the clock. Without
    /// it, no clock.
    #[arg(long, value_name = "BASE+INC")]
    tc: Option<TimeControl>,
    /// A game reaching this many plies is adjudicated a draw.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u64).range(1..))]
    max_plies: u64,
    /// Write one record per game here (PGN-style for xiangqi, PDN for draughts).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seed for random agents and book choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where MCTS agents' nets run: auto (CUDA if present, else the CPU), cpu, cuda, cuda:N.
    #[arg(long, default_value = "auto")]
    device: String,
    /// Net threads per checkpoint, each with its own copy of the net (inference.net_threads):
    /// on a CPU, one per core spreads the MCTS agents' evaluations over the cores. Scores do not
    /// depend on it (agents search to a simulation count), only the time a match takes. Above
    /// 1, libtorch runs each pass on one thread. Default: one per CPU when the nets run on the
    /// CPU, 1 on CUDA.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=64))]
    net_threads: Option<u64>,
    /// Print a line per finished game.
    #[arg(long)]
    verbose: bool,
}

/// Runs `qizero match`.
pub fn run(args: &MatchArgs) -> Result<()> {
    match args.game {
        GameName::Xiangqi => run_game::<xiangqi::Game>(args),
        GameName::Draughts => run_game::<draughts::Game>(args),
    }
}

fn run_game<G: ArenaGame + encode::Encode>(args: &MatchArgs) -> Result<()> {
    args.a.check_game(G::NAME).context("--a")?;
    args.b.check_game(G::NAME).context("--b")?;
    let a = crate::models::resolve_spec(&args.a, G::NAME).context("--a")?;
    let b = crate::models::resolve_spec(&args.b, G::NAME).context("--b")?;
    let (openings, source) = match &args.openings {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
            let openings = arena::openings::parse_openings::<G>(&text).with_context(|| path.display().to_string())?;
            (openings, path.display().to_string())
        }
        None => (arena::openings::shipped::<G>(), format!("data/openings/{}.txt (shipped)", G::NAME)),
    };
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let config = MatchConfig {
        games: args.games as usize,
        first_game: 0,
        concurrency: args.concurrency.map_or(cpus, |c| c as usize),
        movetime: Duration::from_millis(args.movetime),
        clock: args.tc,
        max_plies: args.max_plies as usize,
        seed: args.seed,
        out_dir: args.out.clone(),
        event: format!("qizero match: {} vs {}", args.a, args.b),
    };
    let pace = match &args.tc {
        Some(tc) => format!("a clock of {tc} s each"),
        None => format!("{} ms per move by default", args.movetime),
    };
    println!(
        "match: {} game(s) of {} between A = {} and B = {}; {} opening(s) from {source}; \
         {} at once; {pace}; draw at {} plies",
        config.games,
        G::NAME,
        args.a,
        args.b,
        openings.len(),
        config.concurrency.min(config.games),
        config.max_plies,
    );
    for (which, given, resolved) in [("A", &args.a, &a), ("B", &args.b, &b)] {
        if given != resolved {
            if let AgentKind::Mcts(MctsSpec { checkpoint: Some(path), .. }) = &resolved.kind {
                println!("{which}'s net: {} (the shipped model)", path.display());
            }
        }
    }

    let bar = crate::ui::bar(Some(config.games as u64), "games");
    bar.set_message("A: 0-0-0");
    let on_game = |result: &GameResult, score: &Score| {
        bar.inc(1);
        bar.set_message(format!("A: {score} ({:.1}%)", 100.0 * score.fraction()));
        if args.verbose || result.forfeit.is_some() {
            let line = describe::<G>(result);
            bar.suspend(|| eprintln!("{line}"));
        }
    };
    let net_threads = args.net_threads.map_or_else(
        || match nn::device::parse_device(&args.device) {
            Ok(tch::Device::Cpu) => std::thread::available_parallelism().map_or(1, usize::from),
            _ => 1,
        },
        |n| n as usize,
    );
    if net_threads > 1 {
        // Each net thread runs its passes on one core; libtorch's intra-op threads would only
        // fight them for the same cores.
        nn::set_cpu_threads(1);
    }
    let placement = nn::NetConfig { device: args.device.clone(), ..nn::NetConfig::default() };
    let service = nn::ServiceConfig { max_batch: 256, max_wait_us: 200, cache_entries: 0, net_threads };
    let nets = pipeline::CheckpointNets::<G>::new(placement, service);
    let stop = crate::signals::stop_flag("stopping: the games in progress are dropped")?;
    let result = arena::run_match::<G>(&a, &b, &openings, &config, &nets, &stop, on_game);
    bar.finish_and_clear();
    let Some(result) = result? else {
        anyhow::bail!("stopped: the match was not finished, so it has no result");
    };

    let mut endings: BTreeMap<String, usize> = BTreeMap::new();
    for game in &result.games {
        let ending = game.record.termination.split(':').next().unwrap_or_default().to_string();
        *endings.entry(ending).or_default() += 1;
    }
    let endings: Vec<String> = endings.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let plies: usize = result.games.iter().map(|g| g.plies).sum();
    println!(
        "games: {}, average length {:.0} plies; endings: {}",
        result.games.len(),
        plies as f64 / result.games.len().max(1) as f64,
        endings.join(", ")
    );
    // Always printed, on a clock or not: "no forfeits" is part of the result.
    println!("{}", result.forfeits());
    for (which, counts) in ["A", "B"].into_iter().zip(result.searched()) {
        if let Some(c) = counts {
            println!(
                "search {which}: {} moves, {} simulations run, {} root visits reused ({:.1}% of the visits saved by tree reuse)",
                c.moves,
                c.simulations,
                c.reused,
                100.0 * c.saved_share()
            );
        }
    }
    if let Some(dir) = &args.out {
        println!("records: {}/{}-NNNN.{}", dir.display(), G::NAME, G::RECORD_EXTENSION);
    }
    println!("{}", result.score.summary_line());
    Ok(())
}

/// One line on a finished game: number, colours, result, how it ended.
fn describe<G: ArenaGame>(game: &GameResult) -> String {
    let a_colour = G::SIDE_NAMES[game.a_side.index()];
    let points = game.points_for_a();
    let verdict = if points > 0.75 {
        "A wins"
    } else if points < 0.25 {
        "B wins"
    } else {
        "draw"
    };
    format!(
        "game {} (opening {}, A {a_colour}): {} {verdict}, {}, {} plies",
        game.index + 1,
        game.opening + 1,
        game.record.result,
        game.record.termination,
        game.plies
    )
}
