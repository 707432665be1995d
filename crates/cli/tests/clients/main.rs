//! `qizero uci` and `qizero hub` against real third-party clients and a strict protocol
//! checker, once per server variant (see `servers`: the alpha-beta engine, and the network
//! engine when `models/<game>.safetensors` exists).
//!
//! - pydraughts' `HubEngine` plays full draughts games through `qizero hub`, cchess's
//!   `UciEngine` analyses and plays xiangqi through `qizero uci`; every move must be legal by
//!   the client library's own rules, and every line of those exchanges is then run through the
//!   checker as well. The clients are oracles: missing, they skip the test, except under
//!   `CI=true`, where that is a failure (`scripts/test` installs them).
//! - Scripted sessions drive each protocol (UCI, UCCI, Hub) through the handshake, setting
//!   every declared option to its declared default, `isready` / `ping` during a search,
//!   positions with moves, every kind of limit, infinite analysis with `stop`, pondering with a
//!   hit and with a miss, bad commands (exactly one error line each, in the documented form), a
//!   position with no legal move, and `quit`. The option list is read from the handshake, not
//!   assumed, so the same script runs against servers with other options.
//!
//! The checkers (`uci_check`, `hub_check`) document their grammars; `session` runs a server
//! behind pipes with every line checked.

mod hub_check;
mod servers;
mod session;
mod uci_check;

use hub_check::HubChecker;
use servers::{Client, Server, qizero, run_client, servers};
use session::{Checker, Session, replay};
use std::time::{Duration, Instant};
use uci_check::{Dialect, UciChecker};

/// A middle-game xiangqi position (both horses out, nothing traded).
const XIANGQI_MIDGAME: &str = "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN3NC1/9/R1BAKAB1R w - - 0 1";
/// Black to move and no legal move: mated by two rooks.
const XIANGQI_MATED: &str = "3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1";
/// The draughts start position in Hub's form.
const HUB_START: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";
/// White to move and no legal move (`W:W46:B37,41`): the man on 46 is blocked and cannot jump.
const HUB_BLOCKED: &str = "Weeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeebeeebeeeeweeee";

/// How long a timed search may overrun its time before the test calls it a hang.
const SLACK: Duration = Duration::from_secs(5);

const PYDRAUGHTS_HINT: &str = "scripts/test installs it (pip install pydraughts==0.6.7).";
const CCHESS_HINT: &str = "scripts/test installs it (pip install cchess==1.25.5).";

/// A temporary file for a client's transcript, removed when dropped.
struct Transcript(std::path::PathBuf);

impl Transcript {
    fn new(name: &str) -> Transcript {
        Transcript(std::env::temp_dir().join(format!("qizero-clients-{}-{name}.txt", std::process::id())))
    }

    /// Replays the recorded exchange through `checker`; fails the test on the first
    /// non-conforming line. Returns how many lines the engine printed.
    fn check(&self, checker: &mut dyn Checker, label: &str) -> usize {
        let text = std::fs::read_to_string(&self.0)
            .unwrap_or_else(|e| panic!("{label}: cannot read the transcript {}: {e}", self.0.display()));
        replay(checker, &text).unwrap_or_else(|why| panic!("{label} (as the client drove it): {why}"))
    }
}

impl Drop for Transcript {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The client script's arguments: its own, then `-- qizero <server args>`.
fn client_args(own: &[String], transcript: &Transcript, server: &Server) -> Vec<String> {
    let mut args = own.to_vec();
    args.extend(["--transcript".to_string(), transcript.0.display().to_string(), "--".to_string()]);
    args.push(qizero().display().to_string());
    args.extend(server.args.iter().cloned());
    args
}

#[test]
fn pydraughts_hub_engine_plays_full_games() {
    for server in servers("hub", "draughts") {
        let started = Instant::now();
        let transcript = Transcript::new("pydraughts");
        let own = ["--games", &server.games(6, 20).to_string(), "--nodes", &server.game_nodes().to_string()]
            .map(String::from);
        match run_client("pydraughts_hub.py", &client_args(&own, &transcript, &server), PYDRAUGHTS_HINT) {
            Client::Skipped => return,
            Client::Passed(summary) => {
                let mut checker = HubChecker::default();
                let lines = transcript.check(&mut checker, &server.label());
                assert!(checker.dones > 0, "{}: no done line in the transcript", server.label());
                println!(
                    "{}: {summary}; all {lines} engine lines conform ({:.1} s)",
                    server.label(),
                    started.elapsed().as_secs_f64()
                );
            }
        }
    }
}

#[test]
fn cchess_uci_engine_analyses_and_plays() {
    for server in servers("uci", "xiangqi") {
        let started = Instant::now();
        let transcript = Transcript::new("cchess");
        let go = format!("nodes {}", server.game_nodes());
        let own = ["--games", &server.games(4, 2).to_string(), "--go", &go, "--analysis-depth", "4"].map(String::from);
        match run_client("cchess_uci.py", &client_args(&own, &transcript, &server), CCHESS_HINT) {
            Client::Skipped => return,
            Client::Passed(summary) => {
                let mut checker = UciChecker::default();
                let lines = transcript.check(&mut checker, &server.label());
                assert!(checker.infos > 0 && checker.bestmoves > 0, "{}: no search in the transcript", server.label());
                println!(
                    "{}: {summary}; all {lines} engine lines conform ({:.1} s)",
                    server.label(),
                    started.elapsed().as_secs_f64()
                );
            }
        }
    }
}

/// The error line qizero documents for each protocol.
fn is_error(dialect: Option<Dialect>, line: &str) -> bool {
    match dialect {
        Some(_) => line.starts_with("info string error: ") && line.len() > "info string error: ".len(),
        None => line.starts_with("error message=\"") && line.ends_with('"') && line.matches('"').count() == 2,
    }
}

/// Sends `isready` and returns the lines up to `readyok`, failing on an error line among them
/// (everything sent since the last check was meant to be good).
fn uci_ready(s: &mut Session<UciChecker>) -> Vec<String> {
    s.send("isready");
    let lines = s.until("readyok", |l| l == "readyok");
    if let Some(e) = lines.iter().find(|l| is_error(s.checker.dialect(), l)) {
        s.fail(&format!("an error line for a good command: {e}"));
    }
    lines
}

/// Sends a `go` and returns its lines up to the `bestmove` and how long it took; fails on an
/// error line.
fn uci_go(s: &mut Session<UciChecker>, go: &str) -> (Vec<String>, Duration) {
    let started = Instant::now();
    s.send(go);
    let lines = s.until("bestmove", |l| l.starts_with("bestmove") || l == "nobestmove");
    if let Some(e) = lines.iter().find(|l| is_error(s.checker.dialect(), l)) {
        s.fail(&format!("an error line for {go:?}: {e}"));
    }
    (lines, started.elapsed())
}

/// Sends a bad command and requires exactly one error line, and nothing else, before the
/// answer to the `isready` (or `ping`) sent after it.
fn exactly_one_error<C: Checker>(s: &mut Session<C>, bad: &str, probe: &str, answer: &str, dialect: Option<Dialect>) {
    s.send(bad);
    s.send(probe);
    let lines = s.until(answer, |l| l == answer);
    let errors = lines.iter().filter(|l| is_error(dialect, l)).count();
    if errors != 1 || lines.len() != 2 {
        s.fail(&format!("{bad:?} must be answered with exactly one error line; got {lines:?}"));
    }
}

/// The move and expected reply of a `bestmove` line.
fn best_and_ponder(line: &str) -> (String, Option<String>) {
    let words: Vec<&str> = line.split(' ').collect();
    (words.get(1).unwrap_or(&"").to_string(), words.get(3).map(|p| (*p).to_string()))
}

fn uci_session(server: &Server) -> (usize, usize) {
    let mut s = Session::start(&qizero(), &server.args, UciChecker::default());
    s.send("uci");
    s.until("uciok", |l| l == "uciok");
    for option in s.checker.options.clone() {
        if let Some(command) = option.set_default(Dialect::Uci) {
            s.send(&command);
        }
    }
    if s.checker.option("OwnBook").is_some() {
        // Searches, not book moves, are what the session checks.
        s.send("setoption name OwnBook value false");
    }
    uci_ready(&mut s);
    s.send("ucinewgame");
    uci_ready(&mut s);

    s.send("position startpos moves h2e2 h9g7");
    uci_go(&mut s, "go depth 3");
    s.send("position startpos moves h2e2 h9g7 h0g2");
    uci_go(&mut s, "go nodes 3000");
    let (_, took) = uci_go(&mut s, "go movetime 100");
    if took > Duration::from_millis(100) + SLACK {
        s.fail(&format!("go movetime 100 took {took:?}"));
    }
    s.send(&format!("position fen {XIANGQI_MIDGAME} moves b2b4"));
    let (_, took) = uci_go(&mut s, "go wtime 2000 btime 2000 winc 100 binc 100");
    if took > Duration::from_millis(2100) + SLACK {
        s.fail(&format!("a search on a 2 s clock took {took:?}"));
    }
    uci_go(&mut s, "go wtime 1500 btime 1500 movestogo 20");

    // Analysis: isready is answered during the search, and nothing ends it but stop.
    s.send("position startpos moves b2e2");
    s.send("go infinite");
    uci_ready(&mut s);
    s.idle(Duration::from_millis(150));
    s.send("stop");
    let lines = s.until("bestmove after stop", |l| l.starts_with("bestmove"));
    let (best, ponder) = best_and_ponder(lines.last().map_or("", String::as_str));

    // Pondering on the expected reply: a hit, then a miss (stop, and a new search).
    if let Some(reply) = ponder {
        s.send(&format!("position startpos moves b2e2 {best} {reply}"));
        s.send("go ponder wtime 2000 btime 2000");
        uci_ready(&mut s);
        s.idle(Duration::from_millis(50));
        s.send("ponderhit");
        s.until("bestmove after ponderhit", |l| l.starts_with("bestmove"));
        s.send("go ponder movetime 300");
        s.idle(Duration::from_millis(50));
        s.send("stop");
        s.until("bestmove after stopping a ponder search", |l| l.starts_with("bestmove"));
    } else {
        s.fail("the bestmove of an analysis gave no ponder move to ponder on");
    }

    exactly_one_error(&mut s, "xyzzy", "isready", "readyok", Some(Dialect::Uci));
    exactly_one_error(&mut s, "position startpos moves h2e2 h2e2", "isready", "readyok", Some(Dialect::Uci));
    s.send(&format!("position fen {XIANGQI_MATED}"));
    uci_go(&mut s, "go depth 3");
    let (infos, bestmoves) = (s.checker.infos, s.checker.bestmoves);
    s.quit();
    (infos, bestmoves)
}

fn ucci_session(server: &Server) -> (usize, usize) {
    let mut s = Session::start(&qizero(), &server.args, UciChecker::default());
    s.send("ucci");
    s.until("ucciok", |l| l == "ucciok");
    for option in s.checker.options.clone() {
        if let Some(command) = option.set_default(Dialect::Ucci) {
            s.send(&command);
        }
    }
    if s.checker.option("usebook").is_some() {
        s.send("setoption usebook false");
    }
    let millis = s.checker.option("usemillisec").is_some();
    if millis {
        s.send("setoption usemillisec true");
    }
    uci_ready(&mut s);
    s.send("position startpos moves h2e2 h9g7");
    uci_go(&mut s, "go depth 3");
    s.send(&format!("position fen {XIANGQI_MIDGAME} moves b2b4"));
    // UCCI counts seconds unless usemillisec is on.
    uci_go(&mut s, if millis { "go time 2000 increment 100" } else { "go time 2 increment 0" });
    s.send("go infinite");
    uci_ready(&mut s);
    s.idle(Duration::from_millis(100));
    s.send("stop");
    s.until("bestmove after stop", |l| l.starts_with("bestmove"));
    exactly_one_error(&mut s, "xyzzy", "isready", "readyok", Some(Dialect::Ucci));
    s.send(&format!("position fen {XIANGQI_MATED}"));
    uci_go(&mut s, "go depth 3");
    let (infos, bestmoves) = (s.checker.infos, s.checker.bestmoves);
    s.quit();
    (infos, bestmoves)
}

/// Sends `ping` and returns the lines up to `pong`, failing on an error line among them.
fn hub_ping(s: &mut Session<HubChecker>) -> Vec<String> {
    s.send("ping");
    let lines = s.until("pong", |l| l == "pong");
    if let Some(e) = lines.iter().find(|l| is_error(None, l)) {
        s.fail(&format!("an error line for a good command: {e}"));
    }
    lines
}

/// Sends `level` and `go` and returns the lines up to `done` and how long it took.
fn hub_go(s: &mut Session<HubChecker>, level: &str, go: &str) -> (Vec<String>, Duration) {
    s.send(level);
    let started = Instant::now();
    s.send(go);
    let lines = s.until("done", |l| l.starts_with("done"));
    if let Some(e) = lines.iter().find(|l| is_error(None, l)) {
        s.fail(&format!("an error line for {level:?} {go:?}: {e}"));
    }
    (lines, started.elapsed())
}

/// A Hub value, quoted when the protocol needs it.
fn hub_value(value: &str) -> String {
    if value.is_empty() || value.contains([' ', '=']) { format!("\"{value}\"") } else { value.to_string() }
}

fn hub_session(server: &Server) -> (usize, usize) {
    let mut s = Session::start(&qizero(), &server.args, HubChecker::default());
    s.send("hub");
    s.until("wait", |l| l == "wait");
    for param in s.checker.params.clone() {
        s.send(&format!("set-param name={} value={}", param.name, hub_value(&param.value)));
    }
    if s.checker.params.iter().any(|p| p.name == "book") {
        s.send("set-param name=book value=false");
    }
    s.send("init");
    s.until("ready", |l| l == "ready");
    hub_ping(&mut s);
    s.send("new-game");

    s.send(&format!("pos pos={HUB_START} moves=\"32-28 19-23\""));
    let (lines, _) = hub_go(&mut s, "level depth=3", "go think");
    if lines.last().is_none_or(|l| !l.starts_with("done move=28x19x23")) {
        s.fail("the only legal move, 28x19x23, was not played");
    }
    s.send(&format!("pos pos={HUB_START} moves=\"32-28 19-23 28x19x23 14x23x19\""));
    hub_go(&mut s, "level nodes=3000", "go think");
    let (_, took) = hub_go(&mut s, "level move-time=0.1", "go think");
    if took > Duration::from_millis(100) + SLACK {
        s.fail(&format!("level move-time=0.1 took {took:?}"));
    }
    let (_, took) = hub_go(&mut s, "level time=2 inc=0.1", "go think");
    if took > Duration::from_millis(2100) + SLACK {
        s.fail(&format!("a search on a 2 s clock took {took:?}"));
    }
    hub_go(&mut s, "level moves=20 time=3", "go think");

    // Analysis: ping is answered during the search, which goes on until stop.
    s.send(&format!("pos pos={HUB_START} moves=\"34-29\""));
    s.send("level infinite");
    s.send("go analyze");
    hub_ping(&mut s);
    s.idle(Duration::from_millis(150));
    s.send("stop");
    let lines = s.until("done after stop", |l| l.starts_with("done"));
    let done = lines.last().cloned().unwrap_or_default();
    let arg = |key: &str| done.split(' ').find_map(|a| a.strip_prefix(key).map(|m| m.trim_matches('"').to_string()));
    let (Some(best), Some(reply)) = (arg("move="), arg("ponder=")) else {
        s.fail("the done of an analysis gave no ponder move to ponder on")
    };

    // Pondering on the expected reply: a hit, then a miss.
    s.send(&format!("pos pos={HUB_START} moves=\"34-29 {best} {reply}\""));
    s.send("level move-time=0.2");
    s.send("go ponder");
    hub_ping(&mut s);
    s.send("ponder-hit");
    s.until("done after ponder-hit", |l| l.starts_with("done"));
    s.send("go ponder");
    s.idle(Duration::from_millis(50));
    s.send("stop");
    s.until("done after stopping a ponder search", |l| l.starts_with("done"));

    exactly_one_error(&mut s, "frobnicate", "ping", "pong", None);
    exactly_one_error(&mut s, &format!("pos pos={HUB_START} moves=\"32-28 32-28\""), "ping", "pong", None);
    // A GUI never asks this; an engine that is asked still answers with a bare done.
    s.send(&format!("pos pos={HUB_BLOCKED}"));
    hub_go(&mut s, "level depth=2", "go think");
    let (infos, dones) = (s.checker.infos, s.checker.dones);
    s.quit();
    (infos, dones)
}

/// Runs `session` against every variant, with a line of what it saw.
fn each_server(protocol: &str, game: &str, name: &str, session: fn(&Server) -> (usize, usize)) {
    for server in servers(protocol, game) {
        let started = Instant::now();
        let (infos, answers) = session(&server);
        assert!(infos > 0 && answers > 0, "{}: the {name} session saw no search", server.label());
        println!(
            "{}: the {name} session conforms ({infos} info lines, {answers} answers, {:.1} s)",
            server.label(),
            started.elapsed().as_secs_f64()
        );
    }
}

#[test]
fn uci_session_conforms() {
    each_server("uci", "xiangqi", "UCI", uci_session);
}

#[test]
fn ucci_session_conforms() {
    each_server("uci", "xiangqi", "UCCI", ucci_session);
}

#[test]
fn hub_session_conforms() {
    each_server("hub", "draughts", "Hub", hub_session);
}

/// The driver itself: a fake engine's first bad line fails the session, quoted, with the
/// exchange before it.
#[test]
#[should_panic(expected = "non-conforming line \"bestmove h2e2 ponder h9g7\": move \"h2e2\"")]
fn a_non_conforming_line_fails_the_session_quoted() {
    let fake = "read l; echo 'id name fake'; echo 'id author nobody'; echo uciok; \
                read l; read l; echo 'info depth 1 score cp 3 pv h9g7'; echo 'bestmove h2e2 ponder h9g7'; read l";
    let args = ["-c".to_string(), fake.to_string()];
    let mut s = Session::start(std::path::Path::new("/bin/sh"), &args, UciChecker::default());
    s.send("uci");
    s.until("uciok", |l| l == "uciok");
    s.send("position startpos moves h2e2");
    s.send("go depth 1");
    s.until("bestmove", |l| l.starts_with("bestmove"));
}
