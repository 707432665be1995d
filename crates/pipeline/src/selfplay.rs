//! Self-play into a run directory: the `selfplay` library's workers with a run's model source,
//! its shards folder, a `selfplay` metrics line per shard, progress and a summary for the user.
//! `qizero selfplay` and the scheduler's self-play phase both come through [`play`].

use crate::config::RunConfig;
use crate::error::PipelineError;
use crate::metrics::{MetricsEvent, MetricsLog, SelfplayEvent};
use crate::models::CheckpointSource;
use crate::report::{Progress, Reporter};
use crate::run_dir::RunDir;
use alphabeta::{Limits, SearchGame, Searcher};
use encode::Encode;
use nn::{InferenceService, ServiceStats};
use selfplay::{Observer, Selfplay, ShardReport, Totals};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// One self-play job in a run directory.
pub struct Job<'a, G: Encode> {
    /// The run.
    pub run: &'a RunDir,
    /// Its configuration (`[mcts]`, the seed).
    pub config: &'a RunConfig,
    /// The `[selfplay]` table to play with (the run's, or this process's variant of it).
    pub selfplay: &'a selfplay::SelfplayConfig,
    /// The model source (and its inference service).
    pub source: &'a CheckpointSource<G>,
    /// The fixed opponent of `selfplay.opponent_games` ([`EngineOpponent::for_config`]).
    pub opponent: Option<&'a dyn selfplay::Opponent<G>>,
    /// Games to play in all; `None`: until `stop`.
    pub max_games: Option<u64>,
    /// The process-unique part of the worker seeds.
    pub instance: u64,
    /// Raised to stop: the finished games are written, the rest dropped.
    pub stop: &'a AtomicBool,
    /// Where progress and the summary go.
    pub reporter: &'a dyn Reporter,
}

/// The alpha-beta engine as self-play's fixed opponent: a full-width search `depth` plies deep
/// and the engine's capture search below it, the score read as `tanh(score / scale)` in the
/// leaf teacher's units. Each call borrows a searcher (table and all) from a small pool, so
/// that the workers search at once without sharing one.
pub struct EngineOpponent {
    depth: u32,
    scale: f32,
    pool: Mutex<Vec<Searcher>>,
}

impl EngineOpponent {
    /// Table size of each pooled searcher, mebibytes (the arena's alpha-beta default).
    const HASH_MB: usize = 16;

    /// The opponent `selfplay` asks for: `None` when `opponent_games` is 0.
    #[must_use]
    pub fn for_config(selfplay: &selfplay::SelfplayConfig) -> Option<EngineOpponent> {
        (selfplay.opponent_games > 0.0).then(|| EngineOpponent {
            depth: selfplay.opponent_depth,
            scale: selfplay.leaf_teacher_scale,
            pool: Mutex::new(Vec::new()),
        })
    }
}

impl<G: SearchGame> selfplay::Opponent<G> for EngineOpponent {
    fn choose(&self, game: &G) -> Option<(G::Move, f32)> {
        let pooled = self.pool.lock().ok().and_then(|mut pool| pool.pop());
        let mut searcher = pooled.unwrap_or_else(|| Searcher::new(Self::HASH_MB));
        let limits = Limits { depth: Some(self.depth), ..Limits::default() };
        let result = searcher.search(game, &limits, |_| {});
        if let Ok(mut pool) = self.pool.lock() {
            pool.push(searcher);
        }
        let value = (result.raw_score as f32 / self.scale).tanh();
        result.best.map(|mv| (mv, value))
    }
}

/// A process-unique number for the worker seeds: the operating system's randomness (through
/// the standard library's hasher seeding), the process id and the time.
#[must_use]
pub fn random_instance() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    h.finish()
}

/// Plays the job's games into the run's shards, with progress, a summary and a metrics line per
/// shard. Returns the counters.
///
/// # Errors
/// As [`Selfplay::run`] (a failed evaluation stops every worker and is named here).
pub fn play<G: Encode>(job: &Job<'_, G>) -> Result<Totals, PipelineError> {
    let progress = selfplay::Progress::new();
    let bar = job.reporter.progress(job.max_games, "games");
    let service = job.source.service();
    let observer = MetricsObserver { metrics: MetricsLog::new(job.run.metrics()), service, bar: &*bar };
    let shards = job.run.shards();
    let selfplay = Selfplay {
        config: job.selfplay,
        mcts: &job.config.mcts,
        source: job.source,
        opponent: job.opponent,
        shard_dir: &shards,
        seed: job.config.seed,
        instance: job.instance,
        max_games: job.max_games,
        stop: job.stop,
        progress: &progress,
        observer: &observer,
    };
    let start = Instant::now();
    let done = AtomicBool::new(false);
    let before = service.stats();
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                show(&*bar, &progress.snapshot(), service, before, start.elapsed());
                for warning in job.source.take_warnings() {
                    bar.say(&warning);
                }
                std::thread::sleep(Duration::from_millis(250));
            }
        });
        let result = selfplay.run();
        done.store(true, Ordering::Relaxed);
        result
    });
    let totals = progress.snapshot();
    show(&*bar, &totals, service, before, start.elapsed());
    for warning in job.source.take_warnings() {
        bar.say(&warning);
    }
    drop(bar);
    summary(job.reporter, &totals, service, before, start.elapsed());
    result?;
    Ok(totals)
}

fn rate(count: u64, elapsed: Duration) -> f64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 { count as f64 / secs } else { 0.0 }
}

fn false_resign_text(t: &Totals) -> String {
    match t.false_resign_rate() {
        Some(r) => format!("{:.1}% of {}", 100.0 * r, t.would_resign),
        None => "n/a".to_owned(),
    }
}

/// The service's counters since `before`.
fn since(service: &InferenceService, before: ServiceStats) -> ServiceStats {
    let now = service.stats();
    ServiceStats {
        requests: now.requests - before.requests,
        positions: now.positions - before.positions,
        forward_passes: now.forward_passes - before.forward_passes,
        forward_positions: now.forward_positions - before.forward_positions,
        cache_hits: now.cache_hits - before.cache_hits,
        forward_seconds: now.forward_seconds - before.forward_seconds,
    }
}

fn show(bar: &dyn Progress, t: &Totals, service: &InferenceService, before: ServiceStats, elapsed: Duration) {
    let s = since(service, before);
    bar.set_position(t.games);
    bar.set_message(&format!(
        "{:.1} pos/s  {:.0} evals/s  batch {:.1}  W/D/L {}/{}/{}  resigned {}  false-resign {}",
        rate(t.moves, elapsed),
        rate(s.positions, elapsed),
        s.mean_batch(),
        t.first_wins,
        t.draws,
        t.second_wins,
        t.resigned,
        false_resign_text(t)
    ));
}

fn summary(reporter: &dyn Reporter, t: &Totals, service: &InferenceService, before: ServiceStats, elapsed: Duration) {
    let s = since(service, before);
    let secs = elapsed.as_secs_f64();
    reporter.say(&format!(
        "selfplay: {} games, {} positions ({} samples) in {secs:.1} s: {:.1} positions/s, {:.0} evaluations/s, \
         mean batch {:.1} (net busy {:.0}% of {} thread(s)), {} shards",
        t.games,
        t.moves,
        t.samples,
        rate(t.moves, elapsed),
        rate(s.positions, elapsed),
        s.mean_batch(),
        if secs > 0.0 { 100.0 * s.forward_seconds / secs / service.config().net_threads as f64 } else { 0.0 },
        service.config().net_threads,
        t.shards
    ));
    if s.cache_hits > 0 || service.config().cache_entries > 0 {
        reporter.say(&format!(
            "evaluation cache: {} of {} positions answered from the cache ({:.1}%)",
            s.cache_hits,
            s.positions,
            100.0 * s.cache_hit_rate()
        ));
    }
    reporter.say(&format!(
        "results (first player): W/D/L {}/{}/{}, resigned {}, capped {}, repetitions {}, false-resign rate {}",
        t.first_wins,
        t.draws,
        t.second_wins,
        t.resigned,
        t.capped,
        t.repetitions,
        false_resign_text(t)
    ));
    if t.opponent_games > 0 {
        let (w, d, l) = t.opponent_record();
        reporter.say(&format!("against the alpha-beta opponent (the net's view): W/D/L {w}/{d}/{l}"));
    }
}

/// Writes a `selfplay` metrics line per shard and notes model changes above the progress bar.
struct MetricsObserver<'a> {
    metrics: MetricsLog,
    service: &'a InferenceService,
    bar: &'a dyn Progress,
}

impl Observer for MetricsObserver<'_> {
    fn shard_written(&self, r: &ShardReport) {
        let t = &r.totals;
        let event = SelfplayEvent {
            worker: r.worker,
            worker_id: r.worker_id.clone(),
            shard: r.path.file_name().map(|n| n.to_string_lossy().into_owned()),
            model: r.model_id.clone(),
            games: t.games,
            positions: t.moves,
            samples: t.samples,
            first_wins: t.first_wins,
            draws: t.draws,
            second_wins: t.second_wins,
            resigned: t.resigned,
            capped: t.capped,
            repetitions: t.repetitions,
            no_resign_games: t.no_resign_games,
            would_resign: t.would_resign,
            false_resigns: t.false_resigns,
            moves_played: r.moves_played,
            seconds: r.seconds,
            evaluations: t.positions_evaluated,
            positions_per_s: r.moves_per_second(),
            evals_per_s: r.evaluations_per_second(),
            worker_batch: t.mean_batch(),
            mean_batch: self.service.stats().mean_batch(),
            cache_hit_rate: self.service.stats().cache_hit_rate(),
        };
        if let Err(e) = self.metrics.append(MetricsEvent::Selfplay(event)) {
            self.bar.say(&format!("warning: {e}"));
        }
    }

    fn model_changed(&self, id: &str) {
        self.bar.say(&format!("selfplay: now playing with model {id}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::Game as _;
    use selfplay::Opponent as _;

    #[test]
    fn the_engine_opponent_takes_a_hanging_rook_and_says_so() {
        assert!(EngineOpponent::for_config(&selfplay::SelfplayConfig::default()).is_none(), "off by default");
        let config = selfplay::SelfplayConfig { opponent_games: 0.5, ..selfplay::SelfplayConfig::default() };
        let opponent = EngineOpponent::for_config(&config).expect("on");
        // Red's rook on e0 takes black's on e5, which nothing retakes.
        let game = xiangqi::Game::from_fen("5k3/9/9/9/4r4/9/9/9/9/3KR4 w - - 0 1").expect("fen");
        let (mv, value) = opponent.choose(&game).expect("a move");
        assert_eq!(game.move_to_string(mv), "e0e5");
        assert!(value > 0.7, "a rook up reads well above tanh(1): {value}");
        // Again, with the searcher from the pool, and from the other side's view.
        let game = xiangqi::Game::from_fen("3kr4/9/9/9/9/4R4/9/9/9/5K3 b - - 0 1").expect("fen");
        let (mv, value) = opponent.choose(&game).expect("a move");
        assert_eq!(game.move_to_string(mv), "e9e4");
        assert!(value > 0.7, "{value}");
        assert_eq!(opponent.pool.lock().expect("pool").len(), 1, "one searcher, reused");
    }
}
