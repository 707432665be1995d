//! Match scores and the Elo difference they imply, with a 95% confidence interval.
//!
//! The score fraction `p = (W + D/2) / N` maps to an Elo difference by the logistic model,
//! `Elo = -400 log10(1/p - 1)`. Its uncertainty comes from the trinomial model of one game
//! (win 1, draw 1/2, loss 0 with the observed frequencies): the per-game variance is
//! `s^2 = (W (1-p)^2 + D (1/2-p)^2 + L p^2) / N`, the standard error of `p` is `s / sqrt(N)`, and
//! the interval is the Elo of `p -/+ 1.96` standard errors, reported as half its width, as
//! cutechess-cli does. At a score of 0 or 100% the Elo is infinite and so is the margin.

use std::fmt;

/// The two-sided 95% normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Wins, draws and losses, from one player's view.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Score {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

/// The Elo difference that makes a score fraction `p` the expected score (infinite at 0 and 1).
#[must_use]
pub fn elo_from_fraction(p: f64) -> f64 {
    if p <= 0.0 {
        f64::NEG_INFINITY
    } else if p >= 1.0 {
        f64::INFINITY
    } else {
        // The same as -400 log10(1/p - 1), without a negative zero at p = 1/2.
        400.0 * (p / (1.0 - p)).log10()
    }
}

impl Score {
    /// Games played.
    #[must_use]
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// `(W + D/2) / N`; 0.5 before any game.
    #[must_use]
    pub fn fraction(&self) -> f64 {
        let n = self.games();
        if n == 0 { 0.5 } else { (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(n) }
    }

    /// The standard error of [`Score::fraction`] under the trinomial model.
    #[must_use]
    pub fn standard_error(&self) -> f64 {
        let n = f64::from(self.games());
        if n == 0.0 {
            return f64::INFINITY;
        }
        let p = self.fraction();
        let variance = (f64::from(self.wins) * (1.0 - p).powi(2)
            + f64::from(self.draws) * (0.5 - p).powi(2)
            + f64::from(self.losses) * p.powi(2))
            / n;
        (variance / n).sqrt()
    }

    /// The Elo difference the score implies.
    #[must_use]
    pub fn elo(&self) -> f64 {
        elo_from_fraction(self.fraction())
    }

    /// Half the width of the Elo interval at `z` standard errors (infinite if a bound reaches a
    /// score of 0 or 1).
    #[must_use]
    pub fn elo_margin(&self, z: f64) -> f64 {
        let p = self.fraction();
        let se = self.standard_error();
        let (low, high) = (elo_from_fraction(p - z * se), elo_from_fraction(p + z * se));
        if low.is_finite() && high.is_finite() { (high - low) / 2.0 } else { f64::INFINITY }
    }

    /// Adds one game's result: `points` 1, 0.5 or 0.
    pub fn add(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points > 0.25 {
            self.draws += 1;
        } else {
            self.losses += 1;
        }
    }

    /// The match's last line: `score: W-D-L <pct>% elo <E> +/- <C>` (95% interval).
    #[must_use]
    pub fn summary_line(&self) -> String {
        format!(
            "score: {self} {:.1}% elo {} +/- {}",
            100.0 * self.fraction(),
            fmt_elo(self.elo()),
            fmt_elo(self.elo_margin(Z95))
        )
    }
}

fn fmt_elo(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1}")
    } else if x > 0.0 {
        "inf".to_string()
    } else {
        "-inf".to_string()
    }
}

impl fmt::Display for Score {
    /// `W-D-L`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}-{}", self.wins, self.draws, self.losses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn logistic_elo_known_values() {
        assert!(close(elo_from_fraction(0.5), 0.0));
        // 3:1 odds is 400 log10(3) = 190.848...
        assert!(close(elo_from_fraction(0.75), 190.848_501_887_865));
        assert!(close(elo_from_fraction(0.25), -190.848_501_887_865));
        // 10:1 odds is exactly 400.
        assert!(close(elo_from_fraction(10.0 / 11.0), 400.0));
        assert_eq!(elo_from_fraction(1.0), f64::INFINITY);
        assert_eq!(elo_from_fraction(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn trinomial_interval_known_values() {
        // 60-20-20: p = 0.7, per-game variance 0.16, standard error 0.04.
        let s = Score { wins: 60, draws: 20, losses: 20 };
        assert!(close(s.fraction(), 0.7));
        assert!(close(s.standard_error(), 0.04));
        assert!(close(s.elo(), 147.190_714_117_84));
        // (Elo(0.7 + 1.96 * 0.04) - Elo(0.7 - 1.96 * 0.04)) / 2, computed independently.
        assert!((s.elo_margin(Z95) - 66.013_381_220_39).abs() < 1e-6, "{}", s.elo_margin(Z95));
        assert_eq!(s.summary_line(), "score: 60-20-20 70.0% elo 147.2 +/- 66.0");
        // All draws: no spread at all.
        let d = Score { wins: 0, draws: 10, losses: 0 };
        assert_eq!(d.summary_line(), "score: 0-10-0 50.0% elo 0.0 +/- 0.0");
        // A whitewash: infinite Elo, infinite margin.
        let w = Score { wins: 20, draws: 0, losses: 0 };
        assert_eq!(w.summary_line(), "score: 20-0-0 100.0% elo inf +/- inf");
        let l = Score { wins: 0, draws: 1, losses: 9 };
        assert_eq!(l.summary_line(), "score: 0-1-9 5.0% elo -511.5 +/- inf");
    }

    #[test]
    fn adding_results() {
        let mut s = Score::default();
        for p in [1.0, 0.5, 0.0, 1.0] {
            s.add(p);
        }
        assert_eq!(s, Score { wins: 2, draws: 1, losses: 1 });
        assert_eq!(s.to_string(), "2-1-1");
    }
}
