//! Property tests: FEN round trip, incremental key, exact unmake, consistency of counting and
//! listing, and no panic on arbitrary text fed to the parsers.

use draughts::{Move, Position, notation};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Plays up to `plies` random legal moves from the start position, calling `visit` before each.
fn random_walk(seed: u64, plies: usize, mut visit: impl FnMut(&Position, &Move)) -> Position {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut pos = Position::startpos();
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mv = moves[rng.random_range(0..moves.len())];
        visit(&pos, &mv);
        pos.make(&mv);
    }
    pos
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn fen_round_trip(seed in any::<u64>(), plies in 0usize..150) {
        let pos = random_walk(seed, plies, |_, _| {});
        let fen = pos.fen();
        let parsed = Position::from_fen(&fen).map_err(|e| TestCaseError::fail(format!("{fen}: {e}")))?;
        prop_assert_eq!(parsed, pos);
        prop_assert_eq!(parsed.fen(), fen);
    }

    #[test]
    fn incremental_key_matches_scratch(seed in any::<u64>(), plies in 0usize..150) {
        random_walk(seed, plies, |pos, mv| {
            assert_eq!(pos.key(), pos.key_from_scratch());
            let next = pos.after(mv);
            assert!(next.is_consistent(), "{} after {mv}", pos.fen());
        });
    }

    #[test]
    fn unmake_restores_exactly(seed in any::<u64>(), plies in 0usize..150) {
        random_walk(seed, plies, |pos, _| {
            let mut scratch = *pos;
            for mv in &pos.legal_moves() {
                let undo = scratch.make(mv);
                scratch.unmake(undo);
                assert_eq!(&scratch, pos, "unmake of {mv}");
            }
            assert_eq!(pos.count_legal(), pos.legal_moves().len(), "{}", pos.fen());
        });
    }

    #[test]
    fn fen_parser_never_panics(text in ".{0,120}") {
        let _ = Position::from_fen(&text);
    }

    #[test]
    fn fen_parser_never_panics_on_near_fens(text in "[WBKwbk0-9,:. -]{0,80}") {
        if let Ok(pos) = Position::from_fen(&text) {
            prop_assert_eq!(Position::from_fen(&pos.fen()).ok(), Some(pos));
        }
    }

    #[test]
    fn move_parsers_never_panic(text in ".{0,24}", seed in any::<u64>(), plies in 0usize..80) {
        let pos = random_walk(seed, plies, |_, _| {});
        let _ = notation::parse_pdn(&pos, &text);
        let _ = notation::parse_hub(&pos, &text);
        let _ = notation::parse_move(&pos, &text);
        let _ = notation::parse_move_strict(&pos, &text);
    }

    #[test]
    fn move_parsers_never_panic_on_near_moves(text in "[0-9x-]{0,20}", seed in any::<u64>(), plies in 0usize..80) {
        let pos = random_walk(seed, plies, |_, _| {});
        if let Ok(mv) = notation::parse_move(&pos, &text) {
            prop_assert!(pos.is_legal(&mv));
        }
        if let Ok(mv) = notation::parse_move_strict(&pos, &text) {
            prop_assert!(pos.is_legal(&mv));
            prop_assert_eq!(mv.to_string(), text);
        }
    }
}
