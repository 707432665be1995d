//! `qizero perft`: leaf counts from a position, optionally split by root move.

use crate::GameName;
use anyhow::{Context, Result};
use clap::Args;
use std::fmt::Display;
use std::time::Instant;

/// Arguments of `qizero perft`.
#[derive(Args)]
pub struct PerftArgs {
    /// The game.
    #[arg(long, value_enum, default_value = "xiangqi")]
    game: GameName,
    /// Start from this FEN instead of the standard start position.
    #[arg(long)]
    fen: Option<String>,
    /// Print each root move with its leaf count first.
    #[arg(long)]
    divide: bool,
    /// Threads counting root moves' subtrees at once (rayon; 0 = one per core). The counts are
    /// the same whatever the number.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Depth in plies (1 = the number of legal moves).
    depth: u32,
}

/// Runs `qizero perft`.
pub fn run(args: &PerftArgs) -> Result<()> {
    match args.game {
        GameName::Xiangqi => {
            count(args, xiangqi::START_FEN, xiangqi::Position::from_fen, xiangqi::perft, xiangqi::divide_parallel)
        }
        GameName::Draughts => {
            count(args, draughts::START_FEN, draughts::Position::from_fen, draughts::perft, draughts::divide_parallel)
        }
    }
}

/// A parallel divide: the position, the depth and the threads in, each root move's count out.
type Divide<P, M> = fn(&P, u32, usize) -> Result<Vec<(M, u64)>, rayon::ThreadPoolBuildError>;

/// Reads the position, counts (split by root move with --divide) and reports, for any game.
fn count<P, M: Display, E: std::error::Error + Send + Sync + 'static>(
    args: &PerftArgs,
    start_fen: &str,
    parse: fn(&str) -> Result<P, E>,
    perft: fn(&mut P, u32) -> u64,
    divide: Divide<P, M>,
) -> Result<()> {
    let fen = args.fen.as_deref().unwrap_or(start_fen);
    let mut pos = parse(fen).with_context(|| format!("bad FEN '{fen}'"))?;
    let start = Instant::now();
    let nodes = if args.depth > 0 && (args.divide || args.threads != 1) {
        let split = divide(&pos, args.depth, args.threads).context("starting the perft threads")?;
        if args.divide {
            for (mv, n) in &split {
                println!("{mv}: {n}");
            }
        }
        split.iter().map(|(_, n)| n).sum()
    } else {
        perft(&mut pos, args.depth)
    };
    let secs = start.elapsed().as_secs_f64();
    eprintln!("time {secs:.3} s, {:.1} M leaves/s", nodes as f64 / secs.max(1e-9) / 1e6);
    println!("nodes {nodes}");
    Ok(())
}
