//! What more than one test binary reads from the repository: the shipped models' manifest.

use std::path::{Path, PathBuf};

/// The repository's `models/` folder, where the shipped nets and their manifest live.
pub fn models_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models")
}

/// `models/manifest.json`, parsed.
pub fn manifest() -> serde_json::Value {
    let path = models_dir().join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The manifest's entry for the shipped net of `game`.
pub fn shipped_model(game: &str) -> serde_json::Value {
    let manifest = manifest();
    let models = manifest["models"].as_array().expect("the manifest has a models list");
    models.iter().find(|m| m["game"] == game).unwrap_or_else(|| panic!("the manifest lists no {game} model")).clone()
}
