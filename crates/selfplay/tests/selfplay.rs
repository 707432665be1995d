//! Self-play end to end with fake evaluators: what lands in the shards (pi, z, plies searched in
//! full), resignation and its false-resign measurement, many writers in one directory, and a
//! worker process killed with SIGKILL at random moments.

use game::{Game, Side};
use mcts::{EvalError, EvalRequest, Evaluation, Evaluator, FailAfter, MctsParams, UniformEvaluator};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use selfplay::{
    FixedModel, Model, ModelSource, NoObserver, Observer, Opponent, Progress, Selfplay, SelfplayConfig, SelfplayError,
    ShardReport, SourceError, Totals,
};
use shard::{GameRecord, Shard};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qizero-selfplay-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A small, fast configuration: short games, few simulations, cheap searches on half the moves.
fn micro() -> SelfplayConfig {
    SelfplayConfig {
        simulations: 12,
        fast_simulations: 3,
        full_search_fraction: 0.5,
        games_in_flight: 4,
        workers: 1,
        games_per_shard: 3,
        max_plies: 40,
        resign_threshold: -0.9,
        resign_plies: 2,
        no_resign_fraction: 0.5,
        model_poll_seconds: 0.0,
        ..SelfplayConfig::default()
    }
}

fn params() -> MctsParams {
    MctsParams { leaves_per_batch: 2, temperature_plies: 10, ..MctsParams::default() }
}

/// Collects shard reports.
#[derive(Default)]
struct Reports(Mutex<Vec<ShardReport>>);

impl Observer for Reports {
    fn shard_written(&self, report: &ShardReport) {
        self.0.lock().expect("not poisoned").push(report.clone());
    }
}

fn play<G: encode::Encode>(
    config: &SelfplayConfig,
    evaluator: impl Evaluator<G> + 'static,
    dir: &Path,
    instance: u64,
    games: u64,
    observer: &dyn Observer,
) -> Totals {
    play_with(config, &params(), evaluator, dir, instance, games, observer)
}

fn play_with<G: encode::Encode>(
    config: &SelfplayConfig,
    mcts: &MctsParams,
    evaluator: impl Evaluator<G> + 'static,
    dir: &Path,
    instance: u64,
    games: u64,
    observer: &dyn Observer,
) -> Totals {
    let source = FixedModel::new("uniform", evaluator);
    let stop = AtomicBool::new(false);
    let progress = Progress::new();
    let selfplay = Selfplay {
        config,
        mcts,
        source: &source,
        opponent: None,
        shard_dir: dir,
        seed: 7,
        instance,
        max_games: Some(games),
        stop: &stop,
        progress: &progress,
        observer,
    };
    selfplay.run().expect("self-play runs")
}

fn read_all(dir: &Path) -> Vec<(PathBuf, Shard)> {
    shard::list_shards(dir)
        .expect("lists")
        .into_iter()
        .map(|p| {
            let s = shard::read_shard(&p).unwrap_or_else(|e| panic!("{e}"));
            (p, s)
        })
        .collect()
}

/// Replays the game's own generator as the worker draws from it (resignation, then the tree's
/// seed, then full-or-cheap per move) and returns whether resignation was on and which plies
/// were drawn for a full search.
fn full_plies(record: &GameRecord, config: &SelfplayConfig, plies: usize) -> (bool, Vec<bool>) {
    let mut rng = StdRng::seed_from_u64(record.game_id);
    let resign_enabled = rng.random::<f32>() >= config.no_resign_fraction;
    let _tree_seed: u64 = rng.random();
    let full =
        (0..=plies).map(|_| !config.playout_cap() || rng.random::<f32>() < config.full_search_fraction).collect();
    (resign_enabled, full)
}

fn check_games<G: encode::Encode>(shards: &[(PathBuf, Shard)], config: &SelfplayConfig, worker_seeds: &[u64]) {
    let mut ids = HashSet::new();
    for (path, shard) in shards {
        assert_eq!(shard.header.game, G::NAME);
        assert_eq!(shard.header.encoding, G::ENCODING.id);
        assert_eq!(shard.header.model, "uniform");
        assert!(worker_seeds.contains(&shard.header.seed), "header seed is a worker seed");
        for record in &shard.games {
            assert!(ids.insert(record.game_id), "game ids are unique");
            let samples = record.replay::<G>(path).unwrap_or_else(|e| panic!("{e}"));
            let moves = record.moves.len();
            assert!(moves <= config.max_plies as usize);
            let resigned = record.result.reason == "resign";
            let (resign_enabled, full) = full_plies(record, config, moves);
            assert!(resign_enabled || !resigned, "a game with resignation off never resigns");
            let expected: Vec<u32> =
                (0..=moves).filter(|&p| full[p] && (p < moves || resigned)).map(|p| p as u32).collect();
            let got: Vec<u32> = samples.iter().map(|s| s.ply).collect();
            assert_eq!(got, expected, "samples exactly at the plies searched in full (game {})", record.game_id);
            for s in &samples {
                let sum: f32 = s.pi.iter().map(|(_, p)| p).sum();
                assert!((sum - 1.0).abs() < 1e-4, "pi sums to {sum}");
                assert!(s.pi.iter().all(|&(_, p)| p > 0.0));
                let mover = s.game.side_to_move();
                assert_eq!(s.z, record.result.value_for(mover), "z from the side to move's view");
            }
        }
    }
}

#[test]
fn shards_hold_full_searches_with_consistent_targets() {
    let dir = temp_dir("targets");
    let config = micro();
    let reports = Reports::default();
    let totals = play::<xiangqi::Game>(&config, UniformEvaluator, &dir, 1, 8, &reports);
    assert_eq!(totals.games, 8);
    assert_eq!(totals.first_wins + totals.draws + totals.second_wins, 8);
    let shards = read_all(&dir);
    assert_eq!(shards.len(), 3, "8 games in shards of 3: 3 + 3 + 2");
    assert_eq!(shards.iter().map(|(_, s)| s.games.len()).sum::<usize>(), 8);
    let ended_by =
        |reason: &str| shards.iter().flat_map(|(_, s)| &s.games).filter(|g| g.result.reason == reason).count() as u64;
    assert_eq!(totals.capped, ended_by("cap"));
    assert!(totals.capped > 0, "40-ply games of uniform play reach the cap");
    assert_eq!(totals.repetitions, ended_by("repetition"));
    let samples: u64 = shards.iter().map(|(_, s)| s.counts().samples).sum();
    assert_eq!(samples, totals.samples);
    assert!(totals.samples > 0 && totals.samples < totals.moves, "cheap moves are not recorded");
    let reports = reports.0.into_inner().expect("not poisoned");
    assert_eq!(reports.len(), 3);
    assert_eq!(reports.iter().map(|r| r.totals.games).sum::<u64>(), 8);
    assert!(reports.iter().all(|r| r.path.exists() && r.model_id == "uniform"));
    check_games::<xiangqi::Game>(&shards, &config, &[selfplay::seed::worker_seed(7, 1, 0)]);

    // Playout-cap randomisation off: every move played is a sample.
    let dir_off = temp_dir("targets-off");
    let config = SelfplayConfig { fast_simulations: 0, max_plies: 12, ..micro() };
    let totals = play::<draughts::Game>(&config, UniformEvaluator, &dir_off, 1, 3, &NoObserver);
    assert_eq!(totals.samples, totals.moves);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&dir_off);
}

#[test]
fn same_seed_same_games() {
    let config = micro();
    let (a, b) = (temp_dir("same-a"), temp_dir("same-b"));
    play::<xiangqi::Game>(&config, UniformEvaluator, &a, 3, 4, &NoObserver);
    play::<xiangqi::Game>(&config, UniformEvaluator, &b, 3, 4, &NoObserver);
    let games = |dir| -> Vec<GameRecord> { read_all(dir).into_iter().flat_map(|(_, s)| s.games).collect() };
    assert_eq!(games(&a), games(&b));
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

/// The first player always sees a lost position (value -0.99 from its view), the second a won
/// one: the first player resigns whenever it may.
#[derive(Clone, Copy)]
struct FirstIsLost;

impl<G: Game> Evaluator<G> for FirstIsLost {
    fn evaluate(&self, batch: &[EvalRequest<'_, G>]) -> Result<Vec<Evaluation>, EvalError> {
        Ok(batch
            .iter()
            .map(|r| {
                let n = r.moves.len();
                let value = if r.game.side_to_move() == Side::First { -0.99 } else { 0.99 };
                Evaluation { value, priors: vec![1.0 / n as f32; n] }
            })
            .collect())
    }
}

#[test]
fn resignation_and_false_resign_rate() {
    let dir = temp_dir("resign");
    let config = SelfplayConfig { fast_simulations: 0, games_in_flight: 8, games_per_shard: 10, ..micro() };
    let games = 40;
    let totals = play::<xiangqi::Game>(&config, FirstIsLost, &dir, 1, games, &NoObserver);
    assert_eq!(totals.games, games);
    // Resignation on: the first player resigns at its second move (ply 2). Off: it would have,
    // and then drew or won, which makes the resignation false.
    assert_eq!(totals.resigned + totals.no_resign_games, games);
    assert_eq!(totals.would_resign, totals.no_resign_games);
    assert!((10..=30).contains(&totals.no_resign_games), "about half: {}", totals.no_resign_games);
    let shards = read_all(&dir);
    let mut false_resigns = 0;
    for (_, shard) in &shards {
        for record in &shard.games {
            let (resign_enabled, _) = full_plies(record, &config, 0);
            if resign_enabled {
                assert_eq!(record.result.reason, "resign");
                assert_eq!(record.result.winner, Some(shard::Winner::Second));
                assert_eq!(record.moves.len(), 2);
            } else {
                assert_ne!(record.result.reason, "resign");
                false_resigns += u64::from(record.result.winner != Some(shard::Winner::Second));
            }
        }
    }
    assert_eq!(totals.false_resigns, false_resigns);
    assert!(totals.false_resign_rate().is_some_and(|r| r > 0.5), "random play rarely beats the first player");
    check_games::<xiangqi::Game>(&shards, &config, &[selfplay::seed::worker_seed(7, 1, 0)]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn many_writers_one_directory() {
    let dir = temp_dir("writers");
    let config = SelfplayConfig { workers: 2, games_per_shard: 1, games_in_flight: 3, max_plies: 16, ..micro() };
    // Two "processes" (instances), two workers each, all writing one shard per game at once.
    let totals: Vec<Totals> = std::thread::scope(|s| {
        let a = s.spawn(|| play::<draughts::Game>(&config, UniformEvaluator, &dir, 1, 10, &NoObserver));
        let b = s.spawn(|| play::<draughts::Game>(&config, UniformEvaluator, &dir, 2, 10, &NoObserver));
        vec![a.join().expect("a"), b.join().expect("b")]
    });
    assert!(totals.iter().all(|t| t.games == 10 && t.shards == 10));
    let shards = read_all(&dir);
    assert_eq!(shards.len(), 20, "one shard per game, none overwritten");
    let seeds: Vec<u64> = [(1, 0), (1, 1), (2, 0), (2, 1)]
        .iter()
        .map(|&(instance, worker)| selfplay::seed::worker_seed(7, instance, worker))
        .collect();
    check_games::<draughts::Game>(&shards, &config, &seeds);
    let workers: HashSet<&str> = shards.iter().map(|(_, s)| s.header.worker.as_str()).collect();
    assert_eq!(workers.len(), 4, "each worker has its own id");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stop_flag_writes_finished_games() {
    let dir = temp_dir("stop");
    let config = SelfplayConfig { games_per_shard: 1000, max_plies: 10, ..micro() };
    let source = FixedModel::new("uniform", UniformEvaluator);
    let stop = AtomicBool::new(false);
    let progress = Progress::new();
    let mcts = params();
    let selfplay = Selfplay::<xiangqi::Game> {
        config: &config,
        mcts: &mcts,
        source: &source,
        opponent: None,
        shard_dir: &dir,
        seed: 7,
        instance: 0,
        max_games: None,
        stop: &stop,
        progress: &progress,
        observer: &NoObserver,
    };
    let totals = std::thread::scope(|s| {
        let run = s.spawn(|| selfplay.run());
        while progress.snapshot().games < 6 {
            std::thread::sleep(Duration::from_millis(5));
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        run.join().expect("joins").expect("runs")
    });
    let shards = read_all(&dir);
    assert_eq!(shards.len(), 1, "the finished games, written at the stop");
    assert_eq!(shards[0].1.games.len() as u64, totals.games);
    assert!(totals.games >= 6);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `games` xiangqi games of `config` with a uniform net, against `opponent` where it plays,
/// into `dir`.
fn play_xiangqi(
    config: &SelfplayConfig,
    dir: &Path,
    opponent: Option<&dyn Opponent<xiangqi::Game>>,
    games: u64,
) -> Result<Totals, SelfplayError> {
    let source = FixedModel::new("uniform", UniformEvaluator);
    let (stop, progress, mcts) = (AtomicBool::new(false), Progress::new(), params());
    let selfplay = Selfplay::<xiangqi::Game> {
        config,
        mcts: &mcts,
        source: &source,
        opponent,
        shard_dir: dir,
        seed: 7,
        instance: 3,
        max_games: Some(games),
        stop: &stop,
        progress: &progress,
        observer: &NoObserver,
    };
    selfplay.run()
}

#[test]
fn config_is_checked_before_play() {
    let dir = temp_dir("bad-config");
    let e = play_xiangqi(&SelfplayConfig { simulations: 0, ..micro() }, &dir, None, 1).expect_err("simulations 0");
    assert!(e.to_string().contains("selfplay.simulations"), "{e}");
    assert!(!dir.exists(), "nothing written");
}

/// The environment variable that turns the test binary into a self-play child process.
const CHILD_DIR: &str = "QIZERO_SELFPLAY_KILL_CHILD_DIR";
/// The child's instance number.
const CHILD_INSTANCE: &str = "QIZERO_SELFPLAY_KILL_CHILD_INSTANCE";

fn child_config() -> SelfplayConfig {
    SelfplayConfig { workers: 2, games_per_shard: 1, games_in_flight: 2, max_plies: 8, ..micro() }
}

#[test]
fn sigkill_never_leaves_a_partial_shard() {
    if let Some(dir) = std::env::var_os(CHILD_DIR) {
        // The child: play until killed, one shard per game, as instance `CHILD_INSTANCE`.
        let instance = std::env::var(CHILD_INSTANCE).ok().and_then(|i| i.parse().ok()).unwrap_or(0);
        play::<xiangqi::Game>(&child_config(), UniformEvaluator, Path::new(&dir), instance, u64::MAX, &NoObserver);
        return;
    }
    let dir = temp_dir("sigkill");
    std::fs::create_dir_all(&dir).expect("creates");
    let exe = std::env::current_exe().expect("test binary");
    let mut seen = 0;
    let mut seeds = Vec::new();
    for (instance, delay_ms) in [150, 260, 340, 420, 610].into_iter().enumerate() {
        let instance = instance as u64;
        seeds.extend([selfplay::seed::worker_seed(7, instance, 0), selfplay::seed::worker_seed(7, instance, 1)]);
        let mut child = std::process::Command::new(&exe)
            .args(["--exact", "sigkill_never_leaves_a_partial_shard", "--nocapture", "--test-threads=1"])
            .env(CHILD_DIR, &dir)
            .env(CHILD_INSTANCE, instance.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawns the child");
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().expect("SIGKILL");
        child.wait().expect("reaped");
        let shards = read_all(&dir);
        assert!(shards.len() >= seen, "nothing already written is lost");
        seen = shards.len();
        check_games::<xiangqi::Game>(&shards, &child_config(), &seeds);
    }
    assert!(seen > 0, "the children wrote shards before they were killed");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A source whose model changes at its second poll, counting polls.
struct Switching {
    polls: std::sync::atomic::AtomicU32,
    current: Mutex<Arc<str>>,
}

impl ModelSource<xiangqi::Game> for Switching {
    fn current(&self) -> Model<xiangqi::Game> {
        let id = Arc::clone(&self.current.lock().expect("not poisoned"));
        Model { id, evaluator: Arc::new(UniformEvaluator) }
    }

    fn poll(&self) -> Result<Option<Arc<str>>, SourceError> {
        if self.polls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) == 1 {
            let id: Arc<str> = "m1".into();
            *self.current.lock().expect("not poisoned") = Arc::clone(&id);
            return Ok(Some(id));
        }
        Ok(None)
    }
}

#[derive(Default)]
struct Changes(Mutex<Vec<String>>);

impl Observer for Changes {
    fn model_changed(&self, id: &str) {
        self.0.lock().expect("not poisoned").push(id.to_owned());
    }
}

#[test]
fn newer_model_is_picked_up_between_games() {
    let dir = temp_dir("model");
    let config = SelfplayConfig { games_per_shard: 1, max_plies: 10, ..micro() };
    let source = Switching { polls: 0.into(), current: Mutex::new("m0".into()) };
    let (stop, progress, mcts, changes) = (AtomicBool::new(false), Progress::new(), params(), Changes::default());
    let selfplay = Selfplay::<xiangqi::Game> {
        config: &config,
        mcts: &mcts,
        source: &source,
        opponent: None,
        shard_dir: &dir,
        seed: 7,
        instance: 0,
        max_games: Some(6),
        stop: &stop,
        progress: &progress,
        observer: &changes,
    };
    selfplay.run().expect("runs");
    // One poll per finished game (model_poll_seconds 0); the second switches to m1.
    assert_eq!(source.polls.load(std::sync::atomic::Ordering::Relaxed), 6);
    assert_eq!(*changes.0.lock().expect("not poisoned"), ["m1"]);
    let models: Vec<String> = read_all(&dir).into_iter().map(|(_, s)| s.header.model).collect();
    assert_eq!(models.len(), 6);
    assert_eq!(models.iter().filter(|m| *m == "m0").count(), 2, "{models:?}");
    assert_eq!(models.iter().filter(|m| *m == "m1").count(), 4, "{models:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The uniform evaluator until its `limit`-th call, then a panic (a dead inference thread).
struct DiesAfter {
    calls: std::sync::atomic::AtomicU32,
    limit: u32,
}

impl<G: Game> Evaluator<G> for DiesAfter {
    fn evaluate(&self, batch: &[EvalRequest<'_, G>]) -> Result<Vec<Evaluation>, EvalError> {
        if self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= self.limit {
            panic!("the evaluator died");
        }
        UniformEvaluator.evaluate(batch)
    }
}

#[test]
fn a_panicking_evaluator_is_an_error_after_the_finished_games_are_written() {
    let dir = temp_dir("panic");
    let config = SelfplayConfig { games_per_shard: 1000, max_plies: 6, fast_simulations: 0, ..micro() };
    let source = FixedModel::new("uniform", DiesAfter { calls: 0.into(), limit: 200 });
    let (stop, progress, mcts) = (AtomicBool::new(false), Progress::new(), params());
    let selfplay = Selfplay::<xiangqi::Game> {
        config: &config,
        mcts: &mcts,
        source: &source,
        opponent: None,
        shard_dir: &dir,
        seed: 7,
        instance: 0,
        max_games: None,
        stop: &stop,
        progress: &progress,
        observer: &NoObserver,
    };
    let e = selfplay.run().expect_err("the evaluator panics");
    assert!(e.to_string().contains("the evaluator died"), "{e}");
    let finished = progress.snapshot().games;
    assert!(finished > 0);
    let shards = read_all(&dir);
    assert_eq!(shards.len(), 1);
    assert_eq!(shards[0].1.games.len() as u64, finished, "every finished game was written");
    let _ = std::fs::remove_dir_all(&dir);
}

/// For each shard written, the failing evaluator's call count at that moment.
struct CallsAtWrite {
    evaluator: Arc<FailAfter<UniformEvaluator>>,
    writes: Arc<Mutex<Vec<u64>>>,
}

impl Observer for CallsAtWrite {
    fn shard_written(&self, _report: &ShardReport) {
        self.writes.lock().expect("not poisoned").push(self.evaluator.calls());
    }
}

/// Self-play (one worker, four games in flight) with an evaluator that fails on its `fail_on`-th
/// call and every call after: the error, the finished games' count, the evaluator.
fn play_until_failure(
    config: &SelfplayConfig,
    dir: &Path,
    fail_on: u64,
    observe: impl FnOnce(&Arc<FailAfter<UniformEvaluator>>) -> Box<dyn Observer>,
) -> (SelfplayError, u64, Arc<FailAfter<UniformEvaluator>>) {
    let failing = Arc::new(FailAfter::new(UniformEvaluator, fail_on));
    let evaluator: Arc<dyn Evaluator<xiangqi::Game>> = Arc::clone(&failing) as Arc<dyn Evaluator<xiangqi::Game>>;
    let source = FixedModel(Model { id: "uniform".into(), evaluator });
    let observer = observe(&failing);
    let (stop, progress, mcts) = (AtomicBool::new(false), Progress::new(), params());
    let selfplay = Selfplay::<xiangqi::Game> {
        config,
        mcts: &mcts,
        source: &source,
        opponent: None,
        shard_dir: dir,
        seed: 7,
        instance: 0,
        max_games: None,
        stop: &stop,
        progress: &progress,
        observer: &*observer,
    };
    let e = selfplay.run().expect_err("the evaluator fails");
    (e, progress.snapshot().games, failing)
}

#[test]
fn an_evaluator_error_stops_self_play_and_drops_the_games_in_flight() {
    const FAIL_ON: u64 = 200;
    // One shard per game: the worker writes each game the moment it ends, before its next
    // search round, so the evaluator's call count at each write says whether that game ended
    // before the failing call. A game in flight at the failure written afterwards (finished
    // or cut short) would show a count of FAIL_ON.
    let config = SelfplayConfig { games_per_shard: 1, max_plies: 6, fast_simulations: 0, ..micro() };
    let dir = temp_dir("eval-error");
    let writes = Arc::new(Mutex::new(Vec::new()));
    let (e, finished, failing) = play_until_failure(&config, &dir, FAIL_ON, |failing| {
        Box::new(CallsAtWrite { evaluator: Arc::clone(failing), writes: Arc::clone(&writes) })
    });
    assert!(
        matches!(&e, SelfplayError::Evaluation { worker: 0, error: EvalError::Injected { call: FAIL_ON } }),
        "{e:?}"
    );
    assert_eq!(e.to_string(), "self-play worker 0: injected evaluator failure on call 200");
    assert_eq!(failing.calls(), FAIL_ON, "the worker stops at the first failed call");
    let writes = writes.lock().expect("not poisoned").clone();
    assert!(!writes.is_empty(), "games finished before the failure");
    assert!(writes.iter().all(|&calls| calls < FAIL_ON), "a shard was written after the failure: {writes:?}");
    let shards = read_all(&dir);
    assert_eq!(shards.len(), writes.len());
    assert_eq!(shards.len() as u64, finished, "every finished game is written, and nothing else");
    check_games::<xiangqi::Game>(&shards, &config, &[selfplay::seed::worker_seed(7, 0, 0)]);
    let mut before: Vec<GameRecord> = shards.into_iter().flat_map(|(_, s)| s.games).collect();
    before.sort_by_key(|g| g.game_id);

    // The same games with every finished game buffered until the worker stops: its last shard,
    // written after the failure, holds exactly the games that ended before it.
    let buffered = SelfplayConfig { games_per_shard: 1000, ..config.clone() };
    let dir_buffered = temp_dir("eval-error-buffered");
    let (e, finished, _) = play_until_failure(&buffered, &dir_buffered, FAIL_ON, |_| Box::new(NoObserver));
    assert!(matches!(e, SelfplayError::Evaluation { .. }), "{e:?}");
    let shards = read_all(&dir_buffered);
    assert_eq!(shards.len(), 1);
    let mut after: Vec<GameRecord> = shards.into_iter().flat_map(|(_, s)| s.games).collect();
    after.sort_by_key(|g| g.game_id);
    assert_eq!(after.len() as u64, finished);
    assert_eq!(after, before, "the games finished before the failure, and no game that was in flight");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&dir_buffered);
}

#[test]
fn an_evaluator_error_stops_every_worker() {
    let config = SelfplayConfig { workers: 3, games_per_shard: 1, max_plies: 6, ..micro() };
    let dir = temp_dir("eval-error-workers");
    let (e, finished, _) = play_until_failure(&config, &dir, 120, |_| Box::new(NoObserver));
    assert!(matches!(e, SelfplayError::Evaluation { error: EvalError::Injected { .. }, .. }), "{e:?}");
    let shards = read_all(&dir);
    assert_eq!(shards.len() as u64, finished);
    let seeds: Vec<u64> = (0..3).map(|k| selfplay::seed::worker_seed(7, 0, k)).collect();
    check_games::<xiangqi::Game>(&shards, &config, &seeds);
    let _ = std::fs::remove_dir_all(&dir);
}

/// With a Gumbel root every full search records the improved policy (over every legal move)
/// beside the visit shares, and a PUCT root records none.
#[test]
fn a_gumbel_root_records_improved_policies() {
    let config = SelfplayConfig { fast_simulations: 0, no_resign_fraction: 1.0, ..micro() };
    let mcts = MctsParams { root: mcts::Root::Gumbel, ..params() };
    let dir = temp_dir("gumbel");
    let totals = play_with::<xiangqi::Game>(&config, &mcts, UniformEvaluator, &dir, 1, 4, &NoObserver);
    assert_eq!(totals.games, 4);
    let shards = read_all(&dir);
    let mut samples = 0;
    for (path, shard) in &shards {
        for record in &shard.games {
            for replayed in record.replay::<xiangqi::Game>(path).unwrap_or_else(|e| panic!("{e}")) {
                samples += 1;
                let legal = replayed.game.legal_moves().as_ref().len();
                assert_eq!(replayed.improved.len(), legal, "the improved policy lists every legal move");
                let total: f32 = replayed.improved.iter().map(|&(_, p)| p).sum();
                assert!((total - 1.0).abs() < 1e-4, "{total}");
                assert!(!replayed.pi.is_empty(), "the visit shares are kept beside it");
            }
        }
    }
    assert_eq!(samples as u64, totals.samples);
    assert!(samples > 0);
    let _ = std::fs::remove_dir_all(&dir);

    let dir = temp_dir("puct-improved");
    play::<xiangqi::Game>(&config, UniformEvaluator, &dir, 1, 2, &NoObserver);
    for (_, shard) in read_all(&dir) {
        assert!(shard.games.iter().flat_map(|g| &g.samples).all(|s| s.improved.is_empty()));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An opponent that always plays the first legal move and reads every position at 0.3.
struct FirstMove;

impl<G: Game> Opponent<G> for FirstMove {
    fn choose(&self, game: &G) -> Option<(G::Move, f32)> {
        game.legal_moves().as_ref().first().map(|&mv| (mv, 0.3))
    }
}

/// Plays `games` games of `config` against [`FirstMove`] and returns the shards' games.
fn play_against_first_move(name: &str, config: &SelfplayConfig, games: u64) -> (Totals, Vec<GameRecord>) {
    let dir = temp_dir(name);
    let totals = play_xiangqi(config, &dir, Some(&FirstMove), games).expect("self-play runs");
    let records = read_all(&dir).into_iter().flat_map(|(_, s)| s.games).collect();
    let _ = std::fs::remove_dir_all(&dir);
    (totals, records)
}

/// The side whose every move in `record` was the first legal move, if one side's were.
fn first_move_sides(record: &GameRecord) -> Vec<Side> {
    let mut game = xiangqi::Game::from_fen(&record.start_fen).expect("start fen");
    let mut always = [true, true];
    for text in &record.moves {
        let mv = game.parse_move(text).expect("a legal move");
        let first = game.legal_moves().as_ref()[0];
        always[game.side_to_move().index()] &= mv == first;
        game.play(mv).expect("legal");
    }
    Side::BOTH.into_iter().filter(|s| always[s.index()]).collect()
}

/// Each sample of `record` with the position it was taken at.
fn sample_positions(record: &GameRecord) -> Vec<(xiangqi::Game, &shard::Sample)> {
    let mut game = xiangqi::Game::from_fen(&record.start_fen).expect("start fen");
    let mut at = 0;
    let mut out = Vec::new();
    for sample in &record.samples {
        while at < sample.ply as usize {
            game.play(game.parse_move(&record.moves[at]).expect("legal")).expect("legal");
            at += 1;
        }
        out.push((game.clone(), sample));
    }
    out
}

#[test]
fn opponent_games_play_the_opponent_and_record_its_moves() {
    let config = SelfplayConfig { fast_simulations: 0, max_plies: 16, opponent_games: 1.0, ..micro() };
    let (totals, records) = play_against_first_move("opponent", &config, 6);
    assert_eq!(records.len(), 6);
    assert_eq!(totals.samples, totals.moves, "both sides' moves are samples");
    assert_eq!(totals.opponent_games, 6);
    let (w, d, l) = totals.opponent_record();
    assert_eq!(w + d + l, 6);
    assert_eq!(d, totals.draws, "every game is against the opponent");
    let mut sides = HashSet::new();
    for record in &records {
        let opponent = first_move_sides(record);
        assert_eq!(opponent.len(), 1, "one side, and only one, plays the first move every time: {:?}", record.moves);
        sides.insert(opponent[0]);
        for (game, sample) in sample_positions(record) {
            if game.side_to_move() == opponent[0] {
                let first = game.move_to_string(game.legal_moves().as_ref()[0]);
                assert_eq!(sample.pi, vec![(first, 1.0)], "the opponent's move, all of the target");
                assert!(sample.improved.is_empty());
                assert!((sample.root_value - 0.3).abs() < 1e-6, "the opponent's value");
            } else {
                assert!(sample.pi.len() > 1 || sample.root_value != 0.3, "the net's own search");
            }
        }
    }
    assert_eq!(sides.len(), 2, "the opponent plays both colours over six games: {sides:?}");

    // Without its samples: only the net's moves are recorded.
    let config = SelfplayConfig { opponent_samples: false, ..config };
    let (totals, records) = play_against_first_move("opponent-quiet", &config, 4);
    assert!(totals.samples > 0 && totals.samples < totals.moves);
    for record in &records {
        let opponent = first_move_sides(record)[0];
        for (game, _) in sample_positions(record) {
            assert_ne!(game.side_to_move(), opponent, "no sample of the opponent's moves");
        }
    }
}

#[test]
fn opponent_games_without_an_opponent_are_an_error() {
    let dir = temp_dir("no-opponent");
    let e = play_xiangqi(&SelfplayConfig { opponent_games: 0.5, ..micro() }, &dir, None, 1).expect_err("no opponent");
    assert_eq!(
        e.to_string(),
        "selfplay.opponent_games = 0.5 asks for games against a fixed opponent, and this self-play job has none"
    );
    assert!(!dir.exists(), "nothing written");
}

#[test]
fn a_random_opening_starts_each_game_after_a_few_random_plies_that_are_not_samples() {
    let play = |name: &str, opening_plies: u32, games: u64| {
        let config = SelfplayConfig { fast_simulations: 0, max_plies: 16, opening_plies, ..micro() };
        let dir = temp_dir(name);
        let totals = play_xiangqi(&config, &dir, None, games).expect("self-play runs");
        let records: Vec<GameRecord> = read_all(&dir).into_iter().flat_map(|(_, s)| s.games).collect();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(records.len() as u64, games);
        assert_eq!(totals.moves, records.iter().map(|r| r.moves.len() as u64).sum::<u64>(), "opening moves counted");
        records
    };
    let start = xiangqi::Game::new().fen();
    let mut lengths = HashSet::new();
    let mut openings = HashSet::new();
    for record in play("opening", 4, 12) {
        assert_eq!(record.start_fen, start, "recorded from the start position, opening included");
        let first = record.samples.first().map_or(record.moves.len(), |s| s.ply as usize);
        assert!(first <= 4, "at most four opening plies: {first}");
        for (k, sample) in record.samples.iter().enumerate() {
            assert_eq!(sample.ply as usize, first + k, "every move after the opening is a sample");
        }
        assert_eq!(sample_positions(&record).len(), record.samples.len(), "the record replays");
        lengths.insert(first);
        openings.insert(record.moves[..first].to_vec());
    }
    assert!(lengths.len() >= 3, "the opening's length is drawn per game: {lengths:?}");
    assert!(openings.len() >= 6, "and its moves: {openings:?}");

    // Off: every game's first move is a sample.
    for record in play("no-opening", 0, 4) {
        assert_eq!(record.samples.first().map(|s| s.ply), Some(0));
    }
}
