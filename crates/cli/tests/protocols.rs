//! End-to-end runs of `qizero uci` and `qizero hub`: the built binary behind pipes, driven as a
//! GUI would drive it. Each test checks a behaviour a GUI relies on: the handshake, a legal
//! move from a search, a prompt answer to `stop`, and error lines for bad input after which
//! the engine still answers and searches from its previous state.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// Long enough for any answer a test waits for, even on a loaded machine.
const PATIENCE: Duration = Duration::from_secs(20);

/// A running engine with its output read on a thread.
struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    fn start(protocol: &str) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_qizero"))
            .arg(protocol)
            .args(["--seed", "1"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start qizero");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Engine { child, stdin, lines }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to engine");
        stdin.flush().expect("flush");
    }

    /// Lines up to and including the first that satisfies `done`; panics after `within`.
    fn until(&self, within: Duration, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + within;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let last = done(&line);
                    seen.push(line);
                    if last {
                        return seen;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("no expected line within {within:?}; saw {seen:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("engine output closed; saw {seen:?}"),
            }
        }
    }

    /// Sends `line` and returns the line it answers with, passing over search output (`info
    /// depth ...` in both protocols) of a search that may be running.
    fn answer(&mut self, line: &str) -> String {
        self.send(line);
        let got = self.until(PATIENCE, |l| !l.starts_with("info depth"));
        got.into_iter().last().unwrap_or_default()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn uci_error(line: &str) -> bool {
    line.starts_with("info string error: ")
}

fn hub_error(line: &str) -> bool {
    line.starts_with("error message=\"")
}

/// The move of a `bestmove` line.
fn bestmove(line: &str) -> &str {
    line.strip_prefix("bestmove ").and_then(|rest| rest.split_whitespace().next()).unwrap_or_default()
}

/// The move of a `done` line.
fn done_move(line: &str) -> &str {
    line.strip_prefix("done move=").and_then(|rest| rest.split_whitespace().next()).unwrap_or_default()
}

fn xiangqi_after(moves: &[&str]) -> xiangqi::Game {
    let mut game = xiangqi::Game::new();
    for m in moves {
        game.play_text(m).expect("legal test move");
    }
    game
}

#[test]
fn uci_handshake() {
    let mut e = Engine::start("uci");
    e.send("uci");
    let lines = e.until(PATIENCE, |l| l == "uciok");
    assert!(lines[0].starts_with("id name qizero "), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    for option in [
        "option name Hash type spin default 16 min 1 max 4096",
        "option name Threads type spin default 1 min 1 max 64",
        "option name OwnBook type check default true",
    ] {
        assert!(lines.iter().any(|l| l == option), "{option} missing from {lines:?}");
    }
    assert_eq!(e.answer("isready"), "readyok");
    e.send("ucci");
    let lines = e.until(PATIENCE, |l| l == "ucciok");
    assert!(lines[0].starts_with("id name qizero "));
    assert_eq!(e.answer("quit"), "bye");
}

#[test]
fn uci_go_depth_gives_a_legal_bestmove() {
    let mut e = Engine::start("uci");
    e.send("setoption name OwnBook value false");
    e.send("position startpos moves h2e2 h9g7");
    e.send("go depth 3");
    let lines = e.until(PATIENCE, |l| l.starts_with("bestmove"));
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
    assert_eq!(infos.len(), 3, "{lines:?}");
    for (i, info) in infos.iter().enumerate() {
        let words: Vec<&str> = info.split_whitespace().collect();
        assert_eq!(words[2], (i + 1).to_string());
        for key in ["seldepth", "score", "nodes", "nps", "time", "hashfull", "pv"] {
            assert!(words.contains(&key), "{key} missing from {info}");
        }
    }
    let game = xiangqi_after(&["h2e2", "h9g7"]);
    let best = bestmove(lines.last().expect("bestmove"));
    assert!(xiangqi::notation::parse_move(game.position(), best).is_ok(), "illegal bestmove {best}");
}

#[test]
fn uci_stop_ends_an_infinite_search_promptly() {
    let mut e = Engine::start("uci");
    e.send("position startpos");
    e.send("go infinite");
    // Answered during the search, with no bestmove before it.
    assert_eq!(e.answer("isready"), "readyok", "isready is answered during a search");
    // `stop` is handled before the next command is read, and returns only once the search has
    // reported: the bestmove comes before the answer to the isready sent right after it.
    e.send("stop");
    e.send("isready");
    let lines = e.until(PATIENCE, |l| l == "readyok");
    let best = lines.iter().filter(|l| l.starts_with("bestmove")).collect::<Vec<_>>();
    assert_eq!(best.len(), 1, "one bestmove, before readyok: {lines:?}");
    assert!(xiangqi::notation::parse_move(&xiangqi::Position::startpos(), bestmove(best[0])).is_ok(), "{lines:?}");
}

#[test]
fn uci_every_go_ends_in_bestmove() {
    let mut e = Engine::start("uci");
    e.send("setoption name OwnBook value false");
    e.send("position startpos");
    // searchmoves restricts the root: the answer is one of the moves named.
    e.send("go depth 4 searchmoves a3a4 c3c4");
    let lines = e.until(PATIENCE, |l| l.starts_with("bestmove"));
    let best = bestmove(lines.last().expect("bestmove"));
    assert!(["a3a4", "c3c4"].contains(&best), "{lines:?}");
    // A bad go is reported and still answered, from a shallow search.
    for bad in ["go depth abc", "go sideways", "go depth x movetime 100", "go searchmoves h2e2 zz9 depth 2"] {
        e.send(bad);
        let lines = e.until(PATIENCE, |l| l.starts_with("bestmove"));
        assert!(lines.iter().any(|l| uci_error(l)), "{bad}: no error in {lines:?}");
        let best = bestmove(lines.last().expect("bestmove"));
        assert!(xiangqi::notation::parse_move(&xiangqi::Position::startpos(), best).is_ok(), "{bad}: {lines:?}");
        assert_eq!(e.answer("isready"), "readyok", "{bad}: one bestmove only");
    }
    // The bad searchmoves move is left out, the good one kept.
    e.send("go depth 2 searchmoves zz9 h2e2");
    let lines = e.until(PATIENCE, |l| l.starts_with("bestmove"));
    assert_eq!(bestmove(lines.last().expect("bestmove")), "h2e2", "{lines:?}");
}

#[test]
fn uci_bad_input_gets_errors_and_changes_nothing() {
    let mut e = Engine::start("uci");
    e.send("setoption name OwnBook value false");
    e.send("position startpos moves h2e2");
    for bad in [
        "hello world",
        "position fen this/is/no/fen w - - 0 1",
        "position startpos moves h2e2 zzzz",
        "position startpos moves h2e2 h9e9",
        "position startpos moves h2e2 h3e3",
        "position sideways",
        "setoption name Hash value abc",
        "setoption name Hash value 0",
        "setoption name NoSuchOption value 1",
    ] {
        let answer = e.answer(bad);
        assert!(uci_error(&answer), "{bad} answered {answer:?}");
    }
    assert_eq!(e.answer("isready"), "readyok");
    // The position is still the one after h2e2: Black to move.
    e.send("go depth 2");
    let lines = e.until(PATIENCE, |l| l.starts_with("bestmove"));
    let best = bestmove(lines.last().expect("bestmove"));
    assert!(xiangqi::notation::parse_move(xiangqi_after(&["h2e2"]).position(), best).is_ok(), "{best}");
}

#[test]
fn uci_no_legal_move_and_book() {
    let mut e = Engine::start("uci");
    e.send("position fen 3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1");
    e.send("go depth 3");
    let lines = e.until(PATIENCE, |l| l.starts_with("bestmove"));
    assert_eq!(lines.last().map(String::as_str), Some("bestmove (none)"));
    // OwnBook is on by default: the start position is answered from the book at once.
    e.send("position startpos");
    e.send("go wtime 1000 btime 1000");
    let lines = e.until(PATIENCE, |l| l.starts_with("bestmove"));
    let best = bestmove(lines.last().expect("bestmove"));
    assert_eq!(lines, [format!("info string book move {best}"), format!("bestmove {best}")]);
    assert!(xiangqi::notation::parse_move(&xiangqi::Position::startpos(), best).is_ok(), "{best}");
}

#[test]
fn uci_ponder_then_ponderhit() {
    let mut e = Engine::start("uci");
    e.send("setoption name OwnBook value false");
    e.send("position startpos moves h2e2 h9g7");
    e.send("go ponder movetime 200");
    assert_eq!(e.answer("isready"), "readyok", "no bestmove while pondering");
    e.send("ponderhit");
    let lines = e.until(PATIENCE, |l| l.starts_with("bestmove"));
    assert!(!bestmove(lines.last().expect("bestmove")).is_empty());
    assert_eq!(e.answer("isready"), "readyok", "one bestmove only");
}

#[test]
fn uci_closed_input_ends_the_engine() {
    let mut e = Engine::start("uci");
    e.send("go infinite");
    e.stdin = None;
    let t = Instant::now();
    while e.child.try_wait().expect("wait").is_none() {
        assert!(t.elapsed() < PATIENCE, "engine still running after its input closed");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn hub_handshake() {
    let mut e = Engine::start("hub");
    e.send("hub");
    let lines = e.until(PATIENCE, |l| l == "wait");
    assert!(lines[0].starts_with("id name=qizero version="), "{lines:?}");
    assert!(lines.iter().any(|l| l == "param name=book value=true type=bool"));
    e.send("set-param name=hash value=8");
    assert_eq!(e.answer("init"), "ready");
    assert_eq!(e.answer("ping"), "pong");
    e.send("new-game");
    assert_eq!(e.answer("ping"), "pong");
}

#[test]
fn hub_go_think_gives_a_legal_move() {
    let mut e = Engine::start("hub");
    e.send("set-param name=book value=false");
    assert_eq!(e.answer("init"), "ready");
    e.send(r#"pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves="32-28 19-23""#);
    e.send("level depth=3");
    e.send("go think");
    let lines = e.until(PATIENCE, |l| l.starts_with("done"));
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info ")).collect();
    assert_eq!(infos.len(), 3, "{lines:?}");
    for key in ["depth=", "score=", "nodes=", "time=", "pv=\""] {
        assert!(infos[2].contains(key), "{key} missing from {}", infos[2]);
    }
    let mut game = draughts::Game::new();
    for m in ["32-28", "19-23"] {
        game.play_text(m).expect("legal");
    }
    let mv = done_move(lines.last().expect("done"));
    assert!(draughts::notation::parse_hub(game.position(), mv).is_ok(), "illegal move {mv}");
    assert_eq!(mv, "28x19x23", "the capture is forced");
}

#[test]
fn hub_ping_and_stop_during_analysis() {
    let mut e = Engine::start("hub");
    assert_eq!(e.answer("init"), "ready");
    e.send("pos start");
    e.send("level infinite");
    e.send("go analyze");
    assert_eq!(e.answer("ping"), "pong");
    // As for UCI: `done` comes before the answer to a ping sent right after `stop`.
    e.send("stop");
    e.send("ping");
    let lines = e.until(PATIENCE, |l| l == "pong");
    let done: Vec<&String> = lines.iter().filter(|l| l.starts_with("done")).collect();
    assert_eq!(done.len(), 1, "one done, before pong: {lines:?}");
    let mv = done_move(done[0]);
    assert!(draughts::notation::parse_hub(&draughts::Position::startpos(), mv).is_ok(), "{mv}");
}

#[test]
fn hub_bad_input_gets_errors_and_changes_nothing() {
    let mut e = Engine::start("hub");
    e.send("set-param name=book value=false");
    assert_eq!(e.answer("init"), "ready");
    e.send(r#"pos start moves="32-28""#);
    e.send("level depth=2");
    for bad in [
        "frobnicate",
        "pos pos=Wxyz",
        r#"pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves="32-28 99-98""#,
        r#"pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves="32-28 32-28""#,
        r#"pos start moves="32-28"#,
        "level depth=deep",
        "set-param name=hash value=0",
        "set-param name=nonsense value=1",
    ] {
        let answer = e.answer(bad);
        assert!(hub_error(&answer), "{bad} answered {answer:?}");
    }
    assert_eq!(e.answer("ping"), "pong");
    // Still the position after 32-28, still depth 2.
    e.send("go think");
    let lines = e.until(PATIENCE, |l| l.starts_with("done"));
    assert_eq!(lines.iter().filter(|l| l.starts_with("info ")).count(), 2, "{lines:?}");
    let mut game = draughts::Game::new();
    game.play_text("32-28").expect("legal");
    let mv = done_move(lines.last().expect("done"));
    assert!(draughts::notation::parse_hub(game.position(), mv).is_ok(), "{mv}");
    e.send("quit");
    let t = Instant::now();
    while e.child.try_wait().expect("wait").is_none() {
        assert!(t.elapsed() < PATIENCE, "engine still running after quit");
        std::thread::sleep(Duration::from_millis(10));
    }
}
