//! The pipeline end to end, with a micro config, through the `qizero` binary only (processes talk
//! through the run directory, as in a real run): self-play writes shards, the trainer reads them
//! and writes a checkpoint, and self-play picks that checkpoint up.

use std::path::{Path, PathBuf};
use std::process::Command;

const CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/xiangqi-tiny.toml");

/// Small and fast: few simulations, short games, CPU, one worker.
const SETS: [&str; 14] = [
    "net.device=cpu",
    "selfplay.simulations=8",
    "selfplay.fast_simulations=0",
    "selfplay.games_in_flight=4",
    "selfplay.workers=1",
    "selfplay.games_per_shard=2",
    "selfplay.max_plies=30",
    "selfplay.model_poll_seconds=0",
    "train.batch_size=16",
    "train.min_positions=20",
    "train.max_samples_per_new_sample=0",
    "train.checkpoint_every=3",
    "train.warmup_steps=0",
    "inference.max_batch=4",
];

fn qizero(args: &[&str], run: &Path) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_qizero"));
    cmd.args(args).args(["--config", CONFIG, "--run"]).arg(run);
    for set in SETS {
        cmd.args(["--set", set]);
    }
    let out = cmd.output().expect("run qizero");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "qizero {args:?} failed:\n{text}");
    text
}

fn stem(weights: &Path) -> String {
    weights.file_stem().and_then(|s| s.to_str()).expect("checkpoint name").to_owned()
}

fn shards(run: &Path) -> Vec<PathBuf> {
    shard::list_shards(&run.join("shards")).expect("list shards")
}

#[test]
fn selfplay_train_selfplay() {
    let run = std::env::temp_dir().join(format!("qizero-pipeline-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&run);

    // 1. Self-play with no checkpoint yet: generation 0, the trainer's step-0 checkpoint
    //    (weights from the run seed), written first through the trainer's code.
    qizero(&["selfplay", "--games", "4"], &run);
    let first = shards(&run);
    assert!(!first.is_empty(), "self-play wrote no shard");
    let (step0, weights0) = train::lineage::newest(&run.join("checkpoints")).expect("generation 0");
    assert_eq!(step0, 0);
    assert!(run.join("checkpoints").join("0.json").is_file(), "generation 0 has its lineage");
    let stem0 = stem(&weights0);
    for path in &first {
        let s = shard::read_shard(path).expect("shard reads back");
        assert_eq!(s.header.model, stem0);
        assert_eq!(s.header.game, "xiangqi");
    }

    // 2. The trainer reads them and writes a checkpoint with its lineage.
    qizero(&["train", "--steps", "3"], &run);
    let (step, weights) = train::lineage::newest(&run.join("checkpoints")).expect("a checkpoint");
    assert_eq!(step, 3);
    let lineage = std::fs::read_to_string(run.join("checkpoints").join("3.json")).expect("lineage");
    assert!(lineage.contains("\"step\""), "{lineage}");

    // 3. Self-play again: it plays with the checkpoint and says so in the new shards' headers.
    qizero(&["selfplay", "--games", "2"], &run);
    let stem = stem(&weights);
    let newer: Vec<PathBuf> = shards(&run).into_iter().filter(|p| !first.contains(p)).collect();
    assert!(!newer.is_empty(), "the second self-play wrote no shard");
    for path in &newer {
        let s = shard::read_shard(path).expect("shard reads back");
        assert_eq!(s.header.model, stem, "{}", path.display());
    }
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).expect("metrics");
    assert!(metrics.contains("\"selfplay\""), "{metrics}");
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn two_selfplay_processes_share_a_run_directory() {
    let run = std::env::temp_dir().join(format!("qizero-two-writers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&run);
    // Made once first, so both processes find the same config.toml.
    qizero(&["selfplay", "--games", "2"], &run);
    let before = shards(&run).len();
    let spawn = || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_qizero"));
        cmd.args(["selfplay", "--games", "6", "--config", CONFIG, "--run"]).arg(&run);
        for set in SETS {
            cmd.args(["--set", set]);
        }
        cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped()).spawn().expect("spawn qizero")
    };
    let (a, b) = (spawn(), spawn());
    for child in [a, b] {
        let out = child.wait_with_output().expect("wait");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    // Each process wrote its 6 games as 3 shards of 2: nothing overwritten, everything readable.
    let all = shards(&run);
    assert_eq!(all.len(), before + 6, "{all:?}");
    let games: usize = all.iter().map(|p| shard::read_shard(p).expect("whole shard").games.len()).sum();
    assert_eq!(games, 2 + 12);
    let leftovers: Vec<_> = std::fs::read_dir(run.join("shards"))
        .expect("shards dir")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left behind: {leftovers:?}");
    let _ = std::fs::remove_dir_all(&run);
}

/// `qizero selfplay --model best` plays the checkpoint the gate chose, and a running one switches
/// when the arena's verdict (the `best` file) changes, as KataGo's self-play follows its
/// gatekeeper.
#[test]
fn selfplay_follows_the_best_file() {
    let run = std::env::temp_dir().join(format!("qizero-follow-best-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&run);
    qizero(&["selfplay", "--games", "4"], &run);
    qizero(&["train", "--steps", "3"], &run);
    let checkpoints = train::lineage::complete(&run.join("checkpoints"));
    let steps: Vec<u64> = checkpoints.iter().map(|(s, _)| *s).collect();
    assert_eq!(steps, [0, 3]);
    let (stem0, stem3) = (stem(&checkpoints[0].1), stem(&checkpoints[1].1));

    // No verdict yet: generation 0 is the best, though a newer checkpoint exists.
    let seen = shards(&run);
    qizero(&["selfplay", "--model", "best", "--games", "2"], &run);
    let new: Vec<PathBuf> = shards(&run).into_iter().filter(|p| !seen.contains(p)).collect();
    assert!(!new.is_empty());
    for path in &new {
        assert_eq!(shard::read_shard(path).expect("reads").header.model, stem0, "{}", path.display());
    }

    // A self-play process running until stopped switches once the arena names checkpoint 3.
    let seen = shards(&run);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_qizero"));
    cmd.args(["selfplay", "--model", "best", "--config", CONFIG, "--run"]).arg(&run);
    for set in SETS {
        cmd.args(["--set", set]);
    }
    let child = cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped()).spawn().expect("spawn");
    let models = |seen: &[PathBuf]| -> Vec<String> {
        shards(&run)
            .into_iter()
            .filter(|p| !seen.contains(p))
            .filter_map(|p| shard::read_shard(&p).ok().map(|s| s.header.model))
            .collect()
    };
    let wait_for = |model: &str| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while !models(&seen).iter().any(|m| m == model) {
            assert!(std::time::Instant::now() < deadline, "no shard played by {model}: {:?}", models(&seen));
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };
    wait_for(&stem0);
    let evidence = pipeline::gate::Evidence {
        against: Some("ckpt-0".into()),
        wins: 30,
        draws: 5,
        losses: 5,
        games: 40,
        test: "55% of 40 games".into(),
        llr: None,
    };
    let weights3 = checkpoints[1].1.file_name().and_then(|n| n.to_str()).expect("name").to_owned();
    pipeline::gate::Best::new("ckpt-3", 3, &weights3, evidence).write(&run.join("best")).expect("writes best");
    wait_for(&stem3);
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill");
    assert!(status.success());
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("now playing with model {stem3}")));
    let _ = std::fs::remove_dir_all(&run);
}
