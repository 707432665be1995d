//! The draughts shots of `data/tactics/draughts.txt`: the search must find a listed best move of
//! every position within the stated depth. Every failure is reported, not just the first.
//!
//! Line format: `FEN ; bm MOVE [MOVE...] ; depth D ; id "NAME"`, moves in PDN (`32-28`,
//! `19x30`) or Hub; `#` starts a comment line.

use alphabeta::{Limits, Searcher};
use draughts::notation::{parse_move, to_pdn};
use draughts::{Game, Move, Position};
use std::path::PathBuf;

/// One position of the suite.
struct Shot {
    line: usize,
    id: String,
    fen: String,
    best: Vec<Move>,
    depth: u32,
}

/// Reads one suite line, or says what is wrong with it.
fn parse(line_no: usize, line: &str) -> Result<Shot, String> {
    let mut fields = line.split(';').map(str::trim);
    let fen = fields.next().unwrap_or_default().to_string();
    let pos = Position::from_fen(&fen).map_err(|e| format!("bad FEN: {e}"))?;
    let (mut best, mut depth, mut id) = (Vec::new(), None, String::new());
    for field in fields {
        let (key, value) = field.split_once(' ').ok_or_else(|| format!("bad field '{field}'"))?;
        match key {
            "bm" => {
                for text in value.split_whitespace() {
                    best.push(parse_move(&pos, text).map_err(|e| format!("bm {text}: {e}"))?);
                }
            }
            "depth" => depth = Some(value.trim().parse().map_err(|e| format!("depth: {e}"))?),
            "id" => id = value.trim().trim_matches('"').to_string(),
            _ => return Err(format!("unknown field '{key}'")),
        }
    }
    if best.is_empty() {
        return Err("no bm".to_string());
    }
    let depth = depth.ok_or("no depth")?;
    Ok(Shot { line: line_no, id, fen, best, depth })
}

#[test]
fn draughts_shots_are_found() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/tactics/draughts.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut failures = Vec::new();
    let mut checked = 0;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let shot = match parse(i + 1, line) {
            Ok(shot) => shot,
            Err(e) => {
                failures.push(format!("line {}: {e}", i + 1));
                continue;
            }
        };
        let game = Game::from_fen(&shot.fen).expect("read above");
        let result = Searcher::new(16).search(&game, &Limits::depth(shot.depth), |_| {});
        checked += 1;
        let pos = game.position();
        if !result.best.is_some_and(|m| shot.best.contains(&m)) {
            let wanted: Vec<String> = shot.best.iter().map(|m| to_pdn(pos, m)).collect();
            let got = result.best.map_or_else(|| "(none)".to_string(), |m| to_pdn(pos, &m));
            failures.push(format!(
                "line {} ({}): {} wanted {} got {} ({}) at depth {}",
                shot.line,
                shot.id,
                shot.fen,
                wanted.join(" "),
                got,
                result.score,
                shot.depth
            ));
        }
    }
    assert!(checked >= 15, "only {checked} shots in {}", path.display());
    assert!(failures.is_empty(), "{} of {checked} shots missed:\n{}", failures.len(), failures.join("\n"));
}
