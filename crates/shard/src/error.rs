//! The one error type of this crate. Every variant names the file it is about and the fault, so
//! a trainer that skips a bad shard, or a person reading a log, knows which file to look at and
//! why it was refused.

use std::io;
use std::path::{Path, PathBuf};

/// What went wrong reading or writing a shard, and in which file.
///
/// For bytes decoded in memory ([`crate::Shard::from_bytes`]) the path is the one the caller
/// gave as their origin.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    /// Reading, writing, renaming or listing failed at the operating-system level.
    #[error("{}: {error}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        error: io::Error,
    },
    /// The file does not start with the shard magic `QZSHARD\0`: not a shard at all.
    #[error("{}: not a qizero shard (starts with {found:02x?}, expected \"QZSHARD\\0\")", .path.display())]
    BadMagic {
        /// The file.
        path: PathBuf,
        /// The first bytes of the file (up to 8).
        found: Vec<u8>,
    },
    /// The shard was written in a format version this build does not read.
    #[error(
        "{}: shard format version {found} is not supported (this build reads versions {})",
        .path.display(),
        version_list(supported)
    )]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
        /// The versions this build reads ([`crate::READ_VERSIONS`]).
        supported: &'static [u32],
    },
    /// The file is shorter than its prefix says: cut off while being copied, or not a whole shard.
    #[error("{}: truncated shard: expected {expected} bytes, found {found}", .path.display())]
    Truncated {
        /// The length the prefix promises (or the prefix length itself, if even that is cut).
        expected: u64,
        /// The length of the file.
        found: u64,
        /// The file.
        path: PathBuf,
    },
    /// The file is longer than its prefix says: bytes appended, or a damaged length field.
    #[error("{}: trailing data after the shard: expected {expected} bytes, found {found}", .path.display())]
    TrailingData {
        /// The length the prefix promises.
        expected: u64,
        /// The length of the file.
        found: u64,
        /// The file.
        path: PathBuf,
    },
    /// The payload is larger than [`crate::MAX_PAYLOAD_BYTES`] (a damaged length field when
    /// reading; too many games in one shard when writing).
    #[error("{}: shard payload of {len} bytes exceeds the limit of {max} bytes", .path.display())]
    TooLarge {
        /// The file (when writing, the directory it was to go in).
        path: PathBuf,
        /// The payload length.
        len: u64,
        /// The limit.
        max: u64,
    },
    /// The payload's CRC-32 does not match the one stored in the prefix: the data was damaged.
    #[error("{}: checksum mismatch: stored {stored:#010x}, computed {computed:#010x} (damaged shard)", .path.display())]
    Checksum {
        /// The file.
        path: PathBuf,
        /// The CRC-32 in the prefix.
        stored: u32,
        /// The CRC-32 of the payload as read.
        computed: u32,
    },
    /// The payload passed its checksum but does not decode, or decodes to something invalid
    /// (counts that disagree, an illegal move, a sample past the end of its game, ...).
    #[error("{}: cannot decode shard: {msg}", .path.display())]
    Decode {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the game id and ply where there is one.
        msg: String,
    },
    /// The shard holds another game than the one it was read as.
    #[error("{}: shard holds {found} games, not {expected}", .path.display())]
    WrongGame {
        /// The file.
        path: PathBuf,
        /// The game named in the shard's header.
        found: String,
        /// The game the caller asked for.
        expected: &'static str,
    },
}

/// Versions in words: "2", "1 and 2", "1, 2 and 3".
fn version_list(versions: &[u32]) -> String {
    match versions {
        [] => "none".to_owned(),
        [only] => only.to_string(),
        [init @ .., last] => {
            let init: Vec<String> = init.iter().map(u32::to_string).collect();
            format!("{} and {last}", init.join(", "))
        }
    }
}

impl ShardError {
    /// The file (or directory) the error is about.
    #[must_use]
    pub fn path(&self) -> &Path {
        match self {
            ShardError::Io { path, .. }
            | ShardError::BadMagic { path, .. }
            | ShardError::UnsupportedVersion { path, .. }
            | ShardError::Truncated { path, .. }
            | ShardError::TrailingData { path, .. }
            | ShardError::TooLarge { path, .. }
            | ShardError::Checksum { path, .. }
            | ShardError::Decode { path, .. }
            | ShardError::WrongGame { path, .. } => path,
        }
    }

    pub(crate) fn io(path: &Path, error: io::Error) -> Self {
        ShardError::Io { path: path.to_path_buf(), error }
    }

    pub(crate) fn decode(path: &Path, msg: impl Into<String>) -> Self {
        ShardError::Decode { path: path.to_path_buf(), msg: msg.into() }
    }
}
