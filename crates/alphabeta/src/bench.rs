//! `qizero bench alphabeta`: fixed positions searched to a fixed depth with one thread and a
//! fresh table. The total node count is a signature of the search's behaviour: it changes only
//! when the search or evaluation changes, so a commit that changes it says so.

use crate::{Limits, SearchGame, Searcher};
use std::time::{Duration, Instant};

/// Xiangqi bench positions: the start, openings, middlegames and endgames.
pub const XIANGQI_POSITIONS: &[&str] = &[
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "r1bakabnr/9/1cn4c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w - - 4 3",
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w - - 0 1",
    "r2akab1r/3n5/4b3n/p1p1pRp1p/9/2P3P2/P3P3c/N2C3C1/4A4/1RBAK1B2 w - - 0 1",
    "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w - - 0 1",
    "4ka3/4a4/9/9/4N4/p8/9/4C3c/7n1/2BK5 w - - 0 1",
    "3k5/9/9/9/9/9/9/9/4A4/3AK1R2 w - - 0 1",
];

/// Draughts bench positions: the start, middlegames, endgames with kings.
pub const DRAUGHTS_POSITIONS: &[&str] = &[
    "W:W31-50:B1-20",
    "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38",
    "B:W6,9-11,20-23,30,K31,33,37,41-44,46:BK17,K24",
    "W:W27,28,32,33,34,35,37,38,39,40,42,43,44,45,47,48:B3,6,7,8,9,11,12,13,14,15,16,17,18,19,20,23",
    "W:WK10,28,33:BK46,19",
    "W:W6,7,8,9,10:B41,42,43,44,45",
];

/// Totals of one bench run.
#[derive(Clone, Debug, Default)]
pub struct BenchReport {
    /// Positions searched.
    pub positions: usize,
    /// Nodes searched, all positions: the signature.
    pub nodes: u64,
    /// Time spent.
    pub time: Duration,
}

impl BenchReport {
    /// Nodes per second.
    #[must_use]
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.time.as_secs_f64().max(1e-9)) as u64
    }
}

/// Searches each FEN to `depth` with one thread and a cleared 16 MiB table, calling `each` with
/// (fen, nodes, best move as text) per position.
///
/// # Errors
/// A FEN that does not read.
pub fn run<G: SearchGame>(
    fens: &[&str],
    depth: u32,
    mut each: impl FnMut(&str, u64, String),
) -> Result<BenchReport, G::Error> {
    let mut report = BenchReport::default();
    let mut searcher = Searcher::new(16);
    for fen in fens {
        let game = G::from_fen(fen)?;
        searcher.clear();
        // Only the search is timed: clearing the table is set-up.
        let start = Instant::now();
        let result = searcher.search(&game, &Limits::depth(depth), |_| {});
        report.time += start.elapsed();
        let best = result.best.map_or_else(|| "(none)".to_string(), |m| game.move_to_string(m));
        each(fen, result.nodes, best);
        report.nodes += result.nodes;
        report.positions += 1;
    }
    Ok(report)
}
