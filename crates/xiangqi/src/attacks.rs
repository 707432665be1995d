//! Attack tables, all computed at compile time.
//!
//! Sliders (rook, cannon) are looked up per line: the 9-bit occupancy of the slider's rank
//! indexes a per-file table, and the 10-bit occupancy of its file (read from the file-major
//! occupancy mask, where square (f, r) is bit `f * 10 + r`) indexes a per-rank table. A file
//! result is a 10-bit rank mask, spread back onto the board by [`FILE_SPREAD`]. Each lookup is
//! a shift, a mask and a load; no loops run while generating moves.
//!
//! Leapers with blockers (horse, elephant) keep, per square and direction, the blocking
//! square and the targets it guards, so a lookup is four tests.

use crate::types::{Color, FILES, RANKS, SQUARES, Square};

/// Bit of square `(file, rank)` in a rank-major mask.
const fn bit(file: i32, rank: i32) -> u128 {
    1u128 << (rank as usize * FILES + file as usize)
}

const fn on_board(file: i32, rank: i32) -> bool {
    file >= 0 && file < FILES as i32 && rank >= 0 && rank < RANKS as i32
}

/// Index of square `(file, rank)` in the file-major occupancy mask.
#[inline]
#[must_use]
pub const fn rotated_index(sq: Square) -> usize {
    sq.file() * RANKS + sq.rank()
}

/// For a slider at `pos` on a line of `len` squares with occupancy `occ`: the squares it
/// reaches (empty ones and the first piece in each direction) and the squares a cannon captures
/// on (the first piece beyond the first piece).
const fn line_attacks(pos: i32, occ: u32, len: i32) -> (u16, u16) {
    let mut rook = 0u16;
    let mut cannon = 0u16;
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
            } else if occupied {
                cannon |= 1 << i;
                break;
            }
            i += dir;
        }
        dir += 2;
    }
    (rook, cannon)
}

const fn rank_tables() -> ([[u16; 512]; FILES], [[u16; 512]; FILES]) {
    let mut rook = [[0u16; 512]; FILES];
    let mut cannon = [[0u16; 512]; FILES];
    let mut f = 0;
    while f < FILES {
        let mut occ = 0;
        while occ < 512 {
            let (r, c) = line_attacks(f as i32, occ as u32, FILES as i32);
            rook[f][occ] = r;
            cannon[f][occ] = c;
            occ += 1;
        }
        f += 1;
    }
    (rook, cannon)
}

const fn file_tables() -> ([[u16; 1024]; RANKS], [[u16; 1024]; RANKS]) {
    let mut rook = [[0u16; 1024]; RANKS];
    let mut cannon = [[0u16; 1024]; RANKS];
    let mut r = 0;
    while r < RANKS {
        let mut occ = 0;
        while occ < 1024 {
            let (a, c) = line_attacks(r as i32, occ as u32, RANKS as i32);
            rook[r][occ] = a;
            cannon[r][occ] = c;
            occ += 1;
        }
        r += 1;
    }
    (rook, cannon)
}

const RANK_TABLES: ([[u16; 512]; FILES], [[u16; 512]; FILES]) = rank_tables();
const FILE_TABLES: ([[u16; 1024]; RANKS], [[u16; 1024]; RANKS]) = file_tables();

/// Rook reach along a rank: `[file][rank occupancy]` -> 9-bit mask.
static RANK_ROOK: [[u16; 512]; FILES] = RANK_TABLES.0;
/// Cannon captures along a rank.
static RANK_CANNON: [[u16; 512]; FILES] = RANK_TABLES.1;
/// Rook reach along a file: `[rank][file occupancy]` -> 10-bit rank mask.
static FILE_ROOK: [[u16; 1024]; RANKS] = FILE_TABLES.0;
/// Cannon captures along a file.
static FILE_CANNON: [[u16; 1024]; RANKS] = FILE_TABLES.1;

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

/// Squares a rook on `sq` reaches (empty squares and the first piece in each direction).
#[inline]
#[must_use]
pub fn rook(sq: Square, occ: u128, occ_t: u128) -> u128 {
    line_lookup(sq, occ, occ_t, &RANK_ROOK, &FILE_ROOK)
}

/// Squares a cannon on `sq` captures on (the first piece beyond a screen, any colour).
#[inline]
#[must_use]
pub fn cannon_captures(sq: Square, occ: u128, occ_t: u128) -> u128 {
    line_lookup(sq, occ, occ_t, &RANK_CANNON, &FILE_CANNON)
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

/// Squares a horse on `sq` reaches, given the occupancy (legs must be empty).
#[inline]
#[must_use]
pub fn horse(sq: Square, occ: u128) -> u128 {
    guarded(&HORSE_MOVES[sq.index()], occ)
}

/// Squares from which a horse would attack `sq`, given the occupancy.
#[inline]
#[must_use]
pub fn horse_attackers(sq: Square, occ: u128) -> u128 {
    guarded(&HORSE_ATTACKERS[sq.index()], occ)
}

#[cfg(test)]
/// The leg a horse on `from` needs empty to reach `to`, or `None` if `to` is not a horse step.
#[must_use]
pub fn horse_leg(from: Square, to: Square) -> Option<Square> {
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

/// Squares an elephant on `sq` reaches (eye empty, own side of the river).
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

/// Squares a king on `sq` steps to (inside its palace). Empty outside the palaces.
#[inline]
#[must_use]
pub fn king(sq: Square) -> u128 {
    KING[sq.index()]
}

/// Squares an advisor on `sq` steps to (inside its palace). Empty outside the palaces.
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

/// Squares a soldier of `color` on `sq` steps to.
#[inline]
#[must_use]
pub fn soldier(color: Color, sq: Square) -> u128 {
    SOLDIER[color.index()][sq.index()]
}

/// Squares from which a soldier of `color` attacks `sq`.
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

/// Squares strictly between `a` and `b` if they share a rank or file; empty otherwise.
#[inline]
#[must_use]
pub fn between(a: Square, b: Square) -> u128 {
    BETWEEN[a.index()][b.index()]
}

/// All squares on the rank and file of `sq`, except `sq`.
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
