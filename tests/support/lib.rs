//! Shared helpers for the workspace-level tests: reading the perft suites under `data/perft/`
//! and talking to the Python oracles under `scripts/oracles/`.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// The repository root.
#[must_use]
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().map(PathBuf::from).unwrap_or_default()
}

/// One position of a perft suite with its published counts.
#[derive(Clone, Debug)]
pub struct PerftCase {
    /// 1-based line number in the suite file, for messages.
    pub line: usize,
    /// The position.
    pub fen: String,
    /// (depth, leaf count), in file order.
    pub counts: Vec<(u32, u64)>,
}

/// Reads a perft suite: `FEN ; D1 N ; D2 N ; ...` per line, `#` comments, blank lines ignored.
///
/// # Panics
/// On a malformed line, naming file and line: suites are test data under our control.
#[must_use]
pub fn read_perft_suite(name: &str) -> Vec<PerftCase> {
    let path = repo_root().join("data/perft").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    assert!(text.contains("# Source:"), "{} has no '# Source:' header", path.display());
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split(';');
        let fen = fields.next().unwrap_or_default().trim().to_string();
        let counts = fields
            .map(|f| {
                let f = f.trim();
                let (d, n) =
                    f.split_once(' ').unwrap_or_else(|| panic!("{}:{}: bad field '{f}'", path.display(), i + 1));
                let depth = d.strip_prefix('D').and_then(|d| d.parse().ok());
                let nodes = n.trim().parse().ok();
                match (depth, nodes) {
                    (Some(d), Some(n)) => (d, n),
                    _ => panic!("{}:{}: bad field '{f}'", path.display(), i + 1),
                }
            })
            .collect();
        cases.push(PerftCase { line: i + 1, fen, counts });
    }
    assert!(!cases.is_empty(), "{} holds no positions", path.display());
    cases
}

/// True when running under CI (`CI=true`): a missing oracle is then a failure, not a skip.
#[must_use]
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The Python interpreter the oracles run under: `$QIZERO_PYTHON`, else the project's
/// `.venv` (made by `scripts/test`), else `python3`.
#[must_use]
pub fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("QIZERO_PYTHON") {
        return PathBuf::from(p);
    }
    let venv = repo_root().join(".venv/bin/python");
    if venv.exists() { venv } else { PathBuf::from("python3") }
}

/// A running oracle script that answers one line per request line.
pub struct Oracle {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// What the script said when it started ("ready ...").
    pub banner: String,
}

impl Oracle {
    /// Starts `scripts/oracles/<script>`. `Err` says why it is unavailable.
    ///
    /// # Errors
    /// The interpreter cannot be started or the script reports that its package is missing.
    pub fn start(script: &str) -> Result<Oracle, String> {
        let path = repo_root().join("scripts/oracles").join(script);
        let python = python();
        let mut child = Command::new(&python)
            .arg(&path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {} {}: {e}", python.display(), path.display()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("oracle pipes missing".into());
        };
        let mut oracle = Oracle { child, stdin, stdout: BufReader::new(stdout), banner: String::new() };
        let banner = oracle.read_line()?;
        if !banner.starts_with("ready") {
            return Err(format!("{script} under {}: {banner}", python.display()));
        }
        oracle.banner = banner;
        Ok(oracle)
    }

    fn read_line(&mut self) -> Result<String, String> {
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) => Err("oracle closed its output".into()),
            Ok(_) => Ok(line.trim_end().to_string()),
            Err(e) => Err(format!("reading from oracle: {e}")),
        }
    }

    /// Sends the request `lines` and reads `replies` reply lines. Writing happens on a second
    /// thread so neither side can block the other on a full pipe.
    ///
    /// # Panics
    /// If the oracle dies or answers short: the test cannot go on.
    pub fn ask(&mut self, lines: &[String], replies: usize) -> Vec<String> {
        let requests = lines;
        let mut payload = String::new();
        for r in requests {
            payload.push_str(r);
            payload.push('\n');
        }
        let stdin = &mut self.stdin;
        let stdout = &mut self.stdout;
        std::thread::scope(|s| {
            let writer = s.spawn(move || stdin.write_all(payload.as_bytes()).and_then(|()| stdin.flush()));
            let expected = replies;
            let mut replies = Vec::with_capacity(expected);
            for _ in 0..expected {
                let mut line = String::new();
                match stdout.read_line(&mut line) {
                    Ok(0) | Err(_) => panic!("oracle died after {} of {expected} replies", replies.len()),
                    Ok(_) => replies.push(line.trim_end().to_string()),
                }
            }
            if let Ok(Err(e)) = writer.join() {
                panic!("writing to oracle: {e}");
            }
            replies
        })
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        let _ = self.stdin.write_all(b"Q\n");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}

/// Starts an oracle, or decides what its absence means: outside CI the test is skipped
/// (returns `None`, after saying so on stderr); under `CI=true` it fails.
///
/// # Panics
/// Under CI when the oracle cannot be started.
#[must_use]
pub fn oracle_or_skip(script: &str, install_hint: &str) -> Option<Oracle> {
    match Oracle::start(script) {
        Ok(o) => Some(o),
        Err(e) if in_ci() => panic!("oracle {script} is required under CI=true but unavailable: {e}. {install_hint}"),
        Err(e) => {
            eprintln!("SKIPPED: oracle {script} unavailable ({e}). {install_hint}");
            None
        }
    }
}
