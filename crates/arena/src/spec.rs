//! Agent specs: the one-line text that names an agent and its configuration, as the command line
//! takes it (`--a alphabeta:depth=4`).
//!
//! ```text
//! random                                  uniform over the legal moves, seeded by the match
//! alphabeta[:OPT,...]                     our alpha-beta engine, in process
//!     depth=N  movetime=MS  nodes=N       limits (any combination; none: the match's movetime,
//!                                         or on a clock the clock alone)
//!     hash=MB (16)  book=true|false (false)
//! uci:PROGRAM [ARG...][,OPT,...]          an external UCI xiangqi engine
//! mcts[:OPT,...]                          PUCT search, in process
//!     ckpt=PATH                           the checkpoint whose net guides it (none: the rules
//!                                         alone, uniform priors and value 0)
//!     sims=N (200)  batch=N (1)           root visits per move; leaves per evaluator call
//!     reuse=true|false (true)             keep the subtree of the moves played since the
//!                                         last move (its visits count towards sims)
//!     root=puct|gumbel (puct)             the root rule: PUCT, or the Gumbel root without
//!                                         its draws (Sequential Halving, greedy choice)
//!     prove=true|false (false)            look one move ahead at every new node: a node whose
//!                                         side to move can mate is proven, never evaluated
//!     teach=W (0)                         mix the alpha-beta engine's capture search into
//!                                         every leaf value at weight W in [0, 1]
//!     considered=N (16)                   root=gumbel: the moves of the highest priors that
//!                                         Sequential Halving starts from, 1 to 256
//! hub:PROGRAM [ARG...][,OPT,...]          an external Hub (Scan protocol v2) draughts engine
//!     movetime=MS  depth=N  nodes=N       what to ask for (none: the match's movetime; on a
//!                                         clock, the clocks are sent as well or instead)
//!     timeout=MS                          how long to wait for a move before forfeiting
//!                                         (default: twice the movetime plus 3 s, 60 s for depth/nodes;
//!                                         on a clock the time left plus 0.5 s, or this if shorter)
//!     ranks=0-9|1-10                      uci only: rank numbering (default: 1-10 for an engine
//!                                         calling itself Fairy-Stockfish, else 0-9)
//!     Name=value                          any other option goes to the engine as is
//!                                         (UCI `setoption`, Hub `set-param`)
//! ```
//!
//! The program part is split on whitespace into the program and its arguments
//! (`uci:target/release/qizero uci`), so a program path cannot contain spaces or commas.
//! Parsing checks syntax and values only; [`AgentSpec::check_game`] checks that the agent plays
//! the game, and starting an engine is the agent's business.

use engine::{EngineSpec, Go, Ranks};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// The alpha-beta agent's configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlphaBetaSpec {
    /// Search limits: depth, movetime, nodes (none set: the match's movetime).
    pub go: Go,
    /// Transposition table size in MiB (default 16).
    pub hash_mb: usize,
    /// Play from the shipped opening book while it has the position (default false).
    pub book: bool,
}

/// The MCTS agent's configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MctsSpec {
    /// The checkpoint whose net evaluates positions (`None`: the rules alone).
    pub checkpoint: Option<PathBuf>,
    /// Simulations per move (default 200).
    pub simulations: u32,
    /// Leaves gathered per evaluator call (default 1).
    pub batch: u32,
    /// Keep the searched subtree from move to move (default true); its visits count towards
    /// `simulations`, so reuse saves simulations.
    pub reuse: bool,
    /// The root rule: PUCT (false, the default) or the Gumbel root without its draws
    /// (Sequential Halving over the moves of the highest priors; `root=gumbel`).
    pub gumbel: bool,
    /// Look one move ahead at every new node (`prove=true`; [`mcts::MctsParams::prove_leaves`]).
    /// Default false.
    pub prove_leaves: bool,
    /// Weight of the alpha-beta engine's capture search in every leaf value, in percent
    /// (`teach=0.5` is 50; [`alphabeta::LeafTeacher`]). Default 0: the net alone.
    pub teacher_percent: u32,
    /// With the Gumbel root, the moves of the highest priors it considers (`considered=N`,
    /// [`mcts::MctsParams::gumbel_considered`]). Default 16, as in training.
    pub considered: u32,
}

impl Default for MctsSpec {
    /// No checkpoint, 200 simulations, one leaf per call, tree reuse, the PUCT root, no
    /// proofs, no teacher, 16 moves considered: what `mcts` alone says.
    fn default() -> MctsSpec {
        MctsSpec {
            checkpoint: None,
            simulations: 200,
            batch: 1,
            reuse: true,
            gumbel: false,
            prove_leaves: false,
            teacher_percent: 0,
            considered: mcts::MctsParams::default().gumbel_considered,
        }
    }
}

/// The kinds of agent, with their configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgentKind {
    /// Uniformly random legal moves; `seed` is mixed into the match's per-game seed.
    Random {
        /// Extra seed (default 0).
        seed: u64,
    },
    /// Our alpha-beta engine.
    AlphaBeta(AlphaBetaSpec),
    /// PUCT search with a checkpoint's net (or the rules alone).
    Mcts(MctsSpec),
    /// An external UCI xiangqi engine.
    Uci(EngineSpec),
    /// An external Hub draughts engine.
    Hub(EngineSpec),
}

/// A parsed agent spec: the text it came from and what it says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentSpec {
    /// The spec as written (names the agent in reports).
    pub text: String,
    /// What it says.
    pub kind: AgentKind,
}

/// A spec that does not parse, or names an agent that cannot play the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpecError {
    /// The part before `:` is not an agent kind.
    UnknownAgent {
        /// The name given.
        name: String,
    },
    /// An option's value does not read.
    BadOption {
        /// The option as written (`depth=x`).
        option: String,
        /// What its value should look like.
        expected: &'static str,
    },
    /// An option the agent does not know.
    UnknownOption {
        /// The agent kind.
        agent: &'static str,
        /// The option as written.
        option: String,
        /// The options it knows.
        known: &'static str,
    },
    /// `uci:` or `hub:` without a program.
    MissingProgram {
        /// The agent kind.
        agent: &'static str,
    },
    /// The agent does not play this game.
    WrongGame {
        /// The agent kind.
        agent: &'static str,
        /// The game asked for.
        game: &'static str,
    },
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::UnknownAgent { name } => write!(
                f,
                "unknown agent '{name}' (expected random, alphabeta[:depth=N,...], mcts[:ckpt=PATH,sims=N], \
                 uci:PROGRAM[,...] or hub:PROGRAM[,...])"
            ),
            SpecError::BadOption { option, expected } => write!(f, "bad option {option}: expected {expected}"),
            SpecError::UnknownOption { agent, option, known } => {
                write!(f, "unknown option '{option}' for {agent} (known: {known})")
            }
            SpecError::MissingProgram { agent } => write!(f, "{agent} needs a program: {agent}:PATH[,Option=value...]"),
            SpecError::WrongGame { agent, game } => {
                let hint = if *agent == "uci" { "use hub:PATH for draughts" } else { "use uci:PATH for xiangqi" };
                write!(f, "{agent} agents do not play {game}: {hint}")
            }
        }
    }
}

impl std::error::Error for SpecError {}

impl FromStr for AgentSpec {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<AgentSpec, SpecError> {
        AgentSpec::parse(s)
    }
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

const ALPHABETA_OPTIONS: &str = "depth, movetime, nodes, hash, book";
const RANDOM_OPTIONS: &str = "seed";
const MCTS_OPTIONS: &str = "ckpt, sims, batch, reuse, root, prove, teach, considered";

impl AgentSpec {
    /// Reads a spec; see the module docs for the grammar.
    ///
    /// # Errors
    /// A [`SpecError`] naming the agent or option that does not read.
    pub fn parse(text: &str) -> Result<AgentSpec, SpecError> {
        let text = text.trim();
        let (name, body) = match text.split_once(':') {
            Some((name, body)) => (name.trim(), Some(body)),
            None => (text, None),
        };
        let kind = match name {
            "random" => parse_random(body)?,
            "alphabeta" => parse_alphabeta(body)?,
            "mcts" => parse_mcts(body)?,
            "uci" => AgentKind::Uci(parse_engine("uci", body)?),
            "hub" => AgentKind::Hub(parse_engine("hub", body)?),
            _ => return Err(SpecError::UnknownAgent { name: name.to_string() }),
        };
        Ok(AgentSpec { text: text.to_string(), kind })
    }

    /// Checks that the agent plays `game` (`"xiangqi"` or `"draughts"`, [`game::Game::NAME`]):
    /// UCI engines play xiangqi, Hub engines draughts, the others both.
    ///
    /// # Errors
    /// [`SpecError::WrongGame`].
    pub fn check_game(&self, game: &'static str) -> Result<(), SpecError> {
        match (&self.kind, game) {
            (AgentKind::Uci(_), g) if g != "xiangqi" => Err(SpecError::WrongGame { agent: "uci", game }),
            (AgentKind::Hub(_), g) if g != "draughts" => Err(SpecError::WrongGame { agent: "hub", game }),
            _ => Ok(()),
        }
    }
}

/// `name=value` pairs of a comma-separated list (empty items skipped).
fn options(body: &str) -> impl Iterator<Item = (&str, Option<&str>)> {
    body.split(',').map(str::trim).filter(|item| !item.is_empty()).map(|item| match item.split_once('=') {
        Some((k, v)) => (k.trim(), Some(v.trim())),
        None => (item, None),
    })
}

fn bad(name: &str, value: Option<&str>, expected: &'static str) -> SpecError {
    let option = match value {
        Some(v) => format!("{name}={v}"),
        None => name.to_string(),
    };
    SpecError::BadOption { option, expected }
}

fn number<T: FromStr + PartialOrd>(
    name: &str,
    value: Option<&str>,
    min: T,
    max: T,
    expected: &'static str,
) -> Result<T, SpecError> {
    match value.and_then(|v| v.parse::<T>().ok()) {
        Some(n) if n >= min && n <= max => Ok(n),
        _ => Err(bad(name, value, expected)),
    }
}

fn millis(name: &str, value: Option<&str>) -> Result<Duration, SpecError> {
    number::<u64>(name, value, 1, 86_400_000, "milliseconds, a whole number from 1").map(Duration::from_millis)
}

/// Reads a limit option into `go`; false if `name` is not one.
fn limit(go: &mut Go, name: &str, value: Option<&str>) -> Result<bool, SpecError> {
    match name {
        "depth" => go.depth = Some(number(name, value, 1, 64, "a whole number from 1 to 64")?),
        "movetime" => go.movetime = Some(millis(name, value)?),
        "nodes" => go.nodes = Some(number(name, value, 1, u64::MAX, "a whole number from 1")?),
        _ => return Ok(false),
    }
    Ok(true)
}

fn parse_random(body: Option<&str>) -> Result<AgentKind, SpecError> {
    let mut seed = 0;
    for (name, value) in options(body.unwrap_or_default()) {
        match name {
            "seed" => seed = number(name, value, 0, u64::MAX, "a whole number")?,
            _ => {
                return Err(SpecError::UnknownOption {
                    agent: "random",
                    option: name.to_string(),
                    known: RANDOM_OPTIONS,
                });
            }
        }
    }
    Ok(AgentKind::Random { seed })
}

fn parse_alphabeta(body: Option<&str>) -> Result<AgentKind, SpecError> {
    let mut spec = AlphaBetaSpec { go: Go::default(), hash_mb: 16, book: false };
    for (name, value) in options(body.unwrap_or_default()) {
        if limit(&mut spec.go, name, value)? {
            continue;
        }
        match name {
            "hash" => spec.hash_mb = number(name, value, 1, 65_536, "mebibytes, a whole number from 1 to 65536")?,
            "book" => {
                spec.book = match value {
                    Some("true" | "yes" | "1" | "on") => true,
                    Some("false" | "no" | "0" | "off") => false,
                    _ => return Err(bad(name, value, "true or false")),
                }
            }
            _ => {
                return Err(SpecError::UnknownOption {
                    agent: "alphabeta",
                    option: name.to_string(),
                    known: ALPHABETA_OPTIONS,
                });
            }
        }
    }
    Ok(AgentKind::AlphaBeta(spec))
}

fn parse_mcts(body: Option<&str>) -> Result<AgentKind, SpecError> {
    let mut spec = MctsSpec::default();
    for (name, value) in options(body.unwrap_or_default()) {
        match name {
            "ckpt" => match value {
                Some(path) if !path.is_empty() => spec.checkpoint = Some(PathBuf::from(path)),
                _ => return Err(bad(name, value, "the path of a checkpoint (.safetensors)")),
            },
            "sims" => spec.simulations = number(name, value, 1, 10_000_000, "a whole number from 1")?,
            "batch" => spec.batch = number(name, value, 1, 1024, "a whole number from 1 to 1024")?,
            "considered" => spec.considered = number(name, value, 1, 256, "a whole number from 1 to 256")?,
            "reuse" => {
                spec.reuse = match value {
                    Some("true") => true,
                    Some("false") => false,
                    _ => return Err(bad(name, value, "true or false")),
                }
            }
            "prove" => {
                spec.prove_leaves = match value {
                    Some("true") => true,
                    Some("false") => false,
                    _ => return Err(bad(name, value, "true or false")),
                }
            }
            "teach" => {
                spec.teacher_percent = match value.and_then(|v| v.parse::<f64>().ok()) {
                    Some(w) if (0.0..=1.0).contains(&w) => (w * 100.0).round() as u32,
                    _ => return Err(bad(name, value, "a weight from 0 to 1")),
                }
            }
            "root" => {
                spec.gumbel = match value {
                    Some("puct") => false,
                    Some("gumbel") => true,
                    _ => return Err(bad(name, value, "puct or gumbel")),
                }
            }
            _ => {
                return Err(SpecError::UnknownOption { agent: "mcts", option: name.to_string(), known: MCTS_OPTIONS });
            }
        }
    }
    Ok(AgentKind::Mcts(spec))
}

fn parse_engine(agent: &'static str, body: Option<&str>) -> Result<EngineSpec, SpecError> {
    let body = body.unwrap_or_default();
    let (command, rest) = body.split_once(',').unwrap_or((body, ""));
    let mut words = command.split_whitespace().map(str::to_string);
    let program = words.next().ok_or(SpecError::MissingProgram { agent })?;
    let mut spec = EngineSpec { args: words.collect(), ..EngineSpec::program(&program) };
    for (name, value) in options(rest) {
        if limit(&mut spec.go, name, value)? {
            continue;
        }
        match name {
            "timeout" => spec.timeout = Some(millis(name, value)?),
            "ranks" if agent == "uci" => {
                spec.ranks = match value {
                    Some("0-9") => Some(Ranks::ZeroToNine),
                    Some("1-10") => Some(Ranks::OneToTen),
                    _ => return Err(bad(name, value, "0-9 or 1-10")),
                }
            }
            "ranks" => return Err(bad(name, value, "nothing: ranks= applies to uci engines only")),
            _ => match value {
                Some(v) => spec.options.push((name.to_string(), v.to_string())),
                None => return Err(bad(name, value, "Name=value (an engine option)")),
            },
        }
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        match AgentSpec::parse(text) {
            Ok(spec) => panic!("{text} parsed as {spec:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn parses_each_kind() {
        let ab = AgentSpec::parse("alphabeta:depth=4,hash=32,book=true").expect("parses");
        assert_eq!(ab.kind, AgentKind::AlphaBeta(AlphaBetaSpec { go: Go::depth(4), hash_mb: 32, book: true }));
        assert_eq!(AgentSpec::parse("random").expect("parses").kind, AgentKind::Random { seed: 0 });
        assert_eq!(
            AgentSpec::parse("mcts:ckpt=runs/a/checkpoints/200-ab.safetensors,sims=64").expect("parses").kind,
            AgentKind::Mcts(MctsSpec {
                checkpoint: Some(PathBuf::from("runs/a/checkpoints/200-ab.safetensors")),
                simulations: 64,
                batch: 1,
                reuse: true,
                gumbel: false,
                prove_leaves: false,
                teacher_percent: 0,
                considered: 16
            })
        );
        assert_eq!(
            AgentSpec::parse("mcts").expect("parses").kind,
            AgentKind::Mcts(MctsSpec {
                checkpoint: None,
                simulations: 200,
                batch: 1,
                reuse: true,
                gumbel: false,
                prove_leaves: false,
                teacher_percent: 0,
                considered: 16
            })
        );
        assert_eq!(AgentSpec::parse("random:seed=7").expect("parses").kind, AgentKind::Random { seed: 7 });
        let AgentKind::Uci(uci) =
            AgentSpec::parse("uci:/usr/bin/engine uci, movetime=50,Skill Level=3,ranks=1-10").expect("parses").kind
        else {
            panic!("not uci");
        };
        assert_eq!(uci.program, "/usr/bin/engine");
        assert_eq!(uci.args, ["uci"]);
        assert_eq!(uci.go.movetime, Some(Duration::from_millis(50)));
        assert_eq!(uci.ranks, Some(Ranks::OneToTen));
        assert_eq!(uci.options, [("Skill Level".to_string(), "3".to_string())]);
        let AgentKind::Hub(hub) = AgentSpec::parse("hub:scripts/dame-hub,depth=6,timeout=500").expect("parses").kind
        else {
            panic!("not hub");
        };
        assert_eq!(hub.go.depth, Some(6));
        assert_eq!(hub.move_timeout(&hub.go), Duration::from_millis(500));
    }

    #[test]
    fn errors_name_what_is_wrong() {
        assert!(err("foo").starts_with("unknown agent 'foo'"), "{}", err("foo"));
        assert_eq!(err("alphabeta:depth=x"), "bad option depth=x: expected a whole number from 1 to 64");
        assert!(err("alphabeta:depth=0").starts_with("bad option depth=0"));
        assert!(err("alphabeta:movetime=-5").starts_with("bad option movetime=-5"));
        assert!(err("alphabeta:book=maybe").starts_with("bad option book=maybe"));
        assert!(err("alphabeta:speed=3").starts_with("unknown option 'speed' for alphabeta"));
        assert!(err("random:depth=3").starts_with("unknown option 'depth' for random"));
        assert!(err("mcts:sims=0").starts_with("bad option sims=0"));
        assert!(err("mcts:reuse=yes").starts_with("bad option reuse=yes"));
        assert!(matches!(
            AgentSpec::parse("mcts:reuse=false").map(|s| s.kind),
            Ok(AgentKind::Mcts(MctsSpec { reuse: false, .. }))
        ));
        assert!(matches!(
            AgentSpec::parse("mcts:root=gumbel,sims=48").map(|s| s.kind),
            Ok(AgentKind::Mcts(MctsSpec { gumbel: true, simulations: 48, .. }))
        ));
        assert!(matches!(
            AgentSpec::parse("mcts:prove=true").map(|s| s.kind),
            Ok(AgentKind::Mcts(MctsSpec { prove_leaves: true, gumbel: false, .. }))
        ));
        assert!(matches!(
            AgentSpec::parse("mcts:teach=0.25").map(|s| s.kind),
            Ok(AgentKind::Mcts(MctsSpec { teacher_percent: 25, .. }))
        ));
        assert!(matches!(
            AgentSpec::parse("mcts:root=gumbel,considered=256").map(|s| s.kind),
            Ok(AgentKind::Mcts(MctsSpec { considered: 256, gumbel: true, .. }))
        ));
        assert!(err("mcts:considered=0").starts_with("bad option considered=0: expected a whole number from 1 to 256"));
        assert!(err("mcts:considered=257").starts_with("bad option considered=257"));
        assert!(err("mcts:teach=2").starts_with("bad option teach=2: expected a weight from 0 to 1"));
        assert!(err("mcts:prove=yes").starts_with("bad option prove=yes: expected true or false"));
        assert!(err("mcts:root=alphazero").starts_with("bad option root=alphazero: expected puct or gumbel"));
        assert!(err("mcts:ckpt=").starts_with("bad option ckpt="));
        assert!(err("mcts:depth=3").starts_with("unknown option 'depth' for mcts"));
        assert!(err("uci:").starts_with("uci needs a program"));
        assert!(err("hub:,movetime=5").starts_with("hub needs a program"));
        assert!(err("uci:x,ranks=2-11").starts_with("bad option ranks=2-11"));
        assert!(err("hub:x,ranks=1-10").starts_with("bad option ranks=1-10"));
        assert!(err("uci:x,Hash").starts_with("bad option Hash"));
    }

    #[test]
    fn engines_play_their_game_only() {
        let uci = AgentSpec::parse("uci:fsf").expect("parses");
        assert!(uci.check_game("xiangqi").is_ok());
        let e = uci.check_game("draughts").expect_err("uci cannot play draughts");
        assert_eq!(e.to_string(), "uci agents do not play draughts: use hub:PATH for draughts");
        assert!(AgentSpec::parse("hub:scan").expect("parses").check_game("xiangqi").is_err());
        assert!(AgentSpec::parse("random").expect("parses").check_game("draughts").is_ok());
    }

    #[test]
    fn default_timeouts() {
        let spec = match AgentSpec::parse("uci:x").expect("parses").kind {
            AgentKind::Uci(spec) => spec,
            other => panic!("{other:?}"),
        };
        let go = spec.go.or_movetime(Duration::from_millis(100));
        assert_eq!(spec.move_timeout(&go), Duration::from_millis(3200));
        assert_eq!(spec.move_timeout(&Go::depth(3)), Duration::from_secs(60));
    }
}
