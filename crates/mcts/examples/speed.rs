//! Simulations per second of the uniform-evaluator search on one core, in xiangqi and draughts.
//!
//! `cargo run --release -p mcts --example speed [-- SIMS [SEARCHES]]` (defaults: 10000 sims,
//! 10 searches per position). Each search starts from a fresh tree; the figure is total
//! simulations over total wall time. A smoke check for speed regressions, not a benchmark of
//! record (that lives under scripts/bench-*).

use game::Game;
use mcts::{MctsParams, Search, UniformEvaluator};
use std::time::Instant;

/// Runs `searches` fresh searches of `sims` simulations from `fen` and prints the rate.
fn measure<G: Game>(label: &str, fen: &str, sims: u32, searches: u32) {
    let game = G::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    measure_game(label, &game, sims, searches);
}

/// A game with `plies` of history, played by quick seeded searches (leaf copies then carry
/// the history, as in self-play).
fn with_history<G: Game>(plies: usize) -> G {
    let mut search = Search::new(G::new(), MctsParams::default(), 1);
    for _ in 0..plies {
        search.run(&UniformEvaluator, 64).expect("searches");
        let Some(mv) = search.choose_move(1.0) else { break };
        search.advance(mv);
    }
    search.game().clone()
}

/// As [`measure`], from `game`.
fn measure_game<G: Game>(label: &str, game: &G, sims: u32, searches: u32) {
    let start = Instant::now();
    let mut total = 0u64;
    let mut nodes = 0usize;
    for seed in 0..u64::from(searches) {
        let mut search = Search::new(game.clone(), MctsParams::default(), seed);
        let stats = search.run(&UniformEvaluator, sims).expect("searches");
        total += stats.simulations;
        nodes = search.node_count();
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{:<9} {label:<12} {sims} sims x {searches}: {:>9.0} sims/s ({} nodes in the last tree)",
        G::NAME,
        total as f64 / secs,
        nodes
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let sims = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let searches = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    measure::<xiangqi::Game>("start", xiangqi::START_FEN, sims, searches);
    measure::<xiangqi::Game>(
        "middlegame",
        "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/2P6/P3P1P1P/1CN1C1N2/9/R1BAKAB1R w - - 4 4",
        sims,
        searches,
    );
    let long: xiangqi::Game = with_history(100);
    measure_game(&format!("ply {}", long.ply()), &long, sims, searches);
    measure::<draughts::Game>("start", &draughts::Game::new().fen(), sims, searches);
    let long: draughts::Game = with_history(60);
    measure_game(&format!("ply {}", long.ply()), &long, sims, searches);
}
