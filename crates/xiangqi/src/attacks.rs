//! Attack tables for every piece kind, all computed at compile time: what each piece reaches
//! from a square given the occupancy, and which squares attack a square.
//!
//! # Sets of squares
//!
//! Every set here is a rank-major `u128`, the layout of [`Bitboard`]: square (file, rank) is
//! bit `rank * 9 + file`, so `Bitboard(mask)` wraps a result and
//! [`Position::occupied`](crate::Position::occupied) supplies an occupancy. Results never hold
//! bits 90 and above, and those bits of an occupancy are ignored.
//!
//! The slider lookups ([`rook`], [`cannon_captures`], [`cannon_control`]) also take the same
//! occupancy in *file-major* ("rotated") order, `occ_t`, where square (file, rank) is bit
//! `file * 10 + rank` ([`rotated_index`]): [`Position::occupied_rotated`] keeps it up to date
//! as moves are made, and [`rotate`] computes it for any set. If `occ_t` is not the rotation of
//! `occ`, the result is some set of squares on the slider's lines, but not a meaningful one.
//!
//! No function here panics: a [`Square`] is always on the board, and every `u128` is accepted.
//!
//! # How the lookups work
//!
//! Sliders (rook, cannon) are looked up per line: the 9-bit occupancy of the slider's rank
//! indexes a per-file table, and the 10-bit occupancy of its file (read from the file-major
//! occupancy mask) indexes a per-rank table. A file result is a 10-bit rank mask, spread back
//! onto the board by `FILE_SPREAD`. Each lookup is a shift, a mask and a load; no loops run
//! while generating moves.
//!
//! Leapers with blockers (horse, elephant) keep, per square and direction, the blocking
//! square and the targets it guards, so a lookup is four tests.
//!
//! [`Position::occupied_rotated`]: crate::Position::occupied_rotated

use crate::bitboard::{BOARD_MASK, Bitboard};
use crate::types::{Color, FILES, RANKS, SQUARES, Square};

/// Bit of square `(file, rank)` in a rank-major mask.
const fn bit(file: i32, rank: i32) -> u128 {
    1u128 << (rank as usize * FILES + file as usize)
}

const fn on_board(file: i32, rank: i32) -> bool {
    file >= 0 && file < FILES as i32 && rank >= 0 && rank < RANKS as i32
}

/// The bit of `sq` in the file-major ("rotated") occupancy: `file * 10 + rank`, 0..90.
#[inline]
#[must_use]
pub const fn rotated_index(sq: Square) -> usize {
    sq.file() * RANKS + sq.rank()
}

/// The file-major ("rotated") form of the rank-major set `occ`: what the slider lookups take as
/// `occ_t`. A loop over the set's squares, for sets built by hand; a [`Position`] keeps its own
/// up to date ([`Position::occupied_rotated`]).
///
/// [`Position`]: crate::Position
/// [`Position::occupied_rotated`]: crate::Position::occupied_rotated
#[must_use]
pub fn rotate(occ: u128) -> u128 {
    Bitboard(occ & BOARD_MASK).fold(0, |acc, sq| acc | 1u128 << rotated_index(sq))
}

/// What a slider standing on one square of a line reaches along it, each a mask of the line:
/// `(rook, cannon captures, cannon control)` as [`rook`], [`cannon_captures`] and
/// [`cannon_control`] define them.
const fn line_attacks(pos: i32, occ: u32, len: i32) -> (u16, u16, u16) {
    let (mut rook, mut captures, mut control) = (0u16, 0u16, 0u16);
    let mut dir = -1;
    while dir <= 1 {
        let mut i = pos + dir;
        let mut screened = false;
        while i >= 0 && i < len {
            let occupied = occ >> i & 1 != 0;
            if !screened {
                rook |= 1 << i;
                if occupied {
                    screened = true;
                }
            } else {
                control |= 1 << i;
                if occupied {
                    captures |= 1 << i;
                    break;
                }
            }
            i += dir;
        }
        dir += 2;
    }
    (rook, captures, control)
}

/// The slider tables of one line direction, `[square on the line][line occupancy]` -> mask of
/// the line, for lines of `LEN` squares (`OCC` = 2^`LEN`). One array per kind of reach rather
/// than one of triples, so a rook lookup touches only the rook table.
struct SliderTables<const LEN: usize, const OCC: usize> {
    rook: [[u16; OCC]; LEN],
    cannon_captures: [[u16; OCC]; LEN],
    cannon_control: [[u16; OCC]; LEN],
}

const fn slider_tables<const LEN: usize, const OCC: usize>() -> SliderTables<LEN, OCC> {
    let mut t =
        SliderTables { rook: [[0; OCC]; LEN], cannon_captures: [[0; OCC]; LEN], cannon_control: [[0; OCC]; LEN] };
    let mut p = 0;
    while p < LEN {
        let mut occ = 0;
        while occ < OCC {
            let (rook, captures, control) = line_attacks(p as i32, occ as u32, LEN as i32);
            t.rook[p][occ] = rook;
            t.cannon_captures[p][occ] = captures;
            t.cannon_control[p][occ] = control;
            occ += 1;
        }
        p += 1;
    }
    t
}

/// Along a rank: `[file][rank occupancy]` -> 9-bit masks.
static RANK_TABLES: SliderTables<FILES, 512> = slider_tables();
/// Along a file: `[rank][file occupancy]` -> 10-bit rank masks.
static FILE_TABLES: SliderTables<RANKS, 1024> = slider_tables();

const fn file_spread() -> [u128; 1024] {
    let mut t = [0u128; 1024];
    let mut m = 0;
    while m < 1024 {
        let mut r = 0;
        while r < RANKS {
            if m >> r & 1 != 0 {
                t[m] |= bit(0, r as i32);
            }
            r += 1;
        }
        m += 1;
    }
    t
}

/// A 10-bit rank mask placed on file `a` of the board; shift left by the file.
static FILE_SPREAD: [u128; 1024] = file_spread();

/// The reach of a slider on `sq` along its rank (from `rank_t`) and its file (from `file_t`),
/// placed on the board.
#[inline]
fn line_lookup(
    sq: Square,
    occ: u128,
    occ_t: u128,
    rank_t: &[[u16; 512]; FILES],
    file_t: &[[u16; 1024]; RANKS],
) -> u128 {
    let (f, r) = (sq.file(), sq.rank());
    let rank_occ = (occ >> (r * FILES)) as usize & 0x1ff;
    let file_occ = (occ_t >> (f * RANKS)) as usize & 0x3ff;
    (u128::from(rank_t[f][rank_occ]) << (r * FILES)) | (FILE_SPREAD[file_t[r][file_occ] as usize] << f)
}

/// The squares a rook on `sq` reaches with the board occupied by `occ` (rank-major) and
/// `occ_t` (the same set file-major): along its rank and file, every empty square up to and
/// including the first occupied one in each direction, whatever its colour. Remove the
/// rook's own pieces to get its moves. The rook's own square need not be in `occ`.
///
/// The same set is what a cannon on `sq` moves through: its quiet moves are
/// `rook(sq, occ, occ_t) & !occ`, and the occupied squares in it are its screens.
#[inline]
#[must_use]
pub fn rook(sq: Square, occ: u128, occ_t: u128) -> u128 {
    line_lookup(sq, occ, occ_t, &RANK_TABLES.rook, &FILE_TABLES.rook)
}

/// The squares a cannon on `sq` can capture on with the board occupied by `occ` and `occ_t`
/// (as for [`rook`]): in each direction, the first occupied square beyond the first occupied
/// one (the screen), whatever the colours. At most four squares; remove the cannon's own
/// pieces to get its captures.
#[inline]
#[must_use]
pub fn cannon_captures(sq: Square, occ: u128, occ_t: u128) -> u128 {
    line_lookup(sq, occ, occ_t, &RANK_TABLES.cannon_captures, &FILE_TABLES.cannon_captures)
}

/// The squares a cannon on `sq` controls with the board occupied by `occ` and `occ_t` (as for
/// [`rook`]): in each direction, every square beyond the screen up to and including the next
/// occupied one (to the edge if there is none). An enemy piece there can be captured, and one
/// arriving on an empty one of them could be. [`cannon_captures`] is its occupied part.
#[inline]
#[must_use]
pub fn cannon_control(sq: Square, occ: u128, occ_t: u128) -> u128 {
    line_lookup(sq, occ, occ_t, &RANK_TABLES.cannon_control, &FILE_TABLES.cannon_control)
}

/// A blocking square and the targets it guards.
#[derive(Copy, Clone)]
pub(crate) struct Guarded {
    /// The square that must be empty (horse leg, elephant eye, or the leg of a horse attacking).
    pub block: u128,
    /// The squares reached (or, for attacker tables, the squares attacked from) through it.
    pub targets: u128,
}

const NO_GUARD: Guarded = Guarded { block: 0, targets: 0 };
const ORTHO: [(i32, i32); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
const DIAG: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, -1), (-1, 1)];

const fn horse_tables() -> ([[Guarded; 4]; SQUARES], [[Guarded; 4]; SQUARES]) {
    let mut moves = [[NO_GUARD; 4]; SQUARES];
    let mut attackers = [[NO_GUARD; 4]; SQUARES];
    let mut s = 0;
    while s < SQUARES {
        let (f, r) = ((s % FILES) as i32, (s / FILES) as i32);
        let mut i = 0;
        while i < 4 {
            // Moves: leg one step orthogonally, then the two diagonal continuations.
            let (dx, dy) = ORTHO[i];
            if on_board(f + dx, r + dy) {
                let mut targets = 0;
                let (t1, t2) = if dx == 0 {
                    ((f + 1, r + 2 * dy), (f - 1, r + 2 * dy))
                } else {
                    ((f + 2 * dx, r + 1), (f + 2 * dx, r - 1))
                };
                if on_board(t1.0, t1.1) {
                    targets |= bit(t1.0, t1.1);
                }
                if on_board(t2.0, t2.1) {
                    targets |= bit(t2.0, t2.1);
                }
                moves[s][i] = Guarded { block: bit(f + dx, r + dy), targets };
            }
            // Attackers: a horse attacks `s` through a leg diagonally next to `s`; with the leg at
            // s + (a, b) the horse stands at s + (a, 2b) or s + (2a, b).
            let (a, b) = DIAG[i];
            if on_board(f + a, r + b) {
                let mut from = 0;
                if on_board(f + a, r + 2 * b) {
                    from |= bit(f + a, r + 2 * b);
                }
                if on_board(f + 2 * a, r + b) {
                    from |= bit(f + 2 * a, r + b);
                }
                attackers[s][i] = Guarded { block: bit(f + a, r + b), targets: from };
            }
            i += 1;
        }
        s += 1;
    }
    (moves, attackers)
}

const HORSE_TABLES: ([[Guarded; 4]; SQUARES], [[Guarded; 4]; SQUARES]) = horse_tables();
static HORSE_MOVES: [[Guarded; 4]; SQUARES] = HORSE_TABLES.0;
static HORSE_ATTACKERS: [[Guarded; 4]; SQUARES] = HORSE_TABLES.1;

#[inline]
fn guarded(table: &[Guarded; 4], occ: u128) -> u128 {
    let mut out = 0;
    for g in table {
        if g.block & occ == 0 {
            out |= g.targets;
        }
    }
    out
}

/// The squares a horse on `sq` reaches with the board occupied by `occ`: the up to eight
/// squares one step orthogonally then one diagonally outwards, less those whose first step (the
/// leg) is occupied. Whatever stands on the targets is still in the set; remove the horse's
/// own pieces to get its moves.
#[inline]
#[must_use]
pub fn horse(sq: Square, occ: u128) -> u128 {
    guarded(&HORSE_MOVES[sq.index()], occ)
}

/// The squares from which a horse would attack `sq` with the board occupied by `occ`: every
/// square whose [`horse`] set holds `sq`. Not the inverse step, because the leg lies next to the
/// horse, not next to `sq`. And it with the enemy horses to get the horses that attack `sq`.
#[inline]
#[must_use]
pub fn horse_attackers(sq: Square, occ: u128) -> u128 {
    guarded(&HORSE_ATTACKERS[sq.index()], occ)
}

/// The leg a horse on `from` needs empty to reach `to`, or `None` if `to` is not a horse step.
#[cfg(test)]
fn horse_leg(from: Square, to: Square) -> Option<Square> {
    let target = 1u128 << to.index();
    HORSE_MOVES[from.index()]
        .iter()
        .find(|g| g.targets & target != 0)
        .and_then(|g| Square::new(g.block.trailing_zeros() as usize))
}

/// The four diagonal neighbours of `sq` with the horse squares attacking `sq` through each.
pub(crate) fn horse_attack_legs(sq: Square) -> &'static [Guarded; 4] {
    &HORSE_ATTACKERS[sq.index()]
}

const fn elephant_table() -> [[Guarded; 4]; SQUARES] {
    let mut t = [[NO_GUARD; 4]; SQUARES];
    let mut s = 0;
    while s < SQUARES {
        let (f, r) = ((s % FILES) as i32, (s / FILES) as i32);
        let mut i = 0;
        while i < 4 {
            let (a, b) = DIAG[i];
            let (tf, tr) = (f + 2 * a, r + 2 * b);
            // Never across the river: the target stays on the same half as the origin.
            if on_board(tf, tr) && (tr <= 4) == (r <= 4) {
                t[s][i] = Guarded { block: bit(f + a, r + b), targets: bit(tf, tr) };
            }
            i += 1;
        }
        s += 1;
    }
    t
}

static ELEPHANT: [[Guarded; 4]; SQUARES] = elephant_table();

/// The squares an elephant on `sq` reaches with the board occupied by `occ`: two steps
/// diagonally, each only if the square between (the eye) is empty, and never across the river
/// (an elephant on ranks 0-4 stays on ranks 0-4, one on ranks 5-9 on ranks 5-9). Whatever stands
/// on the targets is still in the set. From an elephant's square this is also the set of
/// elephant squares that attack it.
#[inline]
#[must_use]
pub fn elephant(sq: Square, occ: u128) -> u128 {
    guarded(&ELEPHANT[sq.index()], occ)
}

const fn in_a_palace(f: i32, r: i32) -> bool {
    on_board(f, r) && f >= 3 && f <= 5 && (r <= 2 || r >= 7)
}

const fn step_tables() -> ([u128; SQUARES], [u128; SQUARES]) {
    let mut king = [0u128; SQUARES];
    let mut advisor = [0u128; SQUARES];
    let mut s = 0;
    while s < SQUARES {
        let (f, r) = ((s % FILES) as i32, (s / FILES) as i32);
        if in_a_palace(f, r) {
            let mut i = 0;
            while i < 4 {
                let (dx, dy) = ORTHO[i];
                if in_a_palace(f + dx, r + dy) && (r + dy <= 4) == (r <= 4) {
                    king[s] |= bit(f + dx, r + dy);
                }
                let (a, b) = DIAG[i];
                if in_a_palace(f + a, r + b) && (r + b <= 4) == (r <= 4) {
                    advisor[s] |= bit(f + a, r + b);
                }
                i += 1;
            }
        }
        s += 1;
    }
    (king, advisor)
}

const STEP_TABLES: ([u128; SQUARES], [u128; SQUARES]) = step_tables();
static KING: [u128; SQUARES] = STEP_TABLES.0;
static ADVISOR: [u128; SQUARES] = STEP_TABLES.1;

/// The squares a king on `sq` steps to: one step orthogonally, inside the palace `sq` is in.
/// Empty if `sq` is outside both palaces. Kings facing each other on an open file are not
/// here: that is [`rook`]'s line between them.
#[inline]
#[must_use]
pub fn king(sq: Square) -> u128 {
    KING[sq.index()]
}

/// The squares an advisor on `sq` steps to: one step diagonally, inside the palace `sq` is
/// in. Empty if `sq` is outside both palaces.
#[inline]
#[must_use]
pub fn advisor(sq: Square) -> u128 {
    ADVISOR[sq.index()]
}

const fn soldier_tables() -> ([[u128; SQUARES]; 2], [[u128; SQUARES]; 2]) {
    let mut moves = [[0u128; SQUARES]; 2];
    let mut attackers = [[0u128; SQUARES]; 2];
    let mut c = 0;
    while c < 2 {
        let fwd = if c == 0 { 1 } else { -1 };
        let mut s = 0;
        while s < SQUARES {
            let (f, r) = ((s % FILES) as i32, (s / FILES) as i32);
            let crossed = if c == 0 { r >= 5 } else { r <= 4 };
            let mut m = 0;
            if on_board(f, r + fwd) {
                m |= bit(f, r + fwd);
            }
            if crossed {
                if on_board(f - 1, r) {
                    m |= bit(f - 1, r);
                }
                if on_board(f + 1, r) {
                    m |= bit(f + 1, r);
                }
            }
            moves[c][s] = m;
            s += 1;
        }
        // Invert: attackers[c][t] = squares s with t in moves[c][s].
        let mut s2 = 0;
        while s2 < SQUARES {
            let mut t = 0;
            while t < SQUARES {
                if moves[c][s2] >> t & 1 != 0 {
                    attackers[c][t] |= 1u128 << s2;
                }
                t += 1;
            }
            s2 += 1;
        }
        c += 1;
    }
    (moves, attackers)
}

const SOLDIER_TABLES: ([[u128; SQUARES]; 2], [[u128; SQUARES]; 2]) = soldier_tables();
static SOLDIER: [[u128; SQUARES]; 2] = SOLDIER_TABLES.0;
static SOLDIER_ATTACKERS: [[u128; SQUARES]; 2] = SOLDIER_TABLES.1;

/// The squares a soldier of `color` on `sq` steps to: one step forward (towards the enemy's
/// side), and once across the river also one step sideways. Never backwards.
#[inline]
#[must_use]
pub fn soldier(color: Color, sq: Square) -> u128 {
    SOLDIER[color.index()][sq.index()]
}

/// The squares from which a soldier of `color` would attack `sq`: every square whose
/// [`soldier`] set for `color` holds `sq`.
#[inline]
#[must_use]
pub fn soldier_attackers(color: Color, sq: Square) -> u128 {
    SOLDIER_ATTACKERS[color.index()][sq.index()]
}

const fn line_tables() -> ([[u128; SQUARES]; SQUARES], [u128; SQUARES]) {
    let mut between = [[0u128; SQUARES]; SQUARES];
    let mut line = [0u128; SQUARES];
    let mut a = 0;
    while a < SQUARES {
        let (fa, ra) = ((a % FILES) as i32, (a / FILES) as i32);
        let mut i = 0;
        while i < 4 {
            let (dx, dy) = ORTHO[i];
            let mut acc = 0u128;
            let (mut f, mut r) = (fa + dx, ra + dy);
            while on_board(f, r) {
                let b = r as usize * FILES + f as usize;
                between[a][b] = acc;
                acc |= bit(f, r);
                line[a] |= bit(f, r);
                f += dx;
                r += dy;
            }
            i += 1;
        }
        a += 1;
    }
    (between, line)
}

const LINE_TABLES: ([[u128; SQUARES]; SQUARES], [u128; SQUARES]) = line_tables();
static BETWEEN: [[u128; SQUARES]; SQUARES] = LINE_TABLES.0;
static LINE: [u128; SQUARES] = LINE_TABLES.1;

/// The squares strictly between `a` and `b` if they share a rank or a file; empty otherwise
/// (and for `a == b` or neighbours). The number of pieces between two squares on a line is
/// `(between(a, b) & occ).count_ones()`.
#[inline]
#[must_use]
pub fn between(a: Square, b: Square) -> u128 {
    BETWEEN[a.index()][b.index()]
}

/// Every square on the rank and the file of `sq`, except `sq` itself (17 squares): the lines a
/// rook or cannon on `sq` could use on an empty board.
#[inline]
#[must_use]
pub fn line(sq: Square) -> u128 {
    LINE[sq.index()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::Bitboard;

    fn sq(s: &str) -> Square {
        Square::parse(s).expect("square")
    }

    fn occ_of(squares: &[&str]) -> (u128, u128) {
        let mut occ = 0;
        let mut occ_t = 0;
        for s in squares {
            occ |= 1u128 << sq(s).index();
            occ_t |= 1u128 << rotated_index(sq(s));
        }
        (occ, occ_t)
    }

    fn set(squares: &[&str]) -> u128 {
        squares.iter().fold(0, |acc, s| acc | 1u128 << sq(s).index())
    }

    #[test]
    fn rook_and_cannon_lines() {
        // Rook on e4, pieces on e6, e8, c4, h4.
        let (occ, occ_t) = occ_of(&["e4", "e6", "e8", "c4", "h4"]);
        let r = rook(sq("e4"), occ, occ_t);
        assert_eq!(r, set(&["e0", "e1", "e2", "e3", "e5", "e6", "c4", "d4", "f4", "g4", "h4"]));
        let c = cannon_captures(sq("e4"), occ, occ_t);
        assert_eq!(c, set(&["e8"]));
        let control = cannon_control(sq("e4"), occ, occ_t);
        assert_eq!(control, set(&["e7", "e8", "a4", "b4", "i4"]));
    }

    /// A cannon's lines walked square by square: (quiet moves, captures, control), the
    /// reference for the table lookups.
    fn cannon_walk(occ: u128, sq: Square) -> (u128, u128, u128) {
        let (file, rank) = (sq.file() as i32, sq.rank() as i32);
        let (mut quiet, mut captures, mut control) = (0, 0, 0);
        for (df, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let (mut f, mut r) = (file + df, rank + dr);
            let mut screened = false;
            while on_board(f, r) {
                let b = bit(f, r);
                if !screened {
                    if occ & b == 0 {
                        quiet |= b;
                    } else {
                        screened = true;
                    }
                } else {
                    control |= b;
                    if occ & b != 0 {
                        captures |= b;
                        break;
                    }
                }
                f += df;
                r += dr;
            }
        }
        (quiet, captures, control)
    }

    #[test]
    fn cannon_lookups_match_a_walk() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            // xorshift: a sparse random occupancy.
            let mut occ = 0u128;
            for _ in 0..3 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                occ |= u128::from(x) << (x % 40);
            }
            occ &= occ >> 3 & BOARD_MASK;
            let occ_t = rotate(occ);
            for s in Square::all() {
                let looked_up =
                    (rook(s, occ, occ_t) & !occ, cannon_captures(s, occ, occ_t), cannon_control(s, occ, occ_t));
                assert_eq!(looked_up, cannon_walk(occ, s), "{s} {occ:x}");
            }
        }
    }

    #[test]
    fn rotate_gives_the_file_major_set() {
        let (occ, occ_t) = occ_of(&["a0", "i9", "e4", "b7", "h1"]);
        assert_eq!(rotate(occ), occ_t);
        assert_eq!(rotate(BOARD_MASK), BOARD_MASK);
        assert_eq!(rotate(!0), BOARD_MASK, "bits beyond the board are ignored");
    }

    #[test]
    fn horse_legs() {
        // Horse on b0 with a piece on b1 (the leg towards b2) blocks a2 and c2.
        let occ = set(&["b1"]);
        assert_eq!(horse(sq("b0"), 0), set(&["a2", "c2", "d1"]));
        assert_eq!(horse(sq("b0"), occ), set(&["d1"]));
        assert_eq!(horse_leg(sq("b0"), sq("c2")), Some(sq("b1")));
        // A horse on c2 attacks b0 through the leg b1... the leg relative to b0 is c1's? No: the
        // leg is next to the horse: c2 -> b0 goes via c1.
        assert_eq!(horse_leg(sq("c2"), sq("b0")), Some(sq("c1")));
        assert!(horse_attackers(sq("b0"), 0) & set(&["c2"]) != 0);
        assert!(horse_attackers(sq("b0"), set(&["c1"])) & set(&["c2"]) == 0);
        // Symmetry: t in horse(s) <=> s in horse_attackers(t), for random occupancies.
        let occ = set(&["e4", "d5", "f3", "c2", "g6"]);
        for s in Square::all() {
            for t in Bitboard(horse(s, occ)) {
                assert!(horse_attackers(t, occ) >> s.index() & 1 != 0, "{s} -> {t}");
            }
        }
    }

    #[test]
    fn palace_and_river() {
        assert_eq!(king(sq("e1")), set(&["e0", "e2", "d1", "f1"]));
        assert_eq!(king(sq("d7")), set(&["d8", "e7"]));
        assert_eq!(advisor(sq("e8")), set(&["d7", "f7", "d9", "f9"]));
        assert_eq!(elephant(sq("c4"), 0), set(&["a2", "e2"]));
        assert_eq!(elephant(sq("c4"), set(&["d3"])), set(&["a2"]));
        assert_eq!(soldier(Color::Red, sq("c3")), set(&["c4"]));
        assert_eq!(soldier(Color::Red, sq("c5")), set(&["c6", "b5", "d5"]));
        assert_eq!(soldier(Color::Black, sq("a4")), set(&["a3", "b4"]));
        assert_eq!(soldier(Color::Red, sq("e9")), set(&["d9", "f9"]));
        assert_eq!(soldier_attackers(Color::Red, sq("e9")), set(&["e8", "d9", "f9"]));
        assert_eq!(between(sq("e0"), sq("e4")), set(&["e1", "e2", "e3"]));
        assert_eq!(between(sq("e0"), sq("f1")), 0);
        assert_eq!(line(sq("a0")).count_ones(), 17);
    }
}
