//! The UCI server (`qizero uci`): the alpha-beta engine for xiangqi over UCI as Pikafish speaks
//! it (moves in coordinates with ranks 0-9, `h2e2`), with UCCI's handshake and dialect besides,
//! or ([`Uci::with_net`]) MCTS with a net: its options ([`crate::net::NET_OPTIONS`]) then
//! replace `Hash` and `Threads`, the book is off by default, and the search reports as
//! [`crate::net`] describes.
//!
//! Commands: `uci` / `ucci` (identify, list options, `uciok` / `ucciok`); `isready`
//! (`readyok`, answered during a search too); `setoption name <id> [value <x>]` (UCCI:
//! `setoption <id> [<x>]`) for `Hash`, `Threads`, `OwnBook` (UCCI: `hashsize`, `threads`,
//! `usebook`, `usemillisec`, `newgame`); `ucinewgame` (clears the table); `position startpos |
//! fen <FEN> [moves <m>...]`; `go` with `depth`, `nodes`, `mate`, `movetime`, `wtime`, `btime`,
//! `winc`, `binc`, `movestogo`, `infinite`, `ponder` (UCCI adds `time`, `increment` and the
//! `opp...` fields, which it ignores); `stop`; `ponderhit`; `quit`; `d` (show the position).
//!
//! The position keeps its moves as a [`xiangqi::Game`], so repetition, perpetual check and chase
//! and the move-count rule apply inside the search as in the game. `go` answers `info depth ..
//! seldepth .. score cp|mate .. nodes .. nps .. time .. hashfull .. pv ..` after each completed
//! depth, then `bestmove <m> [ponder <m>]`, or `bestmove (none)` (UCCI: `nobestmove`) when the
//! side to move has no legal move. With `OwnBook` on, a position in the shipped book is
//! answered at once with a book move, except for `go infinite` and `go ponder` (analysis).
//!
//! `go ponder` searches until `ponderhit` or `stop`; on `ponderhit` that search is dropped and
//! a fresh one starts with the `go` limits on a warm table (the search cannot change its
//! limits while running), so the clock counts from the hit as UCI intends.
//!
//! Errors: any unknown command, malformed or illegal input is answered with one line
//! `info string error: <command>: <what is wrong>`, and nothing else changes: a `position` with a
//! bad FEN or move keeps the previous position. A GUI waits for the `bestmove` of every `go`, so
//! a `go` with a bad argument is answered with the error line and then a `bestmove` from a
//! depth-1 search (or the book): the mistake shows at once, and the GUI never hangs. A
//! `searchmoves` move that is not legal is reported the same way and left out; if none is left,
//! every move is searched. Commands that need an idle engine (`go`, `setoption`, `ucinewgame`)
//! are refused with the error line during a search (the running search's `bestmove` answers the
//! GUI); `stop` and `ponderhit` when idle are ignored, as GUIs send them in races.

use crate::go::{Go, TimeUnit};
use crate::net::{Brain, NET_OPTIONS, NetOption, NetSearcher, OptionKind, net_option};
use crate::protocol::{Frontend, Output, quoted};
use crate::session::{DEFAULT_HASH_MB, MAX_HASH_MB, MAX_THREADS, Report, Session, expected_reply};
use alphabeta::{Limits, Score, SearchGame, SearchInfo, SearchResult, Searcher};
use rand::rngs::StdRng;
use xiangqi::{Game, Move, notation};

/// Which protocol the GUI greeted us in; they differ in a few answers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Dialect {
    Uci,
    Ucci,
}

impl Report<Game> for Dialect {
    fn info(&self, info: &SearchInfo<Move>) -> String {
        info_line(info, *self)
    }
    fn done(&self, result: &SearchResult<Move>) -> String {
        bestmove_line(result, *self)
    }
    fn book_move(&self, mv: Move) -> Vec<String> {
        vec![format!("info string book move {mv}"), format!("bestmove {mv}")]
    }
}

/// The UCI/UCCI front-end: the position, the options and the search session.
pub struct Uci {
    session: Session<Game, Brain<Game>>,
    /// True when the searcher is MCTS with a net (its options replace `Hash` and `Threads`).
    net: bool,
    /// The net options' values as last read, for a handshake during a search.
    net_values: Vec<(NetOption, String)>,
    game: Game,
    hash_mb: usize,
    threads: usize,
    dialect: Dialect,
    /// UCCI `usemillisec`: `go time` and `increment` in milliseconds rather than seconds.
    millisec: bool,
    quit: bool,
}

impl Uci {
    /// A front-end at the start position with default options, writing search output
    /// (`info`, `bestmove`) to `out`; `rng` picks among book moves.
    #[must_use]
    pub fn new(out: Output, rng: StdRng) -> Uci {
        Uci::with_brain(Brain::AlphaBeta(Searcher::new(DEFAULT_HASH_MB)), true, out, rng)
    }

    /// A front-end searching with MCTS and the net of `searcher` (see [`crate::net`]); the
    /// book is off unless `OwnBook` turns it on.
    #[must_use]
    pub fn with_net(searcher: NetSearcher<Game>, out: Output, rng: StdRng) -> Uci {
        Uci::with_brain(Brain::Net(Box::new(searcher)), false, out, rng)
    }

    fn with_brain(brain: Brain<Game>, use_book: bool, out: Output, rng: StdRng) -> Uci {
        let net = matches!(brain, Brain::Net(_));
        let mut uci = Uci {
            net,
            net_values: Vec::new(),
            session: Session::new(brain, alphabeta::book::xiangqi(), use_book, rng, out),
            game: Game::new(),
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            dialect: Dialect::Uci,
            millisec: false,
            quit: false,
        };
        uci.net_values = uci.read_net_options();
        uci
    }

    /// Waits for a running finite search to end (tests).
    #[cfg(test)]
    fn wait(&mut self) {
        self.session.search.wait();
    }

    fn handshake(&mut self, dialect: Dialect) -> Vec<String> {
        self.dialect = dialect;
        let mut lines =
            vec![format!("id name qizero {}", env!("CARGO_PKG_VERSION")), "id author the qizero authors".to_string()];
        let (hash, threads, book) = (self.hash_mb, self.threads, self.session.use_book);
        let net = self.read_net_options();
        match dialect {
            Dialect::Uci => {
                if net.is_empty() {
                    lines.push(format!("option name Hash type spin default {hash} min 1 max {MAX_HASH_MB}"));
                    lines.push(format!("option name Threads type spin default {threads} min 1 max {MAX_THREADS}"));
                }
                lines.extend(net.iter().map(|(o, v)| uci_option(*o, v)));
                lines.push(format!("option name OwnBook type check default {book}"));
                lines.push("uciok".to_string());
            }
            Dialect::Ucci => {
                lines.push(format!("option usemillisec type check default {}", self.millisec));
                if net.is_empty() {
                    lines.push(format!("option hashsize type spin min 1 max {MAX_HASH_MB} default {hash}"));
                    lines.push(format!("option threads type spin min 1 max {MAX_THREADS} default {threads}"));
                }
                lines.extend(net.iter().map(|(o, v)| ucci_option(*o, v)));
                lines.push(format!("option usebook type check default {book}"));
                lines.push("option newgame type button".to_string());
                lines.push("ucciok".to_string());
            }
        }
        lines
    }

    fn setoption(&mut self, args: &[&str]) -> Result<(), String> {
        let (name, value) = match args {
            [] => return Err("setoption: expected 'name <option> value <value>'".to_string()),
            [first, rest @ ..] if first.eq_ignore_ascii_case("name") => {
                match rest.iter().position(|w| w.eq_ignore_ascii_case("value")) {
                    Some(k) => (rest[..k].join(" "), Some(rest[k + 1..].join(" "))),
                    None => (rest.join(" "), None),
                }
            }
            // UCCI: `setoption <name> [<value>]`.
            [first, rest @ ..] => (first.to_string(), (!rest.is_empty()).then(|| rest.join(" "))),
        };
        let busy = |e| format!("setoption {name}: {e}");
        if let Some(option) = net_option(&name).filter(|_| self.net) {
            let value = value.unwrap_or_default();
            let set = self.session.search.idle(|b| match b {
                Brain::Net(n) => n.set_option(option, &value),
                Brain::AlphaBeta(_) => Err("not an option of the alpha-beta engine".to_string()),
            });
            set.map_err(busy)?.map_err(|e| format!("setoption {e}"))?;
            self.net_values = self.read_net_options();
            return Ok(());
        }
        match name.to_ascii_lowercase().as_str() {
            "hash" | "hashsize" if self.net => Err(format!("setoption {name}: the MCTS engine has no table")),
            "hash" | "hashsize" => {
                let mb = int_value(&name, value.as_deref(), 1, MAX_HASH_MB)?;
                self.session.search.idle(|s| s.set_hash(mb)).map_err(busy)?;
                self.hash_mb = mb;
                Ok(())
            }
            "threads" => {
                let n = int_value(&name, value.as_deref(), 1, MAX_THREADS)?;
                self.session.search.idle(|s| s.set_threads(n)).map_err(busy)?;
                self.threads = n;
                Ok(())
            }
            "ownbook" | "usebook" => bool_value(&name, value.as_deref()).map(|b| self.session.use_book = b),
            "usemillisec" => bool_value(&name, value.as_deref()).map(|b| self.millisec = b),
            "newgame" | "clear hash" => self.session.search.idle(Brain::clear).map_err(busy),
            // Sent by GUIs that ponder, and by GUIs written for Fairy-Stockfish.
            "ponder" => bool_value(&name, value.as_deref()).map(|_| ()),
            "uci_variant" => match value.as_deref() {
                Some(v) if v.eq_ignore_ascii_case("xiangqi") => Ok(()),
                _ => Err(format!("setoption UCI_Variant: only xiangqi is played, not {}", show(value.as_deref()))),
            },
            "" => Err("setoption: the option name is missing".to_string()),
            _ => Err(format!("setoption: unknown option {}", quoted(&name))),
        }
    }

    fn position(&mut self, args: &[&str]) -> Result<(), String> {
        let (mut game, rest) = match args {
            ["startpos", rest @ ..] => (Game::new(), rest),
            ["fen", rest @ ..] => {
                let end = rest.iter().position(|w| *w == "moves").unwrap_or(rest.len());
                let fen = rest[..end].join(" ");
                if fen.is_empty() {
                    return Err("position: 'fen' must be followed by a FEN".to_string());
                }
                let game = Game::from_fen(&fen).map_err(|e| format!("position: bad FEN {}: {e}", quoted(&fen)))?;
                (game, &rest[end..])
            }
            [] => return Err("position: expected 'startpos' or 'fen <FEN>'".to_string()),
            [other, ..] => return Err(format!("position: expected 'startpos' or 'fen', not {}", quoted(other))),
        };
        let moves = match rest {
            [] => rest,
            ["moves", moves @ ..] => moves,
            [other, ..] => return Err(format!("position: expected 'moves' after the position, not {}", quoted(other))),
        };
        for (i, text) in moves.iter().enumerate() {
            let mv = uci_move(&game, text).map_err(|e| format!("position: move {} of {}: {e}", i + 1, moves.len()))?;
            game.play_unchecked(mv);
        }
        self.game = game;
        Ok(())
    }

    /// Every `go` ends in a `bestmove` (see the module docs).
    fn go(&mut self, args: &[&str]) -> Result<Vec<String>, String> {
        if self.session.search.is_searching() {
            return Err("go: already searching (send stop first)".to_string());
        }
        let unit = if self.dialect == Dialect::Ucci && !self.millisec { TimeUnit::Seconds } else { TimeUnit::Millis };
        let side = game::Game::side_to_move(&self.game);
        let (go, mut errors) = match Go::parse_uci(args, side, unit) {
            Ok(go) => (go, Vec::new()),
            Err(e) => (Go::depth(1), vec![self.error_line(&format!("{e}; answering from a depth-1 search"))]),
        };
        let mut limits = go.limits();
        let (root, bad) = self.root_moves(&go.searchmoves);
        errors.extend(bad.into_iter().map(|e| self.error_line(&e)));
        restrict(&mut limits, &root);
        // The errors go out before the search starts: a depth-1 search can report its
        // bestmove before `handle` returns, and nothing may follow a bestmove.
        self.session.say(&errors);
        let game = self.game.clone();
        if go.ponder {
            self.session.ponder(game, limits, self.dialect).map(|()| Vec::new())
        } else {
            self.session.think(game, limits, self.dialect)
        }
    }

    /// The legal moves among `searchmoves`, and an error for each one that is not.
    fn root_moves(&self, searchmoves: &[String]) -> (Vec<Move>, Vec<String>) {
        let (mut root, mut bad) = (Vec::new(), Vec::new());
        for text in searchmoves {
            match uci_move(&self.game, text) {
                Ok(mv) => root.push(mv),
                Err(e) => bad.push(format!("go: searchmoves {}: {e}; left out", quoted(text))),
            }
        }
        (root, bad)
    }

    /// The net searcher's options with their current values (none for alpha-beta).
    fn read_net_options(&mut self) -> Vec<(NetOption, String)> {
        let listed = self.session.search.idle(|b| match b {
            Brain::Net(n) => NET_OPTIONS.iter().map(|&o| (o, n.option_value(o).unwrap_or_default())).collect(),
            Brain::AlphaBeta(_) => Vec::new(),
        });
        listed.unwrap_or_else(|_| self.net_values.clone())
    }

    fn display(&self) -> Vec<String> {
        let pos = self.game.position();
        let mut lines: Vec<String> = pos.to_string().lines().map(str::to_string).collect();
        lines.push(format!("Fen: {}", pos.fen()));
        lines.push(self.game.moves().fold("Moves:".to_string(), |line, m| format!("{line} {m}")));
        lines
    }
}

/// A move in UCI coordinates, legal in `game` (WXF or Chinese has no place in this protocol).
fn uci_move(game: &Game, text: &str) -> Result<Move, String> {
    notation::parse_uci(text).and_then(|_| notation::parse_move(game.position(), text)).map_err(|e| e.to_string())
}

/// Restricts the search to `root` (all moves when empty).
fn restrict(limits: &mut Limits, root: &[Move]) {
    limits.searchmoves = root.iter().map(<Game as SearchGame>::move_id).collect();
}

impl Frontend for Uci {
    fn handle(&mut self, line: &str) -> Vec<String> {
        let mut words = line.split_whitespace();
        let Some(command) = words.next() else { return Vec::new() };
        let args: Vec<&str> = words.collect();
        let done = |r: Result<(), String>| r.map(|()| Vec::new());
        let answer = match command {
            "uci" => Ok(self.handshake(Dialect::Uci)),
            "ucci" => Ok(self.handshake(Dialect::Ucci)),
            "isready" => Ok(vec!["readyok".to_string()]),
            "setoption" => done(self.setoption(&args)),
            "ucinewgame" => done(self.session.search.idle(Brain::clear).map_err(|e| format!("ucinewgame: {e}"))),
            "position" => done(self.position(&args)),
            "go" => self.go(&args),
            "stop" => {
                self.session.stop();
                Ok(Vec::new())
            }
            "ponderhit" => self.session.ponder_hit(self.dialect),
            "quit" => {
                self.session.stop();
                self.quit = true;
                Ok(if self.dialect == Dialect::Ucci { vec!["bye".to_string()] } else { Vec::new() })
            }
            "d" => Ok(self.display()),
            // Standard UCI commands with nothing to do here.
            "debug" | "register" => Ok(Vec::new()),
            _ => Err(format!("unknown command {}", quoted(command))),
        };
        answer.unwrap_or_else(|e| vec![self.error_line(&e)])
    }

    fn quit_requested(&self) -> bool {
        self.quit
    }

    fn error_line(&self, message: &str) -> String {
        format!("info string error: {message}")
    }

    fn shutdown(&mut self) {
        self.session.stop();
    }
}

fn show(value: Option<&str>) -> String {
    value.map_or_else(|| "nothing".to_string(), quoted)
}

/// An option value that must be a whole number in `min..=max`.
fn int_value(name: &str, value: Option<&str>, min: usize, max: usize) -> Result<usize, String> {
    match value.map(str::parse::<usize>) {
        Some(Ok(n)) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("setoption {name}: value must be a whole number {min}-{max}, not {}", show(value))),
    }
}

/// An option value that must be `true` or `false`.
fn bool_value(name: &str, value: Option<&str>) -> Result<bool, String> {
    match value {
        Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
        Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
        _ => Err(format!("setoption {name}: value must be true or false, not {}", show(value))),
    }
}

/// A net option's UCI `option` line. UCI has no real-number type: reals are strings.
fn uci_option(option: NetOption, value: &str) -> String {
    let name = option.uci;
    match option.kind {
        OptionKind::Int { min, max } => format!("option name {name} type spin default {value} min {min} max {max}"),
        OptionKind::Bool => format!("option name {name} type check default {value}"),
        OptionKind::Real { .. } | OptionKind::Path => {
            format!("option name {name} type string default {}", if value.is_empty() { "<empty>" } else { value })
        }
    }
}

/// A net option's UCCI `option` line.
fn ucci_option(option: NetOption, value: &str) -> String {
    let name = option.uci;
    match option.kind {
        OptionKind::Int { min, max } => format!("option {name} type spin min {min} max {max} default {value}"),
        OptionKind::Bool => format!("option {name} type check default {value}"),
        OptionKind::Real { .. } | OptionKind::Path => {
            format!("option {name} type string default {}", if value.is_empty() { "<empty>" } else { value })
        }
    }
}

/// UCCI writes scores as a bare number, mates as large ones.
fn ucci_score(score: Score) -> i32 {
    score.raw()
}

fn info_line(info: &SearchInfo<Move>, dialect: Dialect) -> String {
    let score = match dialect {
        Dialect::Uci => info.score.to_string(),
        Dialect::Ucci => format!("{}", ucci_score(info.score)),
    };
    let mut line = format!(
        "info depth {} seldepth {} score {score} nodes {} nps {} time {} hashfull {}",
        info.depth,
        info.seldepth,
        info.nodes,
        info.nps,
        info.time.as_millis(),
        info.hashfull
    );
    if !info.pv.is_empty() {
        line.push_str(" pv");
        for mv in &info.pv {
            line.push(' ');
            line.push_str(&mv.to_string());
        }
    }
    line
}

fn bestmove_line(result: &SearchResult<Move>, dialect: Dialect) -> String {
    let Some(best) = result.best else {
        return if dialect == Dialect::Ucci { "nobestmove" } else { "bestmove (none)" }.to_string();
    };
    match expected_reply(result) {
        Some(reply) => format!("bestmove {best} ponder {reply}"),
        None => format!("bestmove {best}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    const MATED: &str = "3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1";

    /// A front-end whose search output is collected.
    fn engine() -> (Uci, Arc<Mutex<Vec<String>>>) {
        let (out, lines) = crate::protocol::collector();
        (Uci::new(out, StdRng::seed_from_u64(1)), lines)
    }

    fn taken(lines: &Arc<Mutex<Vec<String>>>) -> Vec<String> {
        lines.lock().map(|mut v| std::mem::take(&mut *v)).unwrap_or_default()
    }

    fn is_error(answer: &[String]) -> bool {
        matches!(answer, [line] if line.starts_with("info string error: "))
    }

    #[test]
    fn handshakes() {
        let (mut uci, _) = engine();
        let lines = uci.handle("uci");
        assert!(lines[0].starts_with("id name qizero "));
        assert!(lines.contains(&"option name Hash type spin default 16 min 1 max 4096".to_string()));
        assert!(lines.contains(&"option name Threads type spin default 1 min 1 max 64".to_string()));
        assert!(lines.contains(&"option name OwnBook type check default true".to_string()));
        assert_eq!(lines.last().map(String::as_str), Some("uciok"));
        assert_eq!(uci.handle("isready"), ["readyok"]);
        let lines = uci.handle("ucci");
        assert_eq!(lines.last().map(String::as_str), Some("ucciok"));
        assert_eq!(uci.handle("quit"), ["bye"]);
        assert!(uci.quit_requested());
    }

    #[test]
    fn options() {
        let (mut uci, _) = engine();
        assert!(uci.handle("setoption name Hash value 2").is_empty());
        assert_eq!(uci.hash_mb, 2);
        assert!(uci.handle("setoption name threads value 3").is_empty());
        assert_eq!(uci.threads, 3);
        assert!(uci.handle("setoption name OwnBook value false").is_empty());
        assert!(!uci.session.use_book);
        assert!(uci.handle("setoption usebook true").is_empty());
        assert!(uci.session.use_book);
        assert!(uci.handle("setoption name Clear Hash").is_empty());
        for bad in [
            "setoption",
            "setoption name",
            "setoption name Hash value 0",
            "setoption name Hash value 5000",
            "setoption name Hash value lots",
            "setoption name Hash",
            "setoption name Threads value -1",
            "setoption name OwnBook value maybe",
            "setoption name Contempt value 10",
            "setoption name UCI_Variant value chess",
        ] {
            assert!(is_error(&uci.handle(bad)), "{bad}");
        }
        assert_eq!(uci.hash_mb, 2);
        assert!(uci.session.use_book);
    }

    #[test]
    fn positions_and_their_errors() {
        let (mut uci, _) = engine();
        assert!(uci.handle("position startpos moves h2e2 h9g7").is_empty());
        assert_eq!(uci.game.ply(), 2);
        let before = uci.game.position().fen();
        for bad in [
            "position",
            "position start",
            "position fen",
            "position fen rnbakabnr/9 w - - 0 1",
            "position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x - - 0 1",
            "position startpos h2e2",
            "position startpos moves h2e2 zz",
            "position startpos moves h2e2 h9e9",
            "position startpos moves h3e3",
            "position startpos moves C2=5",
            "position startpos moves h2e2 h9g7 \u{1f600}",
        ] {
            let answer = uci.handle(bad);
            assert!(is_error(&answer), "{bad}: {answer:?}");
            assert_eq!(uci.game.position().fen(), before, "{bad} changed the position");
        }
        let fen = "position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 moves b0c2";
        assert!(uci.handle(fen).is_empty());
        assert_eq!(uci.game.ply(), 1);
        let shown = uci.handle("d");
        assert!(shown.iter().any(|l| l.starts_with("Fen: ")));
        assert!(shown.contains(&"Moves: b0c2".to_string()));
    }

    #[test]
    fn go_depth_reports_and_answers() {
        let (mut uci, lines) = engine();
        assert!(uci.handle("setoption name OwnBook value false").is_empty());
        assert!(uci.handle("position startpos moves h2e2").is_empty());
        assert!(uci.handle("go depth 3").is_empty());
        uci.wait();
        let lines = taken(&lines);
        assert_eq!(lines.iter().filter(|l| l.starts_with("info depth ")).count(), 3);
        assert!(lines[0].starts_with("info depth 1 seldepth "));
        assert!(lines[0].contains(" score cp ") && lines[0].contains(" hashfull ") && lines[0].contains(" pv "));
        let best = lines.last().and_then(|l| l.strip_prefix("bestmove ")).expect("bestmove last");
        let best = best.split_whitespace().next().unwrap_or_default();
        assert!(notation::parse_move(uci.game.position(), best).is_ok(), "{best}");
    }

    /// A bad `go`'s errors are written before the search starts, so they precede its lines
    /// and its `bestmove` whatever the threads' timing (the depth-1 search used to answer
    /// before the errors on a loaded machine).
    #[test]
    fn a_bad_go_reports_its_errors_before_the_search() {
        let (mut uci, lines) = engine();
        assert!(uci.handle("setoption name OwnBook value false").is_empty());
        assert!(uci.handle("position startpos").is_empty());
        for bad in ["go depth abc", "go searchmoves h2e2 zz9 depth 2"] {
            assert!(uci.handle(bad).is_empty(), "{bad}: the errors went out through the search's output");
            uci.wait();
            let got = taken(&lines);
            assert!(got.first().is_some_and(|l| l.starts_with("info string error: ")), "{bad}: {got:?}");
            assert_eq!(got.iter().filter(|l| l.starts_with("info string error: ")).count(), 1, "{bad}: {got:?}");
            assert!(got.last().is_some_and(|l| l.starts_with("bestmove ")), "{bad}: {got:?}");
        }
    }

    #[test]
    fn book_answers_at_once() {
        let (mut uci, _) = engine();
        let answer = uci.handle("go movetime 10000");
        let best = answer.last().and_then(|l| l.strip_prefix("bestmove ")).unwrap_or_default();
        assert_eq!(answer[0], format!("info string book move {best}"));
        assert!(uci.session.book().moves(&uci.game).iter().any(|(m, _)| m.to_string() == best), "{best}");
        assert!(!uci.session.search.is_searching());
    }

    #[test]
    fn busy_engine_refuses_what_needs_it_idle() {
        let (mut uci, lines) = engine();
        assert!(uci.handle("go infinite").is_empty());
        assert!(is_error(&uci.handle("go depth 1")));
        assert!(is_error(&uci.handle("setoption name Hash value 1")));
        assert!(is_error(&uci.handle("ucinewgame")));
        assert_eq!(uci.handle("isready"), ["readyok"]);
        assert!(uci.handle("position startpos moves h2e2").is_empty());
        assert!(uci.handle("stop").is_empty());
        let lines = taken(&lines);
        let best = lines.last().and_then(|l| l.strip_prefix("bestmove ")).expect("bestmove after stop");
        let best = best.split_whitespace().next().unwrap_or_default();
        // The search was of the start position, not of the one set while it ran.
        assert!(notation::parse_move(&xiangqi::Position::startpos(), best).is_ok());
        assert!(uci.handle("stop").is_empty(), "a second stop is ignored");
        assert!(uci.handle("ucinewgame").is_empty());
    }

    #[test]
    fn ponder_then_hit() {
        let (mut uci, lines) = engine();
        assert!(uci.handle("setoption name OwnBook value false").is_empty());
        assert!(uci.handle("position startpos moves h2e2 h9g7").is_empty());
        assert!(uci.handle("go ponder depth 2").is_empty());
        std::thread::sleep(Duration::from_millis(30));
        assert!(!taken(&lines).iter().any(|l| l.starts_with("bestmove")));
        assert!(uci.handle("ponderhit").is_empty());
        uci.wait();
        let lines = taken(&lines);
        assert_eq!(lines.iter().filter(|l| l.starts_with("bestmove")).count(), 1);
        // The search started by the hit keeps the limits of `go`: depths 1 and 2, then the move.
        let restart = lines.iter().rposition(|l| l.starts_with("info depth 1 ")).unwrap_or(0);
        let tail = &lines[restart..];
        assert_eq!(tail.len(), 3, "{tail:?}");
        assert!(tail[1].starts_with("info depth 2 ") && tail[2].starts_with("bestmove "), "{tail:?}");
    }

    #[test]
    fn no_legal_move() {
        let (mut uci, lines) = engine();
        assert!(uci.handle(&format!("position fen {MATED}")).is_empty());
        assert!(uci.handle("go depth 3").is_empty());
        uci.wait();
        assert_eq!(taken(&lines), ["bestmove (none)"]);
        assert!(uci.handle("ucci").last().is_some_and(|l| l == "ucciok"));
        assert!(uci.handle("go depth 3").is_empty());
        uci.wait();
        assert_eq!(taken(&lines), ["nobestmove"]);
    }

    #[test]
    fn garbage_never_panics() {
        let (mut uci, _) = engine();
        for line in ["", "   ", "\u{0}", "go go go", "position fen \u{feff}", "setoption name \u{1} value", "ü"] {
            let _ = uci.handle(line);
        }
        assert_eq!(uci.handle("isready"), ["readyok"]);
        assert!(is_error(&uci.handle("xyzzy")));
    }

    #[test]
    fn scores_for_ucci() {
        assert_eq!(ucci_score(Score::Cp(-35)), -35);
        assert_eq!(ucci_score(Score::Mate(1)), alphabeta::MATE - 1);
        assert_eq!(ucci_score(Score::Mate(-2)), -alphabeta::MATE + 4);
    }

    /// A front-end searching with MCTS guided by the rules alone (uniform priors, value 0).
    fn net_engine() -> (Uci, Arc<Mutex<Vec<String>>>) {
        let (out, lines) = crate::protocol::collector();
        let searcher =
            NetSearcher::with_evaluator(Arc::new(mcts::UniformEvaluator), crate::net::NetSettings::default(), 1);
        (Uci::with_net(searcher, out, StdRng::seed_from_u64(1)), lines)
    }

    #[test]
    fn the_net_engine_lists_its_options_and_checks_them() {
        let (mut uci, _) = net_engine();
        let lines = uci.handle("uci");
        for expected in [
            "option name Simulations type spin default 800 min 1 max 1000000",
            "option name CPuct type string default 1.5",
            "option name MinibatchSize type spin default 8 min 1 max 256",
            "option name TreeReuse type check default true",
            "option name OwnBook type check default false",
        ] {
            assert!(lines.contains(&expected.to_string()), "{expected} in {lines:?}");
        }
        assert!(!lines.iter().any(|l| l.contains("name Hash")), "no table: {lines:?}");
        assert!(uci.handle("setoption name CPuct value 2.5").is_empty());
        assert!(uci.handle("setoption name Simulations value 50").is_empty());
        assert!(
            uci.handle("uci").contains(&"option name Simulations type spin default 50 min 1 max 1000000".to_string())
        );
        for bad in [
            "setoption name CPuct value 0",
            "setoption name CPuct value lots",
            "setoption name Simulations value 0",
            "setoption name MinibatchSize value 1000",
            "setoption name TreeReuse value sometimes",
            "setoption name Hash value 16",
        ] {
            assert!(is_error(&uci.handle(bad)), "{bad}");
        }
        let ucci = uci.handle("ucci");
        assert!(ucci.contains(&"option Simulations type spin min 1 max 1000000 default 50".to_string()), "{ucci:?}");
    }

    #[test]
    fn the_net_engine_answers_go_with_lc0_style_info() {
        let (mut uci, lines) = net_engine();
        assert!(uci.handle("position startpos moves h2e2").is_empty());
        assert!(uci.handle("go nodes 300").is_empty());
        uci.wait();
        let out = taken(&lines);
        let Some(best) = out.last().and_then(|l| l.strip_prefix("bestmove ")) else { panic!("{out:?}") };
        let best = best.split_whitespace().next().unwrap_or_default();
        assert!(uci_move(&uci.game, best).is_ok(), "{best} is legal");
        let info = out.iter().rev().find(|l| l.starts_with("info depth ")).expect("an info line");
        let words: Vec<&str> = info.split_whitespace().collect();
        for key in ["seldepth", "score", "nodes", "nps", "time", "pv"] {
            assert!(words.contains(&key), "{key} in {info}");
        }
        assert!(info.contains(" nodes 300 "), "the root's visits: {info}");
        // While it thinks, isready is answered; stop ends an infinite search with a bestmove.
        assert!(uci.handle("go infinite").is_empty());
        assert_eq!(uci.handle("isready"), ["readyok"]);
        assert!(uci.handle("stop").is_empty());
        assert!(taken(&lines).last().is_some_and(|l| l.starts_with("bestmove ")));
    }
}
