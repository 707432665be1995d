//! End-to-end runs of `qizero shard inspect` and `qizero shard export`: shards of random games
//! written with the `shard` crate, the built binary's output, the .npz read back (with
//! ndarray-npy, no Python needed), and clean errors naming the file for damaged input.

use encode::Encode;
use game::Game;
use ndarray::{Array1, Array2, Array4, Axis};
use ndarray_npy::NpzReader;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `qizero` with `args`; returns (success, stdout, stderr).
fn qizero(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_qizero")).args(args).output().expect("run qizero");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qizero-shard-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Writes a shard of `games` random games of `G` into `dir`, about half the plies sampled, and
/// about half of those with an improved policy over every legal move (as a Gumbel search gives).
fn random_shard<G: Encode>(dir: &Path, games: u64, seed: u64) -> (PathBuf, shard::Shard) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut records = Vec::new();
    for id in 0..games {
        let mut game = G::new();
        let mut recorder = shard::GameRecorder::new(seed * 100 + id, &game);
        while game.ply() < 80 && game.outcome().is_none() {
            let moves = game.legal_moves();
            let moves = moves.as_ref();
            if rng.random_bool(0.5) {
                let visits: Vec<(G::Move, f32)> =
                    moves.choose_multiple(&mut rng, 4).map(|&mv| (mv, rng.random_range(1..10) as f32)).collect();
                let improved: Vec<(G::Move, f32)> = if rng.random_bool(0.5) {
                    moves.iter().map(|&mv| (mv, rng.random_range(0.1..1.0))).collect()
                } else {
                    Vec::new()
                };
                recorder.record_sample(&game, &visits, &improved, rng.random_range(-1.0..=1.0));
            }
            let mv = *moves.choose(&mut rng).expect("moves");
            recorder.record_move(&game, mv);
            game.play_unchecked(mv);
        }
        records.push(match game.outcome() {
            Some(outcome) => recorder.finish_outcome(outcome),
            None => recorder.finish(shard::GameResult { winner: None, reason: "cap".into() }),
        });
    }
    let header = shard::Header {
        game: G::NAME.into(),
        encoding: G::ENCODING.id.into(),
        model: "random-init".into(),
        worker: "test".into(),
        seed,
        created_ms: 1_700_000_000_000 + seed,
    };
    let shard = shard::Shard { header, games: records };
    (shard::write_shard(dir, &shard).expect("write shard"), shard)
}

fn arg(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

#[test]
fn inspect_prints_header_counts_and_samples() {
    let dir = temp_dir("inspect");
    let (path, shard) = random_shard::<xiangqi::Game>(&dir, 3, 1);
    let (ok, out, err) = qizero(&["shard", "inspect", arg(&path), "--records", "2"]);
    assert!(ok, "{err}");
    assert!(out.contains("game      xiangqi\n") && out.contains("encoding  xiangqi-v2\n"), "{out}");
    assert!(out.contains("checksum ok") && out.contains("seed      1\n"), "{out}");
    assert!(out.contains("format    qizero shard version 2, "), "{out}");
    let samples = shard.games.iter().flat_map(|g| &g.samples);
    let improved = samples.clone().filter(|s| !s.improved.is_empty()).count();
    assert!(improved > 0, "the test shard has improved policies");
    let line = format!("targets   improved policy on {improved} of {} samples\n", samples.count());
    assert!(out.contains(&line), "{out}");
    assert!(out.contains(&format!("samples   {} (", shard.counts().samples)), "{out}");
    assert!(out.contains("created   2023-11-14 22:13:20 UTC"), "{out}");
    assert_eq!(out.matches("    fen ").count(), 2, "{out}");
    assert_eq!(out.matches("    pi  ").count(), 2, "{out}");
    let first = &shard.games[0];
    let replayed = first.replay::<xiangqi::Game>(&path).expect("replay");
    assert!(out.contains(&format!("    fen {}\n", replayed[0].game.fen())), "{out}");
    let shown = first.samples.iter().take(2).filter(|s| !s.improved.is_empty()).count();
    assert_eq!(out.matches("    imp ").count(), shown, "an improved line for each sample that has one: {out}");
    std::fs::remove_dir_all(dir).ok();
}

/// Exports `paths` and checks every array against the shards, sample by sample.
fn check_export<G: Encode>(dir: &Path, paths: &[&Path], shards: &[&shard::Shard]) {
    let npz = dir.join("out.npz");
    let mut args = vec!["shard", "export", "--npz", arg(&npz)];
    args.extend(paths.iter().map(|p| arg(p)));
    let (ok, _, err) = qizero(&args);
    assert!(ok, "{err}");
    let mut reader = NpzReader::new(std::fs::File::open(&npz).expect("npz")).expect("read npz");
    let planes: Array4<f32> = reader.by_name("planes").expect("planes");
    let policy: Array2<f32> = reader.by_name("policy").expect("policy");
    let improved: Array2<f32> = reader.by_name("improved").expect("improved");
    let has_improved: Array1<bool> = reader.by_name("has_improved").expect("has_improved");
    let z: Array1<f32> = reader.by_name("z").expect("z");
    let root_value: Array1<f32> = reader.by_name("root_value").expect("root_value");
    let ply: Array1<i32> = reader.by_name("ply").expect("ply");
    let game_id: Array1<i64> = reader.by_name("game_id").expect("game_id");
    let info = G::ENCODING;
    let n: u64 = shards.iter().map(|s| s.counts().samples).sum();
    let n = n as usize;
    assert_eq!(planes.dim(), (n, info.planes, info.height, info.width));
    assert_eq!(policy.dim(), (n, info.policy_size));
    assert_eq!((improved.dim(), has_improved.len()), ((n, info.policy_size), n));
    assert_eq!((z.len(), root_value.len(), ply.len(), game_id.len()), (n, n, n, n));
    let mut k = 0;
    let mut expected = vec![0f32; info.plane_len()];
    for (shard, path) in shards.iter().zip(paths) {
        for record in &shard.games {
            for s in record.replay::<G>(path).expect("replay") {
                s.game.encode(&mut expected);
                assert_eq!(planes.index_axis(Axis(0), k).iter().copied().collect::<Vec<_>>(), expected);
                for &(mv, p) in &s.pi {
                    assert!(policy[[k, s.game.policy_index(mv)]] >= p - 1e-6);
                }
                let sum: f32 = policy.row(k).sum();
                assert!((sum - 1.0).abs() < 1e-4, "policy row {k} sums to {sum}");
                assert_eq!(has_improved[k], !s.improved.is_empty());
                for &(mv, p) in &s.improved {
                    assert!(improved[[k, s.game.policy_index(mv)]] >= p - 1e-6);
                }
                let sum: f32 = improved.row(k).sum();
                let expected = if s.improved.is_empty() { 0.0 } else { 1.0 };
                assert!((sum - expected).abs() < 1e-4, "improved row {k} sums to {sum}");
                assert_eq!((z[k], root_value[k]), (s.z, s.root_value));
                assert_eq!((ply[k], game_id[k]), (s.ply as i32, record.game_id as i64));
                k += 1;
            }
        }
    }
    assert_eq!(k, n);
}

#[test]
fn export_writes_numpy_arrays_for_both_games() {
    let dir = temp_dir("export");
    let (x1, s1) = random_shard::<xiangqi::Game>(&dir.join("x"), 2, 2);
    let (x2, s2) = random_shard::<xiangqi::Game>(&dir.join("x"), 2, 3);
    check_export::<xiangqi::Game>(&dir, &[&x1, &x2], &[&s1, &s2]);
    let (d1, s3) = random_shard::<draughts::Game>(&dir.join("d"), 3, 4);
    check_export::<draughts::Game>(&dir, &[&d1], &[&s3]);
    // A directory stands for its shards, in name (time) order.
    let (ok, _, err) = qizero(&["shard", "export", "--npz", arg(&dir.join("all.npz")), arg(&dir.join("x"))]);
    assert!(ok, "{err}");
    assert!(err.contains("in 2 shards"), "{err}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn damaged_or_mixed_input_fails_naming_the_file() {
    let dir = temp_dir("errors");
    let (x, _) = random_shard::<xiangqi::Game>(&dir, 1, 5);
    let (d, _) = random_shard::<draughts::Game>(&dir, 1, 6);
    let bytes = std::fs::read(&x).expect("read");
    let cut = dir.join("cut.shard");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).expect("write");
    let mut flipped_bytes = bytes.clone();
    flipped_bytes[bytes.len() / 2] ^= 4;
    let flipped = dir.join("flipped.shard");
    std::fs::write(&flipped, &flipped_bytes).expect("write");
    let junk = dir.join("junk.shard");
    std::fs::write(&junk, b"hello world, this is not a shard").expect("write");
    let out = arg(&dir).to_owned() + "/o.npz";

    let cases: [(Vec<&str>, String); 6] = [
        (vec!["shard", "inspect", arg(&cut)], format!("{}: truncated shard", cut.display())),
        (vec!["shard", "inspect", arg(&flipped)], format!("{}: checksum mismatch", flipped.display())),
        (vec!["shard", "inspect", arg(&junk)], format!("{}: not a qizero shard", junk.display())),
        (vec!["shard", "inspect", "/no/such.shard"], "/no/such.shard: No such file".into()),
        (vec!["shard", "export", "--npz", &out, arg(&x), arg(&flipped)], format!("{}: checksum", flipped.display())),
        (vec!["shard", "export", "--npz", &out, arg(&x), arg(&d)], "export one game at a time".into()),
    ];
    for (args, needle) in cases {
        let (ok, _, err) = qizero(&args);
        assert!(!ok, "{args:?} succeeded");
        assert!(err.starts_with("error: ") && err.contains(&needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    std::fs::remove_dir_all(dir).ok();
}
