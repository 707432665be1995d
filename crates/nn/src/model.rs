//! The policy-value net: an AlphaZero-style ResNet.
//!
//! ```text
//! input [B, planes, H, W]
//!   -> conv 3x3 (channels) -> BN -> ReLU
//!   -> blocks x { conv 3x3 -> BN -> ReLU -> conv 3x3 -> BN -> [SE] -> + skip -> ReLU }
//!   -> policy head: conv 1x1 (policy_channels) -> BN -> ReLU -> linear -> logits [B, policy_size]
//!   -> value head:  conv 1x1 (2) -> BN -> ReLU -> linear (value_hidden) -> ReLU -> linear (1) -> tanh
//!                                                     [material head: -> linear (1) -> tanh]
//! ```
//! The material head (`net.material_head`), when on, reads the value head's hidden layer and
//! predicts the game's final material difference. Training reads it
//! ([`PolicyValueNet::forward_heads_t`]); play reads it only with `net.material_utility` above 0
//! ([`PolicyValueNet::forward_play`]), so otherwise the search pays nothing for it;
//! [`PolicyValueNet::f_heads`] shows every head, for looking into a net.
//! Logits cover the encoding's whole policy index space; callers mask them to the legal moves.
//! The value is from the side to move's view, like every value in qizero.
//!
//! Squeeze-and-excitation, when on, gates each block's channels by a sigmoid of a two-layer
//! bottleneck over the block's global average.
//!
//! **libtorch's global state.** Building a net changes no process-wide setting: the CPU thread
//! count is the binary's business ([`crate::set_cpu_threads`], called at phase boundaries, never
//! while another thread runs a net). Fresh weights are drawn from libtorch's global generator,
//! seeded with the caller's seed; seeding and drawing happen under one process-wide lock, so two
//! threads building nets at once cannot interleave them and each net is exactly what its seed
//! makes alone. A net built to load a checkpoint into ([`PolicyValueNet::for_loading`]) starts
//! from constants and draws nothing: loading never touches the generator.

use crate::NnError;
use crate::config::NetConfig;
use crate::device::parse_device;
use encode::EncodingInfo;
use std::sync::{Mutex, PoisonError};
use tch::nn;
use tch::{Device, Kind, Tensor};

/// Channels of the value head's 1x1 convolution.
const VALUE_CHANNELS: i64 = 2;

/// Held while libtorch's generator is seeded and fresh weights are drawn from it.
static FRESH_WEIGHTS: Mutex<()> = Mutex::new(());

/// How the layers' weights start: libtorch's default initialisers (drawing from its generator),
/// or constants that draw nothing (for a net whose weights are about to be loaded).
#[derive(Copy, Clone, Debug)]
struct Inits {
    random: bool,
}

impl Inits {
    fn conv(self, k: i64) -> nn::ConvConfig {
        let cfg = nn::ConvConfig { padding: k / 2, bias: false, ..Default::default() };
        if self.random { cfg } else { nn::ConvConfig { ws_init: nn::Init::Const(0.0), ..cfg } }
    }

    fn linear(self) -> nn::LinearConfig {
        if self.random {
            nn::LinearConfig::default()
        } else {
            nn::LinearConfig { ws_init: nn::Init::Const(0.0), bs_init: Some(nn::Init::Const(0.0)), bias: true }
        }
    }

    fn batch_norm(self) -> nn::BatchNormConfig {
        if self.random {
            nn::BatchNormConfig::default()
        } else {
            nn::BatchNormConfig {
                ws_init: nn::Init::Const(1.0),
                bs_init: nn::Init::Const(0.0),
                ..nn::BatchNormConfig::default()
            }
        }
    }
}

fn conv(p: nn::Path<'_>, cin: i64, cout: i64, k: i64, inits: Inits) -> nn::Conv2D {
    nn::conv2d(p, cin, cout, k, inits.conv(k))
}

#[derive(Debug)]
struct SqueezeExcite {
    fc1: nn::Linear,
    fc2: nn::Linear,
}

#[derive(Debug)]
struct Block {
    conv1: nn::Conv2D,
    bn1: nn::BatchNorm,
    conv2: nn::Conv2D,
    bn2: nn::BatchNorm,
    se: Option<SqueezeExcite>,
}

impl Block {
    fn new(p: &nn::Path<'_>, c: i64, se_ratio: i64, inits: Inits) -> Block {
        let se = (se_ratio > 0).then(|| SqueezeExcite {
            fc1: nn::linear(p / "se1", c, c / se_ratio, inits.linear()),
            fc2: nn::linear(p / "se2", c / se_ratio, c, inits.linear()),
        });
        Block {
            conv1: conv(p / "conv1", c, c, 3, inits),
            bn1: nn::batch_norm2d(p / "bn1", c, inits.batch_norm()),
            conv2: conv(p / "conv2", c, c, 3, inits),
            bn2: nn::batch_norm2d(p / "bn2", c, inits.batch_norm()),
            se,
        }
    }

    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        let ys = xs.apply(&self.conv1).apply_t(&self.bn1, train).relu();
        let mut ys = ys.apply(&self.conv2).apply_t(&self.bn2, train);
        if let Some(se) = &self.se {
            let (b, c) = (ys.size()[0], ys.size()[1]);
            let gate = ys.mean_dim(&[2i64, 3][..], false, ys.kind()).apply(&se.fc1).relu().apply(&se.fc2).sigmoid();
            ys = &ys * gate.view([b, c, 1, 1]);
        }
        (ys + xs).relu()
    }
}

/// Every head's output for a batch, as `f32` on the CPU ([`PolicyValueNet::f_heads`]).
#[derive(Debug)]
pub struct Heads {
    /// Policy logits `[B, policy_size]`, over the encoding's whole index space.
    pub logits: Tensor,
    /// The value head's output `[B]` (tanh, side to move's view).
    pub value: Tensor,
    /// The material head's output `[B]` (tanh, side to move's view: the final material
    /// difference it expects over the game's `MATERIAL_SCALE`), `None` for a net without it.
    pub material: Option<Tensor>,
    /// What play reads `[B]`: the value plus `net.material_utility` times the material, clamped
    /// to [-1, 1] ([`PolicyValueNet::forward_play`]).
    pub played: Tensor,
}

/// The policy-value net with its weights, bound to one game's encoding.
#[derive(Debug)]
pub struct PolicyValueNet {
    vs: nn::VarStore,
    stem: nn::Conv2D,
    stem_bn: nn::BatchNorm,
    blocks: Vec<Block>,
    policy_conv: nn::Conv2D,
    policy_bn: nn::BatchNorm,
    policy_fc: nn::Linear,
    value_conv: nn::Conv2D,
    value_bn: nn::BatchNorm,
    value_fc1: nn::Linear,
    value_fc2: nn::Linear,
    material_fc: Option<nn::Linear>,
    game: String,
    encoding: EncodingInfo,
    config: NetConfig,
    kind: Kind,
}

fn dim(v: usize) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// The cause in a libtorch error text, without the C++ stack trace libtorch appends
/// (`Exception raised from ...` and its frames) and without the wrapping of a `tch` panic
/// (``called `Result::unwrap()` on an `Err` value: Torch("...")``, where the newlines are
/// escaped).
fn torch_cause(text: &str) -> &str {
    let text = text.split_once("Torch(\"").map_or(text, |(_, rest)| rest);
    let text = text.split_once("\nException raised from").map_or(text, |(cause, _)| cause);
    let text = text.split_once("\\nException raised from").map_or(text, |(cause, _)| cause);
    text.trim_end_matches("\")").trim()
}

/// Refuses feature planes for an encoding that has none.
fn check_features(game: &str, encoding: EncodingInfo, config: &NetConfig) -> Result<(), NnError> {
    if config.feature_planes && encoding.feature_planes() == 0 {
        return Err(NnError::Config(format!(
            "net.feature_planes = true, but the {game} encoding ({}) has no feature planes",
            encoding.id
        )));
    }
    Ok(())
}

/// Checks `config` and finds its device.
fn checked_device(config: &NetConfig) -> Result<Device, NnError> {
    config.validate().map_err(NnError::Config)?;
    parse_device(&config.device).map_err(NnError::Config)
}

impl PolicyValueNet {
    /// A freshly initialised net for `game` with `encoding`, on the device of `config`.
    /// Initialisation draws from libtorch's generator seeded with `seed`, under a process-wide
    /// lock (see the module docs): the same seed and config give the same weights, whatever
    /// other threads do. `config.cpu_threads` is not applied here ([`crate::set_cpu_threads`]).
    ///
    /// # Errors
    /// A bad config (a field out of range, an unknown or absent device).
    pub fn new(game: &str, encoding: EncodingInfo, config: &NetConfig, seed: u64) -> Result<PolicyValueNet, NnError> {
        let device = checked_device(config)?;
        check_features(game, encoding, config)?;
        let _drawing = FRESH_WEIGHTS.lock().unwrap_or_else(PoisonError::into_inner);
        tch::manual_seed(i64::from_ne_bytes(seed.to_ne_bytes()));
        Ok(PolicyValueNet::build(game, encoding, config, device, Inits { random: true }))
    }

    /// A net for `game` with `encoding` whose weights are constants (convolutions and linear
    /// layers zero, batch norm the identity), to load a checkpoint into. Draws nothing from
    /// libtorch's generator and takes no lock.
    ///
    /// # Errors
    /// As [`PolicyValueNet::new`].
    pub fn for_loading(game: &str, encoding: EncodingInfo, config: &NetConfig) -> Result<PolicyValueNet, NnError> {
        let device = checked_device(config)?;
        check_features(game, encoding, config)?;
        Ok(PolicyValueNet::build(game, encoding, config, device, Inits { random: false }))
    }

    /// Makes the layers in a fixed order (the order fresh weights are drawn in: changing it
    /// changes every seeded net).
    fn build(game: &str, encoding: EncodingInfo, config: &NetConfig, device: Device, inits: Inits) -> PolicyValueNet {
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let c = dim(config.channels);
        let (h, w) = (dim(encoding.height), dim(encoding.width));
        let stem = conv(&root / "stem", dim(encoding.input(config.feature_planes).1), c, 3, inits);
        let stem_bn = nn::batch_norm2d(&root / "stem_bn", c, inits.batch_norm());
        let blocks = (0..config.blocks)
            .map(|i| Block::new(&(&root / format!("block{i}")), c, dim(config.se_ratio), inits))
            .collect();
        let pc = dim(config.policy_channels);
        let policy_conv = conv(&root / "policy_conv", c, pc, 1, inits);
        let policy_bn = nn::batch_norm2d(&root / "policy_bn", pc, inits.batch_norm());
        let policy_fc = nn::linear(&root / "policy_fc", pc * h * w, dim(encoding.policy_size), inits.linear());
        let value_conv = conv(&root / "value_conv", c, VALUE_CHANNELS, 1, inits);
        let value_bn = nn::batch_norm2d(&root / "value_bn", VALUE_CHANNELS, inits.batch_norm());
        let vh = dim(config.value_hidden);
        let value_fc1 = nn::linear(&root / "value_fc1", VALUE_CHANNELS * h * w, vh, inits.linear());
        let value_fc2 = nn::linear(&root / "value_fc2", vh, 1, inits.linear());
        // Made last, so that a net without the head draws exactly the weights it drew before.
        let material_fc = config.material_head.then(|| nn::linear(&root / "material_fc", vh, 1, inits.linear()));
        let mut net = PolicyValueNet {
            vs,
            stem,
            stem_bn,
            blocks,
            policy_conv,
            policy_bn,
            policy_fc,
            value_conv,
            value_bn,
            value_fc1,
            value_fc2,
            material_fc,
            game: game.to_owned(),
            encoding,
            config: config.clone(),
            kind: Kind::Float,
        };
        if config.half && device.is_cuda() {
            net.vs.half();
            net.kind = Kind::Half;
        }
        net
    }

    /// A fresh net for the game `G`, with `G`'s encoding.
    ///
    /// # Errors
    /// As [`PolicyValueNet::new`].
    pub fn for_game<G: encode::Encode>(config: &NetConfig, seed: u64) -> Result<PolicyValueNet, NnError> {
        PolicyValueNet::new(G::NAME, G::ENCODING, config, seed)
    }

    /// Policy logits `[B, policy_size]` and values `[B]` (tanh, side to move's view) for a batch of
    /// encoded positions `[B, planes, H, W]`. `train` switches batch norm to batch statistics.
    pub fn forward_t(&self, xs: &Tensor, train: bool) -> (Tensor, Tensor) {
        let (policy, value, _) = self.forward_heads(xs, train, false);
        (policy, value)
    }

    /// [`PolicyValueNet::forward_t`] with the material head's predictions `[B]` (tanh, side to
    /// move's view) as well, `None` for a net without the head. For training.
    pub fn forward_heads_t(&self, xs: &Tensor, train: bool) -> (Tensor, Tensor, Option<Tensor>) {
        self.forward_heads(xs, train, true)
    }

    /// What play reads (inference mode): the policy logits and the played value, the value
    /// head's output plus `net.material_utility` times the material head's, clamped to [-1, 1]
    /// (the value head's alone when the utility is 0).
    pub fn forward_play(&self, xs: &Tensor) -> (Tensor, Tensor) {
        let (policy, value, material) = self.forward_heads(xs, false, self.config.material_utility > 0.0);
        (policy, self.played(&value, material.as_ref()))
    }

    /// The played value from the value head's and the material head's outputs: the value plus
    /// `net.material_utility` times the material, clamped to [-1, 1]; the value alone without
    /// the material head's output or with a utility of 0.
    fn played(&self, value: &Tensor, material: Option<&Tensor>) -> Tensor {
        let utility = f64::from(self.config.material_utility);
        match material {
            Some(material) if utility > 0.0 => (value + material * utility).clamp(-1.0, 1.0),
            _ => value.shallow_clone(),
        }
    }

    fn forward_heads(&self, xs: &Tensor, train: bool, material: bool) -> (Tensor, Tensor, Option<Tensor>) {
        let mut xs = xs.to_device(self.device()).to_kind(self.kind);
        // Every encoded plane arrives; a net without feature planes reads the ones before them.
        let planes = self.input_planes();
        if xs.size().get(1).is_some_and(|&n| n > planes) {
            xs = xs.narrow(1, 0, planes);
        }
        let mut t = xs.apply(&self.stem).apply_t(&self.stem_bn, train).relu();
        for block in &self.blocks {
            t = block.forward_t(&t, train);
        }
        let policy =
            t.apply(&self.policy_conv).apply_t(&self.policy_bn, train).relu().flatten(1, -1).apply(&self.policy_fc);
        let hidden = t
            .apply(&self.value_conv)
            .apply_t(&self.value_bn, train)
            .relu()
            .flatten(1, -1)
            .apply(&self.value_fc1)
            .relu();
        let value = hidden.apply(&self.value_fc2).tanh().view([-1]);
        let material = match &self.material_fc {
            Some(fc) if material => Some(hidden.apply(fc).tanh().view([-1])),
            _ => None,
        };
        (policy, value, material)
    }

    /// Whether the net computes in half precision (`net.half` on a CUDA device; on the CPU the
    /// setting is ignored and the net stays in fp32).
    #[must_use]
    pub fn is_half(&self) -> bool {
        self.kind == Kind::Half
    }

    /// Whether the net has the material head (`net.material_head`).
    #[must_use]
    pub fn has_material_head(&self) -> bool {
        self.material_fc.is_some()
    }

    /// Inference: [`PolicyValueNet::forward_play`] without gradients, results as `f32` on the CPU.
    ///
    /// # Panics
    /// Where libtorch fails (as `tch`'s infallible calls do); [`PolicyValueNet::f_infer`]
    /// reports the failure instead.
    pub fn infer(&self, xs: &Tensor) -> (Tensor, Tensor) {
        tch::no_grad(|| {
            let (p, v) = self.forward_play(xs);
            (p.to_kind(Kind::Float).to_device(Device::Cpu), v.to_kind(Kind::Float).to_device(Device::Cpu))
        })
    }

    /// Encoded positions, `planes` of them one after another (as
    /// [`crate::evaluator::EncodedBatch::planes`] holds them), stacked into the net's input
    /// `[B, planes, H, W]` on the CPU.
    ///
    /// # Errors
    /// [`NnError::Input`] when `planes` is not a whole number of positions of this net's
    /// encoding; [`NnError::Torch`] when libtorch cannot make the tensor.
    pub fn f_input(&self, planes: &[f32]) -> Result<Tensor, NnError> {
        let info = &self.encoding;
        let per = info.plane_len();
        if per == 0 || planes.len() % per != 0 {
            return Err(NnError::Input(format!(
                "{} input floats are not a whole number of positions of {} floats",
                planes.len(),
                per
            )));
        }
        let n = planes.len() / per;
        let dims = [n, info.planes, info.height, info.width].map(|d| i64::try_from(d).unwrap_or(i64::MAX));
        Tensor::f_from_slice(planes).and_then(|t| t.f_view(dims)).map_err(|e| {
            NnError::Torch(format!("stacking {n} positions into {dims:?}: {}", torch_cause(&e.to_string())))
        })
    }

    /// [`PolicyValueNet::infer`], returning libtorch's failures as errors: the copy of `xs` to
    /// the net's device, the forward pass (whose C++ exceptions `tch` raises as panics, caught
    /// here; the panic is still reported by the panic hook), and the copies back to the CPU.
    ///
    /// # Errors
    /// [`NnError::Torch`], saying which step failed on which device and libtorch's message.
    pub fn f_infer(&self, xs: &Tensor) -> Result<(Tensor, Tensor), NnError> {
        let (p, v) = self.guarded(xs, |xs| self.forward_play(xs))?;
        Ok((self.back(&p, "policy logits")?, self.back(&v, "values")?))
    }

    /// Every head's output for a batch of encoded positions `[B, planes, H, W]`, without
    /// gradients, as `f32` on the CPU: for looking into a net (`qizero eval`); the search reads
    /// [`PolicyValueNet::f_infer`]. The material head runs whatever `net.material_utility` is.
    ///
    /// # Errors
    /// As [`PolicyValueNet::f_infer`].
    pub fn f_heads(&self, xs: &Tensor) -> Result<Heads, NnError> {
        let (logits, value, material, played) = self.guarded(xs, |xs| {
            let (p, v, m) = self.forward_heads(xs, false, true);
            let played = self.played(&v, m.as_ref());
            (p, v, m, played)
        })?;
        Ok(Heads {
            logits: self.back(&logits, "policy logits")?,
            value: self.back(&value, "values")?,
            material: material.map(|m| self.back(&m, "material predictions")).transpose()?,
            played: self.back(&played, "played values")?,
        })
    }

    /// Runs `forward` on `xs` copied to the net's device and precision, without gradients,
    /// catching the panics by which `tch` raises libtorch's C++ exceptions (the panic hook still
    /// reports them) and returning them as errors naming the step and the device.
    fn guarded<T>(&self, xs: &Tensor, forward: impl FnOnce(&Tensor) -> T) -> Result<T, NnError> {
        let on = crate::device::device_name(self.device());
        let xs = xs.f_to_device(self.device()).and_then(|x| x.f_to_kind(self.kind)).map_err(|e| {
            NnError::Torch(format!("copying the input planes to {on}: {}", torch_cause(&e.to_string())))
        })?;
        let outputs = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tch::no_grad(|| forward(&xs))));
        outputs.map_err(|panic| {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "a panic without a message".to_owned());
            NnError::Torch(format!("forward pass on {on}: {}", torch_cause(&message)))
        })
    }

    /// `t`, an output of this net, as `f32` on the CPU; `what` names it in the error.
    fn back(&self, t: &Tensor, what: &str) -> Result<Tensor, NnError> {
        t.f_to_kind(Kind::Float).and_then(|t| t.f_to_device(Device::Cpu)).map_err(|e| {
            let on = crate::device::device_name(self.device());
            NnError::Torch(format!("copying the {what} from {on} to the CPU: {}", torch_cause(&e.to_string())))
        })
    }

    /// The weights (for optimisers and checkpoints).
    #[must_use]
    pub fn var_store(&self) -> &nn::VarStore {
        &self.vs
    }

    /// The weights, mutable (for loading).
    pub fn var_store_mut(&mut self) -> &mut nn::VarStore {
        &mut self.vs
    }

    /// The device the weights live on.
    #[must_use]
    pub fn device(&self) -> Device {
        self.vs.device()
    }

    /// The game this net plays.
    #[must_use]
    pub fn game(&self) -> &str {
        &self.game
    }

    /// The encoding of its inputs and policy.
    #[must_use]
    pub fn encoding(&self) -> &EncodingInfo {
        &self.encoding
    }

    /// The id of the planes it reads ([`EncodingInfo::input`]): the encoding's own with feature
    /// planes, the base layout's without. What its checkpoints record as `encoding`.
    #[must_use]
    pub fn input_id(&self) -> &'static str {
        self.encoding.input(self.config.feature_planes).0
    }

    /// How many of the encoded planes it reads: all with feature planes, the base layout's
    /// without (the first ones; the rest are dropped in the forward pass).
    #[must_use]
    pub fn input_planes(&self) -> i64 {
        dim(self.encoding.input(self.config.feature_planes).1)
    }

    /// Its configuration.
    #[must_use]
    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    /// An independent copy: the same architecture, device and precision, with the weights (batch
    /// norm statistics included) copied, so that another thread can run it while this one runs
    /// (an [`crate::InferenceService`] with several net threads holds one copy each). Draws
    /// nothing from libtorch's generator.
    ///
    /// # Errors
    /// [`NnError::Torch`]: the copy failed (out of device memory, say).
    pub fn try_clone(&self) -> Result<PolicyValueNet, NnError> {
        let mut copy =
            PolicyValueNet::build(&self.game, self.encoding, &self.config, self.device(), Inits { random: false });
        copy.vs
            .copy(&self.vs)
            .map_err(|e| NnError::Torch(format!("copying the net's weights: {}", torch_cause(&e.to_string()))))?;
        Ok(copy)
    }

    /// Number of trainable parameters.
    #[must_use]
    pub fn parameter_count(&self) -> i64 {
        self.vs.trainable_variables().iter().map(Tensor::numel).map(dim).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::torch_cause;

    #[test]
    fn torch_causes_lose_their_stack_traces() {
        let panic = r#"called `Result::unwrap()` on an `Err` value: Torch("Given groups=1, weight of size [1]\nException raised from check_shape_forward at Convolution.cpp:725 (most recent call first):\nframe #0: c10::Error")"#;
        assert_eq!(torch_cause(panic), "Given groups=1, weight of size [1]");
        let error = "Internal torch error: CUDA out of memory\nException raised from malloc\nframe #0: x";
        assert_eq!(torch_cause(error), "Internal torch error: CUDA out of memory");
        assert_eq!(torch_cause("plain"), "plain");
    }
}
