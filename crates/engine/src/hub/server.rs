//! The Hub server (`qizero hub`): the alpha-beta engine for international draughts over Scan's
//! Hub protocol, version 2 (Scan 3.x, the Hub GUI), or ([`Hub::with_net`]) MCTS with a net,
//! whose parameters ([`crate::net::NET_OPTIONS`], Hub names) replace `hash` and `threads`.
//!
//! Lines are read and boards decoded by the one [`super::codec`]. Commands: `hub` (answers
//! `id name=qizero version=...`, one `param` line per parameter, `wait`); `set-param
//! name=<p> value=<v>` for `book` (bool), `hash` (mebibytes), `threads`, `variant` (`normal`
//! only); `init` (`ready`); `new-game` (clears the table); `pos pos=<W|B + 50 of w b W B e>
//! [moves="..."]` or `pos start [moves=...]`; `level depth=N | nodes=N | move-time=S |
//! [moves=N] time=S [inc=S] | infinite` (seconds, real numbers); `go think|ponder|analyze`;
//! `ponder-hit`; `stop`; `ping` (`pong`, during a search too); `quit`.
//!
//! Moves in `pos` are Hub moves (`32-28`, a capture as `from x to x captured...`, `28x19x23`);
//! PDN (`19x30`) is read too, as [`draughts::notation::parse_move`] never guesses between the
//! two. The position keeps its moves as a [`draughts::Game`], so repetition and the draw counts
//! apply inside the search. `go` answers `info depth=D score=S nodes=N time=T nps=M pv="..."`
//! after each completed depth (score in men, time in seconds, speed in millions of nodes per
//! second, as Scan writes them; a win or loss in `n` moves is `+/-(100 - n/100)`, Scan's
//! "99.xx"), then `done move=<m> [ponder=<m>]` (a bare `done` where the side to move has no
//! move, which GUIs never ask). With `book` on, `go think` in a position of the
//! shipped book answers at once with a book move. The level set by `level` holds until the next
//! `level` (Scan resets it after every `pos` and `go`; GUIs send it before each search anyway);
//! before any, it is `move-time=1`.
//!
//! `go ponder` searches until `ponder-hit` or `stop`; on `ponder-hit` a fresh search starts
//! with the level on a warm table, as in `qizero uci`. `go analyze` searches within the level
//! (usually `level infinite`) and never answers from the book.
//!
//! Errors are written as Scan writes them, `error message="<command>: <what is wrong>"` (no
//! double quote inside: the protocol has no escape), and change nothing: a `pos` with a bad
//! board or move keeps the previous position (Scan keeps the moves before the bad one), a
//! `level` with a bad value keeps the previous level. Unknown commands are errors, as in Scan;
//! unknown arguments are ignored, as the protocol asks. During a search only `ping`,
//! `ponder-hit`, `stop` and `quit` are accepted; anything else is refused with an error.

use super::codec::{arg, parse_board, quote, scan};
use crate::go::Go;
use crate::net::{Brain, NET_OPTIONS, NetOption, NetSearcher, OptionKind, net_option};
use crate::protocol::{Frontend, Output, quoted};
use crate::session::{DEFAULT_HASH_MB, MAX_HASH_MB, MAX_THREADS, Report, Session, expected_reply};
use alphabeta::{Score, SearchInfo, SearchResult, Searcher};
use draughts::{Game, Move, notation};
use rand::rngs::StdRng;
use std::time::Duration;

/// The Hub front-end: the position, the level, the parameters and the search session.
pub struct Hub {
    session: Session<Game, Brain<Game>>,
    /// True when the searcher is MCTS with a net (its parameters replace `hash` and `threads`).
    net: bool,
    game: Game,
    level: Go,
    hash_mb: usize,
    threads: usize,
    quit: bool,
}

/// How Hub writes search reports.
#[derive(Copy, Clone, Debug)]
struct HubReport;

impl Report<Game> for HubReport {
    fn info(&self, info: &SearchInfo<Move>) -> String {
        info_line(info)
    }
    fn done(&self, result: &SearchResult<Move>) -> String {
        done_line(result)
    }
    fn book_move(&self, mv: Move) -> Vec<String> {
        vec![format!("done move={mv}")]
    }
}

impl Hub {
    /// A front-end at the start position with default parameters, writing search output
    /// (`info`, `done`) to `out`; `rng` picks among book moves.
    #[must_use]
    pub fn new(out: Output, rng: StdRng) -> Hub {
        Hub::with_brain(Brain::AlphaBeta(Searcher::new(DEFAULT_HASH_MB)), true, out, rng)
    }

    /// A front-end searching with MCTS and the net of `searcher` (see [`crate::net`]); the
    /// book is off unless `book` turns it on.
    #[must_use]
    pub fn with_net(searcher: NetSearcher<Game>, out: Output, rng: StdRng) -> Hub {
        Hub::with_brain(Brain::Net(Box::new(searcher)), false, out, rng)
    }

    fn with_brain(brain: Brain<Game>, use_book: bool, out: Output, rng: StdRng) -> Hub {
        Hub {
            net: matches!(brain, Brain::Net(_)),
            session: Session::new(brain, alphabeta::book::draughts(), use_book, rng, out),
            game: Game::new(),
            level: Go::movetime(Duration::from_secs(1)),
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            quit: false,
        }
    }

    /// Waits for a running finite search to end (tests).
    #[cfg(test)]
    fn wait(&mut self) {
        self.session.search.wait();
    }

    fn handshake(&mut self) -> Vec<String> {
        let mut lines = vec![
            format!("id name=qizero version={} author=\"the qizero authors\"", env!("CARGO_PKG_VERSION")),
            "param name=variant value=normal type=enum values=normal".to_string(),
            format!("param name=book value={} type=bool", self.session.use_book),
        ];
        if self.net {
            let values = self.session.search.idle(|b| match b {
                Brain::Net(n) => NET_OPTIONS.iter().map(|&o| (o, n.option_value(o).unwrap_or_default())).collect(),
                Brain::AlphaBeta(_) => Vec::new(),
            });
            lines.extend(values.unwrap_or_default().into_iter().map(|(o, v)| param_line(o, &v)));
        } else {
            lines.push(format!("param name=hash value={} type=int min=1 max={MAX_HASH_MB}", self.hash_mb));
            lines.push(format!("param name=threads value={} type=int min=1 max={MAX_THREADS}", self.threads));
        }
        lines.push("wait".to_string());
        lines
    }

    fn set_param(&mut self, args: &[(String, String)]) -> Result<(), String> {
        let name = arg(args, "name").unwrap_or_default();
        let value = arg(args, "value").unwrap_or_default();
        let busy = |e| format!("set-param {name}: {e}");
        if let Some(option) = net_option(name).filter(|o| self.net && o.hub == name) {
            let set = self.session.search.idle(|b| match b {
                Brain::Net(n) => n.set_option(option, value),
                Brain::AlphaBeta(_) => Err("not a parameter of the alpha-beta engine".to_string()),
            });
            return set.map_err(busy)?.map_err(|e| format!("set-param {name}: {e}"));
        }
        match name {
            "" => Err("set-param: missing name".to_string()),
            "hash" if self.net => Err("set-param hash: the MCTS engine has no table".to_string()),
            "book" => {
                self.session.use_book = match value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(format!("set-param book: value must be true or false, not {}", quoted(value))),
                };
                Ok(())
            }
            "hash" => {
                let mb = whole(name, value, 1, MAX_HASH_MB)?;
                self.session.search.idle(|s| s.set_hash(mb)).map_err(busy)?;
                self.hash_mb = mb;
                Ok(())
            }
            "threads" => {
                let n = whole(name, value, 1, MAX_THREADS)?;
                self.session.search.idle(|s| s.set_threads(n)).map_err(busy)?;
                self.threads = n;
                Ok(())
            }
            "variant" if value == "normal" => Ok(()),
            "variant" => Err(format!("set-param variant: only normal is played, not {}", quoted(value))),
            _ => Err(format!("set-param: unknown parameter {}", quoted(name))),
        }
    }

    fn pos(&mut self, args: &[(String, String)]) -> Result<(), String> {
        let mut game = match arg(args, "pos") {
            Some(board) => Game::from_position(parse_board(board).map_err(|e| format!("pos: {e}"))?),
            None if arg(args, "start").is_some() => Game::new(),
            None => return Err("pos: missing pos=<position> (or start)".to_string()),
        };
        let moves: Vec<&str> = arg(args, "moves").unwrap_or_default().split_whitespace().collect();
        for (i, text) in moves.iter().enumerate() {
            let mv = notation::parse_move(game.position(), text)
                .map_err(|e| format!("pos: move {} of {}: {e}", i + 1, moves.len()))?;
            game.play_unchecked(mv);
        }
        self.game = game;
        Ok(())
    }

    fn go(&mut self, args: &[(String, String)]) -> Result<Vec<String>, String> {
        let mode = ["think", "ponder", "analyze"].into_iter().find(|m| arg(args, m).is_some()).unwrap_or("think");
        let limits = self.level.limits();
        match mode {
            "ponder" => self.session.ponder(self.game.clone(), limits, HubReport).map(|()| Vec::new()),
            "analyze" => self.session.analyse(self.game.clone(), limits, HubReport).map(|()| Vec::new()),
            _ => self.session.think(self.game.clone(), limits, HubReport),
        }
    }

    fn command(&mut self, command: &str, args: &[(String, String)]) -> Result<Vec<String>, String> {
        let none = |r: Result<(), String>| r.map(|()| Vec::new());
        // Scan's protocol allows only these during a search.
        let during_search = matches!(command, "ping" | "ponder-hit" | "stop" | "quit");
        if !during_search && self.session.search.is_searching() {
            return Err(format!("{command}: the engine is searching (send stop first)"));
        }
        match command {
            "hub" => Ok(self.handshake()),
            "set-param" => none(self.set_param(args)),
            "init" => Ok(vec!["ready".to_string()]),
            "new-game" => none(self.session.search.idle(Brain::clear).map_err(|e| format!("new-game: {e}"))),
            "pos" => none(self.pos(args)),
            "level" => {
                self.level = Go::parse_hub_level(args).map_err(|e| format!("level: {e}"))?;
                Ok(Vec::new())
            }
            "go" => self.go(args),
            "ping" => Ok(vec!["pong".to_string()]),
            "ponder-hit" => self.session.ponder_hit(HubReport),
            "stop" => {
                self.session.stop();
                Ok(Vec::new())
            }
            "quit" => {
                self.session.stop();
                self.quit = true;
                Ok(Vec::new())
            }
            _ => Err(format!("unknown command {}", quoted(command))),
        }
    }
}

impl Frontend for Hub {
    fn handle(&mut self, line: &str) -> Vec<String> {
        let answer = match scan(line) {
            Ok(None) => Err("missing command".to_string()),
            Ok(Some((command, args))) => self.command(&command, &args),
            Err(e) => Err(e),
        };
        answer.unwrap_or_else(|e| vec![self.error_line(&e)])
    }

    fn quit_requested(&self) -> bool {
        self.quit
    }

    fn error_line(&self, message: &str) -> String {
        format!("error message=\"{}\"", message.replace('"', "'"))
    }

    fn shutdown(&mut self) {
        self.session.stop();
    }
}

/// A parameter value that must be a whole number in `min..=max`.
/// A net option's `param` line.
fn param_line(option: NetOption, value: &str) -> String {
    let name = option.hub;
    match option.kind {
        OptionKind::Int { min, max } => format!("param name={name} value={value} type=int min={min} max={max}"),
        OptionKind::Real { min, max } => format!("param name={name} value={value} type=real min={min} max={max}"),
        OptionKind::Bool => format!("param name={name} value={value} type=bool"),
        OptionKind::Path => format!("param name={name} value={} type=string", quote(value)),
    }
}

fn whole(name: &str, value: &str, min: usize, max: usize) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("set-param {name}= must be a whole number {min}-{max}, not {}", quoted(value))),
    }
}

/// Scan's score: men, with a won (lost) game in `n` moves as `99.xx` (`-99.xx`).
fn score_text(score: Score) -> String {
    match score {
        Score::Cp(c) => format!("{:.2}", f64::from(c) / 100.0),
        Score::Mate(m) => {
            let value = 100.0 - f64::from(m.unsigned_abs().clamp(1, 99)) / 100.0;
            format!("{:.2}", if m > 0 { value } else { -value })
        }
    }
}

fn info_line(info: &SearchInfo<Move>) -> String {
    let pv: Vec<String> = info.pv.iter().map(ToString::to_string).collect();
    format!(
        "info depth={} score={} nodes={} time={:.3} nps={:.2} pv=\"{}\"",
        info.depth,
        score_text(info.score),
        info.nodes,
        info.time.as_secs_f64(),
        info.nps as f64 / 1e6,
        pv.join(" ")
    )
}

fn done_line(result: &SearchResult<Move>) -> String {
    // Hub GUIs never ask for a move where there is none; say so plainly if one does.
    let Some(best) = result.best else { return "done".to_string() };
    match expected_reply(result) {
        Some(reply) => format!("done move={best} ponder={reply}"),
        None => format!("done move={best}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use std::sync::{Arc, Mutex};

    const START: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";

    /// A front-end whose search output is collected, the book off (its contents change).
    fn engine() -> (Hub, Arc<Mutex<Vec<String>>>) {
        let (out, lines) = crate::protocol::collector();
        let mut hub = Hub::new(out, StdRng::seed_from_u64(1));
        hub.session.use_book = false;
        (hub, lines)
    }

    fn taken(lines: &Arc<Mutex<Vec<String>>>) -> Vec<String> {
        lines.lock().map(|mut v| std::mem::take(&mut *v)).unwrap_or_default()
    }

    fn is_error(answer: &[String]) -> bool {
        matches!(answer, [line] if line.starts_with("error message=\"") && line.ends_with('"')
            && line.matches('"').count() == 2)
    }

    #[test]
    fn handshake_and_params() {
        let (mut hub, _) = engine();
        hub.session.use_book = true;
        let lines = hub.handle("hub");
        assert!(lines[0].starts_with("id name=qizero version="));
        assert!(lines.contains(&"param name=book value=true type=bool".to_string()));
        assert_eq!(lines.last().map(String::as_str), Some("wait"));
        assert!(hub.handle("set-param name=book value=false").is_empty());
        assert!(!hub.session.use_book);
        assert!(hub.handle("set-param name=hash value=2").is_empty());
        assert_eq!(hub.hash_mb, 2);
        assert!(hub.handle("set-param name=variant value=normal").is_empty());
        for bad in [
            "set-param value=3",
            "set-param name=hash value=0",
            "set-param name=threads value=x",
            "set-param name=book value=yes",
            "set-param name=variant value=killer",
            "set-param name=tt-size value=20",
        ] {
            assert!(is_error(&hub.handle(bad)), "{bad}");
        }
        assert_eq!(hub.handle("init"), ["ready"]);
        assert_eq!(hub.handle("ping"), ["pong"]);
        assert!(hub.handle("new-game").is_empty());
        assert!(hub.handle("quit").is_empty());
        assert!(hub.quit_requested());
    }

    #[test]
    fn positions_and_their_errors() {
        let (mut hub, _) = engine();
        assert!(hub.handle(&format!(r#"pos pos={START} moves="32-28 19-23 28x19x23""#)).is_empty());
        assert_eq!(hub.game.ply(), 3);
        let before = hub.game.position().fen();
        for bad in [
            "pos",
            "pos pos=Wxyz",
            &format!("pos pos={START} moves=\"32-28 99-98\""),
            &format!("pos pos={START} moves=\"32-28 19-23 33-29\""),
            &format!("pos pos={START} moves=\"32-28 19-23 28x23\" extra=\"unclosed"),
            "pos moves=32-28",
            "level depth=-1",
            "flip",
            "",
        ] {
            let answer = hub.handle(bad);
            assert!(is_error(&answer), "{bad}: {answer:?}");
            assert_eq!(hub.game.position().fen(), before, "{bad} changed the position");
        }
        assert!(hub.handle("pos start moves=\"32-28 19x23\"").len() == 1, "19x23 is no legal move");
        assert!(hub.handle("pos start moves=\"32-28 19-23 28x19\"").is_empty(), "PDN is read too");
        assert_eq!(hub.game.ply(), 3);
    }

    #[test]
    fn go_think_reports_and_answers() {
        let (mut hub, lines) = engine();
        assert!(hub.handle("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"33-28\"").is_empty());
        assert!(hub.handle("level depth=3").is_empty());
        assert!(hub.handle("go think").is_empty());
        hub.wait();
        let lines = taken(&lines);
        assert_eq!(lines.iter().filter(|l| l.starts_with("info depth=")).count(), 3, "{lines:?}");
        assert!(lines[0].starts_with("info depth=1 score=") && lines[0].contains(" pv=\""));
        let done = lines.last().and_then(|l| l.strip_prefix("done move=")).expect("done last");
        let best = done.split_whitespace().next().unwrap_or_default();
        assert!(notation::parse_hub(hub.game.position(), best).is_ok(), "{best}");
    }

    #[test]
    fn book_and_analysis() {
        let (mut hub, lines) = engine();
        assert!(hub.handle("set-param name=book value=true").is_empty());
        assert!(hub.handle("pos start").is_empty());
        let answer = hub.handle("go think");
        let best = answer.first().and_then(|l| l.strip_prefix("done move=")).unwrap_or_default();
        assert!(hub.session.book().moves(&hub.game).iter().any(|(m, _)| m.to_string() == best), "{answer:?}");
        assert!(hub.handle("level infinite").is_empty());
        assert!(hub.handle("go analyze").is_empty());
        assert_eq!(hub.handle("ping"), ["pong"]);
        assert!(is_error(&hub.handle("pos start")), "only ping, ponder-hit, stop, quit while searching");
        assert!(hub.handle("stop").is_empty());
        let lines = taken(&lines);
        assert!(lines.last().is_some_and(|l| l.starts_with("done move=")), "{lines:?}");
    }

    #[test]
    fn ponder_then_hit() {
        let (mut hub, lines) = engine();
        assert!(hub.handle(&format!("pos pos={START} moves=\"32-28 18-23\"")).is_empty());
        assert!(hub.handle("level depth=2").is_empty());
        assert!(hub.handle("go ponder").is_empty());
        std::thread::sleep(Duration::from_millis(30));
        assert!(!taken(&lines).iter().any(|l| l.starts_with("done")));
        assert_eq!(hub.handle("ping"), ["pong"]);
        assert!(hub.handle("ponder-hit").is_empty());
        hub.wait();
        let lines = taken(&lines);
        assert_eq!(lines.iter().filter(|l| l.starts_with("done")).count(), 1);
        assert!(lines.last().is_some_and(|l| l.starts_with("done move=")));
    }

    #[test]
    fn scores() {
        assert_eq!(score_text(Score::Cp(-35)), "-0.35");
        assert_eq!(score_text(Score::Cp(100)), "1.00");
        assert_eq!(score_text(Score::Mate(1)), "99.99");
        assert_eq!(score_text(Score::Mate(-3)), "-99.97");
    }

    #[test]
    fn garbage_never_panics() {
        let (mut hub, _) = engine();
        for line in ["\u{0}", "pos pos=\"", "level time=\"\"", "go ponder=", "é=é", "set-param name=\"\u{1}\""] {
            let _ = hub.handle(line);
        }
        assert_eq!(hub.handle("ping"), ["pong"]);
    }

    #[test]
    fn the_net_engine_lists_its_parameters_and_thinks() {
        let (out, lines) = crate::protocol::collector();
        let searcher =
            NetSearcher::with_evaluator(Arc::new(mcts::UniformEvaluator), crate::net::NetSettings::default(), 1);
        let mut hub = Hub::with_net(searcher, out, StdRng::seed_from_u64(1));
        let hello = hub.handle("hub");
        for expected in [
            "param name=simulations value=800 type=int min=1 max=1000000",
            "param name=c-puct value=1.5 type=real min=0.01 max=10",
            "param name=tree-reuse value=true type=bool",
            "param name=book value=false type=bool",
        ] {
            assert!(hello.contains(&expected.to_string()), "{expected} in {hello:?}");
        }
        assert!(!hello.iter().any(|l| l.contains("name=hash")));
        assert!(hub.handle("set-param name=c-puct value=2").is_empty());
        assert!(is_error(&hub.handle("set-param name=c-puct value=20")));
        assert!(is_error(&hub.handle("set-param name=hash value=16")));
        assert!(hub.handle("level nodes=200").is_empty());
        assert!(hub.handle("pos start moves=\"32-28\"").is_empty());
        assert!(hub.handle("go think").is_empty());
        hub.wait();
        let out = taken(&lines);
        assert!(out.iter().any(|l| l.starts_with("info depth=") && l.contains("nodes=200")), "{out:?}");
        let Some(done) = out.last().and_then(|l| l.strip_prefix("done move=")) else { panic!("{out:?}") };
        let mv = done.split_whitespace().next().unwrap_or_default();
        assert!(notation::parse_move(hub.game.position(), mv).is_ok(), "{mv} is legal");
    }
}
