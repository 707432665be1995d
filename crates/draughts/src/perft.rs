//! Perft: leaf counts of the legal move tree, moves with the same origin, destination and
//! captured set counted once (the convention of the published numbers). The last ply is
//! counted without being played.

use crate::moves::Move;
use crate::position::Position;
use rayon::ThreadPoolBuildError;
use rayon::ThreadPoolBuilder;
use rayon::prelude::*;

/// Leaf count `depth` plies deep (1 at depth 0).
#[must_use]
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal() as u64,
        _ => {
            let moves = pos.legal_moves();
            let mut nodes = 0;
            for mv in &moves {
                let undo = pos.make(mv);
                nodes += perft(pos, depth - 1);
                pos.unmake(undo);
            }
            nodes
        }
    }
}

/// Perft split by root move, in generation order.
#[must_use]
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .iter()
        .map(|mv| {
            let undo = pos.make(mv);
            let n = perft(pos, depth - 1);
            pos.unmake(undo);
            (*mv, n)
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
            .map(|mv| {
                let mut child = *pos;
                child.make(mv);
                (*mv, perft(&mut child, depth - 1))
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
        let expected = [1, 9, 81, 658, 4265, 27117, 167140];
        for (depth, &n) in expected.iter().enumerate() {
            assert_eq!(perft(&mut pos, depth as u32), n, "depth {depth}");
        }
        assert_eq!(pos, Position::startpos());
    }

    #[test]
    fn parallel_divide_equals_serial_divide() {
        let fens = [
            crate::START_FEN,
            "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38",
            "B:W6,9-11,20-23,30,K31,33,37,41-44,46:BK17,K24",
            "W:W20:B11,12,13,14,23,24",
        ];
        for fen in fens {
            let mut pos = Position::from_fen(fen).expect(fen);
            let serial = divide(&mut pos, 3);
            for threads in [1, 3] {
                assert_eq!(divide_parallel(&pos, 3, threads).expect("pool"), serial, "{fen}, {threads} threads");
            }
        }
        assert!(divide_parallel(&Position::startpos(), 0, 2).expect("pool").is_empty());
    }
}
