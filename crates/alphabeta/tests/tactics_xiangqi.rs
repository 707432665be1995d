//! The xiangqi tactics suite (`data/tactics/xiangqi.txt`): every position searched to its
//! stated depth must give one of its best moves. All failures are reported together.
//!
//! Line format: `FEN ; bm MOVE [MOVE...] ; depth D ; id "..."`, moves in UCI coordinates with
//! ranks 0-9; `#` starts a comment.

use alphabeta::{Limits, Searcher};

/// One suite position.
struct Case {
    line: usize,
    fen: String,
    best: Vec<String>,
    depth: u32,
    id: String,
}

/// Reads the suite, failing on any line that does not follow the format.
fn read_suite(text: &str) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let mut fields = line.split(';').map(str::trim);
        let fen = fields.next().unwrap_or_default().to_string();
        let (mut best, mut depth, mut id) = (Vec::new(), None, String::new());
        for field in fields {
            let (key, value) = field.split_once(' ').unwrap_or((field, ""));
            match key {
                "bm" => best = value.split_whitespace().map(str::to_string).collect(),
                "depth" => depth = value.trim().parse().ok(),
                "id" => id = value.trim().trim_matches('"').to_string(),
                _ => return Err(format!("line {}: unknown field '{field}'", i + 1)),
            }
        }
        let depth = depth.ok_or_else(|| format!("line {}: no depth", i + 1))?;
        if best.is_empty() {
            return Err(format!("line {}: no bm", i + 1));
        }
        cases.push(Case { line: i + 1, fen, best, depth, id });
    }
    Ok(cases)
}

#[test]
fn tactics_suite() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/tactics/xiangqi.txt");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let cases = read_suite(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(cases.len() >= 20, "the suite has only {} positions", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let game = match xiangqi::Game::from_fen(&case.fen) {
            Ok(game) => game,
            Err(e) => {
                failures.push(format!("line {} ({}): bad FEN: {e}", case.line, case.id));
                continue;
            }
        };
        for mv in &case.best {
            if !game.legal_moves().iter().any(|m| m.to_string() == *mv) {
                failures.push(format!("line {} ({}): bm {mv} is not legal", case.line, case.id));
            }
        }
        let result = Searcher::new(16).search(&game, &Limits::depth(case.depth), |_| {});
        let found = result.best.map(|m| m.to_string()).unwrap_or_default();
        if !case.best.contains(&found) {
            failures.push(format!(
                "line {} ({}): depth {} found {found} ({}), expected {}",
                case.line,
                case.id,
                case.depth,
                result.score,
                case.best.join(" ")
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {} tactics failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}
