//! International draughts for the alpha-beta search: the [`SearchGame`] implementation and the
//! evaluation.
//!
//! Units: hundredths of a man (a man is 100).
//!
//! The evaluation is a sum of hand-set terms, each computed for one side at a time *from that
//! side's point of view*: Black's masks are turned half a turn (square `n` becomes `51 - n`)
//! so that both sides move "up" towards squares 1-5 and every table below is written once,
//! for White. The terms (see [`Weights`] for the numbers, and `side_terms` for the code):
//!
//! - **material**: men and kings, a king worth about three men;
//! - **advancement** (the tempo count): men further up the board, tapered from a small
//!   weight with a full board (where a tempo lead is a mixed blessing) to a large one in the
//!   endgame (where the race to promote decides);
//! - **back-row guard**: men kept on the own back row, which stop breakthroughs, while the
//!   opponent still has men that could break through;
//! - **centre**: men on the central squares 22-24 and 27-29;
//! - **balance**: men spread evenly between the left and right wings;
//! - **mobility**: free forward steps of the men, against locked positions and zugzwang;
//! - **runaway men**: a man whose whole path to the far row is clear and that no enemy man can
//!   reach in time, with no enemy king to catch it, is worth most of a king already;
//! - **kings**: the long diagonal (46-5) and the squares a king can reach.
//!
//! Endgames that the rules make drawn (a lone king against one or two pieces, the lone king
//! on the long diagonal against three) are scaled towards zero.
//!
//! Everything is whole-board mask arithmetic on [`Position::pieces_mask`], and loops over
//! men (runaways) and kings (mobility) only: about 0.1 microsecond a call.
//!
//! The weights are set by hand and checked by matches, not fitted: against material alone
//! (same search, 20,000 nodes a move, 100 games from random openings) they score 80%
//! (+246 Elo); switching single terms off moved the result by less than the matches' noise.
//!
//! The [`SearchGame`] implementation treats "must capture" as the search's "in check" (see
//! `in_check` below): forced captures are extended and never pruned, which is what lets the
//! search see shots (sacrifice, forced capture, multiple capture back).

use crate::SearchGame;
use draughts::{Color, Game, Kind, Move, MoveList, Position};
use game::Outcome;

/// Value of a man: the unit.
pub const MAN: i32 = 100;
/// Value of a king by default: about three men.
pub const KING: i32 = 300;

/// The evaluation's tunables. Each applies per side, from that side's view ("up" = towards the
/// opponent's back row, "row" = rows advanced from the own back row, 0..=8 for a man), and the
/// evaluation is the side to move's total minus the opponent's.
///
/// "Opening" and "endgame" weights are blended by the number of men on the board: all
/// opening with 40 men, all endgame with none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Value of a king. Default 300; sensible 250..=400.
    pub king: i32,
    /// Per man, by rows advanced (index 0 = own back row), with a full board. Small and
    /// even: advancing is needed, but a tempo lead in the middlegame is as often a weakness
    /// (the side further forward runs out of good moves first). Default 0, 0, 1, 2, 2, 3, 3,
    /// 4, 4; each entry 0..=20. (Twice these, with the endgame row doubled too, scored about
    /// 30 Elo worse over 320 games.)
    pub advance_opening: [i32; 9],
    /// Per man, by rows advanced, with an empty board: steeper, since in the endgame the first
    /// king usually decides. Default 0, 1, 3, 5, 7, 10, 14, 18, 24; each entry 0..=80.
    pub advance_endgame: [i32; 9],
    /// Per man on the own back row (squares 46-50 in White's view, in that order) while the
    /// opponent has men: 47, 48 and 49 keep enemy men from breaking through to promote,
    /// 46 and 50 less so. Default 2, 6, 5, 6, 2; each entry 0..=20.
    pub back_guard: [i32; 5],
    /// Per man on the central squares (22, 23, 24, 27, 28, 29 in White's view, in that order):
    /// men there split the opponent's position and support the attack on both wings; 23 and
    /// 28 sit on the two middle columns. Halved in the endgame. Default 5, 8, 3, 4, 10, 5; each
    /// entry 0..=25.
    pub centre: [i32; 6],
    /// Penalty per man of difference between the men on the left wing (columns 0-4) and the
    /// right (5-9): a side crowded on one wing gets its men locked and loses tempo battles.
    /// Default 3; range 0..=10.
    pub balance: i32,
    /// Per free forward step of a man (a step to an empty square): locked positions lose
    /// by zugzwang in draughts. Default 2; range 0..=6.
    pub mobility: i32,
    /// A runaway man (see the module docs) by rows still to go to the far row (index 1..=9; index
    /// 0 unused): most of the king it will become, less the further it has to run. Default 0,
    /// 160, 140, 120, 100, 80, 60, 40, 25, 10; each entry 0..=200.
    pub runaway: [i32; 10],
    /// Per king on the long diagonal (46-41-37-32-28-23-19-14-10-5): the diagonal that cuts
    /// the board in two, the key to most king endgames. Default 20; range 0..=60.
    pub king_diagonal: i32,
    /// Per square a king can move to. Default 1; range 0..=4.
    pub king_mobility: i32,
}

impl Weights {
    /// The weights the engine plays with.
    pub const DEFAULT: Weights = Weights {
        king: KING,
        advance_opening: [0, 0, 1, 2, 2, 3, 3, 4, 4],
        advance_endgame: [0, 1, 3, 5, 7, 10, 14, 18, 24],
        back_guard: [2, 6, 5, 6, 2],
        centre: [5, 8, 3, 4, 10, 5],
        balance: 3,
        mobility: 2,
        runaway: [0, 160, 140, 120, 100, 80, 60, 40, 25, 10],
        king_diagonal: 20,
        king_mobility: 1,
    };
}

impl Default for Weights {
    fn default() -> Weights {
        Weights::DEFAULT
    }
}

// Board geometry, in the layout of `Position::pieces_mask`: square n is bit (n-1) + (n-1)/10,
// with a ghost bit after every ten squares, so a diagonal step is the same shift everywhere
// (-6/-5 up, +5/+6 down) and a step off the board lands on a ghost or off the 64-bit word.

/// The 50 playable squares.
const BOARD: u64 = squares(1, 50);

/// Square `n`'s bit.
const fn bit(n: u32) -> u64 {
    1 << ((n - 1) + (n - 1) / 10)
}

/// Squares `lo..=hi`.
const fn squares(lo: u32, hi: u32) -> u64 {
    let mut m = 0;
    let mut n = lo;
    while n <= hi {
        m |= bit(n);
        n += 1;
    }
    m
}

/// Row of square `n`, 0 (squares 1-5, where White promotes) ..= 9 (46-50, White's back row).
const fn row_of(n: u32) -> u32 {
    (n - 1) / 5
}

/// Column of square `n`, 0..=9 from the left as White sees the board.
const fn column_of(n: u32) -> u32 {
    let i = (n - 1) % 5;
    if row_of(n) % 2 == 0 { 2 * i + 1 } else { 2 * i }
}

/// Turns a mask half a turn (square n to 51 - n): bit i goes to bit 53 - i, which is a bit
/// reversal of the 64-bit word moved down past the 10 unused top bits.
#[inline]
const fn rotate(m: u64) -> u64 {
    m.reverse_bits() >> 10
}

/// The own back row in White's view, 46-50.
const BACK_ROW: [u64; 5] = [bit(46), bit(47), bit(48), bit(49), bit(50)];
/// The central squares in White's view, in the order of [`Weights::centre`].
const CENTRE: [u64; 6] = [bit(22), bit(23), bit(24), bit(27), bit(28), bit(29)];
/// The long diagonal, 46 to 5 (the same squares from either side).
const LONG_DIAGONAL: u64 =
    bit(46) | bit(41) | bit(37) | bit(32) | bit(28) | bit(23) | bit(19) | bit(14) | bit(10) | bit(5);

/// Rows by rows advanced from White's back row: `ROWS[a]` is row `9 - a`.
const ROWS: [u64; 10] = {
    let mut t = [0; 10];
    let mut a = 0;
    while a < 10 {
        let r = 9 - a as u32;
        t[a] = squares(5 * r + 1, 5 * r + 5);
        a += 1;
    }
    t
};

/// Squares on columns `lo..=hi`.
const fn columns(lo: u32, hi: u32) -> u64 {
    let mut m = 0;
    let mut n = 1;
    while n <= 50 {
        let c = column_of(n);
        if c >= lo && c <= hi {
            m |= bit(n);
        }
        n += 1;
    }
    m
}

/// The left wing (columns 0-4) and the right wing (5-9).
const LEFT_WING: u64 = columns(0, 4);
const RIGHT_WING: u64 = columns(5, 9);

/// For a White man on each bit (index = bit): the squares ahead of it at most `margin` columns
/// beyond its cone (the squares k rows ahead and at most k columns aside, which it can reach),
/// and with `margin > 0` also the squares `margin` columns aside on its own row.
const fn cones(margin: u32) -> [u64; 64] {
    let mut t = [0; 64];
    let mut n = 1;
    while n <= 50 {
        let (r, c) = (row_of(n), column_of(n));
        let mut m = 0;
        let mut s = 1;
        while s <= 50 {
            let (rs, cs) = (row_of(s), column_of(s));
            let ahead = rs < r && cs.abs_diff(c) <= r - rs + margin;
            let beside = margin > 0 && rs == r && cs.abs_diff(c) == margin;
            if ahead || beside {
                m |= bit(s);
            }
            s += 1;
        }
        t[((n - 1) + (n - 1) / 10) as usize] = m;
        n += 1;
    }
    t
}

/// The squares a White man can reach on its way to promotion.
static CONE: [u64; 64] = cones(0);
/// Where an enemy man must not be for a White man to count as a runaway: its cone widened by
/// two columns on each side, and two columns aside on its own row. An enemy man outside the
/// cone can never get in front of the man (each of its steps towards it is matched by a step
/// away), but one just outside may stand beside the man's path and take it backwards when it
/// has to step next to it (at the edge of the board, or between two enemies); the wider zone
/// keeps those out too.
static WIDE_CONE: [u64; 64] = cones(2);

/// One side's pieces, seen from its own side (it moves up, towards squares 1-5).
#[derive(Copy, Clone)]
struct Side {
    men: u64,
    kings: u64,
}

impl Side {
    fn all(self) -> u64 {
        self.men | self.kings
    }
}

/// The sides of `pos` seen from `color`'s side: `color`'s pieces first.
fn sides(pos: &Position, color: Color) -> (Side, Side) {
    let kings = pos.kings_mask();
    let (own, opp) = (pos.pieces_mask(color), pos.pieces_mask(!color));
    let turn = |m: u64| if color == Color::White { m } else { rotate(m) };
    (
        Side { men: turn(own & !kings), kings: turn(own & kings) },
        Side { men: turn(opp & !kings), kings: turn(opp & kings) },
    )
}

/// A man of `us` on bit `i` whose path to the far row is clear: no piece in its cone, no
/// enemy man near enough to get in front of it, and no enemy king (which can catch anything).
#[inline]
fn runaway(i: u32, occupied: u64, them: Side) -> bool {
    them.kings == 0 && occupied & CONE[i as usize] == 0 && them.men & WIDE_CONE[i as usize] == 0
}

/// Squares the king on bit `i` can move to over `empty`.
fn king_reach(i: u32, empty: u64) -> u32 {
    let mut n = 0;
    for d in [-6i32, -5, 5, 6] {
        let mut j = i as i32 + d;
        while (0..64).contains(&j) && empty >> j & 1 != 0 {
            n += 1;
            j += d;
        }
    }
    n
}

/// `us`'s terms against `them` (both seen from `us`'s side), as (opening, endgame) scores;
/// the material is the same in both.
fn side_terms(us: Side, them: Side, w: &Weights) -> (i32, i32) {
    let occupied = us.all() | them.all();
    let empty = BOARD & !occupied;
    let count = |m: u64| m.count_ones() as i32;

    // Material.
    let material = count(us.men) * MAN + count(us.kings) * w.king;
    let (mut opening, mut endgame) = (material, material);

    // Advancement: the tempo count, by rows.
    for ((row, o), e) in ROWS.iter().zip(w.advance_opening).zip(w.advance_endgame).skip(1) {
        let n = count(us.men & row);
        opening += n * o;
        endgame += n * e;
    }

    // Back-row guard, while the opponent has men to break through with.
    if them.men != 0 {
        for (sq, v) in BACK_ROW.iter().zip(w.back_guard) {
            let g = count(us.men & sq) * v;
            opening += g;
            endgame += g;
        }
    }

    // Centre control, worth half as much once the board has emptied.
    for (sq, v) in CENTRE.iter().zip(w.centre) {
        let c = count(us.men & sq) * v;
        opening += c;
        endgame += c / 2;
    }

    // Balance between the wings.
    let imbalance = (count(us.men & LEFT_WING) - count(us.men & RIGHT_WING)).abs() * w.balance;
    opening -= imbalance;
    endgame -= imbalance;

    // Mobility of the men: free steps up-left (-6) and up-right (-5).
    let steps = count(us.men >> 6 & empty) + count(us.men >> 5 & empty);
    opening += steps * w.mobility;
    endgame += steps * w.mobility;

    // Runaway men (only men at least halfway up can have a clear cone in practice, but the
    // test is cheap, so every man is tried).
    if them.kings == 0 {
        let mut men = us.men;
        while men != 0 {
            let i = men.trailing_zeros();
            men &= men - 1;
            if runaway(i, occupied, them) {
                // Rows to go = the row, in White's view; bits 0-4 are row 0, 5-9 row 1, ...
                let row = row_of(i - i / 11 + 1);
                let r = w.runaway[row as usize];
                opening += r;
                endgame += r;
            }
        }
    }

    // Kings: the long diagonal, and room to move.
    if us.kings != 0 {
        let diagonal = count(us.kings & LONG_DIAGONAL) * w.king_diagonal;
        let mut reach = 0;
        let mut kings = us.kings;
        while kings != 0 {
            let i = kings.trailing_zeros();
            kings &= kings - 1;
            reach += king_reach(i, empty) as i32;
        }
        let k = diagonal + reach * w.king_mobility;
        opening += k;
        endgame += k;
    }

    (opening, endgame)
}

/// Static evaluation of `pos` from the side to move's view, with the default [`Weights`].
#[must_use]
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, &Weights::DEFAULT)
}

/// Static evaluation of `pos` from the side to move's view, with weights `w`.
#[must_use]
pub fn evaluate_with(pos: &Position, w: &Weights) -> i32 {
    let color = pos.side_to_move();
    // Each side's terms in its own view, the opponent turned to match.
    let (us, them) = sides(pos, color);
    let (o1, e1) = side_terms(us, them, w);
    let (them_own, us_turned) = sides(pos, !color);
    let (o2, e2) = side_terms(them_own, us_turned, w);
    let (opening, endgame) = (o1 - o2, e1 - e2);
    // Taper by the men left: 40 at the start.
    let men = (us.men.count_ones() + them.men.count_ones()).min(40) as i32;
    let score = (opening * men + endgame * (40 - men)) / 40;
    score / drawish(us, them)
}

/// How much a drawn-looking endgame divides the score by (1 otherwise): a lone king cannot be
/// beaten by one or two pieces one of which is a king, and holds against three from the long
/// diagonal (the material of the FMJD 5- and 16-move rules).
fn drawish(a: Side, b: Side) -> i32 {
    let lone_king = |s: Side| s.men == 0 && s.kings.count_ones() == 1;
    let (na, nb) = (a.all().count_ones(), b.all().count_ones());
    let (lone, strong, n) = if lone_king(a) && b.kings != 0 && nb <= 3 {
        (a, b, nb)
    } else if lone_king(b) && a.kings != 0 && na <= 3 {
        (b, a, na)
    } else {
        return 1;
    };
    if n <= 2 {
        return 16;
    }
    // Three against one: the lone king holds if it owns the long diagonal. Both sides'
    // masks are in their own views, but the diagonal is the same set of squares from either.
    if lone.kings & LONG_DIAGONAL != 0 && rotate(strong.all()) & LONG_DIAGONAL == 0 {
        return 4;
    }
    1
}

impl SearchGame for Game {
    /// Zugzwang is everywhere in draughts.
    const NULL_MOVE: bool = false;

    fn evaluate(&self) -> i32 {
        evaluate(self.position())
    }

    /// Draughts has no check, but a position where the side to move must capture plays the
    /// same part: the static evaluation means nothing there (the material is about to change)
    /// and the reply is forced. Answering true makes the search extend such nodes by a ply,
    /// skip its static-eval pruning at them, and never reduce or prune a move that forces a
    /// capture reply (a sacrifice, an exchange offer): what finds shots. Measured at 10,000 and
    /// 20,000 nodes a move against the same engine without it: +60 Elo over 300 games.
    fn in_check(&self) -> bool {
        self.position().has_capture()
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

#[cfg(test)]
mod tests {
    use super::*;
    use draughts::{Piece, Square};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn eval(fen: &str) -> i32 {
        evaluate(&Position::from_fen(fen).expect("fen"))
    }

    /// The position with colours swapped and the board turned, so the same side is to move
    /// in the same situation.
    fn mirrored(pos: &Position) -> Position {
        let mut m = Position::empty(!pos.side_to_move());
        for (s, p) in pos.iter() {
            m.put(s.rotate(), Piece { color: !p.color, kind: p.kind });
        }
        m
    }

    #[test]
    fn geometry() {
        assert_eq!(BOARD.count_ones(), 50);
        assert_eq!(rotate(bit(1)), bit(50));
        assert_eq!(rotate(bit(11)), bit(40));
        assert_eq!(rotate(BOARD), BOARD);
        assert_eq!(rotate(LONG_DIAGONAL), LONG_DIAGONAL);
        assert_eq!(LEFT_WING | RIGHT_WING, BOARD);
        assert_eq!(LEFT_WING.count_ones(), 25);
        // A man on 28 (row 5, column 4) reaches 22 and 23 in a step, 17-19 in two, all of row 0.
        let i = (27 + 27 / 10) as usize;
        assert_eq!(CONE[i] & squares(16, 30), bit(17) | bit(18) | bit(19) | bit(22) | bit(23));
        assert_eq!(CONE[i] & squares(1, 5), squares(1, 5));
        // Widened: 21-24 one row up, 16-20 two rows up, and 27 and 29 beside it.
        assert_eq!(WIDE_CONE[i] & squares(16, 30), squares(16, 24) | bit(27) | bit(29));
        for n in 1..=50 {
            let s = Square::new(n).expect("square");
            assert_eq!((row_of(n), column_of(n)), (s.row(), s.column()));
            assert_eq!(bit(n), 1 << s.bit_index());
        }
    }

    #[test]
    fn start_is_even_and_material_counts() {
        assert_eq!(eval(draughts::START_FEN), 0);
        assert!(eval("W:W31-50:B1-19") > 80);
        assert!(eval("B:W31-50:B1-19") < -80);
        // A king against a man, no men on the board otherwise.
        assert!(eval("W:WK28:B3") > 150);
    }

    #[test]
    fn symmetric_under_colour_swap() {
        let mut rng = StdRng::seed_from_u64(7);
        for _ in 0..200 {
            let mut pos = Position::startpos();
            for _ in 0..rng.random_range(0..120) {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos = pos.after(&moves[rng.random_range(0..moves.len())]);
                assert_eq!(evaluate(&pos), evaluate(&mirrored(&pos)), "{}", pos.fen());
            }
        }
    }

    #[test]
    fn runaway_men() {
        // White's man on 16 has a clear road; Black's men are far off on the other wing.
        let free = eval("W:W16,45:B15,20");
        // The same with a black man on 7 in its way.
        let blocked = eval("W:W16,45:B7,20");
        assert!(free > blocked + 80, "{free} {blocked}");
        // No runaway bonus against a king.
        assert!(eval("W:W16,45:BK15,20") < free - 200);
    }

    #[test]
    fn drawn_endgames_are_near_zero() {
        assert!(eval("W:WK28,K33:BK46").abs() < 40);
        assert!(eval("W:WK28,33:BK46").abs() < 40);
        assert!(eval("W:WK1,K2,K3:BK46").abs() < 150);
        assert!(eval("W:WK1,K2,K3,K4:BK46") > 500);
    }
}
