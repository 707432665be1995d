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
//! the policy indices, and writes the sparse policy target (the one the window loaded:
//! `train.policy_target`) and the value target (`train.value_target`: z, the root value q, or a
//! mix of the two).

use crate::config::ValueTarget;
use crate::window::WindowSnapshot;
use encode::Encode;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use tch::Tensor;

/// One batch, as CPU tensors. The policy target is sparse: row `b` gives shares
/// `policy_share[b][k]` to policy indices `policy_index[b][k]`, padded to the longest target of
/// the batch with index 0 and share 0. It is the dense target of [`encode::policy_target`] (indices
/// that occur twice add up in the loss), at a fraction of the bytes to build and move.
#[derive(Debug)]
pub struct Batch {
    /// Encoded positions `[B, planes, height, width]`, `f32`.
    pub inputs: Tensor,
    /// Policy indices `[B, K]`, `i64`.
    pub policy_index: Tensor,
    /// Their shares `[B, K]`, `f32`; each row sums to 1 (0 for a sample without a target).
    pub policy_share: Tensor,
    /// Value targets `[B]`, `f32`, side to move's view: z, q or their mix, as
    /// [`ValueTarget::value`] of the `value_target` the batch was built with.
    pub value: Tensor,
    /// Material head targets `[B]`, `f32`, side to move's view: the game's final material
    /// difference scaled to [-1, 1] (used only by a net with the head).
    pub material: Tensor,
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
/// `pool` (rayon; `None` or a one-thread pool: this thread), with value targets `value_target`.
/// The batch is the same whatever the pool.
///
/// # Panics
/// If the window is empty (the trainer never asks then).
#[must_use]
pub fn build<G: Encode>(
    window: &WindowSnapshot<G>,
    seed: u64,
    step: u64,
    batch_size: usize,
    value_target: ValueTarget,
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
    // Per row: the value target and the material target.
    let mut targets = vec![(0f32, 0f32); batch_size];
    let labels = info.policy_size;
    let mut mask = vec![ILLEGAL; batch_size * labels];
    let fill = |picks: &[(u64, usize)],
                planes: &mut [f32],
                index: &mut [i64],
                share: &mut [f32],
                values: &mut [(f32, f32)],
                mask: &mut [f32]| {
        let policies = index.chunks_exact_mut(width).zip(share.chunks_exact_mut(width));
        let rows =
            planes.chunks_exact_mut(plane_len).zip(policies).zip(values.iter_mut()).zip(mask.chunks_exact_mut(labels));
        let mut scratch = Vec::new();
        for (&(at, sym), (((p, (i, s)), v), m)) in picks.iter().zip(rows) {
            let t = fill_row(window, at, sym, Row { planes: p, index: i, share: s, mask: m }, &mut scratch);
            *v = (value_target.value(t.z, t.q), t.material);
        }
    };
    match pool.filter(|p| p.current_num_threads() > 1) {
        None => fill(&picks, &mut planes, &mut index, &mut share, &mut targets, &mut mask),
        Some(pool) => {
            // Rows are independent: each chunk fills its own, whatever thread takes it.
            let rows = batch_size.div_ceil(pool.current_num_threads()).max(1);
            let chunks = picks
                .par_chunks(rows)
                .zip(planes.par_chunks_mut(rows * plane_len))
                .zip(index.par_chunks_mut(rows * width))
                .zip(share.par_chunks_mut(rows * width))
                .zip(targets.par_chunks_mut(rows))
                .zip(mask.par_chunks_mut(rows * labels));
            pool.install(|| {
                chunks.for_each(|(((((picks, planes), index), share), values), mask)| {
                    fill(picks, planes, index, share, values, mask);
                });
            });
        }
    }
    let (values, materials): (Vec<f32>, Vec<f32>) = targets.into_iter().unzip();
    let (b, k) = (batch_size as i64, width as i64);
    let dims = [b, info.planes as i64, info.height as i64, info.width as i64];
    Batch {
        inputs: Tensor::from_slice(&planes).view(dims),
        policy_index: Tensor::from_slice(&index).view([b, k]),
        policy_share: Tensor::from_slice(&share).view([b, k]),
        value: Tensor::from_slice(&values),
        material: Tensor::from_slice(&materials),
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

/// The scalar targets of a row as stored: z and q (for the value target) and the material
/// target.
#[derive(Copy, Clone, Debug, PartialEq)]
struct RowTargets {
    z: f32,
    q: f32,
    material: f32,
}

/// Writes one row (planes, sparse policy target, legal-move mask) for the window's position
/// `at` under symmetry `sym`; returns its scalar targets.
fn fill_row<G: Encode>(
    window: &WindowSnapshot<G>,
    at: u64,
    sym: usize,
    row: Row<'_>,
    scratch: &mut Vec<u32>,
) -> RowTargets {
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
    RowTargets { z: sample.z, q: sample.q, material: sample.material }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PolicyTarget;
    use crate::window::LoadedShard;
    use game::Game as _;
    use shard::{GameRecord, GameResult, Header, Sample, Shard, Winner};
    use std::path::Path;
    use std::sync::Arc;

    /// One xiangqi game (h2e2 h9g7, then Red resigned) with two samples: the start position
    /// (Red to move, z -1, q 0.5, an improved policy) and the one after h2e2 (Black to move,
    /// z 1, q -0.25, no improved policy, as a PUCT search leaves it).
    fn small_shard() -> Shard {
        let pair = |m: &str, p: f32| (m.to_owned(), p);
        Shard {
            header: Header {
                game: "xiangqi".into(),
                encoding: "xiangqi-v1".into(),
                model: "test".into(),
                worker: "w".into(),
                seed: 1,
                created_ms: 1,
            },
            games: vec![GameRecord {
                game_id: 1,
                start_fen: xiangqi::START_FEN.into(),
                moves: vec!["h2e2".into(), "h9g7".into()],
                result: GameResult { winner: Some(Winner::Second), reason: "resign".into() },
                samples: vec![
                    Sample {
                        ply: 0,
                        pi: vec![pair("h2e2", 0.75), pair("b2e2", 0.25)],
                        z: -1.0,
                        root_value: 0.5,
                        improved: vec![pair("h2e2", 0.5), pair("b2e2", 0.25), pair("c3c4", 0.25)],
                    },
                    Sample { ply: 1, pi: vec![pair("h9g7", 1.0)], z: 1.0, root_value: -0.25, improved: vec![] },
                ],
            }],
        }
    }

    fn window(policy: PolicyTarget) -> WindowSnapshot<xiangqi::Game> {
        window_of(&small_shard(), policy)
    }

    fn window_of(shard: &Shard, policy: PolicyTarget) -> WindowSnapshot<xiangqi::Game> {
        let path = Path::new("small.shard");
        let loaded = LoadedShard::from_shard("small.shard".into(), shard, path, policy).expect("loads");
        let n = loaded.positions() as u64;
        WindowSnapshot { shards: vec![Arc::new(loaded)], ends: vec![n] }
    }

    /// The sparse policy target of `moves` (with shares) at ply `ply` of the small game.
    fn expected(ply: usize, moves: &[(&str, f32)]) -> Vec<(i64, f32)> {
        let mut game = xiangqi::Game::new();
        for m in &["h2e2", "h9g7"][..ply] {
            game.play_unchecked(game.parse_move_strict(m).expect("legal"));
        }
        moves.iter().map(|&(m, p)| (game.policy_index(game.parse_move_strict(m).expect("legal")) as i64, p)).collect()
    }

    /// Fills the row of position `at` (identity symmetry): its value target and policy target.
    fn row(window: &WindowSnapshot<xiangqi::Game>, at: u64, target: ValueTarget) -> (f32, Vec<(i64, f32)>) {
        let info = xiangqi::Game::ENCODING;
        let width = window.pi_len(at);
        let (mut planes, mut mask) = (vec![0.0; info.plane_len()], vec![ILLEGAL; info.policy_size]);
        let (mut index, mut share) = (vec![0; width], vec![0.0; width]);
        let row = Row { planes: &mut planes, index: &mut index, share: &mut share, mask: &mut mask };
        let t = fill_row(window, at, 0, row, &mut Vec::new());
        (target.value(t.z, t.q), index.into_iter().zip(share).collect())
    }

    #[test]
    fn each_value_target_gives_its_value() {
        let w = window(PolicyTarget::Auto);
        let cases = [
            (ValueTarget::Z, [-1.0, 1.0]),
            (ValueTarget::Q, [0.5, -0.25]),
            // 0.75 * -1 + 0.25 * 0.5 and 0.75 * 1 + 0.25 * -0.25.
            (ValueTarget::Mix(0.25), [-0.625, 0.6875]),
            (ValueTarget::Mix(0.0), [-1.0, 1.0]),
            (ValueTarget::Mix(1.0), [0.5, -0.25]),
        ];
        for (target, values) in cases {
            assert_eq!([row(&w, 0, target).0, row(&w, 1, target).0], values, "{target}");
        }
    }

    #[test]
    fn auto_takes_the_improved_policy_where_there_is_one() {
        let w = window(PolicyTarget::Auto);
        let improved = [("h2e2", 0.5), ("b2e2", 0.25), ("c3c4", 0.25)];
        assert_eq!(row(&w, 0, ValueTarget::Z).1, expected(0, &improved));
        assert_eq!(row(&w, 1, ValueTarget::Z).1, expected(1, &[("h9g7", 1.0)]), "no improved policy: pi");
        let w = window(PolicyTarget::Visits);
        assert_eq!(row(&w, 0, ValueTarget::Z).1, expected(0, &[("h2e2", 0.75), ("b2e2", 0.25)]));
        assert_eq!(row(&w, 1, ValueTarget::Z).1, expected(1, &[("h9g7", 1.0)]));
    }

    /// The material target is the game's final material difference, from each sample's side
    /// to move: the small game ends with Red's cannon having taken a soldier (h2e2 h9g7 e2e6,
    /// then Black resigns), Red a soldier up.
    #[test]
    fn material_targets_are_the_final_material_for_the_side_to_move() {
        let mut shard = small_shard();
        let record = &mut shard.games[0];
        record.moves.push("e2e6".into());
        record.result = GameResult { winner: Some(Winner::First), reason: "resign".into() };
        let mut last = record.samples[1].clone();
        (last.ply, last.pi, last.z) = (2, vec![("e2e6".to_owned(), 1.0)], 1.0);
        record.samples.push(last);
        record.samples[0].z = 1.0;
        record.samples[1].z = -1.0;
        let w = window_of(&shard, PolicyTarget::Auto);
        let soldier = 1.0 / xiangqi::Game::MATERIAL_SCALE;
        let info = xiangqi::Game::ENCODING;
        for (at, expected) in [(0, soldier), (1, -soldier), (2, soldier)] {
            let width = w.pi_len(at);
            let (mut planes, mut mask) = (vec![0.0; info.plane_len()], vec![ILLEGAL; info.policy_size]);
            let (mut index, mut share) = (vec![0; width], vec![0.0; width]);
            let row = Row { planes: &mut planes, index: &mut index, share: &mut share, mask: &mut mask };
            assert_eq!(fill_row(&w, at, 0, row, &mut Vec::new()).material, expected, "ply {at}");
        }
        let b = build(&w, 5, 0, 16, ValueTarget::Z, None);
        let materials = Vec::<f32>::try_from(&b.material).expect("materials");
        let values = Vec::<f32>::try_from(&b.value).expect("values");
        for (m, z) in materials.iter().zip(values) {
            // Red's samples (z 1) are a soldier up, Black's (z -1) a soldier down.
            assert_eq!(*m, z * soldier);
        }
    }

    /// `build` writes each row's value target by `value_target` and pads the policy to the
    /// widest target drawn.
    #[test]
    fn batches_carry_the_chosen_targets() {
        for (policy, widest) in [(PolicyTarget::Auto, 3), (PolicyTarget::Visits, 2)] {
            let w = window(policy);
            for (target, values) in [(ValueTarget::Z, [-1.0, 1.0]), (ValueTarget::Mix(0.25), [-0.625, 0.6875])] {
                let b = build(&w, 3, 0, 32, target, None);
                assert_eq!(b.policy_share.size(), [32, widest]);
                let value = Vec::<f32>::try_from(&b.value).expect("values");
                let shares = Vec::<f32>::try_from(b.policy_share.view([-1])).expect("shares");
                let mut seen = [false; 2];
                for (row, v) in shares.chunks(widest as usize).zip(value) {
                    // The sample of a row is told by its target: only the one at ply 1 has a
                    // single move with share 1.
                    let ply = usize::from(row[0] == 1.0);
                    assert_eq!(v, values[ply], "{policy:?} {target}: row {row:?}");
                    seen[ply] = true;
                }
                assert_eq!(seen, [true, true], "both samples drawn");
            }
        }
    }
}
