//! [`Go`]: what a search is asked to do, as both protocols say it: the arguments of UCI's `go`
//! (with UCCI's `time`, `increment` and `opp...` fields) and of Hub's `level`. The servers parse
//! it from their input; the clients write it to the engines they drive; the searcher gets it as
//! [`alphabeta::Limits`] ([`Go::limits`]).
//!
//! Clocks are kept from the mover's view ([`Go::own`], [`Go::other`]): UCI names them by colour
//! (`wtime`, `btime`), Hub only knows the mover's (`time=`), so parsing UCI and writing UCI take
//! the side to move.
//!
//! Parsing is strict: an unknown word or a bad value rejects the whole command with a message
//! naming it, so a GUI's mistake shows at once instead of as a search with the wrong limits.
//! Times must be finite and below 2^40 seconds; a negative clock (a GUI reporting an overstepped
//! flag) counts as zero.

use game::Side;
use std::time::Duration;

/// One side's clock.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Time left.
    pub left: Duration,
    /// Added after each move.
    pub increment: Duration,
}

/// The parameters of one search. See the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    /// Stop after this depth (UCI `depth`, `mate N` as depth `2N - 1`; Hub `depth=`).
    pub depth: Option<u32>,
    /// Stop after about this many nodes (UCI `nodes`, Hub `nodes=`).
    pub nodes: Option<u64>,
    /// Think this long (UCI `movetime` in milliseconds, Hub `move-time=` in seconds).
    pub movetime: Option<Duration>,
    /// The mover's clock (UCI `wtime`/`btime` and `winc`/`binc` by colour, UCCI `time` and
    /// `increment`, Hub `time=` and `inc=`); an increment given without a time is ignored.
    pub own: Option<Clock>,
    /// The opponent's clock (UCI, UCCI `opptime`/`oppincrement`; Hub has none).
    pub other: Option<Clock>,
    /// Moves until the next time control (UCI `movestogo`, Hub `moves=`).
    pub moves_to_go: Option<u32>,
    /// Search until stopped (UCI `infinite`, Hub `infinite`).
    pub infinite: bool,
    /// Search the expected reply's position until `ponderhit` (UCI `ponder`).
    pub ponder: bool,
    /// Search only these root moves, as written (UCI `searchmoves`).
    pub searchmoves: Vec<String>,
}

/// How UCCI's `time` and `increment` are counted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    /// Milliseconds (UCI, and UCCI after `usemillisec`).
    Millis,
    /// Seconds (UCCI by default).
    Seconds,
}

/// The words of UCI `go` that take a value.
const UCI_VALUE_WORDS: [&str; 14] = [
    "depth",
    "nodes",
    "mate",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "time",
    "increment",
    "opptime",
    "oppmovestogo",
    "oppincrement",
];

impl Go {
    /// A fixed-depth search.
    #[must_use]
    pub fn depth(depth: u32) -> Go {
        Go { depth: Some(depth), ..Go::default() }
    }

    /// A fixed-time search.
    #[must_use]
    pub fn movetime(time: Duration) -> Go {
        Go { movetime: Some(time), ..Go::default() }
    }

    /// True if nothing bounds the search: no depth, nodes, movetime or clock, and not infinite.
    #[must_use]
    pub fn is_unbounded(&self) -> bool {
        self.depth.is_none() && self.nodes.is_none() && self.movetime.is_none() && self.own.is_none() && !self.infinite
    }

    /// These parameters, or `movetime` alone if they bound nothing.
    #[must_use]
    pub fn or_movetime(&self, movetime: Duration) -> Go {
        if self.is_unbounded() { Go::movetime(movetime) } else { self.clone() }
    }

    /// The searcher's limits (root moves are the caller's to resolve: they need the position).
    #[must_use]
    pub fn limits(&self) -> alphabeta::Limits {
        alphabeta::Limits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: self.movetime,
            time_left: self.own.map(|c| c.left),
            increment: self.own.map_or(Duration::ZERO, |c| c.increment),
            moves_to_go: self.moves_to_go,
            infinite: self.infinite,
            searchmoves: Vec::new(),
        }
    }

    /// How long a client waits for the answer to this search before the engine forfeits:
    /// twice the move time plus 3 s for a timed search, the clock plus 3 s on a clock, a minute
    /// for depth or node limits.
    #[must_use]
    pub fn answer_timeout(&self) -> Duration {
        let slack = Duration::from_secs(3);
        if self.depth.is_some() || self.nodes.is_some() {
            return Duration::from_secs(60);
        }
        match (self.movetime, self.own) {
            (Some(t), _) => t * 2 + slack,
            (None, Some(c)) => c.left + c.increment + slack,
            (None, None) => Duration::from_secs(60),
        }
    }

    /// Reads the arguments of UCI (or UCCI) `go` for `side` to move.
    ///
    /// # Errors
    /// The first unknown word or bad value, named.
    pub fn parse_uci(args: &[&str], side: Side, unit: TimeUnit) -> Result<Go, String> {
        let mut go = Go::default();
        let (mut time, mut inc) = ([None; 2], [None; 2]);
        let (mut own_time, mut own_inc, mut opp_time, mut opp_inc) = (None, None, None, None);
        let mut words = args.iter().peekable();
        while let Some(&word) = words.next() {
            match word {
                "infinite" => go.infinite = true,
                "ponder" => go.ponder = true,
                // UCCI: the opponent offers a draw; we play on.
                "draw" => {}
                "searchmoves" => {
                    while let Some(&&mv) = words.peek() {
                        if mv == "infinite" || mv == "ponder" || UCI_VALUE_WORDS.contains(&mv) {
                            break;
                        }
                        go.searchmoves.push(mv.to_string());
                        words.next();
                    }
                    if go.searchmoves.is_empty() {
                        return Err("go: 'searchmoves' needs at least one move".to_string());
                    }
                }
                w if UCI_VALUE_WORDS.contains(&w) => {
                    let Some(&value) = words.next() else { return Err(format!("go: '{word}' needs a value")) };
                    match word {
                        "depth" if value == "infinite" => go.infinite = true,
                        "depth" => go.depth = Some(count(word, value, 1)?),
                        "mate" => go.depth = Some(count::<u32>(word, value, 1)?.saturating_mul(2) - 1),
                        "nodes" => go.nodes = Some(count(word, value, 1)?),
                        "movestogo" => go.moves_to_go = Some(count(word, value, 0)?),
                        "movetime" => go.movetime = Some(duration(word, value, TimeUnit::Millis)?),
                        "wtime" => time[0] = Some(duration(word, value, TimeUnit::Millis)?),
                        "btime" => time[1] = Some(duration(word, value, TimeUnit::Millis)?),
                        "winc" => inc[0] = Some(duration(word, value, TimeUnit::Millis)?),
                        "binc" => inc[1] = Some(duration(word, value, TimeUnit::Millis)?),
                        "time" => own_time = Some(duration(word, value, unit)?),
                        "increment" => own_inc = Some(duration(word, value, unit)?),
                        "opptime" => opp_time = Some(duration(word, value, unit)?),
                        "oppincrement" => opp_inc = Some(duration(word, value, unit)?),
                        // The opponent's moves to go: checked, not used.
                        _ => {
                            count::<u32>(word, value, 0)?;
                        }
                    }
                }
                _ => return Err(format!("go: unknown word {}", crate::protocol::quoted(word))),
            }
        }
        let (me, them) = (side.index(), side.opponent().index());
        go.own = clock(own_time.or(time[me]), own_inc.or(inc[me]));
        go.other = clock(opp_time.or(time[them]), opp_inc.or(inc[them]));
        Ok(go)
    }

    /// The UCI `go` command for these parameters, `side` to move (clocks by colour; times in
    /// milliseconds).
    #[must_use]
    pub fn uci_command(&self, side: Side) -> String {
        let mut go = String::from("go");
        if self.ponder {
            go.push_str(" ponder");
        }
        if let Some(d) = self.depth {
            go.push_str(&format!(" depth {d}"));
        }
        if let Some(n) = self.nodes {
            go.push_str(&format!(" nodes {n}"));
        }
        if let Some(t) = self.movetime {
            go.push_str(&format!(" movetime {}", t.as_millis()));
        }
        let mut clocks = [None; 2];
        clocks[side.index()] = self.own;
        clocks[side.opponent().index()] = self.other;
        for (clock, (t, i)) in clocks.iter().zip([("wtime", "winc"), ("btime", "binc")]) {
            if let Some(c) = clock {
                go.push_str(&format!(" {t} {}", c.left.as_millis()));
                if !c.increment.is_zero() {
                    go.push_str(&format!(" {i} {}", c.increment.as_millis()));
                }
            }
        }
        if let Some(n) = self.moves_to_go {
            go.push_str(&format!(" movestogo {n}"));
        }
        if self.infinite {
            go.push_str(" infinite");
        }
        if !self.searchmoves.is_empty() {
            go.push_str(" searchmoves ");
            go.push_str(&self.searchmoves.join(" "));
        }
        go
    }

    /// Reads Hub `level` arguments (`depth=N`, `nodes=N`, `move-time=S`, `moves=N`, `time=S`,
    /// `inc=S`, `infinite`; seconds as real numbers). Unknown arguments are ignored, as the
    /// protocol asks.
    ///
    /// # Errors
    /// The first bad value, named.
    pub fn parse_hub_level(args: &[(String, String)]) -> Result<Go, String> {
        let mut go = Go::default();
        let (mut time, mut inc) = (None, None);
        for (name, value) in args {
            match name.as_str() {
                "depth" => go.depth = Some(whole(name, value, 1, 1000)? as u32),
                "nodes" => go.nodes = Some(whole(name, value, 1, u64::MAX)?),
                "moves" => go.moves_to_go = Some(whole(name, value, 0, u64::from(u32::MAX))? as u32),
                "move-time" => go.movetime = Some(seconds(name, value)?),
                "time" => time = Some(seconds(name, value)?),
                "inc" => inc = Some(seconds(name, value)?),
                "infinite" => go.infinite = true,
                _ => {}
            }
        }
        go.own = clock(time, inc);
        Ok(go)
    }

    /// The Hub `level` command for these parameters (the mover's clock; seconds).
    #[must_use]
    pub fn hub_level_command(&self) -> String {
        let mut level = String::from("level");
        if let Some(d) = self.depth {
            level.push_str(&format!(" depth={d}"));
        }
        if let Some(n) = self.nodes {
            level.push_str(&format!(" nodes={n}"));
        }
        if let Some(t) = self.movetime {
            level.push_str(&format!(" move-time={:.3}", t.as_secs_f64()));
        }
        if let Some(n) = self.moves_to_go {
            level.push_str(&format!(" moves={n}"));
        }
        if let Some(c) = self.own {
            level.push_str(&format!(" time={:.3}", c.left.as_secs_f64()));
            if !c.increment.is_zero() {
                level.push_str(&format!(" inc={:.3}", c.increment.as_secs_f64()));
            }
        }
        if self.infinite {
            level.push_str(" infinite");
        }
        level
    }
}

/// A clock from a time and an increment; none without a time (an increment alone bounds
/// nothing).
fn clock(left: Option<Duration>, increment: Option<Duration>) -> Option<Clock> {
    left.map(|left| Clock { left, increment: increment.unwrap_or_default() })
}

/// A whole number at least `min`.
fn count<T: std::str::FromStr + PartialOrd + From<u8>>(word: &str, value: &str, min: u8) -> Result<T, String> {
    match value.parse::<T>() {
        Ok(n) if n >= T::from(min) => Ok(n),
        _ => {
            Err(format!("go: '{word}' needs a whole number of at least {min}, not {}", crate::protocol::quoted(value)))
        }
    }
}

/// A UCI time: a number of `unit`s.
fn duration(word: &str, value: &str, unit: TimeUnit) -> Result<Duration, String> {
    let bad = || format!("go: '{word}' needs a time in {unit:?}, not {}", crate::protocol::quoted(value));
    let n: f64 = value.parse().map_err(|_| bad())?;
    let secs = match unit {
        TimeUnit::Millis => n / 1000.0,
        TimeUnit::Seconds => n,
    };
    bounded(secs).ok_or_else(bad)
}

/// A Hub time in seconds (a real number).
fn seconds(name: &str, value: &str) -> Result<Duration, String> {
    let s: f64 = value
        .parse()
        .map_err(|_| format!("{name}= must be a time in seconds, not {}", crate::protocol::quoted(value)))?;
    bounded(s).ok_or_else(|| format!("{name}= must be a time in seconds, not {}", crate::protocol::quoted(value)))
}

/// `secs` as a duration: negative counts as zero; infinity, NaN and absurdly large values are
/// refused rather than saturated.
fn bounded(secs: f64) -> Option<Duration> {
    if !secs.is_finite() {
        return None;
    }
    Duration::try_from_secs_f64(secs.max(0.0)).ok().filter(|d| d.as_secs() < 1 << 40)
}

/// A Hub whole number in `min..=max`.
fn whole(name: &str, value: &str, min: u64, max: u64) -> Result<u64, String> {
    match value.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("{name}= must be a whole number {min}-{max}, not {}", crate::protocol::quoted(value))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uci(args: &str, side: Side) -> Result<Go, String> {
        Go::parse_uci(&args.split_whitespace().collect::<Vec<_>>(), side, TimeUnit::Millis)
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn uci_go_parsing() {
        let g = uci("wtime 60000 btime 30000 winc 100 binc 200 movestogo 20", Side::Second).expect("valid");
        assert_eq!(g.own, Some(Clock { left: Duration::from_secs(30), increment: Duration::from_millis(200) }));
        assert_eq!(g.other, Some(Clock { left: Duration::from_secs(60), increment: Duration::from_millis(100) }));
        assert_eq!(g.moves_to_go, Some(20));
        let l = g.limits();
        assert_eq!((l.time_left, l.increment), (Some(Duration::from_secs(30)), Duration::from_millis(200)));
        let g = uci("wtime -50 btime 10", Side::First).expect("valid");
        assert_eq!(g.own.map(|c| c.left), Some(Duration::ZERO));
        let g = uci("depth 5 nodes 1000 movetime 250 ponder", Side::First).expect("valid");
        assert_eq!((g.depth, g.nodes), (Some(5), Some(1000)));
        assert_eq!(g.movetime, Some(Duration::from_millis(250)));
        assert!(g.ponder);
        assert!(uci("infinite", Side::First).expect("valid").infinite);
        assert!(uci("depth infinite", Side::First).expect("valid").infinite);
        assert_eq!(uci("mate 3", Side::First).expect("valid").depth, Some(5));
        let g = uci("depth 4 searchmoves a3a4 c3c4 movetime 50", Side::First).expect("valid");
        assert_eq!(g.searchmoves, ["a3a4", "c3c4"]);
        assert_eq!(g.movetime, Some(Duration::from_millis(50)));
        for bad in [
            "depth",
            "depth x",
            "depth abc",
            "depth 0",
            "depth -3",
            "nodes 1e9",
            "movetime NaN",
            "movetime inf",
            "wtime 1e300",
            "depht 3",
            "searchmoves",
            "searchmoves depth 3",
        ] {
            assert!(uci(bad, Side::First).is_err(), "{bad}");
        }
        let seconds = Go::parse_uci(&["time", "1.5", "increment", "2"], Side::First, TimeUnit::Seconds).expect("valid");
        assert_eq!(seconds.own, Some(Clock { left: Duration::from_millis(1500), increment: Duration::from_secs(2) }));
    }

    #[test]
    fn uci_round_trip() {
        for (text, side) in [
            ("go depth 3", Side::First),
            ("go movetime 250", Side::First),
            ("go ponder wtime 1000 winc 10 btime 2000 binc 20 movestogo 5", Side::Second),
            ("go nodes 500 infinite searchmoves h2e2 b0c2", Side::First),
        ] {
            let args: Vec<&str> = text.split_whitespace().skip(1).collect();
            let go = Go::parse_uci(&args, side, TimeUnit::Millis).expect("valid");
            assert_eq!(go.uci_command(side), text);
        }
    }

    #[test]
    fn hub_levels() {
        let l = Go::parse_hub_level(&pairs(&[("moves", "9"), ("time", "291.587"), ("inc", "0.5")])).expect("valid");
        assert_eq!(l.moves_to_go, Some(9));
        assert_eq!(l.own, Some(Clock { left: Duration::from_millis(291_587), increment: Duration::from_millis(500) }));
        let l = Go::parse_hub_level(&pairs(&[("move-time", "0.25"), ("future", "x")])).expect("valid");
        assert_eq!(l.movetime, Some(Duration::from_millis(250)));
        assert!(Go::parse_hub_level(&pairs(&[("infinite", "")])).expect("valid").infinite);
        for bad in [("depth", "x"), ("depth", "0"), ("nodes", "-1"), ("move-time", "NaN"), ("time", "1e400")] {
            assert!(Go::parse_hub_level(&pairs(&[bad])).is_err(), "{bad:?}");
        }
        let go = Go { depth: Some(6), movetime: Some(Duration::from_millis(250)), ..Go::default() };
        assert_eq!(go.hub_level_command(), "level depth=6 move-time=0.250");
    }

    #[test]
    fn defaults_and_timeouts() {
        assert!(Go::default().is_unbounded());
        let go = Go::default().or_movetime(Duration::from_millis(100));
        assert_eq!(go, Go::movetime(Duration::from_millis(100)));
        assert_eq!(go.answer_timeout(), Duration::from_millis(3200));
        assert_eq!(Go::depth(3).or_movetime(Duration::from_secs(1)), Go::depth(3));
        assert_eq!(Go::depth(3).answer_timeout(), Duration::from_secs(60));
    }
}
