use super::*;
use crate::evaluator::{FailAfter, UniformEvaluator};

/// What a consistent tree looks like between rounds: no virtual visit left, no node waiting
/// for an evaluation, every child link inside the arena, and each expanded node's visits its
/// own evaluation plus its edges' visits.
fn assert_consistent<G: Game>(search: &Search<G>) {
    let tree = &search.tree;
    assert!(search.pending.is_empty() && search.paths.is_empty());
    assert_eq!(tree.edges.len(), tree.moves.len());
    for (i, node) in tree.nodes.iter().enumerate() {
        assert_eq!(node.in_flight, 0, "node {i} keeps a virtual visit");
        assert!(node.expanded, "node {i} waits for an evaluation that will not come");
        let range = tree.edge_range(i as u32);
        assert!(range.end <= tree.edges.len());
        let below: u32 = tree.edges[range.clone()].iter().map(|e| e.n).sum();
        assert_eq!(node.n, 1 + below, "node {i}: visits are its evaluation plus its edges'");
        for e in &tree.edges[range] {
            assert_eq!(e.in_flight, 0, "an edge of node {i} keeps a virtual visit");
            assert!(e.child == NONE || (e.child as usize) < tree.nodes.len());
        }
    }
}

fn params() -> MctsParams {
    MctsParams { leaves_per_batch: 8, ..MctsParams::default() }
}

/// Values every position by the first move played after `root_ply`: all positions below
/// root move `a` are worth `q(a)` to the root's mover (a hash of the move's text, one move
/// made clearly best), with uniform priors. So each root move's Q is exactly its `q`.
struct KnownValues {
    root_ply: usize,
    best: String,
}

impl KnownValues {
    fn q(&self, mv: &str) -> f32 {
        if mv == self.best {
            return 0.9;
        }
        let h = mv.bytes().fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
        (h % 1000) as f32 / 1000.0 * 1.2 - 0.6
    }
}

impl Evaluator<xiangqi::Game> for KnownValues {
    fn evaluate(&self, batch: &[EvalRequest<'_, xiangqi::Game>]) -> Result<Vec<Evaluation>, EvalError> {
        Ok(batch
            .iter()
            .map(|r| {
                let played = r.game.moves_played();
                let value = match played.get(self.root_ply) {
                    None => 0.0,
                    Some(&first) => {
                        let mut at = r.game.clone();
                        while at.ply() > self.root_ply {
                            at.undo();
                        }
                        let q = self.q(&at.move_to_string(first));
                        // q is the root mover's; the side to move here sees it negated an
                        // odd number of plies below the root.
                        if (r.game.ply() - self.root_ply) % 2 == 1 { -q } else { q }
                    }
                };
                Evaluation { value, priors: vec![1.0 / r.moves.len() as f32; r.moves.len()] }
            })
            .collect())
    }
}

fn gumbel_params(considered: u32) -> MctsParams {
    MctsParams {
        leaves_per_batch: 4,
        gumbel_considered: considered,
        root: crate::Root::Gumbel,
        ..MctsParams::default()
    }
}

#[test]
fn sequential_halving_picks_the_best_considered_move() {
    let game = xiangqi::Game::new();
    let best = "h2e2".to_owned();
    let eval = KnownValues { root_ply: 0, best: best.clone() };
    // Every one of the 44 moves considered: the best of all is found.
    let mut search = Search::new(game.clone(), gumbel_params(64), 3);
    search.start_gumbel(200);
    search.run(&eval, 200).expect("searches");
    assert_eq!(search.root_visit_count(), 200);
    let mv = search.choose_move(0.0).expect("a move");
    assert_eq!(game.move_to_string(mv), best);
    for (q, s) in search.root_stats().iter().filter_map(|s| s.q.map(|q| (q, s))) {
        let want = eval.q(&game.move_to_string(s.mv));
        assert!((q - want).abs() < 1e-5, "Q of {:?} is its known value", s.mv);
    }
    // 16 of 44 considered, over many seeds: the move played is always the best of the moves
    // the search visited, and exactly min(16, 44) moves were visited. The known values lie
    // about 0.03 apart; c_scale 10 makes that worth more than the Gumbel draws differ
    // (the halving keeps the best by g + log P + sigma(Q), so at c_scale 1 a slightly
    // better move can lose a phase to a luckier draw, as the algorithm intends).
    for seed in 0..20 {
        let params = MctsParams { gumbel_c_scale: 10.0, ..gumbel_params(16) };
        let mut search = Search::new(game.clone(), params, seed);
        search.start_gumbel(48);
        search.run(&eval, 48).expect("searches");
        let stats = search.root_stats();
        let visited: Vec<_> = stats.iter().filter(|s| s.visits > 0).collect();
        assert_eq!(visited.len(), 16, "seed {seed}");
        let top = visited
            .iter()
            .max_by(|a, b| eval.q(&game.move_to_string(a.mv)).total_cmp(&eval.q(&game.move_to_string(b.mv))))
            .map(|s| s.mv);
        assert_eq!(search.choose_move(0.0), top, "seed {seed}");
        // With the draws included (temperature > 0) it is the same: the values are far
        // apart next to the draws.
        assert_eq!(search.choose_move(1.0), top, "seed {seed}");
        // The halving plan: 16 x 1, 8 x 2, 4 x 5, 2 x 11 visits = 48 (as planned).
        let mut visits: Vec<u32> = visited.iter().map(|s| s.visits).collect();
        visits.sort_unstable_by(|a, b| b.cmp(a));
        assert_eq!(&visits[..2], &[11, 11], "seed {seed}: {visits:?}");
        assert_eq!(visits.iter().sum::<u32>(), 48);
    }
}

/// Without the draws the plan is the same for every seed: it considers the moves of the
/// highest priors and plays the best of them by Q.
#[test]
fn the_greedy_plan_is_the_same_for_every_seed() {
    let game = xiangqi::Game::new();
    let eval = KnownValues { root_ply: 0, best: "h2e2".to_owned() };
    let mut played = Vec::new();
    for seed in 0..8 {
        let mut search = Search::new(game.clone(), gumbel_params(16), seed);
        search.start_gumbel_greedy(48);
        search.run(&eval, 48).expect("searches");
        let visited: Vec<String> =
            search.root_stats().iter().filter(|s| s.visits > 0).map(|s| game.move_to_string(s.mv)).collect();
        assert_eq!(visited.len(), 16, "seed {seed}");
        played.push((visited, search.choose_move(1.0).map(|m| game.move_to_string(m))));
    }
    assert!(played.windows(2).all(|w| w[0] == w[1]), "{played:?}");
    let mut noisy = Vec::new();
    for seed in 0..8 {
        let mut search = Search::new(game.clone(), gumbel_params(16), seed);
        search.start_gumbel(48);
        search.run(&eval, 48).expect("searches");
        noisy.push(search.root_stats().iter().filter(|s| s.visits > 0).map(|s| s.mv).collect::<Vec<_>>());
    }
    assert!(noisy.windows(2).any(|w| w[0] != w[1]), "with the draws, the considered moves vary with the seed");
}

#[test]
fn gumbel_draws_vary_with_the_seed_and_follow_it() {
    let game = xiangqi::Game::new();
    let played = |seed| {
        let mut search = Search::new(game.clone(), gumbel_params(16), seed);
        search.start_gumbel(16);
        search.run(&UniformEvaluator, 16).expect("searches");
        search.choose_move(1.0)
    };
    assert_eq!(played(1), played(1));
    let distinct: std::collections::HashSet<_> = (0..12).map(played).collect();
    assert!(distinct.len() > 3, "a uniform net's Gumbel root samples many moves: {distinct:?}");
}

/// Priors collapsed onto the first legal move (all but 1e-4 of the mass), every value 0: a net
/// whose policy has collapsed, as the shipped xiangqi net's has at most positions.
struct Collapsed;

impl<G: Game> Evaluator<G> for Collapsed {
    fn evaluate(&self, batch: &[EvalRequest<'_, G>]) -> Result<Vec<Evaluation>, EvalError> {
        Ok(batch
            .iter()
            .map(|r| {
                let n = r.moves.len();
                let mut priors = vec![1e-4 / n.saturating_sub(1).max(1) as f32; n];
                if let Some(first) = priors.first_mut() {
                    *first = 1.0 - 1e-4;
                }
                Evaluation { value: 0.0, priors }
            })
            .collect())
    }
}

/// A temperature of 1 is the paper's search, draw for draw; above 1 the Gumbel draws are
/// scaled up, so a net whose priors collapsed onto one move still plays varied moves.
#[test]
fn a_tempered_gumbel_root_spreads_the_moves_of_a_collapsed_prior() {
    let game = xiangqi::Game::new();
    let first = game.legal_moves().as_ref()[0];
    let run = |seed: u64, temperature: Option<f32>| {
        let mut search = Search::new(game.clone(), gumbel_params(16), seed);
        match temperature {
            Some(t) => search.start_gumbel_tempered(16, t),
            None => search.start_gumbel(16),
        }
        search.run(&Collapsed, 16).expect("searches");
        let visits: Vec<u32> = search.root_stats().iter().map(|s| s.visits).collect();
        (search.choose_move(temperature.unwrap_or(1.0)).expect("a move"), visits)
    };
    for seed in 0..6 {
        assert_eq!(run(seed, Some(1.0)), run(seed, None), "seed {seed}: temperature 1 is start_gumbel");
    }
    let played = |t: f32| -> Vec<_> { (0..40).map(|seed| run(seed, Some(t)).0).collect() };
    // A logit gap of about 13 next to Gumbel draws of scale 1: always the collapsed move.
    assert!(played(1.0).iter().all(|&m| m == first));
    // At temperature 8 the gap is about 1.6 next to the draws: many moves.
    let hot = played(8.0);
    let distinct: std::collections::HashSet<_> = hot.iter().collect();
    let firsts = hot.iter().filter(|&&m| m == first).count();
    assert!(distinct.len() > 5, "{} distinct moves", distinct.len());
    assert!(firsts < 30, "the collapsed move {firsts} times in 40");
}

#[test]
fn gumbel_improved_policy_prefers_what_the_search_found() {
    let game = xiangqi::Game::new();
    let eval = KnownValues { root_ply: 0, best: "h2e2".to_owned() };
    let mut search = Search::new(game.clone(), gumbel_params(64), 9);
    search.start_gumbel(100);
    search.run(&eval, 100).expect("searches");
    let improved = search.improved_policy();
    assert_eq!(improved.len(), 44);
    assert!((improved.iter().map(|&(_, p)| p).sum::<f32>() - 1.0).abs() < 1e-5);
    let (top, share) = improved.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1)).expect("moves");
    assert_eq!(game.move_to_string(top), "h2e2");
    assert!(share > 0.5, "{share}");
}

#[test]
fn gumbel_plan_survives_reuse_and_failure() {
    let game = xiangqi::Game::new();
    let mut search = Search::new(game, gumbel_params(16), 4);
    search.start_gumbel(32);
    let failing = FailAfter::new(UniformEvaluator, 3);
    assert!(search.run(&failing, 32).is_err());
    assert_consistent(&search);
    let held = search.root_visit_count();
    search.run(&UniformEvaluator, 32 - held).expect("searches on");
    assert_eq!(search.root_visit_count(), 32);
    let mv = search.choose_move(1.0).expect("a move");
    search.advance(mv);
    assert!(!search.gumbel_active(), "a new root has no plan until asked");
    let kept = search.root_visit_count();
    search.start_gumbel(16);
    search.run(&UniformEvaluator, 16).expect("searches");
    assert_eq!(search.root_visit_count(), kept + 16);
    assert_consistent(&search);
}

#[test]
fn a_failed_round_leaves_a_consistent_tree() {
    for fail_on in [2, 3, 7] {
        let mut search = Search::new(xiangqi::Game::new(), params(), 5);
        let failing = FailAfter::new(UniformEvaluator, fail_on);
        let e = search.run(&failing, 200).expect_err("the evaluator fails");
        assert_eq!(e, EvalError::Injected { call: fail_on });
        assert_consistent(&search);
        let before = search.root_visit_count();
        // Call 1 expands the root; each later call completes one round of 8 leaves.
        assert_eq!(before, 8 * (fail_on as u32 - 2), "call {fail_on}");
        // The tree searches on with another evaluator, every visit counted.
        search.run(&UniformEvaluator, 100).expect("searches");
        assert_consistent(&search);
        assert_eq!(search.root_visit_count(), before + 100);
        let mv = search.choose_move(0.0).expect("a move");
        search.advance(mv);
        assert_consistent(&search);
    }
}

#[test]
fn a_failed_root_expansion_leaves_an_empty_tree() {
    let mut search = Search::new(xiangqi::Game::new(), params(), 5);
    search.add_root_noise();
    assert!(search.run(&FailAfter::new(UniformEvaluator, 1), 50).is_err());
    assert_eq!(search.node_count(), 0);
    assert!(search.root_visits().is_empty());
    search.run(&UniformEvaluator, 50).expect("searches");
    assert_consistent(&search);
    assert_eq!(search.root_visit_count(), 50);
}

#[test]
fn a_failed_call_drops_the_round_of_every_tree() {
    let mut trees: Vec<Search<xiangqi::Game>> =
        (0..6).map(|i| Search::new(xiangqi::Game::new(), params(), i)).collect();
    let failing = FailAfter::new(UniformEvaluator, 4);
    assert!(search_many(&mut trees, &failing, 100).is_err());
    for tree in &trees {
        assert_consistent(tree);
        assert!(tree.root_visit_count() < 100);
    }
    search_many(&mut trees, &UniformEvaluator, 10).expect("searches");
    trees.iter().for_each(assert_consistent);
}

#[test]
fn principal_variation_follows_the_most_visited_moves() {
    let mut search = Search::new(xiangqi::Game::new(), params(), 3);
    assert!(search.principal_variation(10).is_empty(), "nothing before a search");
    assert_eq!(search.depth_stats(), (0.0, 0));
    assert!(search.run(&UniformEvaluator, 400).is_ok());
    let pv = search.principal_variation(10);
    assert!(pv.len() >= 2, "400 simulations reach below the root: {pv:?}");
    assert_eq!(Some(pv[0]), search.choose_move(0.0), "the PV starts with the move played");
    // Every move of the line is legal where it is played, and the line is the most visited.
    let mut game = xiangqi::Game::new();
    for &mv in &pv {
        assert!(game.legal_moves().as_ref().contains(&mv), "{mv:?} is not legal in the line");
        game.play_unchecked(mv);
    }
    assert_eq!(search.principal_variation(1), pv[..1]);
    let (mean, max) = search.depth_stats();
    assert!(mean >= 1.0 && f64::from(max) >= mean, "mean {mean}, max {max}");
    assert!(max as usize >= pv.len(), "the PV lies inside the tree");
}

#[test]
fn depth_stats_count_every_expanded_position() {
    // With one simulation per root move of a fresh tree, every node sits one ply down.
    let mut search = Search::new(draughts::Game::new(), MctsParams { leaves_per_batch: 1, ..params() }, 1);
    let moves = draughts::Game::new().legal_moves().as_ref().len();
    assert!(search.run(&UniformEvaluator, 1).is_ok());
    assert_eq!(search.depth_stats(), (1.0, 1));
    assert!(search.run(&UniformEvaluator, (moves * 3) as u32).is_ok());
    let (mean, max) = search.depth_stats();
    assert!(mean > 1.0 && max >= 2, "mean {mean}, max {max}");
}

/// The start position with Red's and Black's horses shuffled out and back once and then out
/// again: Black's `g7h9` now makes the third occurrence, a draw by repetition.
fn before_a_repetition() -> (xiangqi::Game, xiangqi::Move) {
    let mut game = xiangqi::Game::new();
    for mv in "h2e2 h9g7 e2h2 g7h9 h2e2 h9g7 e2h2".split(' ') {
        let mv = game.parse_move(mv).expect("legal");
        game.play_unchecked(mv);
    }
    let repeat = game.parse_move("g7h9").expect("legal");
    (game, repeat)
}

#[test]
fn a_repetition_is_an_exact_draw_without_a_penalty() {
    let (game, repeat) = before_a_repetition();
    let mut search = Search::new(game, params(), 1);
    assert!(search.run(&UniformEvaluator, 600).is_ok());
    let stats = search.root_stats();
    let edge = stats.iter().find(|s| s.mv == repeat).expect("a root move");
    assert_eq!(edge.proof, Proof::Draw);
    assert_consistent(&search);
}

#[test]
fn the_repetition_penalty_charges_the_side_that_repeats() {
    let (game, repeat) = before_a_repetition();
    let penalty = 0.25;
    let params = MctsParams { repetition_penalty: penalty, ..params() };
    let mut search = Search::new(game, params, 1);
    assert!(search.run(&UniformEvaluator, 600).is_ok());
    let stats = search.root_stats();
    let edge = stats.iter().find(|s| s.mv == repeat).expect("a root move");
    // Not a proven draw any more but a charged repetition, known before any visit (the
    // root's moves are all tried once): each visit backed up the repeater's cost, exactly.
    assert_eq!(edge.proof, Proof::Repetition);
    assert!(edge.visits > 0, "600 uniform simulations try every root move");
    assert_eq!(edge.q, Some(-penalty));
    assert_eq!(search.root_proof(), Proof::Unknown, "a charged repetition proves nothing");
    // The other moves are worth 0 to the uniform evaluator: the repeat is the worst move.
    let others = stats.iter().filter(|s| s.mv != repeat && s.visits > 0);
    assert!(others.clone().count() > 10);
    for other in others {
        assert!(other.q.expect("visited") > -penalty, "{:?}", other.mv);
    }
    assert_ne!(search.choose_move(0.0), Some(repeat));
    assert_consistent(&search);
}

#[test]
fn a_gumbel_root_charges_a_repetition_it_never_visits() {
    // 2 simulations over 64 considered moves: the repeat is (almost surely) never visited,
    // yet the improved policy sees its cost, known since the root's moves were tried.
    let (game, repeat) = before_a_repetition();
    let share = |penalty: f32| {
        let params = MctsParams { repetition_penalty: penalty, ..gumbel_params(64) };
        let mut search = Search::new(game.clone(), params, 2);
        search.start_gumbel(2);
        search.run(&UniformEvaluator, 2).expect("searches");
        let stats = search.root_stats();
        let edge = stats.iter().find(|s| s.mv == repeat).expect("a root move");
        assert_eq!(edge.visits, 0, "the repeat is not among the two visited moves");
        let pi = search.improved_policy();
        pi.iter().find(|(mv, _)| *mv == repeat).map(|&(_, p)| p).expect("every move listed")
    };
    let (exact, charged) = (share(0.0), share(0.25));
    assert!(charged < 0.5 * exact, "charged {charged}, exact draw {exact}");
}

/// Whether `mv` lets the opponent mate at once (or win by any rule with one move).
fn allows_a_win(game: &xiangqi::Game, mv: xiangqi::Move) -> bool {
    let mut after = game.clone();
    after.play_unchecked(mv);
    let them = after.side_to_move();
    after.legal_moves().as_ref().iter().any(|&reply| {
        let mut end = after.clone();
        end.play_unchecked(reply);
        end.outcome().is_some_and(|o| o.winner() == Some(them))
    })
}

/// Mates in one of the tactics suite with the other side to move: most of its moves leave the
/// mate on the board (in the first, both do).
const THREATS: [&str; 5] = [
    "4R4/3P1k3/5a3/9/6b2/9/9/4B4/9/2BA1K3 b - - 9 68",
    "2baka3/9/9/p3p4/9/7R1/5rP1P/4r4/3KA4/1cn6 w - - 15 36",
    "r1bakab1r/9/1C7/p1n1C3p/2c3p2/9/P7P/4n4/4K4/2c2AB1R b - - 2 22",
    "3C1a3/2R6/3kb4/p5N1p/9/6B2/2P1P1P1P/4B4/8r/c3K2c1 b - - 3 34",
    "1R1akr3/4a4/4b4/6p2/4C3p/9/P3P3P/B1NK5/6cc1/3A1A1N1 b - - 7 18",
];

#[test]
fn proving_leaves_sees_a_mate_threat_on_the_first_visit() {
    for fen in THREATS {
        let game = xiangqi::Game::from_fen(fen).expect("a legal position");
        let moves = game.legal_moves().as_ref().len() as u32;
        let threatened: Vec<xiangqi::Move> =
            game.legal_moves().as_ref().iter().copied().filter(|&mv| allows_a_win(&game, mv)).collect();
        assert!(!threatened.is_empty(), "{fen}: no move allows a mate");
        // Two simulations per root move: most are visited once or twice.
        let unproven_threats = |prove_leaves: bool| {
            let params = MctsParams { prove_leaves, leaves_per_batch: 1, ..MctsParams::default() };
            let mut search = Search::new(game.clone(), params, 3);
            search.run(&UniformEvaluator, 2 * moves).expect("searches");
            assert_consistent(&search);
            let stats = search.root_stats();
            let visited: Vec<_> = stats.iter().filter(|s| s.visits > 0 && threatened.contains(&s.mv)).collect();
            assert!(!visited.is_empty(), "{fen}: no threatened move visited");
            // A move searched once is proven lost only by a mate right after it (deeper proofs
            // need more visits).
            for s in stats.iter().filter(|s| s.proof == Proof::Loss && s.visits == 1) {
                assert!(threatened.contains(&s.mv), "{fen}: {:?} proven lost without a mate after it", s.mv);
            }
            visited.iter().filter(|s| s.proof != Proof::Loss).count()
        };
        assert_eq!(unproven_threats(true), 0, "{fen}: with proving, every visited threat is proven");
        assert!(unproven_threats(false) > 0, "{fen}: one visit alone proves nothing");
    }
}
