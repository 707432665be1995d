//! The [`Evaluator`] interface between search and whatever judges positions,
//! [`UniformEvaluator`], the fake that stands beside the net in tests and benchmarks, and
//! [`FailAfter`], a wrapper that fails on a chosen call, for testing what callers do with an
//! [`EvalError`].
//!
//! Contract: a batch of positions (each a game with its history, and its legal moves in the
//! order the search keeps them) goes in; for each position, in the same order, comes back a
//! value in [-1, 1] **from the side to move's view** and one prior per listed move. The search
//! never sees policy indices: mapping moves to a net's outputs is the evaluator's business
//! (`nn`, through `encode`). The search clamps values into [-1, 1] and renormalises priors that
//! do not sum to 1, so an evaluator need not be exact about either; a wrong number of
//! evaluations or priors is a broken contract, which the search reports as
//! [`EvalError::Contract`].
//!
//! An evaluator that cannot answer (a forward pass or device copy that failed, an inference
//! thread that has stopped) returns an [`EvalError`] naming the cause, never made-up values:
//! a guessed evaluation would be searched, played and written into training data as if it were
//! the net's.

use game::Game;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// Why a batch got no evaluations. Every variant's message names the cause; an error is for the
/// whole batch (no position of it was evaluated).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EvalError {
    /// The backend failed: a forward pass, a copy to or from the device, an answer of the wrong
    /// size or with non-finite numbers, a request the net cannot take. The text says which.
    Backend(String),
    /// The evaluator has stopped (its inference thread ended or never started) and will answer
    /// nothing more.
    Stopped(String),
    /// The evaluator broke the [`Evaluator`] contract: a wrong number of evaluations, or of
    /// priors for a position.
    Contract(String),
    /// A failure planted by [`FailAfter`] on its `call`-th call (counting from 1).
    Injected {
        /// The call that failed.
        call: u64,
    },
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Backend(cause) => write!(f, "evaluation failed: {cause}"),
            EvalError::Stopped(cause) => write!(f, "the evaluator has stopped: {cause}"),
            EvalError::Contract(what) => write!(f, "the evaluator broke its contract: {what}"),
            EvalError::Injected { call } => write!(f, "injected evaluator failure on call {call}"),
        }
    }
}

impl std::error::Error for EvalError {}

/// Anything that judges a batch of positions: a net (`nn`), a fake, a rollout policy.
///
/// `Send + Sync` so one evaluator can serve trees searched on several threads.
pub trait Evaluator<G: Game>: Send + Sync {
    /// Evaluates every request of `batch`, returning exactly one [`Evaluation`] per request,
    /// in order, each with exactly one prior per move of its request.
    ///
    /// # Errors
    /// The batch could not be evaluated (see [`EvalError`]); nothing of it is answered.
    fn evaluate(&self, batch: &[EvalRequest<'_, G>]) -> Result<Vec<Evaluation>, EvalError>;
}

/// Value 0 and uniform priors for every position: search guided by the rules alone (terminal
/// positions still get their exact values), for tests and speed measurements. Never fails.
#[derive(Copy, Clone, Debug, Default)]
pub struct UniformEvaluator;

impl<G: Game> Evaluator<G> for UniformEvaluator {
    fn evaluate(&self, batch: &[EvalRequest<'_, G>]) -> Result<Vec<Evaluation>, EvalError> {
        Ok(batch
            .iter()
            .map(|request| {
                let n = request.moves.len().max(1);
                Evaluation { value: 0.0, priors: vec![1.0 / n as f32; request.moves.len()] }
            })
            .collect())
    }
}

/// For tests: answers with `inner` until its `fail_on`-th call (counting from 1), which fails
/// with [`EvalError::Injected`], and so does every call after it, as a backend that broke
/// stays broken. Calls are counted across threads; [`FailAfter::calls`] tells how many were
/// made, so a test can tell what happened before and after the failure.
#[derive(Debug, Default)]
pub struct FailAfter<E> {
    inner: E,
    fail_on: u64,
    calls: AtomicU64,
}

impl<E> FailAfter<E> {
    /// `inner` until call `fail_on` (counting from 1; 0 fails the first call too).
    #[must_use]
    pub fn new(inner: E, fail_on: u64) -> FailAfter<E> {
        FailAfter { inner, fail_on, calls: AtomicU64::new(0) }
    }

    /// Calls made so far, failed ones included.
    #[must_use]
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::SeqCst)
    }

    /// The number of the first call that fails.
    #[must_use]
    pub fn fail_on(&self) -> u64 {
        self.fail_on.max(1)
    }
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for FailAfter<E> {
    fn evaluate(&self, batch: &[EvalRequest<'_, G>]) -> Result<Vec<Evaluation>, EvalError> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        if call >= self.fail_on() {
            return Err(EvalError::Injected { call });
        }
        self.inner.evaluate(batch)
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
        let out = UniformEvaluator.evaluate(&batch).expect("never fails");
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].value, 0.0);
        assert_eq!(out[0].priors.len(), 44);
        assert!((out[0].priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn fail_after_fails_from_its_call_on() {
        let game = xiangqi::Game::new();
        let moves = game.legal_moves();
        let batch = [EvalRequest { game: &game, moves: moves.as_ref() }];
        let ev = FailAfter::new(UniformEvaluator, 3);
        assert!(ev.evaluate(&batch).is_ok());
        assert!(ev.evaluate(&batch).is_ok());
        assert_eq!(ev.evaluate(&batch), Err(EvalError::Injected { call: 3 }));
        assert_eq!(ev.evaluate(&batch), Err(EvalError::Injected { call: 4 }));
        assert_eq!(ev.calls(), 4);
        let e = EvalError::Injected { call: 3 };
        assert_eq!(e.to_string(), "injected evaluator failure on call 3");
        assert!(FailAfter::new(UniformEvaluator, 0).evaluate(&batch).is_err());
    }
}
