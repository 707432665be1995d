//! The engine's quiescence search as a teacher at the leaves of a net's tree.
//!
//! [`LeafTeacher`] wraps any [`mcts::Evaluator`]: each position's value becomes
//! `(1 - weight) x net + weight x tanh(quiescence / scale)`, AlphaGo's mixed leaf evaluation
//! (net value beside a rollout's result) with a capture search in place of the rollout. The
//! priors are the inner evaluator's, untouched. Self-play with it sees what a capture search
//! sees at every leaf (a piece left hanging, a capture that loses the capturer), so its search
//! values and the improved policies recorded from them punish what an untrained net's own
//! opponent never does.
//!
//! [`quiescence`] is the search's capture search on its own: no transposition table, no time
//! limit, a node cap instead.

use crate::{MATE, SearchGame};
use mcts::{EvalError, EvalRequest, Evaluation, Evaluator};
use std::sync::Arc;

/// The scale of `tanh(score / scale)` unless a config says otherwise: a soldier or a man (100)
/// reads 0.17, a xiangqi horse (430) 0.61, a rook (950) 0.92.
pub const DEFAULT_SCALE: f32 = 600.0;

/// Deepest quiescence line, plies.
const MAX_DEPTH: usize = 32;
const INFINITE: i32 = MATE + 1;

/// The capture-search score of `game` from the side to move's view, in the engine's units
/// (hundredths of the unit piece; mates are [`MATE`] minus the plies): stand pat on the static
/// evaluation or take what [`SearchGame::quiescence_moves`] offers, best first by
/// [`SearchGame::capture_order`]. Once `node_cap` nodes have been searched every further node
/// stands pat (0: the static evaluation alone). `game` is played on and restored.
pub fn quiescence<G: SearchGame>(game: &mut G, node_cap: u32) -> i32 {
    let mut nodes = 0;
    search(game, -INFINITE, INFINITE, 0, &mut nodes, node_cap)
}

fn search<G: SearchGame>(game: &mut G, mut alpha: i32, beta: i32, ply: usize, nodes: &mut u32, cap: u32) -> i32 {
    if *nodes >= cap || ply >= MAX_DEPTH {
        return game.evaluate();
    }
    *nodes += 1;
    let (mut list, stand_pat_allowed) = game.quiescence_moves();
    let moves = list.as_mut();
    if moves.is_empty() && !stand_pat_allowed {
        // Forced (in check, or obliged to capture) with nothing that qualifies: mated if
        // nothing is legal at all.
        return if game.legal_moves().as_ref().is_empty() { -MATE + ply as i32 } else { game.evaluate() };
    }
    let mut best = -INFINITE;
    if stand_pat_allowed {
        best = game.evaluate();
        if best >= beta {
            return best;
        }
        alpha = alpha.max(best);
    }
    moves.sort_by_cached_key(|mv| std::cmp::Reverse(game.capture_order(mv)));
    for &mv in moves.iter() {
        game.play_unchecked(mv);
        let score = -search(game, -beta, -alpha, ply + 1, nodes, cap);
        game.undo();
        if score > best {
            best = score;
            if score > alpha {
                alpha = score;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    best
}

/// An evaluator whose values are mixed with a capture search's; see the module docs.
pub struct LeafTeacher<G: SearchGame> {
    inner: Arc<dyn Evaluator<G>>,
    weight: f32,
    scale: f32,
    node_cap: u32,
}

impl<G: SearchGame> LeafTeacher<G> {
    /// Nodes one leaf's capture search may visit before it stands pat everywhere.
    pub const NODE_CAP: u32 = 2_000;

    /// `inner`'s priors, and its values mixed with `tanh(quiescence / scale)` at `weight`
    /// (0 = the inner evaluator alone, 1 = the capture search alone).
    #[must_use]
    pub fn new(inner: Arc<dyn Evaluator<G>>, weight: f32, scale: f32) -> LeafTeacher<G> {
        LeafTeacher { inner, weight: weight.clamp(0.0, 1.0), scale: scale.max(1.0), node_cap: Self::NODE_CAP }
    }

    /// The teacher's value of `game` alone: `tanh(quiescence / scale)`, side to move's view.
    #[must_use]
    pub fn teacher_value(&self, game: &G) -> f32 {
        let mut game = game.clone();
        let score = quiescence(&mut game, self.node_cap);
        (score as f32 / self.scale).tanh()
    }
}

impl<G: SearchGame> Evaluator<G> for LeafTeacher<G> {
    fn evaluate(&self, batch: &[EvalRequest<'_, G>]) -> Result<Vec<Evaluation>, EvalError> {
        let mut out = self.inner.evaluate(batch)?;
        if out.len() != batch.len() {
            // The search reports the broken contract; nothing to mix.
            return Ok(out);
        }
        for (evaluation, request) in out.iter_mut().zip(batch) {
            let taught = self.teacher_value(request.game);
            evaluation.value = (1.0 - self.weight) * evaluation.value + self.weight * taught;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::Game as _;
    use mcts::UniformEvaluator;

    /// Red to move, a rook each: red's rook on e0 takes black's on e5, which nothing retakes.
    const HANGING_ROOK: &str = "5k3/9/9/9/4r4/9/9/9/9/3KR4 w - - 0 1";

    #[test]
    fn quiescence_takes_a_hanging_piece() {
        let mut game = xiangqi::Game::from_fen(HANGING_ROOK).expect("fen");
        let before = game.fen();
        let stand_pat = game.evaluate();
        let score = quiescence(&mut game, 2_000);
        assert_eq!(game.fen(), before, "the position is restored");
        assert!(stand_pat.abs() < 300, "level material before the capture: {stand_pat}");
        assert!(score > 700, "a rook up after the capture: {score}");
    }

    #[test]
    fn the_node_cap_bounds_the_search() {
        let mut game = xiangqi::Game::from_fen(HANGING_ROOK).expect("fen");
        assert_eq!(quiescence(&mut game, 0), game.evaluate(), "no node to spend: stand pat");
        assert!(quiescence(&mut game, 1) > 700, "one node: the root looks at its captures");
    }

    #[test]
    fn a_mated_side_scores_a_mate() {
        // Black's king on d9, in check from the rook on a9, with a8's rook guarding d8.
        let mut game = xiangqi::Game::from_fen("R2k5/R8/9/9/9/9/9/9/9/5K3 b - - 0 1").expect("fen");
        assert!(game.legal_moves().as_ref().is_empty(), "mated");
        assert_eq!(quiescence(&mut game, 2_000), -MATE);
    }

    #[test]
    fn the_teacher_mixes_values_and_keeps_priors() {
        let game = xiangqi::Game::from_fen(HANGING_ROOK).expect("fen");
        let moves = game.legal_moves();
        let batch = [EvalRequest { game: &game, moves: moves.as_ref() }];
        let inner: Arc<dyn Evaluator<xiangqi::Game>> = Arc::new(UniformEvaluator);
        let uniform = inner.evaluate(&batch).expect("uniform");
        let half = LeafTeacher::new(Arc::clone(&inner), 0.5, 600.0);
        let all = LeafTeacher::new(Arc::clone(&inner), 1.0, 600.0);
        let none = LeafTeacher::new(inner, 0.0, 600.0);
        let taught = all.teacher_value(&game);
        assert!(taught > 0.0, "the capture search sees the free rook: {taught}");
        let out = half.evaluate(&batch).expect("mixed");
        assert_eq!(out[0].priors, uniform[0].priors);
        assert!((out[0].value - 0.5 * taught).abs() < 1e-6, "{} against half of {taught}", out[0].value);
        assert!((all.evaluate(&batch).expect("all")[0].value - taught).abs() < 1e-6);
        assert_eq!(none.evaluate(&batch).expect("none")[0].value, 0.0);
    }
}
