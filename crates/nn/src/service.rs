//! The batching inference service: one thread owns the net; any number of searching threads send
//! it requests over a channel and wait for their answers.
//!
//! A forward pass starts when the positions waiting reach `max_batch`, or `max_wait_us` after the
//! first of them arrived, whichever comes first. Requests are never split: a request larger than
//! `max_batch` runs as one pass. An optional cache, keyed by a hash of the encoded input planes
//! (so two positions share an entry only when the net would see the same input), answers repeated
//! positions without the net; it is direct-mapped (a new entry overwrites the slot's old one).
//!
//! Encoding happens in the requesting threads ([`ServiceEvaluator`]); this thread only stacks
//! planes, runs the net and gathers the legal moves' logits.

use crate::evaluator::{EncodedBatch, evaluations};
use crate::model::PolicyValueNet;
use encode::Encode;
use mcts::{EvalError, EvalRequest, Evaluation, Evaluator};
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
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
    /// Entries of the evaluation cache (0 = no cache). Default 0, range 0..=2^24.
    pub cache_entries: usize,
}

impl Default for ServiceConfig {
    fn default() -> ServiceConfig {
        ServiceConfig { max_batch: 256, max_wait_us: 500, cache_entries: 0 }
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
    /// Seconds spent in forward passes.
    pub forward_seconds: f64,
}

impl ServiceStats {
    /// Mean positions per forward pass.
    #[must_use]
    pub fn mean_batch(&self) -> f64 {
        if self.forward_passes == 0 { 0.0 } else { self.forward_positions as f64 / self.forward_passes as f64 }
    }
}

struct Reply {
    logits: Vec<f32>,
    values: Vec<f32>,
}

enum Job {
    Eval { batch: EncodedBatch, reply: Sender<Reply> },
    Swap(Box<PolicyValueNet>),
}

/// The service: owns the inference thread. Dropping it stops the thread once every
/// [`ServiceEvaluator`] made from it is gone.
pub struct InferenceService {
    tx: Option<Sender<Job>>,
    handle: Option<JoinHandle<()>>,
    counters: Arc<Counters>,
}

impl std::fmt::Debug for InferenceService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InferenceService").field("stats", &self.stats()).finish()
    }
}

impl InferenceService {
    /// Starts the inference thread with `net`.
    #[must_use]
    pub fn start(net: PolicyValueNet, config: ServiceConfig) -> InferenceService {
        let (tx, rx) = mpsc::channel();
        let counters = Arc::new(Counters::default());
        let c = Arc::clone(&counters);
        let handle = std::thread::Builder::new()
            .name("qizero-inference".into())
            .spawn(move || serve(net, &config, &rx, &c))
            .ok();
        InferenceService { tx: Some(tx), handle, counters }
    }

    /// An evaluator for game `G` that sends its batches to this service. Cheap; make one per
    /// searching thread or share one.
    #[must_use]
    pub fn evaluator<G: Encode>(&self) -> ServiceEvaluator<G> {
        ServiceEvaluator { tx: self.tx.clone(), _game: PhantomData }
    }

    /// Replaces the net between two batches (self-play picking up a newer checkpoint).
    pub fn replace_net(&self, net: PolicyValueNet) {
        if let Some(tx) = &self.tx {
            // A closed channel means the thread is gone; evaluators will report it.
            let _ = tx.send(Job::Swap(Box::new(net)));
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
        self.tx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// An [`Evaluator`] that encodes in the calling thread and lets the service run the net.
pub struct ServiceEvaluator<G> {
    tx: Option<Sender<Job>>,
    _game: PhantomData<fn() -> G>,
}

impl<G> Clone for ServiceEvaluator<G> {
    fn clone(&self) -> Self {
        ServiceEvaluator { tx: self.tx.clone(), _game: PhantomData }
    }
}

impl<G: Encode> Evaluator<G> for ServiceEvaluator<G> {
    /// # Errors
    /// [`EvalError::Stopped`] if the inference thread has stopped.
    fn evaluate(&self, batch: &[EvalRequest<'_, G>]) -> Result<Vec<Evaluation>, EvalError> {
        let mut encoded = EncodedBatch::default();
        encoded.encode(batch);
        let (reply_tx, reply_rx) = mpsc::channel();
        let offsets = encoded.offsets.clone();
        let indices = encoded.indices.clone();
        let sent = self.tx.as_ref().is_some_and(|tx| tx.send(Job::Eval { batch: encoded, reply: reply_tx }).is_ok());
        let reply = if sent { reply_rx.recv().ok() } else { None };
        let Some(reply) = reply else {
            return Err(EvalError::Stopped("the inference thread has stopped".into()));
        };
        let view = EncodedBatch { planes: Vec::new(), indices, offsets, hashes: Vec::new() };
        Ok(evaluations(&view, &reply.logits, &reply.values))
    }
}

/// A cached answer: the value and the legal moves' logits.
type Cached = (f32, Vec<f32>);

struct CacheEntry {
    hash: u64,
    value: f32,
    logits: Vec<f32>,
}

fn serve(mut net: PolicyValueNet, config: &ServiceConfig, rx: &Receiver<Job>, counters: &Counters) {
    let mut cache: Vec<Option<CacheEntry>> = (0..config.cache_entries).map(|_| None).collect();
    let wait = Duration::from_micros(config.max_wait_us);
    let mut staging: Vec<f32> = Vec::new();
    loop {
        let mut pending: Vec<(EncodedBatch, Sender<Reply>)> = Vec::new();
        let mut total = 0;
        let mut closed = false;
        match rx.recv() {
            Ok(Job::Eval { batch, reply }) => {
                total += batch.len();
                pending.push((batch, reply));
            }
            Ok(Job::Swap(n)) => {
                net = *n;
                cache.iter_mut().for_each(|e| *e = None);
                continue;
            }
            Err(_) => return,
        }
        let deadline = Instant::now() + wait;
        while total < config.max_batch {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(Job::Eval { batch, reply }) => {
                    total += batch.len();
                    pending.push((batch, reply));
                }
                Ok(Job::Swap(n)) => {
                    // Finish what is pending with the old net first, then swap.
                    run(&net, &pending, &mut cache, &mut staging, counters);
                    pending.clear();
                    total = 0;
                    net = *n;
                    cache.iter_mut().for_each(|e| *e = None);
                }
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => {
                    closed = true;
                    break;
                }
            }
        }
        run(&net, &pending, &mut cache, &mut staging, counters);
        if closed {
            return;
        }
    }
}

fn run(
    net: &PolicyValueNet,
    pending: &[(EncodedBatch, Sender<Reply>)],
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
    let (mut logits, mut values) = (Vec::new(), Vec::new());
    if !misses.is_empty() {
        let start = Instant::now();
        let dims = [misses.len() as i64, info.planes as i64, info.height as i64, info.width as i64];
        let xs = Tensor::from_slice(staging.as_slice()).view(dims);
        let (pl, v) = net.infer(&xs);
        logits = Vec::<f32>::try_from(&pl.view([-1])).unwrap_or_default();
        values = Vec::<f32>::try_from(&v).unwrap_or_default();
        counters.forward_nanos.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        counters.forward_passes.fetch_add(1, Ordering::Relaxed);
        counters.forward_positions.fetch_add(misses.len() as u64, Ordering::Relaxed);
    }
    let mut row = 0;
    for ((batch, reply), request_hits) in pending.iter().zip(hits) {
        let mut out =
            Reply { logits: Vec::with_capacity(batch.indices.len()), values: Vec::with_capacity(batch.len()) };
        for (i, hit) in request_hits.into_iter().enumerate() {
            if let Some((value, cached)) = hit {
                out.logits.extend_from_slice(&cached);
                out.values.push(value);
                counters.cache_hits.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            let idx = &batch.indices[batch.offsets[i]..batch.offsets[i + 1]];
            let gathered: Vec<f32> =
                idx.iter().map(|&k| logits.get(row * p + k as usize).copied().unwrap_or(0.0)).collect();
            let value = values.get(row).copied().unwrap_or(0.0);
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
        let _ = reply.send(out);
    }
}

fn cache_slot(cache: &[Option<CacheEntry>], hash: u64) -> Option<usize> {
    (!cache.is_empty()).then(|| (hash % cache.len() as u64) as usize)
}
