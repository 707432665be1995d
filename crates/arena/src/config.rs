//! [`ArenaConfig`]: how the arena rates a run's checkpoints, the `[arena]` table of a preset.

use crate::sprt::Sprt;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How a new checkpoint is gated against the current best.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GateKind {
    /// A sequential probability ratio test ([`Sprt`]): stops as soon as the games decide, at
    /// `gate_games` at most (undecided there: fail).
    Sprt,
    /// A fixed match of `gate_games` games: pass at a score of `gate_win_rate` or more.
    Winrate,
    /// No gate: every new checkpoint becomes the best.
    None,
}

/// The arena's settings. Every match is played from the shipped openings, each opening twice
/// with colours swapped; checkpoints play as MCTS agents with `simulations` per move.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ArenaConfig {
    /// Simulations per move of a checkpoint's MCTS agent. Default 200, range 1..=100000.
    pub simulations: u32,
    /// Leaves one tree gathers per evaluator call. Default 1, range 1..=64.
    pub leaves_per_batch: u32,
    /// The root rule of a checkpoint's MCTS agent: `puct`, or `gumbel` (the Gumbel root without
    /// its draws: Sequential Halving over the moves of the highest priors, the best survivor
    /// played). Default `puct`.
    pub root: mcts::Root,
    /// Look one move ahead at every new node of a checkpoint's search (a node whose side to
    /// move can mate is proven, never evaluated; `mcts.prove_leaves`). Default false.
    pub prove_leaves: bool,
    /// Games of each checkpoint against the random baseline (0 = none). Default 40.
    pub games_vs_random: usize,
    /// Games of each checkpoint against the alpha-beta baseline (0 = none). Default 40.
    pub games_vs_alphabeta: usize,
    /// The alpha-beta baseline, as an agent spec. Default `alphabeta:depth=2`.
    pub alphabeta: String,
    /// How a new checkpoint is gated: `sprt`, `winrate` or `none`. Default `sprt`.
    pub gate: GateKind,
    /// Most games of a gate match. Default 200, range 2..=100000.
    pub gate_games: usize,
    /// `winrate` gate: the score that passes, in (0, 1). Default 0.55.
    pub gate_win_rate: f64,
    /// SPRT: Elo of H0 (no improvement). Default 0.
    pub sprt_elo0: f64,
    /// SPRT: Elo of H1 (an improvement worth promoting). Default 35 (AlphaGo Zero's 55%).
    pub sprt_elo1: f64,
    /// SPRT: chance of passing a candidate at `sprt_elo0`. Default 0.05, range (0, 0.5).
    pub sprt_alpha: f64,
    /// SPRT: chance of failing a candidate at `sprt_elo1`. Default 0.05, range (0, 0.5).
    pub sprt_beta: f64,
    /// SPRT: games before any verdict. Default 20.
    pub sprt_min_games: u32,
    /// Games played at once, each on its own thread; the MCTS agents of one checkpoint share
    /// one batching inference service, so more games at once fill fuller batches. Default 8,
    /// range 1..=256.
    pub concurrency: usize,
    /// A game reaching this many plies is a draw. Default 300, range 1..=100000.
    pub max_plies: usize,
    /// Milliseconds per move for agents whose spec sets no limit. Default 100.
    pub movetime_ms: u64,
}

impl Default for ArenaConfig {
    fn default() -> ArenaConfig {
        ArenaConfig {
            simulations: 200,
            leaves_per_batch: 1,
            root: mcts::Root::Puct,
            prove_leaves: false,
            games_vs_random: 40,
            games_vs_alphabeta: 40,
            alphabeta: "alphabeta:depth=2".to_owned(),
            gate: GateKind::Sprt,
            gate_games: 200,
            gate_win_rate: 0.55,
            sprt_elo0: 0.0,
            sprt_elo1: 35.0,
            sprt_alpha: 0.05,
            sprt_beta: 0.05,
            sprt_min_games: 20,
            concurrency: 8,
            max_plies: 300,
            movetime_ms: 100,
        }
    }
}

/// A value of the `[arena]` table out of range, named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArenaConfigError(pub String);

impl fmt::Display for ArenaConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "arena config: {}", self.0)
    }
}

impl std::error::Error for ArenaConfigError {}

impl ArenaConfig {
    /// The SPRT these settings describe.
    #[must_use]
    pub fn sprt(&self) -> Sprt {
        Sprt {
            elo0: self.sprt_elo0,
            elo1: self.sprt_elo1,
            alpha: self.sprt_alpha,
            beta: self.sprt_beta,
            min_games: self.sprt_min_games,
        }
    }

    /// Checks every range, and that the alpha-beta spec reads as an alpha-beta agent.
    ///
    /// # Errors
    /// The first value out of range, named.
    pub fn validate(&self) -> Result<(), ArenaConfigError> {
        let err = |m: String| Err(ArenaConfigError(m));
        if !(1..=100_000).contains(&self.simulations) {
            return err(format!("simulations = {} is outside 1..=100000", self.simulations));
        }
        if !(1..=64).contains(&self.leaves_per_batch) {
            return err(format!("leaves_per_batch = {} is outside 1..=64", self.leaves_per_batch));
        }
        if !(2..=100_000).contains(&self.gate_games) {
            return err(format!("gate_games = {} is outside 2..=100000", self.gate_games));
        }
        if !(self.gate_win_rate > 0.0 && self.gate_win_rate < 1.0) {
            return err(format!("gate_win_rate = {} is outside (0, 1)", self.gate_win_rate));
        }
        if !(1..=256).contains(&self.concurrency) {
            return err(format!("concurrency = {} is outside 1..=256", self.concurrency));
        }
        if !(1..=100_000).contains(&self.max_plies) {
            return err(format!("max_plies = {} is outside 1..=100000", self.max_plies));
        }
        if self.movetime_ms == 0 {
            return err("movetime_ms must be at least 1".to_owned());
        }
        self.sprt().validate().map_err(ArenaConfigError)?;
        match crate::AgentSpec::parse(&self.alphabeta) {
            Ok(spec) if matches!(spec.kind, crate::spec::AgentKind::AlphaBeta(_)) => Ok(()),
            Ok(_) => err(format!("alphabeta = '{}' is not an alpha-beta agent", self.alphabeta)),
            Err(e) => err(format!("alphabeta = '{}': {e}", self.alphabeta)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_ranges_are_named() {
        assert_eq!(ArenaConfig::default().validate(), Ok(()));
        let bad = ArenaConfig { gate_win_rate: 1.5, ..ArenaConfig::default() };
        assert!(bad.validate().expect_err("out of range").to_string().contains("gate_win_rate"));
        let bad = ArenaConfig { alphabeta: "random".into(), ..ArenaConfig::default() };
        assert!(bad.validate().expect_err("not alpha-beta").to_string().contains("not an alpha-beta agent"));
        let bad = ArenaConfig { sprt_elo1: -5.0, ..ArenaConfig::default() };
        assert!(bad.validate().expect_err("elo1 < elo0").to_string().contains("sprt"));
    }
}
