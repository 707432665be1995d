//! Small file helpers: atomic writes and content hashes.

use crate::TrainError;
use sha2::{Digest, Sha256};
use std::fs::{self, File};
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` so that a reader (or a process killed half-way) sees either the old
/// file or the whole new one: a hidden temporary file in the same directory, flushed to disk,
/// then renamed over `path`, then the directory flushed.
///
/// # Errors
/// The temporary file cannot be written or renamed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), TrainError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{name}.tmp"));
    let written = File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(TrainError::io(&tmp, e));
    }
    fs::rename(&tmp, path).map_err(|e| TrainError::io(path, e))?;
    // Make the new name durable too (only possible on Unix; elsewhere the rename must do).
    if cfg!(unix) {
        let _ = File::open(dir).and_then(|d| d.sync_all());
    }
    Ok(())
}

/// The lowercase hex SHA-256 of `bytes`.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}
