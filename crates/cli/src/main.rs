//! `qizero`: the command-line front end. Each subcommand parses its arguments, calls into the
//! library crates and reports; the work itself lives in the libraries.

mod bench;
mod bench_half;
mod bench_net;
mod engine_cmd;
mod eval_cmd;
mod experiment_cmd;
mod match_cmd;
mod models;
mod perft;
mod play_cmd;
mod random_game;
mod run_cmd;
mod selfplay_cmd;
mod serve_cmd;
mod shard_cmd;
mod signals;
mod slurm_cmd;
mod train_cmd;
mod ui;

use clap::{Parser, Subcommand, ValueEnum};
use std::process::ExitCode;

/// AlphaZero-style self-play training for xiangqi and international draughts.
#[derive(Parser)]
#[command(name = "qizero", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Which game a command works on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum GameName {
    /// Xiangqi (Chinese chess).
    Xiangqi,
    /// International draughts (10x10, FMJD rules).
    Draughts,
}

#[derive(Subcommand)]
enum Command {
    /// The main job: generations of self-play, training and the arena, in one process.
    ///
    /// Each generation plays run.games_per_generation self-play games (with the newest or the
    /// best checkpoint: run.selfplay_model), trains to the next multiple of
    /// train.checkpoint_every steps, and rates the new checkpoint in the arena (gate against the
    /// best, random and alpha-beta baselines, Elo ladder), then prints one summary line and
    /// updates metrics.jsonl and plots/. Ctrl-C (or SIGTERM) stops at a safe point; the same
    /// command resumes where it stopped, losing and repeating nothing complete.
    Run(Box<run_cmd::RunArgs>),
    /// Play self-play games with the run's newest or best checkpoint and write them as shards.
    ///
    /// Plays the newest checkpoint in <run>/checkpoints (--model latest) or the one the gate
    /// chose (--model best: the run's `best` file), and follows it between games as the trainer
    /// writes new checkpoints or the arena decides. A run without checkpoints first gets
    /// generation 0 (the trainer's step-0 checkpoint, initialised from the run seed). Several workers, each with many games in
    /// flight, share one batching inference service. Writes a shard every
    /// selfplay.games_per_shard finished games per worker and a line per shard to
    /// <run>/metrics.jsonl. Ctrl-C writes the finished games and stops (twice: stop at once).
    /// Any number of self-play processes may write into one run directory at once.
    Selfplay(Box<selfplay_cmd::SelfplayArgs>),
    /// Train the net on the run's self-play shards and write checkpoints.
    ///
    /// Resumes from the newest complete checkpoint in <run>/checkpoints (generation 0, fresh
    /// weights from the run seed, when there is none). One trainer per run directory: a second
    /// one exits at once, naming the live one (leases/trainer.lease). Draws batches from a
    /// window over the newest shards, waits for self-play when the window is below
    /// train.min_positions or the reuse cap is reached, and writes a checkpoint (weights,
    /// optimiser state, lineage <step>.json) every train.checkpoint_every steps and on the way
    /// out; optimiser state is kept for the newest train.keep_optimizer_states checkpoints.
    /// Corrupt shards are skipped with a warning naming each. Ctrl-C or SIGTERM: finish the
    /// step, write a checkpoint, stop (twice: at once).
    Train(Box<train_cmd::TrainArgs>),
    /// Rate a run's checkpoints: against random, alpha-beta and the current best (the gate).
    ///
    /// Each generation checkpoint (step 0 and every multiple of train.checkpoint_every; --all:
    /// every checkpoint) not yet rated plays the random baseline, the alpha-beta baseline
    /// (arena.alphabeta) and the current best checkpoint, gated by SPRT or a win-rate threshold
    /// (arena.gate). Checkpoints play as MCTS with arena.simulations per move. Writes each
    /// game's record and arena/matches.jsonl (one line per complete match), publishes the gate's
    /// verdict in <run>/best, rates everyone on one Elo ladder with random anchored at 0
    /// (arena/ratings.json, 95% intervals), and redraws plots/. Ctrl-C drops the match in
    /// progress at once (nothing of it is kept); the same command goes on from there.
    Arena(Box<run_cmd::ArenaArgs>),
    /// Compare training configurations ("arms") at an equal wall-clock budget on one Elo ladder.
    ///
    /// The spec (TOML) names the arms (a preset and --set overrides each), the seeds, the
    /// budget in minutes and the ladder. Each arm x seed, seed by seed, is trained in process as
    /// DIR/runs/<arm>-s<seed> for budget_minutes of wall clock (run.max_minutes; generations
    /// until then; the run's own arena off, so the budget goes into learning) and marked done
    /// with experiment-done.json (wall time, net evaluations, positions, samples, steps).
    /// Then every run's final checkpoint (ladder.checkpoints = "all": every generation
    /// checkpoint) plays each anchor (ladder.anchors, agent specs as for `match`, random at 0
    /// Elo; ladder.reference: a frozen net rated as "ref") for ladder.games games at
    /// ladder.simulations per move, and neighbouring anchors play each other; each finished
    /// pairing goes to DIR/ladder/pairings.jsonl. Prints a table (Elo with 95% intervals,
    /// W-D-L against each anchor, evaluations, minutes) and a per-arm summary over seeds, and
    /// writes DIR/results.md, DIR/results.json and DIR/elo.png (Elo against wall-clock
    /// minutes). Resuming: done runs and finished pairings are skipped; a run folder without
    /// experiment-done.json was interrupted and is removed and trained again from scratch, so
    /// every run gets exactly one uninterrupted budget. Ctrl-C stops at a safe point.
    Experiment(Box<experiment_cmd::ExperimentArgs>),
    /// Play a match between two agents and rate A against B.
    ///
    /// Agents: random, alphabeta[:depth=N,movetime=MS,nodes=N,hash=MB,book=true],
    /// mcts[:ckpt=PATH,sims=N,batch=N,reuse=false,root=gumbel] (a checkpoint's net, ckpt=default the shipped model of
    /// the game; without ckpt the rules alone),
    /// uci:PROGRAM[,Option=value...] (xiangqi) and hub:PROGRAM[,...] (draughts). Each opening is
    /// played twice, colours swapped; an agent that crashes, hangs or plays an illegal move
    /// forfeits that game. With --tc BASE+INC both play on a clock, and a side whose time runs
    /// out loses on time. Before the score comes `time losses: A n, B n; error forfeits: A n,
    /// B n`. The last line is `score: W-D-L <pct>% elo <E> +/- <C>` (A's view, 95% interval).
    Match(Box<match_cmd::MatchArgs>),
    /// Play a game yourself against a checkpoint, the alpha-beta engine or any other agent.
    ///
    /// Draws the board as text (coordinates, the last move, who is to move, check) and reads
    /// your moves from standard input, line by line: xiangqi in UCI coordinates (h2e2, ranks
    /// 0-9 from Red's side), WXF (C2=5) or Chinese, draughts in PDN (32-28, 28x19, or a
    /// capture's whole path 37x28x17x8). Commands: moves, undo (your last move and the reply), board, fen, help,
    /// quit. A move that is not legal gets the reason and the prompt again. The opponent is an
    /// agent spec as for `match` (default: alpha-beta at --movetime per move); --opponent mcts
    /// (or --weights default) plays the shipped model (models/GAME.safetensors, found through
    /// $QIZERO_MODELS, beside the executable or in ./models). Its moves are shown with the time
    /// taken. Ends with the result and why, at quit, or at the end of input.
    Play(Box<play_cmd::PlayArgs>),
    /// Show what a net says about a position before any search: each head and the priors.
    ///
    /// Loads a checkpoint (--weights, default: the shipped model of --game), reads the position
    /// (--fen, then --moves, which become the history the net sees) and prints the value head's
    /// output, the material head's (the final material difference it expects, beside the
    /// material on the board now; `none` for a net without the head), the value the search
    /// reads (with net.material_utility, the value plus that share of the material), and the
    /// legal moves' priors, highest first (--top). Values are from the side to move's view.
    /// --json prints one JSON object with every legal move's prior, for scripts.
    Eval(Box<eval_cmd::EvalArgs>),
    /// Inspect training-data shards, or export them as numpy arrays (.npz).
    #[command(subcommand)]
    Shard(shard_cmd::ShardCommand),
    /// Benchmarks with deterministic signatures.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Count the leaf nodes of the legal move tree (checks the move generator).
    ///
    /// Prints `nodes N` as its last line. With --divide, first prints each root move in UCI
    /// notation with the count below it. Timing goes to standard error.
    Perft(perft::PerftArgs),
    /// Play one seeded game of random legal moves and print it (moves, result, final FEN).
    RandomGame(random_game::RandomGameArgs),
    /// Run the alpha-beta engine for xiangqi as a UCI engine (UCCI too), for GUIs and match runners.
    ///
    /// Speaks UCI on standard input and output as Pikafish does: moves in coordinates with
    /// ranks 0-9 from Red's side (`h2e2`), FEN as Pikafish writes it. Options: Hash (MiB),
    /// Threads, OwnBook (the shipped opening book). `go` takes depth, nodes, movetime,
    /// wtime/btime/winc/binc/movestogo, infinite, ponder and searchmoves; the search runs in the
    /// background, so `stop` and `isready` are answered at once. Greeted with `ucci`, it answers
    /// in UCCI. Bad input gets `info string error: ...` and changes nothing; every `go` still
    /// ends in `bestmove`. Type `uci` to begin.
    Uci(engine_cmd::ServerArgs),
    /// Run the alpha-beta engine for international draughts over Scan's Hub protocol (version 2).
    ///
    /// For the Hub GUI and match runners: `hub`, `init`, `pos pos=<W|B + 50 squares>
    /// moves="..."`, `level ...`, `go think|ponder|analyze`, `stop`, `ping`, `quit`, moves in Hub
    /// notation (`32-28`, `28x19x23`). Parameters: book, hash (MiB), threads. Bad input gets
    /// `error message="..."` and changes nothing. Type `hub` to begin.
    Hub(engine_cmd::ServerArgs),
    /// Serve a web page to play, analyse and watch training runs, for both games.
    ///
    /// Open the printed address in a browser. Play: an SVG board (click a piece to see its
    /// legal moves), the move list, undo, FEN and PGN/PDN copy and paste, and an opponent:
    /// alpha-beta at a depth or time per move, or MCTS with the shipped model or any checkpoint
    /// of a --run, at a simulation count; AI move, AI vs AI, analysis with the live search
    /// (depth, nodes, score, principal variation, best-move arrow). Watch (/watch): each --run's
    /// Elo ladder, losses, throughput, gate decisions, latest self-play game and arena games,
    /// updated as the run writes them. Listens on localhost only unless --addr says otherwise;
    /// nothing outside the named runs and the shipped models can be read through it.
    Serve(Box<serve_cmd::ServeArgs>),
    /// Run a training run as Slurm jobs over a shared run directory: a self-play array, one
    /// trainer and one arena (the only writer of `best` and the ratings), each requeueable and
    /// stopped at a safe point by SIGTERM before its time limit or by the run's STOP file.
    ///
    /// `render` writes editable job scripts into RUN/slurm/ from the config's [slurm] table
    /// (partitions, GPUs and CPUs per job, array size, time limits), `submit` runs sbatch and
    /// records the job ids, `status` shows the jobs, positions/s per worker, the trainer's step
    /// and gate decisions, `stop` writes RUN/STOP and cancels what is left after a grace period.
    /// See the README's "Many machines".
    #[command(subcommand)]
    Slurm(slurm_cmd::SlurmCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft(args) => perft::run(&args),
        Command::RandomGame(args) => random_game::run(&args),
        Command::Bench(cmd) => bench::run(&cmd),
        Command::Uci(args) => engine_cmd::uci(&args),
        Command::Hub(args) => engine_cmd::hub(&args),
        Command::Serve(args) => serve_cmd::run(&args),
        Command::Slurm(cmd) => slurm_cmd::run(&cmd),
        Command::Match(args) => match_cmd::run(&args),
        Command::Play(args) => play_cmd::run(&args),
        Command::Eval(args) => eval_cmd::run(&args),
        Command::Shard(cmd) => shard_cmd::run(&cmd),
        Command::Selfplay(args) => selfplay_cmd::run(&args),
        Command::Train(args) => train_cmd::run(&args),
        Command::Arena(args) => run_cmd::arena(&args),
        Command::Run(args) => run_cmd::run(&args),
        Command::Experiment(args) => experiment_cmd::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", chain(&e));
            ExitCode::FAILURE
        }
    }
}

/// An error and its causes, each said once: library errors carry their cause in their own
/// message, so a cause already said is not repeated.
fn chain(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}
