//! Game records: PGN-style for xiangqi (moves in WXF), PDN for draughts (moves in PDN), one file
//! per game, and a small reader for both.
//!
//! ```text
//! [Event "qizero match"]
//! [Site "qizero arena"]
//! [Date "2025.01.31"]
//! [Round "3"]
//! [Red "alphabeta:depth=3"]          (draughts: White)
//! [Black "random"]
//! [Result "1-0"]                     (draughts: 2-0, 0-2, 1-1)
//! [FEN "<start position>"]
//! [Termination "checkmate"]          (or "forfeit: WHY", "time forfeit: Red (NAME): took T ms
//!                                     with L ms left", "draw by the game length cap (N plies)")
//! [Format "WXF"]                     (draughts: [GameType "20"])
//!
//! 3. C2=5 H8+7 4. H2+3 ... {a comment: a forfeit as the Termination tag says it} 1-0
//! ```
//!
//! Moves are numbered from the FEN's move counter (xiangqi) or 1 (draughts); a game whose first
//! mover is Black starts `1...`. Tag values escape `"` and `\` with a backslash, as PGN does.

use game::Side;
use std::fmt;

/// One finished game, ready to be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// `Event` tag.
    pub event: String,
    /// `Site` tag.
    pub site: String,
    /// `Date` tag, `YYYY.MM.DD`.
    pub date: String,
    /// `Round` tag: the game's number in the match, from 1.
    pub round: usize,
    /// The side names of the game (`Red`/`White`, `Black`) for the player tags.
    pub side_names: [&'static str; 2],
    /// The players, first mover first.
    pub players: [String; 2],
    /// The result as the game writes it (`1-0`, `2-0`, ...).
    pub result: String,
    /// The start position.
    pub fen: String,
    /// The side to move in the start position.
    pub first_to_move: Side,
    /// The number of the first move.
    pub first_move_number: u32,
    /// The moves in the record's notation.
    pub moves: Vec<String>,
    /// `Termination` tag: how the game ended, in words.
    pub termination: String,
    /// Further tags (notation, game type).
    pub extra_tags: Vec<(String, String)>,
    /// A comment written after the last move (a forfeit's reason).
    pub comment: Option<String>,
}

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace(['\n', '\r'], " ")
}

impl fmt::Display for GameRecord {
    /// The record as text: tags, a blank line, the move text, a blank line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tags: [(&str, String); 9] = [
            ("Event", self.event.clone()),
            ("Site", self.site.clone()),
            ("Date", self.date.clone()),
            ("Round", self.round.to_string()),
            (self.side_names[0], self.players[0].clone()),
            (self.side_names[1], self.players[1].clone()),
            ("Result", self.result.clone()),
            ("FEN", self.fen.clone()),
            ("Termination", self.termination.clone()),
        ];
        for (name, value) in tags
            .iter()
            .map(|(n, v)| (*n, v.as_str()))
            .chain(self.extra_tags.iter().map(|(n, v)| (n.as_str(), v.as_str())))
        {
            writeln!(f, "[{name} \"{}\"]", escape(value))?;
        }
        writeln!(f)?;
        let mut tokens: Vec<String> = Vec::new();
        let mut number = self.first_move_number;
        let mut side = self.first_to_move;
        for (i, mv) in self.moves.iter().enumerate() {
            if side == Side::First {
                tokens.push(format!("{number}."));
            } else if i == 0 {
                tokens.push(format!("{number}..."));
            }
            tokens.push(mv.clone());
            if side == Side::Second {
                number += 1;
            }
            side = !side;
        }
        if let Some(comment) = &self.comment {
            tokens.push(format!("{{{}}}", comment.replace(['{', '}'], "")));
        }
        tokens.push(self.result.clone());
        let mut line = String::new();
        for token in tokens {
            if !line.is_empty() && line.len() + 1 + token.len() > 79 {
                writeln!(f, "{line}")?;
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&token);
        }
        writeln!(f, "{line}")?;
        writeln!(f)
    }
}

/// A record read back: its tags, its moves (as written) and its result token.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedRecord {
    /// Tags in file order.
    pub tags: Vec<(String, String)>,
    /// The moves, move numbers and comments removed.
    pub moves: Vec<String>,
    /// The result token at the end of the move text, if any.
    pub result: Option<String>,
}

impl ParsedRecord {
    /// The value of tag `name`.
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// A record that does not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// 1-based line.
    pub line: usize,
    /// Why.
    pub message: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "record line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for RecordError {}

const RESULTS: [&str; 8] = ["1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "0-0", "*"];

/// Reads one game record (PGN-style or PDN): tags, then move text. Moves are returned as
/// written; check them with the game's move reader.
///
/// # Errors
/// A tag line that is not `[Name "value"]`, or an unterminated comment.
pub fn parse_record(text: &str) -> Result<ParsedRecord, RecordError> {
    let mut record = ParsedRecord::default();
    let mut movetext = String::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('[') && movetext.trim().is_empty() {
            record
                .tags
                .push(parse_tag(t).ok_or_else(|| RecordError { line: i + 1, message: format!("bad tag {t:?}") })?);
        } else {
            // `;` comments run to the end of the line.
            movetext.push_str(t.split(';').next().unwrap_or_default());
            movetext.push('\n');
        }
    }
    let mut rest = movetext.as_str();
    let mut tokens: Vec<&str> = Vec::new();
    while let Some(open) = rest.find('{') {
        tokens.extend(rest[..open].split_whitespace());
        let close =
            rest[open..].find('}').ok_or(RecordError { line: 0, message: "unterminated comment".to_string() })?;
        rest = &rest[open + close + 1..];
    }
    tokens.extend(rest.split_whitespace());
    if let Some(last) = tokens.last() {
        if RESULTS.contains(last) {
            record.result = Some((*last).to_string());
            tokens.pop();
        }
    }
    for token in tokens {
        // A move number, alone or glued to its move: `12.`, `12...`, `12.C2=5`.
        let digits = token.bytes().take_while(u8::is_ascii_digit).count();
        let dots = token[digits..].bytes().take_while(|&b| b == b'.').count();
        let mv = if digits > 0 && dots > 0 { &token[digits + dots..] } else { token };
        if !mv.is_empty() {
            record.moves.push(mv.to_string());
        }
    }
    Ok(record)
}

fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?.trim();
    let (name, value) = inner.split_once(char::is_whitespace)?;
    let value = value.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        out.push(if c == '\\' { chars.next()? } else { c });
    }
    Some((name.to_string(), out))
}

/// Today's date (UTC) as PGN writes it, `YYYY.MM.DD`.
#[must_use]
pub fn today() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis());
    utc_time(u64::try_from(now).unwrap_or(0))[..10].replace('-', ".")
}

/// A Unix time in milliseconds as `YYYY-MM-DD HH:MM:SS UTC` (proleptic Gregorian calendar,
/// through `humantime`'s RFC 3339 formatting).
#[must_use]
pub fn utc_time(ms: u64) -> String {
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_secs(ms / 1000);
    let rfc3339 = humantime::format_rfc3339_seconds(time).to_string();
    format!("{} UTC", rfc3339.trim_end_matches('Z').replacen('T', " ", 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> GameRecord {
        GameRecord {
            event: "test".to_string(),
            site: "here".to_string(),
            date: "2025.01.31".to_string(),
            round: 2,
            side_names: ["Red", "Black"],
            players: ["a \"quoted\" name".to_string(), "random".to_string()],
            result: "0-1".to_string(),
            fen: "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1".to_string(),
            first_to_move: Side::Second,
            first_move_number: 1,
            moves: vec!["C8=5".to_string(), "C2=5".to_string(), "H8+7".to_string()],
            termination: "forfeit".to_string(),
            extra_tags: vec![("Format".to_string(), "WXF".to_string())],
            comment: Some("Red forfeits: {odd} engine".to_string()),
        }
    }

    #[test]
    fn writes_and_reads_back() {
        let text = sample().to_string();
        assert!(text.contains("[Red \"a \\\"quoted\\\" name\"]"), "{text}");
        assert!(text.contains("1... C8=5 2. C2=5 H8+7 {Red forfeits: odd engine} 0-1"), "{text}");
        let parsed = parse_record(&text).expect("reads");
        assert_eq!(parsed.tag("Red"), Some("a \"quoted\" name"));
        assert_eq!(parsed.tag("FEN"), Some(sample().fen.as_str()));
        assert_eq!(parsed.moves, ["C8=5", "C2=5", "H8+7"]);
        assert_eq!(parsed.result.as_deref(), Some("0-1"));
    }

    #[test]
    fn reads_glued_move_numbers_and_comments() {
        let parsed = parse_record("[FEN \"x\"]\n\n1.32-28 {a\ncomment} 19-23 ; rest\n2. 28x19 2-0\n").expect("reads");
        assert_eq!(parsed.moves, ["32-28", "19-23", "28x19"]);
        assert_eq!(parsed.result.as_deref(), Some("2-0"));
        assert!(parse_record("[FEN x]\n").is_err());
    }

    #[test]
    fn dates() {
        assert_eq!(utc_time(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc_time(1_700_000_000_000), "2023-11-14 22:13:20 UTC");
        assert_eq!(utc_time(951_782_400_000), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc_time(1_704_067_200_999), "2024-01-01 00:00:00 UTC");
        let t = today();
        assert_eq!((t.len(), &t[4..5], &t[7..8]), (10, ".", "."), "{t}");
    }
}
