//! Zobrist keys: one random 64-bit number per (colour, kind, square) and one for Black to move.
//! Generated at compile time by SplitMix64 from a fixed seed, so keys (and therefore every
//! hash-dependent result such as a search signature) are the same on every build.

#[cfg(test)]
use crate::types::Kind;
use crate::types::{Color, Piece, SQUARES, Square};

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (s, z ^ (z >> 31))
}

const fn keys() -> ([[[u64; SQUARES]; 7]; 2], u64) {
    let mut t = [[[0u64; SQUARES]; 7]; 2];
    let mut state = 0x5131_7a65_726f_0001; // "Qizero" + 1
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 7 {
            let mut s = 0;
            while s < SQUARES {
                let (ns, v) = splitmix(state);
                state = ns;
                t[c][k][s] = v;
                s += 1;
            }
            k += 1;
        }
        c += 1;
    }
    let (_, side) = splitmix(state);
    (t, side)
}

const KEYS: ([[[u64; SQUARES]; 7]; 2], u64) = keys();
static PIECE_KEYS: [[[u64; SQUARES]; 7]; 2] = KEYS.0;

/// Toggled when Black is to move.
pub const BLACK_TO_MOVE: u64 = KEYS.1;

/// The key of `piece` standing on `sq`.
#[inline]
#[must_use]
pub fn piece(piece: Piece, sq: Square) -> u64 {
    PIECE_KEYS[piece.color.index()][piece.kind.index()][sq.index()]
}

/// The key of the side to move: zero for Red.
#[inline]
#[must_use]
pub const fn side(color: Color) -> u64 {
    match color {
        Color::Red => 0,
        Color::Black => BLACK_TO_MOVE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn keys_are_distinct() {
        let mut seen = HashSet::new();
        for c in Color::BOTH {
            for k in Kind::ALL {
                for s in Square::all() {
                    assert!(seen.insert(piece(Piece::new(c, k), s)));
                }
            }
        }
        assert!(seen.insert(BLACK_TO_MOVE));
    }
}
