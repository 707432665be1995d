//! The random agent: a uniformly random legal move, from a seeded generator, so that the same
//! seed plays the same game against the same opponent.

use crate::agent::{Agent, AgentError};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Plays uniformly random legal moves.
pub struct RandomAgent {
    rng: StdRng,
}

impl RandomAgent {
    /// A random agent drawing from `seed`.
    #[must_use]
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent { rng: StdRng::seed_from_u64(seed) }
    }
}

impl<G: game::Game> Agent<G> for RandomAgent {
    fn name(&self) -> String {
        "random".to_string()
    }

    fn new_game(&mut self) -> Result<(), AgentError> {
        Ok(())
    }

    fn choose(&mut self, game: &G) -> Result<G::Move, AgentError> {
        let list = game.legal_moves();
        let moves = list.as_ref();
        if moves.is_empty() {
            return Err(AgentError::NoMove { agent: "random".to_string() });
        }
        Ok(moves[self.rng.random_range(0..moves.len())])
    }
}
