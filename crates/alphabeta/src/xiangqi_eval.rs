//! Xiangqi for the alpha-beta search: the [`SearchGame`] implementation and the evaluation.
//!
//! Units: hundredths of a soldier that has not crossed the river.

use crate::SearchGame;
use game::Outcome;
use xiangqi::{Color, Game, Kind, Move, MoveList, Position};

/// Material values by [`Kind`] index: king, advisor, elephant, horse, rook, cannon, soldier.
pub const PIECE_VALUES: [i32; 7] = [0, 200, 200, 400, 900, 450, 100];

/// Value of a soldier that has crossed the river.
pub const CROSSED_SOLDIER: i32 = 200;

/// Static evaluation of `pos` from the side to move's view.
#[must_use]
pub fn evaluate(pos: &Position) -> i32 {
    let mut score = [0i32; 2];
    for (sq, piece) in pos.iter() {
        let value = if piece.kind == Kind::Soldier && !sq.on_own_side(piece.color) {
            CROSSED_SOLDIER
        } else {
            PIECE_VALUES[piece.kind.index()]
        };
        score[piece.color.index()] += value;
    }
    let us = pos.side_to_move();
    score[us.index()] - score[(!us).index()]
}

impl SearchGame for Game {
    const NULL_MOVE: bool = true;

    fn evaluate(&self) -> i32 {
        evaluate(self.position())
    }

    fn in_check(&self) -> bool {
        self.position().in_check()
    }

    fn is_capture(&self, mv: &Move) -> bool {
        self.position().is_capture(*mv)
    }

    fn capture_order(&self, mv: &Move) -> i32 {
        let pos = self.position();
        let victim = pos.piece_at(mv.to()).map_or(0, |p| PIECE_VALUES[p.kind.index()].max(100));
        let attacker = pos.piece_at(mv.from()).map_or(0, |p| p.kind.index() as i32);
        victim * 16 - attacker
    }

    fn move_id(mv: &Move) -> u32 {
        u32::from(mv.to_u16()) + 1
    }

    fn quiescence_moves(&self) -> (MoveList, bool) {
        let pos = self.position();
        let legal = pos.legal_moves();
        if pos.in_check() {
            return (legal, false);
        }
        (legal.iter().copied().filter(|&m| pos.is_capture(m)).collect(), true)
    }

    fn has_non_pawn_material(&self) -> bool {
        let pos = self.position();
        let us: Color = pos.side_to_move();
        [Kind::Rook, Kind::Horse, Kind::Cannon].iter().any(|&k| pos.pieces(us, k).is_nonempty())
    }

    fn play_null(&mut self) {
        Game::play_null(self);
    }

    fn rule_outcome(&self, root_ply: usize) -> Option<Outcome> {
        Game::rule_outcome(self, root_ply)
    }
}
