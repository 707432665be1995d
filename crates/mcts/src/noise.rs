//! Dirichlet noise for the root priors, drawn from the tree's own seeded generator.
//!
//! A symmetric Dirichlet(alpha) sample over `n` moves is `n` independent Gamma(alpha, 1) draws
//! normalised to sum 1 (rand_distr's `Dirichlet` wants its length at compile time).

use rand::Rng;
use rand_distr::{Distribution, Gamma};

/// Fills `out` with a symmetric Dirichlet(`alpha`) sample: non-negative, summing to 1. Falls back
/// to uniform if `alpha` is not a valid shape or every draw underflows to zero (possible only
/// for tiny alpha).
pub(crate) fn dirichlet(rng: &mut impl Rng, alpha: f32, out: &mut [f32]) {
    let n = out.len();
    if n == 0 {
        return;
    }
    let mut sum = 0.0f64;
    if let Ok(gamma) = Gamma::new(f64::from(alpha), 1.0) {
        for x in out.iter_mut() {
            let g: f64 = gamma.sample(rng);
            sum += g;
            *x = g as f32;
        }
    }
    if sum > 0.0 && sum.is_finite() {
        for x in out.iter_mut() {
            *x = (f64::from(*x) / sum) as f32;
        }
    } else {
        out.fill(1.0 / n as f32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn samples_are_distributions_and_seeded() {
        for alpha in [0.03, 0.3, 1.0, 5.0] {
            let mut a = vec![0.0; 44];
            let mut b = vec![0.0; 44];
            dirichlet(&mut StdRng::seed_from_u64(7), alpha, &mut a);
            dirichlet(&mut StdRng::seed_from_u64(7), alpha, &mut b);
            assert_eq!(a, b);
            assert!(a.iter().all(|&x| x >= 0.0 && x.is_finite()));
            assert!((a.iter().sum::<f32>() - 1.0).abs() < 1e-4, "alpha {alpha}");
        }
        let mut c = vec![0.0; 3];
        dirichlet(&mut StdRng::seed_from_u64(7), -1.0, &mut c);
        assert_eq!(c, vec![1.0 / 3.0; 3]);
    }
}
