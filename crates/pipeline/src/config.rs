//! The run configuration: one TOML preset (`configs/*.toml`) with a table per component, plus
//! `--set key=value` overrides, written into the run directory as `config.toml` (through
//! [`durable::write_atomic`]; a run keeps one configuration).
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
//! [slurm]            # crate::slurm::SlurmConfig: the job scripts of `qizero slurm`
//! ```
//!
//! `[slurm]` says how a run is deployed, not what it computes: it may change between
//! submissions of one run, so [`check_same`] leaves it out.

use crate::error::PipelineError;
use crate::run_dir::RunDir;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Duration;

/// Largest config file read: presets are a few kilobytes.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

type Result<T> = std::result::Result<T, PipelineError>;

fn bad(message: impl Into<String>) -> PipelineError {
    PipelineError::Config(message.into())
}

/// Which game a run plays.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameName {
    /// Xiangqi (Chinese chess).
    Xiangqi,
    /// International draughts (10x10, FMJD rules).
    Draughts,
}

impl GameName {
    /// The game's name as [`game::Game::NAME`] writes it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            GameName::Xiangqi => "xiangqi",
            GameName::Draughts => "draughts",
        }
    }
}

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
    /// The job scripts of `qizero slurm` (deployment only; see the module docs).
    #[serde(default)]
    pub slurm: crate::slurm::SlurmConfig,
}

impl RunConfig {
    /// Whether `qizero run` fits the cosine schedule to the steps it expects to take
    /// (`run.fit_cosine`, or `train.cosine_steps = 0`), rather than following `cosine_steps`.
    #[must_use]
    pub fn fits_cosine(&self) -> bool {
        self.train.schedule == train::Schedule::Cosine && (self.run.fit_cosine || self.train.cosine_steps == 0)
    }
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
    /// command (judged by the generations so far of its kind: with the arena or without); 0 = no
    /// limit. Default 0, range 0..=525,600 (a year).
    pub max_minutes: f64,
    /// libtorch threads while training (self-play and the arena use `net.cpu_threads`); 0 = one
    /// per core. Default 0.
    pub train_threads: usize,
    /// Fit the cosine learning-rate schedule to the steps this run expects to take (from
    /// `generations` and `max_minutes`), whatever `train.cosine_steps` says; a standalone
    /// `qizero train` on the same config follows `cosine_steps`. `train.cosine_steps = 0` fits
    /// it too. Default false.
    pub fit_cosine: bool,
}

/// The longest time budget `run.max_minutes` takes: a year (0 means no limit at all).
pub const MAX_MINUTES: f64 = 525_600.0;

impl Default for RunSchedule {
    fn default() -> RunSchedule {
        RunSchedule {
            generations: 0,
            games_per_generation: 500,
            selfplay_model: SelfplayModel::Latest,
            arena_every: 1,
            max_minutes: 0.0,
            train_threads: 0,
            fit_cosine: false,
        }
    }
}

impl RunSchedule {
    /// Whether the arena rates generation `g`: generation 0, every `arena_every`-th and the
    /// last of a counted run.
    #[must_use]
    pub fn arena_due(&self, g: u64) -> bool {
        g == 0 || g % self.arena_every == 0 || g == self.generations
    }

    /// Whether a generation expected to take `next` may start `elapsed` into the run: it ends
    /// within `max_minutes`, or there is no limit.
    #[must_use]
    pub fn within_budget(&self, elapsed: Duration, next: Duration) -> bool {
        self.max_minutes <= 0.0 || elapsed + next <= Duration::from_secs_f64(60.0 * self.max_minutes)
    }

    /// Checks the ranges.
    ///
    /// # Errors
    /// The first value out of range, named.
    pub fn validate(&self) -> Result<()> {
        if !(1..=1_000_000_000).contains(&self.games_per_generation) {
            return Err(bad(format!("run.games_per_generation = {} is outside 1..=10^9", self.games_per_generation)));
        }
        if !(0.0..=MAX_MINUTES).contains(&self.max_minutes) {
            return Err(bad(format!(
                "run.max_minutes = {} is outside 0..={MAX_MINUTES} (0 = no limit; the most is a year)",
                self.max_minutes
            )));
        }
        if !(1..=1_000_000).contains(&self.arena_every) {
            return Err(bad(format!("run.arena_every = {} is outside 1..=10^6", self.arena_every)));
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
/// An unreadable file (not a regular file, over [`MAX_CONFIG_BYTES`], not UTF-8), bad TOML, a bad
/// override, an unknown key or a value of the wrong type, each naming the file or the override.
pub fn load(path: &Path, overrides: &[String]) -> Result<RunConfig> {
    let text = durable::read_text_bounded(path, MAX_CONFIG_BYTES).map_err(|e| bad(format!("config: {e}")))?;
    parse(&text, overrides).map_err(|e| bad(format!("config {}: {e}", path.display())))
}

/// [`load`] on TOML text.
///
/// # Errors
/// As [`load`].
pub fn parse(text: &str, overrides: &[String]) -> Result<RunConfig> {
    let mut value: toml::Table = toml::from_str(text).map_err(|e| bad(format!("bad TOML: {e}")))?;
    for o in overrides {
        apply_override(&mut value, o)?;
    }
    let config: RunConfig = toml::Value::Table(value).try_into().map_err(|e| bad(format!("bad configuration: {e}")))?;
    config.net.validate().map_err(bad)?;
    let encoding = match config.game {
        GameName::Xiangqi => <xiangqi::Game as encode::Encode>::ENCODING,
        GameName::Draughts => <draughts::Game as encode::Encode>::ENCODING,
    };
    if config.net.feature_planes && encoding.feature_planes() == 0 {
        return Err(bad(format!(
            "net.feature_planes = true, but the {} encoding ({}) has no feature planes",
            config.game.as_str(),
            encoding.id
        )));
    }
    config.inference.validate().map_err(bad)?;
    config.mcts.validate().map_err(|e| bad(e.to_string()))?;
    config.selfplay.validate().map_err(|e| bad(e.to_string()))?;
    config.train.validate().map_err(|e| bad(e.to_string()))?;
    config.arena.validate().map_err(|e| bad(e.to_string()))?;
    config.run.validate()?;
    if config.run.fit_cosine && config.train.schedule != train::Schedule::Cosine {
        return Err(bad(format!(
            "run.fit_cosine = true fits a cosine schedule to the run, but train.schedule is \"{}\": set \
             train.schedule = \"cosine\" or run.fit_cosine = false",
            config.train.schedule
        )));
    }
    if config.fits_cosine() && config.run.generations == 0 && config.run.max_minutes == 0.0 {
        let why = if config.run.fit_cosine { "run.fit_cosine = true" } else { "train.cosine_steps = 0" };
        return Err(bad(format!(
            "{why} fits the cosine to the run's length, but the run has none: set run.generations or \
             run.max_minutes, or give train.cosine_steps a number of steps and set run.fit_cosine = false"
        )));
    }
    config.slurm.validate().map_err(bad)?;
    Ok(config)
}

fn apply_override(table: &mut toml::Table, text: &str) -> Result<()> {
    let Some((key, raw)) = text.split_once('=') else {
        return Err(bad(format!("bad --set '{text}': expected key=value")));
    };
    let key = key.trim();
    let raw = raw.trim();
    let parsed: toml::Value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_owned()));
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(bad(format!("bad --set '{text}': empty key part")));
    }
    let mut t = table;
    for part in &parts[..parts.len() - 1] {
        let entry = t.entry((*part).to_owned()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = entry.as_table_mut().ok_or_else(|| bad(format!("bad --set '{text}': '{part}' is not a table")))?;
    }
    t.insert(parts[parts.len() - 1].to_owned(), parsed);
    Ok(())
}

/// The effective config as TOML text.
///
/// Settings held as `f32` are written as the user wrote them (`0.3`), not as the `f64` the TOML
/// writer widens them to (`0.30000001192092896`): see [`shortest_float`].
///
/// # Errors
/// Never in practice (every field serialises).
pub fn to_toml(config: &RunConfig) -> Result<String> {
    let text = toml::to_string_pretty(config).map_err(|e| bad(format!("writing the config as TOML: {e}")))?;
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        match line.split_once(" = ") {
            Some((key, value)) if !key.trim_start().starts_with('#') => {
                out.push_str(key);
                out.push_str(" = ");
                out.push_str(&shortest_float(value).unwrap_or_else(|| value.to_owned()));
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    Ok(out)
}

/// The shortest decimal of a float that is exactly an `f32`, when `value` is one written at
/// `f64` length: `0.30000001192092896` becomes `0.3`. It reads back, as `f32`, to the same
/// number. `None` for anything else (integers, strings, floats that are not exactly an `f32`,
/// such as an `f64` learning rate of `0.002`, and floats already short).
///
/// An `f64` setting given with 17 digits that happen to be exactly an `f32` would be shortened
/// too; the run's resume check then names it as a difference rather than passing it silently.
fn shortest_float(value: &str) -> Option<String> {
    if !value.contains('.') && !value.contains('e') {
        return None;
    }
    let wide: f64 = value.parse().ok()?;
    #[allow(clippy::cast_possible_truncation)]
    let narrow = wide as f32;
    if !narrow.is_finite() || f64::from(narrow) != wide {
        return None;
    }
    let short = format!("{narrow:?}");
    (short.len() < value.len()).then_some(short)
}

/// Makes the run directory (and its folders, each checked writable: [`RunDir::create`]) and
/// writes `config.toml` into it. If the run directory already has a `config.toml`, it must say
/// the same as `config`: a run keeps one configuration, so resuming with other settings is
/// refused with the difference named.
///
/// # Errors
/// A folder that cannot be made or written, or a run directory made with another
/// configuration.
pub fn prepare(run: &RunDir, config: &RunConfig) -> Result<()> {
    run.create()?;
    let path = run.config();
    if path.exists() {
        return check_same(run, config);
    }
    durable::write_atomic(&path, to_toml(config)?.as_bytes())?;
    Ok(())
}

/// Checks that the existing run `run` was made with `config` (its `config.toml` says the same),
/// without writing anything.
///
/// # Errors
/// The run's config does not read, or differs (each differing line named).
pub fn check_same(run: &RunDir, config: &RunConfig) -> Result<()> {
    let path = run.config();
    let mut old = load(&path, &[])?;
    old.slurm = config.slurm.clone();
    if &old == config {
        return Ok(());
    }
    let (a, b) = (to_toml(&old)?, to_toml(config)?);
    let diff: Vec<String> = a
        .lines()
        .zip(b.lines())
        .filter(|(x, y)| x != y)
        .map(|(x, y)| format!("  run has `{x}`, asked for `{y}`"))
        .collect();
    Err(bad(format!(
        "{} was made with another configuration:\n{}\nuse a new run directory, or the same config",
        path.display(),
        diff.join("\n")
    )))
}

/// The configuration of an existing run (its `config.toml`), with `overrides` applied.
///
/// # Errors
/// The folder is not a run directory, or its config does not read.
pub fn of_run(run: &RunDir, overrides: &[String]) -> Result<RunConfig> {
    if !run.exists() {
        return Err(bad(format!(
            "{} has no config.toml: not a run directory (start one with qizero run, qizero selfplay or qizero train)",
            run.root().display()
        )));
    }
    load(&run.config(), overrides)
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
        assert!(e.to_string().contains("cpuct"), "{e}");
        let e = parse("game = \"chess\"", &[]).expect_err("unknown game");
        assert!(e.to_string().contains("chess"), "{e}");
        let e = parse("game = \"xiangqi\"", &["net.blocks".into()]).expect_err("no value");
        assert!(e.to_string().contains("key=value"), "{e}");
        let e = parse("game = \"xiangqi\"", &["net.blocks=0".into()]).expect_err("out of range");
        assert!(e.to_string().contains("blocks"), "{e}");
        for minutes in ["-1", "1e7", "nan", "inf"] {
            let e = parse("game = \"xiangqi\"", &[format!("run.max_minutes={minutes}")]).expect_err("out of range");
            assert!(e.to_string().contains("run.max_minutes") && e.to_string().contains("a year"), "{minutes}: {e}");
        }
        let fitted = ["train.schedule=\"cosine\"".to_owned(), "train.cosine_steps=0".to_owned()];
        let e = parse("game = \"xiangqi\"", &fitted).expect_err("a fitted cosine needs a length");
        assert!(e.to_string().contains("run.generations"), "{e}");
        let timed = [fitted.as_slice(), &["run.max_minutes=5".to_owned()]].concat();
        let c = parse("game = \"xiangqi\"", &timed).expect("a timed run");
        assert!(c.train.cosine_steps == 0 && c.fits_cosine());
        let cosine = ["train.schedule=\"cosine\"".to_owned(), "train.cosine_steps=500".to_owned()];
        assert!(!parse("game = \"xiangqi\"", &cosine).expect("a fixed cosine").fits_cosine());
        let switched = [cosine.as_slice(), &["run.fit_cosine=true".to_owned()]].concat();
        let e = parse("game = \"xiangqi\"", &switched).expect_err("the switch needs a length too");
        assert!(e.to_string().contains("run.fit_cosine = true") && e.to_string().contains("run.max_minutes"), "{e}");
        let c = parse("game = \"xiangqi\"", &[switched.as_slice(), &["run.generations=3".to_owned()]].concat())
            .expect("a counted run");
        assert!(c.train.cosine_steps == 500 && c.fits_cosine());
        let e = parse("game = \"xiangqi\"", &["run.fit_cosine=true".to_owned(), "run.generations=3".to_owned()])
            .expect_err("nothing to fit under a constant rate");
        assert!(e.to_string().contains("train.schedule is \"constant\""), "{e}");
        for game in ["xiangqi", "draughts"] {
            let c = parse(&format!("game = \"{game}\""), &["net.feature_planes=true".into()]).expect("reads");
            assert!(c.net.feature_planes, "{game}");
        }
    }

    #[test]
    fn run_dir_keeps_one_config() {
        let dir = std::env::temp_dir().join(format!("qizero-config-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let run = RunDir::new(&dir);
        let c = parse("game = \"xiangqi\"", &[]).expect("parses");
        prepare(&run, &c).expect("fresh");
        prepare(&run, &c).expect("same again");
        assert!(run.shards().is_dir() && run.checkpoints().is_dir());
        let other = parse("game = \"xiangqi\"", &["seed=2".into()]).expect("parses");
        let e = prepare(&run, &other).expect_err("other config");
        assert!(e.to_string().contains("seed"), "{e}");
        let back = of_run(&run, &[]).expect("written config reads back");
        assert_eq!(back, c);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn floats_are_written_as_typed_and_read_back_the_same() {
        let c = parse(
            "game = \"xiangqi\"\n[mcts]\ndirichlet_alpha = 0.3\nrepetition_penalty = 0.1\n[train]\nlearning_rate = 0.002\n",
            &[],
        )
        .expect("parses");
        let text = to_toml(&c).expect("writes");
        assert!(text.contains("dirichlet_alpha = 0.3\n"), "{text}");
        assert!(text.contains("repetition_penalty = 0.1\n"), "{text}");
        assert!(text.contains("learning_rate = 0.002\n"), "{text}");
        for line in text.lines() {
            let value = line.split_once(" = ").map_or("", |(_, v)| v);
            assert_eq!(shortest_float(value), None, "no widened f32 is left: {line}");
        }
        assert_eq!(parse(&text, &[]).expect("reads back"), c);
        assert_eq!(shortest_float("0.30000001192092896").as_deref(), Some("0.3"));
        assert_eq!(shortest_float("0.002"), None, "not exactly an f32");
        assert_eq!(shortest_float("48"), None, "an integer");
        assert_eq!(shortest_float("\"0.30000001192092896\""), None, "a string");
    }

    #[test]
    fn unbounded_and_odd_files_are_refused() {
        let e = load(Path::new("/dev/zero"), &[]).expect_err("a device");
        assert!(e.to_string().contains("/dev/zero") && e.to_string().contains("not a regular file"), "{e}");
        let e = load(Path::new("/dev/urandom"), &[]).expect_err("a device");
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let e = load(Path::new("/no/such/preset.toml"), &[]).expect_err("missing");
        assert!(e.to_string().contains("preset.toml"), "{e}");
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
            let c = load(&path, &[]).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            let game = if c.game == GameName::Xiangqi { "xiangqi" } else { "draughts" };
            assert!(name.starts_with(game), "{name} plays {game}");
            seen += 1;
        }
        assert!(seen >= 2, "the tiny presets are there");
    }
}
