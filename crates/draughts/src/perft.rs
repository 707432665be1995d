//! Perft: leaf counts of the legal move tree, moves with the same origin, destination and
//! captured set counted once (the convention of the published numbers). The last ply is
//! counted without being played.

use crate::moves::Move;
use crate::position::Position;

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
}
