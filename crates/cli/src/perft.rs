//! `qizero perft`: leaf counts from a position, optionally split by root move.

use crate::GameName;
use anyhow::{Context, Result};
use clap::Args;
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
    /// Depth in plies (1 = the number of legal moves).
    depth: u32,
}

/// Runs `qizero perft`.
pub fn run(args: &PerftArgs) -> Result<()> {
    match args.game {
        GameName::Xiangqi => run_xiangqi(args),
        GameName::Draughts => run_draughts(args),
    }
}

fn run_draughts(args: &PerftArgs) -> Result<()> {
    let fen = args.fen.as_deref().unwrap_or(draughts::START_FEN);
    let mut pos = draughts::Position::from_fen(fen).with_context(|| format!("bad FEN '{fen}'"))?;
    let start = Instant::now();
    let nodes = if args.divide {
        let split = draughts::divide(&mut pos, args.depth);
        for (mv, n) in &split {
            println!("{mv}: {n}");
        }
        split.iter().map(|&(_, n)| n).sum()
    } else {
        draughts::perft(&mut pos, args.depth)
    };
    report(nodes, start);
    Ok(())
}

fn run_xiangqi(args: &PerftArgs) -> Result<()> {
    let fen = args.fen.as_deref().unwrap_or(xiangqi::START_FEN);
    let mut pos = xiangqi::Position::from_fen(fen).with_context(|| format!("bad FEN '{fen}'"))?;
    let start = Instant::now();
    let nodes = if args.divide {
        let split = xiangqi::divide(&mut pos, args.depth);
        for (mv, n) in &split {
            println!("{mv}: {n}");
        }
        split.iter().map(|&(_, n)| n).sum()
    } else {
        xiangqi::perft(&mut pos, args.depth)
    };
    report(nodes, start);
    Ok(())
}

fn report(nodes: u64, start: Instant) {
    let secs = start.elapsed().as_secs_f64();
    eprintln!("time {secs:.3} s, {:.1} M leaves/s", nodes as f64 / secs.max(1e-9) / 1e6);
    println!("nodes {nodes}");
}
