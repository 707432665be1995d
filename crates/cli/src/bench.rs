//! `qizero bench ...`: benchmarks whose node counts are deterministic signatures.

use anyhow::Result;
use clap::{Args, Subcommand};

/// The benchmarks.
#[derive(Subcommand)]
pub enum BenchCommand {
    /// Alpha-beta search on fixed positions at fixed depth, one thread: prints each position's
    /// node count and best move, then the total (the signature: it changes only when search
    /// behaviour changes) and nodes per second.
    Alphabeta(AlphabetaArgs),
    /// Raw forward throughput of the policy-value net at batch sizes 1..1024 (random inputs).
    Nn(crate::bench_net::NnArgs),
    /// MCTS speed: simulations/s of one tree with the uniform evaluator; then many games
    /// against the net through the batching service (simulations/s, evaluations/s, mean batch)
    /// and the ratio of evaluations/s to the net's raw forward throughput at that batch size.
    Mcts(crate::bench_net::MctsArgs),
    /// Trainer throughput: samples/s of the trainer's step (drawing, replaying, encoding and
    /// augmenting from a window of synthetic shards) against a bare libtorch training step on one
    /// fixed batch, alternating in rounds; prints both and their ratio.
    Train(crate::train_cmd::BenchTrainArgs),
    /// Half precision against fp32 on CUDA: one net evaluates a fixed set of random-playout
    /// positions in both; prints how often they choose the same legal move (a flip inside the
    /// tie margin is allowed) and how far their values differ, and fails outside the tolerances.
    Half(crate::bench_half::HalfArgs),
}

/// Arguments of `qizero bench alphabeta`.
#[derive(Args)]
pub struct AlphabetaArgs {
    /// Search depth for xiangqi positions.
    #[arg(long, default_value_t = 7)]
    xiangqi_depth: u32,
    /// Search depth for draughts positions.
    #[arg(long, default_value_t = 9)]
    draughts_depth: u32,
}

/// Runs a `qizero bench` command.
pub fn run(cmd: &BenchCommand) -> Result<()> {
    match cmd {
        BenchCommand::Alphabeta(args) => alphabeta(args),
        BenchCommand::Nn(args) => crate::bench_net::bench_nn(args),
        BenchCommand::Mcts(args) => crate::bench_net::bench_mcts(args),
        BenchCommand::Train(args) => crate::train_cmd::bench(args),
        BenchCommand::Half(args) => crate::bench_half::run(args),
    }
}

fn alphabeta(args: &AlphabetaArgs) -> Result<()> {
    use alphabeta::bench;
    let print = |fen: &str, nodes: u64, best: String| println!("{nodes:>12}  {best:<12} {fen}");
    println!("xiangqi, depth {}:", args.xiangqi_depth);
    let x = bench::run::<xiangqi::Game>(bench::XIANGQI_POSITIONS, args.xiangqi_depth, print)?;
    println!("draughts, depth {}:", args.draughts_depth);
    let d = bench::run::<draughts::Game>(bench::DRAUGHTS_POSITIONS, args.draughts_depth, print)?;
    println!("xiangqi  nodes {} nps {}", x.nodes, x.nps());
    println!("draughts nodes {} nps {}", d.nodes, d.nps());
    println!("signature {}", x.nodes + d.nodes);
    Ok(())
}
