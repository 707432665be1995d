//! Checkpoints: a net's weights in a safetensors file, with metadata that says what they are.
//!
//! Metadata keys (all strings):
//! | key              | value                                                                  |
//! |------------------|------------------------------------------------------------------------|
//! | `format`         | `qizero-net-1` (this layout)                                            |
//! | `game`           | `xiangqi` or `draughts`                                                 |
//! | `encoding`       | the id of the planes the net reads, e.g. `xiangqi-v1` ([`PolicyValueNet::input_id`]) |
//! | `architecture`   | [`NetConfig::architecture`], e.g. `resnet blocks=6 channels=64 ...`     |
//! | `step`           | the training step that produced the weights                            |
//! | `weights_sha256` | [`weights_sha256`] of the stored tensors, 64 hex digits (absent in files written before it was added) |
//! | anything else    | free-form notes from the caller (lineage lives in the run directory)   |
//!
//! Every tensor is stored as `F32` whatever precision the net runs in, under the name libtorch's
//! variable store gives it (`block0.conv1.weight`, `stem_bn.running_mean`, ...), batch-norm running
//! statistics included. A file is written through [`durable::write_atomic`] (temporary name,
//! flushed, renamed, directory flushed), so a reader never sees half a checkpoint.
//!
//! **Content id.** [`weights_sha256`] is the SHA-256 over every tensor in name order: its name's
//! bytes, a 0 byte, each dimension as a little-endian `i64`, then its values as little-endian
//! `f32`. Its first 12 hex digits, [`content_id`], name the trainer's files:
//! `<step>-<id>.safetensors`.
//!
//! **Loading verifies.** A file is read with [`durable::read_bounded`] (a regular file of at most
//! [`MAX_FILE_BYTES`]: `/dev/zero` or a FIFO is refused at once). Loading refuses, naming the
//! file: a file made for another game, encoding or architecture (which, and both values); a
//! missing, extra or misshapen tensor; a non-finite value (naming the tensor); tensor data whose
//! SHA-256 is not the one its `weights_sha256` records (flipped bytes); and a file named
//! `<step>-<12 hex digits>.safetensors` whose weights have another content id (a renamed or
//! damaged file). Files without `weights_sha256` (older ones) are checked against their name
//! when it has that form, and otherwise load as before.

use crate::NnError;
use crate::config::NetConfig;
use crate::model::PolicyValueNet;
use safetensors::SafeTensors;
use safetensors::tensor::{Dtype, TensorView};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::Path;
use tch::{Device, Kind, Tensor};

/// The value of the `format` metadata key this code writes and reads.
pub const FORMAT: &str = "qizero-net-1";

/// The metadata key holding [`weights_sha256`] of the stored tensors.
pub const WEIGHTS_SHA256: &str = "weights_sha256";

/// Hex digits of a content id ([`content_id`]).
pub const CONTENT_ID_LEN: usize = 12;

/// The largest checkpoint file read: 2 GiB, over twice the largest net [`NetConfig`] allows
/// (40 blocks of 512 channels with every head at its widest: about 0.9 GB of `f32`).
pub const MAX_FILE_BYTES: u64 = 2 << 30;

/// What a checkpoint says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointMeta {
    /// The game.
    pub game: String,
    /// The encoding id.
    pub encoding: String,
    /// The architecture string.
    pub architecture: String,
    /// The training step.
    pub step: u64,
    /// Every metadata entry, the ones above included.
    pub all: HashMap<String, String>,
}

fn io_err(path: &Path, e: impl std::fmt::Display) -> NnError {
    NnError::Checkpoint { path: path.to_path_buf(), message: e.to_string() }
}

/// One variable as a checkpoint stores it: name, shape, little-endian `f32` bytes.
type Stored = (String, Vec<usize>, Vec<u8>);

/// Every variable of `net` as stored, in name order, copied to the CPU as `f32`.
fn stored_tensors(net: &PolicyValueNet) -> Result<Vec<Stored>, NnError> {
    let vars = net.var_store().variables();
    let mut names: Vec<&String> = vars.keys().collect();
    names.sort();
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let torch = |e: tch::TchError| NnError::Torch(format!("reading variable '{name}': {e}"));
        let t = vars[name].detach().f_to_device(Device::Cpu).and_then(|t| t.f_to_kind(Kind::Float)).map_err(torch)?;
        let t = t.f_contiguous().map_err(torch)?;
        let shape: Vec<usize> = t.size().iter().map(|&d| usize::try_from(d).unwrap_or(0)).collect();
        let values = Vec::<f32>::try_from(&t.f_view([-1]).map_err(torch)?).map_err(torch)?;
        let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        out.push((name.clone(), shape, bytes));
    }
    Ok(out)
}

/// The SHA-256, in lowercase hex, of tensors given in name order: for each, its name's bytes,
/// a 0 byte, each dimension as a little-endian `i64`, then its little-endian `f32` bytes.
fn digest<'a>(tensors: impl IntoIterator<Item = (&'a str, &'a [usize], &'a [u8])>) -> String {
    let mut hasher = Sha256::new();
    for (name, shape, bytes) in tensors {
        hasher.update(name.as_bytes());
        hasher.update([0]);
        for &d in shape {
            hasher.update(i64::try_from(d).unwrap_or(i64::MAX).to_le_bytes());
        }
        hasher.update(bytes);
    }
    hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of `net`'s weights (64 hex digits): over every variable in name order, its name,
/// a 0 byte, each dimension as a little-endian `i64` and its values as little-endian `f32`
/// (what a checkpoint of the net stores, whatever precision the net runs in).
///
/// # Errors
/// A variable cannot be read back from its device.
pub fn weights_sha256(net: &PolicyValueNet) -> Result<String, NnError> {
    let tensors = stored_tensors(net)?;
    Ok(digest(tensors.iter().map(|(n, s, b)| (n.as_str(), s.as_slice(), b.as_slice()))))
}

/// The content id of `net`'s weights: the first 12 hex digits of [`weights_sha256`], as the
/// trainer names checkpoints (`<step>-<id>.safetensors`).
///
/// # Errors
/// As [`weights_sha256`].
pub fn content_id(net: &PolicyValueNet) -> Result<String, NnError> {
    let mut id = weights_sha256(net)?;
    id.truncate(CONTENT_ID_LEN);
    Ok(id)
}

/// Saves `net` to `path` (safetensors), marking it with `step` and the `extra` metadata.
///
/// # Errors
/// The file cannot be written, or a variable cannot be read back from its device.
pub fn save(net: &PolicyValueNet, path: &Path, step: u64, extra: &[(&str, &str)]) -> Result<(), NnError> {
    let buffers = stored_tensors(net)?;
    let sha256 = digest(buffers.iter().map(|(n, s, b)| (n.as_str(), s.as_slice(), b.as_slice())));
    let mut views = Vec::with_capacity(buffers.len());
    for (name, shape, bytes) in &buffers {
        let view = TensorView::new(Dtype::F32, shape.clone(), bytes).map_err(|e| io_err(path, format!("{e:?}")))?;
        views.push((name.as_str(), view));
    }
    let mut meta: HashMap<String, String> = extra.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    meta.insert("format".into(), FORMAT.into());
    meta.insert("game".into(), net.game().to_owned());
    meta.insert("encoding".into(), net.input_id().to_owned());
    meta.insert("architecture".into(), net.config().architecture());
    meta.insert("step".into(), step.to_string());
    meta.insert(WEIGHTS_SHA256.into(), sha256);
    let bytes = safetensors::serialize(views, &Some(meta)).map_err(|e| io_err(path, format!("{e:?}")))?;
    durable::write_atomic(path, &bytes).map_err(|e| io_err(path, e.source))
}

/// Reads only the metadata of the checkpoint at `path`.
///
/// # Errors
/// The file cannot be read, is not safetensors, or lacks qizero's metadata.
pub fn read_meta(path: &Path) -> Result<CheckpointMeta, NnError> {
    meta_of(path, &read(path)?)
}

/// The whole file at `path`, if it is a regular file of at most [`MAX_FILE_BYTES`].
fn read(path: &Path) -> Result<Vec<u8>, NnError> {
    durable::read_bounded(path, MAX_FILE_BYTES).map_err(|e| io_err(path, e.source))
}

/// The content id a file name claims: `<step>-<12 lowercase hex digits>.safetensors`.
fn id_in_name(path: &Path) -> Option<&str> {
    let stem = path.file_name()?.to_str()?.strip_suffix(".safetensors")?;
    let (step, id) = stem.split_once('-')?;
    let hex = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
    (!step.is_empty() && step.chars().all(|c| c.is_ascii_digit()) && id.len() == CONTENT_ID_LEN && id.chars().all(hex))
        .then_some(id)
}

/// Checks the stored tensors: all `F32` and finite, their SHA-256 the one the metadata
/// records, and their content id the one the file name claims (when it claims one).
fn verify(path: &Path, file: &SafeTensors<'_>, meta: &CheckpointMeta) -> Result<(), NnError> {
    let mut names: Vec<&String> = file.names();
    names.sort();
    let mut views = Vec::with_capacity(names.len());
    for name in names {
        let view = file.tensor(name).map_err(|e| io_err(path, format!("tensor '{name}': {e:?}")))?;
        if view.dtype() != Dtype::F32 {
            return Err(io_err(path, format!("tensor '{name}' is {:?}, checkpoints store F32", view.dtype())));
        }
        let bad = view
            .data()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .enumerate()
            .find(|(_, v)| !v.is_finite());
        if let Some((i, v)) = bad {
            return Err(io_err(path, format!("tensor '{name}' holds {v} at index {i}: the weights are damaged")));
        }
        views.push((name.as_str(), view));
    }
    let actual = digest(views.iter().map(|(name, view)| (*name, view.shape(), view.data())));
    if let Some(recorded) = meta.all.get(WEIGHTS_SHA256) {
        if *recorded != actual {
            return Err(io_err(
                path,
                format!("the tensors' SHA-256 is {actual}, the metadata records {recorded}: the weights are damaged"),
            ));
        }
    }
    if let Some(id) = id_in_name(path) {
        if !actual.starts_with(id) {
            return Err(io_err(
                path,
                format!(
                    "the file name says content id {id}, the weights' is {}: a renamed or damaged file",
                    &actual[..CONTENT_ID_LEN]
                ),
            ));
        }
    }
    Ok(())
}

fn meta_of(path: &Path, bytes: &[u8]) -> Result<CheckpointMeta, NnError> {
    let (_, header) =
        SafeTensors::read_metadata(bytes).map_err(|e| io_err(path, format!("not a safetensors file ({e:?})")))?;
    let all = header.metadata().clone().unwrap_or_default();
    let get = |k: &str| {
        all.get(k).cloned().ok_or_else(|| io_err(path, format!("metadata has no '{k}': not a qizero checkpoint")))
    };
    let format = get("format")?;
    if format != FORMAT {
        return Err(io_err(path, format!("checkpoint format '{format}', this build reads '{FORMAT}'")));
    }
    let step = get("step")?.parse().map_err(|_| io_err(path, "metadata 'step' is not a number"))?;
    Ok(CheckpointMeta { game: get("game")?, encoding: get("encoding")?, architecture: get("architecture")?, step, all })
}

/// Loads the checkpoint at `path` into a new net for `game` / `encoding` built from `config`.
/// The file must have been made for the same game, encoding and architecture.
///
/// Loading draws nothing from libtorch's generator ([`PolicyValueNet::for_loading`]) and
/// verifies the weights first (see the module docs).
///
/// # Errors
/// Unreadable, oversized or malformed file (not a regular file, not safetensors), a mismatch
/// (naming the field, what the file has and what was expected), a missing, extra or misshapen
/// tensor, a non-finite value, weights that do not match their recorded SHA-256 or the content
/// id in the file name, or a copy to the net's device that fails.
pub fn load(
    path: &Path,
    game: &str,
    encoding: encode::EncodingInfo,
    config: &NetConfig,
) -> Result<(PolicyValueNet, CheckpointMeta), NnError> {
    let bytes = read(path)?;
    let meta = meta_of(path, &bytes)?;
    let expect = [
        ("game", meta.game.as_str(), game.to_owned()),
        ("encoding", meta.encoding.as_str(), encoding.input(config.feature_planes).0.to_owned()),
        ("architecture", meta.architecture.as_str(), config.architecture()),
    ];
    for (field, found, expected) in expect {
        if found != expected {
            return Err(NnError::Mismatch { path: path.to_path_buf(), field, found: found.to_owned(), expected });
        }
    }
    let file = SafeTensors::deserialize(&bytes).map_err(|e| io_err(path, format!("{e:?}")))?;
    verify(path, &file, &meta)?;
    let net = PolicyValueNet::for_loading(game, encoding, config)?;
    let device = net.device();
    let vars = net.var_store().variables();
    tch::no_grad(|| -> Result<(), NnError> {
        for (name, var) in &vars {
            let view = file.tensor(name).map_err(|_| io_err(path, format!("tensor '{name}' missing")))?;
            let want: Vec<usize> = var.size().iter().map(|&d| usize::try_from(d).unwrap_or(0)).collect();
            if view.shape() != want.as_slice() || view.dtype() != Dtype::F32 {
                return Err(io_err(
                    path,
                    format!("tensor '{name}' is {:?} {:?}, expected F32 {want:?}", view.dtype(), view.shape()),
                ));
            }
            let values: Vec<f32> =
                view.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
            let shape: Vec<i64> = var.size();
            let torch = |e: tch::TchError| io_err(path, format!("copying tensor '{name}' into the net: {e}"));
            let src = Tensor::f_from_slice(&values)
                .and_then(|t| t.f_view(shape.as_slice()))
                .and_then(|t| t.f_to_device(device))
                .and_then(|t| t.f_to_kind(var.kind()))
                .map_err(torch)?;
            let mut var = var.shallow_clone();
            var.f_copy_(&src).map_err(torch)?;
        }
        Ok(())
    })?;
    if file.names().len() != vars.len() {
        return Err(io_err(path, format!("{} tensors in the file, the net has {}", file.names().len(), vars.len())));
    }
    Ok((net, meta))
}

/// Loads the checkpoint at `path` with the architecture it records, placed as `placement` says
/// (device, half precision, threads; its architecture fields are ignored): for playing a
/// checkpoint whose run config is not at hand.
///
/// # Errors
/// As [`load`], and an architecture string that does not read.
pub fn load_as_saved(
    path: &Path,
    game: &str,
    encoding: encode::EncodingInfo,
    placement: &NetConfig,
) -> Result<(PolicyValueNet, CheckpointMeta), NnError> {
    let meta = read_meta(path)?;
    let config = placement.with_architecture(&meta.architecture).map_err(|e| io_err(path, e))?;
    load(path, game, encoding, &config)
}
