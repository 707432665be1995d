//! International draughts for the alpha-beta search: the [`SearchGame`] implementation and the
//! evaluation.
//!
//! Units: hundredths of a man.

use crate::SearchGame;
use draughts::{Game, Kind, Move, MoveList, Position};
use game::Outcome;

/// Value of a man.
pub const MAN: i32 = 100;
/// Value of a king: about three men.
pub const KING: i32 = 300;

/// Static evaluation of `pos` from the side to move's view.
#[must_use]
pub fn evaluate(pos: &Position) -> i32 {
    let us = pos.side_to_move();
    let material = |c| pos.count(c, Kind::Man) as i32 * MAN + pos.count(c, Kind::King) as i32 * KING;
    material(us) - material(!us)
}

impl SearchGame for Game {
    /// Zugzwang is everywhere in draughts.
    const NULL_MOVE: bool = false;

    fn evaluate(&self) -> i32 {
        evaluate(self.position())
    }

    fn in_check(&self) -> bool {
        false
    }

    fn is_capture(&self, mv: &Move) -> bool {
        mv.is_capture()
    }

    fn capture_order(&self, mv: &Move) -> i32 {
        let pos = self.position();
        let victims: i32 =
            mv.captured().map(|s| if pos.piece_at(s).is_some_and(|p| p.kind == Kind::King) { KING } else { MAN }).sum();
        let attacker = i32::from(pos.piece_at(mv.from()).is_some_and(|p| p.kind == Kind::King));
        victims * 16 - attacker
    }

    fn move_id(mv: &Move) -> u32 {
        // Origin and destination, and a fold of the captured set (which alone tells apart moves
        // sharing both); 0 is never produced.
        let captured = mv.captured().fold(0u32, |h, s| h.rotate_left(5) ^ s.number());
        (mv.from().number() | mv.to().number() << 6 | (captured & 0xf_ffff) << 12) | 1 << 31
    }

    fn quiescence_moves(&self) -> (MoveList, bool) {
        let pos = self.position();
        if pos.has_capture() { (pos.legal_moves(), false) } else { (MoveList::new(), true) }
    }

    fn has_non_pawn_material(&self) -> bool {
        true
    }

    fn play_null(&mut self) {
        unreachable!("draughts never plays a null move (SearchGame::NULL_MOVE is false)");
    }

    fn rule_outcome(&self, root_ply: usize) -> Option<Outcome> {
        Game::rule_outcome(self, root_ply)
    }
}
