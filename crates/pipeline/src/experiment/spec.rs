//! The experiment spec (a TOML file, `experiments/*.toml`) and the [`Plan`] made from it: every
//! run (arm x seed) with its effective [`RunConfig`].
//!
//! ```toml
//! name = "gumbel-vs-puct"
//! budget_minutes = 8.0     # wall clock of every run (arm x seed): its run.max_minutes
//! seeds = [1, 2, 3]        # each arm is trained once per seed
//! [ladder]                 # LadderSpec: how the checkpoints are rated
//! games = 40
//! [[arm]]                  # Arm: a preset and --set overrides, as `qizero run` takes them
//! name = "puct"
//! config = "configs/xiangqi-tiny.toml"
//! set = ["mcts.c_puct=2.0"]
//! ```
//!
//! Every table has `deny_unknown_fields`, so a misspelt key is an error naming it. Paths
//! (`config`, `ladder.reference`) are read as the command line reads paths: relative to the
//! current directory.
//!
//! A run's config is its arm's preset with the arm's `set` applied, then the experiment's own
//! overrides ([`run_overrides`]): its `seed`, `run.max_minutes` = the budget,
//! `run.generations = 0` (generations until the budget), and the run's own arena switched off
//! (`arena.games_vs_random = 0`, `arena.games_vs_alphabeta = 0`, `arena.gate = "none"`), so the
//! budget goes into self-play and training and every checkpoint is rated once, in the
//! experiment's ladder. An arm may not set those keys itself.

use crate::config::{self, GameName, MAX_CONFIG_BYTES, MAX_MINUTES, RunConfig};
use crate::error::PipelineError;
use arena::AgentSpec;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, PipelineError>;

fn bad(message: impl Into<String>) -> PipelineError {
    PipelineError::Config(message.into())
}

/// The name of the reference net on the ladder (`ladder.reference`).
pub const REFERENCE: &str = "ref";

/// The anchor every rating is relative to (0 Elo). It must be one of `ladder.anchors`.
pub const ANCHOR: &str = "random";

/// The keys the experiment sets in every run, which an arm's `set` may not touch.
pub const CONTROLLED_KEYS: [&str; 6] =
    ["seed", "run.max_minutes", "run.generations", "arena.games_vs_random", "arena.games_vs_alphabeta", "arena.gate"];

/// A whole experiment spec, as the file says it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// The experiment's name (titles of the results and the plot).
    pub name: String,
    /// Wall-clock minutes of every run, passed as its `run.max_minutes`. Range (0, 525,600] (a year).
    pub budget_minutes: f64,
    /// The seeds each arm is trained with, one run per seed. At least one, no repeats.
    pub seeds: Vec<u64>,
    /// How the checkpoints are rated.
    #[serde(default)]
    pub ladder: LadderSpec,
    /// The configurations compared (`[[arm]]` tables). At least one, names unique.
    #[serde(rename = "arm", default)]
    pub arms: Vec<Arm>,
}

/// Which checkpoints of each run the ladder rates.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Checkpoints {
    /// Each run's final generation checkpoint.
    Last,
    /// Every generation checkpoint (step 0 included), for the Elo-against-time curve.
    All,
}

/// The `[ladder]` table: one Elo ladder over every rated checkpoint and fixed anchors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LadderSpec {
    /// Games per pairing (a checkpoint and an anchor, or two neighbouring anchors), each
    /// opening played twice with colours swapped. Default 40, even, range 2..=100000.
    pub games: usize,
    /// MCTS simulations per move of every rated checkpoint (and of the reference net). Default
    /// 48, range 1..=100000.
    pub simulations: u32,
    /// The root rule of every rated checkpoint's MCTS agent (and the reference net's): `puct`,
    /// or `gumbel` (the Gumbel root without its draws). Default `puct`.
    pub root: mcts::Root,
    /// `last` (each run's final checkpoint) or `all` (every generation checkpoint). Default
    /// `last`.
    pub checkpoints: Checkpoints,
    /// The anchors, as agent specs in `qizero match` form; must include `random` (held at 0).
    /// Neighbours in this list (then the reference) play each other, which ties the anchors
    /// together. Default `["random", "alphabeta:depth=1"]`.
    pub anchors: Vec<String>,
    /// A frozen reference net (a checkpoint file), rated as the anchor `ref`: an MCTS agent
    /// at `simulations`. Default none.
    pub reference: Option<PathBuf>,
    /// Games played at once. Default 8, range 1..=256.
    pub concurrency: usize,
    /// A game reaching this many plies is a draw. Default 300, range 1..=100000.
    pub max_plies: usize,
    /// Milliseconds per move for anchors whose spec sets no limit. Default 100, at least 1.
    pub movetime_ms: u64,
    /// Where the rated nets run: `auto`, `cpu`, `cuda`, `cuda:N`. Default `auto`.
    pub device: String,
    /// libtorch threads per operation on the CPU while the ladder plays, 0 = one per core.
    /// Default 0.
    pub cpu_threads: usize,
}

impl Default for LadderSpec {
    fn default() -> LadderSpec {
        LadderSpec {
            games: 40,
            simulations: 48,
            root: mcts::Root::Puct,
            checkpoints: Checkpoints::Last,
            anchors: vec![ANCHOR.to_owned(), "alphabeta:depth=1".to_owned()],
            reference: None,
            concurrency: 8,
            max_plies: 300,
            movetime_ms: 100,
            device: "auto".to_owned(),
            cpu_threads: 0,
        }
    }
}

/// One configuration compared: a preset and its overrides.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Arm {
    /// The arm's name: 1 to 64 of `A-Z a-z 0-9 _ . -`, not starting with `.` or `-` (its runs
    /// are the folders `runs/<name>-s<seed>`).
    pub name: String,
    /// The config preset (TOML), as `qizero run --config` takes it.
    pub config: PathBuf,
    /// `--set` overrides, as `qizero run --set` takes them. Default none.
    #[serde(default)]
    pub set: Vec<String>,
}

impl Spec {
    /// Reads and checks the spec file at `path`.
    ///
    /// # Errors
    /// An unreadable file, bad TOML, an unknown key, a value out of range; each naming the file.
    pub fn load(path: &Path) -> Result<Spec> {
        let text =
            durable::read_text_bounded(path, MAX_CONFIG_BYTES).map_err(|e| bad(format!("experiment spec: {e}")))?;
        Spec::parse(&text).map_err(|e| bad(format!("experiment spec {}: {e}", path.display())))
    }

    /// [`Spec::load`] on TOML text.
    ///
    /// # Errors
    /// As [`Spec::load`].
    pub fn parse(text: &str) -> Result<Spec> {
        let spec: Spec = toml::from_str(text).map_err(|e| bad(format!("bad spec: {e}")))?;
        spec.validate()?;
        Ok(spec)
    }

    /// Checks every value (what can be checked without reading the presets).
    ///
    /// # Errors
    /// The first value out of range, named.
    pub fn validate(&self) -> Result<()> {
        if self.name.trim().is_empty() {
            return Err(bad("name is empty"));
        }
        check_budget(self.budget_minutes)?;
        if self.seeds.is_empty() {
            return Err(bad("seeds is empty: give at least one"));
        }
        for (i, s) in self.seeds.iter().enumerate() {
            if self.seeds[..i].contains(s) {
                return Err(bad(format!("seed {s} is listed twice")));
            }
        }
        if self.arms.is_empty() {
            return Err(bad("no [[arm]]: an experiment compares at least one configuration"));
        }
        for (i, arm) in self.arms.iter().enumerate() {
            check_arm_name(&arm.name)?;
            if self.arms[..i].iter().any(|a| a.name == arm.name) {
                return Err(bad(format!("arm name '{}' is used twice", arm.name)));
            }
            for o in &arm.set {
                let key = o.split_once('=').map_or(o.as_str(), |(k, _)| k).trim();
                if CONTROLLED_KEYS.contains(&key) {
                    return Err(bad(format!(
                        "arm '{}': set '{o}': the experiment sets {key} in every run itself (from seeds and \
                         budget_minutes; the run's own arena is off)",
                        arm.name
                    )));
                }
            }
        }
        self.ladder.validate()
    }
}

fn check_budget(minutes: f64) -> Result<()> {
    if !(minutes > 0.0 && minutes <= MAX_MINUTES) {
        return Err(bad(format!("budget_minutes = {minutes} is outside (0, {MAX_MINUTES}] (the most is a year)")));
    }
    Ok(())
}

fn check_arm_name(name: &str) -> Result<()> {
    let ok = (1..=64).contains(&name.len())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
        && !name.starts_with(['.', '-']);
    if !ok {
        return Err(bad(format!(
            "arm name '{name}': use 1 to 64 of A-Z a-z 0-9 _ . - (not starting with . or -); it names folders"
        )));
    }
    Ok(())
}

impl LadderSpec {
    /// Checks the ranges and the anchors' specs.
    ///
    /// # Errors
    /// The first value out of range, named.
    pub fn validate(&self) -> Result<()> {
        let err = |m: String| Err(bad(format!("ladder.{m}")));
        if !(2..=100_000).contains(&self.games) || self.games % 2 != 0 {
            return err(format!(
                "games = {} must be even (each opening twice, colours swapped) and in 2..=100000",
                self.games
            ));
        }
        if !(1..=100_000).contains(&self.simulations) {
            return err(format!("simulations = {} is outside 1..=100000", self.simulations));
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
        nn::device::parse_device(&self.device).map_err(|e| bad(format!("ladder.device: {e}")))?;
        if !self.anchors.iter().any(|a| a.trim() == ANCHOR) {
            return err(format!("anchors = {:?} must include \"{ANCHOR}\", the ladder's 0", self.anchors));
        }
        for (i, a) in self.anchors.iter().enumerate() {
            AgentSpec::parse(a).map_err(|e| bad(format!("ladder.anchors: '{a}': {e}")))?;
            if a.trim() == REFERENCE {
                return err(format!("anchors: '{REFERENCE}' is the name of ladder.reference"));
            }
            if self.anchors[..i].iter().any(|b| b.trim() == a.trim()) {
                return err(format!("anchors: '{a}' is listed twice"));
            }
        }
        Ok(())
    }
}

/// One run of the experiment: an arm with a seed, and its effective config.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedRun {
    /// Its folder under `runs/`: `<arm>-s<seed>`.
    pub name: String,
    /// The arm.
    pub arm: String,
    /// The seed.
    pub seed: u64,
    /// The overrides applied to the arm's preset (the arm's own, then [`run_overrides`]).
    pub overrides: Vec<String>,
    /// The effective config.
    pub config: RunConfig,
}

/// An experiment ready to run: the spec, the game every arm plays, and the runs in the order
/// they are trained.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The spec, with the budget the runs get.
    pub spec: Spec,
    /// The game every arm plays (one ladder needs one game).
    pub game: GameName,
    /// Every run, seed by seed and within a seed arm by arm (so an experiment stopped half
    /// way has every arm at the first seeds).
    pub runs: Vec<PlannedRun>,
}

/// The experiment's overrides of a run with `seed` and `budget_minutes` (see the module docs).
#[must_use]
pub fn run_overrides(seed: u64, budget_minutes: f64) -> Vec<String> {
    vec![
        format!("seed={seed}"),
        format!("run.max_minutes={budget_minutes:?}"),
        "run.generations=0".to_owned(),
        "arena.games_vs_random=0".to_owned(),
        "arena.games_vs_alphabeta=0".to_owned(),
        "arena.gate=\"none\"".to_owned(),
    ]
}

/// The run folder of `arm` with `seed`.
#[must_use]
pub fn run_name(arm: &str, seed: u64) -> String {
    format!("{arm}-s{seed}")
}

/// Makes the plan of `spec`, with `budget_minutes` instead of the spec's when given: reads each
/// arm's preset, applies the overrides, and checks that every arm plays one game and that the
/// anchors (and the reference file) suit it.
///
/// # Errors
/// A preset that does not read or an override it refuses (naming the arm), arms of different
/// games, an anchor for the other game, a missing reference file, a budget out of range.
pub fn plan(mut spec: Spec, budget_minutes: Option<f64>) -> Result<Plan> {
    if let Some(b) = budget_minutes {
        check_budget(b)?;
        spec.budget_minutes = b;
    }
    spec.validate()?;
    let mut presets = Vec::new();
    for arm in &spec.arms {
        let c = config::load(&arm.config, &arm.set).map_err(|e| bad(format!("arm '{}': {e}", arm.name)))?;
        presets.push(c.game);
    }
    let game = presets[0];
    if let Some((arm, g)) = spec.arms.iter().zip(&presets).find(|(_, g)| **g != game) {
        return Err(bad(format!(
            "arm '{}' plays {} but arm '{}' plays {}: one ladder rates one game",
            arm.name,
            g.as_str(),
            spec.arms[0].name,
            game.as_str()
        )));
    }
    for a in &spec.ladder.anchors {
        let parsed = AgentSpec::parse(a).map_err(|e| bad(format!("ladder.anchors: '{a}': {e}")))?;
        parsed.check_game(game.as_str()).map_err(|e| bad(format!("ladder.anchors: '{a}': {e}")))?;
    }
    if let Some(r) = &spec.ladder.reference {
        if !r.is_file() {
            return Err(bad(format!("ladder.reference: {} is not a file", r.display())));
        }
    }
    let mut runs = Vec::new();
    for &seed in &spec.seeds {
        for arm in &spec.arms {
            let mut overrides = arm.set.clone();
            overrides.extend(run_overrides(seed, spec.budget_minutes));
            let config = config::load(&arm.config, &overrides).map_err(|e| bad(format!("arm '{}': {e}", arm.name)))?;
            runs.push(PlannedRun { name: run_name(&arm.name, seed), arm: arm.name.clone(), seed, overrides, config });
        }
    }
    Ok(Plan { spec, game, runs })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena::GateKind;

    fn preset() -> String {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/xiangqi-tiny.toml").display().to_string()
    }

    fn good() -> String {
        format!(
            r#"
name = "screen"
budget_minutes = 8.0
seeds = [1, 2]
[ladder]
games = 40
simulations = 48
checkpoints = "all"
anchors = ["random", "alphabeta:depth=1", "alphabeta:depth=2"]
[[arm]]
name = "low"
config = "{p}"
set = ["mcts.c_puct=1.0"]
[[arm]]
name = "high"
config = "{p}"
"#,
            p = preset()
        )
    }

    #[test]
    fn a_good_spec_reads_with_defaults() {
        let s = Spec::parse(&good()).expect("parses");
        assert_eq!((s.name.as_str(), s.budget_minutes, s.seeds.as_slice()), ("screen", 8.0, &[1, 2][..]));
        assert_eq!(s.ladder.checkpoints, Checkpoints::All);
        assert_eq!(s.ladder.anchors.len(), 3);
        assert_eq!((s.ladder.reference.as_ref(), s.ladder.concurrency, s.ladder.max_plies), (None, 8, 300));
        assert_eq!(s.arms.len(), 2);
        assert_eq!(s.arms[0].set, ["mcts.c_puct=1.0"]);
        assert!(s.arms[1].set.is_empty());
        // A spec without [ladder] takes its defaults.
        let bare = Spec::parse(&format!(
            "name = \"x\"\nbudget_minutes = 1\nseeds = [3]\n[[arm]]\nname = \"a\"\nconfig = \"{}\"\n",
            preset()
        ))
        .expect("parses");
        assert_eq!(bare.ladder, LadderSpec::default());
        assert_eq!(bare.budget_minutes, 1.0);
    }

    #[test]
    fn bad_specs_are_named() {
        let cases = [
            (good().replace("games = 40", "games = 40\ngame = 3"), "game"),
            (good().replace("budget_minutes = 8.0", "budget_minutes = 8.0\nbudget = 2"), "budget"),
            (good().replace("set = [\"mcts.c_puct=1.0\"]", "sets = []"), "sets"),
            (good().replace("name = \"high\"", "name = \"low\""), "'low' is used twice"),
            (good().replace("seeds = [1, 2]", "seeds = []"), "seeds is empty"),
            (good().replace("seeds = [1, 2]", "seeds = [1, 1]"), "seed 1 is listed twice"),
            (good().replace("games = 40", "games = 3"), "must be even"),
            (good().replace("budget_minutes = 8.0", "budget_minutes = 0.0"), "budget_minutes"),
            (good().replace("\"random\", ", ""), "must include \"random\""),
            (good().replace("alphabeta:depth=2", "chess"), "unknown agent 'chess'"),
            (good().replace("name = \"high\"", "name = \"hi/gh\""), "arm name 'hi/gh'"),
            (good().replace("mcts.c_puct=1.0", "seed=4"), "sets seed in every run"),
            (good().replace("mcts.c_puct=1.0", "arena.gate=\\\"sprt\\\""), "sets arena.gate"),
        ];
        for (text, needle) in cases {
            let e = Spec::parse(&text).expect_err(needle);
            assert!(e.to_string().contains(needle), "{needle}: {e}");
        }
        let no_arms: String = good().split("[[arm]]").next().unwrap_or_default().to_owned();
        let e = Spec::parse(&no_arms).expect_err("no arms");
        assert!(e.to_string().contains("no [[arm]]"), "{e}");
        let e = Spec::load(Path::new("/no/such/spec.toml")).expect_err("missing");
        assert!(e.to_string().contains("/no/such/spec.toml"), "{e}");
    }

    #[test]
    fn each_run_gets_its_seed_the_budget_and_no_arena() {
        let p = plan(Spec::parse(&good()).expect("parses"), Some(0.5)).expect("plans");
        assert_eq!(p.game, GameName::Xiangqi);
        let names: Vec<&str> = p.runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["low-s1", "high-s1", "low-s2", "high-s2"], "seed by seed, arm by arm");
        for r in &p.runs {
            let c = &r.config;
            assert_eq!(c.seed, r.seed);
            assert_eq!((c.run.max_minutes, c.run.generations), (0.5, 0));
            assert_eq!((c.arena.games_vs_random, c.arena.games_vs_alphabeta, c.arena.gate), (0, 0, GateKind::None));
            let c_puct = if r.arm == "low" { 1.0 } else { 1.5 };
            assert_eq!(c.mcts.c_puct, c_puct, "{}: the arm's override, and only its own", r.name);
            // The preset's other values stay.
            assert_eq!(c.net.blocks, 2);
        }
        assert_eq!(p.spec.budget_minutes, 0.5, "the budget given replaces the spec's");
        let e = plan(Spec::parse(&good()).expect("parses"), Some(-1.0)).expect_err("bad budget");
        assert!(e.to_string().contains("budget_minutes"), "{e}");
        let spec = Spec::parse(&good().replace("mcts.c_puct=1.0", "mcts.c_puct=-1.0")).expect("syntax is fine");
        let e = plan(spec, None).expect_err("the preset refuses it");
        assert!(e.to_string().contains("arm 'low'") && e.to_string().contains("c_puct"), "{e}");
        let spec = Spec::parse(&good().replace("\"alphabeta:depth=1\"", "\"hub:/bin/true\"")).expect("syntax");
        let e = plan(spec, None).expect_err("a draughts engine");
        assert!(e.to_string().contains("hub"), "{e}");
    }

    /// Every spec shipped in experiments/ reads.
    #[test]
    fn shipped_specs_parse() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).expect("experiments/ lists") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "toml") {
                Spec::load(&path).unwrap_or_else(|e| panic!("{e}"));
                seen += 1;
            }
        }
        assert!(seen >= 1, "an example spec is there");
    }
}
