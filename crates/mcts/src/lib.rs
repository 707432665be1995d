//! PUCT Monte Carlo tree search for qizero, generic over [`game::Game`] and guided by an
//! [`Evaluator`] (a net in `nn`, or [`UniformEvaluator`] in tests). No libtorch here.
//!
//! - [`Evaluator`]: a batch of positions in, values and priors (or an [`EvalError`] naming the
//!   cause) out; [`FailAfter`] makes any evaluator fail on a chosen call, for tests.
//!
//! - [`Search`]: one tree for one game: batched leaf gathering with virtual loss, Dirichlet
//!   root noise, temperature move choice, tree reuse across moves ([`Search::advance`]).
//! - [`search_many`]: many trees feeding one evaluator, one call per round.
//! - [`MctsParams`]: every tunable, documented with unit, default and range.
//!
//! Conventions and choices:
//! - **Values** are from the side to move's view: an evaluator's value for a position, a node's
//!   value. An edge's Q is from the view of the player making the move (minus the value of the
//!   position it leads to). Backup negates exactly once per ply, in one function.
//! - **Selection**: `Q + c_puct * P * sqrt(max(1, sum N)) / (1 + N)`. Unvisited moves take the
//!   parent's Q minus `fpu_reduction * sqrt(prior mass already visited)` (Leela's first-play
//!   urgency; a separate reduction at the root).
//! - **Batching**: a tree gathers up to `leaves_per_batch` leaves per evaluator call; each
//!   waiting leaf puts a virtual visit worth `-virtual_loss` on every edge of its path. A
//!   collision (reaching a waiting leaf again) ends the tree's round.
//! - **Rules**: finished games are never evaluated. [`game::Game::outcome`] gives terminal
//!   values (mate, stalemate, repetition, perpetual check and chase, move-count draws); proofs
//!   propagate by minimax ([`Proof`]); the root's moves are all checked for an immediate result
//!   once per root; [`Search::choose_move`] always plays a proven win and never a proven loss
//!   while another move exists.
//! - **Simulations**: one per leaf evaluated or terminal reached; after `run(n)` the root's moves
//!   hold exactly `n` more visits. Expanding the root is free.
//! - **Tree reuse**: [`Search::advance`] keeps the played move's subtree, statistics and all.
//! - **Failures**: an evaluator error ends the call with that error; the failed round's leaves
//!   are dropped (virtual visits taken back) and the tree stays consistent and usable
//!   ([`search_many`]). The search never substitutes a value for a missing evaluation.
//! - **Determinism**: one seeded `StdRng` per tree (root noise, move sampling); the same seed,
//!   evaluator and calls give the same tree.
//!
//! Speed (uniform evaluator, one core, release build): see `examples/speed.rs`.

mod evaluator;
mod gumbel;
mod many;
mod noise;
mod params;
mod search;
mod tree;

pub use evaluator::{EvalError, EvalRequest, Evaluation, Evaluator, FailAfter, UniformEvaluator};
pub use gumbel::considered_visits;
pub use many::{SearchStats, search_many};
pub use params::{MctsParams, ParamsError, Root};
pub use search::{MoveStats, Search};
pub use tree::Proof;
