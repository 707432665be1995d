//! [`TrainConfig`]: the `[train]` table of a preset, one documented field per tunable (unit,
//! default, range). Unknown keys are an error (`deny_unknown_fields`), missing ones take the
//! defaults; [`TrainConfig::validate`] checks the ranges and names the offending field.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// Which optimiser updates the weights (both in [`crate::optim`], with their state checkpointed).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizerKind {
    /// Stochastic gradient descent with (Nesterov) momentum, as AlphaZero and KataGo train.
    /// Weight decay is coupled L2: `weight_decay * w` is added to the gradient, which is the
    /// gradient of the loss term `weight_decay / 2 * |w|^2`.
    Sgd,
    /// Adam with decoupled weight decay (Loshchilov & Hutter): each step shrinks the decayed
    /// weights by `lr * weight_decay * w`, apart from the Adam update.
    Adamw,
}

/// How the learning rate moves with the step (after [`TrainConfig::warmup_steps`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    /// `learning_rate` throughout.
    Constant,
    /// `learning_rate * step_gamma ^ floor(step / step_every)`.
    Step,
    /// Half a cosine from `learning_rate` at step 0 to `learning_rate * cosine_final` at
    /// `cosine_steps`, constant after.
    Cosine,
}

/// What the value head is trained towards, per sample (side to move's view, in [-1, 1]). Written
/// in TOML as a string: `"z"`, `"q"` or `"mix:X"` ([`FromStr`], [`fmt::Display`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ValueTarget {
    /// `"z"`: the game's result, +1 / 0 / -1 (the sample's `z`), as AlphaZero trains.
    Z,
    /// `"q"`: the search's value of the position (the sample's `root_value`): less noisy than
    /// the result, but it carries the net's own bias back into training.
    Q,
    /// `"mix:X"`, X in [0, 1]: `(1 - X) * z + X * q` (lc0's `q_ratio`). `mix:0` is `z`, `mix:1`
    /// is `q`.
    Mix(f64),
}

impl ValueTarget {
    /// The target of a sample with result `z` and root value `q`.
    #[must_use]
    pub fn value(self, z: f32, q: f32) -> f32 {
        match self {
            ValueTarget::Z => z,
            ValueTarget::Q => q,
            ValueTarget::Mix(x) => {
                let x = x as f32;
                (1.0 - x) * z + x * q
            }
        }
    }
}

/// A `[train]` target string that does not parse: which field, the text, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("train.{field} = \"{value}\": {reason}")]
pub struct TargetError {
    /// The field's name, as in the config file.
    pub field: &'static str,
    /// The rejected text.
    pub value: String,
    /// What is wrong and what is accepted.
    pub reason: String,
}

impl FromStr for ValueTarget {
    type Err = TargetError;

    /// `"z"`, `"q"` or `"mix:X"` with X a number in [0, 1], exactly so (lowercase, no spaces).
    fn from_str(text: &str) -> Result<ValueTarget, TargetError> {
        let error = |reason: String| TargetError { field: "value_target", value: text.to_owned(), reason };
        match text {
            "z" => Ok(ValueTarget::Z),
            "q" => Ok(ValueTarget::Q),
            _ => {
                let Some(weight) = text.strip_prefix("mix:") else {
                    return Err(error("expected \"z\", \"q\" or \"mix:X\" with X in [0, 1]".to_owned()));
                };
                match weight.parse::<f64>() {
                    Ok(x) if x.is_finite() && (0.0..=1.0).contains(&x) => Ok(ValueTarget::Mix(x)),
                    Ok(x) => Err(error(format!("the weight of q, {x}, is outside [0, 1]"))),
                    Err(_) => Err(error(format!(
                        "the weight of q, '{weight}', is not a number (expected mix:X, X in [0, 1])"
                    ))),
                }
            }
        }
    }
}

impl fmt::Display for ValueTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueTarget::Z => write!(f, "z"),
            ValueTarget::Q => write!(f, "q"),
            ValueTarget::Mix(x) => write!(f, "mix:{x}"),
        }
    }
}

impl Serialize for ValueTarget {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ValueTarget {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ValueTarget, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Which distribution the policy head is trained towards, per sample.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyTarget {
    /// `"auto"`: the search's improved policy when the sample has one (Gumbel root search:
    /// softmax of the prior logits plus sigma of the completed Q, over every legal move), else
    /// the visit shares pi (PUCT samples, and every sample of a version 1 shard).
    Auto,
    /// `"visits"`: always the visit shares pi.
    Visits,
}

/// The TOML names (`"sgd"`, `"cosine"`, `"auto"`, ...), which messages and logs use too.
macro_rules! display_as_toml {
    ($($kind:ty { $($variant:ident => $name:literal),+ })+) => {$(
        impl fmt::Display for $kind {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(match self { $(Self::$variant => $name),+ })
            }
        }
    )+};
}

display_as_toml! {
    OptimizerKind { Sgd => "sgd", Adamw => "adamw" }
    Schedule { Constant => "constant", Step => "step", Cosine => "cosine" }
    PolicyTarget { Auto => "auto", Visits => "visits" }
}

/// How the trainer samples and optimises. Units: a *step* is one optimiser update on one batch;
/// a *position* (or sample) is one recorded (state, pi, z, root value, improved policy) of a
/// shard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Positions per training batch. Default 256, range 1..=8192.
    pub batch_size: usize,
    /// The optimiser: `sgd` or `adamw`. Default `sgd`.
    pub optimizer: OptimizerKind,
    /// Peak learning rate (after warm-up, before decay). Default 0.02 (SGD; AdamW wants about
    /// 1e-3), range (0, 10].
    pub learning_rate: f64,
    /// The learning-rate schedule: `constant`, `step` or `cosine`. Default `constant`.
    pub schedule: Schedule,
    /// Steps of linear warm-up from `learning_rate / warmup_steps` to `learning_rate`, before the
    /// schedule applies (0 = none). Steps. Default 0, range 0..=10^7.
    pub warmup_steps: u64,
    /// `step` schedule: steps between two decays. Steps. Default 100000, range 1..=10^9.
    pub step_every: u64,
    /// `step` schedule: the factor of each decay. Default 0.1, range (0, 1].
    pub step_gamma: f64,
    /// `cosine` schedule: the step at which the cosine reaches its floor. Steps. Default
    /// 100000, range 0..=10^9. 0 = the steps the run is expected to take: `qizero run` sets the
    /// horizon before each generation from its generations and time budget
    /// ([`crate::Trainer::set_cosine_horizon`]); a trainer with no horizon set refuses to step.
    /// (`run.fit_cosine` makes `qizero run` fit it whatever this says; a standalone trainer then
    /// follows this number.)
    pub cosine_steps: u64,
    /// `cosine` schedule: the floor as a fraction of `learning_rate`. Default 0.01, range [0, 1].
    pub cosine_final: f64,
    /// SGD momentum, or AdamW's beta1. Default 0.9, range [0, 1).
    pub momentum: f64,
    /// SGD only: Nesterov momentum. Default true.
    pub nesterov: bool,
    /// AdamW's beta2. Default 0.999, range [0, 1).
    pub adam_beta2: f64,
    /// AdamW's epsilon, added to the root of the second moment. Default 1e-8, range (0, 1].
    pub adam_eps: f64,
    /// Weight decay of the convolution and linear weights (biases and batch-norm parameters are
    /// not decayed): coupled L2 for SGD, decoupled for AdamW (see [`OptimizerKind`]). Per step,
    /// scaled by the learning rate. Default 1e-4, range [0, 1].
    pub weight_decay: f64,
    /// Weight of the value loss (mean squared error of the tanh value against the value target)
    /// next to the policy cross-entropy in the total loss. Default 1.0, range [0, 100].
    pub value_loss_weight: f64,
    /// Weight of the material head's loss (mean squared error against the game's final
    /// material difference, scaled to [-1, 1]) in the total loss; used only when the net has
    /// the head (`net.material_head`). Default 1.0, range [0, 100].
    pub material_loss_weight: f64,
    /// The value target: `"z"` (the game result), `"q"` (the search's root value) or
    /// `"mix:X"`, `(1 - X) * z + X * q` ([`ValueTarget`]). Default `"z"`; X in [0, 1].
    pub value_target: ValueTarget,
    /// The policy target: `"auto"` (the improved policy where a sample has one, else the visit
    /// shares) or `"visits"` (always the visit shares) ([`PolicyTarget`]). Default `"auto"`.
    pub policy_target: PolicyTarget,
    /// The replay window: the newest shards are taken until they hold at least this many
    /// positions (the last one whole). Positions. Default 500000, range 1..=10^9.
    pub window_positions: usize,
    /// Training starts only once the window holds this many positions. Positions. Default
    /// 10000, range 1..=10^9.
    pub min_positions: usize,
    /// The cap on reuse: a step may run only while `samples_seen + batch_size <=
    /// max_samples_per_new_sample * positions_generated` (all positions of all valid shards seen
    /// by this run, see the crate docs); otherwise training waits for self-play. Unitless;
    /// 0 = no cap. Default 4.0, range [0, 10^6].
    pub max_samples_per_new_sample: f64,
    /// Steps between checkpoints (weights, optimiser state, lineage). Steps. Default 1000,
    /// range 1..=10^9.
    pub checkpoint_every: u64,
    /// Steps between two `train` metrics lines (0 = only at checkpoints). Steps. Default 100,
    /// range 0..=10^9.
    pub metrics_every: u64,
    /// Checkpoints whose optimiser state is kept (the newest ones; resuming needs only the
    /// newest). Weights and lineage of every checkpoint are always kept: they are the run's
    /// generations, which the arena rates and `best` names. Default 2, range 1..=10^6.
    pub keep_optimizer_states: usize,
    /// Steps this process trains before it stops with a checkpoint (0 = until stopped); the
    /// CLI's `--steps` overrides it. Steps. Default 0, range 0..=10^12.
    pub steps: u64,
    /// Steps between two rescans of `shards/` for new files while training. Steps. Default 50,
    /// range 1..=10^6.
    pub rescan_every: u64,
    /// Seconds between two rescans of `shards/` while waiting for data. Seconds. Default 5.0,
    /// range (0, 3600].
    pub poll_seconds: f64,
    /// Threads that build batches (replay, encode, augment) while the net trains on the previous
    /// one (a rayon pool when more than one); 0 builds each batch in the training thread, between
    /// steps. Count. Default 1, range 0..=64.
    pub loader_threads: usize,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            batch_size: 256,
            optimizer: OptimizerKind::Sgd,
            learning_rate: 0.02,
            schedule: Schedule::Constant,
            warmup_steps: 0,
            step_every: 100_000,
            step_gamma: 0.1,
            cosine_steps: 100_000,
            cosine_final: 0.01,
            momentum: 0.9,
            nesterov: true,
            adam_beta2: 0.999,
            adam_eps: 1e-8,
            weight_decay: 1e-4,
            value_loss_weight: 1.0,
            material_loss_weight: 1.0,
            value_target: ValueTarget::Z,
            policy_target: PolicyTarget::Auto,
            window_positions: 500_000,
            min_positions: 10_000,
            max_samples_per_new_sample: 4.0,
            checkpoint_every: 1000,
            metrics_every: 100,
            keep_optimizer_states: 2,
            steps: 0,
            rescan_every: 50,
            poll_seconds: 5.0,
            loader_threads: 1,
        }
    }
}

/// A `[train]` field outside its documented range.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("train.{field} = {value} is outside {range}")]
pub struct ConfigError {
    /// The field's name, as in the config file.
    pub field: &'static str,
    /// The rejected value, as text.
    pub value: String,
    /// The allowed range, in words.
    pub range: &'static str,
}

impl TrainConfig {
    /// Checks every field's range.
    ///
    /// # Errors
    /// The first field out of range, with its value and range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        fn int(field: &'static str, v: u64, lo: u64, hi: u64, range: &'static str) -> Result<(), ConfigError> {
            if (lo..=hi).contains(&v) { Ok(()) } else { Err(ConfigError { field, value: v.to_string(), range }) }
        }
        fn real(field: &'static str, v: f64, ok: bool, range: &'static str) -> Result<(), ConfigError> {
            if ok && v.is_finite() { Ok(()) } else { Err(ConfigError { field, value: v.to_string(), range }) }
        }
        let c = self;
        int("batch_size", c.batch_size as u64, 1, 8192, "1..=8192")?;
        real("learning_rate", c.learning_rate, c.learning_rate > 0.0 && c.learning_rate <= 10.0, "(0, 10]")?;
        int("warmup_steps", c.warmup_steps, 0, 10_000_000, "0..=10^7")?;
        int("step_every", c.step_every, 1, 1_000_000_000, "1..=10^9")?;
        real("step_gamma", c.step_gamma, c.step_gamma > 0.0 && c.step_gamma <= 1.0, "(0, 1]")?;
        int("cosine_steps", c.cosine_steps, 0, 1_000_000_000, "0..=10^9")?;
        real("cosine_final", c.cosine_final, (0.0..=1.0).contains(&c.cosine_final), "[0, 1]")?;
        real("momentum", c.momentum, (0.0..1.0).contains(&c.momentum), "[0, 1)")?;
        real("adam_beta2", c.adam_beta2, (0.0..1.0).contains(&c.adam_beta2), "[0, 1)")?;
        real("adam_eps", c.adam_eps, c.adam_eps > 0.0 && c.adam_eps <= 1.0, "(0, 1]")?;
        real("weight_decay", c.weight_decay, (0.0..=1.0).contains(&c.weight_decay), "[0, 1]")?;
        real("value_loss_weight", c.value_loss_weight, (0.0..=100.0).contains(&c.value_loss_weight), "[0, 100]")?;
        let material = c.material_loss_weight;
        real("material_loss_weight", material, (0.0..=100.0).contains(&material), "[0, 100]")?;
        if let ValueTarget::Mix(x) = c.value_target {
            if !(x.is_finite() && (0.0..=1.0).contains(&x)) {
                let value = format!("\"{}\"", c.value_target);
                return Err(ConfigError { field: "value_target", value, range: "\"mix:X\" with X in [0, 1]" });
            }
        }
        int("window_positions", c.window_positions as u64, 1, 1_000_000_000, "1..=10^9")?;
        int("min_positions", c.min_positions as u64, 1, 1_000_000_000, "1..=10^9")?;
        let cap = c.max_samples_per_new_sample;
        real("max_samples_per_new_sample", cap, (0.0..=1e6).contains(&cap), "[0, 10^6]")?;
        int("checkpoint_every", c.checkpoint_every, 1, 1_000_000_000, "1..=10^9")?;
        int("metrics_every", c.metrics_every, 0, 1_000_000_000, "0..=10^9")?;
        int("keep_optimizer_states", c.keep_optimizer_states as u64, 1, 1_000_000, "1..=10^6")?;
        int("steps", c.steps, 0, 1_000_000_000_000, "0..=10^12")?;
        int("rescan_every", c.rescan_every, 1, 1_000_000, "1..=10^6")?;
        real("poll_seconds", c.poll_seconds, c.poll_seconds > 0.0 && c.poll_seconds <= 3600.0, "(0, 3600]")?;
        int("loader_threads", c.loader_threads as u64, 0, 64, "0..=64")?;
        Ok(())
    }

    /// The learning rate of step `step` (0-based: the step about to be taken when `step` steps
    /// are done): warm-up, then the schedule, the cosine over `cosine_steps` (or over 1 step when
    /// that is 0: see [`TrainConfig::learning_rate_over`]).
    #[must_use]
    pub fn learning_rate_at(&self, step: u64) -> f64 {
        self.learning_rate_over(step, self.cosine_steps)
    }

    /// As [`TrainConfig::learning_rate_at`], with the cosine reaching its floor at step `horizon`
    /// instead of `cosine_steps` (a run that fits the schedule to its own length).
    #[must_use]
    pub fn learning_rate_over(&self, step: u64, horizon: u64) -> f64 {
        let base = self.learning_rate;
        let scheduled = match self.schedule {
            Schedule::Constant => base,
            Schedule::Step => {
                let decays = i32::try_from(step / self.step_every.max(1)).unwrap_or(i32::MAX);
                base * self.step_gamma.powi(decays)
            }
            Schedule::Cosine => {
                let t = (step as f64 / horizon.max(1) as f64).min(1.0);
                let floor = base * self.cosine_final;
                floor + (base - floor) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
            }
        };
        if step < self.warmup_steps { scheduled * (step + 1) as f64 / self.warmup_steps as f64 } else { scheduled }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_ranges_are_named() {
        TrainConfig::default().validate().expect("defaults are in range");
        let bad = TrainConfig { momentum: 1.0, ..TrainConfig::default() };
        let e = bad.validate().expect_err("momentum 1 is out");
        assert_eq!(e.field, "momentum");
        assert!(e.to_string().contains("train.momentum = 1 is outside [0, 1)"), "{e}");
        let bad = TrainConfig { learning_rate: f64::NAN, ..TrainConfig::default() };
        assert_eq!(bad.validate().expect_err("NaN").field, "learning_rate");
    }

    #[test]
    fn schedules() {
        let c = TrainConfig { learning_rate: 1.0, warmup_steps: 4, ..TrainConfig::default() };
        let lrs: Vec<f64> = (0..6).map(|s| c.learning_rate_at(s)).collect();
        assert_eq!(lrs, [0.25, 0.5, 0.75, 1.0, 1.0, 1.0]);
        let c = TrainConfig { learning_rate: 1.0, schedule: Schedule::Step, step_every: 10, step_gamma: 0.5, ..c };
        assert_eq!((c.learning_rate_at(9), c.learning_rate_at(10), c.learning_rate_at(25)), (1.0, 0.5, 0.25));
        let c = TrainConfig {
            learning_rate: 1.0,
            schedule: Schedule::Cosine,
            cosine_steps: 100,
            cosine_final: 0.1,
            warmup_steps: 0,
            ..c
        };
        assert!((c.learning_rate_at(0) - 1.0).abs() < 1e-12);
        assert!((c.learning_rate_at(50) - 0.55).abs() < 1e-12);
        assert!((c.learning_rate_at(100) - 0.1).abs() < 1e-12 && (c.learning_rate_at(1000) - 0.1).abs() < 1e-12);
        // A horizon of 200 instead: halfway at step 100, the floor at 200.
        assert!((c.learning_rate_over(100, 200) - 0.55).abs() < 1e-12);
        assert!((c.learning_rate_over(200, 200) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn names_shown_are_the_toml_names() {
        fn check<T: fmt::Display + Serialize>(values: &[T]) {
            for v in values {
                assert_eq!(serde_json::to_string(v).expect("serialises"), format!("\"{v}\""));
            }
        }
        check(&[OptimizerKind::Sgd, OptimizerKind::Adamw]);
        check(&[Schedule::Constant, Schedule::Step, Schedule::Cosine]);
        check(&[PolicyTarget::Auto, PolicyTarget::Visits]);
    }

    #[test]
    fn value_targets_parse_and_mix() {
        assert_eq!("z".parse(), Ok(ValueTarget::Z));
        assert_eq!("q".parse(), Ok(ValueTarget::Q));
        assert_eq!("mix:0.25".parse(), Ok(ValueTarget::Mix(0.25)));
        assert_eq!("mix:0".parse(), Ok(ValueTarget::Mix(0.0)));
        assert_eq!("mix:1".parse(), Ok(ValueTarget::Mix(1.0)));
        // (1 - X) z + X q, exactly for these binary fractions.
        assert_eq!(ValueTarget::Z.value(1.0, 0.5), 1.0);
        assert_eq!(ValueTarget::Q.value(1.0, 0.5), 0.5);
        assert_eq!(ValueTarget::Mix(0.25).value(1.0, 0.5), 0.875);
        assert_eq!(ValueTarget::Mix(0.25).value(-1.0, 0.5), -0.625);
        assert_eq!(ValueTarget::Mix(0.0).value(-1.0, 0.5), -1.0);
        assert_eq!(ValueTarget::Mix(1.0).value(-1.0, 0.5), 0.5);
        for t in [ValueTarget::Z, ValueTarget::Q, ValueTarget::Mix(0.25), ValueTarget::Mix(1.0)] {
            assert_eq!(t.to_string().parse(), Ok(t), "{t}");
        }
        assert_eq!(ValueTarget::Mix(0.25).to_string(), "mix:0.25");
    }

    #[test]
    fn bad_value_targets_say_what_and_why() {
        let cases = [
            ("mix:1.5", "train.value_target = \"mix:1.5\": the weight of q, 1.5, is outside [0, 1]"),
            ("mix:-0.1", "the weight of q, -0.1, is outside [0, 1]"),
            ("mix:NaN", "the weight of q, NaN, is outside [0, 1]"),
            ("mix:inf", "is outside [0, 1]"),
            ("mix:", "the weight of q, '', is not a number"),
            ("mix:half", "'half', is not a number"),
            ("Z", "train.value_target = \"Z\": expected \"z\", \"q\" or \"mix:X\" with X in [0, 1]"),
            ("", "expected \"z\", \"q\" or \"mix:X\""),
            (" q", "expected"),
            ("result", "expected"),
        ];
        for (text, needle) in cases {
            let e = text.parse::<ValueTarget>().expect_err(text);
            assert_eq!((e.field, e.value.as_str()), ("value_target", text));
            assert!(e.to_string().contains(needle), "{text}: {e}");
        }
        // The same error comes out of a config file.
        let e = toml::from_str::<TrainConfig>("value_target = \"mix:1.5\"").expect_err("out of range");
        assert!(e.to_string().contains("train.value_target = \"mix:1.5\": the weight of q, 1.5"), "{e}");
        assert!(toml::from_str::<TrainConfig>("value_target = 0.5").is_err(), "a number is not a target");
        // A value built in code is checked by validate.
        let bad = TrainConfig { value_target: ValueTarget::Mix(1.5), ..TrainConfig::default() };
        let e = bad.validate().expect_err("mix weight out of range");
        assert_eq!(e.field, "value_target");
        assert!(e.to_string().contains("train.value_target = \"mix:1.5\" is outside"), "{e}");
        let bad = TrainConfig { value_target: ValueTarget::Mix(f64::NAN), ..TrainConfig::default() };
        assert_eq!(bad.validate().expect_err("NaN").field, "value_target");
        for x in [0.0, 0.25, 1.0] {
            TrainConfig { value_target: ValueTarget::Mix(x), ..TrainConfig::default() }.validate().expect("in range");
        }
    }

    #[test]
    fn targets_in_toml() {
        let c = TrainConfig::default();
        assert_eq!((c.value_target, c.policy_target), (ValueTarget::Z, PolicyTarget::Auto));
        let c: TrainConfig =
            toml::from_str("value_target = \"mix:0.25\"\npolicy_target = \"visits\"\n").expect("parses");
        assert_eq!((c.value_target, c.policy_target), (ValueTarget::Mix(0.25), PolicyTarget::Visits));
        let c: TrainConfig = toml::from_str("value_target = \"q\"\npolicy_target = \"auto\"\n").expect("parses");
        assert_eq!((c.value_target, c.policy_target), (ValueTarget::Q, PolicyTarget::Auto));
        // Written as strings, read back the same.
        let c = TrainConfig { value_target: ValueTarget::Mix(0.25), policy_target: PolicyTarget::Visits, ..c };
        let text = toml::to_string(&c).expect("serialises");
        assert!(text.contains("value_target = \"mix:0.25\"") && text.contains("policy_target = \"visits\""), "{text}");
        assert_eq!(toml::from_str::<TrainConfig>(&text).expect("reads back"), c);
        let e = toml::from_str::<TrainConfig>("policy_target = \"improved\"").expect_err("unknown");
        assert!(e.to_string().contains("improved") && e.to_string().contains("auto"), "{e}");
    }

    #[test]
    fn toml_round_trip() {
        let c: TrainConfig = toml::from_str("optimizer = \"adamw\"\nschedule = \"cosine\"\n").expect("parses");
        assert_eq!((c.optimizer, c.schedule, c.batch_size), (OptimizerKind::Adamw, Schedule::Cosine, 256));
        assert!(toml::from_str::<TrainConfig>("batchsize = 3").is_err());
    }
}
