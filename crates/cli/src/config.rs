//! The run configuration: one TOML preset (`configs/*.toml`) with a table per component, plus
//! `--set key=value` overrides, written into the run directory as `config.toml`.
//!
//! Every table is the serde struct of the component that uses it, with `deny_unknown_fields`, so
//! a misspelt key is an error naming it. A table left out takes that component's defaults.
//!
//! ```toml
//! game = "xiangqi"   # or "draughts"
//! seed = 1           # every random choice of the run derives from it
//! [net]              # nn::NetConfig
//! [mcts]             # mcts::MctsParams
//! [inference]        # nn::ServiceConfig
//! [selfplay]         # selfplay::SelfplayConfig
//! [train]            # train::TrainConfig
//! [arena]            # arena::ArenaConfig
//! [run]              # RunSchedule: generations of `qizero run`
//! ```

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::path::Path;

use crate::GameName;

/// The whole effective configuration of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// The game: `xiangqi` or `draughts`.
    pub game: GameName,
    /// The run's seed. Default 1.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// The policy-value net.
    #[serde(default)]
    pub net: nn::NetConfig,
    /// The tree search.
    #[serde(default)]
    pub mcts: mcts::MctsParams,
    /// The batching inference service.
    #[serde(default)]
    pub inference: nn::ServiceConfig,
    /// Self-play.
    #[serde(default)]
    pub selfplay: selfplay::SelfplayConfig,
    /// Training.
    #[serde(default)]
    pub train: train::TrainConfig,
    /// Rating checkpoints.
    #[serde(default)]
    pub arena: arena::ArenaConfig,
    /// The generations of `qizero run`.
    #[serde(default)]
    pub run: RunSchedule,
}

/// Which checkpoint self-play plays with under `qizero run`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SelfplayModel {
    /// The newest generation's checkpoint (AlphaZero).
    Latest,
    /// The checkpoint that last passed the arena's gate (AlphaGo Zero).
    Best,
}

/// The `[run]` table: how `qizero run` cuts the work into generations. A generation is
/// `games_per_generation` self-play games, then training up to the next multiple of
/// `train.checkpoint_every` steps (that checkpoint is the generation's), then the arena.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunSchedule {
    /// Generations to run, counted from the run's start (a resumed run finishes the same
    /// number); 0 = until Ctrl-C. Default 0.
    pub generations: u64,
    /// Self-play games per generation. Default 500, range 1..=10^9.
    pub games_per_generation: u64,
    /// Which checkpoint self-play plays with: `latest` or `best`. Default `latest`.
    pub selfplay_model: SelfplayModel,
    /// Rate every n-th generation in the arena (generation 0 and the last one always). Default
    /// 1, range 1..=10^6.
    pub arena_every: u64,
    /// Stop starting generations when the next one would end after this many minutes of this
    /// command (judged by the mean generation so far); 0 = no limit. Default 0.
    pub max_minutes: f64,
    /// libtorch threads while training (self-play and the arena use `net.cpu_threads`); 0 = one
    /// per core. Default 0.
    pub train_threads: usize,
}

impl Default for RunSchedule {
    fn default() -> RunSchedule {
        RunSchedule {
            generations: 0,
            games_per_generation: 500,
            selfplay_model: SelfplayModel::Latest,
            arena_every: 1,
            max_minutes: 0.0,
            train_threads: 0,
        }
    }
}

impl RunSchedule {
    /// Checks the ranges.
    ///
    /// # Errors
    /// The first value out of range, named.
    pub fn validate(&self) -> Result<()> {
        if !(1..=1_000_000_000).contains(&self.games_per_generation) {
            bail!("run.games_per_generation = {} is outside 1..=10^9", self.games_per_generation);
        }
        if !(self.max_minutes >= 0.0 && self.max_minutes.is_finite()) {
            bail!("run.max_minutes = {} must be 0 or more", self.max_minutes);
        }
        if !(1..=1_000_000).contains(&self.arena_every) {
            bail!("run.arena_every = {} is outside 1..=10^6", self.arena_every);
        }
        Ok(())
    }
}

fn default_seed() -> u64 {
    1
}

/// Reads the preset at `path` and applies `overrides` (`key=value`, dotted keys such as
/// `mcts.c_puct=2.0`; the value is read as TOML, and as a string if that fails).
///
/// # Errors
/// An unreadable file, bad TOML, a bad override, an unknown key or a value of the wrong type,
/// each naming the file or the override.
pub fn load(path: &Path, overrides: &[String]) -> Result<RunConfig> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading config {}", path.display()))?;
    parse(&text, overrides).with_context(|| format!("config {}", path.display()))
}

/// [`load`] on TOML text.
///
/// # Errors
/// As [`load`].
pub fn parse(text: &str, overrides: &[String]) -> Result<RunConfig> {
    let mut value: toml::Table = toml::from_str(text).context("bad TOML")?;
    for o in overrides {
        apply_override(&mut value, o)?;
    }
    let config: RunConfig = toml::Value::Table(value).try_into().context("bad configuration")?;
    config.net.validate().map_err(anyhow::Error::msg)?;
    config.inference.validate().map_err(anyhow::Error::msg)?;
    config.mcts.validate().map_err(|e| anyhow::anyhow!("{e}"))?;
    config.selfplay.validate()?;
    config.train.validate()?;
    config.arena.validate()?;
    config.run.validate()?;
    Ok(config)
}

fn apply_override(table: &mut toml::Table, text: &str) -> Result<()> {
    let Some((key, raw)) = text.split_once('=') else { bail!("bad --set '{text}': expected key=value") };
    let key = key.trim();
    let raw = raw.trim();
    let parsed: toml::Value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_owned()));
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        bail!("bad --set '{text}': empty key part");
    }
    let mut t = table;
    for part in &parts[..parts.len() - 1] {
        let entry = t.entry((*part).to_owned()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = entry.as_table_mut().with_context(|| format!("bad --set '{text}': '{part}' is not a table"))?;
    }
    t.insert(parts[parts.len() - 1].to_owned(), parsed);
    Ok(())
}

/// The effective config as TOML text.
///
/// # Errors
/// Never in practice (every field serialises).
pub fn to_toml(config: &RunConfig) -> Result<String> {
    toml::to_string_pretty(config).context("writing the config as TOML")
}

/// Makes the run directory (and its sub-directories) and writes `config.toml` into it. If the run
/// directory already has a `config.toml`, it must say the same as `config`: a run keeps one
/// configuration, so resuming with other settings is refused with the difference named.
///
/// # Errors
/// I/O errors, or a run directory made with another configuration.
pub fn prepare_run_dir(run: &Path, config: &RunConfig) -> Result<()> {
    for sub in ["shards", "checkpoints", "arena", "plots"] {
        std::fs::create_dir_all(run.join(sub)).with_context(|| format!("creating {}", run.join(sub).display()))?;
    }
    let path = run.join("config.toml");
    let text = to_toml(config)?;
    if path.exists() {
        let old = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let old: RunConfig = parse(&old, &[]).with_context(|| format!("reading {}", path.display()))?;
        if &old != config {
            let (a, b) = (to_toml(&old)?, text);
            let diff: Vec<String> = a
                .lines()
                .zip(b.lines())
                .filter(|(x, y)| x != y)
                .map(|(x, y)| format!("  run has `{x}`, asked for `{y}`"))
                .collect();
            bail!(
                "{} was made with another configuration:\n{}\nuse a new run directory, or the same config",
                path.display(),
                diff.join("\n")
            );
        }
        return Ok(());
    }
    let tmp = run.join(".config.toml.tmp");
    std::fs::write(&tmp, &text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_overrides_and_errors() {
        let c = parse("game = \"draughts\"\n[mcts]\nc_puct = 2.0\n", &[]).expect("parses");
        assert_eq!(c.game, GameName::Draughts);
        assert_eq!(c.seed, 1);
        assert_eq!(c.mcts.c_puct, 2.0);
        assert_eq!(c.net, nn::NetConfig::default());
        let c = parse("game = \"xiangqi\"", &["net.blocks=3".into(), "net.device=cpu".into(), "seed=9".into()])
            .expect("overrides");
        assert_eq!((c.net.blocks, c.net.device.as_str(), c.seed), (3, "cpu", 9));
        let e = parse("game = \"xiangqi\"\n[mcts]\ncpuct = 2.0\n", &[]).expect_err("unknown key");
        assert!(format!("{e:#}").contains("cpuct"), "{e:#}");
        let e = parse("game = \"chess\"", &[]).expect_err("unknown game");
        assert!(format!("{e:#}").contains("chess"), "{e:#}");
        let e = parse("game = \"xiangqi\"", &["net.blocks".into()]).expect_err("no value");
        assert!(format!("{e:#}").contains("key=value"), "{e:#}");
        let e = parse("game = \"xiangqi\"", &["net.blocks=0".into()]).expect_err("out of range");
        assert!(format!("{e:#}").contains("blocks"), "{e:#}");
    }

    #[test]
    fn run_dir_keeps_one_config() {
        let dir = std::env::temp_dir().join(format!("qizero-config-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let c = parse("game = \"xiangqi\"", &[]).expect("parses");
        prepare_run_dir(&dir, &c).expect("fresh");
        prepare_run_dir(&dir, &c).expect("same again");
        assert!(dir.join("shards").is_dir() && dir.join("checkpoints").is_dir());
        let other = parse("game = \"xiangqi\"", &["seed=2".into()]).expect("parses");
        let e = prepare_run_dir(&dir, &other).expect_err("other config");
        assert!(format!("{e:#}").contains("seed"), "{e:#}");
        let back = load(&dir.join("config.toml"), &[]).expect("written config reads back");
        assert_eq!(back, c);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Every preset shipped in configs/ parses, validates, and names the game its file name says.
    #[test]
    fn every_preset_parses() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).expect("configs/ lists") {
            let path = entry.expect("entry").path();
            if path.extension().is_none_or(|e| e != "toml") {
                continue;
            }
            let c = load(&path, &[]).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            let game = if c.game == GameName::Xiangqi { "xiangqi" } else { "draughts" };
            assert!(name.starts_with(game), "{name} plays {game}");
            seen += 1;
        }
        assert!(seen >= 2, "the tiny presets are there");
    }
}
