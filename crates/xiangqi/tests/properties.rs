//! Property tests: FEN round trip, incremental key, exact unmake, the legality filter against
//! brute force, and no panic on arbitrary text fed to the parsers.

use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use xiangqi::{Game, Move, Position, notation};

/// Plays up to `plies` random legal moves from the start position (or until the game ends),
/// calling `visit` before each move.
fn random_walk(seed: u64, plies: usize, mut visit: impl FnMut(&Position, Move)) -> Game {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut game = Game::new();
    for _ in 0..plies {
        if game.outcome().is_some() {
            break;
        }
        let moves = game.legal_moves();
        let mv = moves[rng.random_range(0..moves.len())];
        visit(game.position(), mv);
        game.play_unchecked(mv);
    }
    game
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn fen_round_trip(seed in any::<u64>(), plies in 0usize..300) {
        let game = random_walk(seed, plies, |_, _| {});
        let pos = game.position();
        let fen = pos.fen();
        // A walk that ends on the 120th ply without a capture has drawn the game by the
        // move-count rule; its FEN carries the clock 120, which FEN readers (ours as Pikafish's)
        // refuse: half-move clocks are 0..=119 in a game still going on.
        let clock: Option<u32> = fen.split_whitespace().nth(4).and_then(|c| c.parse().ok());
        if clock.is_some_and(|c| c >= 120) {
            prop_assert!(game.outcome().is_some(), "{}", fen);
            prop_assert!(Position::from_fen(&fen).is_err(), "{}", fen);
            return Ok(());
        }
        let parsed = Position::from_fen(&fen).map_err(|e| TestCaseError::fail(format!("{fen}: {e}")))?;
        prop_assert_eq!(&parsed, pos);
        prop_assert_eq!(parsed.fen(), fen);
    }

    #[test]
    fn incremental_key_matches_scratch(seed in any::<u64>(), plies in 0usize..300) {
        random_walk(seed, plies, |pos, mv| {
            assert_eq!(pos.key(), pos.key_from_scratch(), "{}", pos.fen());
            let next = pos.after(mv);
            assert_eq!(next.key(), next.key_from_scratch(), "{} after {mv}", pos.fen());
        });
    }

    #[test]
    fn unmake_restores_exactly(seed in any::<u64>(), plies in 0usize..300) {
        random_walk(seed, plies, |pos, _| {
            let mut scratch = pos.clone();
            for mv in pos.legal_moves() {
                let undo = scratch.make(mv);
                assert!(scratch.is_consistent(), "{} after {mv}", pos.fen());
                scratch.unmake(mv, undo);
                assert_eq!(&scratch, pos, "unmake of {mv}");
            }
        });
    }

    #[test]
    fn legal_moves_match_brute_force(seed in any::<u64>(), plies in 0usize..300) {
        random_walk(seed, plies, |pos, _| {
            let us = pos.side_to_move();
            let mut brute: Vec<Move> = pos
                .pseudo_legal_moves()
                .into_iter()
                .filter(|&m| pos.after(m).checkers_of(!us).is_empty())
                .collect();
            let mut fast = pos.legal_moves().to_vec();
            brute.sort();
            fast.sort();
            assert_eq!(fast, brute, "{}", pos.fen());
            assert_eq!(pos.count_legal(), brute.len());
            for &m in &fast {
                assert_eq!(pos.gives_check(m), pos.after(m).in_check());
            }
        });
    }

    #[test]
    fn fen_parser_never_panics(text in ".{0,120}") {
        let _ = Position::from_fen(&text);
    }

    #[test]
    fn fen_parser_never_panics_on_near_fens(text in "[rnbakcpRNBAKCPhe0-9/ wb-]{0,100}") {
        if let Ok(pos) = Position::from_fen(&text) {
            // Anything accepted must print and re-read to the same position.
            prop_assert_eq!(Position::from_fen(&pos.fen()).ok(), Some(pos));
        }
    }

    #[test]
    fn move_parsers_never_panic(text in ".{0,16}", seed in any::<u64>(), plies in 0usize..120) {
        let game = random_walk(seed, plies, |_, _| {});
        let pos = game.position();
        let _ = notation::parse_uci(&text);
        let _ = notation::parse_fsf(&text);
        let _ = notation::parse_wxf(pos, &text);
        let _ = notation::parse_chinese(pos, &text);
        let _ = notation::parse_move(pos, &text);
        let _ = notation::parse_move_strict(pos, &text);
    }

    #[test]
    fn move_parsers_never_panic_on_near_moves(text in "[KAEHRCPNBkaehrcpn1-9+=.\\-a-i0-9前后中一二三四五六七八九进退平车马炮兵卒将帅士仕象相]{0,6}", seed in any::<u64>()) {
        let game = random_walk(seed, 40, |_, _| {});
        let pos = game.position();
        if let Ok(mv) = notation::parse_move(pos, &text) {
            prop_assert!(pos.is_legal(mv));
        }
        if let Ok(mv) = notation::parse_move_strict(pos, &text) {
            prop_assert!(pos.is_legal(mv));
            prop_assert_eq!(mv.to_string(), text);
        }
    }
}
