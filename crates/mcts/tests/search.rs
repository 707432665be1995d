//! The search's contracts: visit accounting, tree reuse, determinism, root noise, batching over
//! many trees, and the rules winning over the evaluator when choosing a move.

use game::Game;
use mcts::{
    EvalError, EvalRequest, Evaluation, Evaluator, FailAfter, MctsParams, Proof, Search, UniformEvaluator, search_many,
};
use proptest::prelude::*;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Mutex;

type Xq = xiangqi::Game;

fn xq(fen: &str) -> Xq {
    Xq::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn mv(game: &Xq, text: &str) -> xiangqi::Move {
    game.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A deterministic, uneven evaluator: value and priors hashed from the position key and the
/// moves, so trees are lopsided and depend on every detail of the search.
struct Hashed;

fn hash(x: impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

impl<G: Game> Evaluator<G> for Hashed {
    fn evaluate(&self, batch: &[EvalRequest<'_, G>]) -> Result<Vec<Evaluation>, EvalError> {
        Ok(batch
            .iter()
            .map(|r| {
                let key = r.game.key();
                let value = (hash(key) % 2001) as f32 / 1000.0 - 1.0;
                let raw: Vec<f32> = r.moves.iter().map(|m| 0.05 + (hash((key, m)) % 1000) as f32 / 1000.0).collect();
                let sum: f32 = raw.iter().sum();
                Evaluation { value: value * 0.8, priors: raw.iter().map(|x| x / sum).collect() }
            })
            .collect())
    }
}

/// The uniform evaluator, recording every batch size.
#[derive(Default)]
struct Counting(Mutex<Vec<usize>>);

impl<G: Game> Evaluator<G> for Counting {
    fn evaluate(&self, batch: &[EvalRequest<'_, G>]) -> Result<Vec<Evaluation>, EvalError> {
        self.0.lock().expect("lock").push(batch.len());
        UniformEvaluator.evaluate(batch)
    }
}

fn params(leaves: u32) -> MctsParams {
    MctsParams { leaves_per_batch: leaves, ..MctsParams::default() }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn root_visits_sum_to_the_simulations(
        leaves in 1u32..24,
        sims in 1u32..400,
        more in 0u32..100,
        virtual_loss in 0.0f32..3.0,
        fpu in 0.0f32..1.0,
    ) {
        let p = MctsParams { leaves_per_batch: leaves, virtual_loss, fpu_reduction: fpu, ..MctsParams::default() };
        let mut search = Search::new(Xq::new(), p, 3);
        let stats = search.run(&Hashed, sims).expect("searches");
        prop_assert_eq!(stats.simulations, u64::from(sims));
        prop_assert_eq!(search.root_visit_count(), sims);
        prop_assert!(stats.mean_batch <= f64::from(leaves));
        search.run(&Hashed, more).expect("searches");
        prop_assert_eq!(search.root_visit_count(), sims + more);
        let pi: f32 = search.policy_target().iter().map(|&(_, p)| p).sum();
        prop_assert!((pi - 1.0).abs() < 1e-4);
    }
}

#[test]
fn terminal_hits_count_as_simulations() {
    // Red mates with d8e8; the mate and every later visit to it are terminal hits.
    let mut search = Search::new(xq("4R4/3P1k3/5a3/9/6b2/9/9/4B4/9/2BA1K3 w - - 9 68"), params(8), 0);
    let stats = search.run(&UniformEvaluator, 500).expect("searches");
    assert!(stats.terminal_hits > 300, "{stats:?}");
    assert_eq!(stats.simulations, 500);
    assert_eq!(search.root_visit_count(), 500);
    assert_eq!(stats.positions_evaluated + stats.terminal_hits, 501, "root expansion + leaves + hits");
}

#[test]
fn tree_reuse_keeps_the_child_statistics() {
    let mut search = Search::new(Xq::new(), params(4), 1);
    search.run(&Hashed, 3000).expect("searches");
    let before = search.node_count();
    let child = search.root_stats().into_iter().max_by_key(|s| s.visits).expect("root moves");
    search.advance(child.mv);
    // The child's own evaluation is the one visit not below one of its moves.
    assert_eq!(search.root_visit_count(), child.visits - 1);
    let q = child.q.expect("visited");
    assert!((search.root_value() + q).abs() < 1e-5, "root value {} vs child Q {q}", search.root_value());
    assert!(search.node_count() > 1 && search.node_count() < before);
    let grandchild = search.root_stats().into_iter().max_by_key(|s| s.visits).expect("moves");
    search.run(&Hashed, 100).expect("searches");
    assert_eq!(search.root_visit_count(), child.visits - 1 + 100);
    // Twice more: reuse works on a reused tree.
    let visits = search.root_stats().into_iter().find(|s| s.mv == grandchild.mv).expect("same move").visits;
    search.advance(grandchild.mv);
    assert!(search.root_visit_count() + 1 >= visits - 100, "kept most of the grandchild's subtree");
    // A move never searched starts a fresh tree.
    let unvisited = search.root_stats().into_iter().find(|s| s.visits == 0);
    if let Some(s) = unvisited {
        search.advance(s.mv);
        assert_eq!(search.node_count(), 0);
        assert!(search.root_visits().is_empty());
    }
}

/// Plays `plies` moves with noise and temperature 1, returning every root's visits and moves.
fn self_play(seed: u64, plies: usize) -> Vec<(Vec<(xiangqi::Move, u32)>, xiangqi::Move)> {
    let mut search = Search::new(Xq::new(), params(4), seed);
    let mut record = Vec::new();
    for _ in 0..plies {
        search.add_root_noise();
        search.run(&Hashed, 400).expect("searches");
        let visits = search.root_visits();
        let mv = search.choose_move(1.0).expect("game goes on");
        record.push((visits, mv));
        search.advance(mv);
    }
    record
}

#[test]
fn the_same_seed_gives_the_same_search() {
    assert_eq!(self_play(7, 6), self_play(7, 6));
    let (a, b) = (self_play(7, 1), self_play(8, 1));
    assert_ne!(a[0].0, b[0].0, "the noise should change the visits");
}

#[test]
fn root_noise_keeps_priors_a_distribution() {
    let plain = {
        let mut s = Search::new(Xq::new(), params(8), 5);
        s.run(&Hashed, 1).expect("searches");
        s.root_stats()
    };
    // Asked for before the root exists: applied when it is expanded.
    let mut s = Search::new(Xq::new(), params(8), 5);
    s.add_root_noise();
    s.run(&Hashed, 1).expect("searches");
    let noisy = s.root_stats();
    let sum: f32 = noisy.iter().map(|m| m.prior).sum();
    assert!((sum - 1.0).abs() < 1e-4, "priors sum to {sum}");
    assert!(noisy.iter().all(|m| m.prior >= 0.0 && m.prior.is_finite()));
    let eps = s.params().dirichlet_epsilon;
    assert!(noisy.iter().zip(&plain).all(|(n, p)| n.prior >= (1.0 - eps) * p.prior - 1e-6));
    assert!(noisy.iter().zip(&plain).any(|(n, p)| (n.prior - p.prior).abs() > 1e-3));
    // Once per root.
    s.add_root_noise();
    assert_eq!(s.root_stats(), noisy);
    // Epsilon 0 changes nothing.
    let mut s = Search::new(Xq::new(), MctsParams { dirichlet_epsilon: 0.0, ..params(8) }, 5);
    s.add_root_noise();
    s.run(&Hashed, 1).expect("searches");
    assert_eq!(s.root_stats(), plain);
}

#[test]
fn many_trees_fill_one_batch() {
    let openings = ["h2e2", "b2e2", "h0g2", "c3c4", "g3g4", "b0c2", "a0a1", "i0i1"];
    let make = |leaves| -> Vec<Search<Xq>> {
        (0..64u64)
            .map(|i| {
                let mut game = Xq::new();
                let first = mv(&game, openings[i as usize % openings.len()]);
                game.play_unchecked(first);
                Search::new(game, params(leaves), i)
            })
            .collect()
    };
    // One leaf per tree per round: every call is exactly 64 positions (the first is the roots).
    let mut trees = make(1);
    let counting = Counting::default();
    let stats = search_many(&mut trees, &counting, 50).expect("searches");
    let sizes = counting.0.lock().expect("lock").clone();
    assert_eq!(sizes.len(), 51);
    assert!(sizes.iter().all(|&n| n == 64), "{sizes:?}");
    assert_eq!((stats.evaluator_calls, stats.positions_evaluated, stats.mean_batch), (51, 64 * 51, 64.0));
    assert!(trees.iter().all(|t| t.root_visit_count() == 50));
    // Four leaves per tree: up to 256 per call, collisions permitting.
    let mut trees = make(4);
    let counting = Counting::default();
    let stats = search_many(&mut trees, &counting, 200).expect("searches");
    let sizes = counting.0.lock().expect("lock").clone();
    assert!(sizes.iter().all(|&n| n <= 256));
    assert!(stats.mean_batch > 200.0, "{stats:?}");
    assert!(trees.iter().all(|t| t.root_visit_count() == 200));
    // A finished game in the slice is skipped; the others still run.
    let mut trees = make(2);
    trees[3] = Search::new(xq("R3k4/1R7/9/9/9/9/9/9/9/3K5 b"), params(2), 0);
    let stats = search_many(&mut trees, &UniformEvaluator, 20).expect("searches");
    assert_eq!(stats.simulations, 63 * 20);
    assert_eq!(trees[3].root_visit_count(), 0);
}

/// Uniform values, but nearly all prior mass on one move: a net that wants to play it.
struct Tempter(xiangqi::Move);

impl Evaluator<Xq> for Tempter {
    fn evaluate(&self, batch: &[EvalRequest<'_, Xq>]) -> Result<Vec<Evaluation>, EvalError> {
        Ok(batch
            .iter()
            .map(|r| {
                let n = r.moves.len() as f32;
                let priors = if r.moves.contains(&self.0) {
                    r.moves.iter().map(|&m| if m == self.0 { 0.99 } else { 0.01 / (n - 1.0) }).collect()
                } else {
                    vec![1.0 / n; r.moves.len()]
                };
                Evaluation { value: 0.5, priors }
            })
            .collect())
    }
}

#[test]
fn never_completes_a_perpetual_check() {
    // The red rook has checked the black king to and fro; playing h9h8 again makes the third
    // occurrence with red checking throughout: red loses by perpetual check.
    let mut game = xq("9/4k4/9/9/9/9/9/9/7R1/3K5 w");
    for text in "h1h8 e8e9 h8h9 e9e8 h9h8 e8e9 h8h9 e9e8".split_whitespace() {
        let m = mv(&game, text);
        game.play_unchecked(m);
    }
    let losing = mv(&game, "h9h8");
    for temperature in [0.0, 1.0] {
        for seed in 0..20 {
            let mut search = Search::new(game.clone(), params(8), seed);
            search.run(&Tempter(losing), 300).expect("searches");
            let stats = search.root_stats();
            let edge = stats.iter().find(|s| s.mv == losing).expect("h9h8 is legal");
            assert_eq!(edge.proof, Proof::Loss);
            assert_ne!(search.choose_move(temperature), Some(losing), "seed {seed}, temperature {temperature}");
        }
    }
}

#[test]
fn always_takes_a_mate_in_one() {
    let game = xq("2baka3/9/9/p3p4/9/7R1/5rP1P/4r4/3KA4/1cn6 b - - 15 36");
    let mate = mv(&game, "e2e1");
    for seed in 0..20 {
        let mut search = Search::new(game.clone(), params(8), seed);
        search.add_root_noise();
        search.run(&Hashed, 100).expect("searches");
        assert_eq!(search.choose_move(1.0), Some(mate), "seed {seed}");
    }
}

#[test]
fn a_finished_game_is_not_searched() {
    let mut search = Search::new(xq("R3k4/1R7/9/9/9/9/9/9/9/3K5 b"), params(8), 0);
    let stats = search.run(&UniformEvaluator, 100).expect("searches");
    assert_eq!((stats.simulations, stats.evaluator_calls), (0, 0));
    assert!(search.root_visits().is_empty());
    assert_eq!(search.choose_move(0.0), None);
    assert!(search.policy_target().is_empty());
}

#[test]
fn draughts_searches_too() {
    let mut search = Search::new(draughts::Game::new(), params(8), 0);
    search.add_root_noise();
    let stats = search.run(&Hashed, 1000).expect("searches");
    assert_eq!(search.root_visit_count(), 1000);
    assert!(stats.mean_batch > 4.0);
    let mv = search.choose_move(0.0).expect("a move");
    search.advance(mv);
    assert_eq!(search.game().ply(), 1);
}

/// Returns one prior too few.
struct Broken;

impl Evaluator<Xq> for Broken {
    fn evaluate(&self, batch: &[EvalRequest<'_, Xq>]) -> Result<Vec<Evaluation>, EvalError> {
        Ok(batch.iter().map(|r| Evaluation { value: 0.0, priors: vec![0.1; r.moves.len() - 1] }).collect())
    }
}

#[test]
fn a_broken_evaluator_is_caught() {
    let mut search = Search::new(Xq::new(), params(8), 0);
    let e = search.run(&Broken, 10).expect_err("one prior too few");
    assert!(matches!(e, EvalError::Contract(_)), "{e:?}");
    assert!(e.to_string().contains("43 priors for the 44 moves of position 0"), "{e}");
    // Nothing of the broken answer was kept: the tree searches on as if it had not happened.
    search.run(&Hashed, 10).expect("searches");
    assert_eq!(search.root_visit_count(), 10);
}

/// An evaluator that answers a batch with one evaluation too many.
struct TooMany;

impl Evaluator<Xq> for TooMany {
    fn evaluate(&self, batch: &[EvalRequest<'_, Xq>]) -> Result<Vec<Evaluation>, EvalError> {
        let mut out = UniformEvaluator.evaluate(batch)?;
        out.push(Evaluation { value: 0.0, priors: Vec::new() });
        Ok(out)
    }
}

#[test]
fn a_wrong_number_of_evaluations_is_an_error() {
    let e = Search::new(Xq::new(), params(8), 0).run(&TooMany, 10).expect_err("one too many");
    assert_eq!(e, EvalError::Contract("2 evaluations for 1 positions".into()));
}

#[test]
fn an_evaluator_error_is_returned_and_the_search_goes_on() {
    // The same seeded search, failing at call 5 of 10 and not at all: up to the failure both
    // trees agree, and the failed one searches on to the full count afterwards.
    let failing = FailAfter::new(Hashed, 5);
    let mut search = Search::new(Xq::new(), params(4), 3);
    let e = search.run(&failing, 100).expect_err("call 5 fails");
    assert_eq!(e, EvalError::Injected { call: 5 });
    assert_eq!(failing.calls(), 5, "the search stops at the first failure");
    let held = search.root_visit_count();
    assert!(held < 100);
    search.run(&Hashed, 100 - held).expect("searches");
    assert_eq!(search.root_visit_count(), 100);
    assert!(search.choose_move(0.0).is_some());
}
