//! `qizero serve` in a real browser: a micro run is made for the watch page, the server is
//! started on a free port, and `tests/browser/drive.py` drives headless Chromium through
//! Selenium over the play page (both games: legal destinations against the server's state,
//! moves by clicks, the engine's replies, an analysis, AI vs AI to a result) and the watch
//! page, saving screenshots in `target/screenshots/`.
//!
//! Chromium, its driver and selenium are oracles in the sense of `qizero-tests`: missing, the
//! test is skipped with the reason printed, except under `CI=true`, where that is a failure
//! (`scripts/test` installs them: `ensure_browser`).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/xiangqi-tiny.toml");

/// One generation of two games at four simulations, two training steps and two-game arena
/// matches: about two seconds, and it ends with a rated ladder (random, alpha-beta, ckpt-0,
/// ckpt-2).
const SETS: [&str; 25] = [
    "net.device=cpu",
    "selfplay.simulations=4",
    "selfplay.fast_simulations=0",
    "selfplay.games_in_flight=2",
    "selfplay.workers=1",
    "selfplay.games_per_shard=2",
    "selfplay.max_plies=20",
    "train.batch_size=8",
    "train.min_positions=10",
    "train.max_samples_per_new_sample=0",
    "train.checkpoint_every=2",
    "train.metrics_every=1",
    "train.warmup_steps=0",
    "inference.max_batch=4",
    "arena.simulations=2",
    "arena.games_vs_random=2",
    "arena.games_vs_alphabeta=2",
    "arena.gate=\"winrate\"",
    "arena.gate_games=2",
    "arena.concurrency=2",
    "arena.max_plies=20",
    "run.generations=1",
    "run.games_per_generation=2",
    "run.arena_every=1",
    "run.max_minutes=0",
];

const HINT: &str = "scripts/test installs them (ensure_browser in scripts/lib/setup.sh: Debian chromium, \
                    chromium-driver, fonts-wqy-microhei, and selenium==4.51.0 in .venv)";

/// How long drive.py may take before the test calls it hung.
const DRIVE_LIMIT: Duration = Duration::from_secs(240);

/// A child process killed when dropped, so a failing test leaves no server or browser behind.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn make_micro_run(run: &Path) {
    let _ = std::fs::remove_dir_all(run);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_qizero"));
    cmd.args(["run", "--config", CONFIG, "--run"]).arg(run);
    for set in SETS {
        cmd.args(["--set", set]);
    }
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot start qizero run: {e}"));
    assert!(
        out.status.success(),
        "qizero run (the micro run) failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let ratings = run.join("arena").join("ratings.json");
    let text = std::fs::read_to_string(&ratings).unwrap_or_else(|e| panic!("{}: {e}", ratings.display()));
    let value: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", ratings.display()));
    let players = value["players"].as_array().map_or(0, Vec::len);
    assert!(players >= 2, "the micro run rated {players} players:\n{text}");
}

/// Starts `qizero serve` on a free port; answers the guard and the address it printed.
fn start_server(run: &Path) -> (Killed, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_qizero"))
        .args(["serve", "--addr", "127.0.0.1:0", "--device", "cpu", "--run"])
        .arg(run)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start qizero serve: {e}"));
    let stdout = child.stdout.take();
    let guard = Killed(child);
    let Some(stdout) = stdout else { panic!("qizero serve: no stdout pipe") };
    let (tx, rx) = mpsc::channel();
    // Reads to the end, so the server never blocks on a full pipe.
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(url) = line.strip_prefix("listening on ").and_then(|rest| rest.split_whitespace().next()) {
                let _ = tx.send(url.to_string());
            }
        }
    });
    let url = rx
        .recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("qizero serve printed no `listening on http://...` line within 30 s"));
    assert!(url.starts_with("http://127.0.0.1:"), "qizero serve listens on {url}");
    (guard, url)
}

/// Runs drive.py against `url`; answers its exit code and its output.
fn drive(url: &str, screenshots: &Path) -> (Option<i32>, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/drive.py");
    let python = qizero_tests::python();
    std::fs::create_dir_all(screenshots).unwrap_or_else(|e| panic!("{}: {e}", screenshots.display()));
    let log_path = screenshots.join("drive.log");
    let log = File::create(&log_path).unwrap_or_else(|e| panic!("{}: {e}", log_path.display()));
    let err = log.try_clone().unwrap_or_else(|e| panic!("{}: {e}", log_path.display()));
    let child = Command::new(&python)
        .arg(&script)
        .args(["--url", url, "--screenshots"])
        .arg(screenshots)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(err)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {} {}: {e}", python.display(), script.display()));
    let mut guard = Killed(child);
    let started = Instant::now();
    let status = loop {
        match guard.0.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > DRIVE_LIMIT => {
                let text = std::fs::read_to_string(&log_path).unwrap_or_default();
                panic!("drive.py still running after {DRIVE_LIMIT:?}; its output:\n{text}");
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(100)),
            Err(e) => panic!("waiting for drive.py: {e}"),
        }
    };
    (status.code(), std::fs::read_to_string(&log_path).unwrap_or_default())
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("qizero-browser-{name}-{}", std::process::id()))
}

/// Names a run to watch instead of the micro run (for the README's screenshots: a real
/// ladder, real losses).
const WATCH_RUN_ENV: &str = "QIZERO_BROWSER_WATCH_RUN";

#[test]
fn the_pages_play_analyse_and_watch_in_a_browser() {
    let given = std::env::var_os(WATCH_RUN_ENV).map(PathBuf::from);
    let run = given.clone().unwrap_or_else(|| scratch("run"));
    if given.is_none() {
        make_micro_run(&run);
    }
    let (_server, url) = start_server(&run);
    let screenshots = qizero_tests::repo_root().join("target").join("screenshots");
    let (code, output) = drive(&url, &screenshots);
    match code {
        Some(0) => println!("{output}"),
        Some(3) if qizero_tests::in_ci() => panic!("the browser test needs its tools under CI=true: {output}. {HINT}"),
        Some(3) => {
            eprintln!("SKIPPED: the browser test: {}. {HINT}", output.trim());
        }
        _ => panic!("drive.py failed ({code:?}); screenshots in {}:\n{output}", screenshots.display()),
    }
    if given.is_none() {
        let _ = std::fs::remove_dir_all(&run);
    }
}
