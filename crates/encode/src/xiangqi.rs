//! Xiangqi encoding `xiangqi-v2`: 35 planes of 10 x 9, a 2062-move policy, left-right mirror.
//! Its first 33 planes are the `xiangqi-v1` layout ([`BASE_ID`]); the last two are feature
//! planes, the squares each side controls, read only by nets made with `feature_planes` on.
//!
//! # Planes
//! The board is seen by the side to move: turned 180 degrees when Black moves, so the mover's
//! back rank is row 9 (the bottom) and the opponent's is row 0. Row `9 - rank`, column `file`,
//! with rank and file counted from the mover's bottom left. [`HISTORY`] = 2 positions: the
//! current one and the one before the last move, both in the *current* mover's view.
//!
//! | planes | content                                                                   |
//! |--------|---------------------------------------------------------------------------|
//! | 0-6    | mover's king, advisors, elephants, horses, rooks, cannons, soldiers (1/0) |
//! | 7-13   | opponent's pieces, same order                                             |
//! | 14-27  | the same 14 planes for the position one ply earlier; zeros without one    |
//! | 28     | [`REPETITION_PLANE`]: earlier occurrences of this position (0, 1, 2) / 2  |
//! | 29     | [`RULE_PLIES_PLANE`]: plies without capture / 120 (the move rule)         |
//! | 30     | [`OWN_CHECKS_PLANE`]: mover's last moves in a row that gave check / 10    |
//! | 31     | [`THEIR_CHECKS_PLANE`]: opponent's last moves in a row that gave check / 10|
//! | 32     | [`ONES_PLANE`]: all ones (marks the board edge for zero-padded convolutions)|
//! | 33     | [`OWN_CONTROL_PLANE`]: how many of the mover's pieces attack or guard each square / 4 |
//! | 34     | [`THEIR_CONTROL_PLANE`]: the same for the opponent's pieces               |
//!
//! # Feature planes
//! Planes 33 and 34 ([`FEATURE_PLANES`]) are facts a search would find in one ply but a small
//! net needs many layers to see: which squares each side's pieces reach, along a whole rank or
//! file for rooks and cannons. A square counts every piece of that side that could capture a
//! piece of the other colour standing on it (a cannon over its screen, a horse past its leg,
//! an elephant past its eye, in the palace for king and advisors), whatever now stands there,
//! so a piece of the mover's attacked more often than guarded shows as one. Counts stop at
//! [`CONTROL_CAP`]. The kings facing each other is not counted (the rules forbid it, no capture
//! makes it). A net without feature planes reads planes 0-32 and records [`BASE_ID`] as its
//! encoding: the nets made before these planes existed are such nets.
//!
//! Check runs are capped at [`CHECK_STREAK_CAP`] moves. Together with the repetition count they
//! carry what the perpetual-check rule judges; the perpetual-chase rule is not shown directly
//! (the history planes and the outcomes teach it). A game started from a FEN has no history:
//! its earlier-position planes are zero and its counts start there (the FEN's capture clock
//! excepted). No colour plane: the rules treat both sides alike.
//!
//! # Policy
//! An index is a from-to pair in the mover's (turned) view, one for each pair some piece could
//! ever make from there: every pair on one rank or file (rook, cannon, king, soldier: 90 x 17 =
//! 1530), every horse leap (508), the advisor's diagonal steps in the mover's palace (8) and the
//! elephant's leaps on the mover's side of the river (16): [`POLICY_SIZE`] = 2062. Tables that
//! index both colours without turning the board list 2086; the 24 more are the far side's
//! advisor and elephant moves, which a turned view never needs. Indices run in order of
//! (from, to) square, `rank * 9 + file` in the mover's view. [`index_move`] decodes one.
//!
//! # Symmetry
//! Symmetry 1 mirrors files left-right (`a` <-> `i`): every row of every plane reversed, and
//! each index sent to the index of the mirrored from-to pair. Rules, palace and river are
//! symmetric, so a mirrored position is as legal and as good as the original.

use crate::{Encode, EncodingInfo};
use ::xiangqi::{Bitboard, Color, Game, Kind, MOVE_RULE_PLIES, Move, Position, Square, attacks};

/// Version id of this encoding.
pub const ID: &str = "xiangqi-v2";
/// Version id of its first [`BASE_PLANES`] planes alone: what a net without feature planes reads.
pub const BASE_ID: &str = "xiangqi-v1";
/// Positions shown: the current one and this many minus one before it.
pub const HISTORY: usize = 2;
/// Rows of a plane (ranks).
pub const HEIGHT: usize = 10;
/// Columns of a plane (files).
pub const WIDTH: usize = 9;
const AREA: usize = HEIGHT * WIDTH;
/// Planes per shown position: 7 kinds for each side.
pub const PIECE_PLANES: usize = 14;
/// Earlier occurrences of the current position, 0..=2, divided by 2.
pub const REPETITION_PLANE: usize = HISTORY * PIECE_PLANES;
/// Plies since the last capture divided by 120.
pub const RULE_PLIES_PLANE: usize = REPETITION_PLANE + 1;
/// The mover's check run divided by [`CHECK_STREAK_CAP`].
pub const OWN_CHECKS_PLANE: usize = REPETITION_PLANE + 2;
/// The opponent's check run divided by [`CHECK_STREAK_CAP`].
pub const THEIR_CHECKS_PLANE: usize = REPETITION_PLANE + 3;
/// All ones.
pub const ONES_PLANE: usize = REPETITION_PLANE + 4;
/// Planes of the layout without feature planes ([`BASE_ID`]).
pub const BASE_PLANES: usize = ONES_PLANE + 1;
/// The mover's control of each square: attackers and guards counted, / [`CONTROL_CAP`].
pub const OWN_CONTROL_PLANE: usize = BASE_PLANES;
/// The opponent's control of each square, the same way.
pub const THEIR_CONTROL_PLANE: usize = BASE_PLANES + 1;
/// Feature planes, after the base layout.
pub const FEATURE_PLANES: usize = 2;
/// Number of planes.
pub const PLANES: usize = BASE_PLANES + FEATURE_PLANES;
/// Control counts above this show as this.
pub const CONTROL_CAP: usize = 4;
/// Check runs longer than this show as this.
pub const CHECK_STREAK_CAP: usize = 10;
/// Size of the policy index space.
pub const POLICY_SIZE: usize = count_labels();
const PLANE_LEN: usize = PLANES * AREA;

/// Marks a from-to pair that is no label in [`Tables::index_of`].
const NO_LABEL: u16 = u16::MAX;

/// (file, rank) of a square index in the mover's view.
const fn coords(sq: usize) -> (i32, i32) {
    ((sq % WIDTH) as i32, (sq / WIDTH) as i32)
}

/// An advisor square of the mover's palace: the palace corners and centre.
const fn advisor_square(f: i32, r: i32) -> bool {
    f >= 3 && f <= 5 && r <= 2 && (f + r) % 2 == 1
}

/// An elephant square on the mover's side of the river.
const fn elephant_square(f: i32, r: i32) -> bool {
    r <= 4 && r % 2 == 0 && (f + r) % 4 == 2
}

/// True if some piece of the mover could ever move from `from` to `to` (mover's view).
const fn is_label(from: usize, to: usize) -> bool {
    if from == to {
        return false;
    }
    let ((f0, r0), (f1, r1)) = (coords(from), coords(to));
    let (af, ar) = ((f1 - f0).abs(), (r1 - r0).abs());
    match (af, ar) {
        (0, _) | (_, 0) => true,
        (1, 2) | (2, 1) => true,
        (1, 1) => advisor_square(f0, r0) && advisor_square(f1, r1),
        (2, 2) => elephant_square(f0, r0) && elephant_square(f1, r1),
        _ => false,
    }
}

const fn count_labels() -> usize {
    let mut n = 0;
    let mut pair = 0;
    while pair < AREA * AREA {
        if is_label(pair / AREA, pair % AREA) {
            n += 1;
        }
        pair += 1;
    }
    n
}

const fn mirror_square(sq: usize) -> usize {
    sq - sq % WIDTH + (WIDTH - 1 - sq % WIDTH)
}

/// The lookup tables, built at compile time.
struct Tables {
    /// Index of each from-to pair (`from * 90 + to`, mover's view), or [`NO_LABEL`].
    index_of: [u16; AREA * AREA],
    /// The from-to pair (`from * 90 + to`) of each index.
    pair_of: [u16; POLICY_SIZE],
    /// The index each index becomes under the mirror.
    mirror: [u16; POLICY_SIZE],
    /// Offset in a plane (`row * 9 + column`) of each board square, by the mover's colour.
    cell: [[u8; AREA]; 2],
}

const fn build_tables() -> Tables {
    let mut t = Tables {
        index_of: [NO_LABEL; AREA * AREA],
        pair_of: [0; POLICY_SIZE],
        mirror: [0; POLICY_SIZE],
        cell: [[0; AREA]; 2],
    };
    let mut n = 0;
    let mut pair = 0;
    while pair < AREA * AREA {
        if is_label(pair / AREA, pair % AREA) {
            t.index_of[pair] = n as u16;
            t.pair_of[n] = pair as u16;
            n += 1;
        }
        pair += 1;
    }
    let mut i = 0;
    while i < POLICY_SIZE {
        let pair = t.pair_of[i] as usize;
        t.mirror[i] = t.index_of[mirror_square(pair / AREA) * AREA + mirror_square(pair % AREA)];
        i += 1;
    }
    let mut sq = 0;
    while sq < AREA {
        // Red sees the board as it is; Black sees it turned (square 89 - sq).
        let mut c = 0;
        while c < 2 {
            let view = if c == 0 { sq } else { AREA - 1 - sq };
            let (file, rank) = coords(view);
            t.cell[c][sq] = ((HEIGHT as i32 - 1 - rank) as usize * WIDTH + file as usize) as u8;
            c += 1;
        }
        sq += 1;
    }
    t
}

static TABLES: Tables = build_tables();

/// `sq` in the view of `mover`.
#[inline]
fn view(sq: Square, mover: Color) -> Square {
    match mover {
        Color::Red => sq,
        Color::Black => sq.rotate(),
    }
}

/// The policy index of a move by `mover`, or `None` if no piece could ever make it.
#[inline]
#[must_use]
pub fn move_index(mv: Move, mover: Color) -> Option<usize> {
    let pair = view(mv.from(), mover).index() * AREA + view(mv.to(), mover).index();
    match TABLES.index_of[pair] {
        NO_LABEL => None,
        i => Some(usize::from(i)),
    }
}

/// The move by `mover` that policy index `idx` stands for; `None` if `idx >= POLICY_SIZE`.
/// Whether it is legal depends on the position.
#[must_use]
pub fn index_move(idx: usize, mover: Color) -> Option<Move> {
    let pair = usize::from(*TABLES.pair_of.get(idx)?);
    let from = Square::new(pair / AREA)?;
    let to = Square::new(pair % AREA)?;
    Some(Move::new(view(from, mover), view(to, mover)))
}

/// Writes the 14 piece planes of `pos` as seen by `mover` into `out` (zeroed by the caller).
fn write_pieces(pos: &Position, mover: Color, out: &mut [f32]) {
    let cell = &TABLES.cell[mover.index()];
    for (first, color) in [(0, mover), (Kind::ALL.len(), !mover)] {
        for kind in Kind::ALL {
            let plane = &mut out[(first + kind.index()) * AREA..][..AREA];
            for sq in pos.pieces(color, kind) {
                plane[usize::from(cell[sq.index()])] = 1.0;
            }
        }
    }
}

/// Writes the two control planes of `pos` as seen by `mover` into `out` (two planes, zeroed by
/// the caller): for each side, every square its pieces could capture on (see the module docs).
fn write_control(pos: &Position, mover: Color, out: &mut [f32]) {
    let cell = &TABLES.cell[mover.index()];
    let (occ, occ_t) = (pos.occupied().0, pos.occupied_rotated());
    let step = 1.0 / CONTROL_CAP as f32;
    for (plane, color) in out.chunks_exact_mut(AREA).zip([mover, !mover]) {
        for sq in pos.pieces_of(color) {
            let reach = match pos.piece_at(sq).map(|p| p.kind) {
                Some(Kind::Cannon) => Bitboard(attacks::cannon_control(sq, occ, occ_t)),
                _ => pos.attacks_from(sq),
            };
            for target in reach {
                let v = &mut plane[usize::from(cell[target.index()])];
                *v = (*v + step).min(1.0);
            }
        }
    }
}

fn fill_plane(out: &mut [f32], plane: usize, value: f32) {
    out[plane * AREA..(plane + 1) * AREA].fill(value);
}

fn streak_value(streak: usize) -> f32 {
    streak.min(CHECK_STREAK_CAP) as f32 / CHECK_STREAK_CAP as f32
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
        symmetries: 2,
    };

    fn encode_input(&self, out: &mut [f32], features: bool) {
        assert_eq!(out.len(), PLANE_LEN, "xiangqi planes buffer length");
        let pos = self.position();
        let us = pos.side_to_move();
        let piece_len = PIECE_PLANES * AREA;
        out[..HISTORY * piece_len].fill(0.0);
        write_pieces(pos, us, &mut out[..piece_len]);
        for back in 1..HISTORY {
            let Some(earlier) = self.previous_position(back) else { break };
            write_pieces(&earlier, us, &mut out[back * piece_len..(back + 1) * piece_len]);
        }
        fill_plane(out, REPETITION_PLANE, self.repetitions().min(2) as f32 / 2.0);
        let rule = pos.rule_plies().min(MOVE_RULE_PLIES);
        fill_plane(out, RULE_PLIES_PLANE, f32::from(rule) / f32::from(MOVE_RULE_PLIES));
        fill_plane(out, OWN_CHECKS_PLANE, streak_value(self.check_streak(us)));
        fill_plane(out, THEIR_CHECKS_PLANE, streak_value(self.check_streak(!us)));
        fill_plane(out, ONES_PLANE, 1.0);
        let planes = &mut out[BASE_PLANES * AREA..];
        planes.fill(0.0);
        if features {
            write_control(pos, us, planes);
        }
    }

    fn policy_index(&self, mv: Move) -> usize {
        let mover = self.position().side_to_move();
        move_index(mv, mover).unwrap_or_else(|| panic!("{mv} is no xiangqi move for {}", mover.name()))
    }

    fn transform_planes(sym: usize, planes: &mut [f32]) {
        assert!(sym < 2, "xiangqi has 2 symmetries, not {}", sym + 1);
        assert_eq!(planes.len() % PLANE_LEN, 0, "xiangqi planes buffer length");
        if sym == 1 {
            planes.chunks_exact_mut(WIDTH).for_each(<[f32]>::reverse);
        }
    }

    fn transform_policy_index(sym: usize, idx: usize) -> usize {
        assert!(sym < 2, "xiangqi has 2 symmetries, not {}", sym + 1);
        if sym == 1 { usize::from(TABLES.mirror[idx]) } else { idx }
    }

    /// A side starts with 48 (5 + 2 x 2 + 2 x 2 + 2 x 4 + 2 x 4.5 + 2 x 9); two rooks' worth
    /// ends most decided games.
    const MATERIAL_SCALE: f32 = 18.0;

    fn material(&self) -> f32 {
        let pos = self.position();
        let us = pos.side_to_move();
        let of = |color: Color| -> f32 {
            Kind::ALL.iter().map(|&kind| pos.pieces(color, kind).count() as f32 * material_value(kind)).sum()
        };
        of(us) - of(!us)
    }
}

/// The customary value of a xiangqi piece in soldiers (the general counts 0: it is never taken).
fn material_value(kind: Kind) -> f32 {
    match kind {
        Kind::King => 0.0,
        Kind::Advisor | Kind::Elephant => 2.0,
        Kind::Horse => 4.0,
        Kind::Cannon => 4.5,
        Kind::Rook => 9.0,
        Kind::Soldier => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::Game as _;

    #[test]
    fn material_counts_for_the_side_to_move() {
        let mut game = Game::new();
        assert_eq!(game.material(), 0.0);
        // The cannon takes the centre soldier over its own: Black to move, a soldier down.
        for m in ["h2e2", "h9g7", "e2e6"] {
            game.play_unchecked(game.parse_move_strict(m).expect("legal"));
        }
        assert_eq!(game.material(), -1.0);
        assert_eq!(game.material_target(), -1.0 / 18.0);
        let kings_and_rooks = Game::from_fen("4k4/9/9/9/9/9/9/9/4R4/R3K4 b - - 0 1").expect("fen");
        assert_eq!(kings_and_rooks.material(), -18.0);
        assert_eq!(kings_and_rooks.material_target(), -1.0, "clamped");
    }

    #[test]
    fn label_counts_by_piece_geometry() {
        let mut by_shape = std::collections::BTreeMap::new();
        for i in 0..POLICY_SIZE {
            let pair = usize::from(TABLES.pair_of[i]);
            let ((f0, r0), (f1, r1)) = (coords(pair / AREA), coords(pair % AREA));
            let shape = match ((f1 - f0).abs(), (r1 - r0).abs()) {
                (0, _) | (_, 0) => "line",
                (1, 1) => "advisor",
                (2, 2) => "elephant",
                _ => "horse",
            };
            *by_shape.entry(shape).or_insert(0) += 1;
        }
        assert_eq!(by_shape["line"], 90 * 17);
        assert_eq!(by_shape["horse"], 508);
        assert_eq!(by_shape["advisor"], 8);
        assert_eq!(by_shape["elephant"], 16);
        assert_eq!(POLICY_SIZE, 2062);
    }

    #[test]
    fn index_and_move_round_trip() {
        for mover in Color::BOTH {
            for idx in 0..POLICY_SIZE {
                let mv = index_move(idx, mover).expect("in range");
                assert_eq!(move_index(mv, mover), Some(idx), "{mv} for {}", mover.name());
            }
            assert_eq!(index_move(POLICY_SIZE, mover), None);
        }
        // Red's own palace diagonal is a label for Red, not for Black (whose palace it is not).
        let d0e1 = Move::new(Square::parse("d0").expect("d0"), Square::parse("e1").expect("e1"));
        assert!(move_index(d0e1, Color::Red).is_some());
        assert_eq!(move_index(d0e1, Color::Black), None);
        assert!(move_index(d0e1.rotate(), Color::Black).is_some());
    }

    #[test]
    fn mirror_is_an_involution_matching_the_mirrored_move() {
        for idx in 0..POLICY_SIZE {
            let m = Game::transform_policy_index(1, idx);
            assert_eq!(Game::transform_policy_index(1, m), idx);
            assert_eq!(Game::transform_policy_index(0, idx), idx);
            for mover in Color::BOTH {
                let mv = index_move(idx, mover).expect("in range");
                assert_eq!(move_index(mv.mirror(), mover), Some(m));
            }
        }
    }

    #[test]
    fn cells_put_the_mover_at_the_bottom() {
        let e0 = Square::parse("e0").expect("e0");
        let a0 = Square::parse("a0").expect("a0");
        assert_eq!(TABLES.cell[Color::Red.index()][e0.index()], 9 * 9 + 4);
        assert_eq!(TABLES.cell[Color::Red.index()][a0.index()], 9 * 9);
        // Black's left corner at the bottom is i9.
        let i9 = Square::parse("i9").expect("i9");
        assert_eq!(TABLES.cell[Color::Black.index()][i9.index()], 9 * 9);
        assert_eq!(TABLES.cell[Color::Black.index()][a0.index()], 8);
    }
}
