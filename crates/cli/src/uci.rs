//! `qizero uci`: the alpha-beta engine for xiangqi over UCI as Pikafish speaks it (moves in
//! coordinates with ranks 0-9, `h2e2`), with UCCI's handshake and dialect besides.
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
//! bad FEN or move keeps the previous position, a `go` with a bad argument starts nothing (so a
//! GUI's mistake shows at once instead of as a search with the wrong limits). Commands that need
//! an idle engine (`go`, `setoption`, `ucinewgame`) are refused the same way during a search;
//! `stop` and `ponderhit` when idle are ignored, as GUIs send them in races.

use crate::protocol::{self, Engine, quoted};
use crate::search_thread::{DEFAULT_HASH_MB, MAX_HASH_MB, MAX_THREADS, Output, SearchThread};
use alphabeta::book::Book;
use alphabeta::{Limits, MATE, Score, SearchInfo, SearchResult};
use clap::Args;
use rand::rngs::StdRng;
use std::sync::Arc;
use std::time::Duration;
use xiangqi::{Color, Game, Move, notation};

/// Arguments of `qizero uci`.
#[derive(Args)]
pub struct UciArgs {
    /// Seed for choosing among book moves, for reproducible games (default: from the system).
    #[arg(long)]
    seed: Option<u64>,
}

/// Runs the engine on standard input and output until `quit` or the end of input.
///
/// # Errors
/// A read error on standard input.
pub fn run(args: &UciArgs) -> anyhow::Result<()> {
    let out = protocol::stdout();
    let mut engine = Uci::new(Arc::clone(&out), protocol::book_rng(args.seed));
    protocol::serve(&mut engine, &out)?;
    Ok(())
}

/// Which protocol the GUI greeted us in; they differ in a few answers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Dialect {
    Uci,
    Ucci,
}

/// A parsed `go`.
#[derive(Clone, Debug, Default)]
struct Go {
    limits: Limits,
    ponder: bool,
}

/// The UCI/UCCI front-end: the position, the options and the search thread.
pub struct Uci {
    out: Output,
    search: SearchThread,
    game: Game,
    own_book: bool,
    book: Book<Game>,
    rng: StdRng,
    dialect: Dialect,
    /// UCCI `usemillisec`: `go time` and `increment` in milliseconds rather than seconds.
    millisec: bool,
    /// What `ponderhit` starts: the pondered position and the limits its `go` gave.
    ponder: Option<(Game, Limits)>,
    quit: bool,
}

impl Uci {
    /// A front-end at the start position with default options, writing search output
    /// (`info`, `bestmove`) to `out`; `rng` picks among book moves.
    #[must_use]
    pub fn new(out: Output, rng: StdRng) -> Uci {
        Uci {
            out,
            search: SearchThread::new(DEFAULT_HASH_MB, 1),
            game: Game::new(),
            own_book: true,
            book: alphabeta::book::xiangqi(),
            rng,
            dialect: Dialect::Uci,
            millisec: false,
            ponder: None,
            quit: false,
        }
    }

    /// Waits for a running finite search to end (tests).
    #[cfg(test)]
    fn wait(&mut self) {
        self.search.wait();
    }

    fn handshake(&mut self, dialect: Dialect) -> Vec<String> {
        self.dialect = dialect;
        let mut lines =
            vec![format!("id name qizero {}", env!("CARGO_PKG_VERSION")), "id author the qizero authors".to_string()];
        let (hash, threads) = (self.search.hash_mb(), self.search.threads());
        match dialect {
            Dialect::Uci => {
                lines.push(format!("option name Hash type spin default {hash} min 1 max {MAX_HASH_MB}"));
                lines.push(format!("option name Threads type spin default {threads} min 1 max {MAX_THREADS}"));
                lines.push(format!("option name OwnBook type check default {}", self.own_book));
                lines.push("uciok".to_string());
            }
            Dialect::Ucci => {
                lines.push(format!("option usemillisec type check default {}", self.millisec));
                lines.push(format!("option hashsize type spin min 1 max {MAX_HASH_MB} default {hash}"));
                lines.push(format!("option threads type spin min 1 max {MAX_THREADS} default {threads}"));
                lines.push(format!("option usebook type check default {}", self.own_book));
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
        match name.to_ascii_lowercase().as_str() {
            "hash" | "hashsize" => {
                let mb = int_value(&name, value.as_deref(), 1, MAX_HASH_MB)?;
                self.search.set_hash(mb).map_err(busy)
            }
            "threads" => {
                let n = int_value(&name, value.as_deref(), 1, MAX_THREADS)?;
                self.search.set_threads(n).map_err(busy)
            }
            "ownbook" | "usebook" => bool_value(&name, value.as_deref()).map(|b| self.own_book = b),
            "usemillisec" => bool_value(&name, value.as_deref()).map(|b| self.millisec = b),
            "newgame" | "clear hash" => self.search.clear().map_err(busy),
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
            // Coordinates only: WXF or Chinese has no place in this protocol.
            let mv = notation::parse_uci(text)
                .and_then(|_| notation::parse_move(game.position(), text))
                .map_err(|e| format!("position: move {} of {}: {e}", i + 1, moves.len()))?;
            game.play(mv);
        }
        self.game = game;
        Ok(())
    }

    fn go(&mut self, args: &[&str]) -> Result<Vec<String>, String> {
        if self.search.is_searching() {
            return Err("go: already searching (send stop first)".to_string());
        }
        let unit = if self.dialect == Dialect::Ucci && !self.millisec { TimeUnit::Seconds } else { TimeUnit::Millis };
        let go = parse_go(args, self.game.position().side_to_move(), unit)?;
        self.ponder = None;
        if go.ponder {
            let ponder = Limits { infinite: true, ..Limits::default() };
            self.start(self.game.clone(), ponder)?;
            self.ponder = Some((self.game.clone(), go.limits));
            return Ok(Vec::new());
        }
        self.think(self.game.clone(), go.limits)
    }

    /// A book move at once, or a search.
    fn think(&mut self, game: Game, limits: Limits) -> Result<Vec<String>, String> {
        if self.own_book && !limits.infinite {
            if let Some(mv) = self.book.pick(&game, &mut self.rng) {
                return Ok(vec![format!("info string book move {mv}"), format!("bestmove {mv}")]);
            }
        }
        self.start(game, limits)?;
        Ok(Vec::new())
    }

    fn start(&mut self, game: Game, limits: Limits) -> Result<(), String> {
        let (info_out, done_out) = (Arc::clone(&self.out), Arc::clone(&self.out));
        let dialect = self.dialect;
        self.search
            .start(
                game,
                limits,
                move |info| info_out(&info_line(info, dialect)),
                move |_, result| done_out(&bestmove_line(&result, dialect)),
            )
            .map_err(|e| format!("go: {e}"))
    }

    fn ponderhit(&mut self) -> Result<Vec<String>, String> {
        let Some((game, limits)) = self.ponder.take() else { return Ok(Vec::new()) };
        if !self.search.is_searching() {
            return Ok(Vec::new());
        }
        self.search.abandon();
        self.think(game, limits)
    }

    fn display(&self) -> Vec<String> {
        let pos = self.game.position();
        let mut lines: Vec<String> = pos.to_string().lines().map(str::to_string).collect();
        lines.push(format!("Fen: {}", pos.fen()));
        lines.push(self.game.moves().fold("Moves:".to_string(), |line, m| format!("{line} {m}")));
        lines
    }
}

impl Engine for Uci {
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
            "ucinewgame" => done(self.search.clear().map_err(|e| format!("ucinewgame: {e}"))),
            "position" => done(self.position(&args)),
            "go" => self.go(&args),
            "stop" => {
                self.ponder = None;
                self.search.stop();
                Ok(Vec::new())
            }
            "ponderhit" => self.ponderhit(),
            "quit" => {
                self.search.stop();
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
        self.search.stop();
    }
}

/// How UCCI's `time` and `increment` are counted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum TimeUnit {
    Millis,
    Seconds,
}

/// Reads the arguments of `go` for `side` to move. Any unknown word or bad value rejects the
/// whole command.
fn parse_go(args: &[&str], side: Color, unit: TimeUnit) -> Result<Go, String> {
    let mut go = Go::default();
    let (mut wtime, mut btime, mut winc, mut binc, mut time, mut inc) = (None, None, None, None, None, None);
    let mut words = args.iter();
    while let Some(&word) = words.next() {
        match word {
            "infinite" => go.limits.infinite = true,
            "ponder" => go.ponder = true,
            // UCCI: the opponent offers a draw; we play on.
            "draw" => {}
            "searchmoves" => return Err("go: searchmoves is not supported".to_string()),
            "depth" | "nodes" | "mate" | "movetime" | "wtime" | "btime" | "winc" | "binc" | "movestogo" | "time"
            | "increment" | "opptime" | "oppmovestogo" | "oppincrement" => {
                let Some(&value) = words.next() else { return Err(format!("go: '{word}' needs a value")) };
                match word {
                    "depth" if value == "infinite" => go.limits.infinite = true,
                    "depth" => go.limits.depth = Some(count(word, value, 1)?),
                    "mate" => go.limits.depth = Some(count::<u32>(word, value, 1)?.saturating_mul(2) - 1),
                    "nodes" => go.limits.nodes = Some(count(word, value, 1)?),
                    "movestogo" => go.limits.moves_to_go = Some(count(word, value, 0)?),
                    "movetime" => go.limits.movetime = Some(duration(word, value, TimeUnit::Millis)?),
                    "wtime" => wtime = Some(duration(word, value, TimeUnit::Millis)?),
                    "btime" => btime = Some(duration(word, value, TimeUnit::Millis)?),
                    "winc" => winc = Some(duration(word, value, TimeUnit::Millis)?),
                    "binc" => binc = Some(duration(word, value, TimeUnit::Millis)?),
                    "time" => time = Some(duration(word, value, unit)?),
                    "increment" => inc = Some(duration(word, value, unit)?),
                    // The opponent's clock: checked, not used.
                    "oppmovestogo" => {
                        count::<u32>(word, value, 0)?;
                    }
                    _ => {
                        duration(word, value, unit)?;
                    }
                }
            }
            _ => return Err(format!("go: unknown word {}", quoted(word))),
        }
    }
    let (own_time, own_inc) = match side {
        Color::Red => (wtime, winc),
        Color::Black => (btime, binc),
    };
    go.limits.time_left = time.or(own_time);
    go.limits.increment = inc.or(own_inc).unwrap_or_default();
    Ok(go)
}

/// A whole number at least `min`.
fn count<T: std::str::FromStr + PartialOrd + From<u8>>(word: &str, value: &str, min: u8) -> Result<T, String> {
    match value.parse::<T>() {
        Ok(n) if n >= T::from(min) => Ok(n),
        _ => Err(format!("go: '{word}' needs a whole number of at least {min}, not {}", quoted(value))),
    }
}

/// A time: a number of `unit`s. Negative clocks (a GUI reporting an overstepped clock) count as
/// zero.
fn duration(word: &str, value: &str, unit: TimeUnit) -> Result<Duration, String> {
    let bad = || format!("go: '{word}' needs a time in {unit:?}, not {}", quoted(value));
    let n: f64 = value.parse().map_err(|_| bad())?;
    if !n.is_finite() {
        return Err(bad());
    }
    let secs = match unit {
        TimeUnit::Millis => n / 1000.0,
        TimeUnit::Seconds => n,
    };
    // Infinity, NaN and absurdly large values are refused rather than saturated.
    Duration::try_from_secs_f64(secs.max(0.0)).ok().filter(|d| d.as_secs() < 1 << 40).ok_or_else(bad)
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

/// UCCI writes scores as a bare number, mates as large ones.
fn ucci_score(score: Score) -> i32 {
    match score {
        Score::Cp(c) => c,
        Score::Mate(m) if m > 0 => MATE - (2 * m - 1),
        Score::Mate(m) => -MATE + 2 * -m,
    }
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
    match result.best {
        None if dialect == Dialect::Ucci => "nobestmove".to_string(),
        None => "bestmove (none)".to_string(),
        Some(best) => match result.pv.as_slice() {
            [first, reply, ..] if *first == best => format!("bestmove {best} ponder {reply}"),
            _ => format!("bestmove {best}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use std::sync::Mutex;

    const MATED: &str = "3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1";

    /// A front-end whose search output is collected.
    fn engine() -> (Uci, Arc<Mutex<Vec<String>>>) {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&lines);
        let out: Output = Arc::new(move |l: &str| {
            if let Ok(mut v) = sink.lock() {
                v.push(l.to_string());
            }
        });
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
        assert_eq!(uci.search.hash_mb(), 2);
        assert!(uci.handle("setoption name threads value 3").is_empty());
        assert_eq!(uci.search.threads(), 3);
        assert!(uci.handle("setoption name OwnBook value false").is_empty());
        assert!(!uci.own_book);
        assert!(uci.handle("setoption usebook true").is_empty());
        assert!(uci.own_book);
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
        assert_eq!(uci.search.hash_mb(), 2);
        assert!(uci.own_book);
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
    fn go_parsing() {
        let go = |args: &str, side| parse_go(&args.split_whitespace().collect::<Vec<_>>(), side, TimeUnit::Millis);
        let g = go("wtime 60000 btime 30000 winc 100 binc 200 movestogo 20", Color::Black).expect("valid");
        assert_eq!(g.limits.time_left, Some(Duration::from_secs(30)));
        assert_eq!(g.limits.increment, Duration::from_millis(200));
        assert_eq!(g.limits.moves_to_go, Some(20));
        let g = go("wtime -50 btime 10", Color::Red).expect("valid");
        assert_eq!(g.limits.time_left, Some(Duration::ZERO));
        let g = go("depth 5 nodes 1000 movetime 250 ponder", Color::Red).expect("valid");
        assert_eq!((g.limits.depth, g.limits.nodes), (Some(5), Some(1000)));
        assert_eq!(g.limits.movetime, Some(Duration::from_millis(250)));
        assert!(g.ponder);
        assert!(go("infinite", Color::Red).expect("valid").limits.infinite);
        assert_eq!(go("mate 3", Color::Red).expect("valid").limits.depth, Some(5));
        for bad in
            ["depth", "depth x", "depth 0", "depth -3", "nodes 1e9", "movetime NaN", "movetime inf", "wtime 1e300"]
        {
            assert!(go(bad, Color::Red).is_err(), "{bad}");
        }
        assert!(go("depht 3", Color::Red).is_err());
        assert!(go("searchmoves h2e2", Color::Red).is_err());
        let seconds = parse_go(&["time", "1.5", "increment", "2"], Color::Red, TimeUnit::Seconds).expect("valid");
        assert_eq!(seconds.limits.time_left, Some(Duration::from_millis(1500)));
        assert_eq!(seconds.limits.increment, Duration::from_secs(2));
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

    #[test]
    fn book_answers_at_once() {
        let (mut uci, _) = engine();
        let answer = uci.handle("go movetime 10000");
        let best = answer.last().and_then(|l| l.strip_prefix("bestmove ")).unwrap_or_default();
        assert_eq!(answer[0], format!("info string book move {best}"));
        assert!(uci.book.moves(&uci.game).iter().any(|(m, _)| m.to_string() == best), "{best}");
        assert!(!uci.search.is_searching());
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
        assert_eq!(ucci_score(Score::Mate(1)), MATE - 1);
        assert_eq!(ucci_score(Score::Mate(-2)), -MATE + 4);
    }
}
