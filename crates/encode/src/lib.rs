//! What the network sees and says: input planes for a position, the fixed policy index space with
//! move <-> index in both directions, and the board symmetries used for augmentation. The rules
//! crates never see tensors; this crate is the one place that turns a game into floats and a
//! policy index back into a move (lc0 `neural/encoder`, KataGo `nninputs`).
//!
//! # Contract
//! - **Side-to-move view.** Everything is seen by the player to move: the board is turned 180
//!   degrees when the second player (Black) moves, so the mover always sits at the bottom, and
//!   "own" planes come before "opponent" planes. Values and policies are from the same view; no
//!   caller flips anything.
//! - **Layout.** [`Encode::encode`] writes `planes * height * width` floats, plane-major, then
//!   row (row 0 is the top of the board as the mover sees it, the opponent's back rank), then
//!   column (column 0 is the mover's left).
//! - **Versioned.** [`EncodingInfo::id`] (`"xiangqi-v2"`, `"draughts-v2"`) names the plane layout
//!   *and* the policy index space. Any change to either gets a new id; checkpoints and run
//!   directories record the id they were made with. Shards store positions, not planes, so old
//!   data can be re-encoded.
//! - **Feature planes.** An encoding may end with feature planes ([`EncodingInfo::feature_planes`]):
//!   facts derived from the position, such as the squares each side controls, that a net reads
//!   only when made to ([`EncodingInfo::input`]). The planes before them are an older layout
//!   with its own id ([`EncodingInfo::base_id`]), which a net without them records, so nets made
//!   before the feature planes existed read the same planes as before.
//! - **Policy.** [`Encode::policy_index`] maps every legal move of a position into
//!   `0..policy_size`. Xiangqi moves get distinct indices. In draughts, two legal moves with the
//!   same origin and destination but different captured sets share one index; the probability the
//!   net gives that index is split equally between them ([`legal_priors`]), and a training target
//!   sums their visit shares into it ([`policy_target`]).
//! - **Speed.** Encoding runs for every MCTS leaf: [`Encode::encode`] and
//!   [`Encode::policy_index`] do not allocate and use precomputed tables; for a net that does
//!   not read the feature planes, [`Encode::encode_input`] skips computing them.
//!
//! The per-game plane tables and policy spaces are documented in [`xiangqi`] and [`draughts`].

#![warn(missing_docs)]

pub mod draughts;
pub mod xiangqi;

use ndarray::Array4;

/// The shape and identity of one game's encoding.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EncodingInfo {
    /// Version id of plane layout and policy index space together, e.g. `"xiangqi-v2"`.
    pub id: &'static str,
    /// Number of input planes.
    pub planes: usize,
    /// Version id of the first [`EncodingInfo::base_planes`] planes alone, the layout without
    /// feature planes (equal to `id` when there are none).
    pub base_id: &'static str,
    /// Planes before the feature planes (equal to `planes` when there are none).
    pub base_planes: usize,
    /// Rows of a plane.
    pub height: usize,
    /// Columns of a plane.
    pub width: usize,
    /// Size of the policy index space (the policy head's output length).
    pub policy_size: usize,
    /// Number of symmetries, identity included (index 0).
    pub symmetries: usize,
}

impl EncodingInfo {
    /// Feature planes at the end: `planes - base_planes`.
    #[must_use]
    pub const fn feature_planes(&self) -> usize {
        self.planes - self.base_planes
    }

    /// What a net reads: with `features`, every plane under [`EncodingInfo::id`]; without, the
    /// first [`EncodingInfo::base_planes`] under [`EncodingInfo::base_id`]. Returns the id and
    /// the number of planes.
    #[must_use]
    pub const fn input(&self, features: bool) -> (&'static str, usize) {
        if features { (self.id, self.planes) } else { (self.base_id, self.base_planes) }
    }

    /// Floats per encoded position: `planes * height * width`.
    #[must_use]
    pub const fn plane_len(&self) -> usize {
        self.planes * self.height * self.width
    }
}

/// A game the network can read: planes, policy indices and symmetries.
pub trait Encode: game::Game {
    /// Shape and version of this game's encoding.
    const ENCODING: EncodingInfo;

    /// Writes the current position (with the history the encoding uses) as
    /// [`EncodingInfo::plane_len`] floats, plane-major, then row, then column, seen by the side
    /// to move. Does not allocate.
    ///
    /// # Panics
    /// If `out.len()` is not `ENCODING.plane_len()` (a programming error).
    fn encode(&self, out: &mut [f32]) {
        self.encode_input(out, true);
    }

    /// [`Encode::encode`] for a net that reads the feature planes only when `features` is set
    /// ([`EncodingInfo::input`]): without, the feature planes are left as zeros rather than
    /// computed, since such a net drops them. The buffer has the same length either way.
    ///
    /// # Panics
    /// If `out.len()` is not `ENCODING.plane_len()` (a programming error).
    fn encode_input(&self, out: &mut [f32], features: bool);

    /// The policy index of `mv`, a legal move of the current position; in
    /// `0..ENCODING.policy_size`.
    ///
    /// # Panics
    /// May panic for a move no piece could make (never for a legal move).
    fn policy_index(&self, mv: Self::Move) -> usize;

    /// Writes the policy indices of `moves` (legal moves of the current position) into `out`,
    /// in the same order, after clearing it.
    fn policy_indices(&self, moves: &[Self::Move], out: &mut Vec<u32>) {
        out.clear();
        out.extend(moves.iter().map(|&mv| self.policy_index(mv) as u32));
    }

    /// Applies symmetry `sym` (0 is the identity) to encoded planes in place: one position's
    /// planes or several back to back (`planes.len()` a multiple of `ENCODING.plane_len()`).
    ///
    /// # Panics
    /// If `sym >= ENCODING.symmetries` or the length is not a multiple of the plane length.
    fn transform_planes(sym: usize, planes: &mut [f32]);

    /// The policy index that `idx` becomes under symmetry `sym`: if `idx` is the index of move
    /// `m` in a position, the result is the index of the transformed `m` in the transformed
    /// position.
    ///
    /// # Panics
    /// If `sym >= ENCODING.symmetries` or `idx >= ENCODING.policy_size`.
    fn transform_policy_index(sym: usize, idx: usize) -> usize;

    /// Material differences are divided by this for the material head's target
    /// ([`Encode::material_target`]): about the largest swing an ordinary game ends with.
    const MATERIAL_SCALE: f32;

    /// The material of the side to move minus the opponent's, in the game's customary units
    /// (xiangqi: soldier 1, advisor and elephant 2, horse 4, cannon 4.5, rook 9, general 0;
    /// draughts: man 1, king 3). The raw form of the material head's target.
    fn material(&self) -> f32;

    /// The material head's target at this position: [`Encode::material`] over
    /// [`Encode::MATERIAL_SCALE`], clamped to [-1, 1] (the head's tanh range).
    fn material_target(&self) -> f32 {
        (self.material() / Self::MATERIAL_SCALE).clamp(-1.0, 1.0)
    }
}

/// Encodes `games` into a new `[batch, planes, height, width]` array.
#[must_use]
pub fn encode_batch<G: Encode>(games: &[&G]) -> Array4<f32> {
    let info = G::ENCODING;
    let mut batch = Array4::<f32>::zeros((games.len(), info.planes, info.height, info.width));
    let flat = batch.as_slice_mut().expect("a freshly made array is contiguous");
    encode_into(games, flat);
    batch
}

/// Encodes `games` back to back into `out`, which must hold `games.len() * plane_len` floats:
/// the allocation-free form of [`encode_batch`] for a reused input buffer.
///
/// # Panics
/// If `out` has the wrong length.
pub fn encode_into<G: Encode>(games: &[&G], out: &mut [f32]) {
    let len = G::ENCODING.plane_len();
    assert_eq!(out.len(), games.len() * len, "batch buffer length for {} positions", games.len());
    for (game, chunk) in games.iter().zip(out.chunks_exact_mut(len)) {
        game.encode(chunk);
    }
}

/// The legal moves of `game` whose policy index is `idx`: none, one, or (draughts only) several
/// sharing it. Allocates; for tests and tools, not the search.
#[must_use]
pub fn moves_for_index<G: Encode>(game: &G, idx: usize) -> Vec<G::Move> {
    let moves = game.legal_moves();
    moves.as_ref().iter().copied().filter(|&mv| game.policy_index(mv) == idx).collect()
}

/// The first legal move of `game` (in generation order) whose policy index is `idx`.
#[must_use]
pub fn move_for_index<G: Encode>(game: &G, idx: usize) -> Option<G::Move> {
    let moves = game.legal_moves();
    moves.as_ref().iter().copied().find(|&mv| game.policy_index(mv) == idx)
}

/// Turns the net's policy logits (length `policy_size`) into priors over a position's legal
/// moves, given their policy indices `indices` (from [`Encode::policy_indices`]): a softmax over
/// the distinct indices, each index's probability split equally among the moves sharing it.
/// Writes one prior per move into `out` (cleared first); they sum to 1 unless `indices` is empty.
///
/// # Panics
/// If an index is out of range of `logits`.
pub fn legal_priors(logits: &[f32], indices: &[u32], out: &mut Vec<f32>) {
    let gathered: Vec<f32> = indices.iter().map(|&i| logits[i as usize]).collect();
    gathered_priors(&gathered, indices, out);
}

/// [`legal_priors`] when the logits are already gathered: `move_logits[k]` is the logit of legal
/// move `k`, whose policy index is `indices[k]` (what an inference service that only returns the
/// legal moves' logits hands back).
///
/// # Panics
/// If `move_logits` and `indices` differ in length.
pub fn gathered_priors(move_logits: &[f32], indices: &[u32], out: &mut Vec<f32>) {
    assert_eq!(move_logits.len(), indices.len(), "one logit per move");
    out.clear();
    let max = move_logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    out.extend(move_logits.iter().map(|&l| (l - max).exp()));
    if has_shared(indices) {
        for (p, &i) in out.iter_mut().zip(indices) {
            *p /= indices.iter().filter(|&&j| j == i).count() as f32;
        }
    }
    let sum: f32 = out.iter().sum();
    if sum > 0.0 {
        out.iter_mut().for_each(|p| *p /= sum);
    }
}

/// The dense training target for a position: `pi[k]` (the search's visit share of legal move
/// `k`, whose policy index is `indices[k]`) added into `out[indices[k]]`, everything else 0. Moves
/// sharing an index add up, the inverse of the equal split in [`legal_priors`].
///
/// # Panics
/// If `indices` and `pi` differ in length or an index is out of range of `out`.
pub fn policy_target(indices: &[u32], pi: &[f32], out: &mut [f32]) {
    assert_eq!(indices.len(), pi.len(), "one visit share per move");
    out.fill(0.0);
    for (&i, &p) in indices.iter().zip(pi) {
        out[i as usize] += p;
    }
}

/// True if some index occurs twice. A bit set on the stack covers every index space here
/// (both are below 4096); anything larger is treated as possibly shared, which only costs time.
fn has_shared(indices: &[u32]) -> bool {
    let mut seen = [0u64; 64];
    indices.iter().any(|&i| {
        let (word, bit) = (i as usize / 64, i % 64);
        match seen.get_mut(word) {
            Some(w) => {
                let dup = *w >> bit & 1 != 0;
                *w |= 1 << bit;
                dup
            }
            None => true,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priors_are_a_softmax_over_indices() {
        let logits = [0.0, 1.0, 2.0, 3.0];
        let mut out = Vec::new();
        legal_priors(&logits, &[1, 3], &mut out);
        let e = 2f32.exp();
        assert!((out[0] - 1.0 / (1.0 + e)).abs() < 1e-6);
        assert!((out[1] - e / (1.0 + e)).abs() < 1e-6);
        legal_priors(&logits, &[], &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn a_shared_index_splits_its_probability() {
        let logits = [0.0, 1.0, 0.0, 0.0];
        let mut out = Vec::new();
        legal_priors(&logits, &[1, 2, 1], &mut out);
        let e = 1f32.exp();
        let p1 = e / (e + 1.0);
        assert!((out[0] - p1 / 2.0).abs() < 1e-6 && (out[2] - p1 / 2.0).abs() < 1e-6, "{out:?}");
        assert!((out[1] - 1.0 / (e + 1.0)).abs() < 1e-6);
        assert!((out.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        let mut target = [9.0; 4];
        policy_target(&[1, 2, 1], &[0.25, 0.5, 0.25], &mut target);
        assert_eq!(target, [0.0, 0.5, 0.5, 0.0]);
    }

    #[test]
    fn shared_detection() {
        assert!(!has_shared(&[0, 63, 64, 4095]));
        assert!(has_shared(&[7, 3, 7]));
        assert!(has_shared(&[5000]));
    }
}
