//! The grammar of what a UCI (or UCCI) engine may print, for xiangqi with Pikafish's
//! coordinates (`h2e2`, ranks 0-9), checked line by line against the state of the exchange.
//!
//! UCI (Stefan Meyer-Kahlen's 2006 text; Pikafish's wiki for xiangqi):
//! - `id name <text>`, `id author <text>`, `option name <N> type ...`: only between `uci` and
//!   `uciok`; `uciok` only after `id name` and `id author`. Options: `type spin default D min A
//!   max B` (integers, A <= D <= B), `type check default true|false`, `type string default
//!   [<text>]`, `type button`, `type combo default X var A var B ...` (X among the vars); keys
//!   in any order, each once, no others; names unique (case-insensitively, as UCI matches them).
//! - `readyok`: one per `isready`.
//! - `info ...`: keys from depth, seldepth (only with depth), time, nodes, pv, multipv, score
//!   (`cp <n>` or `mate <n>`, n not 0, then at most one of lowerbound/upperbound), wdl (three
//!   counts summing to 1000, as lc0 writes them), currmove, currmovenumber, hashfull (0-1000),
//!   nps, tbhits, cpuload (0-1000), each at most once with a value of its type; `string <text>`
//!   ends the line. Outside `info string`, only during a search. `pv` moves must be legal one
//!   after the other from the position searched, `currmove` legal there.
//! - `bestmove <m> [ponder <p>]`: one per `go`, m legal in the position searched and p legal
//!   after it; `bestmove (none)` only where there is no legal move; never before `stop` (or
//!   `ponderhit`) for `go infinite` (or `go ponder`).
//!
//! UCCI (xqbase.com, version 3.0): `id name|author|copyright|user <text>`, `option <name> type
//! check|spin|combo|button|label|string` with `min`, `max`, `var`, `default` as the type needs,
//! `ucciok`; `info` with a bare integer `score` and UCCI's keys (time, nodes, depth, score, pv,
//! currmove), plus UCI's seldepth, nps and hashfull, which UCCI GUIs read or skip, and free
//! text after `info message` as after `info string`; `bestmove <m> [ponder <p>] [draw|resign]`,
//! `nobestmove` where there is no move, and `bye` after `quit`.
//!
//! Both: qizero's error line `info string error: <text>` may come at any time. Lines are
//! written as the grammar spells them: single spaces between words, nothing before or after,
//! no control characters. That is stricter than UCI, which allows any whitespace, and catches
//! a stray `\r` or a formatting slip before a GUI does.

use super::session::Checker;
use xiangqi::{Game, Move, notation};

/// Which protocol the handshake chose.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `uci` ... `uciok`.
    Uci,
    /// `ucci` ... `ucciok`.
    Ucci,
}

/// An option declared in the handshake, as the checker parsed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `type spin`.
    Spin { default: i64, min: i64, max: i64 },
    /// `type check`.
    Check { default: bool },
    /// `type string`.
    Text { default: String },
    /// `type button`.
    Button,
    /// `type combo`.
    Combo { default: String, vars: Vec<String> },
    /// UCCI's `type label`.
    Label,
}

/// One declared option.
#[derive(Clone, Debug)]
pub struct EngineOption {
    /// Its name as declared.
    pub name: String,
    /// Its type, default and range.
    pub kind: OptionKind,
}

impl EngineOption {
    /// The command that sets this option to its declared default (or presses the button), in
    /// `dialect`; `None` for a label.
    #[must_use]
    pub fn set_default(&self, dialect: Dialect) -> Option<String> {
        let value = match &self.kind {
            OptionKind::Spin { default, .. } => default.to_string(),
            OptionKind::Check { default } => default.to_string(),
            OptionKind::Text { default } | OptionKind::Combo { default, .. } => default.clone(),
            OptionKind::Button => String::new(),
            OptionKind::Label => return None,
        };
        Some(match (dialect, value.is_empty()) {
            (Dialect::Uci, true) => format!("setoption name {}", self.name),
            (Dialect::Uci, false) => format!("setoption name {} value {value}", self.name),
            (Dialect::Ucci, true) => format!("setoption {}", self.name),
            (Dialect::Ucci, false) => format!("setoption {} {value}", self.name),
        })
    }
}

/// The search a `go` started, until its `bestmove`.
struct Search {
    /// The position searched.
    game: Game,
    /// `go infinite` or `go ponder` before its `stop` / `ponderhit`: no `bestmove` yet.
    held: bool,
    /// `stop` (or `quit`) was sent: a `bestmove` is owed at once.
    stopped: bool,
}

/// The UCI/UCCI checker. See the module docs.
pub struct UciChecker {
    dialect: Option<Dialect>,
    /// Between `uci`/`ucci` and `uciok`/`ucciok`, with the ids seen so far.
    handshake: Option<(Dialect, Vec<String>)>,
    /// The options of the last handshake.
    pub options: Vec<EngineOption>,
    /// The position of the last well-formed `position` command.
    game: Game,
    search: Option<Search>,
    readyok_owed: usize,
    quit: bool,
    bye: bool,
    /// `info` lines with a score, and `bestmove` lines, seen: a session checks it saw searches.
    pub infos: usize,
    /// `bestmove` (or `nobestmove`) lines seen.
    pub bestmoves: usize,
}

impl Default for UciChecker {
    fn default() -> Self {
        UciChecker {
            dialect: None,
            handshake: None,
            options: Vec::new(),
            game: Game::new(),
            search: None,
            readyok_owed: 0,
            quit: false,
            bye: false,
            infos: 0,
            bestmoves: 0,
        }
    }
}

/// The words of a line, or why its spacing or characters break the house rule.
pub fn words(line: &str) -> Result<Vec<&str>, String> {
    if line.is_empty() {
        return Err("empty line".into());
    }
    if let Some(c) = line.chars().find(|c| c.is_control()) {
        return Err(format!("control character {c:?}"));
    }
    if line.starts_with(' ') || line.ends_with(' ') || line.contains("  ") {
        return Err("spacing: words must be separated by single spaces, none before or after".into());
    }
    Ok(line.split(' ').collect())
}

/// A move in Pikafish coordinates, legal in `game`.
fn legal(game: &Game, text: &str) -> Result<Move, String> {
    notation::parse_move_strict(game.position(), text)
        .map_err(|e| format!("move {text:?} in {}: {e}", game.position().fen()))
}

/// True if `text` looks like a coordinate move (so a `pv` goes on), legal or not.
fn is_move_shaped(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 4
        && (b'a'..=b'i').contains(&b[0])
        && b[1].is_ascii_digit()
        && (b'a'..=b'i').contains(&b[2])
        && b[3].is_ascii_digit()
}

fn int<T: std::str::FromStr>(key: &str, text: Option<&&str>) -> Result<T, String> {
    let text = text.ok_or_else(|| format!("{key} without a value"))?;
    // Rust's parsers take a leading '+'; the protocol's numbers do not have one.
    if text.starts_with('+') {
        return Err(format!("{key} {text}: not a plain integer"));
    }
    text.parse().map_err(|_| format!("{key} {text}: not an integer of the right range"))
}

impl UciChecker {
    /// The dialect of the last handshake.
    #[must_use]
    pub fn dialect(&self) -> Option<Dialect> {
        self.dialect
    }

    /// The option declared as `name` (case-insensitively), if any.
    #[must_use]
    pub fn option(&self, name: &str) -> Option<&EngineOption> {
        self.options.iter().find(|o| o.name.eq_ignore_ascii_case(name))
    }

    /// The position a `position` command sets, or `None` if it is malformed (the server then
    /// keeps its position, as qizero documents).
    fn position(args: &[&str]) -> Option<Game> {
        let (mut game, rest) = match args {
            ["startpos", rest @ ..] => (Game::new(), rest),
            ["fen", rest @ ..] => {
                let end = rest.iter().position(|w| *w == "moves").unwrap_or(rest.len());
                (Game::from_fen(&rest[..end].join(" ")).ok()?, &rest[end..])
            }
            _ => return None,
        };
        let moves = match rest {
            [] => rest,
            ["moves", moves @ ..] => moves,
            _ => return None,
        };
        for text in moves {
            let mv = legal(&game, text).ok()?;
            game.play_unchecked(mv);
        }
        Some(game)
    }

    fn option_line(&self, dialect: Dialect, words: &[&str]) -> Result<EngineOption, String> {
        let (name, rest) = match dialect {
            Dialect::Uci => {
                let rest = words.get(1..).unwrap_or_default();
                let ["name", rest @ ..] = rest else { return Err("expected 'option name <name> type ...'".into()) };
                let at = rest.iter().position(|w| *w == "type").ok_or("no 'type'")?;
                (rest[..at].join(" "), &rest[at..])
            }
            Dialect::Ucci => match words {
                [_, name, rest @ ..] => (name.to_string(), rest),
                _ => return Err("expected 'option <name> type ...'".into()),
            },
        };
        if name.is_empty() {
            return Err("the option has no name".into());
        }
        if self.options.iter().any(|o| o.name.eq_ignore_ascii_case(&name)) {
            return Err(format!("option {name:?} declared twice"));
        }
        let ["type", kind, rest @ ..] = rest else { return Err("expected 'type <kind>' after the name".into()) };
        // Split the rest into `key value...` segments; a string's default takes the rest.
        let keys = ["default", "min", "max", "var"];
        let mut fields: Vec<(&str, String)> = Vec::new();
        let mut i = 0;
        while i < rest.len() {
            let key = rest[i];
            if !keys.contains(&key) {
                return Err(format!("unexpected word {key:?} in the option's type fields"));
            }
            let end = if *kind == "string" && key == "default" {
                rest.len()
            } else {
                rest[i + 1..].iter().position(|w| keys.contains(w)).map_or(rest.len(), |k| i + 1 + k)
            };
            fields.push((key, rest[i + 1..end].join(" ")));
            i = end;
        }
        let once = |key: &str| -> Result<Option<String>, String> {
            let mut found = fields.iter().filter(|(k, _)| *k == key);
            let first = found.next().map(|(_, v)| v.clone());
            if found.next().is_some() { Err(format!("{key} given twice")) } else { Ok(first) }
        };
        let only = |allowed: &[&str]| -> Result<(), String> {
            match fields.iter().find(|(k, _)| !allowed.contains(k)) {
                Some((k, _)) => Err(format!("type {kind} takes no {k}")),
                None => Ok(()),
            }
        };
        let required = |key: &str| -> Result<String, String> {
            once(key)?.filter(|v| !v.is_empty()).ok_or_else(|| format!("type {kind} needs a {key} value"))
        };
        let number = |key: &str| -> Result<i64, String> {
            let v = required(key)?;
            int(key, Some(&v.as_str()))
        };
        let kind = match *kind {
            "spin" => {
                only(&["default", "min", "max"])?;
                let (default, min, max) = (number("default")?, number("min")?, number("max")?);
                if !(min <= default && default <= max) {
                    return Err(format!("default {default} outside min {min} max {max}"));
                }
                OptionKind::Spin { default, min, max }
            }
            "check" => {
                only(&["default"])?;
                match required("default")?.as_str() {
                    "true" => OptionKind::Check { default: true },
                    "false" => OptionKind::Check { default: false },
                    other => return Err(format!("a check's default must be true or false, not {other:?}")),
                }
            }
            "string" => {
                only(&["default"])?;
                // UCI GUIs read `<empty>` as the empty string; a bare `default` says the same.
                let default = once("default")?.ok_or("type string needs a default")?;
                OptionKind::Text { default: if default == "<empty>" { String::new() } else { default } }
            }
            "button" => {
                only(&[])?;
                OptionKind::Button
            }
            "label" if dialect == Dialect::Ucci => {
                only(&[])?;
                OptionKind::Label
            }
            "combo" => {
                only(&["default", "var"])?;
                let default = required("default")?;
                let vars: Vec<String> = fields.iter().filter(|(k, _)| *k == "var").map(|(_, v)| v.clone()).collect();
                if vars.is_empty() || vars.iter().any(String::is_empty) {
                    return Err("a combo needs one or more non-empty vars".into());
                }
                if !vars.contains(&default) {
                    return Err(format!("combo default {default:?} is none of its vars {vars:?}"));
                }
                OptionKind::Combo { default, vars }
            }
            other => return Err(format!("unknown option type {other:?}")),
        };
        Ok(EngineOption { name, kind })
    }

    fn info(&mut self, dialect: Dialect, words: &[&str]) -> Result<(), String> {
        if words.len() < 2 {
            return Err("an empty info".into());
        }
        if words[1] == "string" || (dialect == Dialect::Ucci && words[1] == "message") {
            return Ok(());
        }
        let Some(search) = &self.search else { return Err("search information with no search running".into()) };
        let root = &search.game;
        let mut seen: Vec<&str> = Vec::new();
        // `i` is the key's index; each arm leaves `next` at the word after its values.
        let mut i = 1;
        while i < words.len() {
            let key = words[i];
            if seen.contains(&key) {
                return Err(format!("{key} given twice"));
            }
            seen.push(key);
            let value = words.get(i + 1);
            let mut next = i + 2;
            match (dialect, key) {
                (_, "depth" | "time" | "nodes" | "nps") | (Dialect::Uci, "tbhits") => {
                    int::<u64>(key, value)?;
                }
                (_, "seldepth") => {
                    int::<u64>(key, value)?;
                    if !seen.contains(&"depth") {
                        return Err("seldepth without a depth before it".into());
                    }
                }
                (_, "hashfull") | (Dialect::Uci, "cpuload") => {
                    let n: u32 = int(key, value)?;
                    if n > 1000 {
                        return Err(format!("{key} {n} is over 1000 (it counts per mille)"));
                    }
                }
                (Dialect::Uci, "multipv" | "currmovenumber") => {
                    if int::<u32>(key, value)? == 0 {
                        return Err(format!("{key} counts from 1"));
                    }
                }
                (Dialect::Uci, "score") => {
                    match value.copied() {
                        Some("cp") => {
                            int::<i32>("score cp", words.get(i + 2))?;
                        }
                        Some("mate") => {
                            if int::<i32>("score mate", words.get(i + 2))? == 0 {
                                return Err("score mate 0".into());
                            }
                        }
                        other => return Err(format!("score must be 'cp <n>' or 'mate <n>', not {other:?}")),
                    }
                    next = i + 3;
                    if matches!(words.get(next), Some(&("lowerbound" | "upperbound"))) {
                        next += 1;
                    }
                }
                (Dialect::Ucci, "score") => {
                    int::<i32>(key, value)?;
                }
                (Dialect::Uci, "wdl") => {
                    let w: u32 = int("wdl win", value)?;
                    let d: u32 = int("wdl draw", words.get(i + 2))?;
                    let l: u32 = int("wdl loss", words.get(i + 3))?;
                    if w + d + l != 1000 {
                        return Err(format!("wdl {w} {d} {l} does not sum to 1000"));
                    }
                    next = i + 4;
                }
                (_, "currmove") => {
                    legal(root, value.ok_or("currmove without a move")?).map_err(|e| format!("currmove: {e}"))?;
                }
                (_, "pv") => {
                    let mut game = root.clone();
                    next = i + 1;
                    while next < words.len() && is_move_shaped(words[next]) {
                        let mv = legal(&game, words[next]).map_err(|e| format!("pv move {}: {e}", next - i))?;
                        game.play_unchecked(mv);
                        next += 1;
                    }
                    if next == i + 1 {
                        return Err("pv without a move".into());
                    }
                }
                (Dialect::Uci, "string") | (Dialect::Ucci, "message") => break,
                _ => return Err(format!("{key:?} is no info key of {dialect:?}")),
            }
            i = next;
        }
        if seen.contains(&"score") {
            self.infos += 1;
        }
        Ok(())
    }

    fn bestmove(&mut self, dialect: Dialect, words: &[&str]) -> Result<(), String> {
        let Some(search) = self.search.take() else { return Err("a bestmove with no search running".into()) };
        let verdict = UciChecker::judge_bestmove(dialect, &search, words);
        // A rejected line leaves the search owed (the checker's own tests go on after one).
        if verdict.is_err() {
            self.search = Some(search);
        } else {
            self.bestmoves += 1;
        }
        verdict
    }

    fn judge_bestmove(dialect: Dialect, search: &Search, words: &[&str]) -> Result<(), String> {
        if search.held {
            return Err("a bestmove before stop or ponderhit (go infinite / go ponder must wait)".into());
        }
        let no_move = search.game.legal_moves().is_empty();
        match (dialect, words) {
            (Dialect::Uci, ["bestmove", "(none)"]) | (Dialect::Ucci, ["nobestmove"]) if no_move => return Ok(()),
            (_, ["bestmove", "(none)"] | ["nobestmove"]) if !no_move => {
                return Err(format!("no move given, yet {} has legal moves", search.game.position().fen()));
            }
            _ if no_move => {
                let expected = if dialect == Dialect::Uci { "bestmove (none)" } else { "nobestmove" };
                return Err(format!("{} has no legal move: expected {expected}", search.game.position().fen()));
            }
            _ => {}
        }
        let (best, rest) = match words {
            ["bestmove", best, rest @ ..] => (*best, rest),
            _ => return Err("expected 'bestmove <move> [ponder <move>]'".into()),
        };
        let mut game = search.game.clone();
        let mv = legal(&game, best)?;
        game.play_unchecked(mv);
        let rest = match rest {
            ["ponder", reply, rest @ ..] => {
                legal(&game, reply).map_err(|e| format!("ponder: {e}"))?;
                rest
            }
            rest => rest,
        };
        match (dialect, rest) {
            (_, []) | (Dialect::Ucci, ["draw" | "resign"]) => Ok(()),
            _ => Err(format!("unexpected words after the move: {rest:?}")),
        }
    }
}

impl Checker for UciChecker {
    fn sent(&mut self, command: &str) {
        let words: Vec<&str> = command.split_whitespace().collect();
        match words.as_slice() {
            ["uci"] | ["ucci"] => {
                let dialect = if words[0] == "uci" { Dialect::Uci } else { Dialect::Ucci };
                self.dialect = Some(dialect);
                self.handshake = Some((dialect, Vec::new()));
                self.options.clear();
            }
            ["isready"] => self.readyok_owed += 1,
            ["position", args @ ..] => {
                if let Some(game) = UciChecker::position(args) {
                    self.game = game;
                }
            }
            // A `go` during a search is refused (qizero answers with an error line); GUIs
            // never send one.
            ["go", args @ ..] if self.search.is_none() => {
                let held = args.iter().any(|w| *w == "infinite" || *w == "ponder");
                self.search = Some(Search { game: self.game.clone(), held, stopped: false });
            }
            ["stop"] | ["quit"] => {
                if let Some(search) = &mut self.search {
                    search.held = false;
                    search.stopped = true;
                }
                self.quit |= words[0] == "quit";
            }
            ["ponderhit"] => {
                if let Some(search) = &mut self.search {
                    search.held = false;
                }
            }
            _ => {}
        }
    }

    fn check(&mut self, line: &str) -> Result<(), String> {
        let words = words(line)?;
        let Some(dialect) = self.dialect else { return Err("output before uci or ucci".into()) };
        let in_handshake = |checker: &UciChecker| checker.handshake.is_some();
        match words[0] {
            "id" => {
                let Some((dialect, ids)) = &mut self.handshake else { return Err("id outside the handshake".into()) };
                let kinds: &[&str] = if *dialect == Dialect::Uci {
                    &["name", "author"]
                } else {
                    &["name", "author", "copyright", "user"]
                };
                match words.get(1) {
                    Some(kind) if kinds.contains(kind) && words.len() > 2 => {
                        if ids.iter().any(|k| k == kind) {
                            return Err(format!("id {kind} given twice"));
                        }
                        ids.push((*kind).to_string());
                        Ok(())
                    }
                    _ => Err(format!("expected 'id <{}> <text>'", kinds.join("|"))),
                }
            }
            "option" if in_handshake(self) => {
                let option = self.option_line(dialect, &words)?;
                self.options.push(option);
                Ok(())
            }
            "option" => Err("option outside the handshake".into()),
            "uciok" | "ucciok" => {
                let expected = if words[0] == "uciok" { Dialect::Uci } else { Dialect::Ucci };
                match self.handshake.take() {
                    Some((d, ids)) if d == expected && words.len() == 1 => {
                        let needed: &[&str] = if d == Dialect::Uci { &["name", "author"] } else { &["name"] };
                        match needed.iter().find(|k| !ids.iter().any(|i| i == *k)) {
                            Some(missing) => Err(format!("{} without id {missing}", words[0])),
                            None => Ok(()),
                        }
                    }
                    _ => Err(format!("{line} that answers no {expected:?} handshake")),
                }
            }
            "readyok" if words.len() == 1 && self.readyok_owed > 0 => {
                self.readyok_owed -= 1;
                Ok(())
            }
            "readyok" => Err("readyok that answers no isready".into()),
            "info" => self.info(dialect, &words),
            "bestmove" | "nobestmove" => self.bestmove(dialect, &words),
            "bye" if dialect == Dialect::Ucci && self.quit && !self.bye && words.len() == 1 => {
                self.bye = true;
                Ok(())
            }
            _ => Err(format!("no such line in {dialect:?}")),
        }
    }

    fn finish(&mut self) -> Result<(), String> {
        if self.handshake.is_some() {
            return Err("the handshake never ended".into());
        }
        if self.readyok_owed > 0 {
            return Err(format!("{} isready never answered", self.readyok_owed));
        }
        if self.search.as_ref().is_some_and(|s| s.stopped && !self.quit) {
            return Err("no bestmove after stop".into());
        }
        if self.quit && self.dialect == Some(Dialect::Ucci) && !self.bye {
            return Err("UCCI's quit must be answered with bye".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after_uci() -> UciChecker {
        let mut c = UciChecker::default();
        c.sent("uci");
        for line in ["id name x", "id author y", "uciok"] {
            c.check(line).expect("handshake");
        }
        c
    }

    #[test]
    fn grammar_rejects_what_it_should() {
        let mut c = UciChecker::default();
        c.sent("uci");
        for good in [
            "id name qizero 0.1",
            "id author someone",
            "option name Hash type spin default 16 min 1 max 4096",
            "option name Clear Hash type button",
            "option name WeightsFile type string default <empty>",
            "option name Log type string default",
            "option name Style type combo default Solid var Solid var Risky",
        ] {
            c.check(good).unwrap_or_else(|e| panic!("{good}: {e}"));
        }
        for bad in [
            "option name Threads type spin default 0 min 1 max 64",
            "option name hash type check default true",
            "option name Ponder type check default yes",
            "option name X type combo default Z var A",
            "option name Y type spin default 1 min 1",
            "option name Z type button default 1",
            "id name  two spaces",
            "id name trailing ",
        ] {
            assert!(c.check(bad).is_err(), "{bad} passed");
        }
        c.check("uciok").expect("uciok");
        assert!(c.check("uciok").is_err(), "a second uciok");
        assert!(c.check("readyok").is_err(), "readyok unasked");
        assert!(c.check("info depth 1 score cp 3 pv h2e2").is_err(), "info with no search");
        assert!(c.check("info string anything goes").is_ok());
    }

    #[test]
    fn search_lines_are_checked_against_the_position() {
        let mut c = after_uci();
        c.sent("position startpos moves h2e2");
        c.sent("go depth 3");
        c.check("info depth 1 seldepth 2 score cp -20 nodes 10 nps 100 time 1 hashfull 0 pv h9g7 h0g2")
            .expect("legal pv");
        c.check("info depth 2 score mate -3 upperbound wdl 0 10 990 pv b9c7").expect("mate score, wdl");
        for bad in [
            "info depth 1 score cp 1 pv h2e2",
            "info depth 1 score cp 1 pv h9g7 h9g7",
            "info seldepth 3 depth 2",
            "info depth 1 score 5",
            "info depth 1 score mate 0",
            "info depth -1",
            "info hashfull 1001",
            "info wdl 1 2 3",
            "info depth 2 depth 3",
            "info frobs 3",
            "bestmove h2e2",
            "bestmove h9g7 ponder h9g7",
        ] {
            assert!(c.check(bad).is_err(), "{bad} passed");
        }
        c.check("bestmove h9g7 ponder h0g2").expect("legal bestmove");
        assert!(c.check("bestmove h9g7").is_err(), "a second bestmove");
        c.sent("go infinite");
        assert!(c.check("bestmove h9g7").is_err(), "bestmove before stop");
        c.sent("stop");
        c.check("bestmove h9g7").expect("after stop");
        c.sent("position fen 3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1");
        c.sent("go depth 1");
        assert!(c.check("bestmove d9e9").is_err());
        c.check("bestmove (none)").expect("no legal move");
        c.finish().expect("nothing owed");
    }

    #[test]
    fn ucci_dialect() {
        let mut c = UciChecker::default();
        c.sent("ucci");
        for good in [
            "id name qizero",
            "id copyright nobody",
            "option usemillisec type check default false",
            "option hashsize type spin min 1 max 4096 default 16",
            "option newgame type button",
            "option style type combo var solid var risky default solid",
            "ucciok",
        ] {
            c.check(good).unwrap_or_else(|e| panic!("{good}: {e}"));
        }
        c.sent("position startpos");
        c.sent("go depth 2");
        c.check("info depth 1 score 12 time 1 nodes 30 pv h2e2").expect("bare score");
        c.check("info message thinking hard").expect("message");
        for bad in ["info depth 1 score cp 12", "info wdl 500 0 500", "bestmove (none)", "bye"] {
            assert!(c.check(bad).is_err(), "{bad} passed");
        }
        c.check("bestmove h2e2 draw").expect("draw offer");
        c.sent("quit");
        assert!(c.finish().is_err(), "quit without bye");
        c.check("bye").expect("bye after quit");
        c.finish().expect("nothing owed");
    }
}
