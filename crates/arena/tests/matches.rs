//! Whole matches between in-process agents: the acceptance bar (alpha-beta at depth 3 beats
//! random every time in both games), records that read back into the same games,
//! determinism, and a failing evaluator stopping the match.

use arena::record::parse_record;
use arena::{AgentError, AgentSpec, ArenaGame, MatchConfig, MatchError, MatchResult, NetSource, run_match};
use game::{DrawReason, Outcome};
use mcts::{EvalError, Evaluator, FailAfter, UniformEvaluator};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Never raised: these matches play to the end.
static GO: AtomicBool = AtomicBool::new(false);

fn spec(text: &str) -> AgentSpec {
    AgentSpec::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A fresh directory under the system's temporary directory.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arena-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn play<G: ArenaGame>(a: &str, b: &str, config: &MatchConfig) -> MatchResult {
    let openings = arena::openings::shipped::<G>();
    run_match::<G>(&spec(a), &spec(b), &openings, config, &arena::NoNets, &GO, |_, _| {})
        .unwrap_or_else(|e| panic!("match: {e}"))
        .expect("not stopped")
}

fn alphabeta_beats_random<G: ArenaGame>() {
    let config = MatchConfig { games: 20, concurrency: 2, max_plies: 400, ..MatchConfig::default() };
    let result = play::<G>("alphabeta:depth=3", "random", &config);
    let losses: Vec<String> = result
        .games
        .iter()
        .filter(|g| g.points_for_a() < 1.0)
        .map(|g| format!("game {}: {} ({})", g.index + 1, g.record.result, g.record.termination))
        .collect();
    assert_eq!(result.score.wins, 20, "{}: {losses:?}", G::NAME);
    assert_eq!(result.score.summary_line(), "score: 20-0-0 100.0% elo inf +/- inf");
}

#[test]
fn alphabeta_depth_3_scores_100_percent_against_random_in_xiangqi() {
    alphabeta_beats_random::<xiangqi::Game>();
}

#[test]
fn alphabeta_depth_3_scores_100_percent_against_random_in_draughts() {
    alphabeta_beats_random::<draughts::Game>();
}

/// Every record in `dir` reads back: its FEN tag is a position, its moves replay legally from
/// there, and the replayed game ends as the Result and Termination tags say.
fn records_read_back<G: ArenaGame>(result: &MatchResult, dir: &Path, max_plies: usize) {
    for game in &result.games {
        let path = dir.join(format!("{}-{:04}.{}", G::NAME, game.index + 1, G::RECORD_EXTENSION));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let record = parse_record(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let fen = record.tag("FEN").expect("FEN tag");
        let mut replay = G::from_fen(fen).unwrap_or_else(|e| panic!("{}: FEN {fen}: {e}", path.display()));
        assert_eq!(replay.fen(), fen, "the FEN tag reads back to itself");
        assert_eq!(record.tag("Round"), Some((game.index + 1).to_string().as_str()));
        assert!(record.tag(G::SIDE_NAMES[0]).is_some() && record.tag(G::SIDE_NAMES[1]).is_some(), "{text}");
        for mv in &record.moves {
            let m = replay.parse_move(mv).unwrap_or_else(|e| panic!("{}: move {mv}: {e}", path.display()));
            replay.play_unchecked(m);
        }
        assert_eq!(record.moves.len(), game.plies);
        let expected = match replay.outcome() {
            Some(outcome) => outcome,
            None => {
                assert_eq!(game.plies, max_plies, "an unfinished game must have hit the cap");
                Outcome::Draw(DrawReason::Cap)
            }
        };
        assert_eq!(expected, game.outcome, "{}", path.display());
        assert_eq!(record.tag("Result"), Some(G::result_text(expected.winner())));
        assert_eq!(record.result.as_deref(), Some(G::result_text(expected.winner())));
        assert_eq!(record.tag("Termination"), Some(game.record.termination.as_str()));
    }
}

#[test]
fn records_are_written_and_read_back() {
    // A short cap, so some games end by it and the Cap path is covered too.
    let dir = temp_dir("records");
    let config = MatchConfig { games: 6, max_plies: 40, out_dir: Some(dir.join("xq")), ..MatchConfig::default() };
    let result = play::<xiangqi::Game>("random", "random", &config);
    assert!(result.games.iter().any(|g| g.outcome == Outcome::Draw(DrawReason::Cap)));
    records_read_back::<xiangqi::Game>(&result, &dir.join("xq"), 40);
    let config = MatchConfig { games: 6, max_plies: 120, out_dir: Some(dir.join("dr")), ..MatchConfig::default() };
    let result = play::<draughts::Game>("alphabeta:depth=1", "random", &config);
    records_read_back::<draughts::Game>(&result, &dir.join("dr"), 120);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn matches_are_reproducible_and_alternate_colours() {
    let config = MatchConfig { games: 6, concurrency: 3, max_plies: 60, seed: 7, ..MatchConfig::default() };
    let one = play::<draughts::Game>("random", "random", &config);
    let two = play::<draughts::Game>("random", "random", &MatchConfig { concurrency: 1, ..config.clone() });
    let moves = |r: &MatchResult| r.games.iter().map(|g| g.record.moves.clone()).collect::<Vec<_>>();
    assert_eq!(moves(&one), moves(&two), "same seed, same games, whatever the thread count");
    let first = play::<draughts::Game>("random", "random", &MatchConfig { games: 4, ..config.clone() });
    let rest = play::<draughts::Game>("random", "random", &MatchConfig { games: 2, first_game: 4, ..config.clone() });
    let mut parts = moves(&first);
    parts.extend(moves(&rest));
    assert_eq!(moves(&one), parts, "a match played in two parts is the same match");
    assert_eq!(rest.games[0].index, 4);
    let other = play::<draughts::Game>("random", "random", &MatchConfig { seed: 8, ..config });
    assert_ne!(moves(&one), moves(&other));
    for g in &one.games {
        assert_eq!(g.opening, g.index / 2);
        assert_eq!(g.a_side, if g.index % 2 == 0 { game::Side::First } else { game::Side::Second });
    }
}

#[test]
fn bad_setups_are_errors_before_any_game() {
    let openings = arena::openings::shipped::<draughts::Game>();
    let config = MatchConfig::default();
    let uci = spec("uci:/usr/games/fairy-stockfish");
    let e = run_match::<draughts::Game>(&uci, &spec("random"), &openings, &config, &arena::NoNets, &GO, |_, _| {})
        .expect_err("wrong game");
    assert_eq!(e.to_string(), "agent A: uci agents do not play draughts: use hub:PATH for draughts");
    let missing = spec("hub:/nonexistent/engine");
    let e = run_match::<draughts::Game>(&spec("random"), &missing, &openings, &config, &arena::NoNets, &GO, |_, _| {})
        .expect_err("missing");
    assert!(e.to_string().starts_with("agent B: cannot start engine '/nonexistent/engine'"), "{e}");
    let e = run_match::<draughts::Game>(&spec("random"), &spec("random"), &[], &config, &arena::NoNets, &GO, |_, _| {})
        .expect_err("empty");
    assert_eq!(e.to_string(), "no openings to play");
}

#[test]
fn rules_only_mcts_beats_random_and_a_missing_checkpoint_stops_the_match() {
    let config = MatchConfig { games: 4, concurrency: 2, ..MatchConfig::default() };
    let result = play::<draughts::Game>("mcts:sims=300", "random", &config);
    assert!(result.score.fraction() >= 0.75, "rules-only MCTS vs random: {}", result.score);
    let openings = arena::openings::shipped::<xiangqi::Game>();
    let e = run_match::<xiangqi::Game>(
        &spec("mcts:ckpt=/no/such/1.safetensors"),
        &spec("random"),
        &openings,
        &config,
        &arena::NoNets,
        &GO,
        |_, _| {},
    )
    .expect_err("no nets");
    assert!(e.to_string().starts_with("agent A: cannot load checkpoint '/no/such/1.safetensors'"), "{e}");
}

/// Checkpoints whose evaluator answers like the rules alone until its `fail_on`-th call, then
/// fails (a net whose forward pass broke): one evaluator shared by every game, as the binary's
/// inference service is.
struct BrokenNets(Arc<FailAfter<UniformEvaluator>>);

impl<G: game::Game> NetSource<G> for BrokenNets {
    fn evaluator(&self, _checkpoint: &Path) -> Result<Arc<dyn Evaluator<G>>, String> {
        Ok(Arc::clone(&self.0) as Arc<dyn Evaluator<G>>)
    }
}

#[test]
fn a_failing_evaluator_stops_the_match_instead_of_forfeiting() {
    let dir = temp_dir("broken-net");
    // Ten plies a game, five searches of 20 simulations by A (21 calls each, the root's
    // expansion included): game 1 is played out on calls 1..=105, game 2 fails on call 150.
    let config = MatchConfig { games: 6, max_plies: 10, out_dir: Some(dir.clone()), ..MatchConfig::default() };
    let nets = BrokenNets(Arc::new(FailAfter::new(UniformEvaluator, 150)));
    let openings = arena::openings::shipped::<xiangqi::Game>();
    let (a, b) = (spec("mcts:ckpt=broken.safetensors,sims=20"), spec("random"));
    let mut seen = Vec::new();
    let e = run_match::<xiangqi::Game>(&a, &b, &openings, &config, &nets, &GO, |game, _| seen.push(game.index))
        .expect_err("the evaluator fails");
    match &e {
        MatchError::Evaluation { game: 2, which: "A", source: AgentError::Evaluation { error, .. } } => {
            assert_eq!(*error, EvalError::Injected { call: 150 });
        }
        other => panic!("expected an evaluation error in game 2, got {other:?}"),
    }
    let text = e.to_string();
    assert!(text.contains("game 2, agent A") && text.contains("injected evaluator failure on call 150"), "{text}");
    assert_eq!(nets.0.calls(), 150, "no search after the failure");
    assert_eq!(seen, [0], "game 1 was scored, the failed game was not");
    let mut records: Vec<String> = std::fs::read_dir(&dir)
        .expect("lists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    records.sort();
    assert_eq!(records, ["xiangqi-0001.pgn"], "no record of the failed game, no forfeit");

    // Several games at once: the first failure stops the match all the same.
    let config = MatchConfig { games: 8, concurrency: 3, max_plies: 10, ..MatchConfig::default() };
    let nets = BrokenNets(Arc::new(FailAfter::new(UniformEvaluator, 300)));
    let e = run_match::<xiangqi::Game>(&a, &b, &openings, &config, &nets, &GO, |_, _| {}).expect_err("fails");
    assert!(matches!(e, MatchError::Evaluation { which: "A", .. }), "{e:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A stop ends the match at once: no game starts after it, games under way are abandoned
/// between moves, and the match has no result (so nobody takes a part of it for the whole).
#[test]
fn a_stop_drops_the_match_at_once() {
    let stop = AtomicBool::new(false);
    let openings = arena::openings::shipped::<xiangqi::Game>();
    let config = MatchConfig { games: 40, concurrency: 2, ..MatchConfig::default() };
    let mut seen = 0;
    let result = run_match::<xiangqi::Game>(
        &spec("random"),
        &spec("random"),
        &openings,
        &config,
        &arena::NoNets,
        &stop,
        |_, _| {
            seen += 1;
            if seen == 3 {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        },
    );
    assert!(result.expect("no error").is_none(), "a stopped match has no result");
    assert_eq!(seen, 3, "no game is reported after the stop");
    // Raised before the start: nothing is played.
    let mut any = false;
    let result = run_match::<xiangqi::Game>(
        &spec("random"),
        &spec("random"),
        &openings,
        &config,
        &arena::NoNets,
        &stop,
        |_, _| any = true,
    );
    assert!(result.expect("no error").is_none() && !any);
}
