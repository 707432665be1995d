//! Shards of real games: record random-playout games of both games, write, read, replay, and
//! check every sampled position comes back exactly; concurrent writers never collide.

use game::{Game, Side};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use shard::*;
use std::collections::HashSet;
use std::path::Path;

/// What the player saw at a sampled ply, to compare with the replay.
struct Seen<G: Game> {
    ply: usize,
    fen: String,
    key: u64,
    mover: Side,
    pi: Vec<(G::Move, f32)>,
    improved: Vec<(G::Move, f32)>,
}

/// Plays one game of random moves (at most `max_plies`), sampling about half the plies with
/// random visit counts over a few legal moves, and half of those with a random improved policy
/// over every legal move (as a Gumbel search gives). Returns the record and what was seen.
fn random_game<G: Game>(start: G, game_id: u64, max_plies: usize, rng: &mut StdRng) -> (GameRecord, Vec<Seen<G>>) {
    let mut game = start;
    let mut recorder = GameRecorder::new(game_id, &game);
    let mut seen = Vec::new();
    while game.ply() < max_plies && game.outcome().is_none() {
        let moves = game.legal_moves();
        let moves = moves.as_ref();
        if rng.random_bool(0.6) {
            let visited: Vec<(G::Move, f32)> =
                moves.choose_multiple(rng, 5).map(|&mv| (mv, rng.random_range(0..20) as f32)).collect();
            let total: f32 = visited.iter().map(|v| v.1).sum();
            let pi = visited.iter().filter(|v| v.1 > 0.0).map(|&(mv, w)| (mv, w / total)).collect();
            let weights: Vec<(G::Move, f32)> = if rng.random_bool(0.5) {
                moves.iter().map(|&mv| (mv, rng.random_range(0.01..1.0))).collect()
            } else {
                Vec::new()
            };
            let total: f32 = weights.iter().map(|v| v.1).sum();
            let improved = weights.iter().map(|&(mv, w)| (mv, w / total)).collect();
            recorder.record_sample(&game, &visited, &weights, rng.random_range(-1.0..=1.0));
            let (ply, fen, key, mover) = (game.ply(), game.fen(), game.key(), game.side_to_move());
            seen.push(Seen { ply, fen, key, mover, pi, improved });
        }
        let mv = *moves.choose(rng).expect("a game not over has moves");
        recorder.record_move(&game, mv);
        game.play_unchecked(mv);
    }
    assert_eq!(recorder.ply(), game.ply());
    assert_eq!(recorder.sample_count(), seen.len());
    let record = match game.outcome() {
        Some(outcome) => recorder.finish_outcome(outcome),
        None => recorder.finish(GameResult { winner: None, reason: "cap".into() }),
    };
    (record, seen)
}

fn header<G: Game>(worker: &str, seed: u64) -> Header {
    Header {
        game: G::NAME.into(),
        encoding: format!("{}-v1", G::NAME),
        model: "random-init".into(),
        worker: worker.into(),
        seed,
        created_ms: now_ms(),
    }
}

/// Records `games` random games, writes them as one shard, reads it back and checks every
/// sample replays to the exact position, moves and values seen during play.
fn round_trip<G: Game>(start: impl Fn() -> G, games: u64, max_plies: usize, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut records = Vec::new();
    let mut seen = Vec::new();
    for id in 0..games {
        let (record, s) = random_game(start(), 1000 + id, max_plies, &mut rng);
        records.push(record);
        seen.push(s);
    }
    let shard = Shard { header: header::<G>(&unique_worker_id("test-"), seed), games: records };
    let dir = tempfile::tempdir().expect("temp dir");
    let path = write_shard(dir.path(), &shard).expect("write");
    let back = read_shard(&path).expect("read");
    assert_eq!(back, shard);
    back.expect_game::<G>(&path).expect("right game");
    let samples: usize = seen.iter().map(Vec::len).sum();
    assert_eq!(back.counts(), Counts { games, samples: samples as u64 });
    assert!(samples > 0);

    for (record, seen) in back.games.iter().zip(&seen) {
        let replayed = record.replay::<G>(&path).expect("replay");
        assert_eq!(replayed.len(), seen.len());
        for (r, s) in replayed.iter().zip(seen) {
            assert_eq!(r.ply as usize, s.ply);
            assert_eq!(r.game.ply(), s.ply, "replayed with the whole history");
            assert_eq!(r.game.fen(), s.fen, "game {} ply {}", record.game_id, s.ply);
            assert_eq!(r.game.key(), s.key, "game {} ply {}", record.game_id, s.ply);
            assert_eq!(r.pi.len(), s.pi.len());
            for (&(a, pa), &(b, pb)) in r.pi.iter().zip(&s.pi) {
                assert_eq!(a, b);
                assert!((pa - pb).abs() < 1e-6);
            }
            let sum: f32 = r.pi.iter().map(|p| p.1).sum();
            assert!(r.pi.is_empty() || (sum - 1.0).abs() < 1e-5, "shares sum to {sum}");
            assert_eq!(r.improved.len(), s.improved.len());
            for (&(a, pa), &(b, pb)) in r.improved.iter().zip(&s.improved) {
                assert_eq!(a, b);
                assert!((pa - pb).abs() < 1e-6);
            }
            let sum: f32 = r.improved.iter().map(|p| p.1).sum();
            assert!(r.improved.is_empty() || (sum - 1.0).abs() < 1e-5, "improved sums to {sum}");
            assert_eq!(r.z, record.result.value_for(s.mover), "z is from the side to move's view");
            assert!((-1.0..=1.0).contains(&r.root_value));
        }
        // The whole game replays to its end, and the stored result agrees with the rules.
        let end = record.replay_with::<G>(&path, |_| {}).expect("replay to the end");
        assert_eq!(end.ply(), record.moves.len());
        match end.outcome() {
            Some(outcome) => assert_eq!(record.result, GameResult::from(outcome)),
            None => assert_eq!(record.result.reason, "cap"),
        }
    }
}

#[test]
fn xiangqi_round_trip() {
    round_trip(xiangqi::Game::new, 6, 160, 1);
}

#[test]
fn draughts_round_trip() {
    round_trip(draughts::Game::new, 6, 200, 2);
}

#[test]
fn games_from_other_fens_round_trip() {
    // A xiangqi endgame and a draughts middle game: start FENs other than the initial one.
    let fen = "3k5/4a4/9/9/9/9/9/9/4A4/3AK1R2 w - - 0 1";
    round_trip(|| xiangqi::Game::from_fen(fen).expect("fen"), 3, 60, 3);
    let mut d = draughts::Game::new();
    let mut rng = StdRng::seed_from_u64(4);
    for _ in 0..10 {
        let moves = d.legal_moves();
        d.play_unchecked(*moves.as_ref().choose(&mut rng).expect("moves"));
    }
    let dfen = d.fen();
    round_trip(|| draughts::Game::from_fen(&dfen).expect("fen"), 3, 80, 5);
}

#[test]
fn recorder_keeps_history_played_before_it() {
    let mut game = xiangqi::Game::new();
    let mut rng = StdRng::seed_from_u64(9);
    for _ in 0..7 {
        let moves = game.legal_moves();
        game.play_unchecked(*moves.as_ref().choose(&mut rng).expect("moves"));
    }
    let (fen, key) = (game.fen(), game.key());
    let mut recorder = GameRecorder::new(5, &game);
    assert_eq!(recorder.ply(), 7);
    let mv = game.legal_moves().as_ref()[0];
    recorder.record_sample(&game, &[(mv, 3.0)], &[], 2.5);
    let record = recorder.finish(GameResult { winner: Some(Winner::First), reason: "adjudication".into() });
    assert_eq!(record.start_fen, xiangqi::START_FEN);
    assert_eq!(record.moves.len(), 7);
    let replayed = record.replay::<xiangqi::Game>(Path::new("mem")).expect("replay");
    assert_eq!(replayed[0].game.fen(), fen);
    assert_eq!(replayed[0].game.key(), key);
    assert_eq!(replayed[0].game.moves_played(), game.moves_played());
    assert_eq!(replayed[0].pi, vec![(mv, 1.0)]);
    assert!(replayed[0].improved.is_empty(), "no improved policy given, none stored");
    assert_eq!(replayed[0].root_value, 1.0, "clamped");
    // Seven moves played: Black to move, Red won.
    assert_eq!(replayed[0].z, -1.0);
}

/// The improved policy is filtered and normalised like the visits: non-positive and non-finite
/// weights dropped, the rest scaled to sum 1, order kept; all weights dropped means none.
#[test]
fn recorder_normalises_the_improved_policy() {
    let mut game = xiangqi::Game::new();
    let moves: Vec<_> = game.legal_moves().as_ref().to_vec();
    let (a, b, c, d) = (moves[0], moves[1], moves[2], moves[3]);
    let mut recorder = GameRecorder::new(1, &game);
    let improved = [(a, 3.0), (b, 0.0), (c, f32::NAN), (d, 1.0)];
    recorder.record_sample(&game, &[(b, 2.0), (a, 2.0)], &improved, 0.25);
    recorder.record_move(&game, a);
    game.play_unchecked(a);
    let reply = game.legal_moves().as_ref()[0];
    recorder.record_sample(&game, &[(reply, 1.0)], &[(reply, -1.0), (reply, f32::INFINITY)], 0.0);
    let record = recorder.finish(GameResult { winner: None, reason: "cap".into() });
    let start = xiangqi::Game::new();
    let text = |mv| start.move_to_string(mv);
    assert_eq!(record.samples[0].improved, vec![(text(a), 0.75), (text(d), 0.25)]);
    assert_eq!(record.samples[0].pi, vec![(text(b), 0.5), (text(a), 0.5)]);
    assert!(record.samples[1].improved.is_empty(), "only bad weights: no improved policy");
    let replayed = record.replay::<xiangqi::Game>(Path::new("mem")).expect("replay");
    assert_eq!(replayed[0].improved, vec![(a, 0.75), (d, 0.25)]);
    assert!(replayed[1].improved.is_empty());
}

#[test]
fn bad_records_are_decode_errors_naming_file_game_and_ply() {
    let mut rng = StdRng::seed_from_u64(11);
    let (record, _) = random_game(xiangqi::Game::new(), 77, 40, &mut rng);
    let path = Path::new("runs/x/shards/bad.shard");
    let check = |record: &GameRecord, needle: &str| {
        let err = record.replay::<xiangqi::Game>(path).expect_err("invalid record");
        assert!(matches!(err, ShardError::Decode { .. }), "{err}");
        let text = err.to_string();
        assert!(text.starts_with("runs/x/shards/bad.shard: ") && text.contains("game 77"), "{text}");
        assert!(text.contains(needle), "{text} lacks {needle}");
    };

    let mut bad = record.clone();
    bad.moves[10] = "a0a9".into();
    check(&bad, "ply 10: move 'a0a9' is not legal");

    let mut bad = record.clone();
    bad.start_fen = "not a fen".into();
    check(&bad, "bad start FEN");

    let mut bad = record.clone();
    bad.samples.push(Sample { ply: 41, pi: vec![], z: 0.0, root_value: 0.0, improved: vec![] });
    check(&bad, "sample at ply 41");

    let mut bad = record.clone();
    bad.samples.swap(0, 1);
    check(&bad, "out of order");

    let mut bad = record.clone();
    let dup = bad.samples[0].clone();
    bad.samples.insert(0, dup);
    check(&bad, "two samples at ply");

    let mut bad = record.clone();
    let ply = bad.samples[0].ply;
    bad.samples[0].pi.push(("e9e8".into(), 0.5));
    check(&bad, &format!("ply {ply}: pi move 'e9e8'"));

    let mut bad = record.clone();
    bad.samples[0].z = f32::NAN;
    check(&bad, "z NaN");

    let mut bad = record.clone();
    bad.samples[1].pi[0].1 = -0.5;
    check(&bad, "pi share -0.5");

    let mut bad = record.clone();
    let ply = bad.samples[0].ply;
    bad.samples[0].improved.push(("e9e8".into(), 0.5));
    check(&bad, &format!("ply {ply}: improved move 'e9e8'"));

    let mut bad = record.clone();
    let legal = bad.samples[0].pi[0].0.clone();
    bad.samples[0].improved = vec![(legal, f32::INFINITY)];
    check(&bad, "improved share inf");

    // Read as the wrong game.
    let shard = Shard { header: header::<xiangqi::Game>("w", 0), games: vec![record.clone()] };
    let err = shard.expect_game::<draughts::Game>(path).expect_err("wrong game");
    assert_eq!(err.to_string(), "runs/x/shards/bad.shard: shard holds xiangqi games, not draughts");
    let err = record.replay::<draughts::Game>(path).expect_err("xiangqi FEN is no draughts FEN");
    assert!(err.to_string().contains("bad start FEN"), "{err}");
}

/// The game of `record` after its first `ply` moves.
fn replay_to<G: Game>(record: &GameRecord, ply: usize) -> G {
    let mut game = G::from_fen(&record.start_fen).expect("start FEN");
    for text in &record.moves[..ply] {
        let mv = game.parse_move_strict(text).expect("stored move");
        game.play_unchecked(mv);
    }
    game
}

#[test]
fn stored_moves_in_another_notation_are_refused() {
    let path = Path::new("runs/x/shards/other.shard");
    let mut rng = StdRng::seed_from_u64(12);
    let (record, _) = random_game(xiangqi::Game::new(), 78, 30, &mut rng);
    let ply = 10;
    let game = replay_to::<xiangqi::Game>(&record, ply);
    let mv = game.parse_move_strict(&record.moves[ply]).expect("stored move");
    let pos = game.position();
    for text in [xiangqi::notation::to_wxf(pos, mv), xiangqi::notation::to_chinese(pos, mv)] {
        assert_eq!(game.parse_move(&text).ok(), Some(mv), "the lenient reader takes {text}");
        let mut bad = record.clone();
        bad.moves[ply] = text.clone();
        let err = bad.replay::<xiangqi::Game>(path).expect_err("a move in another notation");
        let msg = err.to_string();
        assert!(matches!(err, ShardError::Decode { .. }), "{msg}");
        assert!(msg.starts_with("runs/x/shards/other.shard: "), "{msg}");
        assert!(msg.contains(&format!("game 78, ply {ply}: move '{text}'")), "{msg}");
    }

    // A pi move in WXF is refused the same way.
    let sample = &record.samples[0];
    let game = replay_to::<xiangqi::Game>(&record, sample.ply as usize);
    let pi_move = game.parse_move_strict(&sample.pi[0].0).expect("stored pi move");
    let wxf = xiangqi::notation::to_wxf(game.position(), pi_move);
    let mut bad = record.clone();
    bad.samples[0].pi[0].0 = wxf.clone();
    let err = bad.replay::<xiangqi::Game>(path).expect_err("a pi move in WXF");
    assert!(err.to_string().contains(&format!("ply {}: pi move '{wxf}'", sample.ply)), "{err}");

    // A draughts capture in PDN rather than Hub.
    let (record, _) = random_game(draughts::Game::new(), 79, 200, &mut rng);
    let ply = record.moves.iter().position(|m| m.contains('x')).expect("a capture within 200 plies");
    let game = replay_to::<draughts::Game>(&record, ply);
    let mv = game.parse_move_strict(&record.moves[ply]).expect("stored move");
    let pdn = draughts::notation::to_pdn(game.position(), &mv);
    assert_ne!(pdn, record.moves[ply]);
    assert_eq!(game.parse_move(&pdn).ok(), Some(mv), "the lenient reader takes {pdn}");
    let mut bad = record.clone();
    bad.moves[ply] = pdn.clone();
    let err = bad.replay::<draughts::Game>(path).expect_err("a move in PDN");
    assert!(err.to_string().contains(&format!("game 79, ply {ply}: move '{pdn}'")), "{err}");
}

#[test]
fn concurrent_writers_never_collide() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut rng = StdRng::seed_from_u64(21);
    let (record, _) = random_game(draughts::Game::new(), 1, 30, &mut rng);
    // Both threads use the same worker id and time, so only the writer's own uniqueness
    // (sequence numbers, no-clobber publication) keeps their files apart.
    let created_ms = now_ms();
    let written: Vec<Vec<std::path::PathBuf>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2u64)
            .map(|t| {
                let (dir, record) = (dir.path(), &record);
                scope.spawn(move || {
                    (0..50u64)
                        .map(|i| {
                            let mut header = header::<draughts::Game>("same-worker", t * 100 + i);
                            header.created_ms = created_ms;
                            let shard = Shard { header, games: vec![record.clone()] };
                            write_shard(dir, &shard).expect("write")
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("writer thread")).collect()
    });
    let all: HashSet<_> = written.iter().flatten().cloned().collect();
    assert_eq!(all.len(), 100, "every shard got its own file");
    let listed = list_shards(dir.path()).expect("list");
    assert_eq!(listed.len(), 100);
    let seeds: HashSet<u64> = listed.iter().map(|p| read_shard(p).expect("read").header.seed).collect();
    assert_eq!(seeds.len(), 100, "no shard overwrote another");
    let leftovers = std::fs::read_dir(dir.path()).expect("dir").count();
    assert_eq!(leftovers, 100, "no temporary files left behind");
}

#[test]
fn existing_files_are_never_replaced() {
    // Plant files under the names this writer would choose next (a second process that was
    // handed the same worker id); the writer must step around them, not overwrite them.
    let dir = tempfile::tempdir().expect("temp dir");
    let mut header = header::<xiangqi::Game>("clash", 3);
    header.created_ms = 1_234;
    for seq in 0..300 {
        std::fs::write(dir.path().join(format!("0000000001234-clash-{seq:04}.shard")), b"theirs").expect("plant");
    }
    let shard = Shard { header, games: vec![] };
    let path = write_shard(dir.path(), &shard).expect("write");
    assert_eq!(read_shard(&path).expect("read"), shard);
    for entry in std::fs::read_dir(dir.path()).expect("dir") {
        let path = entry.expect("entry").path();
        if read_shard(&path).is_err() {
            assert_eq!(std::fs::read(&path).expect("read"), b"theirs");
        }
    }
    assert_eq!(list_shards(dir.path()).expect("list").len(), 301);
}
