//! The [`Evaluator`] interface between search and whatever judges positions, and
//! [`UniformEvaluator`], the fake that stands beside the net in tests and benchmarks.
//!
//! Contract: a batch of positions (each a game with its history, and its legal moves in the
//! order the search keeps them) goes in; for each position, in the same order, comes back a
//! value in [-1, 1] **from the side to move's view** and one prior per listed move. The search
//! never sees policy indices: mapping moves to a net's outputs is the evaluator's business
//! (`nn`, through `encode`). The search clamps values into [-1, 1] and renormalises priors that
//! do not sum to 1, so an evaluator need not be exact about either; a wrong number of
//! evaluations or priors is a broken contract and panics.

use game::Game;

/// One position for the evaluator.
#[derive(Debug)]
pub struct EvalRequest<'a, G: Game> {
    /// The game at the position, with its history (encoders may want the last few plies).
    pub game: &'a G,
    /// The legal moves of the position, in the order the priors must follow. Never empty: the
    /// search settles finished games itself.
    pub moves: &'a [G::Move],
}

/// The evaluator's answer for one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Expected result from the side to move's view, in [-1, 1] (+1 a win, -1 a loss).
    pub value: f32,
    /// One prior per move of the request, in the same order; non-negative, summing to 1.
    pub priors: Vec<f32>,
}

/// Anything that judges a batch of positions: a net (`nn`), a fake, a rollout policy.
///
/// `Send + Sync` so one evaluator can serve trees searched on several threads.
pub trait Evaluator<G: Game>: Send + Sync {
    /// Evaluates every request of `batch`, returning exactly one [`Evaluation`] per request,
    /// in order, each with exactly one prior per move of its request.
    fn evaluate(&self, batch: &[EvalRequest<'_, G>]) -> Vec<Evaluation>;
}

/// Value 0 and uniform priors for every position: search guided by the rules alone (terminal
/// positions still get their exact values), for tests and speed measurements.
#[derive(Copy, Clone, Debug, Default)]
pub struct UniformEvaluator;

impl<G: Game> Evaluator<G> for UniformEvaluator {
    fn evaluate(&self, batch: &[EvalRequest<'_, G>]) -> Vec<Evaluation> {
        batch
            .iter()
            .map(|request| {
                let n = request.moves.len().max(1);
                Evaluation { value: 0.0, priors: vec![1.0 / n as f32; request.moves.len()] }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_priors_sum_to_one() {
        let game = xiangqi::Game::new();
        let moves = game.legal_moves();
        let batch = [EvalRequest { game: &game, moves: moves.as_ref() }];
        let out = UniformEvaluator.evaluate(&batch);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].value, 0.0);
        assert_eq!(out[0].priors.len(), 44);
        assert!((out[0].priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
}
