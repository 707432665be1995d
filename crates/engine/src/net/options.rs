//! The net searcher's options ([`NET_OPTIONS`]): one table with each option's UCI name, Hub
//! name, type and range, which both servers list in their handshakes and set through
//! [`NetSearcher::set_option`].

use super::{MAX_BATCH, MAX_MOVE_OVERHEAD_MS, MAX_NET_THREADS, MAX_VISITS, NetSearcher, NetSettings};
use game::Game;
use std::path::PathBuf;
use std::time::Duration;

/// The type and range of a [`NetOption`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum OptionKind {
    /// A whole number in `min..=max`.
    Int {
        /// Smallest value.
        min: u64,
        /// Largest value.
        max: u64,
    },
    /// A real number in `min..=max` (UCI, which has no such type, lists it as a string).
    Real {
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
    },
    /// `true` or `false`.
    Bool,
    /// A file path.
    Path,
}

/// One option of the net searcher: its UCI name, its Hub name, its type and range.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct NetOption {
    /// The UCI (and UCCI) name.
    pub uci: &'static str,
    /// The Hub name.
    pub hub: &'static str,
    /// Type and range.
    pub kind: OptionKind,
}

/// Every option of the net searcher, in the order the handshakes list them.
pub const NET_OPTIONS: [NetOption; 12] = [
    NetOption { uci: "WeightsFile", hub: "weights", kind: OptionKind::Path },
    NetOption { uci: "Simulations", hub: "simulations", kind: OptionKind::Int { min: 1, max: MAX_VISITS as u64 } },
    NetOption { uci: "CPuct", hub: "c-puct", kind: OptionKind::Real { min: 0.01, max: 10.0 } },
    NetOption { uci: "MinibatchSize", hub: "batch", kind: OptionKind::Int { min: 1, max: MAX_BATCH as u64 } },
    NetOption { uci: "Threads", hub: "threads", kind: OptionKind::Int { min: 1, max: MAX_NET_THREADS as u64 } },
    NetOption { uci: "Temperature", hub: "temperature", kind: OptionKind::Real { min: 0.0, max: 10.0 } },
    NetOption { uci: "TempPlies", hub: "temp-plies", kind: OptionKind::Int { min: 0, max: 10_000 } },
    NetOption { uci: "TreeReuse", hub: "tree-reuse", kind: OptionKind::Bool },
    NetOption { uci: "GumbelRoot", hub: "gumbel-root", kind: OptionKind::Bool },
    NetOption { uci: "GumbelConsidered", hub: "gumbel-considered", kind: OptionKind::Int { min: 1, max: 256 } },
    NetOption { uci: "ProveLeaves", hub: "prove-leaves", kind: OptionKind::Bool },
    NetOption {
        uci: "MoveOverhead",
        hub: "move-overhead",
        kind: OptionKind::Int { min: 0, max: MAX_MOVE_OVERHEAD_MS },
    },
];

/// The option named `name` (its UCI or Hub name, any case).
#[must_use]
pub fn net_option(name: &str) -> Option<NetOption> {
    NET_OPTIONS.into_iter().find(|o| o.uci.eq_ignore_ascii_case(name) || o.hub.eq_ignore_ascii_case(name))
}

impl NetOption {
    /// Reads `value` as this option's type, within its range.
    fn read(self, value: &str) -> Result<OptionValue, String> {
        let bad = |what: String| format!("{} must be {what}, not {}", self.uci, crate::protocol::quoted(value));
        match self.kind {
            OptionKind::Int { min, max } => match value.parse::<u64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(OptionValue::Int(n)),
                _ => Err(bad(format!("a whole number {min}-{max}"))),
            },
            OptionKind::Real { min, max } => match value.parse::<f64>() {
                Ok(x) if x.is_finite() && (min..=max).contains(&x) => Ok(OptionValue::Real(x)),
                _ => Err(bad(format!("a number {min}-{max}"))),
            },
            OptionKind::Bool => match value.to_ascii_lowercase().as_str() {
                "true" => Ok(OptionValue::Bool(true)),
                "false" => Ok(OptionValue::Bool(false)),
                _ => Err(bad("true or false".to_string())),
            },
            OptionKind::Path if value.trim().is_empty() => Err(bad("a file path".to_string())),
            OptionKind::Path => Ok(OptionValue::Path(PathBuf::from(value.trim()))),
        }
    }
}

/// A value read by [`NetOption::read`].
enum OptionValue {
    Int(u64),
    Real(f64),
    Bool(bool),
    Path(PathBuf),
}

impl<G: Game> NetSearcher<G> {
    /// The current value of `option`, as the handshakes write it (`None` for weights that did
    /// not come from a file).
    #[must_use]
    pub fn option_value(&self, option: NetOption) -> Option<String> {
        let s = &self.settings;
        Some(match option.uci {
            "WeightsFile" => return self.weights.as_ref().map(|p| p.display().to_string()),
            "Simulations" => s.simulations.to_string(),
            "CPuct" => s.c_puct.to_string(),
            "MinibatchSize" => s.batch.to_string(),
            "Threads" => s.threads.to_string(),
            "Temperature" => s.temperature.to_string(),
            "TempPlies" => s.temperature_plies.to_string(),
            "TreeReuse" => s.tree_reuse.to_string(),
            "GumbelRoot" => s.gumbel_root.to_string(),
            "GumbelConsidered" => s.gumbel_considered.to_string(),
            "ProveLeaves" => s.prove_leaves.to_string(),
            "MoveOverhead" => s.move_overhead.as_millis().to_string(),
            _ => return None,
        })
    }

    /// Sets `option` from `value` (checked against its type and range).
    ///
    /// # Errors
    /// A message naming the option and the accepted values, or the loader's message for
    /// weights and threads; nothing changes then.
    pub fn set_option(&mut self, option: NetOption, value: &str) -> Result<(), String> {
        let value = option.read(value)?;
        // The ranges are checked above, so the narrowing conversions below are exact.
        let change: Box<dyn FnOnce(&mut NetSettings)> = match (option.uci, value) {
            ("WeightsFile", OptionValue::Path(p)) => return self.set_weights(&p),
            ("Threads", OptionValue::Int(n)) => return self.set_threads(n as usize),
            ("Simulations", OptionValue::Int(n)) => Box::new(move |s| s.simulations = n as u32),
            ("CPuct", OptionValue::Real(x)) => Box::new(move |s| s.c_puct = x as f32),
            ("MinibatchSize", OptionValue::Int(n)) => Box::new(move |s| s.batch = n as u32),
            ("Temperature", OptionValue::Real(x)) => Box::new(move |s| s.temperature = x as f32),
            ("TempPlies", OptionValue::Int(n)) => Box::new(move |s| s.temperature_plies = n as u32),
            ("TreeReuse", OptionValue::Bool(b)) => Box::new(move |s| s.tree_reuse = b),
            ("GumbelRoot", OptionValue::Bool(b)) => Box::new(move |s| s.gumbel_root = b),
            ("GumbelConsidered", OptionValue::Int(n)) => Box::new(move |s| s.gumbel_considered = n as u32),
            ("ProveLeaves", OptionValue::Bool(b)) => Box::new(move |s| s.prove_leaves = b),
            ("MoveOverhead", OptionValue::Int(n)) => Box::new(move |s| s.move_overhead = Duration::from_millis(n)),
            _ => return Err(format!("{}: not a setting of this engine", option.uci)),
        };
        self.set(change);
        Ok(())
    }
}
