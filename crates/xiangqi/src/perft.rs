//! Perft: the number of leaf nodes of the legal move tree to a fixed depth, the standard check
//! of a move generator against published counts. The last ply is counted without being played
//! (bulk counting), as Stockfish, Pikafish and Fairy-Stockfish do.

use crate::position::Position;
use crate::types::Move;

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
}
