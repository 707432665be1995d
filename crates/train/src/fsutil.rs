//! Small file helpers: the trainer's errors for [`durable`] writes, and content hashes.

use crate::TrainError;
use sha2::{Digest, Sha256};
use std::path::Path;

/// Writes `bytes` to `path` through [`durable::write_atomic`] (temporary file in the same
/// directory, flushed, renamed, directory flushed; the temporary file removed on failure).
///
/// # Errors
/// The file cannot be written, flushed or renamed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), TrainError> {
    durable::write_atomic(path, bytes)
        .map_err(|e| TrainError::Io { path: path.to_path_buf(), message: e.source.to_string() })
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
