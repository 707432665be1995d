//! Synthetic shards of random games, for tests, benchmarks and smoke runs without self-play.
//!
//! Each game plays uniformly random legal moves from the start position until the game ends or
//! `max_plies` moves are played (a draw by the length cap then), and records a sample at every
//! ply: pi gives the move played 3 shares and up to three other legal moves 1 share each, so the
//! targets are legal-move distributions with a peak, like a search's. Everything is drawn from
//! the given seed.

use encode::Encode;
use game::{DrawReason, Outcome};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use shard::{GameRecorder, Header, Shard};

/// A shard of `games` random games of `G` (see the [module docs](self)), stamped with
/// `created_ms` and `worker` (which make its file name).
#[must_use]
pub fn random_shard<G: Encode>(seed: u64, games: usize, max_plies: usize, created_ms: u64, worker: &str) -> Shard {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut records = Vec::with_capacity(games);
    for g in 0..games {
        let mut game = G::new();
        let mut recorder = GameRecorder::new(seed.wrapping_mul(1_000_003).wrapping_add(g as u64), &game);
        let mut outcome = None;
        for _ in 0..max_plies {
            outcome = game.outcome();
            let moves = game.legal_moves();
            let moves = moves.as_ref();
            let (Some(&played), None) = (moves.choose(&mut rng), outcome) else { break };
            let mut visits = vec![(played, 3.0)];
            for _ in 0..3 {
                if let Some(&other) = moves.choose(&mut rng) {
                    if visits.iter().all(|&(m, _)| m != other) {
                        visits.push((other, 1.0));
                    }
                }
            }
            let value = rng.random_range(-1.0..=1.0);
            recorder.record_sample(&game, &visits, &[], value);
            recorder.record_move(&game, played);
            game.play_unchecked(played);
            outcome = None;
        }
        let outcome = outcome.or_else(|| game.outcome()).unwrap_or(Outcome::Draw(DrawReason::Cap));
        records.push(recorder.finish_outcome(outcome));
    }
    Shard {
        header: Header {
            game: G::NAME.to_owned(),
            encoding: G::ENCODING.id.to_owned(),
            model: "random".to_owned(),
            worker: worker.to_owned(),
            seed,
            created_ms,
        },
        games: records,
    }
}
