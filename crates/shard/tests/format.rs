//! The shard byte format: golden bytes, and every kind of damage detected with an error that
//! names the file.

use game::Game as _;
use proptest::prelude::*;
use shard::*;
use std::fs;
use std::path::Path;

/// A tiny fixed shard: one xiangqi game of two moves (Red cannon to the centre, Black horse
/// out, then Red resigned), both plies sampled; the first sample carries an improved policy
/// (a Gumbel search's), the second none (a PUCT search's).
fn golden_shard() -> Shard {
    let mut shard = golden_shard_v1();
    shard.games[0].samples[0].improved = vec![("h2e2".into(), 0.5), ("b2e2".into(), 0.25), ("c3c4".into(), 0.25)];
    shard
}

/// What the golden version 1 file decodes to: [`golden_shard`] without any improved policy.
fn golden_shard_v1() -> Shard {
    Shard {
        header: Header {
            game: "xiangqi".into(),
            encoding: "xiangqi-v1".into(),
            model: "random-init".into(),
            worker: "w1".into(),
            seed: 7,
            created_ms: 1_700_000_000_000,
        },
        games: vec![GameRecord {
            game_id: 42,
            start_fen: xiangqi::START_FEN.into(),
            moves: vec!["h2e2".into(), "h9g7".into()],
            result: GameResult { winner: Some(Winner::Second), reason: "resign".into() },
            samples: vec![
                Sample {
                    ply: 0,
                    pi: vec![("h2e2".into(), 0.75), ("b2e2".into(), 0.25)],
                    z: -1.0,
                    root_value: 0.5,
                    improved: vec![],
                },
                Sample { ply: 1, pi: vec![("h9g7".into(), 1.0)], z: 1.0, root_value: -0.25, improved: vec![] },
            ],
        }],
    }
}

/// The exact bytes of [`golden_shard_v1`] as format version 1 wrote them (the build before
/// version 2), field by field. Frozen: old files must keep reading.
const GOLDEN_V1: &[&str] = &[
    // --- prefix ---
    "515a534841524400", // magic "QZSHARD\0"
    "01000000",         // format version 1, u32 LE
    "ba00000000000000", // payload length 186, u64 LE
    "7b7d4a74",         // CRC-32 of the payload, u32 LE
    // --- payload: header ---
    "07 7869616e677169",         // game "xiangqi" (varint length 7, UTF-8)
    "0a 7869616e6771692d7631",   // encoding "xiangqi-v1"
    "0b 72616e646f6d2d696e6974", // model "random-init"
    "02 7731",                   // worker "w1"
    "07",                        // seed 7 (varint)
    "fd 0068e5cf8b010000",       // created_ms 1700000000000 (tag 253 + u64 LE)
    "01 02",                     // counts: 1 game, 2 samples
    // --- games ---
    "01",                                                               // 1 game
    "2a",                                                               // game_id 42
    "45",                                                               // start_fen: 69 bytes,
    "726e62616b61626e722f392f31633563312f7031703170317031702f392f392f", //   "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/"
    "5031503150315031502f31433543312f392f524e42414b41424e5220",         //   "P1P1P1P1P/1C5C1/9/RNBAKABNR "
    "77202d202d20302031",                                               //   "w - - 0 1"
    "02 04 68326532 04 68396737",                                       // moves ["h2e2", "h9g7"]
    "01 01",                                                            // winner Some(Second)
    "06 72657369676e",                                                  // reason "resign"
    "02",                                                               // 2 samples
    "00",                                                               // sample 1: ply 0
    "02 04 68326532 0000403f 04 62326532 0000803e",                     //   pi [("h2e2", 0.75), ("b2e2", 0.25)]
    "000080bf",                                                         //   z -1.0 (f32 LE)
    "0000003f",                                                         //   root_value 0.5
    "01",                                                               // sample 2: ply 1
    "01 04 68396737 0000803f",                                          //   pi [("h9g7", 1.0)]
    "0000803f",                                                         //   z 1.0
    "000080be",                                                         //   root_value -0.25
];

/// The exact bytes of [`golden_shard`] as this build writes it (format version 2), field by
/// field. If this test fails, the format changed: bump `FORMAT_VERSION`, document the change in
/// `format.rs`, keep the old version readable (with its golden bytes), then update these bytes.
const GOLDEN: &[&str] = &[
    // --- prefix ---
    "515a534841524400", // magic "QZSHARD\0"
    "02000000",         // format version 2, u32 LE
    "d700000000000000", // payload length 215, u64 LE
    "fd001987",         // CRC-32 of the payload, u32 LE
    // --- payload: header ---
    "07 7869616e677169",         // game "xiangqi" (varint length 7, UTF-8)
    "0a 7869616e6771692d7631",   // encoding "xiangqi-v1"
    "0b 72616e646f6d2d696e6974", // model "random-init"
    "02 7731",                   // worker "w1"
    "07",                        // seed 7 (varint)
    "fd 0068e5cf8b010000",       // created_ms 1700000000000 (tag 253 + u64 LE)
    "01 02",                     // counts: 1 game, 2 samples
    // --- games ---
    "01",                                                               // 1 game
    "2a",                                                               // game_id 42
    "45",                                                               // start_fen: 69 bytes,
    "726e62616b61626e722f392f31633563312f7031703170317031702f392f392f", //   "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/"
    "5031503150315031502f31433543312f392f524e42414b41424e5220",         //   "P1P1P1P1P/1C5C1/9/RNBAKABNR "
    "77202d202d20302031",                                               //   "w - - 0 1"
    "02 04 68326532 04 68396737",                                       // moves ["h2e2", "h9g7"]
    "01 01",                                                            // winner Some(Second)
    "06 72657369676e",                                                  // reason "resign"
    "02",                                                               // 2 samples
    "00",                                                               // sample 1: ply 0
    "02 04 68326532 0000403f 04 62326532 0000803e",                     //   pi [("h2e2", 0.75), ("b2e2", 0.25)]
    "000080bf",                                                         //   z -1.0 (f32 LE)
    "0000003f",                                                         //   root_value 0.5
    "03 04 68326532 0000003f 04 62326532 0000803e",                     //   improved [("h2e2", 0.5), ("b2e2", 0.25),
    "04 63336334 0000803e",                                             //     ("c3c4", 0.25)]
    "01",                                                               // sample 2: ply 1
    "01 04 68396737 0000803f",                                          //   pi [("h9g7", 1.0)]
    "0000803f",                                                         //   z 1.0
    "000080be",                                                         //   root_value -0.25
    "00",                                                               //   improved [] (none)
];

fn unhex(parts: &[&str]) -> Vec<u8> {
    let hex: String = parts.concat().chars().filter(char::is_ascii_hexdigit).collect();
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")).collect()
}

fn golden_bytes() -> Vec<u8> {
    unhex(GOLDEN)
}

fn golden_bytes_v1() -> Vec<u8> {
    unhex(GOLDEN_V1)
}

fn origin() -> &'static Path {
    Path::new("golden.shard")
}

#[test]
fn golden_bytes_encode() {
    let bytes = golden_shard().to_bytes();
    assert_eq!(hex(&bytes), hex(&golden_bytes()));
}

#[test]
fn golden_bytes_decode() {
    let shard = Shard::from_bytes(&golden_bytes(), origin()).expect("golden shard decodes");
    assert_eq!(shard, golden_shard());
    assert_eq!(shard.counts(), Counts { games: 1, samples: 2 });
    let (header, counts) = header_from_bytes(&golden_bytes(), origin()).expect("header");
    assert_eq!(header, golden_shard().header);
    assert_eq!(counts, shard.counts());
    // The golden game is a real xiangqi game: it replays.
    let samples = shard.games[0].replay::<xiangqi::Game>(origin()).expect("replays");
    assert_eq!(samples.len(), 2);
    assert_eq!(samples[1].game.fen(), "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1");
    let start = xiangqi::Game::new();
    let improved: Vec<String> = samples[0].improved.iter().map(|&(mv, _)| start.move_to_string(mv)).collect();
    assert_eq!(improved, ["h2e2", "b2e2", "c3c4"]);
    assert!(samples[1].improved.is_empty());
}

/// A file written by the version 1 build still reads: the same games and samples, every
/// sample without an improved policy; header and counts read alike.
#[test]
fn golden_v1_bytes_still_decode() {
    let bytes = golden_bytes_v1();
    assert_eq!(&bytes[8..12], &1u32.to_le_bytes(), "a version 1 file");
    let shard = Shard::from_bytes(&bytes, origin()).expect("a v1 shard decodes");
    assert_eq!(shard, golden_shard_v1());
    assert!(shard.games[0].samples.iter().all(|s| s.improved.is_empty()));
    let (header, counts) = header_from_bytes(&bytes, origin()).expect("v1 header");
    assert_eq!((header, counts), (golden_shard().header, Counts { games: 1, samples: 2 }));
    let samples = shard.games[0].replay::<xiangqi::Game>(origin()).expect("replays");
    assert!(samples.iter().all(|s| s.improved.is_empty()));
    // Re-written, it becomes a version 2 file of the same content.
    let rewritten = shard.to_bytes();
    assert_eq!(&rewritten[8..12], &FORMAT_VERSION.to_le_bytes());
    assert_eq!(Shard::from_bytes(&rewritten, origin()).expect("v2"), shard);
    // Damage to a v1 file is caught like damage to a v2 one.
    let mut flipped = bytes.clone();
    flipped[100] ^= 1;
    assert!(matches!(Shard::from_bytes(&flipped, origin()), Err(ShardError::Checksum { .. })));
    assert!(matches!(Shard::from_bytes(&bytes[..150], origin()), Err(ShardError::Truncated { .. })));
    // A v1 payload sealed as version 2 does not decode (and vice versa): the version decides.
    let mut as_v2 = bytes.clone();
    as_v2[8] = 2;
    assert!(matches!(Shard::from_bytes(&as_v2, origin()), Err(ShardError::Decode { .. })));
    let mut as_v1 = golden_bytes();
    as_v1[8] = 1;
    assert!(matches!(Shard::from_bytes(&as_v1, origin()), Err(ShardError::Decode { .. })));
}

#[test]
fn versions_read_and_written() {
    assert_eq!(FORMAT_VERSION, 2);
    assert_eq!(READ_VERSIONS, &[1, 2]);
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, bytes, version) in [("v1.shard", golden_bytes_v1(), 1), ("v2.shard", golden_bytes(), 2)] {
        let path = dir.path().join(name);
        fs::write(&path, &bytes).expect("write");
        assert_eq!(read_version(&path).expect("version"), version);
        assert_eq!(read_header(&path).expect("header").1, Counts { games: 1, samples: 2 });
        read_shard(&path).expect("reads");
    }
    for version in [0u32, 3, 0x0100_0002] {
        let mut bytes = golden_bytes();
        bytes[8..12].copy_from_slice(&version.to_le_bytes());
        let path = dir.path().join(format!("v{version}.shard"));
        fs::write(&path, &bytes).expect("write");
        for err in [read_shard(&path).expect_err("shard"), read_version(&path).expect_err("version")] {
            assert!(matches!(err, ShardError::UnsupportedVersion { found, .. } if found == version), "{err}");
            let text = err.to_string();
            let expected =
                format!("shard format version {version} is not supported (this build reads versions 1 and 2)");
            assert!(text.starts_with(&path.display().to_string()) && text.contains(&expected), "{text}");
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn every_truncation_is_detected() {
    let bytes = golden_bytes();
    for len in 0..bytes.len() {
        match Shard::from_bytes(&bytes[..len], origin()) {
            Err(ShardError::Truncated { found, .. }) => assert_eq!(found, len as u64),
            other => panic!("cut to {len} bytes: {other:?}"),
        }
    }
}

#[test]
fn every_bit_flip_is_detected() {
    let bytes = golden_bytes();
    for i in 0..bytes.len() {
        for bit in 0..8 {
            let mut damaged = bytes.clone();
            damaged[i] ^= 1 << bit;
            let err = Shard::from_bytes(&damaged, origin()).expect_err("a flipped bit is caught");
            let expected = match i {
                0..8 => matches!(err, ShardError::BadMagic { .. }),
                8..12 => matches!(err, ShardError::UnsupportedVersion { .. }),
                12..20 => matches!(
                    err,
                    ShardError::Truncated { .. } | ShardError::TrailingData { .. } | ShardError::TooLarge { .. }
                ),
                _ => matches!(err, ShardError::Checksum { .. }),
            };
            assert!(expected, "byte {i} bit {bit}: {err}");
            assert_eq!(err.path(), origin());
        }
    }
}

#[test]
fn trailing_bytes_are_detected() {
    let mut bytes = golden_bytes();
    bytes.push(0);
    let err = Shard::from_bytes(&bytes, origin()).expect_err("trailing byte");
    assert!(matches!(err, ShardError::TrailingData { expected: 239, found: 240, .. }), "{err}");
}

/// Re-seals a payload with a correct prefix, so damage inside it gets past the checksum.
fn seal(payload: &[u8]) -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&crc32fast_hash(payload).to_le_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

/// CRC-32 (IEEE), bit by bit: an independent check of the crate's checksum.
fn crc32fast_hash(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

#[test]
fn checksum_is_crc32_ieee() {
    assert_eq!(seal(&golden_bytes()[PREFIX_LEN..]), golden_bytes());
}

#[test]
fn sealed_bad_payloads_are_decode_errors() {
    let payload = &golden_bytes()[PREFIX_LEN..];
    // Wrong sample count in the counts (byte 45 of the payload is the sample count, 2).
    let mut wrong_count = payload.to_vec();
    assert_eq!(wrong_count[45], 2);
    wrong_count[45] = 3;
    let err = Shard::from_bytes(&seal(&wrong_count), origin()).expect_err("count mismatch");
    assert!(matches!(err, ShardError::Decode { .. }), "{err}");
    assert!(err.to_string().contains("1 games and 3 samples"), "{err}");
    // Cut short inside the payload, resealed.
    let err = Shard::from_bytes(&seal(&payload[..100]), origin()).expect_err("short payload");
    assert!(matches!(err, ShardError::Decode { .. }), "{err}");
    // Extra bytes inside the payload, resealed.
    let mut longer = payload.to_vec();
    longer.push(0);
    let err = Shard::from_bytes(&seal(&longer), origin()).expect_err("long payload");
    assert!(err.to_string().contains("1 unused bytes"), "{err}");
    // A string length claiming far more than the payload holds.
    let mut huge = payload.to_vec();
    huge[0] = 0xfd;
    huge.splice(1..1, u64::MAX.to_le_bytes());
    let err = Shard::from_bytes(&seal(&huge), origin()).expect_err("huge string");
    assert!(matches!(err, ShardError::Decode { .. }), "{err}");
}

#[test]
fn file_errors_name_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        fs::write(&path, bytes).expect("write");
        path
    };
    let good = golden_bytes();

    let path = write("magic.shard", &[b"NOTASHRD".as_slice(), &good[8..]].concat());
    let err = read_shard(&path).expect_err("bad magic");
    assert!(matches!(err, ShardError::BadMagic { .. }), "{err}");
    assert!(err.to_string().starts_with(&path.display().to_string()), "{err}");
    assert!(err.to_string().contains("not a qizero shard"), "{err}");

    let mut v3 = good.clone();
    v3[8] = 3;
    let path = write("version.shard", &v3);
    let err = read_shard(&path).expect_err("version");
    assert!(matches!(err, ShardError::UnsupportedVersion { found: 3, supported: &[1, 2], .. }), "{err}");
    assert!(err.to_string().contains("version.shard"), "{err}");

    let path = write("short.shard", &good[..150]);
    let err = read_shard(&path).expect_err("truncated");
    assert!(matches!(err, ShardError::Truncated { expected: 239, found: 150, .. }), "{err}");
    assert!(err.to_string().contains("short.shard: truncated"), "{err}");

    let mut flipped = good.clone();
    flipped[100] ^= 0x10;
    let path = write("flipped.shard", &flipped);
    let err = read_shard(&path).expect_err("checksum");
    assert!(matches!(err, ShardError::Checksum { stored: 0x8719_00fd, .. }), "{err}");
    assert!(err.to_string().contains("flipped.shard: checksum mismatch"), "{err}");
    let err = read_header(&path).expect_err("the header reader checks the checksum too");
    assert!(matches!(err, ShardError::Checksum { .. }), "{err}");

    let path = dir.path().join("missing.shard");
    let err = read_shard(&path).expect_err("missing");
    assert!(matches!(err, ShardError::Io { .. }), "{err}");
    assert!(err.to_string().contains("missing.shard"), "{err}");

    let path = write("good.shard", &good);
    assert_eq!(read_shard(&path).expect("good"), golden_shard());
    assert_eq!(read_header(&path).expect("header").1, Counts { games: 1, samples: 2 });
}

#[test]
fn listing_skips_temporary_and_foreign_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let shard = golden_shard();
    let first = write_shard(dir.path(), &shard).expect("write");
    let mut later = shard.clone();
    later.header.created_ms += 1;
    let second = write_shard(dir.path(), &later).expect("write");
    // What a writer mid-write, another tool, or a hidden file leaves around.
    fs::write(dir.path().join(".1700000000002-w1-0007.shard.tmp"), b"partial").expect("temp");
    fs::write(dir.path().join(".hidden.shard"), b"x").expect("hidden");
    fs::write(dir.path().join("notes.txt"), b"x").expect("txt");
    fs::create_dir(dir.path().join("sub.shard")).expect("dir");
    assert_eq!(list_shards(dir.path()).expect("list"), vec![first.clone(), second]);
    let name = first.file_name().and_then(|n| n.to_str()).expect("name");
    assert!(name.starts_with("1700000000000-w1-") && name.ends_with(".shard"), "{name}");
    // Nothing of the writer's own temporary files is left.
    let temps = fs::read_dir(dir.path())
        .expect("dir")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(".tmp")));
    assert_eq!(temps.count(), 1, "only the planted temporary file");
    // A fresh temporary file is kept, an old one removed.
    assert_eq!(remove_stale_temps(dir.path(), std::time::Duration::from_secs(3600)).expect("clean"), 0);
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(remove_stale_temps(dir.path(), std::time::Duration::from_millis(5)).expect("clean"), 1);
    assert_eq!(list_shards(dir.path()).expect("list").len(), 2);
    let err = list_shards(&dir.path().join("none")).expect_err("missing dir");
    assert!(err.to_string().contains("none"), "{err}");
}

#[test]
fn worker_names_are_made_file_safe() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut shard = golden_shard();
    shard.header.worker = "../evil/wörker id".into();
    let path = write_shard(dir.path(), &shard).expect("write");
    assert_eq!(path.parent(), Some(dir.path()));
    let name = path.file_name().and_then(|n| n.to_str()).expect("name");
    assert!(name.starts_with("1700000000000-.._evil_w_rker_id-"), "{name}");
    assert_eq!(read_shard(&path).expect("read").header.worker, "../evil/wörker id");
}

#[test]
fn worker_ids_differ() {
    let a = unique_worker_id("sp-");
    let b = unique_worker_id("sp-");
    assert_ne!(a, b);
    assert!(a.starts_with(&format!("sp-{}-", std::process::id())), "{a}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Arbitrary bytes never panic the reader.
    #[test]
    fn arbitrary_bytes_are_rejected(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        prop_assert!(Shard::from_bytes(&bytes, origin()).is_err());
    }

    /// Arbitrary payloads that pass the checksum never panic the decoder.
    #[test]
    fn arbitrary_sealed_payloads_never_panic(payload in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = Shard::from_bytes(&seal(&payload), origin());
        let _ = header_from_bytes(&seal(&payload), origin());
    }

    /// Damaged golden payloads, resealed: decode or fail, never panic; whatever decodes also
    /// replays or fails cleanly.
    #[test]
    fn mutated_sealed_payloads_never_panic(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut payload = golden_bytes()[PREFIX_LEN..].to_vec();
        for (at, value) in edits {
            let i = at.index(payload.len());
            payload[i] = value;
        }
        let len = cut.index(payload.len() + 1).max(payload.len() - 8);
        payload.truncate(len);
        if let Ok(shard) = Shard::from_bytes(&seal(&payload), origin()) {
            for game in &shard.games {
                let _ = game.replay::<xiangqi::Game>(origin());
                let _ = game.replay::<draughts::Game>(origin());
            }
        }
    }

    /// Random damage to a whole file (flips and cuts) is always detected.
    #[test]
    fn random_damage_is_detected(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..), 0..4),
        cut in any::<prop::sample::Index>(),
    ) {
        let good = golden_bytes();
        let mut bytes = good.clone();
        for (at, mask) in &flips {
            let i = at.index(bytes.len());
            bytes[i] ^= mask;
        }
        let len = if flips.is_empty() { cut.index(bytes.len()) } else { bytes.len() };
        bytes.truncate(len);
        prop_assume!(bytes != good);
        let err = Shard::from_bytes(&bytes, origin());
        prop_assert!(err.is_err());
    }
}
