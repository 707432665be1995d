//! The batching inference service: one thread owns the net; any number of searching threads send
//! it requests over a channel and wait for their answers.
//!
//! With `net_threads` above 1 the service runs that many such threads, each with its own copy of
//! the net, its own queue and its own cache. A request goes to an idle thread if there is one,
//! else to the one with the fewest positions waiting. On a CPU this is how a net uses several
//! cores at the batch sizes of self-play: libtorch's own intra-op threads gain little on small
//! convolutions (and lose at small batches), while two threads that each run whole passes on one
//! core each nearly double the evaluations per second, because the searching threads themselves
//! need only a few percent of a core.
//!
//! A forward pass starts when the positions waiting reach `max_batch`, or `max_wait_us` after the
//! first of them arrived, whichever comes first. Requests are never split: a request larger than
//! `max_batch` runs as one pass. An optional cache, keyed by a hash of the encoded input planes
//! (so two positions share an entry only when the net would see the same input), answers repeated
//! positions without the net; it is direct-mapped (a new entry overwrites the slot's old one).
//!
//! Encoding happens in the requesting threads ([`ServiceEvaluator`]); this thread only stacks
//! planes, runs the net and gathers the legal moves' logits. For a net that does not read the
//! encoding's feature planes the evaluators leave them as zeros instead of computing them
//! ([`encode::Encode::encode_input`]); a net that reads them refuses a request without them.
//!
//! **Failures are errors, never values.** A pass whose forward step fails (a libtorch error, or
//! a C++ exception, which `tch` raises as a panic: caught here), whose copy to or from the
//! device fails, whose answer has the wrong size, or whose values or logits are not finite,
//! fails as a whole: every request of the pass gets an [`EvalError::Backend`] naming the cause,
//! and nothing of it enters the cache. A request the net cannot take (another game's encoding,
//! planes of the wrong length, a policy index out of range) gets its own error at once. Once
//! the service has stopped ([`InferenceService::stop`], or its thread has ended), requests get
//! [`EvalError::Stopped`]. The thread itself keeps serving after a failed pass: the next pass
//! may succeed, and if the device is gone each pass says so.

use crate::NnError;
use crate::evaluator::{EncodedBatch, evaluations, gather_logits};
use crate::model::PolicyValueNet;
use encode::Encode;
use mcts::{EvalError, EvalRequest, Evaluation, Evaluator};
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tch::Tensor;

/// How the service forms batches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServiceConfig {
    /// Positions per forward pass at most (a single larger request still runs whole).
    /// Default 256, range 1..=4096.
    pub max_batch: usize,
    /// Microseconds to wait for more requests after the first one of a batch arrived.
    /// Default 500, range 0..=100000.
    pub max_wait_us: u64,
    /// Entries of the evaluation cache (0 = no cache); each net thread keeps its own.
    /// Default 0, range 0..=2^24.
    pub cache_entries: usize,
    /// Net threads, each with its own copy of the net running its own batches (see the module
    /// docs). On a CPU, one per core that the searching threads leave idle, with
    /// `net.cpu_threads = 1`; on CUDA, 1. Default 1, range 1..=64.
    pub net_threads: usize,
}

impl Default for ServiceConfig {
    fn default() -> ServiceConfig {
        ServiceConfig { max_batch: 256, max_wait_us: 500, cache_entries: 0, net_threads: 1 }
    }
}

/// The largest `cache_entries` ([`ServiceConfig::validate`]).
pub const MAX_CACHE_ENTRIES: usize = 1 << 24;

impl ServiceConfig {
    /// Checks every field against its documented range.
    ///
    /// # Errors
    /// A message naming the first field outside its range, its value and the range.
    pub fn validate(&self) -> Result<(), String> {
        fn check(name: &str, v: u128, lo: u128, hi: u128) -> Result<(), String> {
            if (lo..=hi).contains(&v) { Ok(()) } else { Err(format!("inference.{name} = {v} is outside {lo}..={hi}")) }
        }
        check("max_batch", self.max_batch as u128, 1, 4096)?;
        check("max_wait_us", u128::from(self.max_wait_us), 0, 100_000)?;
        check("cache_entries", self.cache_entries as u128, 0, MAX_CACHE_ENTRIES as u128)?;
        check("net_threads", self.net_threads as u128, 1, 64)
    }
}

/// Counters of a running service.
#[derive(Debug, Default)]
struct Counters {
    requests: AtomicU64,
    positions: AtomicU64,
    forward_passes: AtomicU64,
    forward_positions: AtomicU64,
    cache_hits: AtomicU64,
    forward_nanos: AtomicU64,
}

/// A snapshot of the service's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ServiceStats {
    /// Requests answered.
    pub requests: u64,
    /// Positions answered (cache hits included).
    pub positions: u64,
    /// Forward passes run.
    pub forward_passes: u64,
    /// Positions that went through the net.
    pub forward_positions: u64,
    /// Positions answered from the cache.
    pub cache_hits: u64,
    /// Seconds spent in forward passes, summed over the net threads.
    pub forward_seconds: f64,
}

impl ServiceStats {
    /// Mean positions per forward pass.
    #[must_use]
    pub fn mean_batch(&self) -> f64 {
        if self.forward_passes == 0 { 0.0 } else { self.forward_positions as f64 / self.forward_passes as f64 }
    }

    /// The share of positions answered from the cache (0 before any position).
    #[must_use]
    pub fn cache_hit_rate(&self) -> f64 {
        if self.positions == 0 { 0.0 } else { self.cache_hits as f64 / self.positions as f64 }
    }
}

/// What the service answers one request: the legal moves' logits (position after position, as
/// the request's `indices`) and one value per position.
struct Answer {
    logits: Vec<f32>,
    values: Vec<f32>,
}

type Reply = Result<Answer, EvalError>;

enum Job {
    Eval {
        /// The planes the requester encoded ([`encode::EncodingInfo::input`]): the encoding's
        /// own id, or the base layout's when the feature planes were left out, which only a net
        /// that does not read them takes.
        encoding: &'static str,
        batch: EncodedBatch,
        reply: Sender<Reply>,
    },
    Swap(Box<PolicyValueNet>),
    Stop,
}

/// The service: owns the inference threads. Dropping it stops them once every
/// [`ServiceEvaluator`] made from it is gone; [`InferenceService::stop`] stops them at once.
pub struct InferenceService {
    lanes: Vec<Lane>,
    /// Positions sent to each net thread and not yet answered (shared with the evaluators).
    loads: Arc<[AtomicUsize]>,
    counters: Arc<Counters>,
    config: ServiceConfig,
    /// Whether the net now served reads the feature planes (evaluators leave them out when not).
    features: Arc<AtomicBool>,
}

/// One net thread and its queue.
struct Lane {
    tx: Option<Sender<Job>>,
    handle: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for InferenceService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InferenceService").field("stats", &self.stats()).finish()
    }
}

impl InferenceService {
    /// Checks `config` and starts the inference threads: the first with `net`, each other with a
    /// copy of it ([`PolicyValueNet::try_clone`]).
    ///
    /// # Errors
    /// [`NnError::Service`]: a `config` field out of range ([`ServiceConfig::validate`]), or a
    /// thread the operating system would not start; [`NnError::Torch`]: a copy of the net failed.
    pub fn start(net: PolicyValueNet, config: ServiceConfig) -> Result<InferenceService, NnError> {
        config.validate().map_err(NnError::Service)?;
        let counters = Arc::new(Counters::default());
        let features = Arc::new(AtomicBool::new(reads_features(&net)));
        let nets = copies(net, config.net_threads)?;
        let mut service = InferenceService {
            lanes: Vec::with_capacity(nets.len()),
            loads: (0..nets.len()).map(|_| AtomicUsize::new(0)).collect(),
            counters,
            config,
            features,
        };
        for net in nets {
            let (tx, rx) = mpsc::channel();
            let (c, config) = (Arc::clone(&service.counters), service.config.clone());
            let handle = std::thread::Builder::new()
                .name("qizero-inference".into())
                .spawn(move || serve(net, &config, &rx, &c))
                .map_err(|e| NnError::Service(format!("cannot start an inference thread: {e}")))?;
            // On an error above, dropping `service` stops the threads already started.
            service.lanes.push(Lane { tx: Some(tx), handle: Some(handle) });
        }
        Ok(service)
    }

    /// The configuration the service runs with.
    #[must_use]
    pub fn config(&self) -> &ServiceConfig {
        &self.config
    }

    /// An evaluator for game `G` that sends its batches to this service. Cheap; make one per
    /// searching thread or share one. After [`InferenceService::stop`] it answers
    /// [`EvalError::Stopped`].
    #[must_use]
    pub fn evaluator<G: Encode>(&self) -> ServiceEvaluator<G> {
        let senders: Option<Vec<Sender<Job>>> = self.lanes.iter().map(|l| l.tx.clone()).collect();
        ServiceEvaluator {
            senders: senders.filter(|s| !s.is_empty()),
            loads: Arc::clone(&self.loads),
            features: Arc::clone(&self.features),
            _game: PhantomData,
        }
    }

    /// Replaces the net between two batches (self-play picking up a newer checkpoint), in every
    /// net thread: a request sent after this returns is answered by the new net.
    ///
    /// # Errors
    /// [`NnError::Torch`]: a copy of the net for another thread failed; the old net stays.
    pub fn replace_net(&self, net: PolicyValueNet) -> Result<(), NnError> {
        let features = reads_features(&net);
        let nets = copies(net, self.lanes.len())?;
        // Requests encoded before this store and answered by the new net are refused if it
        // reads feature planes they lack (an error, never a wrong input).
        self.features.store(features, Ordering::Relaxed);
        for (lane, net) in self.lanes.iter().zip(nets) {
            if let Some(tx) = &lane.tx {
                // A closed channel means the thread is gone; evaluators will report it.
                let _ = tx.send(Job::Swap(Box::new(net)));
            }
        }
        Ok(())
    }

    /// Stops the inference threads now, whatever evaluators still exist: requests already
    /// queued are answered, every later one gets [`EvalError::Stopped`]. Returns once the
    /// threads have ended. Stopping twice does nothing.
    pub fn stop(&mut self) {
        for lane in &mut self.lanes {
            if let Some(tx) = lane.tx.take() {
                let _ = tx.send(Job::Stop);
            }
        }
        for lane in &mut self.lanes {
            if let Some(h) = lane.handle.take() {
                let _ = h.join();
            }
        }
    }

    /// The counters so far.
    #[must_use]
    pub fn stats(&self) -> ServiceStats {
        let c = &self.counters;
        ServiceStats {
            requests: c.requests.load(Ordering::Relaxed),
            positions: c.positions.load(Ordering::Relaxed),
            forward_passes: c.forward_passes.load(Ordering::Relaxed),
            forward_positions: c.forward_positions.load(Ordering::Relaxed),
            cache_hits: c.cache_hits.load(Ordering::Relaxed),
            forward_seconds: c.forward_nanos.load(Ordering::Relaxed) as f64 * 1e-9,
        }
    }
}

impl Drop for InferenceService {
    fn drop(&mut self) {
        for lane in &mut self.lanes {
            lane.tx = None;
        }
        for lane in &mut self.lanes {
            if let Some(h) = lane.handle.take() {
                let _ = h.join();
            }
        }
    }
}

/// `net` and `n - 1` copies of it.
fn copies(net: PolicyValueNet, n: usize) -> Result<Vec<PolicyValueNet>, NnError> {
    let mut nets = Vec::with_capacity(n.max(1));
    for _ in 1..n {
        nets.push(net.try_clone()?);
    }
    nets.insert(0, net);
    Ok(nets)
}

/// Picks the net thread for a request of `n` positions and counts them on it: an idle thread
/// (claimed atomically, so two requesters never both take the same idle one), else the one with
/// the fewest positions waiting.
fn pick_lane(loads: &[AtomicUsize], n: usize) -> usize {
    let n = n.max(1);
    for (i, load) in loads.iter().enumerate() {
        if load.compare_exchange(0, n, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
            return i;
        }
    }
    let i = (0..loads.len()).min_by_key(|&i| loads[i].load(Ordering::Relaxed)).unwrap_or(0);
    loads[i].fetch_add(n, Ordering::AcqRel);
    i
}

/// Takes a request's positions off its net thread's load when the request is done, however it ends.
struct Claim<'a> {
    load: &'a AtomicUsize,
    n: usize,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.load.fetch_sub(self.n, Ordering::AcqRel);
    }
}

/// An [`Evaluator`] that encodes in the calling thread and lets the service run the net.
pub struct ServiceEvaluator<G> {
    /// One queue per net thread; `None` once the service was stopped before this was made.
    senders: Option<Vec<Sender<Job>>>,
    loads: Arc<[AtomicUsize]>,
    features: Arc<AtomicBool>,
    _game: PhantomData<fn() -> G>,
}

impl<G> Clone for ServiceEvaluator<G> {
    fn clone(&self) -> Self {
        ServiceEvaluator {
            senders: self.senders.clone(),
            loads: Arc::clone(&self.loads),
            features: Arc::clone(&self.features),
            _game: PhantomData,
        }
    }
}

impl<G: Encode> Evaluator<G> for ServiceEvaluator<G> {
    /// # Errors
    /// [`EvalError::Backend`] when the pass that carried the batch failed or the net cannot
    /// take the batch (see the module docs), [`EvalError::Stopped`] when the service has
    /// stopped.
    fn evaluate(&self, batch: &[EvalRequest<'_, G>]) -> Result<Vec<Evaluation>, EvalError> {
        let stopped = || EvalError::Stopped("the inference service has stopped".into());
        let senders = self.senders.as_ref().ok_or_else(stopped)?;
        let features = self.features.load(Ordering::Relaxed);
        let mut encoded = EncodedBatch::default();
        encoded.encode_input(batch, features);
        let (reply_tx, reply_rx) = mpsc::channel();
        let offsets = encoded.offsets.clone();
        let indices = encoded.indices.clone();
        let answer = {
            // The thread counts as loaded from the choice until its answer is in, not longer.
            let lane = pick_lane(&self.loads, batch.len());
            let _claim = Claim { load: &self.loads[lane], n: batch.len().max(1) };
            let tx = senders.get(lane).ok_or_else(stopped)?;
            tx.send(Job::Eval { encoding: G::ENCODING.input(features).0, batch: encoded, reply: reply_tx })
                .map_err(|_| stopped())?;
            reply_rx.recv().map_err(|_| EvalError::Stopped("the inference thread ended before answering".into()))??
        };
        let view = EncodedBatch { planes: Vec::new(), indices, offsets, hashes: Vec::new() };
        if answer.values.len() != view.len() || answer.logits.len() != view.indices.len() {
            return Err(EvalError::Backend(format!(
                "the inference service answered {} values and {} logits for {} positions with {} moves",
                answer.values.len(),
                answer.logits.len(),
                view.len(),
                view.indices.len()
            )));
        }
        Ok(evaluations(&view, &answer.logits, &answer.values))
    }
}

/// A cached answer: the value and the legal moves' logits.
type Cached = (f32, Vec<f32>);

struct CacheEntry {
    hash: u64,
    value: f32,
    logits: Vec<f32>,
}

/// Whether `net` reads an encoding's feature planes (so requests for it must carry them).
fn reads_features(net: &PolicyValueNet) -> bool {
    net.encoding().feature_planes() > 0 && net.input_id() == net.encoding().id
}

/// Why `net` cannot take `batch` (encoded as `encoding`), if it cannot: another encoding, or
/// buffers whose sizes do not fit together or fit the net.
fn unfit(net: &PolicyValueNet, encoding: &str, batch: &EncodedBatch) -> Option<String> {
    let info = net.encoding();
    if encoding != info.id && encoding != net.input_id() {
        return Some(format!(
            "the request is encoded as {encoding}, the net ({}) takes {}",
            net.game(),
            net.input_id()
        ));
    }
    let n = batch.len();
    if batch.planes.len() != n * info.plane_len() || batch.hashes.len() != n {
        return Some(format!(
            "the request has {} plane values and {} hashes for {n} positions ({} values each expected)",
            batch.planes.len(),
            batch.hashes.len(),
            info.plane_len()
        ));
    }
    if batch.offsets.windows(2).any(|w| w[0] > w[1]) || batch.offsets.last().is_some_and(|&e| e != batch.indices.len())
    {
        return Some("the request's move offsets do not match its move indices".into());
    }
    batch
        .indices
        .iter()
        .find(|&&k| k as usize >= info.policy_size)
        .map(|k| format!("the request has policy index {k}, the net's policy has {} entries", info.policy_size))
}

fn serve(mut net: PolicyValueNet, config: &ServiceConfig, rx: &Receiver<Job>, counters: &Counters) {
    let mut cache: Vec<Option<CacheEntry>> = (0..config.cache_entries).map(|_| None).collect();
    let wait = Duration::from_micros(config.max_wait_us);
    let mut staging: Vec<f32> = Vec::new();
    // Takes a request into `pending`, or answers at once a request the net cannot take.
    let admit = |net: &PolicyValueNet,
                 pending: &mut Vec<(EncodedBatch, Sender<Reply>)>,
                 encoding: &str,
                 batch: EncodedBatch,
                 reply: Sender<Reply>| {
        match unfit(net, encoding, &batch) {
            Some(why) => {
                let _ = reply.send(Err(EvalError::Backend(why)));
                0
            }
            None => {
                let n = batch.len();
                pending.push((batch, reply));
                n
            }
        }
    };
    loop {
        let mut pending: Vec<(EncodedBatch, Sender<Reply>)> = Vec::new();
        let mut total = 0;
        let mut closed = false;
        match rx.recv() {
            Ok(Job::Eval { encoding, batch, reply }) => total += admit(&net, &mut pending, encoding, batch, reply),
            Ok(Job::Swap(n)) => {
                net = *n;
                cache.iter_mut().for_each(|e| *e = None);
                continue;
            }
            Ok(Job::Stop) | Err(_) => return,
        }
        let deadline = Instant::now() + wait;
        while total < config.max_batch {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(Job::Eval { encoding, batch, reply }) => total += admit(&net, &mut pending, encoding, batch, reply),
                Ok(Job::Swap(n)) => {
                    // Finish what is pending with the old net first, then swap.
                    run(&net, std::mem::take(&mut pending), &mut cache, &mut staging, counters);
                    total = 0;
                    net = *n;
                    cache.iter_mut().for_each(|e| *e = None);
                }
                Err(RecvTimeoutError::Timeout) => break,
                Ok(Job::Stop) | Err(RecvTimeoutError::Disconnected) => {
                    closed = true;
                    break;
                }
            }
        }
        run(&net, pending, &mut cache, &mut staging, counters);
        if closed {
            return;
        }
    }
}

/// Runs one pass for `pending` (its cache misses through the net) and answers every request:
/// all with the answer, or all with the same error if the pass failed (then nothing is cached).
fn run(
    net: &PolicyValueNet,
    pending: Vec<(EncodedBatch, Sender<Reply>)>,
    cache: &mut [Option<CacheEntry>],
    staging: &mut Vec<f32>,
    counters: &Counters,
) {
    if pending.is_empty() {
        return;
    }
    let info = net.encoding();
    let len = info.plane_len();
    // Which positions need the net: (request, position) pairs. Cache hits are copied out before
    // anything is written back, so a slot overwritten later in this pass cannot change them.
    let mut misses: Vec<(usize, usize)> = Vec::new();
    let mut hits: Vec<Vec<Option<Cached>>> = Vec::with_capacity(pending.len());
    staging.clear();
    for (r, (batch, _)) in pending.iter().enumerate() {
        let mut request_hits = Vec::with_capacity(batch.len());
        for i in 0..batch.len() {
            let moves = batch.offsets[i + 1] - batch.offsets[i];
            let hit = cache_slot(cache, batch.hashes[i])
                .and_then(|s| cache[s].as_ref())
                .filter(|e| e.hash == batch.hashes[i] && e.logits.len() == moves)
                .map(|e| (e.value, e.logits.clone()));
            if hit.is_none() {
                misses.push((r, i));
                staging.extend_from_slice(&batch.planes[i * len..(i + 1) * len]);
            }
            request_hits.push(hit);
        }
        hits.push(request_hits);
    }
    let p = info.policy_size;
    let (logits, values) = if misses.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        let start = Instant::now();
        let outputs = forward(net, staging);
        counters.forward_nanos.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        match outputs {
            Ok(outputs) => {
                counters.forward_passes.fetch_add(1, Ordering::Relaxed);
                counters.forward_positions.fetch_add(misses.len() as u64, Ordering::Relaxed);
                outputs
            }
            Err(cause) => {
                for (_, reply) in pending {
                    let _ = reply.send(Err(EvalError::Backend(cause.clone())));
                }
                return;
            }
        }
    };
    let mut row = 0;
    for ((batch, reply), request_hits) in pending.into_iter().zip(hits) {
        let mut out =
            Answer { logits: Vec::with_capacity(batch.indices.len()), values: Vec::with_capacity(batch.len()) };
        for (i, hit) in request_hits.into_iter().enumerate() {
            if let Some((value, cached)) = hit {
                out.logits.extend_from_slice(&cached);
                out.values.push(value);
                counters.cache_hits.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            // Sizes and indices were checked: `forward` answers `p` logits per row, and
            // `unfit` refused indices outside the policy.
            let idx = &batch.indices[batch.offsets[i]..batch.offsets[i + 1]];
            let gathered = gather_logits(&logits[row * p..(row + 1) * p], idx);
            let value = values[row];
            row += 1;
            out.logits.extend_from_slice(&gathered);
            out.values.push(value);
            if let Some(s) = cache_slot(cache, batch.hashes[i]) {
                cache[s] = Some(CacheEntry { hash: batch.hashes[i], value, logits: gathered });
            }
        }
        counters.requests.fetch_add(1, Ordering::Relaxed);
        counters.positions.fetch_add(batch.len() as u64, Ordering::Relaxed);
        // A requester that gave up is no error of ours.
        let _ = reply.send(Ok(out));
    }
}

/// One forward pass over the positions stacked in `staging`: `policy_size` logits and one value
/// per position, all finite, or what went wrong.
fn forward(net: &PolicyValueNet, staging: &[f32]) -> Result<(Vec<f32>, Vec<f32>), String> {
    let p = net.encoding().policy_size;
    let xs = net.f_input(staging).map_err(|e| e.to_string())?;
    // `f_input` refused anything but whole positions, so the batch size is the input's first axis.
    let n = xs.size().first().map_or(0, |&n| n as usize);
    let (pl, v) = net.f_infer(&xs).map_err(|e| e.to_string())?;
    let read = |t: &Tensor, what: &str| {
        t.f_view([-1]).and_then(|t| Vec::<f32>::try_from(&t)).map_err(|e| format!("reading the net's {what}: {e}"))
    };
    let (logits, values) = (read(&pl, "policy logits")?, read(&v, "values")?);
    if logits.len() != n * p || values.len() != n {
        return Err(format!(
            "the net answered {} logits and {} values for {n} positions ({} and {n} expected)",
            logits.len(),
            values.len(),
            n * p
        ));
    }
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(format!("the net's value for position {i} of {n} is {}", values[i]));
    }
    if let Some(k) = logits.iter().position(|x| !x.is_finite()) {
        return Err(format!("the net's policy logit {} for position {} of {n} is {}", k % p, k / p, logits[k]));
    }
    Ok((logits, values))
}

fn cache_slot(cache: &[Option<CacheEntry>], hash: u64) -> Option<usize> {
    (!cache.is_empty()).then(|| (hash % cache.len() as u64) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NetConfig;
    use tch::{Device, Kind};

    fn positions() -> (Vec<xiangqi::Game>, Vec<Vec<xiangqi::Move>>) {
        let mut games = Vec::new();
        let mut game = xiangqi::Game::new();
        for _ in 0..5 {
            games.push(game.clone());
            let moves = game::Game::legal_moves(&game);
            game::Game::play_unchecked(&mut game, moves.as_ref()[3]);
        }
        let moves = games.iter().map(|g| game::Game::legal_moves(g).as_ref().to_vec()).collect();
        (games, moves)
    }

    fn pass(net: &PolicyValueNet, batch: &EncodedBatch, cache: &mut [Option<CacheEntry>], c: &Counters) -> Reply {
        let (tx, rx) = mpsc::channel();
        run(net, vec![(batch.clone(), tx)], cache, &mut Vec::new(), c);
        rx.recv().expect("answered")
    }

    #[test]
    fn requests_go_to_an_idle_net_thread_else_the_least_loaded() {
        let loads: Vec<AtomicUsize> = (0..3).map(|_| AtomicUsize::new(0)).collect();
        let load = |i: usize| loads[i].load(Ordering::Relaxed);
        // Idle threads are claimed in order, one request each, even a request of no positions.
        assert_eq!(pick_lane(&loads, 64), 0);
        assert_eq!(pick_lane(&loads, 0), 1);
        assert_eq!(pick_lane(&loads, 8), 2);
        assert_eq!((load(0), load(1), load(2)), (64, 1, 8));
        // All busy: the fewest positions waiting.
        assert_eq!(pick_lane(&loads, 4), 1);
        assert_eq!(load(1), 5);
        // A finished request frees its thread, which is then idle again and taken first.
        drop(Claim { load: &loads[0], n: 64 });
        assert_eq!(load(0), 0);
        assert_eq!(pick_lane(&loads, 16), 0);
        // One thread: always it.
        let one = [AtomicUsize::new(7)];
        assert_eq!(pick_lane(&one, 3), 0);
        assert_eq!(one[0].load(Ordering::Relaxed), 10);
    }

    #[test]
    fn a_failed_pass_caches_nothing() {
        let (games, moves) = positions();
        let requests: Vec<EvalRequest<'_, xiangqi::Game>> =
            games.iter().zip(&moves).map(|(game, moves)| EvalRequest { game, moves }).collect();
        let mut batch = EncodedBatch::default();
        batch.encode(&requests);
        let config = NetConfig { device: "cpu".into(), ..NetConfig::tiny() };
        let good = PolicyValueNet::for_game::<xiangqi::Game>(&config, 1).expect("net");
        let bad = PolicyValueNet::for_game::<xiangqi::Game>(&config, 1).expect("net");
        let mut stem = bad.var_store().variables()["stem.weight"].shallow_clone();
        tch::no_grad(|| stem.set_data(&Tensor::zeros([1, 1, 1, 1], (Kind::Float, Device::Cpu))));
        let mut cache: Vec<Option<CacheEntry>> = (0..1024).map(|_| None).collect();
        let counters = Counters::default();

        let failed = pass(&bad, &batch, &mut cache, &counters);
        assert!(
            matches!(&failed, Err(EvalError::Backend(cause)) if cause.contains("forward pass")),
            "{:?}",
            failed.err()
        );
        assert!(cache.iter().all(Option::is_none), "a failed pass put entries in the cache");
        assert_eq!(counters.forward_passes.load(Ordering::Relaxed), 0);

        // The same positions through a working net all go through it (no stale hit), and only
        // then are cached.
        let answer = pass(&good, &batch, &mut cache, &counters).expect("answers");
        assert_eq!(answer.values.len(), 5);
        assert_eq!(counters.forward_positions.load(Ordering::Relaxed), 5);
        assert_eq!(counters.cache_hits.load(Ordering::Relaxed), 0);
        assert!(cache.iter().any(Option::is_some));
        let again = pass(&good, &batch, &mut cache, &counters).expect("answers");
        assert_eq!(counters.cache_hits.load(Ordering::Relaxed), 5);
        assert_eq!(again.values, answer.values);
    }
}
