//! Our alpha-beta engine as an agent, in process: a [`Searcher`] with its own table, searching
//! each position within the spec's limits, optionally playing from the shipped opening book.

use crate::ArenaGame;
use crate::agent::{Agent, AgentError};
use crate::spec::AlphaBetaSpec;
use alphabeta::book::Book;
use alphabeta::{Limits, Searcher};
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::time::Duration;

/// The alpha-beta engine playing game `G`.
pub struct AlphaBetaAgent<G: ArenaGame> {
    name: String,
    searcher: Searcher,
    limits: Limits,
    book: Option<Book<G>>,
    rng: StdRng,
}

impl<G: ArenaGame> AlphaBetaAgent<G> {
    /// An agent searching within `spec`'s limits (or `movetime` per move when it sets none);
    /// `seed` drives the choice among book moves. `name` names it in records.
    #[must_use]
    pub fn new(name: &str, spec: &AlphaBetaSpec, movetime: Duration, seed: u64) -> AlphaBetaAgent<G> {
        AlphaBetaAgent {
            name: name.to_string(),
            searcher: Searcher::new(spec.hash_mb),
            limits: spec.go.or_movetime(movetime).limits(),
            book: spec.book.then(G::shipped_book),
            rng: StdRng::seed_from_u64(seed),
        }
    }
}

impl<G: ArenaGame> Agent<G> for AlphaBetaAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) -> Result<(), AgentError> {
        self.searcher.clear();
        Ok(())
    }

    fn choose(&mut self, game: &G) -> Result<G::Move, AgentError> {
        if let Some(mv) = self.book.as_ref().and_then(|b| b.pick(game, &mut self.rng)) {
            return Ok(mv);
        }
        self.searcher
            .search(game, &self.limits, |_| {})
            .best
            .ok_or_else(|| AgentError::NoMove { agent: self.name.clone() })
    }
}
