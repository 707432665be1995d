//! From a batch of games to net inputs, and from net outputs to priors over legal moves.
//!
//! Encoding happens in the calling (searching) thread, so it runs in parallel with the net; the
//! thread that owns the net only stacks planes and runs forward passes.
//!
//! Priors: a softmax of the policy logits over the legal moves' indices. Where several legal moves
//! share one index (draughts: same from and to, different captures) the index's probability is
//! split equally between them, so priors always sum to 1 over the legal moves.

use encode::Encode;
use mcts::{EvalRequest, Evaluation};

/// A batch of encoded positions and the policy indices of their legal moves.
#[derive(Clone, Debug, Default)]
pub struct EncodedBatch {
    /// `positions * plane_len` floats, position after position.
    pub planes: Vec<f32>,
    /// The legal moves' policy indices, position after position.
    pub indices: Vec<u32>,
    /// `positions + 1` offsets into `indices`: position `i` owns `indices[offsets[i]..offsets[i + 1]]`.
    pub offsets: Vec<usize>,
    /// Position hashes for the cache (of the input planes), one per position.
    pub hashes: Vec<u64>,
}

impl EncodedBatch {
    /// Number of positions.
    #[must_use]
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True when it holds no position.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Encodes `batch` (reusing this buffer's allocations), feature planes included.
    pub fn encode<G: Encode>(&mut self, batch: &[EvalRequest<'_, G>]) {
        self.encode_input(batch, true);
    }

    /// [`EncodedBatch::encode`] for a net that reads the feature planes only when `features` is
    /// set ([`Encode::encode_input`]: without, they stay zero and are not computed).
    pub fn encode_input<G: Encode>(&mut self, batch: &[EvalRequest<'_, G>], features: bool) {
        let len = G::ENCODING.plane_len();
        self.planes.clear();
        self.planes.resize(batch.len() * len, 0.0);
        self.indices.clear();
        self.offsets.clear();
        self.offsets.push(0);
        self.hashes.clear();
        let mut idx = Vec::new();
        for (req, out) in batch.iter().zip(self.planes.chunks_exact_mut(len)) {
            req.game.encode_input(out, features);
            self.hashes.push(hash_planes(out));
            req.game.policy_indices(req.moves, &mut idx);
            self.indices.extend_from_slice(&idx);
            self.offsets.push(self.indices.len());
        }
    }
}

/// A fast hash of encoded planes (for the evaluation cache): FNV-style over the bit patterns.
#[must_use]
pub fn hash_planes(planes: &[f32]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, v) in planes.iter().enumerate() {
        let bits = v.to_bits();
        if bits != 0 {
            h ^= (u64::from(bits) << 20) ^ (i as u64);
            h = h.wrapping_mul(0x0100_0000_01b3).rotate_left(29);
        }
    }
    h ^ (planes.len() as u64)
}

/// The logits of the moves whose policy indices are `indices`, read from one position's policy
/// row (`row[k]` for index `k`). An index beyond the row reads as minus infinity, a move the net
/// gives no mass, never a panic; the service refuses such indices before it gathers.
#[must_use]
pub fn gather_logits(row: &[f32], indices: &[u32]) -> Vec<f32> {
    indices.iter().map(|&k| row.get(k as usize).copied().unwrap_or(f32::NEG_INFINITY)).collect()
}

/// Priors over the legal moves from their logits (`logits[k]` belongs to the move with index
/// `indices[k]`): [`encode::gathered_priors`], a softmax over the distinct indices, each index's
/// probability split equally between the moves that share it.
#[must_use]
pub fn priors_from_logits(logits: &[f32], indices: &[u32]) -> Vec<f32> {
    let mut out = Vec::with_capacity(logits.len());
    encode::gathered_priors(logits, indices, &mut out);
    out
}

/// Turns gathered logits and values into evaluations for the positions of `batch`.
#[must_use]
pub fn evaluations(batch: &EncodedBatch, logits: &[f32], values: &[f32]) -> Vec<Evaluation> {
    (0..batch.len())
        .map(|i| {
            let (a, b) = (batch.offsets[i], batch.offsets[i + 1]);
            Evaluation {
                value: values[i].clamp(-1.0, 1.0),
                priors: priors_from_logits(&logits[a..b], &batch.indices[a..b]),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_reads_the_indices_in_order_and_beyond_the_row_as_no_mass() {
        let row = [0.5, -1.0, 2.0, 3.5];
        assert_eq!(gather_logits(&row, &[2, 0, 2, 3]), vec![2.0, 0.5, 2.0, 3.5]);
        assert_eq!(gather_logits(&row, &[1, 4]), vec![-1.0, f32::NEG_INFINITY]);
        assert!(gather_logits(&row, &[]).is_empty());
        let priors = priors_from_logits(&gather_logits(&row, &[3, 9]), &[3, 9]);
        assert_eq!(priors, vec![1.0, 0.0]);
    }

    #[test]
    fn priors_softmax_and_shared_indices() {
        let p = priors_from_logits(&[0.0, 0.0, 0.0], &[5, 9, 7]);
        for x in &p {
            assert!((x - 1.0 / 3.0).abs() < 1e-6);
        }
        // Two moves share index 4: they split its probability; index 9 gets its own.
        let p = priors_from_logits(&[1.0, 1.0, 1.0], &[4, 9, 4]);
        assert!((p[0] - 0.25).abs() < 1e-6 && (p[2] - 0.25).abs() < 1e-6 && (p[1] - 0.5).abs() < 1e-6, "{p:?}");
        let p = priors_from_logits(&[2.0, 0.0], &[1, 2]);
        let e = 2f32.exp();
        assert!((p[0] - e / (e + 1.0)).abs() < 1e-6);
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn plane_hash_separates() {
        let a = vec![0.0f32; 100];
        let mut b = a.clone();
        b[37] = 1.0;
        let mut c = a.clone();
        c[38] = 1.0;
        assert_ne!(hash_planes(&a), hash_planes(&b));
        assert_ne!(hash_planes(&b), hash_planes(&c));
        assert_eq!(hash_planes(&b), hash_planes(&b.clone()));
    }
}
