//! The Gumbel root (Danihelka et al., "Policy improvement by planning with Gumbel", ICLR 2022):
//! the arithmetic, as pure functions over the root's edge statistics, and the per-root state a
//! [`crate::Search`] keeps while it runs one.
//!
//! A Gumbel search of `n` simulations at a root with logits `l` (the log of the net's priors):
//! 1. draws one Gumbel(0, 1) variable `g(a)` per root move;
//! 2. visits the moves in the order [`considered_visits`] prescribes: simulation `k` goes to the
//!    move with the highest `g(a) + l(a) + sigma(q(a))` among those that hold exactly
//!    `sequence[k]` of this search's visits. The first `m = min(considered, moves)` simulations
//!    visit the `m` moves with the highest `g + l` (Gumbel-Top-k: a sample without replacement
//!    from the prior); later ones run Sequential Halving over them, each phase giving the
//!    surviving moves equal visits and keeping the better half by `g + l + sigma(q)`;
//! 3. plays the move with the highest `g + l + sigma(q)` among the most visited;
//! 4. offers as policy target the improved policy `softmax(l + sigma(completed q))` over every
//!    legal move ([`improved_policy`]).
//!
//! `q` is the *completed* Q: a visited move's mean value, a proven move's exact value, and for a
//! move never visited the mixed value `v_mix` ([`mixed_value`]), the net's value of the root
//! blended with the prior-weighted Q of the visited moves. It is mapped from [-1, 1] to [0, 1]
//! (the known bounds of a game result) and scaled: `sigma(q) = (c_visit + max N) * c_scale * q`.
//! Below the root the search stays PUCT.
//!
//! No Dirichlet noise goes with it: the Gumbel draw is the exploration, and the played move is a
//! sample from (approximately) the improved policy.

use crate::tree::{Edge, Proof};

/// The prior below which a move's logit is taken as this floor (priors of exactly 0 occur when
/// a net's output underflows; `ln 0` would poison the sums).
const MIN_PRIOR: f32 = 1e-30;

/// The logit of a prior: `ln(max(prior, 1e-30))`.
#[inline]
pub(crate) fn logit(prior: f32) -> f32 {
    prior.max(MIN_PRIOR).ln()
}

/// The visit count a considered move must hold for simulation `k` of a search of `simulations`
/// simulations over `considered` moves to go to it: entry `k` of the returned sequence (as
/// `mctx`'s `get_sequence_of_considered_visits`). Each phase of Sequential Halving gives every
/// surviving move `max(1, n / (ceil(log2 m) * survivors))` more visits, then halves the
/// survivors (never below 2), until `n` visits are planned. With one considered move the
/// sequence is `0, 1, 2, ...`.
#[must_use]
pub fn considered_visits(considered: usize, simulations: usize) -> Vec<u32> {
    if considered <= 1 {
        return (0..simulations).map(|k| u32::try_from(k).unwrap_or(u32::MAX)).collect();
    }
    let log2max = considered.next_power_of_two().trailing_zeros().max(1) as usize;
    let mut sequence = Vec::with_capacity(simulations);
    let mut visits = vec![0u32; considered];
    let mut survivors = considered;
    while sequence.len() < simulations {
        let extra = (simulations / (log2max * survivors)).max(1);
        for _ in 0..extra {
            sequence.extend_from_slice(&visits[..survivors]);
            for v in &mut visits[..survivors] {
                *v += 1;
            }
        }
        survivors = (survivors / 2).max(2);
    }
    sequence.truncate(simulations);
    sequence
}

/// The constants of the transform of completed Q.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Sigma {
    pub c_visit: f32,
    pub c_scale: f32,
    /// The mover's value of a [`Proof::Repetition`] move: minus the repetition penalty.
    pub repetition: f32,
}

/// The mixed value `v_mix` of a root whose net value is `raw` (its side to move's view):
/// `(raw + sum N * sum_visited(P * Q) / sum_visited(P)) / (1 + sum N)`, with `raw` alone when no
/// move has a visit. Priors are floored at 1e-30 as in [`logit`].
#[must_use]
pub(crate) fn mixed_value(raw: f32, edges: &[Edge]) -> f32 {
    let mut visits = 0.0f64;
    let mut mass = 0.0f64;
    let mut weighted = 0.0f64;
    for e in edges.iter().filter(|e| e.n > 0) {
        let p = f64::from(e.prior.max(MIN_PRIOR));
        visits += f64::from(e.n);
        mass += p;
        weighted += p * f64::from(e.w) / f64::from(e.n);
    }
    if visits == 0.0 || mass <= 0.0 {
        return raw;
    }
    ((f64::from(raw) + visits * weighted / mass) / (visits + 1.0)) as f32
}

/// `sigma(completed q)` for every edge of a root whose net value is `raw`, in edge order: a proven
/// move's exact value, a visited move's mean value, an unvisited move's `v_mix`, each mapped from
/// [-1, 1] to [0, 1] and scaled by `(c_visit + max N) * c_scale`.
#[must_use]
pub(crate) fn sigma_completed_q(raw: f32, edges: &[Edge], sigma: Sigma) -> Vec<f32> {
    let v_mix = mixed_value(raw, edges);
    let max_n = edges.iter().map(|e| e.n).max().unwrap_or(0);
    let scale = (sigma.c_visit + max_n as f32) * sigma.c_scale;
    edges
        .iter()
        .map(|e| {
            let q = match e.proof {
                Proof::Unknown if e.n > 0 => e.w / e.n as f32,
                Proof::Unknown => v_mix,
                known => known.exact(sigma.repetition).unwrap_or(v_mix),
            };
            scale * (0.5 * (q.clamp(-1.0, 1.0) + 1.0))
        })
        .collect()
}

/// The improved policy `softmax(logits + sigma(completed q))` over every edge, in edge order;
/// sums to 1 (uniform if every term underflows).
#[must_use]
pub(crate) fn improved_policy(raw: f32, edges: &[Edge], sigma: Sigma) -> Vec<f32> {
    let sig = sigma_completed_q(raw, edges, sigma);
    let scores: Vec<f32> = edges.iter().zip(&sig).map(|(e, s)| logit(e.prior) + s).collect();
    let top = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut out: Vec<f32> = scores.iter().map(|&s| (s - top).exp()).collect();
    let total: f32 = out.iter().sum();
    if total > 0.0 && total.is_finite() {
        out.iter_mut().for_each(|x| *x /= total);
    } else {
        out.fill(1.0 / edges.len().max(1) as f32);
    }
    out
}

/// One Gumbel search in progress at the root: the draws, the plan and this search's visits per
/// root move (reused visits from an earlier move are not counted here).
#[derive(Clone, Debug)]
pub(crate) struct GumbelRoot {
    /// `g(a)` per root edge.
    pub noise: Vec<f32>,
    /// Visits of this search per root edge, counted when a descent through it is started (so
    /// a leaf still waiting for the evaluator counts) and taken back if the descent collided.
    pub counts: Vec<u32>,
    /// [`considered_visits`] for this search.
    pub sequence: Vec<u32>,
    /// Descents of this search so far (the next index into `sequence`).
    pub done: usize,
}

impl GumbelRoot {
    /// A search of `simulations` over `edges` (the expanded root's), considering at most
    /// `considered` moves, with the Gumbel draws in `noise` (one per edge).
    pub fn new(noise: Vec<f32>, edges: usize, considered: usize, simulations: usize) -> GumbelRoot {
        let m = considered.clamp(1, edges.max(1));
        GumbelRoot { noise, counts: vec![0; edges], sequence: considered_visits(m, simulations), done: 0 }
    }

    /// The root edge (index into the root's edges) simulation `done` goes to: the highest
    /// `g + l + sigma(q)` among the moves holding exactly the planned visits, or `None` when the
    /// plan is spent or no move holds them (the caller falls back to PUCT).
    pub fn select(&self, raw: f32, edges: &[Edge], sigma: Sigma) -> Option<usize> {
        let &wanted = self.sequence.get(self.done)?;
        self.best_among(raw, edges, sigma, true, |i| self.counts[i] == wanted)
    }

    /// The move to play: the highest `(g) + l + sigma(q)` among the moves of this search with the
    /// most visits that `allowed` admits (`with_noise` false leaves `g` out: the greedy choice).
    pub fn choice(
        &self,
        raw: f32,
        edges: &[Edge],
        sigma: Sigma,
        with_noise: bool,
        allowed: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let most = (0..edges.len()).filter(|&i| allowed(i)).map(|i| self.counts[i]).max()?;
        self.best_among(raw, edges, sigma, with_noise, |i| allowed(i) && self.counts[i] == most)
    }

    fn best_among(
        &self,
        raw: f32,
        edges: &[Edge],
        sigma: Sigma,
        with_noise: bool,
        eligible: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let sig = sigma_completed_q(raw, edges, sigma);
        let mut best: Option<(usize, f32)> = None;
        for (i, e) in edges.iter().enumerate() {
            if !eligible(i) {
                continue;
            }
            let g = if with_noise { self.noise.get(i).copied().unwrap_or(0.0) } else { 0.0 };
            let score = g + logit(e.prior) + sig[i];
            if best.is_none_or(|(_, s)| score > s) {
                best = Some((i, score));
            }
        }
        best.map(|(i, _)| i)
    }
}

/// A Gumbel(0, 1) draw from a uniform `u` in (0, 1): `-ln(-ln u)`.
#[must_use]
pub(crate) fn gumbel_of_uniform(u: f64) -> f32 {
    let u = u.clamp(f64::MIN_POSITIVE, 1.0 - f64::EPSILON);
    (-(-u.ln()).ln()) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(prior: f32, n: u32, q: f32) -> Edge {
        Edge { prior, n, w: q * n as f32, ..Edge::new() }
    }

    #[test]
    fn sequence_halves_as_mctx_plans() {
        // 4 moves, 8 simulations: log2(4) = 2 phases; phase 1 gives each of 4 moves 1 visit,
        // phase 2 each of 2 survivors 2 more.
        assert_eq!(considered_visits(4, 8), vec![0, 0, 0, 0, 1, 1, 2, 2]);
        // 16 moves, 16 simulations: every move once.
        assert_eq!(considered_visits(16, 16), vec![0; 16]);
        // 2 moves: the same two again and again.
        assert_eq!(considered_visits(2, 6), vec![0, 0, 1, 1, 2, 2]);
        assert_eq!(considered_visits(1, 3), vec![0, 1, 2]);
        assert!(considered_visits(16, 0).is_empty());
        // 16 moves, 48 simulations: 4 phases, 16 x 1, then 8 x 1, then 4 x 3 ...
        let s = considered_visits(16, 48);
        assert_eq!(s.len(), 48);
        assert_eq!(&s[..16], &[0; 16]);
        assert_eq!(&s[16..24], &[1; 8]);
        assert_eq!(&s[24..28], &[2; 4]);
    }

    #[test]
    fn completed_q_by_hand() {
        // Three moves: a visited twice at Q = 0.5, b once at Q = -0.5, c never; raw value 0.2.
        let edges = [edge(0.5, 2, 0.5), edge(0.3, 1, -0.5), edge(0.2, 0, 0.0)];
        // weighted Q = (0.5 * 0.5 + 0.3 * -0.5) / 0.8 = 0.125; v_mix = (0.2 + 3 * 0.125) / 4.
        let v_mix = (0.2 + 3.0 * 0.125) / 4.0;
        assert!((mixed_value(0.2, &edges) - v_mix).abs() < 1e-6);
        let sigma = Sigma { c_visit: 50.0, c_scale: 1.0, repetition: 0.0 };
        let s = sigma_completed_q(0.2, &edges, sigma);
        let scale = 52.0; // c_visit + max N
        let expect = [scale * 0.75, scale * 0.25, scale * (v_mix + 1.0) / 2.0];
        for (a, b) in s.iter().zip(expect) {
            assert!((a - b).abs() < 1e-4, "{s:?} vs {expect:?}");
        }
        // softmax(ln P + sigma) by hand.
        let z: Vec<f64> = edges.iter().zip(expect).map(|(e, x)| f64::from(e.prior).ln() + f64::from(x)).collect();
        let top = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let total: f64 = z.iter().map(|x| (x - top).exp()).sum();
        let pi = improved_policy(0.2, &edges, sigma);
        for (p, x) in pi.iter().zip(&z) {
            assert!((f64::from(*p) - (x - top).exp() / total).abs() < 1e-6, "{pi:?}");
        }
        assert!((pi.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn proven_moves_count_at_their_exact_value() {
        let mut mate = edge(0.01, 0, 0.0);
        mate.proof = Proof::Win;
        let edges = [edge(0.99, 4, 0.0), mate];
        let s = sigma_completed_q(0.0, &edges, Sigma { c_visit: 50.0, c_scale: 1.0, repetition: 0.0 });
        assert!((s[1] - 54.0).abs() < 1e-4, "a proven win is q = 1: {s:?}");
        let pi = improved_policy(0.0, &edges, Sigma { c_visit: 50.0, c_scale: 1.0, repetition: 0.0 });
        assert!(pi[1] > 0.99, "the improved policy finds the mate the prior missed: {pi:?}");
    }

    #[test]
    fn gumbel_draws_are_finite() {
        for u in [0.0, 1e-300, 0.5, 1.0 - 1e-12, 1.0] {
            assert!(gumbel_of_uniform(u).is_finite(), "{u}");
        }
        assert!((gumbel_of_uniform((-1.0f64).exp().exp().recip()) - 1.0).abs() < 1e-5);
    }
}
