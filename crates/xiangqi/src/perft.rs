//! Perft: the number of leaf nodes of the legal move tree to a fixed depth, the standard check
//! of a move generator against published counts. The last ply is counted without being played
//! (bulk counting), as Stockfish, Pikafish and Fairy-Stockfish do.

use crate::position::Position;
use crate::types::Move;
use rayon::ThreadPoolBuildError;
use rayon::ThreadPoolBuilder;
use rayon::prelude::*;

/// Leaf count of the legal move tree `depth` plies deep (1 at depth 0).
#[must_use]
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal() as u64,
        _ => {
            let moves = pos.legal_moves();
            let mut nodes = 0;
            for &mv in &moves {
                let undo = pos.make(mv);
                nodes += perft(pos, depth - 1);
                pos.unmake(mv, undo);
            }
            nodes
        }
    }
}

/// Perft split by root move: (move, leaf count below it), in generation order.
#[must_use]
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let moves = pos.legal_moves();
    moves
        .iter()
        .map(|&mv| {
            let undo = pos.make(mv);
            let n = perft(pos, depth - 1);
            pos.unmake(mv, undo);
            (mv, n)
        })
        .collect()
}

/// [`divide`] with each root move's subtree counted on its own task, on a rayon pool of
/// `threads` threads (0: rayon's default, one per logical CPU): the same moves in the same order
/// with the same counts. The pool is built for this call and dropped after it, never rayon's
/// global pool, so the caller's thread count holds whatever else in the process uses rayon.
///
/// # Errors
/// The pool could not be built (the system refused to start a thread).
pub fn divide_parallel(pos: &Position, depth: u32, threads: usize) -> Result<Vec<(Move, u64)>, ThreadPoolBuildError> {
    if depth == 0 {
        return Ok(Vec::new());
    }
    let pool = ThreadPoolBuilder::new().num_threads(threads).build()?;
    let moves = pos.legal_moves();
    // An indexed parallel iterator collects in input order, whatever order the tasks finish in.
    Ok(pool.install(|| {
        moves
            .par_iter()
            .map(|&mv| {
                let mut child = pos.clone();
                child.make(mv);
                (mv, perft(&mut child, depth - 1))
            })
            .collect()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_shallow() {
        let mut pos = Position::startpos();
        assert_eq!(perft(&mut pos, 1), 44);
        assert_eq!(perft(&mut pos, 2), 1920);
        assert_eq!(perft(&mut pos, 3), 79666);
        let total: u64 = divide(&mut pos, 2).iter().map(|&(_, n)| n).sum();
        assert_eq!(total, 1920);
        assert_eq!(pos, Position::startpos());
    }

    #[test]
    fn parallel_divide_equals_serial_divide() {
        let fens = [
            crate::START_FEN,
            "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
            "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w - - 0 1",
            "4ka3/4a4/9/9/4N4/p8/9/4C3c/7n1/2BK5 b - - 0 1",
        ];
        for fen in fens {
            let mut pos = Position::from_fen(fen).expect(fen);
            let serial = divide(&mut pos, 3);
            for threads in [1, 3] {
                assert_eq!(divide_parallel(&pos, 3, threads).expect("pool"), serial, "{fen}, {threads} threads");
            }
        }
        assert_eq!(divide_parallel(&Position::startpos(), 0, 2).expect("pool"), Vec::new());
    }
}
