//! `qizero hub`: the alpha-beta engine for international draughts over Scan's Hub protocol,
//! version 2 (Scan 3.x, the Hub GUI).
//!
//! A line is a command followed by `name=value` pairs or bare flags; a value holding a space,
//! `=` or `"` is written in double quotes (`moves="32-28 19-23"`). Commands: `hub` (answers
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

use crate::protocol::{self, Engine, quoted};
use crate::search_thread::{DEFAULT_HASH_MB, MAX_HASH_MB, MAX_THREADS, Output, SearchThread};
use alphabeta::book::Book;
use alphabeta::{Limits, Score, SearchInfo, SearchResult};
use clap::Args;
use draughts::{Game, Move, Position, notation};
use rand::rngs::StdRng;
use std::sync::Arc;
use std::time::Duration;

/// Arguments of `qizero hub`.
#[derive(Args)]
pub struct HubArgs {
    /// Seed for choosing among book moves, for reproducible games (default: from the system).
    #[arg(long)]
    seed: Option<u64>,
}

/// Runs the engine on standard input and output until `quit` or the end of input.
///
/// # Errors
/// A read error on standard input.
pub fn run(args: &HubArgs) -> anyhow::Result<()> {
    let out = protocol::stdout();
    let mut engine = Hub::new(Arc::clone(&out), protocol::book_rng(args.seed));
    protocol::serve(&mut engine, &out)?;
    Ok(())
}

/// One parsed line: the command and its arguments, a flag's value being empty.
type Line = (String, Vec<(String, String)>);

/// The Hub front-end: the position, the level, the parameters and the search thread.
pub struct Hub {
    out: Output,
    search: SearchThread,
    game: Game,
    level: Limits,
    use_book: bool,
    book: Book<Game>,
    rng: StdRng,
    /// What `ponder-hit` starts: the pondered position and the level.
    ponder: Option<(Game, Limits)>,
    quit: bool,
}

impl Hub {
    /// A front-end at the start position with default parameters, writing search output
    /// (`info`, `done`) to `out`; `rng` picks among book moves.
    #[must_use]
    pub fn new(out: Output, rng: StdRng) -> Hub {
        Hub {
            out,
            search: SearchThread::new(DEFAULT_HASH_MB, 1),
            game: Game::new(),
            level: Limits::movetime(Duration::from_secs(1)),
            use_book: true,
            book: alphabeta::book::draughts(),
            rng,
            ponder: None,
            quit: false,
        }
    }

    /// Waits for a running finite search to end (tests).
    #[cfg(test)]
    fn wait(&mut self) {
        self.search.wait();
    }

    fn handshake(&self) -> Vec<String> {
        vec![
            format!("id name=qizero version={} author=\"the qizero authors\"", env!("CARGO_PKG_VERSION")),
            "param name=variant value=normal type=enum values=normal".to_string(),
            format!("param name=book value={} type=bool", self.use_book),
            format!("param name=hash value={} type=int min=1 max={MAX_HASH_MB}", self.search.hash_mb()),
            format!("param name=threads value={} type=int min=1 max={MAX_THREADS}", self.search.threads()),
            "wait".to_string(),
        ]
    }

    fn set_param(&mut self, args: &[(String, String)]) -> Result<(), String> {
        let name = arg(args, "name").unwrap_or_default();
        let value = arg(args, "value").unwrap_or_default();
        let busy = |e| format!("set-param {name}: {e}");
        match name {
            "" => Err("set-param: missing name".to_string()),
            "book" => {
                self.use_book = match value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(format!("set-param book: value must be true or false, not {}", quoted(value))),
                };
                Ok(())
            }
            "hash" => {
                let mb = whole(name, value, 1, MAX_HASH_MB as u64).map_err(|e| format!("set-param {e}"))? as usize;
                self.search.set_hash(mb).map_err(busy)
            }
            "threads" => {
                let n = whole(name, value, 1, MAX_THREADS as u64).map_err(|e| format!("set-param {e}"))? as usize;
                self.search.set_threads(n).map_err(busy)
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
            game.play(mv);
        }
        self.game = game;
        Ok(())
    }

    fn go(&mut self, args: &[(String, String)]) -> Result<Vec<String>, String> {
        let mode = ["think", "ponder", "analyze"].into_iter().find(|m| arg(args, m).is_some()).unwrap_or("think");
        self.ponder = None;
        match mode {
            "ponder" => {
                let ponder = Limits { infinite: true, ..Limits::default() };
                self.start(self.game.clone(), ponder)?;
                self.ponder = Some((self.game.clone(), self.level.clone()));
                Ok(Vec::new())
            }
            "analyze" => self.start(self.game.clone(), self.level.clone()).map(|()| Vec::new()),
            _ => self.think(self.game.clone(), self.level.clone()),
        }
    }

    /// A book move at once, or a search.
    fn think(&mut self, game: Game, limits: Limits) -> Result<Vec<String>, String> {
        if self.use_book && !limits.infinite {
            if let Some(mv) = self.book.pick(&game, &mut self.rng) {
                return Ok(vec![format!("done move={mv}")]);
            }
        }
        self.start(game, limits).map(|()| Vec::new())
    }

    fn start(&mut self, game: Game, limits: Limits) -> Result<(), String> {
        let (info_out, done_out) = (Arc::clone(&self.out), Arc::clone(&self.out));
        self.search
            .start(game, limits, move |info| info_out(&info_line(info)), move |_, result| done_out(&done_line(&result)))
            .map_err(|e| format!("go: {e}"))
    }

    fn ponder_hit(&mut self) -> Result<Vec<String>, String> {
        let Some((game, limits)) = self.ponder.take() else { return Ok(Vec::new()) };
        if !self.search.is_searching() {
            return Ok(Vec::new());
        }
        self.search.abandon();
        self.think(game, limits)
    }

    fn command(&mut self, command: &str, args: &[(String, String)]) -> Result<Vec<String>, String> {
        let none = |r: Result<(), String>| r.map(|()| Vec::new());
        // Scan's protocol allows only these during a search.
        let during_search = matches!(command, "ping" | "ponder-hit" | "stop" | "quit");
        if !during_search && self.search.is_searching() {
            return Err(format!("{command}: the engine is searching (send stop first)"));
        }
        match command {
            "hub" => Ok(self.handshake()),
            "set-param" => none(self.set_param(args)),
            "init" => Ok(vec!["ready".to_string()]),
            "new-game" => none(self.search.clear().map_err(|e| format!("new-game: {e}"))),
            "pos" => none(self.pos(args)),
            "level" => {
                self.level = parse_level(args).map_err(|e| format!("level: {e}"))?;
                Ok(Vec::new())
            }
            "go" => self.go(args),
            "ping" => Ok(vec!["pong".to_string()]),
            "ponder-hit" => self.ponder_hit(),
            "stop" => {
                self.ponder = None;
                self.search.stop();
                Ok(Vec::new())
            }
            "quit" => {
                self.search.stop();
                self.quit = true;
                Ok(Vec::new())
            }
            _ => Err(format!("unknown command {}", quoted(command))),
        }
    }
}

impl Engine for Hub {
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
        self.search.stop();
    }
}

/// The value of argument `name`, if given (empty for a flag).
fn arg<'a>(args: &'a [(String, String)], name: &str) -> Option<&'a str> {
    args.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

/// A character of a name or bare value, as Scan reads them.
fn is_id(c: char) -> bool {
    !c.is_control() && !c.is_whitespace() && c != '=' && c != '"'
}

/// Reads a line as Scan does: a command, then `name`, `name=value` or `name="value"` items.
/// `Ok(None)` for a blank line.
fn scan(line: &str) -> Result<Option<Line>, String> {
    let mut rest = line.trim_start();
    let take_name = |rest: &mut &str| -> String {
        let end = rest.find(|c| !is_id(c)).unwrap_or(rest.len());
        let (name, tail) = rest.split_at(end);
        *rest = tail.trim_start();
        name.to_string()
    };
    if rest.is_empty() {
        return Ok(None);
    }
    let command = take_name(&mut rest);
    if command.is_empty() {
        return Err(format!("a command must start the line, not {}", quoted(rest)));
    }
    let mut args = Vec::new();
    while !rest.is_empty() {
        let name = take_name(&mut rest);
        if name.is_empty() {
            return Err(format!("{command}: expected an argument name at {}", quoted(rest)));
        }
        let mut value = String::new();
        if let Some(after) = rest.strip_prefix('=') {
            rest = after.trim_start();
            if let Some(quoted_value) = rest.strip_prefix('"') {
                let Some(end) = quoted_value.find('"') else {
                    return Err(format!("{command}: {name}= has no closing quote"));
                };
                value = quoted_value[..end].to_string();
                rest = quoted_value[end + 1..].trim_start();
            } else {
                value = take_name(&mut rest);
                if value.is_empty() {
                    return Err(format!("{command}: {name}= has no value"));
                }
            }
        }
        args.push((name, value));
    }
    Ok(Some((command, args)))
}

/// Reads Hub's position: `W` or `B` to move, then squares 1 to 50, each `w`/`b` (men),
/// `W`/`B` (kings) or `e` (empty).
fn parse_board(text: &str) -> Result<Position, String> {
    let mut chars = text.chars();
    let side = match chars.next() {
        Some(c @ ('W' | 'B')) => c,
        _ => return Err(format!("position {} must start with W or B (the side to move)", quoted(text))),
    };
    let board: Vec<char> = chars.collect();
    if board.len() != 50 {
        return Err(format!(
            "position {} has {} squares after the side to move; expected 50",
            quoted(text),
            board.len()
        ));
    }
    let (mut white, mut black) = (Vec::new(), Vec::new());
    for (i, c) in board.into_iter().enumerate() {
        let square = i + 1;
        match c {
            'w' => white.push(square.to_string()),
            'W' => white.push(format!("K{square}")),
            'b' => black.push(square.to_string()),
            'B' => black.push(format!("K{square}")),
            'e' => {}
            _ => return Err(format!("square {square} holds {c:?}; expected one of w b W B e")),
        }
    }
    // Through FEN, so a board is checked exactly as a FEN would be (men on their promotion row).
    let fen = format!("{side}:W{}:B{}", white.join(","), black.join(","));
    Position::from_fen(&fen).map_err(|e| format!("position {}: {e}", quoted(text)))
}

/// Reads `level`'s arguments into search limits (see the module docs).
fn parse_level(args: &[(String, String)]) -> Result<Limits, String> {
    let mut level = Limits::default();
    for (name, value) in args {
        match name.as_str() {
            "depth" => level.depth = Some(whole(name, value, 1, 1000)? as u32),
            "nodes" => level.nodes = Some(whole(name, value, 1, u64::MAX)?),
            "moves" => level.moves_to_go = Some(whole(name, value, 0, u64::from(u32::MAX))? as u32),
            "move-time" => level.movetime = Some(seconds(name, value)?),
            "time" => level.time_left = Some(seconds(name, value)?),
            "inc" => level.increment = seconds(name, value)?,
            "infinite" => level.infinite = true,
            // The protocol asks engines to ignore what they do not know.
            _ => {}
        }
    }
    Ok(level)
}

/// A whole number in `min..=max`.
fn whole(name: &str, value: &str, min: u64, max: u64) -> Result<u64, String> {
    match value.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("{name}= must be a whole number {min}-{max}, not {}", quoted(value))),
    }
}

/// A time in seconds (a real number; negative counts as zero).
fn seconds(name: &str, value: &str) -> Result<Duration, String> {
    let bad = || format!("{name}= must be a time in seconds, not {}", quoted(value));
    let s: f64 = value.parse().map_err(|_| bad())?;
    if !s.is_finite() {
        return Err(bad());
    }
    Duration::try_from_secs_f64(s.max(0.0)).ok().filter(|d| d.as_secs() < 1 << 40).ok_or_else(bad)
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
    match result.best {
        // Hub GUIs never ask for a move where there is none; say so plainly if one does.
        None => "done".to_string(),
        Some(best) => match result.pv.as_slice() {
            [first, reply, ..] if *first == best => format!("done move={best} ponder={reply}"),
            _ => format!("done move={best}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use std::sync::Mutex;

    const START: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";

    /// A front-end whose search output is collected, the book off (its contents change).
    fn engine() -> (Hub, Arc<Mutex<Vec<String>>>) {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&lines);
        let out: Output = Arc::new(move |l: &str| {
            if let Ok(mut v) = sink.lock() {
                v.push(l.to_string());
            }
        });
        let mut hub = Hub::new(out, StdRng::seed_from_u64(1));
        hub.use_book = false;
        (hub, lines)
    }

    fn taken(lines: &Arc<Mutex<Vec<String>>>) -> Vec<String> {
        lines.lock().map(|mut v| std::mem::take(&mut *v)).unwrap_or_default()
    }

    fn is_error(answer: &[String]) -> bool {
        matches!(answer, [line] if line.starts_with("error message=\"") && line.ends_with('"')
            && line.matches('"').count() == 2)
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn scanning_lines() {
        let got = scan(r#"  pos pos=Wee moves = "32-28 19-23"  start"#);
        let want = ("pos".to_string(), pairs(&[("pos", "Wee"), ("moves", "32-28 19-23"), ("start", "")]));
        assert_eq!(got, Ok(Some(want)));
        assert_eq!(scan(r#"id author="""#), Ok(Some(("id".to_string(), pairs(&[("author", "")])))));
        assert_eq!(scan("   "), Ok(None));
        for bad in [r#"pos moves="32-28"#, "level depth=", "=x", r#""quoted""#, "go a==b"] {
            assert!(scan(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn boards() {
        let start = parse_board(START).expect("start");
        assert_eq!(start, Position::startpos());
        assert_eq!(format!("W{}", start.board_chars()), START);
        let kings = format!("B{}", "e".repeat(9) + "W" + &"e".repeat(39) + "B");
        assert_eq!(parse_board(&kings).ok(), Position::from_fen("B:WK10:BK50").ok());
        for bad in
            ["", "X", "W", &START[..50], &format!("{START}e"), &START.replace('W', "w"), &START.replacen('e', "x", 1)]
        {
            assert!(parse_board(bad).is_err(), "{bad}");
        }
        // A white man on its promotion row is impossible.
        assert!(parse_board(&format!("W{}", "w".to_string() + &"e".repeat(49))).is_err());
    }

    #[test]
    fn levels() {
        let l = parse_level(&pairs(&[("moves", "9"), ("time", "291.587"), ("inc", "0.5")])).expect("valid");
        assert_eq!(l.moves_to_go, Some(9));
        assert_eq!(l.time_left, Some(Duration::from_millis(291_587)));
        assert_eq!(l.increment, Duration::from_millis(500));
        let l = parse_level(&pairs(&[("move-time", "0.25"), ("future", "x")])).expect("valid");
        assert_eq!(l.movetime, Some(Duration::from_millis(250)));
        assert!(parse_level(&pairs(&[("infinite", "")])).expect("valid").infinite);
        for bad in [("depth", "x"), ("depth", "0"), ("nodes", "-1"), ("move-time", "NaN"), ("time", "1e400")] {
            assert!(parse_level(&pairs(&[bad])).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn handshake_and_params() {
        let (mut hub, _) = engine();
        hub.use_book = true;
        let lines = hub.handle("hub");
        assert!(lines[0].starts_with("id name=qizero version="));
        assert!(lines.contains(&"param name=book value=true type=bool".to_string()));
        assert_eq!(lines.last().map(String::as_str), Some("wait"));
        assert!(hub.handle("set-param name=book value=false").is_empty());
        assert!(!hub.use_book);
        assert!(hub.handle("set-param name=hash value=2").is_empty());
        assert_eq!(hub.search.hash_mb(), 2);
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
        assert!(hub.book.moves(&hub.game).iter().any(|(m, _)| m.to_string() == best), "{answer:?}");
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
}
