//! Trainer throughput against a bare libtorch training step, measured in one run.
//!
//! - **bare**: forward, loss, backward and libtorch's own optimiser step (`tch::nn::Sgd` or
//!   `tch::nn::AdamW` with the config's hyper-parameters) on one fixed batch built once and
//!   already on the device: the speed of the net and nothing else.
//! - **bare, our optimiser**: the same with [`Optimizer`] (shows what the checkpointable optimiser
//!   costs by itself).
//! - **trainer**: [`Trainer::train_step`] over a replay window of synthetic shards: drawing,
//!   replaying, encoding, augmenting, transferring, and the same net step.
//!
//! Each is timed for `seconds` per round, over `rounds` rounds in a rotating order, so that drifts
//! of a noisy machine hit all three alike; every variant reads its losses back each step, as the
//! trainer does. The figure of merit is trainer / bare samples per second.

use crate::batch;
use crate::config::{OptimizerKind, TrainConfig};
use crate::optim::Optimizer;
use crate::trainer::{LossWeights, Trainer, TrainerSetup, losses, read_losses};
use crate::{TrainError, synthetic};
use encode::Encode;
use nn::{NetConfig, PolicyValueNet};
use std::path::PathBuf;
use std::time::Instant;
use tch::nn::OptimizerConfig;

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// The net.
    pub net: NetConfig,
    /// The trainer settings (batch size, optimiser, loader threads, ...).
    pub train: TrainConfig,
    /// Seed of the synthetic data and the nets.
    pub seed: u64,
    /// Seconds each variant is timed per round.
    pub seconds: f64,
    /// Rounds.
    pub rounds: u32,
    /// Positions of synthetic data to write (random games of up to 200 plies).
    pub positions: usize,
    /// A scratch run directory (its `shards/` and `checkpoints/` are filled; remove it after).
    pub scratch: PathBuf,
}

/// Samples per second of each variant, summed over the rounds.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// Bare step with libtorch's optimiser.
    pub bare: f64,
    /// Bare step with [`Optimizer`].
    pub bare_our_optimizer: f64,
    /// The trainer's step.
    pub trainer: f64,
    /// Positions in the window the trainer drew from.
    pub window_positions: u64,
    /// Milliseconds to build one batch in one thread (draw, replay, encode, augment, tensors).
    pub build_ms: f64,
}

impl BenchResult {
    /// trainer / bare.
    #[must_use]
    pub fn ratio(&self) -> f64 {
        self.trainer / self.bare
    }
}

/// Runs the benchmark for game `G`, calling `progress` with a line per round.
///
/// # Errors
/// The scratch directory cannot be written, or the net cannot be built.
pub fn run<G: Encode>(options: &BenchOptions, progress: &mut dyn FnMut(String)) -> Result<BenchResult, TrainError> {
    let shards = options.scratch.join("shards");
    std::fs::create_dir_all(&shards).map_err(|e| TrainError::io(&shards, e))?;
    let mut written = 0;
    let mut i = 0u64;
    while written < options.positions {
        let s = synthetic::random_shard::<G>(options.seed + i, 16, 200, 1_000_000 + i, "bench");
        written += s.counts().samples as usize;
        shard::write_shard(&shards, &s).map_err(|e| TrainError::Shards(e.to_string()))?;
        i += 1;
    }
    let train = TrainConfig {
        window_positions: options.positions.max(1),
        min_positions: 1,
        max_samples_per_new_sample: 0.0,
        ..options.train.clone()
    };
    let setup = TrainerSetup {
        shards: shards.clone(),
        checkpoints: options.scratch.join("checkpoints"),
        net: options.net.clone(),
        train: train.clone(),
        seed: options.seed,
        config_hash: String::new(),
    };
    let mut trainer = Trainer::<G>::open(setup)?;
    trainer.rescan()?;
    let window = std::sync::Arc::clone(trainer.window().snapshot());
    if window.positions() == 0 {
        return Err(TrainError::NoData);
    }

    let net_config = NetConfig { half: false, ..options.net.clone() };
    let bare_net = PolicyValueNet::for_game::<G>(&net_config, options.seed)?;
    let device = bare_net.device();
    let fixed = batch::build(&window, options.seed, 0, train.batch_size, train.value_target, None);
    let xs = fixed.inputs.to_device(device);
    let index = fixed.policy_index.to_device(device);
    let share = fixed.policy_share.to_device(device);
    let mask = fixed.legal_mask.to_device(device);
    let z = fixed.value.to_device(device);
    let torch = |e: tch::TchError| TrainError::Torch(e.to_string());
    let mut builtin = match train.optimizer {
        OptimizerKind::Sgd => {
            tch::nn::Sgd { momentum: train.momentum, dampening: 0.0, wd: train.weight_decay, nesterov: train.nesterov }
                .build(bare_net.var_store(), train.learning_rate)
        }
        OptimizerKind::Adamw => tch::nn::AdamW {
            beta1: train.momentum,
            beta2: train.adam_beta2,
            wd: train.weight_decay,
            eps: train.adam_eps,
            amsgrad: false,
        }
        .build(bare_net.var_store(), train.learning_rate),
    }
    .map_err(torch)?;
    let ours_net = PolicyValueNet::for_game::<G>(&net_config, options.seed)?;
    let mut ours = Optimizer::new(ours_net.var_store(), &train)?;
    let weights = LossWeights { value: train.value_loss_weight, material: train.material_loss_weight };

    let mut bare_step = || -> Result<(), TrainError> {
        let terms = losses(&bare_net, &xs, (&index, &share, &mask), &z, None, weights).map_err(torch)?;
        builtin.zero_grad();
        terms.total.f_backward().map_err(torch)?;
        builtin.step();
        read_losses(&terms).map_err(torch)?;
        Ok(())
    };
    let mut ours_step = || -> Result<(), TrainError> {
        let terms = losses(&ours_net, &xs, (&index, &share, &mask), &z, None, weights).map_err(torch)?;
        ours.zero_grad();
        terms.total.f_backward().map_err(torch)?;
        ours.step(train.learning_rate)?;
        read_losses(&terms).map_err(torch)?;
        Ok(())
    };
    // Warm up all three (allocator, kernels, the first prefetch).
    for _ in 0..2 {
        bare_step()?;
        ours_step()?;
        trainer.train_step()?;
    }
    let timed = |step: &mut dyn FnMut() -> Result<(), TrainError>| -> Result<(u64, f64), TrainError> {
        let start = Instant::now();
        let mut steps = 0u64;
        while steps < 2 || start.elapsed().as_secs_f64() < options.seconds {
            step()?;
            steps += 1;
        }
        Ok((steps, start.elapsed().as_secs_f64()))
    };
    let b = train.batch_size as f64;
    let mut totals = [(0u64, 0f64); 3];
    for round in 0..options.rounds.max(1) {
        // Rotate the order each round, so that no variant always runs first (or right after the
        // trainer's last prefetch).
        let mut r = [(0u64, 0f64); 3];
        for i in 0..3 {
            let which = (i + round as usize) % 3;
            r[which] = match which {
                0 => timed(&mut bare_step)?,
                1 => timed(&mut ours_step)?,
                _ => timed(&mut || trainer.train_step().map(|_| ()))?,
            };
        }
        for (t, x) in totals.iter_mut().zip(r) {
            t.0 += x.0;
            t.1 += x.1;
        }
        let rate = |(n, s): (u64, f64)| n as f64 * b / s;
        progress(format!(
            "round {}: bare {:.0} samples/s, bare with our optimiser {:.0}, trainer {:.0} ({:.1}%)",
            round + 1,
            rate(r[0]),
            rate(r[1]),
            rate(r[2]),
            100.0 * rate(r[2]) / rate(r[0])
        ));
    }
    let start = Instant::now();
    let mut built = 0u64;
    while built < 3 || start.elapsed().as_secs_f64() < options.seconds.min(2.0) {
        let _ = batch::build(&window, options.seed, built, train.batch_size, train.value_target, None);
        built += 1;
    }
    let build_ms = start.elapsed().as_secs_f64() * 1e3 / built as f64;
    let rate = |(n, s): (u64, f64)| n as f64 * b / s;
    Ok(BenchResult {
        build_ms,
        bare: rate(totals[0]),
        bare_our_optimizer: rate(totals[1]),
        trainer: rate(totals[2]),
        window_positions: window.positions(),
    })
}
