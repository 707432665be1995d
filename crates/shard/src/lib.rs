//! Training data for qizero: the shard format that self-play writes and the trainer reads.
//!
//! A shard is one file holding a batch of finished self-play games: a header saying which game,
//! which encoding and which model played, by which worker, with which seed and when; then each
//! game's start position, moves and result with its training samples (sparse visit distribution
//! pi, outcome z from the side to move's view, root value, ply, and since format version 2 the
//! search's improved policy when it gave one). The file is versioned, carries a CRC-32 of its
//! payload, and is pinned by golden-bytes tests; this build writes version 2 and reads 1 and 2
//! ([`READ_VERSIONS`]). The byte layout and every field are documented in [`mod@format`].
//!
//! Samples store *positions, not planes*: a sample names a ply of its game, and the position
//! with its history is rebuilt by replaying the moves ([`GameRecord::replay`]), so an encoder
//! change never strands old data. This crate depends only on `game`; it never sees tensors.
//!
//! The pieces:
//! - [`mod@format`]: the records ([`Shard`], [`Header`], [`GameRecord`], [`Sample`], ...) and
//!   [`Shard::to_bytes`] / [`Shard::from_bytes`].
//! - [`files`]: [`write_shard`] (temporary name, flush, no-clobber rename: readers never see a
//!   partial shard, concurrent writers never collide), [`read_shard`], [`list_shards`].
//! - [`replay`]: stored game -> positions of a [`game::Game`], with every move checked.
//! - [`recorder`]: [`GameRecorder`], which builds a [`GameRecord`] during play.
//!
//! Errors are [`ShardError`]s, each naming the file and the fault (bad magic, unsupported
//! version, truncated, checksum mismatch, undecodable payload, illegal move, ...). No function
//! here panics on the contents of a file.

pub mod error;
pub mod files;
pub mod format;
pub mod recorder;
pub mod replay;

pub use error::ShardError;
pub use files::{
    SHARD_EXTENSION, list_shards, now_ms, read_header, read_shard, read_version, remove_stale_temps, unique_worker_id,
    write_shard,
};
pub use format::{
    Counts, FORMAT_VERSION, GameRecord, GameResult, Header, MAGIC, MAX_PAYLOAD_BYTES, PREFIX_LEN, READ_VERSIONS,
    Sample, Shard, Winner, header_from_bytes, outcome_reason,
};
pub use recorder::GameRecorder;
pub use replay::{ReplayedSample, SampleView};
