//! Chase detection for the repetition rules, after Pikafish's computer rules.
//!
//! A piece *attacks* an enemy piece when it could capture it now with a move that does not leave
//! its own king attacked. Kings and soldiers never chase; a king and a soldier that has not
//! crossed the river are never chased. An attack is a *chase* when
//! - a horse or cannon attacks a rook, or an advisor or elephant attacks a rook, cannon or horse
//!   (an attack on a stronger piece always counts); or
//! - otherwise, the target is unprotected: after the capture no enemy piece could legally
//!   recapture on its square; and, when attacker and target are of the same kind, the target
//!   could not take the attacker back (a horse whose leg is blocked, or a target pinned to its
//!   king) — mutual attacks between equals do not count.
//!
//! A piece pinned to its own king only chases the piece pinning it.
//!
//! Over the moves of a repetition cycle, a side *perpetually chases* when some enemy piece
//! (followed by identity as it moves) is newly chased by every one of that side's moves: attacked
//! after the move and not before it. `perpetual_chasers` returns, for each side, whether such a
//! piece exists.
//!
//! Simplifications against the full Asian Xiangqi Federation rules (as in Pikafish): no
//! distinction between a chase and a "block" or an offer of exchange beyond the cases above, and
//! no notion of a piece being protected only in appearance (a protector that is itself pinned
//! by something other than its king, say).

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::position::{Position, Undo};
use crate::types::{Color, Kind, Move, SQUARES, Square};

/// Identity of each piece, keyed by square, so a chased piece can be followed as it moves.
/// Ids are per colour (at most 16 pieces a side, so a `u16` mask holds a set of them).
struct Ids([u8; SQUARES]);

impl Ids {
    const NONE: u8 = u8::MAX;

    fn new(pos: &Position) -> Ids {
        let mut ids = [Ids::NONE; SQUARES];
        let mut next = [0u8; 2];
        for (sq, piece) in pos.iter() {
            ids[sq.index()] = next[piece.color.index()];
            next[piece.color.index()] += 1;
        }
        Ids(ids)
    }

    fn bit(&self, sq: Square) -> u16 {
        1 << self.0[sq.index()]
    }

    /// Follows a move taken back: the piece on `to` returns to `from` (no captures happen inside
    /// a repetition cycle, so nothing else changes).
    fn unmove(&mut self, mv: Move) {
        self.0[mv.from().index()] = self.0[mv.to().index()];
        self.0[mv.to().index()] = Ids::NONE;
    }
}

impl Position {
    /// True if `mover`'s pseudo-legal move `mv` leaves `mover`'s king unattacked, whoever is to
    /// move in the position.
    pub(crate) fn is_safe_for(&self, mover: Color, mv: Move) -> bool {
        let (from, to) = (mv.from(), mv.to());
        let to_bit = 1u128 << to.index();
        let occ = (self.occupied().0 & !(1u128 << from.index())) | to_bit;
        let occ_t = (self.occ_t & !(1u128 << attacks::rotated_index(from))) | 1u128 << attacks::rotated_index(to);
        let ksq = if from == self.king(mover) { to } else { self.king(mover) };
        !self.king_attacked(ksq, !mover, occ, occ_t, to_bit)
    }

    /// `color`'s pieces pinned to its own king, and the enemy pieces pinning them (rooks and
    /// kings with one piece between, cannons with two, horses whose leg is the pinned piece).
    fn pins(&self, color: Color) -> (u128, u128) {
        let ksq = self.king(color);
        let occ = self.occupied().0;
        let ours = self.pieces_of(color).0;
        let theirs = self.pieces_of(!color).0;
        let kind = |k: Kind| self.kind(k).0;
        let (mut pinned, mut pinners) = (0, 0);
        let snipers = attacks::line(ksq) & theirs & (kind(Kind::Rook) | kind(Kind::King) | kind(Kind::Cannon));
        for s in Bitboard(snipers) {
            let inside = attacks::between(ksq, s) & occ;
            let needed = if kind(Kind::Cannon) >> s.index() & 1 != 0 { 2 } else { 1 };
            if inside.count_ones() == needed && inside & ours != 0 {
                pinned |= inside & ours;
                pinners |= 1u128 << s.index();
            }
        }
        for leg in attacks::horse_attack_legs(ksq) {
            let horses = leg.targets & theirs & kind(Kind::Horse);
            if horses != 0 && leg.block & ours != 0 {
                pinned |= leg.block;
                pinners |= horses;
            }
        }
        (pinned, pinners)
    }

    /// True if the piece on `to` (of colour `owner`) is protected: after the capture `capture`,
    /// some piece of `owner` could legally take back on `to`.
    fn protected_after(&self, capture: Move, owner: Color) -> bool {
        let mut after = self.clone();
        // Play the capture whoever is to move; only the board matters here.
        after.side = !owner;
        after.make(capture);
        let to = capture.to();
        after.attackers_to(to, owner).any(|s| after.is_safe_for(owner, Move::new(s, to)))
    }

    /// The set (by id) of enemy pieces that `chaser` chases in this position.
    fn chased_by(&self, chaser: Color, ids: &Ids) -> u16 {
        let them = !chaser;
        let (pinned, pinners) = self.pins(chaser);
        let their_king = self.pieces(them, Kind::King).0;
        let targets_normally = (self.pieces_of(them).0 & !their_king & !self.kind(Kind::Soldier).0)
            | self.pieces(them, Kind::Soldier).filter(|s| !s.on_own_side(them)).fold(0, |b, s| b | 1u128 << s.index());
        let chasers = self.pieces_of(chaser) & !(self.kind(Kind::King) | self.kind(Kind::Soldier));
        let mut chased = 0u16;
        for from in chasers {
            let Some(attacker) = self.piece_at(from) else { continue };
            let mut targets = self.attacks_from(from).0;
            targets &= if pinned >> from.index() & 1 != 0 { pinners & !their_king } else { targets_normally };
            for to in Bitboard(targets) {
                let mv = Move::new(from, to);
                let Some(target) = self.piece_at(to) else { continue };
                if !self.is_safe_for(chaser, mv) {
                    continue;
                }
                let stronger = match attacker.kind {
                    Kind::Horse | Kind::Cannon => target.kind == Kind::Rook,
                    Kind::Advisor | Kind::Elephant => matches!(target.kind, Kind::Rook | Kind::Cannon | Kind::Horse),
                    _ => false,
                };
                if stronger {
                    chased |= ids.bit(to);
                    continue;
                }
                if self.protected_after(mv, them) {
                    continue;
                }
                if attacker.kind == target.kind {
                    // Equals attacking each other do not chase, unless the target cannot answer.
                    let reverse = Move::new(to, from);
                    let answers = self.attacks_from(to).has(from) && self.is_safe_for(them, reverse);
                    if answers {
                        continue;
                    }
                }
                chased |= ids.bit(to);
            }
        }
        chased
    }
}

/// For the repetition cycle made of the last `moves` played (oldest first, each with its
/// [`Undo`]) that led to `current`: which sides perpetually chase, indexed by colour.
/// The cycle must contain no capture.
#[must_use]
pub(crate) fn perpetual_chasers(current: &Position, cycle: &[(Move, Undo)]) -> [bool; 2] {
    let mut pos = current.clone();
    let mut ids = Ids::new(&pos);
    let mut chase = [u16::MAX; 2];
    for &(mv, undo) in cycle.iter().rev() {
        let mover = !pos.side_to_move();
        if chase[mover.index()] == 0 {
            if chase[(!mover).index()] == 0 {
                break;
            }
            pos.unmake(mv, undo);
            ids.unmove(mv);
            continue;
        }
        let after = pos.chased_by(mover, &ids);
        pos.unmake(mv, undo);
        ids.unmove(mv);
        let before = pos.chased_by(mover, &ids);
        chase[mover.index()] &= after & !before;
    }
    [chase[0] != 0, chase[1] != 0]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The squares (as text, sorted) of the pieces `chaser` chases in `fen`.
    fn chased(fen: &str, chaser: Color) -> Vec<String> {
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let ids = Ids::new(&pos);
        let set = pos.chased_by(chaser, &ids);
        let mut out: Vec<String> =
            pos.pieces_of(!chaser).filter(|&s| set & ids.bit(s) != 0).map(|s| s.to_string()).collect();
        out.sort();
        out
    }

    #[test]
    fn unprotected_targets_are_chased() {
        // Red rook e4 attacks the black horse e7, which nothing protects.
        assert_eq!(chased("3k5/9/4n4/9/9/4R4/9/9/9/5K3 w", Color::Red), ["e7"]);
        // A black advisor... no: a black rook on a7 protects it along the rank: no chase.
        assert!(chased("3k5/9/r3n4/9/9/4R4/9/9/9/5K3 w", Color::Red).is_empty());
    }

    #[test]
    fn attacks_on_stronger_pieces_always_count() {
        // Red cannon e2 (screen e5) attacks the black rook e7, protected by the rook a7: still a chase.
        assert_eq!(chased("3k5/9/r3r4/9/4p4/9/9/4C4/9/5K3 w", Color::Red), ["e7"]);
        // Red horse d5 attacks the protected black rook e7: a chase.
        assert_eq!(chased("3k5/9/r3r4/9/3N5/9/9/9/9/5K3 w", Color::Red), ["e7"]);
        // Red elephant on e2? Elephants stay home; a red advisor cannot reach black pieces either.
        // Black elephant e7 attacks a red horse on c5 (its eye d6 empty), protected or not.
        assert_eq!(chased("3k5/9/4b4/9/2N6/9/9/9/4R4/5K3 b", Color::Black), ["c5"]);
    }

    #[test]
    fn equals_attacking_each_other_do_not_chase() {
        // Red rook e4 and black rook e7 on an open file: each can take the other.
        assert!(chased("3k5/9/4r4/9/9/4R4/9/9/9/5K3 w", Color::Red).is_empty());
        // Red horse c4 attacks the black horse d6 (leg c5 empty), but d6 cannot answer: its leg
        // towards c4 (d5, a black cannon) is blocked. That is a chase.
        assert_eq!(chased("3k5/9/9/3n5/3c5/2N6/9/9/9/5K3 w", Color::Red), ["d6"]);
    }

    #[test]
    fn kings_soldiers_and_uncrossed_soldiers_are_out() {
        // Soldiers never chase: the red soldier e5 attacks the unprotected black horse e6.
        assert!(chased("3k5/9/9/4n4/4P4/9/9/9/9/4K4 w", Color::Red).is_empty());
        // An uncrossed black soldier (e6) is never chased; a crossed one (a3) is.
        assert!(chased("3k5/9/9/4p4/9/9/9/9/9/4RK3 w", Color::Red).is_empty());
        assert_eq!(chased("3k5/9/9/9/9/9/p8/9/9/R3K4 w", Color::Red), ["a3"]);
    }

    #[test]
    fn a_pinned_piece_only_chases_its_pinner() {
        // The red rook e2 is pinned to the red king e0 by the black rook e7; it attacks the
        // black horse a2 along the rank, but may only take the pinner. The pinner (a rook of
        // equal kind) can take it back, so nothing is chased.
        assert!(chased("3k5/9/4r4/9/9/9/9/n3R4/9/4K4 w", Color::Red).is_empty());
    }
}
