//! The grammar of what a Hub engine may print (Scan's Hub protocol, version 2, the
//! `protocol.txt` of Scan 3.1), for international draughts, checked line by line against the
//! state of the exchange.
//!
//! Every line is `<command> <arg>=<value> ...`; a value is written bare, or in double quotes
//! when it holds a space or `=` or is empty (the protocol has no escape, so a quoted value holds
//! no quote). The engine's lines:
//! - `id name=<n> [version=<v>] [author=<a>] [country=<c>]`, `param name=<n> value=<v>
//!   type=bool|int|real|string|enum` (`int` and `real` with `min=` and `max=` and the value
//!   between them, `enum` with `values="..."` holding the value, `bool` true or false), names
//!   unique, then `wait`: only between `hub` and `wait`, `wait` only after an `id`.
//! - `ready`: one per `init`. `pong`: one per `ping`.
//! - `info` with Scan's fields: `depth=<int>`, `mean-depth=<real>`, `score=<real>` (men),
//!   `nodes=<int>`, `time=<real>` (seconds), `nps=<real>` (millions a second), `pv="<moves>"`
//!   legal one after the other from the position searched; each at most once; only during a
//!   search. The protocol lets engines add fields; this checker does not, so that a new field
//!   is a decision written down here rather than a typo.
//! - `done move=<m> [ponder=<p>]`: one per `go`, m legal in the position searched and p after
//!   it (captures as `from x to x captured...`, captured squares in any order). A bare `done`
//!   only where there is no legal move (a GUI never asks for one).
//! - `error message="<text>"`: at any time.
//!
//! Two rules are pydraughts' rather than the protocol's, as its `HubEngine` is a real client:
//! every argument carries a value with no `=` inside it (pydraughts splits each at `=` and
//! unpacks two parts), and `done` gives `move=` first (pydraughts reads the first argument as
//! the move). As for UCI, lines have single spaces, none before or after, no control
//! characters.

use super::session::Checker;
use draughts::{Game, notation};

/// The arguments of one line: `(name, value)`, `None` for a flag.
type Args = Vec<(String, Option<String>)>;

/// Splits a Hub line into its command and arguments, quotes removed.
///
/// # Errors
/// Spacing, an unclosed or misplaced quote, an empty bare value, a bad argument name.
pub fn scan(line: &str) -> Result<(String, Args), String> {
    if line.is_empty() {
        return Err("empty line".into());
    }
    if let Some(c) = line.chars().find(|c| c.is_control()) {
        return Err(format!("control character {c:?}"));
    }
    if line.starts_with(' ') || line.ends_with(' ') {
        return Err("spacing: nothing may come before the command or after the last argument".into());
    }
    let (command, mut rest) = line.split_once(' ').unwrap_or((line, ""));
    let mut args = Vec::new();
    while !rest.is_empty() {
        let name_end = rest.find(['=', ' ']).unwrap_or(rest.len());
        let name = &rest[..name_end];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return Err(format!("bad argument name {name:?}"));
        }
        rest = &rest[name_end..];
        let value = if let Some(after) = rest.strip_prefix('=') {
            if let Some(quoted) = after.strip_prefix('"') {
                let close = quoted.find('"').ok_or("unclosed quote")?;
                rest = &quoted[close + 1..];
                Some(quoted[..close].to_string())
            } else {
                let end = after.find(' ').unwrap_or(after.len());
                let bare = &after[..end];
                if bare.is_empty() || bare.contains(['"', '=']) {
                    return Err(format!("{name}: a value that is empty or holds '\"' or '=' must be quoted"));
                }
                rest = &after[end..];
                Some(bare.to_string())
            }
        } else {
            None
        };
        args.push((name.to_string(), value));
        rest = match rest.strip_prefix(' ') {
            Some(more) if more.is_empty() || more.starts_with(' ') => {
                return Err("spacing: arguments are separated by single spaces".into());
            }
            Some(more) => more,
            None if rest.is_empty() => rest,
            None => return Err(format!("no space after argument {name}")),
        };
    }
    Ok((command.to_string(), args))
}

/// A parameter declared in the handshake.
#[derive(Clone, Debug)]
pub struct Param {
    /// Its name.
    pub name: String,
    /// Its declared (current) value.
    pub value: String,
}

/// The Hub checker. See the module docs.
#[derive(Default)]
pub struct HubChecker {
    /// Between `hub` and `wait`, with whether an `id` came.
    handshake: Option<bool>,
    /// The parameters of the last handshake.
    pub params: Vec<Param>,
    /// The position of the last well-formed `pos`.
    game: Game,
    /// The position of the running search, from `go` until `done`.
    search: Option<Game>,
    stop_sent: bool,
    ready_owed: usize,
    pong_owed: usize,
    quit: bool,
    /// `info` lines seen.
    pub infos: usize,
    /// `done` lines seen.
    pub dones: usize,
}

/// The value of `key` among `args` (the first, if repeated).
fn get<'a>(args: &'a Args, key: &str) -> Option<&'a str> {
    args.iter().find(|(k, _)| k == key).and_then(|(_, v)| v.as_deref())
}

/// The position a `pos` command sets, or `None` if it is malformed.
fn pos(args: &Args) -> Option<Game> {
    let mut game = match get(args, "pos") {
        Some(board) => Game::from_fen(&board_fen(board)?).ok()?,
        None if args.iter().any(|(k, _)| k == "start") => Game::new(),
        None => return None,
    };
    for text in get(args, "moves").unwrap_or_default().split_whitespace() {
        let mv = notation::parse_move(game.position(), text).ok()?;
        game.play_unchecked(mv);
    }
    Some(game)
}

/// A Hub board (`W` or `B`, then 50 of `w b W B e`) as a FEN (`W:W31,K32:B1`).
fn board_fen(board: &str) -> Option<String> {
    let mut chars = board.chars();
    let side = chars.next().filter(|c| matches!(c, 'W' | 'B'))?;
    let (mut white, mut black) = (Vec::new(), Vec::new());
    let mut n = 0;
    for (i, c) in chars.enumerate() {
        n += 1;
        let sq = i + 1;
        match c {
            'w' => white.push(sq.to_string()),
            'W' => white.push(format!("K{sq}")),
            'b' => black.push(sq.to_string()),
            'B' => black.push(format!("K{sq}")),
            'e' => {}
            _ => return None,
        }
    }
    (n == 50).then(|| format!("{side}:W{}:B{}", white.join(","), black.join(",")))
}

/// A Hub move, legal in `game`.
fn legal(game: &Game, text: &str) -> Result<draughts::Move, String> {
    notation::parse_hub(game.position(), text).map_err(|e| format!("move {text:?} in {}: {e}", game.position().fen()))
}

fn real(key: &str, value: &str) -> Result<f64, String> {
    // Rust reads "inf", "NaN" and "1e3"; the protocol's reals are plain decimals.
    let plain = value.strip_prefix('-').unwrap_or(value);
    let digits = plain.split_once('.').map_or((plain, ""), |(a, b)| (a, b));
    let ok = !digits.0.is_empty()
        && digits.0.chars().all(|c| c.is_ascii_digit())
        && digits.1.chars().all(|c| c.is_ascii_digit())
        && !(plain.contains('.') && digits.1.is_empty());
    if !ok {
        return Err(format!("{key}={value}: not a decimal number"));
    }
    value.parse().map_err(|_| format!("{key}={value}: not a number"))
}

fn whole(key: &str, value: &str) -> Result<u64, String> {
    if value.is_empty() || !value.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("{key}={value}: not a whole number"));
    }
    value.parse().map_err(|_| format!("{key}={value}: out of range"))
}

impl HubChecker {
    /// Checks that only `allowed` arguments appear, each once, and each with a value.
    fn only(args: &Args, allowed: &[&str]) -> Result<(), String> {
        for (i, (name, value)) in args.iter().enumerate() {
            if !allowed.contains(&name.as_str()) {
                return Err(format!("unexpected argument {name:?} (allowed: {})", allowed.join(", ")));
            }
            if args[..i].iter().any(|(n, _)| n == name) {
                return Err(format!("{name} given twice"));
            }
            match value {
                None => return Err(format!("{name} without a value (pydraughts needs name=value)")),
                Some(v) if v.contains('=') => return Err(format!("{name}: '=' inside a value breaks pydraughts")),
                Some(_) => {}
            }
        }
        Ok(())
    }

    fn param(&self, args: &Args) -> Result<Param, String> {
        HubChecker::only(args, &["name", "value", "type", "min", "max", "values"])?;
        let name = get(args, "name").filter(|n| !n.is_empty()).ok_or("param without a name")?;
        let value = get(args, "value").ok_or("param without a value")?;
        let kind = get(args, "type").ok_or("param without a type")?;
        if self.params.iter().any(|p| p.name == name) {
            return Err(format!("param {name} declared twice"));
        }
        let has = |k: &str| get(args, k).is_some();
        match kind {
            "bool" if has("min") || has("max") || has("values") => {
                return Err("a bool takes no min, max or values".into());
            }
            "bool" if value != "true" && value != "false" => return Err(format!("bool value {value:?}")),
            "int" | "real" if has("values") => return Err(format!("an {kind} takes no values")),
            "int" => {
                let (min, max) =
                    (get(args, "min").ok_or("int without min")?, get(args, "max").ok_or("int without max")?);
                let signed = |k: &str, v: &str| -> Result<i64, String> {
                    let digits = v.strip_prefix('-').unwrap_or(v);
                    whole(k, digits)
                        .and_then(|n| i64::try_from(n).map_err(|e| e.to_string()))
                        .map(|n| if v.starts_with('-') { -n } else { n })
                };
                let (v, lo, hi) = (signed("value", value)?, signed("min", min)?, signed("max", max)?);
                if !(lo <= v && v <= hi) {
                    return Err(format!("value {v} outside min {lo} max {hi}"));
                }
            }
            "real" => {
                let (min, max) =
                    (get(args, "min").ok_or("real without min")?, get(args, "max").ok_or("real without max")?);
                let (v, lo, hi) = (real("value", value)?, real("min", min)?, real("max", max)?);
                if !(lo <= v && v <= hi) {
                    return Err(format!("value {v} outside min {lo} max {hi}"));
                }
            }
            "enum" => {
                let values = get(args, "values").ok_or("enum without values")?;
                if has("min") || has("max") {
                    return Err("an enum takes no min or max".into());
                }
                if !values.split(' ').any(|v| v == value) {
                    return Err(format!("value {value:?} is none of {values:?}"));
                }
            }
            "string" if has("min") || has("max") || has("values") => {
                return Err("a string takes no min, max or values".into());
            }
            "bool" | "string" => {}
            other => return Err(format!("unknown param type {other:?}")),
        }
        Ok(Param { name: name.to_string(), value: value.to_string() })
    }

    fn info(&mut self, args: &Args) -> Result<(), String> {
        let Some(root) = &self.search else { return Err("info with no search running".into()) };
        HubChecker::only(args, &["depth", "mean-depth", "score", "nodes", "time", "nps", "pv"])?;
        for (key, value) in args {
            let value = value.as_deref().unwrap_or_default();
            match key.as_str() {
                "depth" | "nodes" => {
                    whole(key, value)?;
                }
                "mean-depth" | "time" | "nps" => {
                    if real(key, value)? < 0.0 {
                        return Err(format!("{key}={value} is negative"));
                    }
                }
                "score" => {
                    real(key, value)?;
                }
                _ => {
                    let mut game = root.clone();
                    for (i, text) in value.split(' ').filter(|t| !t.is_empty()).enumerate() {
                        let mv = legal(&game, text).map_err(|e| format!("pv move {}: {e}", i + 1))?;
                        game.play_unchecked(mv);
                    }
                }
            }
        }
        self.infos += 1;
        Ok(())
    }

    fn done(&mut self, args: &Args) -> Result<(), String> {
        let Some(root) = self.search.take() else { return Err("done with no search running".into()) };
        let verdict = HubChecker::judge_done(&root, args);
        if verdict.is_err() {
            self.search = Some(root);
        } else {
            self.dones += 1;
        }
        verdict
    }

    fn judge_done(root: &Game, args: &Args) -> Result<(), String> {
        HubChecker::only(args, &["move", "ponder"])?;
        if args.is_empty() {
            return if root.legal_moves().is_empty() {
                Ok(())
            } else {
                Err(format!("done without a move, yet {} has legal moves", root.position().fen()))
            };
        }
        if args[0].0 != "move" {
            return Err("move= must come first (pydraughts reads the first argument as the move)".into());
        }
        let mut game = root.clone();
        let mv = legal(&game, get(args, "move").unwrap_or_default())?;
        game.play_unchecked(mv);
        if let Some(reply) = get(args, "ponder") {
            legal(&game, reply).map_err(|e| format!("ponder: {e}"))?;
        }
        Ok(())
    }
}

impl Checker for HubChecker {
    fn sent(&mut self, command: &str) {
        let Ok((name, args)) = scan(command.trim()) else { return };
        match name.as_str() {
            "hub" => {
                self.handshake = Some(false);
                self.params.clear();
            }
            "init" => self.ready_owed += 1,
            "ping" => self.pong_owed += 1,
            "pos" => {
                if let Some(game) = pos(&args) {
                    self.game = game;
                }
            }
            // Scan refuses everything but ping, ponder-hit, stop and quit during a search.
            "go" if self.search.is_none() => {
                self.search = Some(self.game.clone());
                self.stop_sent = false;
            }
            "stop" => self.stop_sent = true,
            "quit" => self.quit = true,
            _ => {}
        }
    }

    fn check(&mut self, line: &str) -> Result<(), String> {
        let (command, args) = scan(line)?;
        match command.as_str() {
            "id" => {
                let Some(seen) = &mut self.handshake else { return Err("id outside the handshake".into()) };
                HubChecker::only(&args, &["name", "version", "author", "country"])?;
                if get(&args, "name").is_none_or(str::is_empty) {
                    return Err("id without a name".into());
                }
                *seen = true;
                Ok(())
            }
            "param" if self.handshake.is_some() => {
                let param = self.param(&args)?;
                self.params.push(param);
                Ok(())
            }
            "param" => Err("param outside the handshake".into()),
            "wait" => match self.handshake.take() {
                Some(true) if args.is_empty() => Ok(()),
                Some(false) => Err("wait without an id before it".into()),
                _ => Err("wait that ends no handshake, or with arguments".into()),
            },
            "ready" if args.is_empty() && self.ready_owed > 0 => {
                self.ready_owed -= 1;
                Ok(())
            }
            "ready" => Err("ready that answers no init".into()),
            "pong" if args.is_empty() && self.pong_owed > 0 => {
                self.pong_owed -= 1;
                Ok(())
            }
            "pong" => Err("pong that answers no ping".into()),
            "info" => self.info(&args),
            "done" => self.done(&args),
            "error" => {
                HubChecker::only(&args, &["message"])?;
                if get(&args, "message").is_none_or(str::is_empty) {
                    return Err("error without a message".into());
                }
                Ok(())
            }
            _ => Err("no such engine line in Hub".into()),
        }
    }

    fn finish(&mut self) -> Result<(), String> {
        if self.handshake.is_some() {
            return Err("the handshake never ended with wait".into());
        }
        if self.ready_owed > 0 || self.pong_owed > 0 {
            return Err(format!("{} init and {} ping never answered", self.ready_owed, self.pong_owed));
        }
        if self.search.is_some() && self.stop_sent && !self.quit {
            return Err("no done after stop".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";

    #[test]
    fn scanning() {
        let (c, a) = scan(r#"info depth=3 pv="32-28 17-22" score=-0.01"#).expect("scans");
        assert_eq!(c, "info");
        assert_eq!(a[1], ("pv".to_string(), Some("32-28 17-22".to_string())));
        assert_eq!(scan("pos start").expect("flag").1, [("start".to_string(), None)]);
        for bad in ["info depth=", "info  depth=1", "info depth=1 ", "info pv=\"32-28", "info a=b=c", "\u{7}"] {
            assert!(scan(bad).is_err(), "{bad} scanned");
        }
    }

    #[test]
    fn lines_are_checked_against_the_state() {
        let mut c = HubChecker::default();
        c.sent("hub");
        for good in [
            r#"id name=qizero version=0.1 author="the authors""#,
            "param name=variant value=normal type=enum values=normal",
            "param name=hash value=16 type=int min=1 max=4096",
            "param name=book value=true type=bool",
        ] {
            c.check(good).unwrap_or_else(|e| panic!("{good}: {e}"));
        }
        for bad in [
            "param name=hash value=1 type=int min=1 max=2",
            "param name=x value=0 type=int min=1 max=2",
            "param name=y value=maybe type=bool",
            "param name=z value=a type=enum values=\"b c\"",
            "param name=w value=1 type=float",
            "ready",
            "info depth=1",
        ] {
            assert!(c.check(bad).is_err(), "{bad} passed");
        }
        c.check("wait").expect("wait");
        c.sent(&format!(r#"pos pos={START} moves="32-28 19-23""#));
        c.sent("go think");
        c.check(r#"info depth=1 score=0.10 nodes=5 time=0.001 nps=0.01 pv="28x19x23 14x23x19""#).expect("legal pv");
        for bad in [
            "info depth=1 pv=\"33-29\"",
            "info depth=x",
            "info time=-1.0",
            "info score=1e3",
            "info seldepth=3",
            "done move=33-29",
            "done ponder=14x23 move=28x19x23",
            "done move",
        ] {
            assert!(c.check(bad).is_err(), "{bad} passed");
        }
        c.check("done move=28x19x23 ponder=14x23x19").expect("legal done");
        assert!(c.check("done move=28x19x23").is_err(), "a second done");
        c.check("error message=\"anything: at all\"").expect("error line");
        c.sent("ping");
        c.check("pong").expect("pong");
        c.finish().expect("nothing owed");
    }
}
