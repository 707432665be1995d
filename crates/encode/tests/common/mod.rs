//! Helpers shared by the encoder's integration tests.

use std::path::PathBuf;

/// The FENs of a perft suite under `data/perft/` (first field of each non-comment line).
pub fn perft_fens(file: &str) -> Vec<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/perft").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let fens: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split(';').next())
        .map(|f| f.trim().to_string())
        .collect();
    assert!(fens.len() >= 5, "{} holds too few positions", path.display());
    fens
}
