//! `metrics.jsonl` in the run directory: one JSON object per line, per event (a self-play shard,
//! a training step, an arena result). Several processes append to it at once: each line is one
//! `write` on a file opened for appending, which the kernel keeps whole for lines this short.

use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;

/// Appends `event` (a JSON object; `time_ms` and `event` keys are added) to `run/metrics.jsonl`.
///
/// # Errors
/// The file cannot be opened or written.
pub fn append(run: &Path, kind: &str, mut event: serde_json::Value) -> Result<()> {
    let now =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    if let Some(obj) = event.as_object_mut() {
        obj.insert("event".into(), kind.into());
        obj.insert("time_ms".into(), now.into());
    }
    let mut line = serde_json::to_string(&event).context("encoding a metrics line")?;
    line.push('\n');
    let path = run.join("metrics.jsonl");
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    f.write_all(line.as_bytes()).with_context(|| format!("writing {}", path.display()))
}
