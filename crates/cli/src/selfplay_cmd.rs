//! `qizero selfplay`: glue between the `selfplay` library and a run directory. Loads the config,
//! prepares the run directory, serves the run's newest checkpoint (a randomly initialised net
//! when there is none yet) through one batching inference service shared by all workers, shows
//! progress, appends a `metrics.jsonl` line per shard, and stops cleanly on Ctrl-C.

use anyhow::{Context, Result};
use clap::Args;
use encode::Encode;
use indicatif::{ProgressBar, ProgressStyle};
use nn::{InferenceService, NetConfig, PolicyValueNet, ServiceStats};
use selfplay::{Model, ModelSource, Observer, Progress, Selfplay, ShardReport, SourceError, Totals};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::GameName;
use crate::config::{self, RunConfig};
use crate::metrics;

/// The model id of the randomly initialised net played before any checkpoint exists.
const RANDOM_INIT: &str = "random-init";

/// Arguments of `qizero selfplay`.
#[derive(Args)]
pub struct SelfplayArgs {
    /// The config preset (TOML), e.g. configs/xiangqi-tiny.toml.
    #[arg(long)]
    config: PathBuf,
    /// The run directory: shards go to <run>/shards, checkpoints are read from <run>/checkpoints.
    #[arg(long)]
    run: PathBuf,
    /// Games to play in all (over all workers), then stop; without it, play until Ctrl-C.
    #[arg(long)]
    games: Option<u64>,
    /// Worker threads (overrides selfplay.workers for this process only; not part of the run's
    /// config, so processes with different worker counts can share a run).
    #[arg(long)]
    workers: Option<usize>,
    /// Override a config value, e.g. --set selfplay.simulations=64 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// The process-unique part of the worker seeds (drawn at random when absent and printed);
    /// pass a printed one back to replay a process's games.
    #[arg(long)]
    instance: Option<u64>,
}

/// `qizero selfplay`.
pub fn run(args: &SelfplayArgs) -> Result<()> {
    let config = config::load(&args.config, &args.overrides)?;
    config::prepare_run_dir(&args.run, &config)?;
    // Nets no longer set libtorch's thread count when built: this phase sets it once.
    nn::set_cpu_threads(config.net.cpu_threads);
    match config.game {
        GameName::Xiangqi => run_game::<xiangqi::Game>(args, &config),
        GameName::Draughts => run_game::<draughts::Game>(args, &config),
    }
}

fn run_game<G: Encode>(args: &SelfplayArgs, config: &RunConfig) -> Result<()> {
    let mut sp = config.selfplay.clone();
    if let Some(workers) = args.workers {
        sp.workers = workers;
    }
    sp.validate()?;
    let instance = args.instance.unwrap_or_else(random_instance);
    let source = CheckpointSource::<G>::start(&args.run, config)?;
    eprintln!(
        "selfplay: {} with model {}, {} worker(s) x {} games in flight, {} simulations per move, instance {instance}",
        G::NAME,
        source.current().id,
        sp.workers,
        sp.games_in_flight,
        sp.simulations
    );

    let stop = crate::signals::stop_flag("stopping: writing the finished games")?;
    play(&args.run, config, &sp, &source, &source.service, args.games, instance, &stop)?;
    Ok(())
}

/// Plays self-play games into `run/shards` with `source`'s model (served by `service`) until
/// `max_games` games are finished (`None`: until `stop`), with a progress bar, a summary and a
/// `metrics.jsonl` line per shard. Returns the counters.
///
/// # Errors
/// As [`Selfplay::run`].
#[allow(clippy::too_many_arguments)]
pub fn play<G: Encode>(
    run: &Path,
    config: &RunConfig,
    sp: &selfplay::SelfplayConfig,
    source: &dyn ModelSource<G>,
    service: &InferenceService,
    max_games: Option<u64>,
    instance: u64,
    stop: &AtomicBool,
) -> Result<Totals> {
    let progress = Progress::new();
    let bar = match max_games {
        Some(n) => ProgressBar::new(n),
        None => ProgressBar::no_length(),
    };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let observer = MetricsObserver { run, service, bar: &bar };
    let shard_dir = run.join("shards");
    let selfplay = Selfplay {
        config: sp,
        mcts: &config.mcts,
        source,
        shard_dir: &shard_dir,
        seed: config.seed,
        instance,
        max_games,
        stop,
        progress: &progress,
        observer: &observer,
    };
    let start = Instant::now();
    let done = AtomicBool::new(false);
    let before = service.stats();
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                show(&bar, &progress.snapshot(), service, before, start.elapsed());
                std::thread::sleep(Duration::from_millis(250));
            }
        });
        let result = selfplay.run();
        done.store(true, Ordering::Relaxed);
        result
    });
    let totals = progress.snapshot();
    show(&bar, &totals, service, before, start.elapsed());
    bar.finish_and_clear();
    summary(&totals, service, before, start.elapsed());
    result.context("self-play")?;
    Ok(totals)
}

/// A process-unique number for the worker seeds: the operating system's randomness (through
/// the standard library's hasher seeding), the process id and the time.
fn random_instance() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    h.finish()
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

fn show(bar: &ProgressBar, t: &Totals, service: &InferenceService, before: ServiceStats, elapsed: Duration) {
    let s = since(service, before);
    bar.set_position(t.games);
    bar.set_message(format!(
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

fn summary(t: &Totals, service: &InferenceService, before: ServiceStats, elapsed: Duration) {
    let s = since(service, before);
    let secs = elapsed.as_secs_f64();
    println!(
        "selfplay: {} games, {} positions ({} samples) in {secs:.1} s: {:.1} positions/s, {:.0} evaluations/s, \
         mean batch {:.1} (net busy {:.0}%), {} shards",
        t.games,
        t.moves,
        t.samples,
        rate(t.moves, elapsed),
        rate(s.positions, elapsed),
        s.mean_batch(),
        if secs > 0.0 { 100.0 * s.forward_seconds / secs } else { 0.0 },
        t.shards
    );
    println!(
        "results (first player): W/D/L {}/{}/{}, resigned {}, capped {}, false-resign rate {}",
        t.first_wins,
        t.draws,
        t.second_wins,
        t.resigned,
        t.capped,
        false_resign_text(t)
    );
}

/// Writes a `metrics.jsonl` line per shard and notes model changes above the progress bar.
struct MetricsObserver<'a> {
    run: &'a Path,
    service: &'a InferenceService,
    bar: &'a ProgressBar,
}

impl Observer for MetricsObserver<'_> {
    fn shard_written(&self, r: &ShardReport) {
        let t = &r.totals;
        let line = serde_json::json!({
            "worker": r.worker,
            "worker_id": r.worker_id,
            "shard": r.path.file_name().map(|n| n.to_string_lossy().into_owned()),
            "model": r.model_id,
            "games": t.games,
            "positions": t.moves,
            "samples": t.samples,
            "first_wins": t.first_wins,
            "draws": t.draws,
            "second_wins": t.second_wins,
            "resigned": t.resigned,
            "capped": t.capped,
            "no_resign_games": t.no_resign_games,
            "would_resign": t.would_resign,
            "false_resigns": t.false_resigns,
            "moves_played": r.moves_played,
            "seconds": r.seconds,
            "positions_per_s": r.moves_per_second(),
            "evals_per_s": r.evaluations_per_second(),
            "worker_batch": t.mean_batch(),
            "mean_batch": self.service.stats().mean_batch(),
        });
        if let Err(e) = metrics::append(self.run, "selfplay", line) {
            self.bar.println(format!("warning: {e:#}"));
        }
    }

    fn model_changed(&self, id: &str) {
        self.bar.println(format!("selfplay: now playing with model {id}"));
    }
}

/// The run's newest checkpoint served by one inference service; a random net before the first.
struct CheckpointSource<G: Encode> {
    /// Declared before `service`, so it is dropped first: the service's thread (joined when the
    /// service drops) ends only once every evaluator made from it is gone.
    evaluator: Arc<dyn mcts::Evaluator<G>>,
    service: InferenceService,
    checkpoints: PathBuf,
    net: NetConfig,
    /// The step and id of the model being served (no step: the random net).
    current: Mutex<(Option<u64>, Arc<str>)>,
    /// A checkpoint that failed to load, not to be tried again.
    failed: Mutex<Option<u64>>,
}

impl<G: Encode> CheckpointSource<G> {
    fn start(run: &Path, config: &RunConfig) -> Result<CheckpointSource<G>> {
        let checkpoints = run.join("checkpoints");
        let (net, step, id) = match nn::checkpoint::latest_in(&checkpoints) {
            Some((step, path)) => {
                let (net, _) = nn::checkpoint::load(&path, G::NAME, G::ENCODING, &config.net)
                    .with_context(|| format!("loading {}", path.display()))?;
                (net, Some(step), checkpoint_id(&path))
            }
            None => {
                let net = PolicyValueNet::for_game::<G>(&config.net, config.seed).context("building the net")?;
                (net, None, RANDOM_INIT.into())
            }
        };
        let service = InferenceService::start(net, config.inference.clone())?;
        let evaluator: Arc<dyn mcts::Evaluator<G>> = Arc::new(service.evaluator::<G>());
        Ok(CheckpointSource {
            service,
            evaluator,
            checkpoints,
            net: config.net.clone(),
            current: Mutex::new((step, id)),
            failed: Mutex::new(None),
        })
    }
}

/// A checkpoint's model id: its file stem (`<step>-<sha12>`).
fn checkpoint_id(path: &Path) -> Arc<str> {
    path.file_stem().map_or_else(|| path.display().to_string(), |s| s.to_string_lossy().into_owned()).into()
}

impl<G: Encode> ModelSource<G> for CheckpointSource<G> {
    fn current(&self) -> Model<G> {
        let id = match self.current.lock() {
            Ok(c) => Arc::clone(&c.1),
            Err(poisoned) => Arc::clone(&poisoned.get_ref().1),
        };
        Model { id, evaluator: Arc::clone(&self.evaluator) }
    }

    /// A checkpoint that fails to load is reported once and skipped: self-play goes on with
    /// the model it has rather than stopping the run over one bad file.
    fn poll(&self) -> Result<Option<Arc<str>>, SourceError> {
        let Some((step, path)) = nn::checkpoint::latest_in(&self.checkpoints) else { return Ok(None) };
        let mut current = self.current.lock().map_err(|_| "model lock poisoned")?;
        if current.0.is_some_and(|s| s >= step) {
            return Ok(None);
        }
        let mut failed = self.failed.lock().map_err(|_| "model lock poisoned")?;
        if *failed == Some(step) {
            return Ok(None);
        }
        match nn::checkpoint::load(&path, G::NAME, G::ENCODING, &self.net) {
            Ok((net, _)) => {
                self.service.replace_net(net);
                *current = (Some(step), checkpoint_id(&path));
                Ok(Some(Arc::clone(&current.1)))
            }
            Err(e) => {
                eprintln!("warning: skipping checkpoint {}: {e}", path.display());
                *failed = Some(step);
                Ok(None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoint_source_picks_up_newer_checkpoints() {
        let run = std::env::temp_dir().join(format!("qizero-selfplay-source-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&run);
        let dir = run.join("checkpoints");
        std::fs::create_dir_all(&dir).expect("creates");
        let text = "game = \"xiangqi\"\n[net]\nblocks = 1\nchannels = 8\npolicy_channels = 1\nvalue_hidden = 8\n\
                    device = \"cpu\"\n";
        let config = config::parse(text, &[]).expect("parses");
        let source = CheckpointSource::<xiangqi::Game>::start(&run, &config).expect("starts");
        assert_eq!(&*source.current().id, RANDOM_INIT);
        assert_eq!(source.poll().expect("polls"), None);

        // Weights without their lineage file are still being written: not taken.
        let net = PolicyValueNet::for_game::<xiangqi::Game>(&config.net, 3).expect("net");
        nn::checkpoint::save(&net, &dir.join("5-abc.safetensors"), 5, &[]).expect("saves");
        assert_eq!(source.poll().expect("polls"), None);
        std::fs::write(dir.join("5.json"), "{}").expect("writes");
        assert_eq!(source.poll().expect("polls").as_deref(), Some("5-abc"));
        assert_eq!(&*source.current().id, "5-abc");
        assert_eq!(source.poll().expect("polls"), None);

        // A newer file that does not load is skipped; the model in use stays.
        std::fs::write(dir.join("7-bad.safetensors"), "not a checkpoint").expect("writes");
        std::fs::write(dir.join("7.json"), "{}").expect("writes");
        assert_eq!(source.poll().expect("polls"), None);
        assert_eq!(&*source.current().id, "5-abc");

        let game = xiangqi::Game::new();
        let moves = game.legal_moves();
        let batch = [mcts::EvalRequest { game: &game, moves: moves.as_ref() }];
        let out = source.current().evaluator.evaluate(&batch).expect("evaluates");
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].priors.len(), moves.as_ref().len());
        drop(source);
        let _ = std::fs::remove_dir_all(&run);
    }
}
