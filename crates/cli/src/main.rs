//! `qizero`: the command-line front end. Each subcommand parses its arguments, calls into the
//! library crates and reports; the work itself lives in the libraries.

mod bench;
mod perft;
mod random_game;

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
    /// Count the leaf nodes of the legal move tree (checks the move generator).
    ///
    /// Prints `nodes N` as its last line. With --divide, first prints each root move in UCI
    /// notation with the count below it. Timing goes to standard error.
    Perft(perft::PerftArgs),
    /// Play one seeded game of random legal moves and print it (moves, result, final FEN).
    RandomGame(random_game::RandomGameArgs),
    /// Benchmarks with deterministic signatures.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft(args) => perft::run(&args),
        Command::RandomGame(args) => random_game::run(&args),
        Command::Bench(cmd) => bench::run(&cmd),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
