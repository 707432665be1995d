//! Shards on disk: writing one so that no reader ever sees it half written, reading one back
//! with every check, and listing a directory of them.
//!
//! # Many writers, one directory
//! Self-play workers in several processes (or on several machines sharing the run directory)
//! write into one `shards/` directory at once, and a trainer lists it while they do. The rules:
//! - A shard is written with [`durable::write_new`]: under a hidden temporary name (opened with
//!   `create_new` so two writers never share one), flushed to disk, then given its final name in
//!   one step, and the directory is flushed so the new name survives a crash.
//! - The final name is `<created_ms:013>-<worker>-<seq:04>.shard`: the creation time (so names
//!   sort in time order), the worker id (unique per process: [`unique_worker_id`]) and a
//!   per-process sequence number (unique per shard within the process, across threads).
//! - The final name is taken with a hard link, which fails rather than replacing a file that
//!   already exists, so even two writers handed the same worker id never overwrite each
//!   other's shard: the second one moves on to the next sequence number. On a file system
//!   without hard links the writer falls back to a rename.
//! - Readers ([`list_shards`]) list only `*.shard` names that do not start with a dot, so they
//!   never see a temporary file. A writer killed mid-write leaves only a temporary file, which
//!   [`remove_stale_temps`] clears.

use crate::format::{MAX_PAYLOAD_BYTES, PREFIX_LEN, Prefix, check_prefix, header_from_bytes};
use crate::{Counts, Header, Shard, ShardError};
use std::fs::{self, File};
use std::hash::{BuildHasher, Hasher, RandomState};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// The extension of a finished shard file.
pub const SHARD_EXTENSION: &str = "shard";

/// Per-process sequence number of shard names: unique across the threads of a process.
static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// How many names [`write_shard`] tries before giving up (only reached if something else keeps
/// creating files with this writer's names).
const NAME_ATTEMPTS: u32 = 1000;

/// A worker id unique across processes and machines: `prefix`, then the process id and 32
/// random bits (`selfplay-4242-9f3a01c2`). Not a seeded choice: it only names files and never
/// changes what is played.
#[must_use]
pub fn unique_worker_id(prefix: &str) -> String {
    // RandomState is seeded from the operating system's randomness once per process.
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    hasher.write_u64(SEQUENCE.fetch_add(1, Ordering::Relaxed));
    if let Ok(now) = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH) {
        hasher.write_u128(now.as_nanos());
    }
    format!("{prefix}{}-{:08x}", std::process::id(), hasher.finish() as u32)
}

/// Milliseconds since the Unix epoch: the value for [`Header::created_ms`].
#[must_use]
pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// Writes `shard` into `dir` (created if missing) under a new unique name, atomically: the
/// file appears under its final name complete or not at all. Returns the final path.
///
/// # Errors
/// [`ShardError::TooLarge`] (naming `dir`) if the payload exceeds [`MAX_PAYLOAD_BYTES`];
/// [`ShardError::Io`] naming the file or directory that failed.
pub fn write_shard(dir: &Path, shard: &Shard) -> Result<PathBuf, ShardError> {
    let bytes = shard.to_bytes();
    let payload_len = (bytes.len() - PREFIX_LEN) as u64;
    if payload_len > MAX_PAYLOAD_BYTES {
        return Err(ShardError::TooLarge { path: dir.to_path_buf(), len: payload_len, max: MAX_PAYLOAD_BYTES });
    }
    fs::create_dir_all(dir).map_err(|e| ShardError::io(dir, e))?;
    let stem = format!("{:013}-{}", shard.header.created_ms, file_safe(&shard.header.worker));
    for _ in 0..NAME_ATTEMPTS {
        let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("{stem}-{seq:04}.{SHARD_EXTENSION}"));
        match durable::write_new(&path, &bytes) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(ShardError::io(&path, e.source)),
        }
    }
    Err(ShardError::io(dir, io::Error::other(format!("no free shard name after {NAME_ATTEMPTS} attempts"))))
}

/// The worker id as it goes into a file name: ASCII letters, digits, `-`, `_` and `.` kept,
/// anything else replaced by `_`, at most 64 characters.
fn file_safe(worker: &str) -> String {
    let safe: String = worker
        .chars()
        .take(64)
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' })
        .collect();
    if safe.is_empty() { "worker".to_owned() } else { safe }
}

/// Reads and checks a whole shard file.
///
/// # Errors
/// [`ShardError::Io`] if it cannot be read; otherwise any fault of [`Shard::from_bytes`]:
/// wrong magic, unsupported version, truncated or trailing bytes, a bad checksum, a payload
/// that does not decode. Each names `path`.
pub fn read_shard(path: &Path) -> Result<Shard, ShardError> {
    let bytes = read_checked_file(path)?;
    Shard::from_bytes(&bytes, path)
}

/// Reads a shard's header and counts without decoding its games (the whole file is still read
/// and checked against its checksum).
///
/// # Errors
/// As [`read_shard`].
pub fn read_header(path: &Path) -> Result<(Header, Counts), ShardError> {
    let bytes = read_checked_file(path)?;
    header_from_bytes(&bytes, path)
}

/// The format version of a shard file (one of [`crate::READ_VERSIONS`]), from its 24-byte
/// prefix alone: what `qizero shard inspect` reports. The payload is neither read nor checked.
///
/// # Errors
/// [`ShardError::Io`] if it cannot be read; [`ShardError::BadMagic`],
/// [`ShardError::UnsupportedVersion`], [`ShardError::TooLarge`], [`ShardError::Truncated`] or
/// [`ShardError::TrailingData`] from the prefix. Each names `path`.
pub fn read_version(path: &Path) -> Result<u32, ShardError> {
    Ok(open_checked(path)?.prefix.version)
}

/// A shard file opened and its prefix read and checked; the file is positioned after it.
struct Opened {
    file: File,
    head: Vec<u8>,
    file_len: u64,
    prefix: Prefix,
}

/// Opens `path` and checks its prefix ([`check_prefix`]).
fn open_checked(path: &Path) -> Result<Opened, ShardError> {
    let io_err = |e| ShardError::io(path, e);
    let mut file = File::open(path).map_err(io_err)?;
    let file_len = file.metadata().map_err(io_err)?.len();
    let mut head = Vec::with_capacity(PREFIX_LEN);
    (&mut file).take(PREFIX_LEN as u64).read_to_end(&mut head).map_err(io_err)?;
    let prefix = check_prefix(&head, file_len, path)?;
    Ok(Opened { file, head, file_len, prefix })
}

/// The bytes of a file, read only after its prefix shows it is a shard of a sane size (so
/// pointing the reader at a large unrelated file costs 24 bytes of reading, not the file).
fn read_checked_file(path: &Path) -> Result<Vec<u8>, ShardError> {
    let Opened { file, head, file_len, .. } = open_checked(path)?;
    let mut bytes = head;
    bytes.reserve_exact((file_len as usize).saturating_sub(PREFIX_LEN));
    // Read one byte past the expected end, so a file that grew since the length was taken is
    // caught as trailing data rather than silently cut.
    file.take(file_len.saturating_sub(PREFIX_LEN as u64) + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ShardError::io(path, e))?;
    Ok(bytes)
}

/// The finished shards in `dir`, sorted by file name (which is creation-time order): every
/// `*.shard` file whose name does not start with a dot. Temporary files of writers still at
/// work are never listed.
///
/// # Errors
/// [`ShardError::Io`] naming `dir` if it cannot be listed.
pub fn list_shards(dir: &Path) -> Result<Vec<PathBuf>, ShardError> {
    let mut shards = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| ShardError::io(dir, e))? {
        let entry = entry.map_err(|e| ShardError::io(dir, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let is_shard = !name.starts_with('.') && Path::new(name).extension().is_some_and(|ext| ext == SHARD_EXTENSION);
        if is_shard && entry.path().is_file() {
            shards.push(entry.path());
        }
    }
    shards.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    Ok(shards)
}

/// Removes writers' temporary files in `dir` last modified more than `older_than` ago: what a
/// writer killed mid-write leaves ([`durable::remove_stale_temps`]). Returns how many were
/// removed. Pick `older_than` well above the time one shard takes to write, so no live writer
/// loses its file.
///
/// # Errors
/// [`ShardError::Io`] naming `dir` or the file that could not be removed.
pub fn remove_stale_temps(dir: &Path, older_than: Duration) -> Result<usize, ShardError> {
    durable::remove_stale_temps(dir, older_than).map_err(|e| ShardError::io(&e.path, e.source))
}
