//! Tests of the net searcher: tree reuse, limits and time, reports and options.

use super::*;
use mcts::UniformEvaluator;

fn searcher<G: Game>(settings: NetSettings) -> NetSearcher<G> {
    NetSearcher::with_evaluator(Arc::new(UniformEvaluator), settings, 7)
}

fn nodes(n: u64) -> Limits {
    Limits { nodes: Some(n), ..Limits::default() }
}

fn think<G: SearchGame>(s: &mut NetSearcher<G>, game: &G, limits: &Limits) -> SearchResult<G::Move> {
    s.think(game, limits, &mut |_| {})
}

#[test]
fn the_second_move_starts_with_the_reused_subtree() {
    let mut s = searcher::<xiangqi::Game>(NetSettings::default());
    let mut game = xiangqi::Game::new();
    let first = think(&mut s, &game, &nodes(600));
    assert_eq!(s.last(), LastSearch { reused: 0, simulations: 600, visits: 600, stopped_early: false });
    // The move played and the opponent's most visited reply: the subtree two plies down.
    let (Some(mv), Some(&reply)) = (first.best, first.pv.get(1)) else { panic!("a line of two moves: {first:?}") };
    let kept = {
        let mut probe = Search::new(game.clone(), NetSettings::default().params(), 7);
        assert!(probe.run(&UniformEvaluator, 600).is_ok());
        probe.advance(mv);
        probe.advance(reply);
        probe.root_visit_count()
    };
    game.play_unchecked(mv);
    game.play_unchecked(reply);
    let second = think(&mut s, &game, &nodes(600));
    assert!(second.best.is_some());
    let last = s.last();
    assert!(last.reused > 0, "the subtree under {mv:?} {reply:?} is kept");
    assert_eq!(last.reused, kept, "every visit of that subtree, no more");
    assert_eq!(last.simulations, 600 - last.reused, "a node limit counts the reused visits");
    assert_eq!(last.visits, 600);
}

#[test]
fn no_reuse_for_another_game_or_when_turned_off() {
    let mut s = searcher::<draughts::Game>(NetSettings::default());
    let game = draughts::Game::new();
    think(&mut s, &game, &nodes(300));
    // The same position again: the whole tree is kept.
    think(&mut s, &game, &nodes(300));
    assert_eq!((s.last().reused, s.last().simulations), (300, 0));
    // A position that does not continue the game: a fresh tree.
    let Ok(other) = draughts::Game::from_fen("W:W31,32,33:B18,19,20") else { panic!("fen") };
    think(&mut s, &other, &nodes(300));
    assert_eq!(s.last().reused, 0);
    // Reuse off.
    s.set(|t| t.tree_reuse = false);
    think(&mut s, &other, &nodes(300));
    assert_eq!(s.last().reused, 0);
    // Changing a search parameter drops the tree too.
    s.set(|t| t.tree_reuse = true);
    think(&mut s, &other, &nodes(100));
    s.set(|t| t.c_puct = 2.5);
    think(&mut s, &other, &nodes(100));
    assert_eq!(s.last().reused, 0);
}

#[test]
fn continuation_needs_the_same_start_and_a_longer_history() {
    let mut a = xiangqi::Game::new();
    let b = a.clone();
    let mv = a.legal_moves().as_ref()[3];
    a.play_unchecked(mv);
    assert_eq!(continuation(&b, &a), Some(vec![mv]));
    assert_eq!(continuation(&a, &a), Some(vec![]));
    assert_eq!(continuation(&a, &b), None, "a shorter history");
    let Ok(c) = xiangqi::Game::from_fen(&a.fen()) else { panic!("fen") };
    assert_eq!(continuation(&c, &a), None, "another start position");
}

#[test]
fn time_budgets() {
    let ms = Duration::from_millis;
    let overhead = ms(50);
    assert_eq!(TimeBudget::of(&Limits::default(), overhead), None);
    let movetime = Limits { movetime: Some(ms(1000)), ..Limits::default() };
    assert_eq!(TimeBudget::of(&movetime, overhead), Some(TimeBudget { soft: ms(950), hard: ms(950) }));
    // 10 s + 0.1 s: a 25th of what is left plus three quarters of the increment.
    let clock = Limits { time_left: Some(ms(10_050)), increment: ms(100), ..Limits::default() };
    assert_eq!(TimeBudget::of(&clock, overhead), Some(TimeBudget { soft: ms(475), hard: ms(950) }));
    // The last move before the control never takes more than two fifths of the clock.
    let last = Limits { time_left: Some(ms(1050)), moves_to_go: Some(1), ..Limits::default() };
    assert_eq!(TimeBudget::of(&last, overhead), Some(TimeBudget { soft: ms(400), hard: ms(400) }));
    // A flag about to fall still gets a search, of a millisecond.
    let flag = Limits { time_left: Some(ms(10)), ..Limits::default() };
    assert_eq!(TimeBudget::of(&flag, overhead), Some(TimeBudget { soft: ms(1), hard: ms(1) }));
}

#[test]
fn a_clock_is_spent_about_its_share() {
    let mut s = searcher::<xiangqi::Game>(NetSettings { move_overhead: Duration::ZERO, ..NetSettings::default() });
    let clock = Limits { time_left: Some(Duration::from_millis(2500)), ..Limits::default() };
    let start = Instant::now();
    let result = think(&mut s, &xiangqi::Game::new(), &clock);
    let spent = start.elapsed();
    assert!(result.best.is_some());
    // A 25th of 2.5 s is 100 ms; never more than 200 ms (the hard limit) plus one round.
    assert!(spent < Duration::from_millis(400), "spent {spent:?}");
    assert!(s.last().simulations > 0);
}

#[test]
fn early_stop_when_the_best_move_cannot_be_overtaken() {
    // Mate in one for Red: the search proves it at once and stops long before the time.
    let Ok(game) = xiangqi::Game::from_fen("4k4/R8/9/9/9/9/9/9/1R7/3K5 w - - 0 1") else { panic!("fen") };
    let mut s = searcher::<xiangqi::Game>(NetSettings::default());
    let start = Instant::now();
    let result = think(&mut s, &game, &Limits { movetime: Some(Duration::from_secs(5)), ..Limits::default() });
    assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
    assert_eq!(result.score, Score::Mate(1));
    let mut after = game.clone();
    after.play_unchecked(result.best.expect("a move"));
    assert!(after.outcome().is_some(), "the mate is played");
}

#[test]
fn stop_ends_an_infinite_search() {
    let mut thread = crate::SearchThread::new(searcher::<draughts::Game>(NetSettings::default()));
    let (tx, rx) = std::sync::mpsc::channel();
    let infinite = Limits { infinite: true, ..Limits::default() };
    let started = thread.start(
        draughts::Game::new(),
        infinite,
        |_| {},
        move |_, r| {
            let _ = tx.send(r);
        },
    );
    assert!(started.is_ok());
    std::thread::sleep(Duration::from_millis(100));
    assert!(rx.try_recv().is_err(), "an infinite search waits for stop");
    thread.stop();
    let result = rx.try_recv().expect("reported on stop");
    assert!(result.best.is_some() && result.nodes > 0);
}

#[test]
fn searchmoves_restrict_the_choice() {
    let game = xiangqi::Game::new();
    let mut s = searcher::<xiangqi::Game>(NetSettings::default());
    let only = game.legal_moves().as_ref()[5];
    let limits = Limits { searchmoves: vec![xiangqi::Game::move_id(&only)], ..nodes(200) };
    let result = think(&mut s, &game, &limits);
    assert_eq!(result.best, Some(only));
    assert_eq!(result.pv.first(), Some(&only));
}

#[test]
fn centipawns_from_q() {
    assert_eq!(q_to_cp(0.0), 0);
    assert_eq!(q_to_cp(0.25), 37);
    assert_eq!(q_to_cp(0.5), 89);
    assert_eq!(q_to_cp(-0.5), -89);
    assert_eq!(q_to_cp(0.9), 546);
    assert!(q_to_cp(1.0) < alphabeta::MATE_BOUND && q_to_cp(-1.0) > -alphabeta::MATE_BOUND);
}

#[test]
fn options_check_their_ranges_and_reload_through_the_loader() {
    let loader: Loader<xiangqi::Game> = Arc::new(|path: &Path, _threads: usize| {
        if path.ends_with("missing.safetensors") {
            Err(format!("cannot load {}: no such file", path.display()))
        } else {
            Ok(Arc::new(UniformEvaluator) as Arc<dyn Evaluator<xiangqi::Game>>)
        }
    });
    let Ok(mut s) = NetSearcher::load(Path::new("a.safetensors"), loader, NetSettings::default(), 1) else {
        panic!("loads")
    };
    let option = |name| net_option(name).expect("an option");
    assert!(s.set_option(option("CPuct"), "2.5").is_ok());
    assert_eq!(s.settings().c_puct, 2.5);
    assert!(s.set_option(option("c-puct"), "0").is_err_and(|e| e.contains("0.01-10")));
    assert!(s.set_option(option("Simulations"), "abc").is_err_and(|e| e.contains("whole number")));
    assert!(s.set_option(option("TreeReuse"), "maybe").is_err());
    assert!(s.set_option(option("weights"), "missing.safetensors").is_err_and(|e| e.contains("no such file")));
    assert_eq!(s.weights(), Some(Path::new("a.safetensors")), "the old net stays");
    assert!(s.set_option(option("WeightsFile"), "b.safetensors").is_ok());
    assert_eq!(s.option_value(option("WeightsFile")).as_deref(), Some("b.safetensors"));
    assert!(s.set_option(option("Threads"), "2").is_ok());
    assert_eq!(s.settings().threads, 2);
    assert!(net_option("Hash").is_none());
    // Without a loader, the net cannot change.
    let mut fixed = searcher::<xiangqi::Game>(NetSettings::default());
    assert!(fixed.set_option(option("Threads"), "2").is_err());
}

#[test]
fn a_depth_limit_stops_at_that_mean_depth() {
    let mut s = searcher::<xiangqi::Game>(NetSettings::default());
    let game = xiangqi::Game::new();
    let result = think(&mut s, &game, &Limits { depth: Some(3), ..Limits::default() });
    assert!(result.best.is_some());
    assert!(result.depth >= 3, "mean depth {} at the end", result.depth);
    // Checked each time the tree grows by an eighth: it stops soon after reaching the depth.
    let visits = s.last().visits;
    let mut probe = Search::new(game, NetSettings::default().params(), 7);
    let mut reached = 0;
    while probe.depth_stats().0 < 3.0 {
        assert!(probe.run(&UniformEvaluator, 8).is_ok());
        reached = probe.root_visit_count();
    }
    assert!(visits >= reached && f64::from(visits) <= f64::from(reached) * 1.25 + 16.0, "{visits} vs {reached}");
}

/// `GumbelRoot` with a node limit: the root's visits follow the Sequential Halving plan over
/// the 16 considered moves (16 x 1, 8 x 2, 4 x 5, 2 x 11 for 48), and the move is the same
/// whatever the seed (no Gumbel draws). A time limit keeps PUCT.
#[test]
fn the_gumbel_root_halves_over_the_considered_moves() {
    let game = xiangqi::Game::new();
    let settings = NetSettings { gumbel_root: true, tree_reuse: false, batch: 4, ..NetSettings::default() };
    let mut moves = Vec::new();
    for seed in [1, 2, 3] {
        let mut s = NetSearcher::with_evaluator(Arc::new(UniformEvaluator), settings.clone(), seed);
        let result = think(&mut s, &game, &nodes(48));
        assert_eq!(s.last().simulations, 48);
        moves.push(result.best);
    }
    assert!(moves.windows(2).all(|w| w[0] == w[1]), "{moves:?}");
    // The visit counts of the plan, read back through a searcher kept for inspection.
    let mut s =
        NetSearcher::with_evaluator(Arc::new(UniformEvaluator), NetSettings { tree_reuse: true, ..settings }, 1);
    think(&mut s, &game, &nodes(48));
    let tree = s.tree.as_ref().expect("the tree is kept");
    let mut visits: Vec<u32> = tree.root_stats().iter().map(|m| m.visits).filter(|&v| v > 0).collect();
    visits.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(visits.len(), 16, "{visits:?}");
    assert_eq!(&visits[..2], &[11, 11], "{visits:?}");
    // PUCT with the same budget visits the root moves differently.
    let mut puct = searcher::<xiangqi::Game>(NetSettings { batch: 4, ..NetSettings::default() });
    think(&mut puct, &game, &nodes(48));
    let tree = puct.tree.as_ref().expect("the tree is kept");
    let mut visits: Vec<u32> = tree.root_stats().iter().map(|m| m.visits).filter(|&v| v > 0).collect();
    visits.sort_unstable_by(|a, b| b.cmp(a));
    assert_ne!(visits.len(), 16, "{visits:?}");
}

/// `GumbelConsidered` sets how many moves the Sequential Halving plan starts from: with 256
/// (more than the start's 44 legal moves) and 48 simulations every legal move is visited, where
/// the default visits 16.
#[test]
fn gumbel_considered_widens_the_plan() {
    let game = xiangqi::Game::new();
    let settings = NetSettings { gumbel_root: true, batch: 4, ..NetSettings::default() };
    let mut s = NetSearcher::with_evaluator(Arc::new(UniformEvaluator), settings, 1);
    let option = net_option("gumbel-considered").expect("a listed option");
    assert_eq!(s.option_value(option).as_deref(), Some("16"));
    assert!(s.set_option(option, "0").is_err());
    assert!(s.set_option(option, "257").is_err());
    assert!(s.set_option(option, "256").is_ok());
    assert_eq!(s.option_value(option).as_deref(), Some("256"));
    think(&mut s, &game, &nodes(48));
    let tree = s.tree.as_ref().expect("the tree is kept");
    let visited = tree.root_stats().iter().filter(|m| m.visits > 0).count();
    assert_eq!(visited, game.legal_moves().as_ref().len());
    assert_eq!(visited, 44);
}
