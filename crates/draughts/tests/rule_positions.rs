//! The rule positions of `data/draughts/rule-positions.txt`: each must yield exactly the listed
//! moves (compared by origin and destination, and by count).

use draughts::Position;
use std::path::PathBuf;

#[test]
fn rule_positions_yield_exactly_their_moves() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/draughts/rule-positions.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut checked = 0;
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#')) {
        let (fen, moves) = line.split_once(';').unwrap_or_else(|| panic!("line {}: no ';'", i + 1));
        let pos = Position::from_fen(fen.trim()).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
        let mut expected: Vec<(u32, u32)> = moves
            .split_whitespace()
            .map(|m| {
                let (a, b) = m.split_once(['x', '-']).unwrap_or_else(|| panic!("line {}: bad move {m}", i + 1));
                (a.parse().unwrap_or(0), b.parse().unwrap_or(0))
            })
            .collect();
        let mut got: Vec<(u32, u32)> = pos.legal_moves().iter().map(|m| (m.from().number(), m.to().number())).collect();
        expected.sort();
        got.sort();
        assert_eq!(got, expected, "line {}: {}", i + 1, fen.trim());
        checked += 1;
    }
    assert_eq!(checked, 10);
}
