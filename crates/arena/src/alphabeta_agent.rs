//! Our alpha-beta engine as an agent, in process: a [`Searcher`] with its own table, searching
//! each position within the spec's limits, optionally playing from the shipped opening book.
//!
//! On a clock ([`Agent::choose_timed`]) the searcher budgets the time itself
//! ([`alphabeta::Limits::time_budget`]: a share of the time left plus most of the increment);
//! the spec's own limits, if any, still apply, and the match's default movetime does not.

use crate::ArenaGame;
use crate::agent::{Agent, AgentError, MoveClock};
use crate::spec::AlphaBetaSpec;
use alphabeta::book::Book;
use alphabeta::{Limits, Searcher};
use engine::Go;
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::time::Duration;

/// The alpha-beta engine playing game `G`.
pub struct AlphaBetaAgent<G: ArenaGame> {
    name: String,
    searcher: Searcher,
    /// The spec's limits, as given (perhaps none).
    go: Go,
    /// What an untimed move searches: the spec's limits, or the match's movetime.
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
            go: spec.go.clone(),
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
        let limits = self.limits.clone();
        self.play(game, &limits)
    }

    fn choose_timed(&mut self, game: &G, clock: &MoveClock) -> Result<G::Move, AgentError> {
        let limits = clock.apply(&self.go).limits();
        self.play(game, &limits)
    }
}

impl<G: ArenaGame> AlphaBetaAgent<G> {
    /// A book move if the book has the position, else the search's best within `limits`.
    fn play(&mut self, game: &G, limits: &Limits) -> Result<G::Move, AgentError> {
        if let Some(mv) = self.book.as_ref().and_then(|b| b.pick(game, &mut self.rng)) {
            return Ok(mv);
        }
        self.searcher.search(game, limits, |_| {}).best.ok_or_else(|| AgentError::NoMove { agent: self.name.clone() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::go::Clock;
    use std::time::Instant;

    fn agent(go: Go) -> AlphaBetaAgent<xiangqi::Game> {
        // A default movetime no test waits for: only the clock or the spec can stop the search.
        AlphaBetaAgent::new("ab", &AlphaBetaSpec { go, hash_mb: 1, book: false }, Duration::from_secs(30), 1)
    }

    fn on(left_ms: u64) -> MoveClock {
        let clock = Clock { left: Duration::from_millis(left_ms), increment: Duration::ZERO };
        MoveClock { own: clock, other: clock, moves_to_go: None }
    }

    #[test]
    fn on_a_clock_the_search_spends_a_share_of_the_time_left() {
        let started = Instant::now();
        agent(Go::default()).choose_timed(&xiangqi::Game::new(), &on(600)).expect("a move");
        // A thirtieth of 600 ms; well under the clock even on a busy machine.
        let took = started.elapsed();
        assert!(took < Duration::from_millis(300), "{took:?}");
    }

    #[test]
    fn the_spec_limits_still_apply_on_a_clock() {
        let started = Instant::now();
        agent(Go::depth(1)).choose_timed(&xiangqi::Game::new(), &on(600_000)).expect("a move");
        // Twenty seconds' budget, but depth 1.
        let took = started.elapsed();
        assert!(took < Duration::from_secs(2), "{took:?}");
    }
}
