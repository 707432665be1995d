//! [`Trainer`]: the loop that turns the replay window into checkpoints.
//!
//! One step: take batch `step` (built in the background while the previous step ran, when
//! `loader_threads > 0`), run the net in training mode, compute
//! `loss = policy cross-entropy + value_loss_weight * value MSE` (plus
//! `material_loss_weight * material MSE` for a net with the material head), against the batch's
//! policy target (`train.policy_target`: the improved policy or the visit shares), value target
//! (`train.value_target`: z, q or a mix) and final material difference, back-propagate (the policy's softmax is taken over
//! the position's legal moves only, as the search's priors are: the net spends no capacity on
//! learning which moves are legal), then let the [`Optimizer`] update the weights at the
//! scheduled learning rate. Weight decay (the L2 term) is applied by the optimiser, not added
//! to the loss, so the losses reported are the data terms.
//!
//! The trainer is a pure function of the run seed, the shards and the config: batch `s` depends
//! only on (seed, s, window) ([`crate::batch`]), the optimiser state is checkpointed, and a
//! resumed trainer continues bit for bit where the checkpoint left off. A prefetched batch built
//! from a window that a rescan has since replaced is thrown away and rebuilt, so batch `s` is
//! always drawn from the window current when step `s` begins.

use crate::TrainError;
use crate::batch::{self, Batch};
use crate::config::TrainConfig;
use crate::lineage::{self, Lineage, MeanLosses};
use crate::optim::Optimizer;
use crate::window::{CorruptShard, ReplayWindow, WindowSnapshot};
use encode::Encode;
use nn::{NetConfig, PolicyValueNet};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tch::{Kind, Tensor};

/// What a trainer needs to start: the run directory and the effective configuration.
#[derive(Clone, Debug)]
pub struct TrainerSetup {
    /// The folder of self-play shards to read (a run's `shards/`).
    pub shards: PathBuf,
    /// The folder checkpoints are written to and resumed from (a run's `checkpoints/`; the
    /// trainer is its only writer).
    pub checkpoints: PathBuf,
    /// The net's architecture and device (`half` is ignored: training runs in `f32`).
    pub net: NetConfig,
    /// The trainer's settings.
    pub train: TrainConfig,
    /// The run seed (initial weights and every batch derive from it).
    pub seed: u64,
    /// SHA-256 of the effective run config ([`crate::config_hash`]), recorded in each lineage.
    pub config_hash: String,
}

/// Whether the next step may run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Readiness {
    /// Yes.
    Ready,
    /// The window holds fewer than `min_positions` positions.
    TooFewPositions {
        /// Positions in the window.
        have: u64,
        /// `min_positions`.
        need: u64,
    },
    /// Training is ahead of self-play: one more batch would break the reuse cap.
    ReuseCap {
        /// Samples trained so far.
        samples_seen: u64,
        /// Samples the cap allows now (`max_samples_per_new_sample * positions_generated`).
        allowed: u64,
    },
}

impl std::fmt::Display for Readiness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Readiness::Ready => write!(f, "ready"),
            Readiness::TooFewPositions { have, need } => {
                write!(f, "the replay window holds {have} positions, training starts at {need} (train.min_positions)")
            }
            Readiness::ReuseCap { samples_seen, allowed } => write!(
                f,
                "{samples_seen} samples trained, the reuse cap allows {allowed} until self-play adds positions \
                 (train.max_samples_per_new_sample)"
            ),
        }
    }
}

/// The numbers of one step.
#[derive(Clone, Debug, PartialEq)]
pub struct StepStats {
    /// The step count after this step.
    pub step: u64,
    /// The learning rate used.
    pub learning_rate: f64,
    /// Policy cross-entropy of the batch (before the update).
    pub policy_loss: f64,
    /// Value mean squared error of the batch.
    pub value_loss: f64,
    /// Material head's mean squared error of the batch (a net with the head only).
    pub material_loss: Option<f64>,
    /// The total loss.
    pub total_loss: f64,
}

/// One line of training metrics: the means since the previous line.
#[derive(Clone, Debug, PartialEq)]
pub struct Metrics {
    /// The step count.
    pub step: u64,
    /// Samples trained since the run began.
    pub samples_seen: u64,
    /// Positions in all valid shards seen.
    pub positions_generated: u64,
    /// Positions in the window.
    pub window_positions: u64,
    /// Mean losses since the previous line.
    pub losses: MeanLosses,
    /// The learning rate of the last step.
    pub learning_rate: f64,
    /// Samples trained per second of stepping (waiting excluded) since the previous line.
    pub samples_per_second: f64,
    /// Corrupt shards skipped so far.
    pub corrupt_shards: usize,
}

/// What [`Trainer::run`] reports as it goes.
#[derive(Clone, Debug)]
pub enum Event {
    /// A shard was skipped as corrupt (once per shard).
    Corrupt(CorruptShard),
    /// The trainer started waiting (or waits for another reason).
    Waiting(Readiness),
    /// Training goes on after waiting.
    Resumed,
    /// A step finished.
    Step(StepStats),
    /// Every `metrics_every` steps.
    Metrics(Metrics),
    /// A checkpoint was written.
    Checkpoint(Box<Lineage>),
}

/// When [`Trainer::run`] stops.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Stop when the run's step count reaches this (`None`: `train.steps` if not 0, else never).
    pub until_step: Option<u64>,
    /// Return instead of waiting when there is not enough data (or the reuse cap is reached).
    pub no_wait: bool,
    /// The caller runs this trainer again after self-play has added data (`qizero run`): a
    /// return for lack of data then writes no checkpoint (the steps are kept in memory), so
    /// pauses do not multiply checkpoints. A stop by signal or at the target still writes one.
    pub resume_later: bool,
}

/// Why [`Trainer::run`] returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The step target was reached.
    Target,
    /// The stop flag was raised (a signal).
    Stopped,
    /// Not enough data and `no_wait` was set.
    Starved(Readiness),
}

/// What a [`Trainer::run`] did.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// The step count when the run began.
    pub first_step: u64,
    /// The step count when it returned.
    pub last_step: u64,
    /// Samples trained since the run (directory) began.
    pub samples_seen: u64,
    /// Why it returned.
    pub reason: StopReason,
    /// Every shard skipped as corrupt, with its fault.
    pub corrupt: Vec<CorruptShard>,
    /// The newest checkpoint's manifest, if any.
    pub last_checkpoint: Option<Lineage>,
}

struct Prefetch<G: Encode> {
    step: u64,
    window: Arc<WindowSnapshot<G>>,
    handle: JoinHandle<Batch>,
}

#[derive(Default, Clone, Copy)]
struct LossSum {
    steps: u64,
    policy: f64,
    value: f64,
    material: Option<f64>,
    total: f64,
    seconds: f64,
}

impl LossSum {
    fn add(&mut self, s: &StepStats, seconds: f64) {
        self.steps += 1;
        self.policy += s.policy_loss;
        self.value += s.value_loss;
        if let Some(m) = s.material_loss {
            *self.material.get_or_insert(0.0) += m;
        }
        self.total += s.total_loss;
        self.seconds += seconds;
    }

    fn mean(&self) -> MeanLosses {
        let n = self.steps.max(1) as f64;
        MeanLosses {
            steps: self.steps,
            policy: self.policy / n,
            value: self.value / n,
            material: self.material.map(|m| m / n),
            total: self.total / n,
        }
    }
}

/// The trainer of one run directory. See the [module docs](self) and the crate docs.
pub struct Trainer<G: Encode> {
    setup: TrainerSetup,
    checkpoints: PathBuf,
    net: PolicyValueNet,
    optimizer: Optimizer,
    step: u64,
    samples_seen: u64,
    /// `positions_generated` recorded by the checkpoint resumed from (a floor for the count).
    generated_floor: u64,
    parent: Option<String>,
    last_checkpoint: Option<Lineage>,
    window: ReplayWindow<G>,
    since_checkpoint: LossSum,
    since_metrics: LossSum,
    last_lr: f64,
    /// The cosine's horizon set by a run that fits it to its length, in place of `cosine_steps`
    /// ([`Trainer::set_cosine_horizon`]).
    cosine_horizon: Option<u64>,
    prefetch: Option<Prefetch<G>>,
    /// The rayon pool that builds batches (`loader_threads` threads), when more than one.
    loader: Option<Arc<rayon::ThreadPool>>,
}

impl<G: Encode> Trainer<G> {
    /// Opens the trainer of `setup.checkpoints`: resumes from the newest complete checkpoint
    /// (weights, optimiser state, step, samples seen), or starts from weights initialised with
    /// the run seed. Temporary and incomplete checkpoint files (newer than the
    /// newest manifest: a trainer killed while writing) are removed. Does not scan the shards yet.
    ///
    /// # Errors
    /// A config out of range, a damaged newest checkpoint (named), a checkpoint for another game
    /// or architecture, or I/O errors.
    pub fn open(setup: TrainerSetup) -> Result<Trainer<G>, TrainError> {
        setup.train.validate()?;
        let net_config = NetConfig { half: false, ..setup.net.clone() };
        let checkpoints = setup.checkpoints.clone();
        std::fs::create_dir_all(&checkpoints).map_err(|e| TrainError::io(&checkpoints, e))?;
        let latest = lineage::latest(&checkpoints)?;
        lineage::remove_incomplete(&checkpoints, latest.as_ref().map_or(0, |l| l.step))?;
        let (net, optimizer, lineage) = match latest {
            Some(l) => {
                if l.game != G::NAME {
                    return Err(TrainError::Corrupt {
                        path: checkpoints.join(format!("{}.json", l.step)),
                        message: format!("checkpoint of a {} net, this trainer trains {}", l.game, G::NAME),
                    });
                }
                let (net, _) = nn::checkpoint::load(&checkpoints.join(&l.weights), G::NAME, G::ENCODING, &net_config)?;
                let mut optimizer = Optimizer::new(net.var_store(), &setup.train)?;
                optimizer.load(&checkpoints.join(&l.optimizer_state))?;
                (net, optimizer, Some(l))
            }
            None => {
                let net = PolicyValueNet::for_game::<G>(&net_config, setup.seed)?;
                let optimizer = Optimizer::new(net.var_store(), &setup.train)?;
                (net, optimizer, None)
            }
        };
        let window = ReplayWindow::new(&setup.shards, setup.train.window_positions, setup.train.policy_target);
        let loader = match setup.train.loader_threads {
            0 | 1 => None,
            n => Some(Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .thread_name(|i| format!("batch-rows-{i}"))
                    .build()
                    .map_err(|e| TrainError::Torch(format!("starting the batch loader's {n} threads: {e}")))?,
            )),
        };
        Ok(Trainer {
            checkpoints,
            net,
            optimizer,
            step: lineage.as_ref().map_or(0, |l| l.step),
            samples_seen: lineage.as_ref().map_or(0, |l| l.samples_seen),
            generated_floor: lineage.as_ref().map_or(0, |l| l.positions_generated),
            parent: lineage.as_ref().map(|l| l.weights.clone()),
            last_lr: setup.train.learning_rate_over(lineage.as_ref().map_or(0, |l| l.step), u64::MAX),
            cosine_horizon: None,
            last_checkpoint: lineage,
            window,
            since_checkpoint: LossSum::default(),
            since_metrics: LossSum::default(),
            prefetch: None,
            loader,
            setup,
        })
    }

    /// Sets the step at which a cosine schedule reaches its floor, in place of `cosine_steps`:
    /// the steps the run now expects to take in all. A run that fits the cosine to its length
    /// (`train.cosine_steps = 0` or `run.fit_cosine`) sets it before each training phase, so the
    /// schedule follows its estimate. No effect on the other schedules.
    pub fn set_cosine_horizon(&mut self, steps: u64) {
        self.cosine_horizon = Some(steps);
    }

    /// The learning rate of the next step: over the horizon a run set, else over `cosine_steps`.
    ///
    /// # Errors
    /// A cosine schedule with `cosine_steps = 0` and no horizon set.
    fn next_learning_rate(&self) -> Result<f64, TrainError> {
        let c = &self.setup.train;
        let horizon = match self.cosine_horizon {
            Some(h) => h,
            None if c.schedule != crate::config::Schedule::Cosine || c.cosine_steps > 0 => c.cosine_steps,
            None => {
                return Err(TrainError::Config(crate::config::ConfigError {
                    field: "cosine_steps",
                    value: "0".into(),
                    range: "1..=10^9 here: 0 (fit the cosine to the run's length) works only under qizero run",
                }));
            }
        };
        Ok(c.learning_rate_over(self.step, horizon))
    }

    /// Steps taken since the run began.
    #[must_use]
    pub fn step(&self) -> u64 {
        self.step
    }

    /// Samples trained since the run began.
    #[must_use]
    pub fn samples_seen(&self) -> u64 {
        self.samples_seen
    }

    /// The net being trained.
    #[must_use]
    pub fn net(&self) -> &PolicyValueNet {
        &self.net
    }

    /// The replay window.
    #[must_use]
    pub fn window(&self) -> &ReplayWindow<G> {
        &self.window
    }

    /// The manifest of the checkpoint resumed from or last written.
    #[must_use]
    pub fn last_checkpoint(&self) -> Option<&Lineage> {
        self.last_checkpoint.as_ref()
    }

    /// Positions generated by self-play as far as the trainer knows: all valid shards seen, and
    /// never less than the checkpoint resumed from recorded.
    #[must_use]
    pub fn positions_generated(&self) -> u64 {
        self.window.positions_generated().max(self.generated_floor)
    }

    /// Rescans `shards/` ([`ReplayWindow::scan`]); returns the shards newly found corrupt.
    ///
    /// # Errors
    /// The directory cannot be listed.
    pub fn rescan(&mut self) -> Result<Vec<CorruptShard>, TrainError> {
        Ok(self.window.scan()?.corrupt)
    }

    /// Whether the next step may run (see the crate docs for the rule).
    #[must_use]
    pub fn readiness(&self) -> Readiness {
        let c = &self.setup.train;
        let have = self.window.snapshot().positions();
        if have < c.min_positions as u64 || have == 0 {
            return Readiness::TooFewPositions { have, need: c.min_positions as u64 };
        }
        if c.max_samples_per_new_sample > 0.0 {
            let allowed = (c.max_samples_per_new_sample * self.positions_generated() as f64).floor() as u64;
            if self.samples_seen + c.batch_size as u64 > allowed {
                return Readiness::ReuseCap { samples_seen: self.samples_seen, allowed };
            }
        }
        Readiness::Ready
    }

    /// Takes one optimiser step on batch `step()` of the current window, whatever
    /// [`Trainer::readiness`] says (callers check it; the benchmark does not).
    ///
    /// # Errors
    /// [`TrainError::NoData`] if the window is empty, [`TrainError::NonFinite`] if the loss is
    /// not finite (the weights are not updated then), or a libtorch failure.
    pub fn train_step(&mut self) -> Result<StepStats, TrainError> {
        let lr = self.next_learning_rate()?;
        let window = Arc::clone(self.window.snapshot());
        if window.positions() == 0 {
            return Err(TrainError::NoData);
        }
        let c = &self.setup.train;
        let (seed, batch_size, threads, target) = (self.setup.seed, c.batch_size, c.loader_threads, c.value_target);
        let batch = match self.prefetch.take() {
            Some(p) if p.step == self.step && Arc::ptr_eq(&p.window, &window) => {
                p.handle.join().map_err(|_| TrainError::Torch("the batch loader thread panicked".into()))?
            }
            // A batch for another step or an older window: let it finish unused.
            _ => batch::build(&window, seed, self.step, batch_size, target, self.loader.as_deref()),
        };
        if threads > 0 {
            let next = self.step + 1;
            let (w, pool) = (Arc::clone(&window), self.loader.clone());
            // A plain thread waits for the batch beside the training step; the rows are built on
            // the loader's rayon pool.
            let handle = std::thread::Builder::new()
                .name("batch-loader".into())
                .spawn(move || batch::build(&w, seed, next, batch_size, target, pool.as_deref()))
                .map_err(|e| TrainError::Torch(format!("starting the batch loader: {e}")))?;
            self.prefetch = Some(Prefetch { step: next, window, handle });
        }
        let (policy, value, material, total) =
            self.loss(&batch).map_err(|e| TrainError::Torch(format!("training step: {e}")))?;
        let stats = StepStats {
            step: self.step + 1,
            learning_rate: lr,
            policy_loss: policy,
            value_loss: value,
            material_loss: material,
            total_loss: total,
        };
        if !total.is_finite() {
            return Err(TrainError::NonFinite { step: self.step + 1, policy, value });
        }
        self.optimizer.step(lr)?;
        self.step += 1;
        self.samples_seen += batch.size as u64;
        self.last_lr = lr;
        Ok(stats)
    }

    /// Forward, losses, backward: leaves the gradients for the optimiser; returns the losses.
    fn loss(&mut self, batch: &Batch) -> Result<(f64, f64, Option<f64>, f64), tch::TchError> {
        let device = self.net.device();
        let xs = batch.inputs.f_to_device(device)?;
        let index = batch.policy_index.f_to_device(device)?;
        let share = batch.policy_share.f_to_device(device)?;
        let mask = batch.legal_mask.f_to_device(device)?;
        let z = batch.value.f_to_device(device)?;
        let material = batch.material.f_to_device(device)?;
        let c = &self.setup.train;
        let weights = LossWeights { value: c.value_loss_weight, material: c.material_loss_weight };
        let terms = losses(&self.net, &xs, (&index, &share, &mask), &z, Some(&material), weights)?;
        self.optimizer.zero_grad();
        terms.total.f_backward()?;
        read_losses(&terms)
    }

    /// Writes a checkpoint at the current step (weights, optimiser state, then the lineage
    /// manifest; see [`crate::lineage`]) and returns its manifest.
    ///
    /// # Errors
    /// A file cannot be written.
    pub fn checkpoint(&mut self) -> Result<Lineage, TrainError> {
        let id = nn::checkpoint::content_id(&self.net)?;
        let weights = format!("{}-{id}.safetensors", self.step);
        let optimizer_state = format!("{}.optim.safetensors", self.step);
        let (step_text, samples_text) = (self.step.to_string(), self.samples_seen.to_string());
        let parent = self.parent.clone().unwrap_or_default();
        let extra = [
            ("parent", parent.as_str()),
            ("samples_seen", samples_text.as_str()),
            ("config_hash", self.setup.config_hash.as_str()),
            ("trainer_step", step_text.as_str()),
        ];
        nn::checkpoint::save(&self.net, &self.checkpoints.join(&weights), self.step, &extra)?;
        self.optimizer.save(&self.checkpoints.join(&optimizer_state), self.step)?;
        let lineage = Lineage {
            format: lineage::FORMAT.to_owned(),
            game: G::NAME.to_owned(),
            encoding: self.net.input_id().to_owned(),
            architecture: self.net.config().architecture(),
            step: self.step,
            weights: weights.clone(),
            optimizer_state,
            optimizer: self.setup.train.optimizer.to_string(),
            parent: self.parent.clone(),
            samples_seen: self.samples_seen,
            positions_generated: self.positions_generated(),
            window: self.window.snapshot().info(),
            losses: self.since_checkpoint.mean(),
            learning_rate: self.last_lr,
            seed: self.setup.seed,
            config_hash: self.setup.config_hash.clone(),
            corrupt_shards: self.window.corrupt().len(),
            created_ms: now_ms(),
        };
        lineage.write(&self.checkpoints)?;
        lineage::prune_optimizer_states(&self.checkpoints, self.setup.train.keep_optimizer_states)?;
        self.parent = Some(weights);
        self.since_checkpoint = LossSum::default();
        self.last_checkpoint = Some(lineage.clone());
        Ok(lineage)
    }

    /// Trains until the step target, the `stop` flag, or (with `no_wait`) a lack of data; waits
    /// for data otherwise, polling `shards/` every `poll_seconds`. Writes a checkpoint every
    /// `checkpoint_every` steps and, on the way out, one at the last step if it has none (unless
    /// pausing for data with `resume_later`).
    /// `observe` hears about corrupt shards, waiting, steps, metrics and checkpoints.
    ///
    /// # Errors
    /// As [`Trainer::train_step`] and [`Trainer::checkpoint`]; the listing of `shards/`.
    pub fn run(
        &mut self,
        options: RunOptions,
        stop: &AtomicBool,
        observe: &mut dyn FnMut(&Event),
    ) -> Result<RunSummary, TrainError> {
        let c = self.setup.train.clone();
        let target = options.until_step.or((c.steps > 0).then_some(c.steps));
        let first_step = self.step;
        let mut waiting: Option<Readiness> = None;
        let mut since_scan = u64::MAX;
        let reason = loop {
            if stop.load(Ordering::Relaxed) {
                break StopReason::Stopped;
            }
            if target.is_some_and(|t| self.step >= t) {
                break StopReason::Target;
            }
            if since_scan >= c.rescan_every || waiting.is_some() {
                for bad in self.rescan()? {
                    observe(&Event::Corrupt(bad));
                }
                since_scan = 0;
            }
            match self.readiness() {
                Readiness::Ready => {
                    if waiting.take().is_some() {
                        observe(&Event::Resumed);
                    }
                }
                not_ready => {
                    if options.no_wait {
                        break StopReason::Starved(not_ready);
                    }
                    let same = waiting
                        .as_ref()
                        .is_some_and(|w| std::mem::discriminant(w) == std::mem::discriminant(&not_ready));
                    if !same {
                        observe(&Event::Waiting(not_ready.clone()));
                        waiting = Some(not_ready);
                    }
                    sleep_unless_stopped(Duration::from_secs_f64(c.poll_seconds), stop);
                    continue;
                }
            }
            let started = Instant::now();
            let stats = self.train_step()?;
            let seconds = started.elapsed().as_secs_f64();
            since_scan += 1;
            self.since_checkpoint.add(&stats, seconds);
            self.since_metrics.add(&stats, seconds);
            observe(&Event::Step(stats));
            if c.metrics_every > 0 && self.step % c.metrics_every == 0 {
                let metrics = self.metrics();
                observe(&Event::Metrics(metrics));
            }
            if self.step % c.checkpoint_every == 0 {
                let lineage = self.checkpoint()?;
                observe(&Event::Checkpoint(Box::new(lineage)));
            }
        };
        let pausing = options.resume_later && matches!(reason, StopReason::Starved(_));
        if !pausing && self.last_checkpoint.as_ref().is_none_or(|l| l.step != self.step) && self.step > 0 {
            let lineage = self.checkpoint()?;
            observe(&Event::Checkpoint(Box::new(lineage)));
        }
        Ok(RunSummary {
            first_step,
            last_step: self.step,
            samples_seen: self.samples_seen,
            reason,
            corrupt: self.window.corrupt().to_vec(),
            last_checkpoint: self.last_checkpoint.clone(),
        })
    }

    /// The metrics since the previous call (or the start), and a fresh stretch.
    pub fn metrics(&mut self) -> Metrics {
        let s = std::mem::take(&mut self.since_metrics);
        let per_step = self.setup.train.batch_size as f64;
        Metrics {
            step: self.step,
            samples_seen: self.samples_seen,
            positions_generated: self.positions_generated(),
            window_positions: self.window.snapshot().positions(),
            losses: s.mean(),
            learning_rate: self.last_lr,
            samples_per_second: if s.seconds > 0.0 { s.steps as f64 * per_step / s.seconds } else { 0.0 },
            corrupt_shards: self.window.corrupt().len(),
        }
    }
}

/// The weights of the value and material terms next to the policy cross-entropy.
#[derive(Copy, Clone, Debug)]
pub(crate) struct LossWeights {
    pub(crate) value: f64,
    pub(crate) material: f64,
}

/// The loss terms of one batch, as tensors on the net's device.
pub(crate) struct LossTerms {
    pub(crate) policy: Tensor,
    pub(crate) value: Tensor,
    /// Present when the net has the material head and the batch a material target.
    pub(crate) material: Option<Tensor>,
    pub(crate) total: Tensor,
}

/// The training losses of a batch already on the net's device: policy cross-entropy against the
/// sparse target `(index, share)` (nats, mean over the batch), value mean squared error against
/// the value target `z` (whatever `train.value_target` made it), the material head's mean
/// squared error against `material` (for a net with the head, when given), and
/// `policy + weights.value * value + weights.material * material`.
pub(crate) fn losses(
    net: &PolicyValueNet,
    xs: &Tensor,
    (index, share, legal_mask): (&Tensor, &Tensor, &Tensor),
    z: &Tensor,
    material: Option<&Tensor>,
    weights: LossWeights,
) -> Result<LossTerms, tch::TchError> {
    let (logits, value, predicted) = net.forward_heads_t(xs, true);
    let logits = logits.f_to_kind(Kind::Float)?.f_add(legal_mask)?;
    let logp = logits.f_log_softmax(-1, Kind::Float)?.f_gather(1, index, false)?;
    let policy = logp.f_mul(share)?.f_sum_dim_intlist(1, false, Kind::Float)?.f_mean(Kind::Float)?.f_neg()?;
    let value = value.f_to_kind(Kind::Float)?.f_sub(z)?.f_square()?.f_mean(Kind::Float)?;
    let mut total = policy.f_add(&value.f_mul_scalar(weights.value)?)?;
    let material = match (predicted, material) {
        (Some(predicted), Some(target)) => {
            let loss = predicted.f_to_kind(Kind::Float)?.f_sub(target)?.f_square()?.f_mean(Kind::Float)?;
            total = total.f_add(&loss.f_mul_scalar(weights.material)?)?;
            Some(loss)
        }
        _ => None,
    };
    Ok(LossTerms { policy, value, material, total })
}

/// The losses as numbers (one transfer from the device): policy, value, material (if any),
/// total.
pub(crate) fn read_losses(terms: &LossTerms) -> Result<(f64, f64, Option<f64>, f64), tch::TchError> {
    let mut parts = vec![terms.policy.detach(), terms.value.detach(), terms.total.detach()];
    if let Some(m) = &terms.material {
        parts.push(m.detach());
    }
    let all = Tensor::f_stack(&parts, 0)?.f_to_device(tch::Device::Cpu)?.f_to_kind(Kind::Double)?;
    let v = Vec::<f64>::try_from(&all)?;
    Ok((v[0], v[1], v.get(3).copied(), v[2]))
}

fn sleep_unless_stopped(total: Duration, stop: &AtomicBool) {
    let until = Instant::now() + total;
    while !stop.load(Ordering::Relaxed) {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        std::thread::sleep(left.min(Duration::from_millis(100)));
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}
