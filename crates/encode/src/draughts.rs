//! International draughts encoding `draughts-v2`: 10 planes of 10 x 10, a 2500-move policy, no
//! symmetry. Its first 8 planes are the `draughts-v1` layout ([`BASE_ID`]); the last two are
//! feature planes, the captures on the board, read only by nets made with `feature_planes` on.
//!
//! # Planes
//! The board is seen by the side to move: turned 180 degrees (square `s` -> `51 - s`) when Black
//! moves, so the mover's men always advance up the planes and the mover's back row is row 9.
//! Row and column are those of the (turned) square as White sees the board: square 1 is row 0,
//! column 1. Only the 50 dark squares are ever set on the piece planes. Only the current position
//! is shown: draughts rules need no more than the counts below.
//!
//! | plane | content                                                                      |
//! |-------|------------------------------------------------------------------------------|
//! | 0     | mover's men (1/0)                                                            |
//! | 1     | mover's kings                                                                |
//! | 2     | opponent's men                                                               |
//! | 3     | opponent's kings                                                             |
//! | 4     | [`REPETITION_PLANE`]: earlier occurrences of this position (0, 1, 2) / 2     |
//! | 5     | [`KING_MOVES_PLANE`]: plies of king moves without capture / 50 (25-move rule)|
//! | 6     | [`ENDGAME_PLANE`]: endgame count / its limit (16- or 5-move rule), 0 if none |
//! | 7     | [`ONES_PLANE`]: all ones                                                     |
//! | 8     | [`TARGETS_PLANE`]: opponent's pieces the mover can take now (1/0)            |
//! | 9     | [`THREATS_PLANE`]: mover's pieces the opponent could take, were it its move  |
//!
//! # Feature planes
//! Planes 8 and 9 ([`FEATURE_PLANES`]) show what a search finds in one ply: every piece some
//! legal capture takes, under the majority rule (only captures of the most pieces count), for
//! the mover as the position stands and for the opponent as if it moved now. A net without
//! feature planes reads planes 0-7 and records [`BASE_ID`], as nets made before them did.
//!
//! The counts are the game layer's ([`draughts::Game::reversible_plies`],
//! [`draughts::Game::endgame_plies`], [`draughts::Game::endgame_limit`]); a game started from a
//! FEN starts them at zero.
//!
//! # Policy
//! Index `(from - 1) * 50 + (to - 1)` with both squares in the mover's view (turned for Black):
//! [`POLICY_SIZE`] = 2500, `from == to` included (a king's capture can end where it began). Two
//! legal moves with the same origin and destination but different captured pieces share an
//! index; the net's probability for it is split equally between them (see
//! [`crate::legal_priors`]). Such pairs are rare: none occurs in the perft-suite walk; the test
//! fixtures come from a random search over king-rich positions, where about one position in a
//! hundred has one, always a king's capture. Under the majority rule both capture as many.
//!
//! # Symmetry
//! None keeps the rules: a left-right mirror sends the dark squares onto light ones (the long
//! diagonal runs from the mover's bottom left), and a reflection in a diagonal turns the men's
//! forward steps sideways. The turn for Black is already used for the side-to-move view.
//! Symmetry 0 (the identity) only.

use crate::{Encode, EncodingInfo};
use ::draughts::rules::KING_MOVES_PLIES;
use ::draughts::{Color, Game, Kind, Move, Position, SQUARES, Square};

/// Version id of this encoding.
pub const ID: &str = "draughts-v2";
/// Version id of its first [`BASE_PLANES`] planes alone: what a net without feature planes reads.
pub const BASE_ID: &str = "draughts-v1";
/// Rows of a plane.
pub const HEIGHT: usize = 10;
/// Columns of a plane.
pub const WIDTH: usize = 10;
const AREA: usize = HEIGHT * WIDTH;
/// Mover's men, mover's kings, opponent's men, opponent's kings.
pub const PIECE_PLANES: usize = 4;
/// Earlier occurrences of the current position, 0..=2, divided by 2.
pub const REPETITION_PLANE: usize = 4;
/// Plies since the last capture or man move divided by 50.
pub const KING_MOVES_PLANE: usize = 5;
/// Plies counted towards the endgame rule in force divided by its limit; 0 when none applies.
pub const ENDGAME_PLANE: usize = 6;
/// All ones.
pub const ONES_PLANE: usize = 7;
/// Planes of the layout without feature planes ([`BASE_ID`]).
pub const BASE_PLANES: usize = 8;
/// The opponent's pieces that some legal capture of the mover takes.
pub const TARGETS_PLANE: usize = 8;
/// The mover's pieces that some legal capture of the opponent would take, were it its move.
pub const THREATS_PLANE: usize = 9;
/// Feature planes, after the base layout.
pub const FEATURE_PLANES: usize = 2;
/// Number of planes.
pub const PLANES: usize = BASE_PLANES + FEATURE_PLANES;
/// Size of the policy index space.
pub const POLICY_SIZE: usize = SQUARES * SQUARES;
const PLANE_LEN: usize = PLANES * AREA;

/// Offset in a plane (`row * 10 + column`) of each square number (index 0 unused), by the
/// mover's colour.
static CELL: [[u8; SQUARES + 1]; 2] = {
    let mut t = [[0u8; SQUARES + 1]; 2];
    let mut n = 1;
    while n <= SQUARES {
        let mut c = 0;
        while c < 2 {
            let number = if c == 0 { n } else { SQUARES + 1 - n };
            if let Some(sq) = Square::new(number as u32) {
                t[c][n] = (sq.row() as usize * WIDTH + sq.column() as usize) as u8;
            }
            c += 1;
        }
        n += 1;
    }
    t
};

/// `sq` in the view of `mover`.
#[inline]
fn view(sq: Square, mover: Color) -> Square {
    match mover {
        Color::White => sq,
        Color::Black => sq.rotate(),
    }
}

/// The policy index of a move by `mover` from `from` to `to`.
#[inline]
#[must_use]
pub fn squares_index(from: Square, to: Square, mover: Color) -> usize {
    (view(from, mover).number() as usize - 1) * SQUARES + view(to, mover).number() as usize - 1
}

/// The (from, to) squares of a move by `mover` that policy index `idx` stands for; `None` if
/// `idx >= POLICY_SIZE`. Several legal moves may share them (see the module docs).
#[must_use]
pub fn index_squares(idx: usize, mover: Color) -> Option<(Square, Square)> {
    if idx >= POLICY_SIZE {
        return None;
    }
    let from = Square::new((idx / SQUARES + 1) as u32)?;
    let to = Square::new((idx % SQUARES + 1) as u32)?;
    Some((view(from, mover), view(to, mover)))
}

/// Marks in `plane` (seen by `mover`) every piece that some legal capture by `side` takes, with
/// `side` to move in `pos`.
fn write_taken(pos: &Position, side: Color, mover: Color, plane: &mut [f32]) {
    let mut pos = *pos;
    pos.set_side_to_move(side);
    if !pos.has_capture() {
        return;
    }
    let cell = &CELL[mover.index()];
    for mv in &pos.legal_moves() {
        for sq in mv.captured() {
            plane[usize::from(cell[sq.number() as usize])] = 1.0;
        }
    }
}

fn fill_plane(out: &mut [f32], plane: usize, value: f32) {
    out[plane * AREA..(plane + 1) * AREA].fill(value);
}

impl Encode for Game {
    const ENCODING: EncodingInfo = EncodingInfo {
        id: ID,
        planes: PLANES,
        base_id: BASE_ID,
        base_planes: BASE_PLANES,
        height: HEIGHT,
        width: WIDTH,
        policy_size: POLICY_SIZE,
        symmetries: 1,
    };

    fn encode_input(&self, out: &mut [f32], features: bool) {
        assert_eq!(out.len(), PLANE_LEN, "draughts planes buffer length");
        let pos = self.position();
        let us = pos.side_to_move();
        out[..PIECE_PLANES * AREA].fill(0.0);
        let cell = &CELL[us.index()];
        let kings = pos.kings_mask();
        for (first, color) in [(0, us), (2, !us)] {
            for sq in pos.pieces_of(color) {
                let king = usize::from(kings >> sq.bit_index() & 1 != 0);
                out[(first + king) * AREA + usize::from(cell[sq.number() as usize])] = 1.0;
            }
        }
        fill_plane(out, REPETITION_PLANE, self.repetitions().min(2) as f32 / 2.0);
        let king_moves = self.reversible_plies().min(KING_MOVES_PLIES);
        fill_plane(out, KING_MOVES_PLANE, king_moves as f32 / KING_MOVES_PLIES as f32);
        let endgame = self.endgame_limit().map_or(0.0, |limit| self.endgame_plies().min(limit) as f32 / limit as f32);
        fill_plane(out, ENDGAME_PLANE, endgame);
        fill_plane(out, ONES_PLANE, 1.0);
        let (targets, threats) = out[TARGETS_PLANE * AREA..].split_at_mut(AREA);
        targets.fill(0.0);
        threats.fill(0.0);
        if features {
            write_taken(pos, us, us, targets);
            write_taken(pos, !us, us, threats);
        }
    }

    fn policy_index(&self, mv: Move) -> usize {
        squares_index(mv.from(), mv.to(), self.position().side_to_move())
    }

    fn transform_planes(sym: usize, planes: &mut [f32]) {
        assert_eq!(sym, 0, "draughts has only the identity symmetry");
        assert_eq!(planes.len() % PLANE_LEN, 0, "draughts planes buffer length");
    }

    fn transform_policy_index(sym: usize, idx: usize) -> usize {
        assert_eq!(sym, 0, "draughts has only the identity symmetry");
        assert!(idx < POLICY_SIZE, "policy index {idx} out of range");
        idx
    }

    /// A side starts with 20 men; ten men's worth ends most decided games.
    const MATERIAL_SCALE: f32 = 10.0;

    fn material(&self) -> f32 {
        let pos = self.position();
        let us = pos.side_to_move();
        let of = |color: Color| pos.count(color, Kind::Man) as f32 + 3.0 * pos.count(color, Kind::King) as f32;
        of(us) - of(!us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn material_counts_kings_three_times() {
        assert_eq!(Game::new().material(), 0.0);
        let game = Game::from_fen("W:WK46,31,32:B1,2,3").expect("fen");
        assert_eq!(game.material(), 2.0);
        assert_eq!(game.material_target(), 0.2);
        let black = Game::from_fen("B:WK46,31,32:B1,2,3").expect("fen");
        assert_eq!(black.material(), -2.0);
        let crushed = Game::from_fen("W:WK46,K47,K48,K49,K50:B1").expect("fen");
        assert_eq!(crushed.material_target(), 1.0, "clamped");
    }

    #[test]
    fn index_and_squares_round_trip() {
        for mover in Color::BOTH {
            for idx in 0..POLICY_SIZE {
                let (from, to) = index_squares(idx, mover).expect("in range");
                assert_eq!(squares_index(from, to, mover), idx);
            }
            assert_eq!(index_squares(POLICY_SIZE, mover), None);
        }
        let s = |n| Square::new(n).expect("square");
        assert_eq!(squares_index(s(32), s(28), Color::White), 31 * 50 + 27);
        // Black's 19-23 is White's 32-28 turned.
        assert_eq!(squares_index(s(19), s(23), Color::Black), 31 * 50 + 27);
    }

    #[test]
    fn cells_turn_the_board_for_black() {
        let s1 = usize::from(CELL[Color::White.index()][1]);
        assert_eq!(s1, 1);
        assert_eq!(usize::from(CELL[Color::Black.index()][1]), 9 * 10 + 8);
        assert_eq!(usize::from(CELL[Color::White.index()][50]), 9 * 10 + 8);
        let mut seen: Vec<u8> = CELL[Color::Black.index()][1..].to_vec();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 50);
    }
}
