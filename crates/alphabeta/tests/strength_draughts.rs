//! A floor on draughts playing strength: a depth-3 search must beat a random mover in every
//! game, playing either colour. Seeded, so the games are the same on every run.

use alphabeta::{Limits, Searcher};
use draughts::Game;
use game::Side;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[test]
fn depth_three_beats_random_moves() {
    let mut lost = Vec::new();
    for seed in 0..10 {
        let mut rng = StdRng::seed_from_u64(seed);
        let engine = if seed % 2 == 0 { Side::First } else { Side::Second };
        let mut game = Game::new();
        let mut searcher = Searcher::new(4);
        let outcome = loop {
            if let Some(outcome) = game.outcome() {
                break outcome;
            }
            let mv = if game::Game::side_to_move(&game) == engine {
                searcher.search(&game, &Limits::depth(3), |_| {}).best.expect("a legal move")
            } else {
                let moves = game.legal_moves();
                moves[rng.random_range(0..moves.len())]
            };
            game.play_unchecked(mv);
        };
        if outcome.winner() != Some(engine) {
            lost.push(format!("seed {seed}: {outcome:?} after {} plies", game.ply()));
        }
    }
    assert!(lost.is_empty(), "the engine did not win:\n{}", lost.join("\n"));
}
