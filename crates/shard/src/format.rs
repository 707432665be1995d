//! The shard format, version 2: the records (field by field), the byte prefix around them, and
//! the functions that turn a [`Shard`] into bytes and back. Version 1 files are still read.
//!
//! # Byte layout
//! ```text
//! offset  size  field
//!      0     8  magic: the bytes "QZSHARD\0"
//!      8     4  format version, u32 little-endian: 2 (FORMAT_VERSION) as written; 1 or 2 as read
//!     12     8  payload length in bytes, u64 little-endian (at most MAX_PAYLOAD_BYTES)
//!     20     4  CRC-32 (IEEE 802.3 polynomial, as zlib and crc32fast) of the payload, u32 LE
//!     24     n  payload: bincode 2, `config::standard()`, of the payload record below
//! ```
//! The file ends exactly at `24 + n`: shorter is [`ShardError::Truncated`], longer is
//! [`ShardError::TrailingData`].
//!
//! bincode's standard configuration writes: unsigned integers as varints (a value below 251
//! is one byte; otherwise a tag byte 251/252/253 followed by a u16/u32/u64 little-endian);
//! `f32` as its 4 IEEE-754 bytes, little-endian; a string or list as its varint length and
//! then its bytes or elements; an `Option` as a byte 0 (none) or 1 followed by the value; an
//! enum as the varint index of its variant; a struct or tuple as its fields in order.
//!
//! # Payload record
//! ```text
//! payload      = header, game_count: u64, sample_count: u64, games: [game; game_count]
//! header       = game: str, encoding: str, model: str, worker: str, seed: u64, created_ms: u64
//! game         = game_id: u64, start_fen: str, moves: [str], result, samples: [sample]
//! result       = winner: Option<First | Second>, reason: str
//! sample       = ply: u32, pi: [(move: str, share: f32)], z: f32, root_value: f32,
//!                improved: [(move: str, share: f32)]
//! ```
//! The meaning of each field is on the Rust field of the same name ([`Header`], [`GameRecord`],
//! [`GameResult`], [`Sample`]). The counts are checked against the games when reading.
//!
//! # Versions
//! - **2** (written): `sample` ends with `improved`, the search's improved policy (empty when
//!   the search gave none).
//! - **1**: the same record without `improved`. Read through its own payload type and
//!   converted, each sample with `improved` empty, so a v1 sample trains on its pi exactly as
//!   it did when written. Header and counts are laid out alike in both, so
//!   [`header_from_bytes`] reads either.
//!
//! # Why positions and not planes
//! A sample does not hold a board at all: it holds its ply, and the position *with its
//! history* (what repetition planes and rule counters need) is recovered by replaying the
//! game's moves from its start FEN ([`crate::replay`]). That is smaller than any board
//! encoding, and it lets any future encoder re-read old shards: the encoding id in the header
//! only records what the net that played used.
//!
//! # Changing the format
//! Any change to the layout above, to a field's meaning or to the bincode configuration gets a
//! new [`FORMAT_VERSION`]; the golden-bytes test (`tests/format.rs`) fails until it does. The
//! old version stays readable: freeze its records as private `...V1`-style payload types beside
//! the current ones, decode it through them and convert (as version 1 is, in
//! [`Shard::from_bytes`]), add it to [`READ_VERSIONS`], and keep its golden bytes as a test. A
//! reader refuses versions it does not know with [`ShardError::UnsupportedVersion`].

use crate::ShardError;
use game::{DrawReason, Outcome, Side, WinReason};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The first eight bytes of every shard file.
pub const MAGIC: [u8; 8] = *b"QZSHARD\0";

/// The format version this build writes.
pub const FORMAT_VERSION: u32 = 2;

/// The format versions this build reads, oldest first (see the [module docs](self)).
pub const READ_VERSIONS: &[u32] = &[1, 2];

/// Bytes before the payload: magic, version, payload length, checksum.
pub const PREFIX_LEN: usize = 24;

/// The largest payload written or read (1 GiB). A shard is one batch of games, far below this;
/// the limit keeps a damaged length field, or a damaged string length inside the payload, from
/// asking for an absurd allocation.
pub const MAX_PAYLOAD_BYTES: u64 = 1 << 30;

/// The bincode configuration of the payload, pinned: standard (little-endian, varint integers),
/// with allocations limited to [`MAX_PAYLOAD_BYTES`].
fn bincode_config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<{ MAX_PAYLOAD_BYTES as usize }>()
}

/// Who played and how: the part of the payload before the games.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The game, as [`game::Game::NAME`]: `"xiangqi"` or `"draughts"`.
    pub game: String,
    /// The id of the input encoding the net that played used (`encode::EncodingInfo::id`, e.g.
    /// `"xiangqi-v1"`). Informational: the samples are positions, so any encoder can read them.
    pub encoding: String,
    /// The model that played: a checkpoint's file stem, or `"random-init"` / `"uniform"` for
    /// play without a trained net.
    pub model: String,
    /// The worker that wrote the shard, unique among concurrent writers (see
    /// [`crate::unique_worker_id`]); also part of the file name.
    pub worker: String,
    /// The seed the worker played this batch with: with the same binary it replays the batch.
    pub seed: u64,
    /// When the shard was made, in milliseconds since the Unix epoch (UTC). File names start
    /// with it, so listing a directory by name lists shards in time order.
    pub created_ms: u64,
}

/// A winner as stored in a shard (the rules crates' [`Side`] stays free of serde).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Winner {
    /// The side that moved first won (Red in xiangqi, White in draughts). Variant index 0.
    First,
    /// The side that moved second won (Black). Variant index 1.
    Second,
}

impl From<Side> for Winner {
    fn from(side: Side) -> Self {
        match side {
            Side::First => Winner::First,
            Side::Second => Winner::Second,
        }
    }
}

impl From<Winner> for Side {
    fn from(winner: Winner) -> Self {
        match winner {
            Winner::First => Side::First,
            Winner::Second => Side::Second,
        }
    }
}

/// How a recorded game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// The winner, or `None` for a draw (including a game stopped at a length cap).
    pub winner: Option<Winner>,
    /// Why, in a short lowercase word: one of [`outcome_reason`]'s names (`"checkmate"`,
    /// `"resign"`, `"repetition"`, `"cap"`, ...) or another the writer chose.
    pub reason: String,
}

impl GameResult {
    /// +1 if `side` won, -1 if it lost, 0 for a draw: the value of the result for that side.
    #[must_use]
    pub fn value_for(&self, side: Side) -> f32 {
        match self.winner {
            Some(w) if Side::from(w) == side => 1.0,
            Some(_) => -1.0,
            None => 0.0,
        }
    }

    /// The score in tournament form: "1-0", "0-1" or "1/2-1/2".
    #[must_use]
    pub fn score_str(&self) -> &'static str {
        match self.winner {
            Some(Winner::First) => "1-0",
            Some(Winner::Second) => "0-1",
            None => "1/2-1/2",
        }
    }
}

impl From<Outcome> for GameResult {
    fn from(outcome: Outcome) -> Self {
        GameResult { winner: outcome.winner().map(Winner::from), reason: outcome_reason(outcome).to_owned() }
    }
}

/// The short name stored as [`GameResult::reason`] for a rules outcome.
#[must_use]
pub const fn outcome_reason(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win { reason, .. } => match reason {
            WinReason::Checkmate => "checkmate",
            WinReason::Stalemate => "stalemate",
            WinReason::NoMoves => "no-moves",
            WinReason::PerpetualCheck => "perpetual-check",
            WinReason::PerpetualChase => "perpetual-chase",
            WinReason::Resignation => "resign",
            WinReason::Forfeit => "forfeit",
            WinReason::Adjudication => "adjudication",
        },
        Outcome::Draw(reason) => match reason {
            DrawReason::Repetition => "repetition",
            DrawReason::MoveRule => "move-rule",
            DrawReason::InsufficientMaterial => "insufficient-material",
            DrawReason::KingMoves => "king-moves",
            DrawReason::Endgame => "endgame",
            DrawReason::Adjudication => "adjudication",
            DrawReason::Cap => "cap",
        },
    }
}

/// One training sample: what the search said about one position of a recorded game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// The position is the one after the first `ply` moves of the game (0: the start FEN).
    /// Strictly increasing within a game and at most the number of moves: not every ply has a
    /// sample (playout-cap randomisation keeps only the full searches).
    pub ply: u32,
    /// The search's visit distribution, sparse: each legal move that got visits, in the game's
    /// move notation ([`game::Game::move_to_string`]), with its share of the visits. Shares
    /// are positive and sum to 1 (up to rounding).
    pub pi: Vec<(String, f32)>,
    /// The game's final result from the view of the side to move at this ply: +1 win, 0 draw,
    /// -1 loss.
    pub z: f32,
    /// The search's value of the position at the root, from the side to move's view, in
    /// [-1, 1].
    pub root_value: f32,
    /// The search's improved policy, when it gave one (Gumbel root search: softmax of the
    /// prior logits plus sigma of the completed Q values, over every legal root move), in the
    /// same notation as `pi`; shares positive, summing to 1 (up to rounding). Empty when the
    /// search gave none (PUCT, and every sample of a version 1 shard): `pi` is then the policy
    /// target. Added in format version 2.
    pub improved: Vec<(String, f32)>,
}

/// A sample as format version 1 stored it: [`Sample`] without `improved`. Frozen: version 1
/// files decode through it.
#[derive(Deserialize)]
struct SampleV1 {
    ply: u32,
    pi: Vec<(String, f32)>,
    z: f32,
    root_value: f32,
}

impl From<SampleV1> for Sample {
    fn from(v1: SampleV1) -> Sample {
        Sample { ply: v1.ply, pi: v1.pi, z: v1.z, root_value: v1.root_value, improved: Vec::new() }
    }
}

/// One game: where it started, every move played, how it ended, and its samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// An id for the game, unique within a run (the writer's choice, for example derived from
    /// worker and seed); carried into exported data so samples can be grouped by game.
    pub game_id: u64,
    /// The position the game started from, in the game's FEN dialect ([`game::Game::fen`]),
    /// with no history before it.
    pub start_fen: String,
    /// Every move played, oldest first, in the game's notation ([`game::Game::move_to_string`];
    /// UCI coordinates for xiangqi, Hub for draughts), read back with
    /// [`game::Game::parse_move_strict`], which takes that form only.
    pub moves: Vec<String>,
    /// How the game ended.
    pub result: GameResult,
    /// The samples, in increasing ply.
    pub samples: Vec<Sample>,
}

/// A shard: one header and a batch of games. What [`crate::write_shard`] writes and
/// [`crate::read_shard`] returns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shard {
    /// Who played and how.
    pub header: Header,
    /// The games, in the order they finished.
    pub games: Vec<GameRecord>,
}

/// How many games and samples a shard holds, as stored in its payload.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Counts {
    /// Number of games.
    pub games: u64,
    /// Number of samples over all games.
    pub samples: u64,
}

/// The payload as written: borrows the shard, adds the counts.
#[derive(Serialize)]
struct PayloadRef<'a> {
    header: &'a Header,
    counts: Counts,
    games: &'a [GameRecord],
}

/// The payload as read (version 2).
#[derive(Deserialize)]
struct Payload {
    header: Header,
    counts: Counts,
    games: Vec<GameRecord>,
}

/// A game as format version 1 stored it (its samples without `improved`). Frozen.
#[derive(Deserialize)]
struct GameRecordV1 {
    game_id: u64,
    start_fen: String,
    moves: Vec<String>,
    result: GameResult,
    samples: Vec<SampleV1>,
}

/// The payload of a version 1 file. Frozen.
#[derive(Deserialize)]
struct PayloadV1 {
    header: Header,
    counts: Counts,
    games: Vec<GameRecordV1>,
}

impl From<PayloadV1> for Payload {
    fn from(v1: PayloadV1) -> Payload {
        let games = v1
            .games
            .into_iter()
            .map(|g| GameRecord {
                game_id: g.game_id,
                start_fen: g.start_fen,
                moves: g.moves,
                result: g.result,
                samples: g.samples.into_iter().map(Sample::from).collect(),
            })
            .collect();
        Payload { header: v1.header, counts: v1.counts, games }
    }
}

/// Decodes a whole payload as `T`, refusing bytes left over.
fn decode_payload<T: serde::de::DeserializeOwned>(payload: &[u8], path: &Path) -> Result<T, ShardError> {
    let (decoded, used): (T, usize) = bincode::serde::decode_from_slice(payload, bincode_config())
        .map_err(|e| ShardError::decode(path, e.to_string()))?;
    if used != payload.len() {
        return Err(ShardError::decode(
            path,
            format!("{} unused bytes at the end of the payload", payload.len() - used),
        ));
    }
    Ok(decoded)
}

impl Shard {
    /// The number of games and samples.
    #[must_use]
    pub fn counts(&self) -> Counts {
        Counts { games: self.games.len() as u64, samples: self.games.iter().map(|g| g.samples.len() as u64).sum() }
    }

    /// The whole file: prefix and payload, as described in the [module docs](self). The
    /// payload may exceed [`MAX_PAYLOAD_BYTES`], which [`crate::write_shard`] refuses to write.
    ///
    /// # Panics
    /// Never: bincode cannot fail to encode these types into a `Vec`.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = PayloadRef { header: &self.header, counts: self.counts(), games: &self.games };
        let payload = bincode::serde::encode_to_vec(&payload, bincode::config::standard())
            .expect("encoding plain structs, strings and lists into a Vec cannot fail");
        let mut bytes = Vec::with_capacity(PREFIX_LEN + payload.len());
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        bytes
    }

    /// Decodes a whole shard file held in memory, of any version in [`READ_VERSIONS`] (a
    /// version 1 file's samples come back with `improved` empty). `path` is where the bytes
    /// came from; it only names the file in errors.
    ///
    /// # Errors
    /// [`ShardError::BadMagic`], [`ShardError::UnsupportedVersion`], [`ShardError::TooLarge`],
    /// [`ShardError::Truncated`], [`ShardError::TrailingData`], [`ShardError::Checksum`] or
    /// [`ShardError::Decode`], checked in that order. Never panics, whatever the bytes.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Shard, ShardError> {
        let (payload, version) = checked_payload(bytes, path)?;
        let decoded: Payload = match version {
            1 => decode_payload::<PayloadV1>(payload, path)?.into(),
            _ => decode_payload::<Payload>(payload, path)?,
        };
        let shard = Shard { header: decoded.header, games: decoded.games };
        if shard.counts() != decoded.counts {
            return Err(ShardError::decode(
                path,
                format!(
                    "the payload says {} games and {} samples but holds {} and {}",
                    decoded.counts.games,
                    decoded.counts.samples,
                    shard.games.len(),
                    shard.counts().samples
                ),
            ));
        }
        Ok(shard)
    }

    /// Checks the shard holds games of `G`.
    ///
    /// # Errors
    /// [`ShardError::WrongGame`] naming `path` if the header names another game.
    pub fn expect_game<G: game::Game>(&self, path: &Path) -> Result<(), ShardError> {
        if self.header.game == G::NAME {
            Ok(())
        } else {
            Err(ShardError::WrongGame { path: path.to_path_buf(), found: self.header.game.clone(), expected: G::NAME })
        }
    }
}

/// Decodes only the header and counts of a shard file held in memory, of any version in
/// [`READ_VERSIONS`] (they are laid out alike in all of them; the whole payload is still
/// checked against its checksum).
///
/// # Errors
/// As [`Shard::from_bytes`], except that the games are not decoded.
pub fn header_from_bytes(bytes: &[u8], path: &Path) -> Result<(Header, Counts), ShardError> {
    let (payload, _) = checked_payload(bytes, path)?;
    let ((header, counts), _): ((Header, Counts), usize) = bincode::serde::decode_from_slice(payload, bincode_config())
        .map_err(|e| ShardError::decode(path, e.to_string()))?;
    Ok((header, counts))
}

/// What the prefix says: the format version (one of [`READ_VERSIONS`]), the payload length
/// and its stored checksum.
pub(crate) struct Prefix {
    pub(crate) version: u32,
    pub(crate) payload_len: u64,
    pub(crate) crc: u32,
}

/// Checks the prefix of a file of `file_len` bytes, given its first bytes (all of them if the
/// file is shorter than [`PREFIX_LEN`]): magic, version, payload length against the limit and
/// against the file's length.
pub(crate) fn check_prefix(head: &[u8], file_len: u64, path: &Path) -> Result<Prefix, ShardError> {
    let magic_seen = &head[..head.len().min(MAGIC.len())];
    if magic_seen != &MAGIC[..magic_seen.len()] {
        return Err(ShardError::BadMagic { path: path.to_path_buf(), found: magic_seen.to_vec() });
    }
    let truncated = || ShardError::Truncated { path: path.to_path_buf(), expected: PREFIX_LEN as u64, found: file_len };
    let field = |range: std::ops::Range<usize>| head.get(range).ok_or_else(truncated);
    let version = u32::from_le_bytes(le_array(field(8..12)?));
    if !READ_VERSIONS.contains(&version) {
        return Err(ShardError::UnsupportedVersion {
            path: path.to_path_buf(),
            found: version,
            supported: READ_VERSIONS,
        });
    }
    let payload_len = u64::from_le_bytes(le_array(field(12..20)?));
    let crc = u32::from_le_bytes(le_array(field(20..24)?));
    if payload_len > MAX_PAYLOAD_BYTES {
        return Err(ShardError::TooLarge { path: path.to_path_buf(), len: payload_len, max: MAX_PAYLOAD_BYTES });
    }
    let expected = PREFIX_LEN as u64 + payload_len;
    if file_len < expected {
        return Err(ShardError::Truncated { path: path.to_path_buf(), expected, found: file_len });
    }
    if file_len > expected {
        return Err(ShardError::TrailingData { path: path.to_path_buf(), expected, found: file_len });
    }
    Ok(Prefix { version, payload_len, crc })
}

/// Checks the checksum of a payload against the prefix's.
fn check_crc(payload: &[u8], prefix: &Prefix, path: &Path) -> Result<(), ShardError> {
    let computed = crc32fast::hash(payload);
    if computed == prefix.crc {
        Ok(())
    } else {
        Err(ShardError::Checksum { path: path.to_path_buf(), stored: prefix.crc, computed })
    }
}

/// The payload of a whole file in memory and its format version, after every check short of
/// decoding it.
fn checked_payload<'a>(bytes: &'a [u8], path: &Path) -> Result<(&'a [u8], u32), ShardError> {
    let head = &bytes[..bytes.len().min(PREFIX_LEN)];
    let prefix = check_prefix(head, bytes.len() as u64, path)?;
    // check_prefix ensured bytes.len() == PREFIX_LEN + payload_len.
    let payload = &bytes[PREFIX_LEN..];
    debug_assert_eq!(payload.len() as u64, prefix.payload_len);
    check_crc(payload, &prefix, path)?;
    Ok((payload, prefix.version))
}

/// A fixed-size array from a slice of that size (the callers slice exact ranges).
fn le_array<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0; N];
    out.copy_from_slice(bytes);
    out
}
