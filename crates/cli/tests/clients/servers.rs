//! Which servers the tests run against, and how the Python clients are started.
//!
//! Every test runs once per server variant: the alpha-beta engine (`qizero uci`, `qizero hub`)
//! always, and the network engine (`... --weights models/<game>.safetensors`) when that
//! checkpoint is in the repository. Without it the test says it skipped that variant and
//! passes: the shipped checkpoints come later than these tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One way to start a server, with the search limits and game counts a test uses on it.
pub struct Server {
    /// The arguments after `qizero`.
    pub args: Vec<String>,
    /// True for a `--weights` variant (slower per node: fewer games, smaller limits).
    pub weights: bool,
}

impl Server {
    /// For messages: `qizero hub --seed 1`.
    pub fn label(&self) -> String {
        format!("qizero {}", self.args.join(" "))
    }

    /// Nodes per move in the client games: a few milliseconds of alpha-beta (fewer nodes make
    /// weaker play and longer games, which cost more in pydraughts than the search saves), or
    /// a small MCTS search.
    pub fn game_nodes(&self) -> u64 {
        if self.weights { 32 } else { 2000 }
    }

    /// How many client games to play; `QIZERO_CLIENT_GAMES` overrides both numbers.
    pub fn games(&self, alphabeta: usize, weights: usize) -> usize {
        let default = if self.weights { weights } else { alphabeta };
        std::env::var("QIZERO_CLIENT_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
    }
}

/// The binary under test.
pub fn qizero() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_qizero"))
}

/// The server variants for `protocol` (`uci` or `hub`) playing `game` (`xiangqi` or
/// `draughts`). See the module docs.
pub fn servers(protocol: &str, game: &str) -> Vec<Server> {
    let mut list = vec![Server { args: vec![protocol.into(), "--seed".into(), "1".into()], weights: false }];
    let weights = qizero_tests::repo_root().join(format!("models/{game}.safetensors"));
    if weights.exists() {
        list.push(Server {
            args: vec![protocol.into(), "--weights".into(), weights.display().to_string(), "--seed".into(), "1".into()],
            weights: true,
        });
    } else {
        eprintln!("skipped: the --weights variant of `qizero {protocol}` ({} does not exist yet)", weights.display());
    }
    list
}

/// What a client script came to.
pub enum Client {
    /// It ran to its end: its last line (`summary ...`).
    Passed(String),
    /// Its package is missing outside CI: the test is skipped.
    Skipped,
}

/// Runs `crates/cli/tests/clients/<script>` under the project's Python (`$QIZERO_PYTHON`, else
/// `.venv`, else `python3`) with `args`, and judges its exit status: 0 passes, 3 means its
/// client package is missing (a skip, or a failure under `CI=true`: the clients are oracles),
/// anything else fails the test with the script's output.
///
/// # Panics
/// The script failed, or its client is missing under CI.
pub fn run_client(script: &str, args: &[String], install_hint: &str) -> Client {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients").join(script);
    let python = qizero_tests::python();
    let out = Command::new(&python)
        .arg(&path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot start {} {}: {e}", python.display(), path.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stdout.lines().last().unwrap_or_default().to_string();
    match out.status.code() {
        Some(0) => Client::Passed(last),
        Some(3) if qizero_tests::in_ci() => {
            panic!("{script} needs its client under CI=true: {last} {stderr}. {install_hint}")
        }
        Some(3) => {
            eprintln!("SKIPPED: {script}: {last}. {install_hint}");
            Client::Skipped
        }
        _ => panic!("{script} failed ({}):\n{stdout}\n{stderr}", out.status),
    }
}
