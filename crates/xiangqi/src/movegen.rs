//! Legal move generation without heap allocation.
//!
//! Moves are generated per piece as target bitboards. Most of them are legal by construction; a
//! move is verified (played on scratch occupancy masks and the king tested) only when it could
//! expose the king:
//! - the side to move is in check, or the king itself moves;
//! - the piece moved is a *blocker*: the only piece between our king and an enemy rook or king
//!   on a line, one of exactly two pieces between our king and an enemy cannon, or on the leg of
//!   an enemy horse aimed at our king;
//! - the target lies between our king and an enemy cannon with nothing in between (a piece
//!   arriving there would become the cannon's screen).
//!
//! Nothing else a move changes can create an attack on the king, so every other move is legal.
//! Counting ([`Position::count_legal`]) uses the same rule and adds whole target sets by
//! popcount, which is what makes perft fast.

use crate::attacks;
use crate::bitboard::{BOARD_MASK, Bitboard};
use crate::position::Position;
use crate::types::{Color, Kind, Move, Square};
use arrayvec::ArrayVec;

/// An upper bound on the number of legal moves in any position (the true maximum is lower:
/// 2 rooks x 17 + 2 cannons x 17 + 2 horses x 8 + 2 advisors x 4 + 2 elephants x 4
/// + 5 soldiers x 3 + king 4 = 119).
pub const MAX_MOVES: usize = 128;

/// A fixed-capacity list of moves.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

/// Where generated moves go: a list, or a counter.
trait Sink {
    /// Adds the moves from `from` to each square of `targets`, all known to be legal.
    fn add_all(&mut self, from: Square, targets: u128);
    /// Adds one legal move.
    fn add(&mut self, mv: Move);
}

impl Sink for MoveList {
    #[inline]
    fn add_all(&mut self, from: Square, targets: u128) {
        for to in Bitboard(targets) {
            self.push(Move::new(from, to));
        }
    }

    #[inline]
    fn add(&mut self, mv: Move) {
        self.push(mv);
    }
}

struct Counter(usize);

impl Sink for Counter {
    #[inline]
    fn add_all(&mut self, _from: Square, targets: u128) {
        self.0 += targets.count_ones() as usize;
    }

    #[inline]
    fn add(&mut self, _mv: Move) {
        self.0 += 1;
    }
}

/// Squares that make a move worth verifying; see the module docs.
#[derive(Copy, Clone)]
pub(crate) struct KingSafety {
    /// Our pieces whose departure may expose our king.
    pub risky_from: u128,
    /// Squares whose occupation may expose our king.
    pub risky_to: u128,
}

impl Position {
    /// Blockers and hollow-cannon lines around `us`'s king, for a side not in check.
    #[inline]
    pub(crate) fn king_safety(&self, us: Color) -> KingSafety {
        let ksq = self.king(us);
        let occ = self.occupied().0;
        let ours = self.by_color[us.index()].0;
        let theirs = self.by_color[(!us).index()].0;
        let kinds = |k: Kind| self.by_kind[k.index()].0;
        let mut safety = KingSafety { risky_from: 0, risky_to: 0 };

        let snipers = attacks::line(ksq) & theirs & (kinds(Kind::Rook) | kinds(Kind::King) | kinds(Kind::Cannon));
        for s in Bitboard(snipers) {
            let between = attacks::between(ksq, s);
            let inside = between & occ;
            let n = inside.count_ones();
            if kinds(Kind::Cannon) >> s.index() & 1 != 0 {
                match n {
                    0 => safety.risky_to |= between,
                    2 => safety.risky_from |= inside & ours,
                    _ => {}
                }
            } else if n == 1 {
                safety.risky_from |= inside & ours;
            }
        }
        let their_horses = theirs & kinds(Kind::Horse);
        if their_horses != 0 {
            for leg in attacks::horse_attack_legs(ksq) {
                if leg.block & ours != 0 && leg.targets & their_horses != 0 {
                    safety.risky_from |= leg.block;
                }
            }
        }
        safety
    }

    #[inline]
    fn emit<S: Sink>(&self, sink: &mut S, from: Square, targets: u128, safety: KingSafety) {
        if safety.risky_from >> from.index() & 1 != 0 {
            for to in Bitboard(targets) {
                let mv = Move::new(from, to);
                if self.is_safe(mv) {
                    sink.add(mv);
                }
            }
        } else {
            sink.add_all(from, targets & !safety.risky_to);
            for to in Bitboard(targets & safety.risky_to) {
                let mv = Move::new(from, to);
                if self.is_safe(mv) {
                    sink.add(mv);
                }
            }
        }
    }

    fn generate<S: Sink>(&self, sink: &mut S) {
        let us = self.side;
        let occ = self.occupied().0;
        let occ_t = self.occ_t;
        let ours = self.by_color[us.index()].0;
        let theirs = self.by_color[(!us).index()].0;
        let not_ours = !ours & BOARD_MASK;
        let ksq = self.king(us);
        let safety = if self.king_attacked(ksq, !us, occ, occ_t, 0) {
            KingSafety { risky_from: BOARD_MASK, risky_to: BOARD_MASK }
        } else {
            self.king_safety(us)
        };
        let mine = |k: Kind| Bitboard(ours & self.by_kind[k.index()].0);

        for from in mine(Kind::Rook) {
            self.emit(sink, from, attacks::rook(from, occ, occ_t) & not_ours, safety);
        }
        for from in mine(Kind::Cannon) {
            let quiet = attacks::rook(from, occ, occ_t) & !occ;
            let captures = attacks::cannon_captures(from, occ, occ_t) & theirs;
            self.emit(sink, from, quiet | captures, safety);
        }
        for from in mine(Kind::Horse) {
            self.emit(sink, from, attacks::horse(from, occ) & not_ours, safety);
        }
        for from in mine(Kind::Soldier) {
            self.emit(sink, from, attacks::soldier(us, from) & not_ours, safety);
        }
        for from in mine(Kind::Elephant) {
            self.emit(sink, from, attacks::elephant(from, occ) & not_ours, safety);
        }
        for from in mine(Kind::Advisor) {
            self.emit(sink, from, attacks::advisor(from) & not_ours, safety);
        }
        for to in Bitboard(attacks::king(ksq) & not_ours) {
            let mv = Move::new(ksq, to);
            if self.is_safe(mv) {
                sink.add(mv);
            }
        }
    }

    /// All legal moves, in a fixed order (by piece kind, then square).
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut list);
        list
    }

    /// Appends all legal moves to `list` (which must have room for [`MAX_MOVES`] more).
    pub fn generate_legal(&self, list: &mut MoveList) {
        self.generate(list);
    }

    /// The number of legal moves, without listing them.
    #[must_use]
    pub fn count_legal(&self) -> usize {
        let mut c = Counter(0);
        self.generate(&mut c);
        c.0
    }

    /// True if the side to move has at least one legal move.
    #[must_use]
    pub fn has_legal_move(&self) -> bool {
        self.count_legal() > 0
    }

    /// True if `mv` is legal here. The checked test for moves from outside.
    #[must_use]
    pub fn is_legal(&self, mv: Move) -> bool {
        let Some(piece) = self.piece_at(mv.from()) else {
            return false;
        };
        if piece.color != self.side {
            return false;
        }
        self.legal_moves().contains(&mv)
    }

    /// Every pseudo-legal move (legal except that it may leave the king attacked), for tests
    /// that check the legality filter against brute force.
    #[must_use]
    pub fn pseudo_legal_moves(&self) -> Vec<Move> {
        let us = self.side;
        let occ = self.occupied().0;
        let theirs = self.by_color[(!us).index()].0;
        let not_ours = !self.by_color[us.index()].0 & BOARD_MASK;
        let mut out = Vec::new();
        for from in self.pieces_of(us) {
            let Some(p) = self.piece_at(from) else {
                continue;
            };
            let targets = match p.kind {
                Kind::Cannon => {
                    (attacks::rook(from, occ, self.occ_t) & !occ)
                        | (attacks::cannon_captures(from, occ, self.occ_t) & theirs)
                }
                _ => self.attacks_from(from).0 & not_ours,
            };
            out.extend(Bitboard(targets).map(|to| Move::new(from, to)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_has_44_moves() {
        let pos = Position::startpos();
        assert_eq!(pos.legal_moves().len(), 44);
        assert_eq!(pos.count_legal(), 44);
    }

    #[test]
    fn legal_filter_matches_brute_force() {
        // Positions with pins, cannon screens, horse legs and facing kings.
        let fens = [
            "4k4/9/9/9/4c4/9/9/4R4/4A4/4K4 w - - 0 1", // advisor screens a cannon? no: rook and advisor between
            "4k4/9/9/9/4r4/9/9/9/4R4/4K4 w - - 0 1",   // pinned rook on the file
            "3k5/9/9/9/9/9/9/9/4N4/4K4 w - - 0 1",     // king move onto the open file of the other king
            "4k4/9/4c4/9/9/9/9/4N4/4C4/4K4 w - - 0 1", // two screens before the cannon
            "5k3/9/9/9/9/9/9/9/2nR5/4K4 w - - 0 1",    // our rook on the leg of a horse aimed at the king
            "4k4/4c4/9/9/9/9/9/9/9/3K5 w - - 0 1",     // hollow cannon on e-file? king on d
            "3k5/4c4/9/9/9/9/9/9/9/4K4 w - - 0 1",     // hollow cannon aimed at the king
        ];
        for fen in fens {
            let pos = Position::from_fen(fen).expect(fen);
            let mut brute: Vec<Move> = pos
                .pseudo_legal_moves()
                .into_iter()
                .filter(|&m| !pos.after(m).checkers_of(!pos.side_to_move()).is_nonempty())
                .collect();
            let mut fast: Vec<Move> = pos.legal_moves().to_vec();
            brute.sort();
            fast.sort();
            assert_eq!(fast, brute, "{fen}");
            assert_eq!(pos.count_legal(), brute.len(), "{fen}");
        }
    }
}
