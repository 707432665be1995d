//! Which servers the tests run against.
//!
//! Every test runs once per server variant: the alpha-beta engine (`qizero uci`, `qizero hub`)
//! always, and the network engine (`... --weights models/<game>.safetensors`) when that
//! checkpoint is in the repository. Without it the test says it skipped that variant and
//! passes: the shipped checkpoints come later than these tests.

use std::path::PathBuf;

/// One way to start a server.
pub struct Server {
    /// The arguments after `qizero`.
    pub args: Vec<String>,
}

impl Server {
    /// For messages: `qizero hub --seed 1`.
    pub fn label(&self) -> String {
        format!("qizero {}", self.args.join(" "))
    }
}

/// The binary under test.
pub fn qizero() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_qizero"))
}

/// The server variants for `protocol` (`uci` or `hub`) playing `game` (`xiangqi` or
/// `draughts`). See the module docs.
pub fn servers(protocol: &str, game: &str) -> Vec<Server> {
    let mut list = vec![Server { args: vec![protocol.into(), "--seed".into(), "1".into()] }];
    let weights = qizero_tests::repo_root().join(format!("models/{game}.safetensors"));
    if weights.exists() {
        list.push(Server {
            args: vec![protocol.into(), "--weights".into(), weights.display().to_string(), "--seed".into(), "1".into()],
        });
    } else {
        eprintln!("skipped: the --weights variant of `qizero {protocol}` ({} does not exist yet)", weights.display());
    }
    list
}
