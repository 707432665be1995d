//! `qizero bench nn` and `qizero bench mcts`: the net's raw forward throughput, and how much of it
//! MCTS keeps when many games feed one batching inference service.

use anyhow::{Context, Result};
use clap::Args;
use encode::Encode;
use mcts::{Evaluator, MctsParams, Search, UniformEvaluator, search_many};
use nn::{InferenceService, NetConfig, PolicyValueNet, ServiceConfig};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tch::Tensor;

use crate::GameName;

/// The net to measure: its game, shape (or checkpoint) and device.
#[derive(Args, Clone)]
pub struct NetShape {
    /// Which game's net.
    #[arg(long, value_enum, default_value_t = GameName::Xiangqi)]
    pub(crate) game: GameName,
    /// Residual blocks.
    #[arg(long, default_value_t = NetConfig::default().blocks)]
    blocks: usize,
    /// Channels per convolution.
    #[arg(long, default_value_t = NetConfig::default().channels)]
    channels: usize,
    /// Squeeze-excitation ratio (0 = off).
    #[arg(long, default_value_t = 0)]
    se_ratio: usize,
    /// Device: auto, cpu, cuda or cuda:N.
    #[arg(long, default_value = "auto")]
    device: String,
    /// Time this checkpoint's net (its architecture comes from the file; --blocks, --channels
    /// and --se-ratio are then ignored) instead of a randomly initialised one; `default` is the
    /// game's shipped model.
    #[arg(long, value_name = "CKPT")]
    weights: Option<String>,
}

/// The net to measure: its shape, precision and CPU threads.
#[derive(Args, Clone)]
pub struct NetArgs {
    #[command(flatten)]
    pub(crate) shape: NetShape,
    /// Half precision (CUDA only).
    #[arg(long)]
    pub(crate) half: bool,
    /// CPU threads libtorch uses inside one operation (0 = its default, one per core). The
    /// engines (`qizero uci|hub --weights`) default to 1.
    #[arg(long, default_value_t = 0)]
    pub(crate) threads: usize,
}

impl NetArgs {
    fn config(&self) -> NetConfig {
        NetConfig {
            blocks: self.shape.blocks,
            channels: self.shape.channels,
            se_ratio: self.shape.se_ratio,
            device: self.shape.device.clone(),
            half: self.half,
            ..NetConfig::default()
        }
    }
}

/// Arguments of `qizero bench nn`.
#[derive(Args)]
pub struct NnArgs {
    #[command(flatten)]
    net: NetArgs,
    /// Batch sizes to time, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16,32,64,128,256,512,1024")]
    batches: Vec<usize>,
    /// Seconds to time each batch size (at least 3 passes each).
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
}

/// Arguments of `qizero bench mcts`.
#[derive(Args)]
pub struct MctsArgs {
    #[command(flatten)]
    net: NetArgs,
    /// Simulations of the single-tree uniform-evaluator search.
    #[arg(long, default_value_t = 200_000)]
    uniform_sims: u32,
    /// Games searched at once against the net.
    #[arg(long, default_value_t = 64)]
    games: usize,
    /// Simulations per move in the net part.
    #[arg(long, default_value_t = 32)]
    sims: u32,
    /// Leaves each tree gathers per evaluator call (virtual loss).
    #[arg(long, default_value_t = 1)]
    leaves: u32,
    /// Seconds of MCTS in the net part (the raw-forward timing adds half as much again).
    #[arg(long, default_value_t = 30.0)]
    seconds: f64,
    /// Rounds the net part alternates MCTS with raw-forward timing.
    #[arg(long, default_value_t = 5)]
    rounds: u32,
    /// Skip the net part (uniform evaluator only).
    #[arg(long)]
    uniform_only: bool,
}

/// An evaluator that counts the time spent inside it.
struct Timed<E> {
    inner: E,
    nanos: AtomicU64,
}

impl<G: Encode, E: Evaluator<G>> Evaluator<G> for Timed<E> {
    fn evaluate(&self, batch: &[mcts::EvalRequest<'_, G>]) -> Result<Vec<mcts::Evaluation>, mcts::EvalError> {
        let start = Instant::now();
        let out = self.inner.evaluate(batch);
        self.nanos.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        out
    }
}

/// Forward passes per second at `batch`, for at least `seconds` and 3 passes.
/// Random 0/1 planes for `batch` positions.
fn random_planes(info: &encode::EncodingInfo, batch: usize, seed: u64) -> Vec<f32> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..batch * info.plane_len()).map(|_| f32::from(rng.random_range(0u8..2))).collect()
}

/// Forward passes per second at `batch` on the input `data` (`batch` positions' planes), for at
/// least `seconds` and 3 passes.
fn forward_rate(net: &PolicyValueNet, batch: usize, seconds: f64, data: &[f32]) -> (f64, f64) {
    let info = net.encoding();
    let xs = Tensor::from_slice(data).view([batch as i64, info.planes as i64, info.height as i64, info.width as i64]);
    let _ = net.infer(&xs);
    let start = Instant::now();
    let mut passes = 0u32;
    while passes < 3 || start.elapsed().as_secs_f64() < seconds {
        let _ = net.infer(&xs);
        passes += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    (f64::from(passes) * batch as f64 / secs, secs / f64::from(passes) * 1e3)
}

/// The net `args` describe, its description printed.
pub(crate) fn make_net(args: &NetArgs) -> Result<PolicyValueNet> {
    let config = args.config();
    nn::set_cpu_threads(args.threads);
    let net = match (&args.shape.weights, args.shape.game) {
        (Some(path), GameName::Xiangqi) => load::<xiangqi::Game>(path, &config)?,
        (Some(path), GameName::Draughts) => load::<draughts::Game>(path, &config)?,
        (None, GameName::Xiangqi) => {
            PolicyValueNet::for_game::<xiangqi::Game>(&config, 1).context("building the net")?
        }
        (None, GameName::Draughts) => {
            PolicyValueNet::for_game::<draughts::Game>(&config, 1).context("building the net")?
        }
    };
    println!(
        "net: {} {} ({} parameters) on {}{}, libtorch threads {}",
        net.game(),
        net.config().architecture(),
        net.parameter_count(),
        nn::device::device_name(net.device()),
        if net.is_half() { " in half precision" } else { "" },
        tch::get_num_threads()
    );
    Ok(net)
}

/// The net of the checkpoint `weights` names (a path, or `default`), placed as `placement` says.
fn load<G: Encode>(weights: &str, placement: &NetConfig) -> Result<PolicyValueNet> {
    let path = crate::models::resolve_weights(weights, G::NAME).context("--weights")?;
    let (net, _) = nn::checkpoint::load_as_saved(&path, G::NAME, G::ENCODING, placement)
        .with_context(|| format!("--weights {}", path.display()))?;
    Ok(net)
}

/// `qizero bench nn`.
pub fn bench_nn(args: &NnArgs) -> Result<()> {
    let net = make_net(&args.net)?;
    println!("{:>6} {:>14} {:>12}", "batch", "positions/s", "ms/pass");
    for &b in &args.batches {
        anyhow::ensure!((1..=65536).contains(&b), "batch size {b} is outside 1..=65536");
        let data = random_planes(net.encoding(), b, b as u64);
        let (rate, ms) = forward_rate(&net, b, args.seconds, &data);
        println!("{b:>6} {rate:>14.1} {ms:>12.3}");
    }
    Ok(())
}

/// `qizero bench mcts`.
pub fn bench_mcts(args: &MctsArgs) -> Result<()> {
    match args.net.shape.game {
        GameName::Xiangqi => bench_mcts_game::<xiangqi::Game>(args),
        GameName::Draughts => bench_mcts_game::<draughts::Game>(args),
    }
}

fn bench_mcts_game<G: Encode>(args: &MctsArgs) -> Result<()> {
    // Part 1: the tree alone, uniform evaluator, one thread, from the start position.
    let params = MctsParams { leaves_per_batch: 8, ..MctsParams::default() };
    let mut search = Search::new(G::new(), params.clone(), 1);
    let start = Instant::now();
    search.run(&UniformEvaluator, args.uniform_sims)?;
    let secs = start.elapsed().as_secs_f64();
    let visits: u32 = search.root_visits().iter().map(|&(_, n)| n).sum();
    println!(
        "uniform evaluator, one tree, one thread: {} simulations in {secs:.3} s = {:.0} simulations/s (root visits {visits})",
        args.uniform_sims,
        f64::from(args.uniform_sims) / secs
    );
    if args.uniform_only {
        return Ok(());
    }

    // Part 2: many games against the net through the batching service, in rounds that alternate
    // with timing the same net alone at the same batch size (this machine's speed drifts by
    // 10-20% over minutes, so the two are measured interleaved, not one after the other).
    let net = make_net(&args.net)?;
    let raw_net = make_net(&args.net)?;
    let target_batch = args.games * args.leaves as usize;
    // One searching thread sends one request per round: waiting for more would only idle the net.
    let service = InferenceService::start(
        net,
        ServiceConfig { max_batch: target_batch, max_wait_us: 0, cache_entries: 0, net_threads: 1 },
    )?;
    let evaluator = Timed { inner: service.evaluator::<G>(), nanos: AtomicU64::new(0) };
    let params = MctsParams { leaves_per_batch: args.leaves, ..MctsParams::default() };
    let mut trees: Vec<Search<G>> =
        (0..args.games).map(|i| Search::new(G::new(), params.clone(), 100 + i as u64)).collect();
    let mut rng = StdRng::seed_from_u64(7);
    let (mut sims, mut moves, mut games_done) = (0u64, 0u64, 0u64);
    let rounds = args.rounds.max(1);
    let per_round = Duration::from_secs_f64(args.seconds / f64::from(rounds));
    let (mut mcts_secs, mut raw_positions, mut raw_secs) = (0.0, 0.0, 0.0);
    for _ in 0..rounds {
        let start = Instant::now();
        while start.elapsed() < per_round {
            let stats = search_many(&mut trees, &evaluator, args.sims).context("searching with the net")?;
            sims += stats.simulations;
            for tree in &mut trees {
                let temperature = if tree.game().ply() < 30 { 1.0 } else { 0.0 };
                if let Some(mv) = tree.choose_move(temperature) {
                    tree.advance(mv);
                    moves += 1;
                }
                if tree.game().outcome().is_some() || tree.game().ply() >= 300 {
                    games_done += 1;
                    *tree = Search::new(G::new(), params.clone(), rng.random());
                }
            }
        }
        mcts_secs += start.elapsed().as_secs_f64();
        // The batch MCTS has reached so far (it is exactly `target_batch` unless trees collide).
        let batch = service.stats().mean_batch().round().max(1.0) as usize;
        // The same inputs MCTS gives the net: the positions of the games in flight now.
        let len = G::ENCODING.plane_len();
        let mut data = vec![0f32; batch * len];
        for (i, out) in data.chunks_exact_mut(len).enumerate() {
            trees[i % trees.len()].game().encode(out);
        }
        let (rate, _) = forward_rate(&raw_net, batch, per_round.as_secs_f64() / 2.0, &data);
        let secs = per_round.as_secs_f64() / 2.0;
        raw_positions += rate * secs;
        raw_secs += secs;
    }
    let s = service.stats();
    let evals_per_s = s.forward_positions as f64 / mcts_secs;
    let raw = raw_positions / raw_secs;
    println!(
        "net, {} games at once, {} simulations per move, {} leaves per tree per call, {rounds} rounds: \
         {mcts_secs:.1} s of MCTS, {moves} moves, {games_done} games finished",
        args.games, args.sims, args.leaves
    );
    println!("  simulations/s   {:.1}", sims as f64 / mcts_secs);
    println!("  evaluations/s   {evals_per_s:.1}");
    println!("  mean batch      {:.1} (of {target_batch}), {} forward passes", s.mean_batch(), s.forward_passes);
    println!("  net busy        {:.1}% of the MCTS time", 100.0 * s.forward_seconds / mcts_secs);
    let in_eval = evaluator.nanos.load(Ordering::Relaxed) as f64 * 1e-9;
    println!(
        "  time            {:.1}% in evaluator calls (encoding, queueing, the net), {:.1}% in the tree",
        100.0 * in_eval / mcts_secs,
        100.0 * (1.0 - in_eval / mcts_secs)
    );
    println!("  raw forward     {raw:.1} positions/s at batch {:.0} (same net, timed between rounds)", s.mean_batch());
    println!(
        "ratio {:.3} (evaluations/s inside MCTS / raw forward throughput at the same batch size)",
        evals_per_s / raw
    );
    Ok(())
}
