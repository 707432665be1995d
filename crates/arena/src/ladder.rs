//! The Elo ladder: one rating for each of many players from all their pairwise match results
//! (checkpoints against each other and against fixed baselines), and the `ratings.json` file the
//! arena writes and the plots read.
//!
//! # Model
//! Bradley-Terry with the logistic Elo curve: a player rated `d` Elo above its opponent scores
//! `1 / (1 + 10^(-d/400))` a game on average. A draw counts as half a win and half a loss, so a
//! pairing enters the likelihood only through its games `n` and points `s = W + D/2`:
//! `s ln p + (n - s) ln (1 - p)`. The ratings maximise the sum over pairings, with the anchor held
//! at 0, by damped Newton steps (the objective is concave, so halving a step until the objective
//! does not fall always makes progress, and Newton converges in a handful of steps from all zeros).
//!
//! # Prior
//! A player who won (or lost) every game has no finite maximum: its rating runs to infinity. The
//! ladder adds [`DEFAULT_PRIOR_DRAWS`] virtual drawn game(s) to every pair of players that
//! actually met, as BayesElo does. Why this prior:
//! - it keeps every rating finite as long as the players are connected (each pair that met then
//!   has points on both sides), and a 10-0 whitewash reads as 10.5 out of 11, about +529;
//! - it only pulls together players that were compared: a virtual draw against the anchor instead
//!   would drag a strong checkpoint that never met the anchor down towards it, by an amount that
//!   depends on how far the anchor is, and a Gaussian prior on ratings would need a scale picked
//!   in Elo;
//! - its weight is one game, so a well-sampled pairing hardly moves (75% over 400 games: 190.3
//!   instead of the plain 190.8).
//!
//! # Intervals
//! `lo` and `hi` are the rating -/+ 1.96 marginal standard errors, from the inverse of the
//! (regularised) negative Hessian at the maximum with the anchor fixed: they say how well each
//! player is placed relative to the anchor, not relative to its neighbours. The binomial model of
//! a game treats a draw as a coin flip between win and loss, so with many draws these intervals are
//! a little wider than the trinomial ones of [`crate::elo`]: on the safe side.

use crate::elo::{Score, Z95};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;

/// Virtual drawn games added to each pair of players that met (see the module docs). 0 gives the
/// plain maximum-likelihood ratings, which do not exist when someone won or lost every game.
pub const DEFAULT_PRIOR_DRAWS: f64 = 1.0;

/// Elo per natural-log unit of odds: ratings are solved in nats and reported in Elo.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Newton stops when no rating moves by more than this many nats (about 2e-8 Elo).
const TOLERANCE: f64 = 1e-10;

/// Newton steps before giving up. Concave objectives converge in tens at most.
const MAX_ITERATIONS: usize = 200;

/// A rating beyond this many nats (about 17,000 Elo) means the maximum is at infinity: only
/// possible with no prior and a player who won or lost everything.
const RUNAWAY: f64 = 100.0;

/// The games between two players, from `a`'s view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    /// The first player.
    pub a: String,
    /// The second player.
    pub b: String,
    /// Games `a` won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games `a` lost.
    pub losses: u32,
}

impl Pairing {
    /// The result as a [`Score`] from `a`'s view.
    #[must_use]
    pub fn score(&self) -> Score {
        Score { wins: self.wins, draws: self.draws, losses: self.losses }
    }

    /// Games played, as a float (a sum of three `u32` can overflow one).
    fn games(&self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) + f64::from(self.losses)
    }

    /// `a`'s points: wins plus half the draws.
    fn points(&self) -> f64 {
        f64::from(self.wins) + 0.5 * f64::from(self.draws)
    }
}

/// One player's place on the ladder.
#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    /// The player.
    pub name: String,
    /// Elo relative to the anchor (0 for the anchor itself).
    pub elo: f64,
    /// Lower end of the 95% interval (the anchor's is 0).
    pub lo: f64,
    /// Upper end of the 95% interval (the anchor's is 0).
    pub hi: f64,
    /// Games played, against anyone.
    pub games: u32,
    /// Points per game (wins plus half the draws, over games); 0.5 with no games.
    pub score: f64,
}

/// Why no ladder could be computed.
#[derive(Clone, Debug, PartialEq)]
pub enum LadderError {
    /// The anchor is not among the players.
    UnknownAnchor(String),
    /// A pairing names someone who is not among the players.
    UnknownPlayer(String),
    /// A player is listed twice.
    DuplicatePlayer(String),
    /// A pairing has a player meet itself.
    SelfPairing(String),
    /// These players have no chain of games to the anchor, so nothing places them.
    Disconnected(Vec<String>),
    /// The prior is negative or not a number.
    BadPrior(f64),
    /// With no prior, this player's rating has no finite maximum (it won or lost everything,
    /// or a group of players did against everyone else).
    NoFiniteRating(String),
}

impl fmt::Display for LadderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownAnchor(name) => write!(f, "the anchor {name:?} is not one of the players"),
            Self::UnknownPlayer(name) => write!(f, "a pairing names {name:?}, who is not one of the players"),
            Self::DuplicatePlayer(name) => write!(f, "player {name:?} is listed twice"),
            Self::SelfPairing(name) => write!(f, "a pairing has {name:?} play itself"),
            Self::Disconnected(names) => {
                write!(f, "no games connect these players to the anchor: {}", names.join(", "))
            }
            Self::BadPrior(prior) => write!(f, "the prior must be a non-negative number of draws, not {prior}"),
            Self::NoFiniteRating(name) => {
                write!(f, "{name:?} has no finite rating without a prior (it won or lost every game)")
            }
        }
    }
}

impl std::error::Error for LadderError {}

/// Rates `players` from `results` with `anchor` at 0 and the default prior
/// ([`DEFAULT_PRIOR_DRAWS`]). The ratings come back in the order of `players`.
///
/// # Errors
/// See [`rate_with_prior`].
pub fn rate(players: &[String], results: &[Pairing], anchor: &str) -> Result<Vec<Rating>, LadderError> {
    rate_with_prior(players, results, anchor, DEFAULT_PRIOR_DRAWS)
}

/// Rates `players` from `results` with `anchor` at 0, adding `prior_draws` virtual drawn games to
/// each pair of players that met (0: plain maximum likelihood). Pairings with no games, and
/// several pairings of the same two players, are fine. The ratings come back in the order of
/// `players`.
///
/// # Errors
/// The anchor is not a player, a pairing names an unknown player or has a player meet itself, a
/// player is listed twice, some players have no chain of games to the anchor
/// ([`LadderError::Disconnected`] names them all), the prior is negative or NaN, or (only with a
/// zero prior) a rating has no finite maximum.
pub fn rate_with_prior(
    players: &[String],
    results: &[Pairing],
    anchor: &str,
    prior_draws: f64,
) -> Result<Vec<Rating>, LadderError> {
    if !prior_draws.is_finite() || prior_draws < 0.0 {
        return Err(LadderError::BadPrior(prior_draws));
    }
    let mut index = HashMap::with_capacity(players.len());
    for (i, name) in players.iter().enumerate() {
        if index.insert(name.as_str(), i).is_some() {
            return Err(LadderError::DuplicatePlayer(name.clone()));
        }
    }
    let anchor_index = *index.get(anchor).ok_or_else(|| LadderError::UnknownAnchor(anchor.to_string()))?;
    let look_up = |name: &str| index.get(name).copied().ok_or_else(|| LadderError::UnknownPlayer(name.to_string()));

    // Each player's own record, and the pairs that met, with the prior added once per pair.
    let mut scores = vec![Score::default(); players.len()];
    let mut edges = Vec::with_capacity(results.len());
    let mut met = HashSet::new();
    for pairing in results {
        let (i, j) = (look_up(&pairing.a)?, look_up(&pairing.b)?);
        if i == j {
            return Err(LadderError::SelfPairing(pairing.a.clone()));
        }
        if pairing.games() == 0.0 {
            continue;
        }
        add_score(&mut scores[i], pairing.wins, pairing.draws, pairing.losses);
        add_score(&mut scores[j], pairing.losses, pairing.draws, pairing.wins);
        edges.push(Edge { i, j, points: pairing.points(), games: pairing.games() });
        if met.insert((i.min(j), i.max(j))) && prior_draws > 0.0 {
            edges.push(Edge { i, j, points: 0.5 * prior_draws, games: prior_draws });
        }
    }

    let disconnected = unreachable_from(anchor_index, players.len(), &edges);
    if !disconnected.is_empty() {
        return Err(LadderError::Disconnected(disconnected.into_iter().map(|i| players[i].clone()).collect()));
    }

    let (theta, se) =
        solve(players.len(), anchor_index, &edges).map_err(|i| LadderError::NoFiniteRating(players[i].clone()))?;
    Ok(players
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let elo = theta[i] * ELO_PER_NAT;
            let margin = Z95 * se[i] * ELO_PER_NAT;
            Rating {
                name: name.clone(),
                elo,
                lo: elo - margin,
                hi: elo + margin,
                games: scores[i].games(),
                score: scores[i].fraction(),
            }
        })
        .collect())
}

/// Adds a result to a player's record, saturating rather than overflowing on absurd counts.
fn add_score(score: &mut Score, wins: u32, draws: u32, losses: u32) {
    score.wins = score.wins.saturating_add(wins);
    score.draws = score.draws.saturating_add(draws);
    score.losses = score.losses.saturating_add(losses);
}

/// Games between players `i` and `j`: `points` scored by `i` out of `games` (real or virtual).
struct Edge {
    i: usize,
    j: usize,
    points: f64,
    games: f64,
}

/// The players no chain of edges links to `start`, in index order.
fn unreachable_from(start: usize, n: usize, edges: &[Edge]) -> Vec<usize> {
    let mut neighbours = vec![Vec::new(); n];
    for e in edges {
        neighbours[e.i].push(e.j);
        neighbours[e.j].push(e.i);
    }
    let mut seen = vec![false; n];
    seen[start] = true;
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in &neighbours[v] {
            if !seen[w] {
                seen[w] = true;
                queue.push_back(w);
            }
        }
    }
    (0..n).filter(|&i| !seen[i]).collect()
}

/// `ln(1 / (1 + e^-x))` without overflow for large `|x|`.
fn log_sigmoid(x: f64) -> f64 {
    if x >= 0.0 { -(-x).exp().ln_1p() } else { x - x.exp().ln_1p() }
}

/// `1 / (1 + e^-x)`.
fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 { 1.0 / (1.0 + (-x).exp()) } else { x.exp() / (1.0 + x.exp()) }
}

/// The log-likelihood of ratings `theta` (in nats).
fn log_likelihood(theta: &[f64], edges: &[Edge]) -> f64 {
    edges
        .iter()
        .map(|e| {
            let d = theta[e.i] - theta[e.j];
            e.points * log_sigmoid(d) + (e.games - e.points) * log_sigmoid(-d)
        })
        .sum()
}

/// Maximises the log-likelihood over every rating but the anchor's (held at 0) and returns the
/// ratings and their standard errors, in nats. The players must all be connected to the anchor.
///
/// # Errors
/// The index of the player furthest from 0 when the ratings run away (no finite maximum).
fn solve(n: usize, anchor: usize, edges: &[Edge]) -> Result<(Vec<f64>, Vec<f64>), usize> {
    // Free variable k is player free[k]; slot[player] is its variable, None for the anchor.
    let free: Vec<usize> = (0..n).filter(|&i| i != anchor).collect();
    let mut slot = vec![None; n];
    for (k, &i) in free.iter().enumerate() {
        slot[i] = Some(k);
    }
    let m = free.len();
    let mut theta = vec![0.0; n];
    let furthest = |theta: &[f64]| (0..n).max_by(|&a, &b| theta[a].abs().total_cmp(&theta[b].abs())).unwrap_or(anchor);

    let mut converged = m == 0;
    for _ in 0..MAX_ITERATIONS {
        if converged {
            break;
        }
        let (gradient, hessian) = derivatives(&theta, edges, &slot, m);
        let Some(factor) = cholesky(&hessian, m) else {
            return Err(furthest(&theta));
        };
        let step = cholesky_solve(&factor, m, &gradient);

        // Damped Newton: halve the step until the objective does not fall.
        let before = log_likelihood(&theta, edges);
        let mut t = 1.0;
        let mut trial = theta.clone();
        loop {
            for (k, &i) in free.iter().enumerate() {
                trial[i] = theta[i] + t * step[k];
            }
            if log_likelihood(&trial, edges) >= before || t < 1e-12 {
                break;
            }
            t *= 0.5;
        }
        let moved = step.iter().fold(0.0_f64, |acc, s| acc.max((t * s).abs()));
        theta = trial;
        if theta.iter().any(|x| x.abs() > RUNAWAY) {
            return Err(furthest(&theta));
        }
        converged = moved < TOLERANCE;
    }
    if !converged {
        return Err(furthest(&theta));
    }

    let mut se = vec![0.0; n];
    if m > 0 {
        let (_, hessian) = derivatives(&theta, edges, &slot, m);
        let factor = cholesky(&hessian, m).ok_or_else(|| furthest(&theta))?;
        for (k, &i) in free.iter().enumerate() {
            let mut unit = vec![0.0; m];
            unit[k] = 1.0;
            se[i] = cholesky_solve(&factor, m, &unit)[k].sqrt();
        }
    }
    Ok((theta, se))
}

/// The gradient of the log-likelihood and its negative Hessian (row-major, `m` x `m`), both over
/// the free variables.
fn derivatives(theta: &[f64], edges: &[Edge], slot: &[Option<usize>], m: usize) -> (Vec<f64>, Vec<f64>) {
    let mut gradient = vec![0.0; m];
    let mut hessian = vec![0.0; m * m];
    for e in edges {
        let p = sigmoid(theta[e.i] - theta[e.j]);
        let g = e.points - e.games * p;
        let w = e.games * p * (1.0 - p);
        let (si, sj) = (slot[e.i], slot[e.j]);
        if let Some(a) = si {
            gradient[a] += g;
            hessian[a * m + a] += w;
        }
        if let Some(b) = sj {
            gradient[b] -= g;
            hessian[b * m + b] += w;
        }
        if let (Some(a), Some(b)) = (si, sj) {
            hessian[a * m + b] -= w;
            hessian[b * m + a] -= w;
        }
    }
    (gradient, hessian)
}

/// The lower-triangular `L` with `L L^T = a` (row-major, `m` x `m`); None unless `a` is
/// symmetric positive definite.
fn cholesky(a: &[f64], m: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; m * m];
    for r in 0..m {
        for c in 0..=r {
            let dot: f64 = (0..c).map(|k| l[r * m + k] * l[c * m + k]).sum();
            let v = a[r * m + c] - dot;
            if r == c {
                if v.is_nan() || v <= 0.0 {
                    return None;
                }
                l[r * m + r] = v.sqrt();
            } else {
                l[r * m + c] = v / l[c * m + c];
            }
        }
    }
    Some(l)
}

/// Solves `L L^T x = b` given the factor `L` from [`cholesky`].
fn cholesky_solve(l: &[f64], m: usize, b: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; m];
    for r in 0..m {
        let dot: f64 = (0..r).map(|k| l[r * m + k] * y[k]).sum();
        y[r] = (b[r] - dot) / l[r * m + r];
    }
    let mut x = vec![0.0; m];
    for r in (0..m).rev() {
        let dot: f64 = (r + 1..m).map(|k| l[k * m + r] * x[k]).sum();
        x[r] = (y[r] - dot) / l[r * m + r];
    }
    x
}

/// `arena/ratings.json` in a run directory: the ladder after an arena round, written by the arena
/// command and read by the plots. JSON, written whole (temporary file and rename), e.g.
///
/// ```json
/// {"anchor":"random",
///  "players":[{"name":"random","kind":"baseline","step":null,"elo":0.0,"lo":0.0,"hi":0.0,"games":40,"score":0.2},
///             {"name":"ckpt-200","kind":"checkpoint","step":200,"elo":35.0,"lo":-60.0,"hi":130.0,"games":40,"score":0.55}],
///  "matches":[{"a":"ckpt-200","b":"random","wins":5,"draws":10,"losses":5}],
///  "best":"ckpt-200"}
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingsFile {
    /// The player held at 0 Elo.
    pub anchor: String,
    /// Every rated player, baselines and checkpoints.
    pub players: Vec<RatedPlayer>,
    /// All the results the ratings come from.
    pub matches: Vec<Pairing>,
    /// The checkpoint judged best so far, if any.
    #[serde(default)]
    pub best: Option<String>,
}

/// One player in [`RatingsFile`]: its [`Rating`] plus what it is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatedPlayer {
    /// The player (an agent spec for baselines, `ckpt-<step>` for checkpoints).
    pub name: String,
    /// `"baseline"` (a fixed reference agent) or `"checkpoint"` (a trained net).
    pub kind: String,
    /// The training step of a checkpoint; null for baselines.
    #[serde(default)]
    pub step: Option<u64>,
    /// Elo relative to the anchor.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub lo: f64,
    /// Upper end of the 95% interval.
    pub hi: f64,
    /// Games played.
    pub games: u32,
    /// Points per game.
    pub score: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elo::elo_from_fraction;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_string()).collect()
    }

    fn pairing(a: &str, b: &str, wins: u32, draws: u32, losses: u32) -> Pairing {
        Pairing { a: a.into(), b: b.into(), wins, draws, losses }
    }

    fn find<'a>(ratings: &'a [Rating], name: &str) -> &'a Rating {
        ratings.iter().find(|r| r.name == name).expect("player is rated")
    }

    #[test]
    fn two_players_at_75_percent_are_191_apart() {
        let players = names(&["a", "b"]);
        // 30 wins, 10 losses: 3:1 odds, 400 log10(3) Elo.
        let plain = rate_with_prior(&players, &[pairing("a", "b", 30, 0, 10)], "b", 0.0).expect("rated");
        let a = find(&plain, "a");
        assert!((a.elo - 400.0 * 3f64.log10()).abs() < 1e-6, "{}", a.elo);
        assert!((a.elo - 190.85).abs() < 0.01);
        // Draws count half each way: 20-20-0 is also 75%.
        let drawn = rate_with_prior(&players, &[pairing("a", "b", 20, 20, 0)], "b", 0.0).expect("rated");
        assert!((find(&drawn, "a").elo - a.elo).abs() < 1e-6);
        // The prior barely moves a well-sampled pairing: 300.5 / 401 points is 190.3 Elo.
        let sampled = rate(&players, &[pairing("a", "b", 300, 0, 100)], "b").expect("rated");
        let elo = find(&sampled, "a").elo;
        assert!((elo - elo_from_fraction(300.5 / 401.0)).abs() < 1e-6, "{elo}");
        assert!((elo - 190.85).abs() < 1.0, "{elo}");
        // The anchor sits at 0 with no interval; the other's record is reported as played.
        let b = find(&sampled, "b");
        assert_eq!((b.elo, b.lo, b.hi), (0.0, 0.0, 0.0));
        assert_eq!(b.games, 400);
        assert!((b.score - 0.25).abs() < 1e-12);
        assert!((find(&sampled, "a").score - 0.75).abs() < 1e-12);
    }

    #[test]
    fn a_chain_recovers_differences_that_add_up() {
        // A beats B 75%, B beats C 10:1, A and C never meet: a tree, so the plain maximum puts
        // each pair at exactly its own Elo and A above C by the sum.
        let players = names(&["C", "B", "A"]);
        let results = [pairing("A", "B", 30, 0, 10), pairing("C", "B", 1, 0, 10)];
        let r = rate_with_prior(&players, &results, "C", 0.0).expect("rated");
        let (ab, bc) = (400.0 * 3f64.log10(), 400.0);
        assert!((find(&r, "B").elo - bc).abs() < 1e-6);
        assert!((find(&r, "A").elo - (ab + bc)).abs() < 1e-6);
        // A's interval is wider than B's: its place rests on two pairings' worth of noise.
        let width = |n: &str| find(&r, n).hi - find(&r, n).lo;
        assert!(width("A") > width("B"));

        // Add an A-C pairing consistent with the rest (590.8 Elo is 3 * 10 : 1 odds, 30:1): the
        // ratings do not move.
        let mut more = results.to_vec();
        more.push(pairing("A", "C", 60, 0, 2));
        let r2 = rate_with_prior(&players, &more, "C", 0.0).expect("rated");
        assert!((find(&r2, "A").elo - (ab + bc)).abs() < 1e-6);
        assert!((find(&r2, "B").elo - bc).abs() < 1e-6);
    }

    #[test]
    fn moving_the_anchor_shifts_every_rating_alike() {
        let players = names(&["x", "y", "z", "w"]);
        let results = [
            pairing("x", "y", 7, 6, 3),
            pairing("y", "z", 4, 2, 9),
            pairing("z", "x", 5, 5, 5),
            pairing("w", "z", 12, 0, 0),
        ];
        let at_x = rate(&players, &results, "x").expect("rated");
        let at_z = rate(&players, &results, "z").expect("rated");
        let shift = find(&at_x, "z").elo;
        for (p, q) in at_x.iter().zip(&at_z) {
            assert_eq!(p.name, q.name);
            assert!((p.elo - (q.elo + shift)).abs() < 1e-6, "{p:?} {q:?}");
        }
    }

    #[test]
    fn four_times_the_games_halves_the_interval() {
        let players = names(&["a", "b"]);
        let width = |k: u32, prior: f64| {
            let r = rate_with_prior(&players, &[pairing("a", "b", 10 * k, 6 * k, 4 * k)], "b", prior).expect("rated");
            let a = find(&r, "a");
            assert!(a.lo < a.elo && a.elo < a.hi);
            a.hi - a.lo
        };
        assert!((width(4, 0.0) / width(1, 0.0) - 0.5).abs() < 1e-9);
        let ratio = width(4, DEFAULT_PRIOR_DRAWS) / width(1, DEFAULT_PRIOR_DRAWS);
        assert!((ratio - 0.5).abs() < 0.02, "{ratio}");
        // No draws, 40 games at 50%: the standard error is 1 / sqrt(n p (1-p)) nats.
        let r = rate_with_prior(&players, &[pairing("a", "b", 20, 0, 20)], "b", 0.0).expect("rated");
        let half = (find(&r, "a").hi - find(&r, "a").lo) / 2.0;
        assert!((half - Z95 * ELO_PER_NAT / (40.0_f64 * 0.25).sqrt()).abs() < 1e-6, "{half}");
    }

    #[test]
    fn a_whitewash_gets_a_large_finite_rating() {
        let players = names(&["random", "ckpt", "other"]);
        let results = [pairing("ckpt", "random", 10, 0, 0), pairing("other", "random", 5, 10, 5)];
        let r = rate(&players, &results, "random").expect("rated");
        let ckpt = find(&r, "ckpt");
        // One virtual draw: 10.5 of 11 points, 400 log10(21) = 528.9 Elo.
        assert!((ckpt.elo - 400.0 * 21f64.log10()).abs() < 1e-6, "{}", ckpt.elo);
        assert!(ckpt.lo.is_finite() && ckpt.hi.is_finite() && ckpt.lo < ckpt.elo && ckpt.elo < ckpt.hi);
        assert!((ckpt.score - 1.0).abs() < 1e-12);
        // And the whitewashed side mirrors it.
        let flipped = rate(&players, &results, "ckpt").expect("rated");
        assert!((find(&flipped, "random").elo + ckpt.elo).abs() < 1e-6);
        // Without the prior there is no finite answer, and the error says who.
        assert_eq!(rate_with_prior(&players, &results, "random", 0.0), Err(LadderError::NoFiniteRating("ckpt".into())));
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        let players = names(&["a", "b", "c", "d"]);
        let ab = [pairing("a", "b", 1, 1, 1)];
        assert_eq!(rate(&players, &ab, "zz"), Err(LadderError::UnknownAnchor("zz".into())));
        assert_eq!(
            rate(&players, &[ab[0].clone(), pairing("a", "q", 1, 0, 0)], "a"),
            Err(LadderError::UnknownPlayer("q".into()))
        );
        assert_eq!(rate(&players, &[pairing("c", "c", 1, 0, 0)], "a"), Err(LadderError::SelfPairing("c".into())));
        assert_eq!(rate(&names(&["a", "b", "a"]), &ab, "a"), Err(LadderError::DuplicatePlayer("a".into())));
        assert_eq!(rate_with_prior(&players, &ab, "a", -1.0), Err(LadderError::BadPrior(-1.0)));
        // c and d played each other, and a pairing with no games links nobody.
        let err = rate(&players, &[ab[0].clone(), pairing("c", "d", 2, 0, 1), pairing("a", "c", 0, 0, 0)], "a");
        assert_eq!(err, Err(LadderError::Disconnected(names(&["c", "d"]))));
        let message = err.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("c, d"), "{message}");
    }

    #[test]
    fn a_lone_anchor_is_rated_alone() {
        let r = rate(&names(&["random"]), &[], "random").expect("rated");
        assert_eq!(r, vec![Rating { name: "random".into(), elo: 0.0, lo: 0.0, hi: 0.0, games: 0, score: 0.5 }]);
    }

    #[test]
    fn ratings_file_reads_the_documented_schema() {
        let json = r#"{"anchor":"random","players":[
            {"name":"random","kind":"baseline","step":null,"elo":0.0,"lo":0.0,"hi":0.0,"games":40,"score":0.2},
            {"name":"ckpt-200","kind":"checkpoint","step":200,"elo":35.0,"lo":-60.0,"hi":130.0,"games":40,"score":0.55}],
            "matches":[{"a":"ckpt-200","b":"random","wins":5,"draws":10,"losses":5}],"best":"ckpt-200"}"#;
        let file: RatingsFile = serde_json::from_str(json).expect("parses");
        assert_eq!(file.anchor, "random");
        assert_eq!(file.players[0].step, None);
        assert_eq!(file.players[1].step, Some(200));
        assert_eq!(file.matches[0], pairing("ckpt-200", "random", 5, 10, 5));
        assert_eq!(file.best.as_deref(), Some("ckpt-200"));
        let again: RatingsFile = serde_json::from_str(&serde_json::to_string(&file).expect("encodes")).expect("parses");
        assert_eq!(again, file);
    }
}
