//! Gating by a sequential probability ratio test (SPRT): does a new checkpoint beat the current
//! best by enough to replace it?
//!
//! H0: the Elo difference is `elo0`; H1: it is `elo1` (logistic Elo, from the candidate's view).
//! After each game the log-likelihood ratio of the observed wins, draws and losses is compared
//! with the bounds `ln(beta / (1 - alpha))` (accept H0: the candidate fails) and
//! `ln((1 - beta) / alpha)` (accept H1: it passes), where `alpha` is the chance of passing a
//! candidate that is only `elo0` better and `beta` the chance of failing one `elo1` better.
//!
//! The ratio uses the normal approximation of the trinomial model (the "GSPRT" Fishtest and
//! cutechess use): with `s0`, `s1` the expected scores under H0 and H1 and `m`, `v` the observed
//! mean score and per-game variance, `LLR = N (s1 - s0) (2m - s0 - s1) / (2v)`.

use crate::elo::Score;

/// The test's parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sprt {
    /// Elo difference of H0 (the candidate is no real improvement). Usually 0.
    pub elo0: f64,
    /// Elo difference of H1 (the improvement worth promoting). Must exceed `elo0`.
    pub elo1: f64,
    /// Chance of passing a candidate at `elo0` (false positive), in (0, 0.5).
    pub alpha: f64,
    /// Chance of failing a candidate at `elo1` (false negative), in (0, 0.5).
    pub beta: f64,
    /// Games before any verdict. The variance is estimated from the games themselves, and a
    /// handful of lucky wins makes it tiny and the ratio huge: without a floor the test passes
    /// equal candidates far more often than `alpha` says. 20 to 30 is enough in practice.
    pub min_games: u32,
}

/// Where the test stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// H1 accepted: the candidate is better by about `elo1` or more.
    Pass,
    /// H0 accepted: the candidate is not better by `elo1`.
    Fail,
    /// Not enough games yet.
    Continue,
}

fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

impl Sprt {
    /// The lower (fail) and upper (pass) bounds of the log-likelihood ratio.
    #[must_use]
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of H1 against H0 for `score` (0 until the games show any
    /// spread: all wins, all draws or all losses give no variance to estimate with).
    #[must_use]
    pub fn llr(&self, score: &Score) -> f64 {
        let n = f64::from(score.games());
        if n == 0.0 {
            return 0.0;
        }
        let (w, d, l) = (f64::from(score.wins) / n, f64::from(score.draws) / n, f64::from(score.losses) / n);
        let m = w + d / 2.0;
        let v = w * (1.0 - m).powi(2) + d * (0.5 - m).powi(2) + l * m.powi(2);
        if v <= 1e-12 {
            return 0.0;
        }
        let (s0, s1) = (expected_score(self.elo0), expected_score(self.elo1));
        n * (s1 - s0) * (2.0 * m - s0 - s1) / (2.0 * v)
    }

    /// The verdict for `score`.
    #[must_use]
    pub fn verdict(&self, score: &Score) -> Verdict {
        if score.games() < self.min_games {
            return Verdict::Continue;
        }
        let (lower, upper) = self.bounds();
        let llr = self.llr(score);
        if llr >= upper {
            Verdict::Pass
        } else if llr <= lower {
            Verdict::Fail
        } else {
            Verdict::Continue
        }
    }

    /// Checks the parameters.
    ///
    /// # Errors
    /// A message naming the bad parameter.
    pub fn validate(&self) -> Result<(), String> {
        if self.elo1.is_nan() || self.elo0.is_nan() || self.elo1 <= self.elo0 {
            return Err(format!("sprt: elo1 ({}) must be greater than elo0 ({})", self.elo1, self.elo0));
        }
        for (name, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if v.is_nan() || v <= 0.0 || v >= 0.5 {
                return Err(format!("sprt: {name} = {v} is outside (0, 0.5)"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    const GATE: Sprt = Sprt { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.05, min_games: 24 };

    fn score(wins: u32, draws: u32, losses: u32) -> Score {
        Score { wins, draws, losses }
    }

    #[test]
    fn known_scores() {
        let (lower, upper) = GATE.bounds();
        assert!((lower - (0.05f64 / 0.95).ln()).abs() < 1e-12 && (upper - 19f64.ln()).abs() < 1e-12);
        // A clearly stronger candidate (70%, about +150 Elo) over 100 games passes.
        assert_eq!(GATE.verdict(&score(60, 20, 20)), Verdict::Pass);
        // An equal one over 300 games fails: LLR = 300 * 0.0715 * -0.0715 / (2/6) ~ -4.6.
        let llr = GATE.llr(&score(100, 100, 100));
        assert!((llr + 4.60).abs() < 0.05, "{llr}");
        assert_eq!(GATE.verdict(&score(100, 100, 100)), Verdict::Fail);
        // A weaker one fails quickly; four games decide nothing.
        assert_eq!(GATE.verdict(&score(10, 20, 30)), Verdict::Fail);
        assert_eq!(GATE.verdict(&score(3, 0, 1)), Verdict::Continue);
        assert_eq!(GATE.verdict(&score(0, 0, 0)), Verdict::Continue);
        assert_eq!(GATE.llr(&score(5, 0, 0)), 0.0, "no spread, no estimate");
        assert_eq!(GATE.verdict(&score(20, 2, 1)), Verdict::Continue, "fewer than min_games");
        assert!(GATE.validate().is_ok());
        assert!(Sprt { elo1: 0.0, ..GATE }.validate().is_err());
        assert!(Sprt { alpha: 0.7, ..GATE }.validate().is_err());
    }

    /// Plays the sequential test on simulated games until it decides (or 5,000 games).
    fn run(p_win: f64, p_draw: f64, seed: u64) -> Verdict {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut s = Score::default();
        for _ in 0..5000 {
            let x: f64 = rng.random();
            if x < p_win {
                s.wins += 1;
            } else if x < p_win + p_draw {
                s.draws += 1;
            } else {
                s.losses += 1;
            }
            match GATE.verdict(&s) {
                Verdict::Continue => {}
                v => return v,
            }
        }
        Verdict::Continue
    }

    #[test]
    fn simulated_candidates_are_gated_as_designed() {
        // About +100 Elo (expected score 0.64): passes nearly always.
        let passes = (0..40).filter(|&seed| run(0.54, 0.20, seed) == Verdict::Pass).count();
        assert!(passes >= 38, "a clearly stronger candidate passed only {passes}/40");
        // Equal strength: fails nearly always (alpha = 5%).
        let passes = (0..40).filter(|&seed| run(0.40, 0.20, seed) == Verdict::Pass).count();
        assert!(passes <= 4, "an equal candidate passed {passes}/40");
    }
}
