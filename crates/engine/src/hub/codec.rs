//! The one Hub codec: the line scanner, value quoting and the board, for the server and the
//! client alike.
//!
//! A Hub line is a command followed by `name=value` pairs or bare flags; a value holding a
//! space, `=` or `"` is written in double quotes (`moves="32-28 19-23"`); the protocol has no
//! escape, so a value can never hold a double quote. A board is `W` or `B` (the side to move)
//! followed by squares 1 to 50, each `w`/`b` (men), `W`/`B` (kings) or `e` (empty).

use draughts::{Color, Position};

/// One scanned line: the command and its arguments, a flag's value being empty.
pub type Line = (String, Vec<(String, String)>);

/// The value of argument `name`, if given (empty for a flag).
pub fn arg<'a>(args: &'a [(String, String)], name: &str) -> Option<&'a str> {
    args.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

/// A character of a name or bare value, as Scan reads them.
fn is_id(c: char) -> bool {
    !c.is_control() && !c.is_whitespace() && c != '=' && c != '"'
}

/// Reads a line as Scan does: a command, then `name`, `name=value` or `name="value"` items.
/// `Ok(None)` for a blank line.
pub fn scan(line: &str) -> Result<Option<Line>, String> {
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
        return Err(format!("a command must start the line, not {}", crate::protocol::quoted(rest)));
    }
    let mut args = Vec::new();
    while !rest.is_empty() {
        let name = take_name(&mut rest);
        if name.is_empty() {
            return Err(format!("{command}: expected an argument name at {}", crate::protocol::quoted(rest)));
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
pub fn parse_board(text: &str) -> Result<Position, String> {
    let mut chars = text.chars();
    let side = match chars.next() {
        Some(c @ ('W' | 'B')) => c,
        _ => {
            return Err(format!(
                "position {} must start with W or B (the side to move)",
                crate::protocol::quoted(text)
            ));
        }
    };
    let board: Vec<char> = chars.collect();
    if board.len() != 50 {
        return Err(format!(
            "position {} has {} squares after the side to move; expected 50",
            crate::protocol::quoted(text),
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
    Position::from_fen(&fen).map_err(|e| format!("position {}: {e}", crate::protocol::quoted(text)))
}

/// A value as a Hub line writes it: in double quotes if it is empty or holds a space or `=`.
#[must_use]
pub fn quote(value: &str) -> String {
    if value.is_empty() || value.contains(|c: char| c.is_whitespace() || c == '=') {
        format!("\"{value}\"")
    } else {
        value.to_string()
    }
}

/// The Hub form of a position: `W` or `B`, then the 50 squares.
#[must_use]
pub fn board(pos: &Position) -> String {
    let side = if pos.side_to_move() == Color::White { 'W' } else { 'B' };
    format!("{side}{}", pos.board_chars())
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";

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
        let (command, fields) =
            scan("id name=dame version=0.2.0 author=\"Markus Bilz\"").expect("scans").expect("a line");
        assert_eq!(command, "id");
        assert_eq!(arg(&fields, "author"), Some("Markus Bilz"));
        let (_, fields) = scan("done move=28x19x23 ponder=14x23x19").expect("scans").expect("a line");
        assert_eq!(arg(&fields, "move"), Some("28x19x23"));
    }

    #[test]
    fn quoting_round_trips() {
        for value in ["32-28", "32-28 19-23", "", "a=b", "Markus Bilz"] {
            let line = format!("x v={}", quote(value));
            let (_, fields) = scan(&line).expect("scans").expect("a line");
            assert_eq!(arg(&fields, "v"), Some(value), "{line}");
        }
    }

    #[test]
    fn boards() {
        let start = parse_board(START).expect("start");
        assert_eq!(start, Position::startpos());
        assert_eq!(board(&start), START);
        let kings = format!("B{}", "e".repeat(9) + "W" + &"e".repeat(39) + "B");
        assert_eq!(parse_board(&kings).ok(), Position::from_fen("B:WK10:BK50").ok());
        assert_eq!(parse_board(&kings).map(|p| board(&p)), Ok(kings));
        for bad in
            ["", "X", "W", &START[..50], &format!("{START}e"), &START.replace('W', "w"), &START.replacen('e', "x", 1)]
        {
            assert!(parse_board(bad).is_err(), "{bad}");
        }
        // A white man on its promotion row is impossible.
        assert!(parse_board(&format!("W{}", "w".to_string() + &"e".repeat(49))).is_err());
    }
}
