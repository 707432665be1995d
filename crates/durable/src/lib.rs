//! Durable files: the one way qizero puts a file in place, and the one way it reads a file it
//! was pointed at.
//!
//! Every file of a run directory (shards, checkpoint weights and optimiser state, lineage,
//! ratings, the match log, `best`, `config.toml`, plots, leases) and every record or export the
//! tools write goes through [`write_atomic`] (or [`write_atomic_with`] for a streamed writer,
//! [`write_new`] where an existing file must never be replaced). The contract:
//!
//! 1. the bytes go to a temporary file in the same directory, named
//!    `.<name>.<pid>-<n>.tmp` and opened with `create_new`, so no two writers (threads,
//!    processes, machines sharing the directory) ever share one, and readers that skip dot
//!    files never see it;
//! 2. the file is flushed to disk (`fsync`);
//! 3. it is renamed over the final name ([`write_new`]: hard-linked to it, which fails rather
//!    than replace an existing file; where the file system has no hard links, a rename after a
//!    check that the name is free);
//! 4. the directory is flushed, so the new name survives a crash.
//!
//! A reader therefore sees the old file or the whole new one, never half of either, and a
//! process killed at any moment leaves at most a hidden temporary file. A write that fails
//! (a full disk, a read-only directory) removes its temporary file before it returns, so a
//! failure never leaves the disk fuller than before.
//!
//! Logs that several processes append to (`metrics.jsonl`) are the one exception to
//! rename-into-place: [`append_line`] writes each line with one `write` on a file opened for
//! appending, which keeps whole lines whole, and flushes it.
//!
//! Reading: [`read_bounded`] refuses anything that is not a regular file (`/dev/zero`, a FIFO,
//! a directory) and anything larger than the caller's limit, before reading a byte of it, so a
//! mistyped path never makes a process grow without bound or hang.
//!
//! Errors are [`FileError`]s: the operation, the path and the operating system's reason, in one
//! message (the reason is not repeated as a separate source).

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Per-process counter that makes temporary names unique across threads.
static TEMP_SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// A file operation that failed: what was being done, to which path, and why.
#[derive(Debug)]
pub struct FileError {
    /// What was being done: `writing`, `reading`, `renaming`, ...
    pub op: &'static str,
    /// The file or directory.
    pub path: PathBuf,
    /// The operating system's reason (its kind tells `AlreadyExists` and the like apart).
    pub source: io::Error,
}

impl FileError {
    fn new(op: &'static str, path: &Path, source: io::Error) -> FileError {
        FileError { op, path: path.to_path_buf(), source }
    }

    /// The kind of the underlying I/O error.
    #[must_use]
    pub fn kind(&self) -> io::ErrorKind {
        self.source.kind()
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.op, self.path.display(), self.source)
    }
}

/// The reason is part of the message, so `source` gives nothing more (and error chains do not
/// print it twice).
impl std::error::Error for FileError {}

/// The temporary file [`write_atomic`] writes `path`'s new content into: hidden, in the same
/// directory, unique to this process and call.
fn temp_path(path: &Path) -> PathBuf {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().map_or_else(|| "file".into(), |n| n.to_string_lossy());
    let n = TEMP_SEQUENCE.fetch_add(1, Ordering::Relaxed);
    dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()))
}

/// True if `name` is a temporary file of this module (`.<name>.<pid>-<n>.tmp`): what a writer
/// killed mid-write leaves, and what directory listings must skip.
#[must_use]
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp")
}

/// The file name a temporary file of this module is for: `X` for `.X.<pid>-<n>.tmp` (and for a
/// bare `.X.tmp`); `None` for a name that is not a temporary file. Lets a directory's owner tell
/// its own unfinished writes from other processes'.
#[must_use]
pub fn temp_target(name: &str) -> Option<&str> {
    let inner = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let writer = |w: &str| {
        w.split_once('-')
            .is_some_and(|(p, n)| [p, n].iter().all(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())))
    };
    match inner.rsplit_once('.') {
        Some((target, w)) if writer(w) => Some(target),
        _ => Some(inner),
    }
}

/// Writes a temporary file beside `path` with `fill`, flushes it to disk and returns its path;
/// on any failure the temporary file is removed.
fn write_temp(path: &Path, fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>) -> Result<PathBuf, FileError> {
    let temp = temp_path(path);
    let file =
        OpenOptions::new().write(true).create_new(true).open(&temp).map_err(|e| FileError::new("writing", path, e))?;
    let mut writer = BufWriter::new(file);
    let written = fill(&mut writer)
        .and_then(|()| writer.into_inner().map_err(io::IntoInnerError::into_error))
        .and_then(|file| file.sync_all());
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(FileError::new("writing", path, e));
    }
    Ok(temp)
}

/// Flushes a directory's entries (a new name) to disk. Directories cannot be opened for this on
/// every platform; there the rename's own durability has to do.
///
/// # Errors
/// The directory cannot be opened or flushed.
pub fn sync_dir(dir: &Path) -> Result<(), FileError> {
    if cfg!(unix) {
        let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
        File::open(dir).and_then(|d| d.sync_all()).map_err(|e| FileError::new("flushing directory", dir, e))?;
    }
    Ok(())
}

fn parent(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("."))
}

/// Writes `bytes` to `path` atomically and durably (see the module docs): a reader sees the old
/// file or the whole new one; a kill at any moment leaves at most a hidden temporary file.
///
/// # Errors
/// The temporary file cannot be written or flushed, or the rename fails (the temporary file is
/// removed in every case).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// [`write_atomic`] with the content streamed by `fill` into a buffered writer (large exports,
/// images). An error from `fill` aborts the write and removes the temporary file.
///
/// # Errors
/// As [`write_atomic`], and whatever `fill` returns.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> Result<(), FileError> {
    let temp = write_temp(path, fill)?;
    if let Err(e) = fs::rename(&temp, path) {
        let _ = fs::remove_file(&temp);
        return Err(FileError::new("renaming into place", path, e));
    }
    sync_dir(parent(path))
}

/// Writes `bytes` to `path` atomically and durably like [`write_atomic`], but only if nothing
/// is at `path` yet: the final name is taken with a hard link, which fails with
/// [`io::ErrorKind::AlreadyExists`] rather than replace a file. On a file system without hard
/// links it falls back to a rename after checking that the name is free (callers make names
/// unique per writer, so the window between the check and the rename is harmless).
///
/// # Errors
/// [`FileError`] of kind `AlreadyExists` when `path` exists; otherwise as [`write_atomic`].
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let temp = write_temp(path, |w| w.write_all(bytes))?;
    let published = match fs::hard_link(&temp, path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
        Err(_) => publish_by_rename(&temp, path),
    };
    // After a hard link the temporary name is a second name of the published file; after a
    // rename or a failure there is nothing left to remove, or it must go.
    let _ = fs::remove_file(&temp);
    published.map_err(|e| FileError::new("publishing", path, e))?;
    sync_dir(parent(path))
}

/// The fallback of [`write_new`] where hard links fail: rename, which replaces silently, so look
/// first.
fn publish_by_rename(temp: &Path, path: &Path) -> io::Result<()> {
    if path.try_exists()? {
        return Err(io::Error::from(io::ErrorKind::AlreadyExists));
    }
    fs::rename(temp, path)
}

/// [`write_new`] always taking the rename fallback: what a file system without hard links
/// does, for tests of that path.
///
/// # Errors
/// As [`write_new`].
pub fn write_new_without_links(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let temp = write_temp(path, |w| w.write_all(bytes))?;
    let published = publish_by_rename(&temp, path);
    let _ = fs::remove_file(&temp);
    published.map_err(|e| FileError::new("publishing", path, e))?;
    sync_dir(parent(path))
}

/// Appends `line` (a newline is added) to the log at `path`, creating it if missing, with one
/// `write` on a file opened for appending, then flushes it: concurrent appenders never
/// interleave within a line of this size (a few kilobytes at most).
///
/// # Errors
/// The file cannot be opened, written or flushed.
pub fn append_line(path: &Path, line: &str) -> Result<(), FileError> {
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    let err = |e| FileError::new("appending to", path, e);
    let mut file = OpenOptions::new().create(true).append(true).open(path).map_err(err)?;
    file.write_all(&bytes).map_err(err)?;
    file.sync_data().map_err(err)
}

/// Reads the whole of `path`, which must be a regular file of at most `limit` bytes. Anything
/// else (a device such as `/dev/zero`, a FIFO, a directory, a file over the limit) is refused
/// before a byte of it is read.
///
/// # Errors
/// The file is missing or unreadable, not a regular file, or larger than `limit`.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let err = |e| FileError::new("reading", path, e);
    let file = File::open(path).map_err(err)?;
    let meta = file.metadata().map_err(err)?;
    if !meta.is_file() {
        let what = if meta.is_dir() { "a directory" } else { "not a regular file" };
        return Err(err(io::Error::new(io::ErrorKind::InvalidInput, format!("{what}, refused"))));
    }
    if meta.len() > limit {
        let message = format!("{} bytes, more than the {} allowed here", meta.len(), limit);
        return Err(err(io::Error::new(io::ErrorKind::InvalidData, message)));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // One byte past the limit, so a file that grew after the check is caught, not cut.
    file.take(limit + 1).read_to_end(&mut bytes).map_err(err)?;
    if bytes.len() as u64 > limit {
        return Err(err(io::Error::new(io::ErrorKind::InvalidData, format!("grew past the {limit} bytes allowed"))));
    }
    Ok(bytes)
}

/// [`read_bounded`] as UTF-8 text.
///
/// # Errors
/// As [`read_bounded`], and text that is not UTF-8.
pub fn read_text_bounded(path: &Path, limit: u64) -> Result<String, FileError> {
    let bytes = read_bounded(path, limit)?;
    String::from_utf8(bytes)
        .map_err(|e| FileError::new("reading", path, io::Error::new(io::ErrorKind::InvalidData, e.utf8_error())))
}

/// Removes this module's temporary files in `dir` last modified more than `older_than` ago:
/// what writers killed mid-write left. Returns how many were removed. Pick `older_than` well
/// above the time one write takes, so no live writer loses its file.
///
/// # Errors
/// `dir` cannot be listed, or a stale file cannot be removed.
pub fn remove_stale_temps(dir: &Path, older_than: std::time::Duration) -> Result<usize, FileError> {
    let now = std::time::SystemTime::now();
    let mut removed = 0;
    for entry in fs::read_dir(dir).map_err(|e| FileError::new("listing", dir, e))? {
        let entry = entry.map_err(|e| FileError::new("listing", dir, e))?;
        let name = entry.file_name();
        if !name.to_str().is_some_and(is_temp_name) {
            continue;
        }
        let Ok(modified) = entry.metadata().and_then(|m| m.modified()) else { continue };
        if now.duration_since(modified).is_ok_and(|age| age > older_than) {
            match fs::remove_file(entry.path()) {
                Ok(()) => removed += 1,
                // Another cleaner got there first.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(FileError::new("removing", &entry.path(), e)),
            }
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("qizero-durable-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .expect("lists")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn write_atomic_replaces_whole_and_leaves_no_temp() {
        let dir = scratch("atomic");
        let path = dir.join("a.json");
        write_atomic(&path, b"first").expect("writes");
        write_atomic(&path, b"second, longer").expect("replaces");
        assert_eq!(fs::read(&path).expect("reads"), b"second, longer");
        assert_eq!(names(&dir), ["a.json"]);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn failed_fill_removes_the_temp_and_keeps_the_old_file() {
        let dir = scratch("fail");
        let path = dir.join("b.bin");
        write_atomic(&path, b"old").expect("writes");
        let e = write_atomic_with(&path, |w| {
            w.write_all(&[7; 100_000])?;
            Err(io::Error::other("disk full (simulated)"))
        })
        .expect_err("fill fails");
        assert!(e.to_string().contains("b.bin") && e.to_string().contains("disk full"), "{e}");
        assert_eq!(e.to_string().matches("disk full").count(), 1, "the reason once: {e}");
        assert_eq!(fs::read(&path).expect("reads"), b"old");
        assert_eq!(names(&dir), ["b.bin"]);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn missing_directory_is_an_error_naming_the_file() {
        let dir = scratch("missing");
        let path = dir.join("no").join("such.txt");
        let e = write_atomic(&path, b"x").expect_err("no directory");
        assert!(e.to_string().contains("such.txt"), "{e}");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn write_new_never_replaces() {
        let dir = scratch("new");
        let path = dir.join("c.shard");
        write_new(&path, b"one").expect("publishes");
        let e = write_new(&path, b"two").expect_err("exists");
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        let e = write_new_without_links(&path, b"three").expect_err("exists, rename path");
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        write_new_without_links(&dir.join("d.shard"), b"four").expect("rename path publishes");
        assert_eq!(fs::read(&path).expect("reads"), b"one");
        assert_eq!(fs::read(dir.join("d.shard")).expect("reads"), b"four");
        assert_eq!(names(&dir), ["c.shard", "d.shard"]);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn appends_whole_lines() {
        let dir = scratch("append");
        let path = dir.join("log.jsonl");
        append_line(&path, "{\"a\":1}").expect("appends");
        append_line(&path, "{\"b\":2}").expect("appends");
        assert_eq!(fs::read_to_string(&path).expect("reads"), "{\"a\":1}\n{\"b\":2}\n");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn bounded_reads_refuse_devices_directories_and_large_files() {
        let dir = scratch("read");
        let e = read_bounded(Path::new("/dev/zero"), 1 << 20).expect_err("a device");
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let e = read_bounded(&dir, 1 << 20).expect_err("a directory");
        assert!(e.to_string().contains("a directory"), "{e}");
        let path = dir.join("big.txt");
        write_atomic(&path, &[b'x'; 2000]).expect("writes");
        let e = read_bounded(&path, 1000).expect_err("too large");
        assert!(e.to_string().contains("2000 bytes"), "{e}");
        assert_eq!(read_text_bounded(&path, 2000).expect("fits").len(), 2000);
        assert!(read_bounded(&dir.join("none"), 10).is_err());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn temp_names_name_their_target() {
        let dir = std::env::temp_dir().join(format!("durable-temp-target-{}", std::process::id()));
        let temp = temp_path(&dir.join("12-abc.safetensors"));
        let name = temp.file_name().and_then(|n| n.to_str()).expect("a name");
        assert_eq!(temp_target(name), Some("12-abc.safetensors"));
        assert_eq!(temp_target(".12.json.tmp"), Some("12.json"));
        assert_eq!(temp_target("12.json"), None);
        assert_eq!(temp_target(".hidden"), None);
    }

    #[test]
    fn stale_temps_are_cleared_fresh_ones_kept() {
        let dir = scratch("stale");
        fs::write(dir.join(".x.shard.1-2.tmp"), b"half").expect("writes");
        fs::write(dir.join("keep.shard"), b"whole").expect("writes");
        assert_eq!(remove_stale_temps(&dir, std::time::Duration::from_secs(3600)).expect("clears"), 0);
        assert_eq!(remove_stale_temps(&dir, std::time::Duration::ZERO).expect("clears"), 1);
        assert_eq!(names(&dir), ["keep.shard"]);
        let _ = fs::remove_dir_all(&dir);
    }
}
