//! [`search_many`]: many trees, one evaluator. Every round gathers leaves from all trees into
//! one batch and makes one evaluator call, so a net sees full batches even though each game's
//! own tree gathers only a few leaves at a time (a few leaves per tree keep each search sharp;
//! many trees keep the batch large). A single tree's [`crate::Search::run`] is this with one
//! tree.
//!
//! The trees are searched one after another on the calling thread; to use several cores, give
//! each thread its own slice of trees and share one evaluator (`Evaluator: Sync`), which may
//! itself merge the threads' batches (`nn`'s inference service does).
//!
//! **When the evaluator fails** the call returns its [`EvalError`] at once. The leaves of that
//! round are dropped from every tree: their virtual visits are taken back and the nodes made
//! for them removed, so each tree holds what it held before the round plus the round's
//! terminal hits (exact values, backed up at once). The trees stay consistent: a caller may
//! read their statistics, choose and play a move, or search on (with the same or another
//! evaluator); a tree just holds fewer root visits than the call asked for. Nothing of a
//! failed call is made up: no position gets a value it was not given.

use crate::evaluator::{EvalError, EvalRequest, Evaluation, Evaluator};
use crate::search::Search;
use game::Game;

/// What a [`search_many`] (or [`crate::Search::run`]) call did.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct SearchStats {
    /// Simulations run: leaves evaluated plus terminal hits (root expansions excluded).
    pub simulations: u64,
    /// Calls to the evaluator.
    pub evaluator_calls: u64,
    /// Positions sent to the evaluator, root expansions included.
    pub positions_evaluated: u64,
    /// `positions_evaluated / evaluator_calls` (0 without calls).
    pub mean_batch: f64,
    /// Simulations that ended at a terminal or proven position, with no evaluation.
    pub terminal_hits: u64,
    /// Descents that reached a leaf already waiting in the batch (each ends its tree's round).
    pub collisions: u64,
}

impl SearchStats {
    /// Adds `other`'s counts to these and recomputes the mean batch.
    pub fn merge(&mut self, other: &SearchStats) {
        self.simulations += other.simulations;
        self.evaluator_calls += other.evaluator_calls;
        self.positions_evaluated += other.positions_evaluated;
        self.terminal_hits += other.terminal_hits;
        self.collisions += other.collisions;
        self.update_mean();
    }

    fn update_mean(&mut self) {
        self.mean_batch =
            if self.evaluator_calls == 0 { 0.0 } else { self.positions_evaluated as f64 / self.evaluator_calls as f64 };
    }
}

/// Runs `simulations` simulations on every tree of `trees` (none on a tree whose game is over),
/// batching the leaves of all trees into one evaluator call per round. Each tree's root ends up
/// with exactly `simulations` more visits.
///
/// # Errors
/// The evaluator's error, or [`EvalError::Contract`] when it answers with a wrong number of
/// evaluations or priors. The failed round's leaves are dropped and the trees left consistent
/// (see the module docs); the rounds before it stay in the trees.
pub fn search_many<G: Game>(
    trees: &mut [Search<G>],
    evaluator: &dyn Evaluator<G>,
    simulations: u32,
) -> Result<SearchStats, EvalError> {
    let mut stats = SearchStats::default();
    let mut budgets: Vec<u32> = trees.iter().map(|t| if t.is_over() { 0 } else { simulations }).collect();
    loop {
        for (tree, budget) in trees.iter_mut().zip(&mut budgets) {
            tree.gather(budget, &mut stats);
        }
        // A tree stops gathering without a leaf only when its budget is spent.
        let count: usize = trees.iter().map(Search::pending_len).sum();
        if count == 0 {
            debug_assert!(budgets.iter().all(|&b| b == 0));
            break;
        }
        // One small allocation per evaluator call: the requests borrow the trees, which are
        // mutated again right after.
        let mut requests: Vec<EvalRequest<'_, G>> = Vec::with_capacity(count);
        for tree in trees.iter() {
            tree.push_requests(&mut requests);
        }
        let answered = evaluator.evaluate(&requests).and_then(|evaluations| {
            check_answer(&requests, &evaluations)?;
            Ok(evaluations)
        });
        drop(requests);
        let evaluations = match answered {
            Ok(evaluations) => evaluations,
            Err(e) => {
                for tree in trees.iter_mut() {
                    tree.drop_round();
                }
                return Err(e);
            }
        };
        stats.evaluator_calls += 1;
        stats.positions_evaluated += count as u64;
        let mut evaluations = evaluations.into_iter();
        for tree in trees.iter_mut() {
            tree.apply(&mut evaluations);
        }
    }
    stats.update_mean();
    Ok(stats)
}

/// Checks an answer against the [`Evaluator`] contract before any of it is applied, so a broken
/// answer leaves the trees as a failed call does.
fn check_answer<G: Game>(requests: &[EvalRequest<'_, G>], evaluations: &[Evaluation]) -> Result<(), EvalError> {
    if evaluations.len() != requests.len() {
        return Err(EvalError::Contract(format!("{} evaluations for {} positions", evaluations.len(), requests.len())));
    }
    for (i, (request, eval)) in requests.iter().zip(evaluations).enumerate() {
        if eval.priors.len() != request.moves.len() {
            return Err(EvalError::Contract(format!(
                "{} priors for the {} moves of position {i} of the batch",
                eval.priors.len(),
                request.moves.len()
            )));
        }
    }
    Ok(())
}
