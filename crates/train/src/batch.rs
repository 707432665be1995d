//! Drawing and building a training batch from a window snapshot.
//!
//! Batch `step` is a pure function of (run seed, step, window): positions are drawn uniformly
//! with replacement from the window by a generator seeded from the seed and the step, each with a
//! uniformly drawn symmetry of the encoding (the xiangqi mirror; draughts has only the identity).
//! So a resumed run draws the same batches as an uninterrupted one over the same shards, and the
//! draw does not depend on how many threads build it.
//!
//! Building a row replays the sample's game from its start to its ply (unchecked `play`: the moves
//! were checked when the shard was loaded), encodes it, applies the symmetry to the planes and to
//! the policy indices, and writes the sparse policy target and z.

use crate::window::WindowSnapshot;
use encode::Encode;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use tch::Tensor;

/// One batch, as CPU tensors. The policy target is sparse: row `b` gives shares
/// `policy_share[b][k]` to policy indices `policy_index[b][k]`, padded to the longest pi of the
/// batch with index 0 and share 0. It is the dense target of [`encode::policy_target`] (indices
/// that occur twice add up in the loss), at a fraction of the bytes to build and move.
#[derive(Debug)]
pub struct Batch {
    /// Encoded positions `[B, planes, height, width]`, `f32`.
    pub inputs: Tensor,
    /// Policy indices `[B, K]`, `i64`.
    pub policy_index: Tensor,
    /// Their shares `[B, K]`, `f32`; each row sums to 1 (0 for a sample without pi).
    pub policy_share: Tensor,
    /// Outcomes z `[B]`, `f32`, side to move's view.
    pub value: Tensor,
    /// Added to the policy logits before the softmax `[B, P]`, `f32`: 0 at the indices of the
    /// position's legal moves, [`ILLEGAL`] elsewhere, so the policy loss is the cross-entropy of
    /// a softmax over the legal moves alone, the distribution the search uses as priors.
    pub legal_mask: Tensor,
    /// B.
    pub size: usize,
}

/// The mask value of an index that is not a legal move: far enough below any logit that its
/// softmax share is 0 in `f32`, finite so that `0 * mask` stays 0.
pub const ILLEGAL: f32 = -1.0e9;

/// SplitMix64: a good 64-bit mix, for deriving per-step seeds.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The seed of the generator that draws batch `step` of a run seeded with `seed`.
#[must_use]
pub fn batch_seed(seed: u64, step: u64) -> u64 {
    mix(mix(seed) ^ step)
}

/// Draws batch `step` from `window` (which must hold at least one position) and builds it on
/// `pool` (rayon; `None` or a one-thread pool: this thread). The batch is the same whatever the
/// pool.
///
/// # Panics
/// If the window is empty (the trainer never asks then).
#[must_use]
pub fn build<G: Encode>(
    window: &WindowSnapshot<G>,
    seed: u64,
    step: u64,
    batch_size: usize,
    pool: Option<&rayon::ThreadPool>,
) -> Batch {
    let total = window.positions();
    assert!(total > 0, "a batch needs a window with positions");
    let info = G::ENCODING;
    let mut rng = StdRng::seed_from_u64(batch_seed(seed, step));
    let picks: Vec<(u64, usize)> =
        (0..batch_size).map(|_| (rng.random_range(0..total), rng.random_range(0..info.symmetries))).collect();
    let width = picks.iter().map(|&(index, _)| window.pi_len(index)).max().unwrap_or(0).max(1);
    let plane_len = info.plane_len();
    let mut planes = vec![0f32; batch_size * plane_len];
    let mut index = vec![0i64; batch_size * width];
    let mut share = vec![0f32; batch_size * width];
    let mut values = vec![0f32; batch_size];
    let labels = info.policy_size;
    let mut mask = vec![ILLEGAL; batch_size * labels];
    let fill = |picks: &[(u64, usize)],
                planes: &mut [f32],
                index: &mut [i64],
                share: &mut [f32],
                values: &mut [f32],
                mask: &mut [f32]| {
        let targets = index.chunks_exact_mut(width).zip(share.chunks_exact_mut(width));
        let rows =
            planes.chunks_exact_mut(plane_len).zip(targets).zip(values.iter_mut()).zip(mask.chunks_exact_mut(labels));
        let mut scratch = Vec::new();
        for (&(at, sym), (((p, (i, s)), v), m)) in picks.iter().zip(rows) {
            *v = fill_row(window, at, sym, Row { planes: p, index: i, share: s, mask: m }, &mut scratch);
        }
    };
    match pool.filter(|p| p.current_num_threads() > 1) {
        None => fill(&picks, &mut planes, &mut index, &mut share, &mut values, &mut mask),
        Some(pool) => {
            // Rows are independent: each chunk fills its own, whatever thread takes it.
            let rows = batch_size.div_ceil(pool.current_num_threads()).max(1);
            let chunks = picks
                .par_chunks(rows)
                .zip(planes.par_chunks_mut(rows * plane_len))
                .zip(index.par_chunks_mut(rows * width))
                .zip(share.par_chunks_mut(rows * width))
                .zip(values.par_chunks_mut(rows))
                .zip(mask.par_chunks_mut(rows * labels));
            pool.install(|| {
                chunks.for_each(|(((((picks, planes), index), share), values), mask)| {
                    fill(picks, planes, index, share, values, mask);
                });
            });
        }
    }
    let (b, k) = (batch_size as i64, width as i64);
    let dims = [b, info.planes as i64, info.height as i64, info.width as i64];
    Batch {
        inputs: Tensor::from_slice(&planes).view(dims),
        policy_index: Tensor::from_slice(&index).view([b, k]),
        policy_share: Tensor::from_slice(&share).view([b, k]),
        value: Tensor::from_slice(&values),
        legal_mask: Tensor::from_slice(&mask).view([b, labels as i64]),
        size: batch_size,
    }
}

/// One row of a batch being built.
struct Row<'a> {
    planes: &'a mut [f32],
    index: &'a mut [i64],
    share: &'a mut [f32],
    mask: &'a mut [f32],
}

/// Writes one row (planes, sparse policy target, legal-move mask) for the window's position
/// `at` under symmetry `sym`; returns its z.
fn fill_row<G: Encode>(window: &WindowSnapshot<G>, at: u64, sym: usize, row: Row<'_>, scratch: &mut Vec<u32>) -> f32 {
    let Row { planes, index, share, mask } = row;
    let (shard, s) = window.locate(at);
    let sample = shard.samples[s];
    let game = &shard.games[sample.game as usize];
    let mut position = game.start.clone();
    for &mv in &game.moves[..sample.ply as usize] {
        position.play_unchecked(mv);
    }
    position.encode(planes);
    if sym != 0 {
        G::transform_planes(sym, planes);
    }
    scratch.clear();
    position.policy_indices(position.legal_moves().as_ref(), scratch);
    for &i in scratch.iter() {
        let i = if sym == 0 { i as usize } else { G::transform_policy_index(sym, i as usize) };
        mask[i] = 0.0;
    }
    let start = sample.policy_start as usize;
    let pi = &shard.policy[start..start + sample.policy_len as usize];
    for ((&(i, p), index), share) in pi.iter().zip(index.iter_mut()).zip(share.iter_mut()) {
        let i = if sym == 0 { i as usize } else { G::transform_policy_index(sym, i as usize) };
        *index = i as i64;
        *share = p;
    }
    sample.z
}
