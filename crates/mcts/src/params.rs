//! [`MctsParams`]: every tunable of the search, one documented field each (unit, default, range).
//!
//! The struct is what a config preset's `[mcts]` table deserialises into: unknown keys are an
//! error (`deny_unknown_fields`) and missing ones take the defaults below (`default`).
//! [`MctsParams::validate`] checks the ranges; the search itself never panics on a bad value but
//! clamps what it must (a `leaves_per_batch` of 0 acts as 1).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The search parameters. Defaults suit self-play with a net; presets override per game
/// (Dirichlet alpha in particular, which should shrink as the number of legal moves grows).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MctsParams {
    /// Exploration constant of PUCT: `U = c_puct * P * sqrt(sum N) / (1 + N)`, on the value
    /// scale [-1, 1]. Unitless. Default 1.5; range (0, 10].
    pub c_puct: f32,
    /// First-play urgency below the root: an unvisited move's Q is the node's own Q minus this
    /// times the square root of the prior mass of the moves already visited (Leela's form).
    /// Value units. Default 0.25; range [0, 2]. 0 values unvisited moves like their parent.
    pub fpu_reduction: f32,
    /// First-play urgency at the root, as [`MctsParams::fpu_reduction`]. Default 0.0 (every root
    /// move gets tried early, which self-play with noise wants); range [0, 2].
    pub fpu_reduction_root: f32,
    /// Dirichlet noise concentration at the root ([`crate::Search::add_root_noise`]). Default 0.3
    /// (AlphaZero chess, about 35 moves; draughts with about 10 moves wants nearer 1.0);
    /// range (0, 10].
    pub dirichlet_alpha: f32,
    /// Weight of the noise in the root priors: `P = (1 - eps) * P + eps * noise`. Default 0.25;
    /// range [0, 1]; 0 disables the noise.
    pub dirichlet_epsilon: f32,
    /// Value of a virtual visit: while a leaf waits for the evaluator, every edge on its path
    /// counts one extra visit worth `-virtual_loss` to the mover, steering the other leaves of
    /// the same batch elsewhere. Value units. Default 1.0; range [0, 10].
    pub virtual_loss: f32,
    /// Leaves one tree gathers per evaluator call (with virtual loss) before it stops and lets
    /// the batch go. A collision (reaching a leaf already waiting) ends a tree's gathering early.
    /// Larger batches are cheaper per position for a net but make the search less sharp.
    /// Count. Default 8; range [1, 1024]. With many trees ([`crate::search_many`]) 1-4 is usual.
    pub leaves_per_batch: u32,
    /// Move-selection temperature for the opening plies: moves are sampled with probability
    /// proportional to `N^(1/T)`. With the Gumbel root (in self-play) the root's Gumbel draws
    /// are scaled by `T` instead, so the plan runs on `(log P + sigma(Q)) / T`: the moves
    /// considered are a sample from `P^(1/T)` and the move played one from about
    /// `softmax((log P + sigma(Q)) / T)`; 1 is the paper's search, higher spreads the games of
    /// a net whose priors have collapsed onto one move; the policy target is the untempered
    /// improved policy either way. Default 1.0; range [0, 10]; 0 plays the most visited move
    /// (with the Gumbel root, the plan's greedy choice).
    pub temperature: f32,
    /// Plies of the game (counted by [`game::Game::ply`], from the start of its history) played
    /// with [`MctsParams::temperature`]; later plies use [`MctsParams::final_temperature`].
    /// Plies. Default 30; range [0, 10000].
    pub temperature_plies: u32,
    /// Move-selection temperature after [`MctsParams::temperature_plies`]. Default 0.0 (most
    /// visits); range [0, 10].
    pub final_temperature: f32,
    /// How the root chooses where simulations go: [`Root::Puct`] (with Dirichlet noise when
    /// asked for) or [`Root::Gumbel`] (Gumbel-Top-k and Sequential Halving, see
    /// [`crate::Search::start_gumbel`]). Below the root the search is PUCT either way. Default
    /// `"puct"`.
    pub root: Root,
    /// Gumbel root: the most moves considered (m = min(this, legal moves)); the paper's 16.
    /// Count. Default 16; range [1, 256].
    pub gumbel_considered: u32,
    /// Gumbel root: `c_visit` of `sigma(q) = (c_visit + max N) * c_scale * q`, with q the
    /// completed Q mapped to [0, 1]. Visits. Default 50; range [0, 10000].
    pub gumbel_c_visit: f32,
    /// Gumbel root: `c_scale` of the same transform. Unitless. Default 1.0 (the paper's board
    /// games; mctx's Atari default is 0.1); range (0, 100].
    pub gumbel_c_scale: f32,
    /// What completing a draw by repetition costs the side that completes it, in the search
    /// only: such a position is worth `+repetition_penalty` to the side to move there (the
    /// opponent of the repeater) instead of an exact 0, and it is no longer a proven draw. Zero-
    /// sum, so both players steer away from repeating; the game itself still ends drawn and its
    /// value target stays 0. Meant for self-play, where nets whose values all sit near 0 drift
    /// into shuffling pieces. Value units. Default 0.0 (a repetition is an exact draw); range
    /// [0, 1].
    pub repetition_penalty: f32,
    /// Look one move ahead at every new node, as the root always does: play each of its legal
    /// moves once and record the ones that end the game (mate, a rule loss, a draw) as proofs.
    /// A node where the side to move can mate is then proven won and never evaluated, so the
    /// search sees a mate threat behind a move the first time it visits the move, whatever
    /// prior the net gives the mating reply. Costs one play and one result per legal move of
    /// each new node (about 40 in xiangqi), no net evaluation. Default false.
    pub prove_leaves: bool,
}

/// The root's move selection ([`MctsParams::root`]), written `"puct"` or `"gumbel"` in a config.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Root {
    /// PUCT at the root as everywhere; the policy target is the visit distribution.
    #[default]
    Puct,
    /// Gumbel AlphaZero's root: the policy target is the improved policy.
    Gumbel,
}

impl Default for MctsParams {
    fn default() -> MctsParams {
        MctsParams {
            c_puct: 1.5,
            fpu_reduction: 0.25,
            fpu_reduction_root: 0.0,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.25,
            virtual_loss: 1.0,
            leaves_per_batch: 8,
            temperature: 1.0,
            temperature_plies: 30,
            final_temperature: 0.0,
            root: Root::Puct,
            gumbel_considered: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 1.0,
            repetition_penalty: 0.0,
            prove_leaves: false,
        }
    }
}

/// A parameter outside its documented range.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamsError {
    /// The field's name, as in the config file.
    pub field: &'static str,
    /// The rejected value.
    pub value: f64,
    /// The allowed range, in words.
    pub range: &'static str,
}

impl fmt::Display for ParamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mcts.{} = {} is outside its range {}", self.field, self.value, self.range)
    }
}

impl std::error::Error for ParamsError {}

impl MctsParams {
    /// The temperature for choosing the move at game ply `ply`.
    #[must_use]
    pub fn temperature_at(&self, ply: usize) -> f32 {
        if ply < self.temperature_plies as usize { self.temperature } else { self.final_temperature }
    }

    /// The mover's value of completing a charged repetition: minus
    /// [`MctsParams::repetition_penalty`].
    #[must_use]
    pub(crate) fn repetition_value(&self) -> f32 {
        -self.repetition_penalty
    }

    /// Checks every field against its documented range.
    ///
    /// # Errors
    /// The first field found outside its range (NaN is outside every range).
    pub fn validate(&self) -> Result<(), ParamsError> {
        let check = |field, value: f64, lo: f64, lo_open: bool, hi: f64, range| {
            let above_lo = if lo_open { value > lo } else { value >= lo };
            if above_lo && value <= hi { Ok(()) } else { Err(ParamsError { field, value, range }) }
        };
        check("c_puct", self.c_puct.into(), 0.0, true, 10.0, "(0, 10]")?;
        check("fpu_reduction", self.fpu_reduction.into(), 0.0, false, 2.0, "[0, 2]")?;
        check("fpu_reduction_root", self.fpu_reduction_root.into(), 0.0, false, 2.0, "[0, 2]")?;
        check("dirichlet_alpha", self.dirichlet_alpha.into(), 0.0, true, 10.0, "(0, 10]")?;
        check("dirichlet_epsilon", self.dirichlet_epsilon.into(), 0.0, false, 1.0, "[0, 1]")?;
        check("virtual_loss", self.virtual_loss.into(), 0.0, false, 10.0, "[0, 10]")?;
        check("leaves_per_batch", self.leaves_per_batch.into(), 1.0, false, 1024.0, "[1, 1024]")?;
        check("temperature", self.temperature.into(), 0.0, false, 10.0, "[0, 10]")?;
        check("temperature_plies", self.temperature_plies.into(), 0.0, false, 10_000.0, "[0, 10000]")?;
        check("final_temperature", self.final_temperature.into(), 0.0, false, 10.0, "[0, 10]")?;
        check("gumbel_considered", self.gumbel_considered.into(), 1.0, false, 256.0, "[1, 256]")?;
        check("gumbel_c_visit", self.gumbel_c_visit.into(), 0.0, false, 10_000.0, "[0, 10000]")?;
        check("gumbel_c_scale", self.gumbel_c_scale.into(), 0.0, true, 100.0, "(0, 100]")?;
        check("repetition_penalty", self.repetition_penalty.into(), 0.0, false, 1.0, "[0, 1]")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_schedule_switches() {
        let p = MctsParams::default();
        assert_eq!(p.validate(), Ok(()));
        assert_eq!(p.temperature_at(0), 1.0);
        assert_eq!(p.temperature_at(29), 1.0);
        assert_eq!(p.temperature_at(30), 0.0);
    }

    #[test]
    fn out_of_range_is_named() {
        let p = MctsParams { c_puct: 0.0, ..MctsParams::default() };
        assert_eq!(p.validate().map_err(|e| e.field), Err("c_puct"));
        let p = MctsParams { dirichlet_epsilon: f32::NAN, ..MctsParams::default() };
        assert_eq!(p.validate().map_err(|e| e.field), Err("dirichlet_epsilon"));
        let p = MctsParams { leaves_per_batch: 0, ..MctsParams::default() };
        let e = p.validate().expect_err("0 leaves");
        assert_eq!(e.to_string(), "mcts.leaves_per_batch = 0 is outside its range [1, 1024]");
    }

    #[test]
    fn serde_fills_defaults_and_rejects_unknown_fields() {
        let p: MctsParams = serde_json::from_str(r#"{"c_puct": 2.0}"#).expect("parses");
        assert_eq!(p, MctsParams { c_puct: 2.0, ..MctsParams::default() });
        assert!(serde_json::from_str::<MctsParams>(r#"{"cpuct": 2.0}"#).is_err());
        let g: MctsParams = serde_json::from_str(r#"{"root": "gumbel"}"#).expect("parses");
        assert_eq!(g.root, Root::Gumbel);
        assert!(serde_json::from_str::<MctsParams>(r#"{"root": "uct"}"#).is_err());
        let back: MctsParams = serde_json::from_str(&serde_json::to_string(&p).expect("writes")).expect("round trip");
        assert_eq!(back, p);
    }
}
