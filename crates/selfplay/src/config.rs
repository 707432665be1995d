//! [`SelfplayConfig`]: the `[selfplay]` table of a preset. Every field says its unit, default and
//! range; [`SelfplayConfig::validate`] checks the ranges.
//!
//! The search itself (c_puct, noise, temperature schedule, leaves per batch) is configured by
//! `[mcts]` ([`mcts::MctsParams`]); this table says how many simulations a move gets, how many
//! games run at once, when a game ends early, and how finished games are grouped into shards.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How self-play plays and records games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfplayConfig {
    /// Simulations per move of a full search: the root's visits when the move is chosen,
    /// visits kept from the previous move's tree included. Default 200, range 1..=100000.
    pub simulations: u32,
    /// Simulations of a cheap search (playout-cap randomisation, KataGo): a move searched this
    /// little is played but not recorded as a training sample and gets no root noise. Default 0,
    /// range 0..=`simulations`; 0 turns playout-cap randomisation off (every move is full).
    pub fast_simulations: u32,
    /// Share of moves searched in full when `fast_simulations` is on, drawn per move. Default
    /// 0.25, range (0, 1]. Ignored when `fast_simulations` is 0.
    pub full_search_fraction: f32,
    /// Games each worker keeps in flight, one search tree each; one evaluator call carries a
    /// leaf batch from all of them. Default 64, range 1..=4096.
    pub games_in_flight: usize,
    /// Worker threads of one self-play process, sharing its evaluator (the net's batches merge
    /// across workers). Default 1, range 1..=256.
    pub workers: usize,
    /// Finished games per shard file: a worker writes a shard each time this many of its games
    /// have finished (and what it has when it stops). Default 32, range 1..=100000.
    pub games_per_shard: usize,
    /// Plies after which a game is stopped and scored a draw (`DrawReason::Cap`). Plies.
    /// Default 400, range 1..=100000. The rules' own move-count draws usually come first.
    pub max_plies: u32,
    /// Resignation threshold: the side to move resigns when both the root value and the value
    /// of its most visited move (its own view) are below this for `resign_plies` of its
    /// consecutive moves. Value units. Default -0.95, range [-1, 1]; -1 never resigns.
    pub resign_threshold: f32,
    /// Consecutive own moves below `resign_threshold` before a side resigns. Moves. Default 3,
    /// range 1..=1000.
    pub resign_plies: u32,
    /// Share of games, drawn per game, played with resignation off. In them the first side that
    /// would have resigned is noted, and if it then wins or draws the resignation would have
    /// been false: the false-resign rate is measured on these games. Default 0.1, range [0, 1].
    pub no_resign_fraction: f32,
    /// Seconds between looks for a newer model (a newer checkpoint); a look happens only
    /// between games, and a newer model is picked up at once. Seconds. Default 30, range
    /// [0, 86400]; 0 looks after every game.
    pub model_poll_seconds: f64,
    /// Weight of the alpha-beta engine's capture search in every leaf value of self-play's
    /// search: value = (1 - w) x net + w x tanh(quiescence / `leaf_teacher_scale`), AlphaGo's
    /// mixed leaf evaluation with a capture search for the rollout. It reaches the training
    /// data through the search (improved policies, root values, the games played); play and
    /// the arena use the net alone. Default 0 (off), range [0, 1].
    pub leaf_teacher: f32,
    /// Scale of the capture search's score in `leaf_teacher`: hundredths of the unit piece
    /// (a xiangqi soldier, a draughts man) that read tanh(1) = 0.76. Default 600, range
    /// [1, 100000].
    pub leaf_teacher_scale: f32,
    /// Share of games, drawn per game, in which one side (either colour, drawn too) is a fixed
    /// opponent: the alpha-beta engine at `opponent_depth` in the pipeline. The net's side is
    /// searched and recorded as in any game; the games' results teach the value what the
    /// engine punishes. Default 0 (off), range [0, 1].
    pub opponent_games: f32,
    /// Depth of the alpha-beta opponent's full-width search, plies (a capture search follows).
    /// Default 1, range 1..=8.
    pub opponent_depth: u32,
    /// Whether the opponent's moves are recorded as samples too: its move as the policy
    /// target (all of it), its search's score as the root value. Default true.
    pub opponent_samples: bool,
    /// Random opening: each game first plays a number of plies drawn uniformly from
    /// 0..=`opening_plies`, each move drawn uniformly from the legal ones. These moves are in
    /// the game's record but are not samples. They spread the games over many openings, so
    /// that a net playing a deterministic opponent (`opponent_games`) from the start position
    /// cannot learn a few lines that beat it instead of the game. Plies. Default 0 (off: every
    /// game from the start position), range 0..=40.
    pub opening_plies: u32,
}

impl Default for SelfplayConfig {
    fn default() -> SelfplayConfig {
        SelfplayConfig {
            simulations: 200,
            fast_simulations: 0,
            full_search_fraction: 0.25,
            games_in_flight: 64,
            workers: 1,
            games_per_shard: 32,
            max_plies: 400,
            resign_threshold: -0.95,
            resign_plies: 3,
            no_resign_fraction: 0.1,
            model_poll_seconds: 30.0,
            leaf_teacher: 0.0,
            leaf_teacher_scale: 600.0,
            opponent_games: 0.0,
            opponent_depth: 1,
            opponent_samples: true,
            opening_plies: 0,
        }
    }
}

/// A `[selfplay]` field outside its documented range.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    /// The field's name, as in the config file.
    pub field: &'static str,
    /// The rejected value.
    pub value: f64,
    /// The allowed range, in words.
    pub range: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "selfplay.{} = {} is outside its range {}", self.field, self.value, self.range)
    }
}

impl std::error::Error for ConfigError {}

impl SelfplayConfig {
    /// Checks every field against its documented range.
    ///
    /// # Errors
    /// The first field found outside its range (NaN is outside every range).
    pub fn validate(&self) -> Result<(), ConfigError> {
        fn check(field: &'static str, value: f64, lo: f64, lo_open: bool, hi: f64) -> Result<(), ConfigError> {
            let above_lo = if lo_open { value > lo } else { value >= lo };
            if above_lo && value <= hi {
                return Ok(());
            }
            let range = if lo_open { format!("({lo}, {hi}]") } else { format!("[{lo}, {hi}]") };
            Err(ConfigError { field, value, range })
        }
        check("simulations", self.simulations.into(), 1.0, false, 100_000.0)?;
        check("fast_simulations", self.fast_simulations.into(), 0.0, false, self.simulations.into())?;
        check("full_search_fraction", self.full_search_fraction.into(), 0.0, true, 1.0)?;
        check("games_in_flight", self.games_in_flight as f64, 1.0, false, 4096.0)?;
        check("workers", self.workers as f64, 1.0, false, 256.0)?;
        check("games_per_shard", self.games_per_shard as f64, 1.0, false, 100_000.0)?;
        check("max_plies", self.max_plies.into(), 1.0, false, 100_000.0)?;
        check("resign_threshold", self.resign_threshold.into(), -1.0, false, 1.0)?;
        check("resign_plies", self.resign_plies.into(), 1.0, false, 1000.0)?;
        check("no_resign_fraction", self.no_resign_fraction.into(), 0.0, false, 1.0)?;
        check("model_poll_seconds", self.model_poll_seconds, 0.0, false, 86_400.0)?;
        check("leaf_teacher", self.leaf_teacher.into(), 0.0, false, 1.0)?;
        check("leaf_teacher_scale", self.leaf_teacher_scale.into(), 1.0, false, 100_000.0)?;
        check("opponent_games", self.opponent_games.into(), 0.0, false, 1.0)?;
        check("opponent_depth", self.opponent_depth.into(), 1.0, false, 8.0)?;
        check("opening_plies", self.opening_plies.into(), 0.0, false, 40.0)?;
        Ok(())
    }

    /// How self-play's leaf values are made, for a run's or a job's opening line: empty with the
    /// net alone, else the teacher's weight and scale.
    #[must_use]
    pub fn leaf_teacher_note(&self) -> String {
        if self.leaf_teacher > 0.0 {
            format!(
                "; leaf values mixed with the alpha-beta capture search at {} (scale {})",
                self.leaf_teacher, self.leaf_teacher_scale
            )
        } else {
            String::new()
        }
    }

    /// The fixed opponent's share of the games, for a run's or a job's opening line: empty when
    /// off.
    #[must_use]
    pub fn opponent_note(&self) -> String {
        if self.opponent_games > 0.0 {
            format!(
                "; {}% of games against alpha-beta depth {}{}",
                100.0 * self.opponent_games,
                self.opponent_depth,
                if self.opponent_samples { " (its moves recorded as samples)" } else { "" }
            )
        } else {
            String::new()
        }
    }

    /// The random opening, for a run's or a job's opening line: empty when off.
    #[must_use]
    pub fn opening_note(&self) -> String {
        if self.opening_plies > 0 {
            format!("; each game opens with 0 to {} random plies", self.opening_plies)
        } else {
            String::new()
        }
    }

    /// True when playout-cap randomisation is on (some moves get a cheap, unrecorded search).
    #[must_use]
    pub fn playout_cap(&self) -> bool {
        self.fast_simulations > 0 && self.fast_simulations < self.simulations && self.full_search_fraction < 1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        let c = SelfplayConfig::default();
        assert_eq!(c.validate(), Ok(()));
        assert!(!c.playout_cap());
        assert_eq!(c.leaf_teacher_note(), "");
        let c = SelfplayConfig { leaf_teacher: 0.5, ..SelfplayConfig::default() };
        assert_eq!(c.leaf_teacher_note(), "; leaf values mixed with the alpha-beta capture search at 0.5 (scale 600)");
        assert_eq!(c.opponent_note(), "");
        let c = SelfplayConfig { opponent_games: 0.25, opponent_depth: 2, ..SelfplayConfig::default() };
        assert_eq!(c.opponent_note(), "; 25% of games against alpha-beta depth 2 (its moves recorded as samples)");
        assert_eq!(c.opening_note(), "");
        let c = SelfplayConfig { opening_plies: 6, ..SelfplayConfig::default() };
        assert_eq!(c.opening_note(), "; each game opens with 0 to 6 random plies");
        let c = SelfplayConfig { opponent_games: 0.5, opponent_samples: false, ..SelfplayConfig::default() };
        assert_eq!(c.opponent_note(), "; 50% of games against alpha-beta depth 1");
    }

    #[test]
    fn out_of_range_is_named() {
        let c = SelfplayConfig { fast_simulations: 300, ..SelfplayConfig::default() };
        let e = c.validate().expect_err("fast above full");
        assert_eq!(e.field, "fast_simulations");
        assert_eq!(e.to_string(), "selfplay.fast_simulations = 300 is outside its range [0, 200]");
        let c = SelfplayConfig { full_search_fraction: 0.0, ..SelfplayConfig::default() };
        assert_eq!(c.validate().map_err(|e| e.field), Err("full_search_fraction"));
        let c = SelfplayConfig { no_resign_fraction: f32::NAN, ..SelfplayConfig::default() };
        assert_eq!(c.validate().map_err(|e| e.field), Err("no_resign_fraction"));
        let c = SelfplayConfig { games_in_flight: 0, ..SelfplayConfig::default() };
        assert_eq!(c.validate().map_err(|e| e.field), Err("games_in_flight"));
        let c = SelfplayConfig { leaf_teacher: 1.5, ..SelfplayConfig::default() };
        assert_eq!(
            c.validate().map_err(|e| e.to_string()),
            Err("selfplay.leaf_teacher = 1.5 is outside its range [0, 1]".into())
        );
        let c = SelfplayConfig { leaf_teacher_scale: 0.0, ..SelfplayConfig::default() };
        assert_eq!(c.validate().map_err(|e| e.field), Err("leaf_teacher_scale"));
        let c = SelfplayConfig { opponent_games: 1.5, ..SelfplayConfig::default() };
        assert_eq!(c.validate().map_err(|e| e.field), Err("opponent_games"));
        let c = SelfplayConfig { opponent_depth: 0, ..SelfplayConfig::default() };
        assert_eq!(c.validate().map_err(|e| e.field), Err("opponent_depth"));
        let c = SelfplayConfig { opening_plies: 41, ..SelfplayConfig::default() };
        assert_eq!(c.validate().map_err(|e| e.field), Err("opening_plies"));
    }
}
