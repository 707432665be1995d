//! `qizero serve` as a program: it says where it listens, plays with the shipped model and with
//! a run's checkpoints, refuses what it cannot open, and stops on SIGTERM.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `qizero serve`, killed when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(args: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_qizero"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start qizero serve");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("a first line");
    let addr = line.trim().strip_prefix("listening on http://").unwrap_or_else(|| panic!("first line: {line:?}"));
    // Keep reading, so the server never writes into a closed pipe.
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    Server { addr: addr.to_string(), child }
}

/// One HTTP/1.1 request; the status and the JSON body.
fn request(server: &Server, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
    let mut stream = TcpStream::connect(&server.addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(60))).expect("timeout");
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        server.addr,
        body.len()
    )
    .expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read the answer");
    let (head, rest) = answer.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no header end: {answer:?}"));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("a status");
    (status, serde_json::from_str(rest).unwrap_or(Value::Null))
}

fn wait_idle(server: &Server, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let (_, state) = request(server, "GET", &format!("/api/games/{id}"), None);
        if state["searching"] == false {
            return state;
        }
        assert!(Instant::now() < deadline, "still searching: {state}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_shipped_model_plays_through_the_server_for_both_games() {
    let server = start(&[]);
    for game in ["xiangqi", "draughts"] {
        let (_, models) = request(&server, "GET", &format!("/api/models?game={game}"), None);
        assert_eq!(models[0]["id"], "shipped", "{models}");
        let (status, state) = request(&server, "POST", "/api/games", Some(&json!({ "game": game })));
        assert_eq!(status, 201, "{state}");
        let id = state["id"].as_str().expect("an id").to_string();
        let search = json!({ "engine": "net", "model": "shipped", "sims": 32, "play": true });
        let (status, body) = request(&server, "POST", &format!("/api/games/{id}/search"), Some(&search));
        assert_eq!(status, 202, "{body}");
        let state = wait_idle(&server, &id);
        assert_eq!(state["ply"], 1, "{game}: {state}");
    }
}

#[test]
fn a_runs_checkpoints_are_offered_and_bad_runs_refused() {
    // A run directory with one checkpoint, written by the trainer itself: generation 0, after
    // which it stops for want of self-play data (--no-wait, an error we expect).
    let dir = std::env::temp_dir().join(format!("qizero-serve-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/draughts-tiny.toml");
    let status = Command::new(env!("CARGO_BIN_EXE_qizero"))
        .args(["train", "--config"])
        .arg(&config)
        .arg("--run")
        .arg(&dir)
        .arg("--no-wait")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run qizero train");
    assert!(!status.success(), "qizero train --no-wait trained without data");
    assert!(dir.join("checkpoints/0.json").is_file(), "no generation-0 checkpoint");
    let run = dir.to_string_lossy().into_owned();
    let server = start(&["--run", &run]);
    let (_, models) = request(&server, "GET", "/api/models?game=draughts", None);
    assert_eq!(models[1]["id"], "run/0/0", "{models}");
    let (_, models) = request(&server, "GET", "/api/models?game=xiangqi", None);
    assert_eq!(models.as_array().map(Vec::len), Some(1), "only the shipped xiangqi model: {models}");
    let (_, state) = request(&server, "POST", "/api/games", Some(&json!({ "game": "draughts" })));
    let id = state["id"].as_str().expect("an id").to_string();
    let search = json!({ "engine": "net", "model": "run/0/0", "sims": 8, "play": true });
    let (status, body) = request(&server, "POST", &format!("/api/games/{id}/search"), Some(&search));
    assert_eq!(status, 202, "{body}");
    assert_eq!(wait_idle(&server, &id)["ply"], 1);
    drop(server);

    let out = Command::new(env!("CARGO_BIN_EXE_qizero"))
        .args(["serve", "--addr", "127.0.0.1:0", "--run", "/nonexistent/run"])
        .output()
        .expect("run qizero serve");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/run") && err.contains("no such run directory"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigterm_stops_the_server() {
    let mut server = start(&[]);
    let (status, _) = request(&server, "GET", "/", None);
    assert_eq!(status, 200);
    let pid = nix::unistd::Pid::from_raw(i32::try_from(server.child.id()).expect("a pid"));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("signal");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = server.child.try_wait().expect("wait") {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(Instant::now() < deadline, "still running 10 s after SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    }
}
