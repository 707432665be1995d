//! The optimisers, written over tensors so that their state can be saved and restored exactly.
//!
//! tch's built-in optimisers keep their state (momentum buffers, Adam moments) inside libtorch
//! where it cannot be read out, so a resumed run would start with empty buffers and drift from an
//! uninterrupted one. These are the same algorithms, with the same arithmetic as PyTorch's
//! `SGD(nesterov)` and `AdamW`, applied under `no_grad` to the net's named trainable variables.
//!
//! Weight decay touches only tensors of two or more dimensions (convolution and linear weights),
//! not biases or batch-norm scales and shifts, as is usual for ResNets.
//!
//! # State file (`<step>.optim.safetensors`)
//! A safetensors file, every tensor `F32`:
//! | tensor               | what                                   |
//! |----------------------|----------------------------------------|
//! | `momentum/<var>`     | SGD: the momentum buffer of `<var>`    |
//! | `adam_m/<var>`       | AdamW: the first moment of `<var>`     |
//! | `adam_v/<var>`       | AdamW: the second moment of `<var>`    |
//!
//! Metadata (strings): `format` = `qizero-optim-1`, `optimizer` = `sgd` or `adamw`, `updates` =
//! the number of updates applied (Adam's bias correction needs it), `step` = the training step.
//! Written to a temporary name, synced and renamed, like every file of a checkpoint.

use crate::TrainError;
use crate::config::{OptimizerKind, TrainConfig};
use safetensors::SafeTensors;
use safetensors::tensor::{Dtype, TensorView};
use std::collections::HashMap;
use std::path::Path;
use tch::{Kind, Tensor};

/// The value of the `format` metadata key of an optimiser state file.
pub const FORMAT: &str = "qizero-optim-1";

/// One trainable variable with its optimiser buffers.
#[derive(Debug)]
struct Slot {
    name: String,
    param: Tensor,
    decay: bool,
    /// SGD: momentum; AdamW: first moment.
    a: Tensor,
    /// AdamW: second moment (unused by SGD).
    b: Option<Tensor>,
}

/// SGD with (Nesterov) momentum or AdamW, over a net's trainable variables, with state that can
/// be saved and loaded.
#[derive(Debug)]
pub struct Optimizer {
    kind: OptimizerKind,
    momentum: f64,
    nesterov: bool,
    beta2: f64,
    eps: f64,
    weight_decay: f64,
    updates: u64,
    slots: Vec<Slot>,
}

fn tch_err(what: &str, e: tch::TchError) -> TrainError {
    TrainError::Torch(format!("{what}: {e}"))
}

impl Optimizer {
    /// An optimiser for the trainable variables of `vs` (sorted by name), with zeroed buffers.
    ///
    /// # Errors
    /// libtorch fails to allocate the buffers.
    pub fn new(vs: &tch::nn::VarStore, config: &TrainConfig) -> Result<Optimizer, TrainError> {
        let vars = vs.variables();
        let mut names: Vec<&String> = vars.iter().filter(|(_, t)| t.requires_grad()).map(|(n, _)| n).collect();
        names.sort();
        let mut slots = Vec::with_capacity(names.len());
        for name in names {
            let param = vars[name].shallow_clone();
            let zeros = || param.f_zeros_like().map_err(|e| tch_err("optimiser buffer", e));
            let b = match config.optimizer {
                OptimizerKind::Sgd => None,
                OptimizerKind::Adamw => Some(zeros()?),
            };
            slots.push(Slot { name: name.clone(), decay: param.dim() >= 2, a: zeros()?, b, param });
        }
        Ok(Optimizer {
            kind: config.optimizer,
            momentum: config.momentum,
            nesterov: config.nesterov,
            beta2: config.adam_beta2,
            eps: config.adam_eps,
            weight_decay: config.weight_decay,
            updates: 0,
            slots,
        })
    }

    /// Which algorithm this is.
    #[must_use]
    pub fn kind(&self) -> OptimizerKind {
        self.kind
    }

    /// Updates applied so far (restored by [`Optimizer::load`]).
    #[must_use]
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// Sets every gradient to zero (call before the backward pass).
    pub fn zero_grad(&mut self) {
        for slot in &mut self.slots {
            slot.param.zero_grad();
        }
    }

    /// Applies one update with learning rate `lr` from the gradients the last backward pass left.
    /// A variable without a gradient is left alone.
    ///
    /// # Errors
    /// A libtorch failure (shape or device mismatch: a programming error).
    pub fn step(&mut self, lr: f64) -> Result<(), TrainError> {
        self.updates += 1;
        let t = self.updates;
        let (mu, wd) = (self.momentum, self.weight_decay);
        let (kind, nesterov, beta2, eps) = (self.kind, self.nesterov, self.beta2, self.eps);
        let device = self.slots.first().map_or(tch::Device::Cpu, |s| s.param.device());
        let factors = SgdFactors::new(lr, mu, wd, device).map_err(|e| tch_err("optimiser factors", e))?;
        tch::no_grad(|| {
            for slot in &mut self.slots {
                let grad = slot.param.grad();
                if !grad.defined() {
                    continue;
                }
                let r = match kind {
                    OptimizerKind::Sgd => sgd(slot, &grad, &factors, mu, nesterov, wd),
                    OptimizerKind::Adamw => adamw(slot, &grad, lr, mu, beta2, eps, wd, t),
                };
                r.map_err(|e| tch_err(&format!("update of {}", slot.name), e))?;
            }
            Ok(())
        })
    }

    /// Writes the state to `path` (format in the module docs), marked with `step`.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn save(&self, path: &Path, step: u64) -> Result<(), TrainError> {
        let mut buffers: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
        let (a_name, b_name) = match self.kind {
            OptimizerKind::Sgd => ("momentum", ""),
            OptimizerKind::Adamw => ("adam_m", "adam_v"),
        };
        for slot in &self.slots {
            buffers.push(to_bytes(format!("{a_name}/{}", slot.name), &slot.a)?);
            if let Some(b) = &slot.b {
                buffers.push(to_bytes(format!("{b_name}/{}", slot.name), b)?);
            }
        }
        let mut views = Vec::with_capacity(buffers.len());
        for (name, shape, bytes) in &buffers {
            let view = TensorView::new(Dtype::F32, shape.clone(), bytes)
                .map_err(|e| TrainError::io(path, format!("tensor {name}: {e:?}")))?;
            views.push((name.as_str(), view));
        }
        let meta: HashMap<String, String> = [
            ("format", FORMAT.to_owned()),
            ("optimizer", kind_name(self.kind).to_owned()),
            ("updates", self.updates.to_string()),
            ("step", step.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let bytes = safetensors::serialize(views, &Some(meta)).map_err(|e| TrainError::io(path, format!("{e:?}")))?;
        crate::fsutil::write_atomic(path, &bytes)
    }

    /// Replaces the state with the one in `path`, which must be for the same algorithm and the
    /// same variables with the same shapes.
    ///
    /// # Errors
    /// Unreadable or malformed file, another algorithm, a missing or misshapen buffer.
    pub fn load(&mut self, path: &Path) -> Result<(), TrainError> {
        let bytes = std::fs::read(path).map_err(|e| TrainError::io(path, e))?;
        let bad = |m: String| TrainError::Corrupt { path: path.to_path_buf(), message: m };
        let (_, header) =
            SafeTensors::read_metadata(&bytes).map_err(|e| bad(format!("not a safetensors file ({e:?})")))?;
        let meta = header.metadata().clone().unwrap_or_default();
        let get = |k: &str| meta.get(k).cloned().ok_or_else(|| bad(format!("metadata has no '{k}'")));
        if get("format")? != FORMAT {
            return Err(bad(format!("format '{}', this build reads '{FORMAT}'", get("format")?)));
        }
        let kind = get("optimizer")?;
        if kind != kind_name(self.kind) {
            return Err(bad(format!("state of optimiser '{kind}', the config asks for '{}'", kind_name(self.kind))));
        }
        let updates: u64 = get("updates")?.parse().map_err(|_| bad("metadata 'updates' is not a number".into()))?;
        let file = SafeTensors::deserialize(&bytes).map_err(|e| bad(format!("{e:?}")))?;
        let (a_name, b_name) = match self.kind {
            OptimizerKind::Sgd => ("momentum", ""),
            OptimizerKind::Adamw => ("adam_m", "adam_v"),
        };
        let expected = self.slots.len() * if self.kind == OptimizerKind::Adamw { 2 } else { 1 };
        if file.names().len() != expected {
            return Err(bad(format!("{} buffers in the file, the net needs {expected}", file.names().len())));
        }
        tch::no_grad(|| -> Result<(), TrainError> {
            for slot in &mut self.slots {
                copy_from(&file, &format!("{a_name}/{}", slot.name), &mut slot.a).map_err(&bad)?;
                if let Some(b) = &mut slot.b {
                    copy_from(&file, &format!("{b_name}/{}", slot.name), b).map_err(&bad)?;
                }
            }
            Ok(())
        })?;
        self.updates = updates;
        Ok(())
    }
}

/// The scalar factors of one SGD step as 0-dimensional tensors on the weights' device, made once
/// per step: with them `addcmul_` does "add a scaled tensor" in one fused pass (tch has no `add_`
/// with `alpha`). On the device because libtorch's ternary ops, unlike the binary ones, do not
/// take CPU scalars next to CUDA tensors.
struct SgdFactors {
    weight_decay: Tensor,
    neg_lr: Tensor,
    neg_lr_mu: Tensor,
}

impl SgdFactors {
    fn new(lr: f64, mu: f64, wd: f64, device: tch::Device) -> Result<SgdFactors, tch::TchError> {
        let scalar = |x: f64| Tensor::from(x as f32).f_to_device(device);
        Ok(SgdFactors { weight_decay: scalar(wd)?, neg_lr: scalar(-lr)?, neg_lr_mu: scalar(-lr * mu)? })
    }
}

/// PyTorch's SGD with momentum (dampening 0): `g += wd * w` (coupled L2), `buf = mu * buf + g`,
/// `w -= lr * (g + mu * buf)` with Nesterov, `w -= lr * buf` without. Every pass is in place
/// (the gradient is overwritten; it is zeroed before the next backward pass anyway), so the
/// update allocates nothing and reads each tensor as few times as libtorch's own SGD.
fn sgd(slot: &mut Slot, grad: &Tensor, f: &SgdFactors, mu: f64, nesterov: bool, wd: f64) -> Result<(), tch::TchError> {
    let mut g = grad.shallow_clone();
    if slot.decay && wd > 0.0 {
        let _ = g.f_addcmul_(&slot.param, &f.weight_decay)?;
    }
    let _ = slot.a.f_mul_scalar_(mu)?;
    let _ = slot.a.f_add_(&g)?;
    if nesterov {
        let _ = slot.param.f_addcmul_(&g, &f.neg_lr)?;
        let _ = slot.param.f_addcmul_(&slot.a, &f.neg_lr_mu)?;
    } else {
        let _ = slot.param.f_addcmul_(&slot.a, &f.neg_lr)?;
    }
    Ok(())
}

/// PyTorch's AdamW: `w *= 1 - lr * wd`, `m = b1 m + (1 - b1) g`, `v = b2 v + (1 - b2) g^2`,
/// `w -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)`. In place but for the
/// denominator (the gradient is overwritten).
#[allow(clippy::too_many_arguments)]
fn adamw(
    slot: &mut Slot,
    grad: &Tensor,
    lr: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
    wd: f64,
    t: u64,
) -> Result<(), tch::TchError> {
    let Some(v) = slot.b.as_mut() else { return Ok(()) };
    if slot.decay && wd > 0.0 {
        let _ = slot.param.f_mul_scalar_(1.0 - lr * wd)?;
    }
    let _ = slot.a.f_lerp_(grad, 1.0 - beta1)?;
    // v = b2 v + (sqrt(1 - b2) g)^2
    let mut g = grad.shallow_clone();
    let _ = g.f_mul_scalar_((1.0 - beta2).sqrt())?;
    let _ = v.f_mul_scalar_(beta2)?;
    let _ = v.f_addcmul_(&g, &g)?;
    let t = i32::try_from(t).unwrap_or(i32::MAX);
    let bias1 = 1.0 - beta1.powi(t);
    let bias2 = 1.0 - beta2.powi(t);
    // w += m / d with d = (sqrt(v) / sqrt(bias2) + eps) * (-bias1 / lr), in two passes.
    let scale = -bias1 / lr;
    let mut denom = v.f_sqrt()?;
    let _ = denom.f_mul_scalar_(scale / bias2.sqrt())?;
    let _ = denom.f_add_scalar_(eps * scale)?;
    let _ = slot.param.f_addcdiv_(&slot.a, &denom)?;
    Ok(())
}

fn kind_name(kind: OptimizerKind) -> &'static str {
    match kind {
        OptimizerKind::Sgd => "sgd",
        OptimizerKind::Adamw => "adamw",
    }
}

fn to_bytes(name: String, t: &Tensor) -> Result<(String, Vec<usize>, Vec<u8>), TrainError> {
    let t = t.detach().to_device(tch::Device::Cpu).to_kind(Kind::Float).contiguous();
    let shape: Vec<usize> = t.size().iter().map(|&d| usize::try_from(d).unwrap_or(0)).collect();
    let values = Vec::<f32>::try_from(&t.view([-1])).map_err(|e| tch_err(&name, e))?;
    Ok((name, shape, values.iter().flat_map(|v| v.to_le_bytes()).collect()))
}

fn copy_from(file: &SafeTensors<'_>, name: &str, dst: &mut Tensor) -> Result<(), String> {
    let view = file.tensor(name).map_err(|_| format!("buffer '{name}' missing"))?;
    let want: Vec<usize> = dst.size().iter().map(|&d| usize::try_from(d).unwrap_or(0)).collect();
    if view.shape() != want.as_slice() || view.dtype() != Dtype::F32 {
        return Err(format!("buffer '{name}' is {:?} {:?}, expected F32 {want:?}", view.dtype(), view.shape()));
    }
    let values: Vec<f32> = view.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    let src = Tensor::from_slice(&values).view(dst.size().as_slice()).to_device(dst.device()).to_kind(dst.kind());
    dst.f_copy_(&src).map_err(|e| format!("buffer '{name}': {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::nn::{self, Module, OptimizerConfig};

    /// A small model with fixed weights (no global generator: tests run in parallel threads, and
    /// libtorch's generator is shared by all of them).
    fn model(seed: i64) -> (nn::VarStore, nn::Sequential) {
        let vs = nn::VarStore::new(tch::Device::Cpu);
        let net = nn::seq()
            .add(nn::linear(vs.root() / "l1", 5, 7, Default::default()))
            .add_fn(|x| x.tanh())
            .add(nn::linear(vs.root() / "l2", 7, 3, Default::default()));
        tch::no_grad(|| {
            let mut vars: Vec<(String, Tensor)> = vs.variables().into_iter().collect();
            vars.sort_by(|a, b| a.0.cmp(&b.0));
            for (i, (_, var)) in vars.iter_mut().enumerate() {
                let n = var.numel() as i64;
                let values =
                    (Tensor::arange(n, (Kind::Float, tch::Device::Cpu)) * 0.7 + (seed + i as i64) as f64).sin();
                var.copy_(&(values * 0.5).view(var.size().as_slice()));
            }
        });
        (vs, net)
    }

    fn loss(net: &nn::Sequential, step: i64) -> Tensor {
        let x = (Tensor::arange(40, (Kind::Float, tch::Device::Cpu)) * (0.3 + step as f64 * 0.01)).cos().view([8, 5]);
        net.forward(&x).square().mean(Kind::Float)
    }

    fn max_diff(a: &nn::VarStore, b: &nn::VarStore) -> f64 {
        let (va, vb) = (a.variables(), b.variables());
        va.iter().map(|(n, t)| (t - &vb[n]).abs().max().double_value(&[])).fold(0.0, f64::max)
    }

    /// Our optimisers match libtorch's own (weight decay on every tensor there, so none here).
    #[test]
    fn matches_libtorch() {
        for kind in [OptimizerKind::Sgd, OptimizerKind::Adamw] {
            let config = TrainConfig { optimizer: kind, weight_decay: 0.0, momentum: 0.9, ..TrainConfig::default() };
            let (vs_a, net_a) = model(7);
            let (vs_b, net_b) = model(7);
            let mut ours = Optimizer::new(&vs_a, &config).expect("optimiser");
            let mut theirs = match kind {
                OptimizerKind::Sgd => {
                    nn::Sgd { momentum: 0.9, nesterov: true, ..Default::default() }.build(&vs_b, 0.05)
                }
                OptimizerKind::Adamw => nn::AdamW { wd: 0.0, ..Default::default() }.build(&vs_b, 0.05),
            }
            .expect("tch optimiser");
            for step in 0..20 {
                ours.zero_grad();
                loss(&net_a, step).backward();
                ours.step(0.05).expect("step");
                theirs.backward_step(&loss(&net_b, step));
            }
            let d = max_diff(&vs_a, &vs_b);
            assert!(d < 1e-5, "{kind:?}: weights differ by {d}");
        }
    }

    #[test]
    fn state_round_trips() {
        let dir = std::env::temp_dir().join(format!("qizero-optim-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        for kind in [OptimizerKind::Sgd, OptimizerKind::Adamw] {
            let config = TrainConfig { optimizer: kind, ..TrainConfig::default() };
            let (vs, net) = model(3);
            let mut opt = Optimizer::new(&vs, &config).expect("optimiser");
            for step in 0..3 {
                opt.zero_grad();
                loss(&net, step).backward();
                opt.step(0.01).expect("step");
            }
            let path = dir.join("s.optim.safetensors");
            opt.save(&path, 3).expect("save");
            let (vs2, _) = model(3);
            let mut back = Optimizer::new(&vs2, &config).expect("optimiser");
            back.load(&path).expect("load");
            assert_eq!(back.updates(), 3);
            for (x, y) in opt.slots.iter().zip(&back.slots) {
                assert!(x.a.equal(&y.a), "{}", x.name);
                assert_eq!(x.b.is_some(), y.b.is_some());
                if let (Some(a), Some(b)) = (&x.b, &y.b) {
                    assert!(a.equal(b));
                }
            }
            let other = TrainConfig {
                optimizer: if kind == OptimizerKind::Sgd { OptimizerKind::Adamw } else { OptimizerKind::Sgd },
                ..config
            };
            let e = Optimizer::new(&vs2, &other).expect("optimiser").load(&path).expect_err("other kind");
            assert!(e.to_string().contains("config asks for"), "{e}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
