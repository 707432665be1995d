//! End-to-end runs of `qizero train`: training on shards written with the `shard` crate, a
//! corrupt shard named in the output, resuming with a larger step target, a clear error without
//! data, and `kill -9` at random moments, repeated, against an uninterrupted run.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/xiangqi-tiny.toml");

/// The settings every run here uses: small batches, CPU, no reuse cap, frequent checkpoints.
const SETS: [&str; 6] = [
    "net.device=cpu",
    "train.batch_size=16",
    "train.min_positions=1",
    "train.max_samples_per_new_sample=0",
    "train.checkpoint_every=2",
    "train.warmup_steps=0",
];

fn train_command(run: &Path, steps: u64, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_qizero"));
    cmd.args(["train", "--config", CONFIG, "--run"]).arg(run).args(["--steps", &steps.to_string()]);
    for set in SETS {
        cmd.args(["--set", set]);
    }
    cmd.args(extra);
    cmd
}

fn train(run: &Path, steps: u64, extra: &[&str]) -> (bool, String, String) {
    let out = train_command(run, steps, extra).output().expect("run qizero");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn temp_run(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qizero-train-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("shards")).expect("temp dir");
    dir
}

fn write_shards(run: &Path, n: u64) -> Vec<PathBuf> {
    (0..n)
        .map(|i| {
            let s = train::synthetic::random_shard::<xiangqi::Game>(10 + i, 2, 60, 1000 + i, "test");
            shard::write_shard(&run.join("shards"), &s).expect("write shard")
        })
        .collect()
}

/// Every complete checkpoint in the run: step -> the manifest's text.
fn manifests(run: &Path) -> BTreeMap<u64, String> {
    let dir = run.join("checkpoints");
    train::lineage::steps_in(&dir)
        .into_iter()
        .map(|s| (s, std::fs::read_to_string(dir.join(format!("{s}.json"))).expect("manifest")))
        .collect()
}

#[test]
fn trains_resumes_and_names_corrupt_shards() {
    let run = temp_run("basic");
    let shards = write_shards(&run, 3);
    let bad = &shards[1];
    let len = std::fs::metadata(bad).expect("meta").len();
    std::fs::OpenOptions::new().write(true).open(bad).expect("open").set_len(len - 3).expect("truncate");
    let bad_name = bad.file_name().expect("name").to_string_lossy().into_owned();

    let (ok, stdout, stderr) = train(&run, 4, &[]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("steps: 0 -> 4 (4 trained)"), "{stdout}");
    assert!(stdout.contains("corrupt shards: 1 (skipped)") && stdout.contains(&bad_name), "{stdout}");
    assert!(stderr.contains(&format!("warning: skipping corrupt shard {bad_name}")), "{stderr}");
    assert_eq!(manifests(&run).keys().copied().collect::<Vec<_>>(), [0, 2, 4], "generation 0 first");
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).expect("metrics");
    assert!(metrics.contains("\"event\":\"corrupt_shard\"") && metrics.contains(&bad_name), "{metrics}");
    assert_eq!(metrics.matches("\"event\":\"checkpoint\"").count(), 2, "{metrics}");

    let (ok, stdout, stderr) = train(&run, 6, &[]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("steps: 4 -> 6 (2 trained)"), "{stdout}");
    assert!(stderr.contains("resuming at step 4"), "{stderr}");

    // Another configuration for the same run is refused.
    let (ok, _, stderr) = train(&run, 6, &["--set", "train.batch_size=8"]);
    assert!(!ok && stderr.contains("batch_size"), "{stderr}");
    let _ = std::fs::remove_dir_all(&run);
}

/// SIGTERM (as a cluster scheduler sends) stops after the step in hand with a checkpoint there.
#[test]
fn sigterm_stops_with_a_checkpoint() {
    let run = temp_run("sigterm");
    write_shards(&run, 2);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_qizero"));
    cmd.args(["train", "--config", CONFIG, "--run"]).arg(&run);
    for set in SETS {
        cmd.args(["--set", set]);
    }
    let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("start qizero train");
    let first = run.join("checkpoints/2.json");
    for _ in 0..600 {
        if first.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(first.exists(), "no checkpoint within a minute");
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill");
    assert!(killed.success());
    let out = child.wait_with_output().expect("wait");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("stopped: signal"), "{stdout}");
    let last = *manifests(&run).keys().last().expect("a checkpoint");
    assert!(stdout.contains(&format!("steps: 0 -> {last} ")), "the last step has a checkpoint: {stdout}");
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn no_data_is_a_clear_error_with_no_wait() {
    let run = temp_run("empty");
    let (ok, stdout, stderr) = train(&run, 4, &["--no-wait"]);
    assert!(!ok, "{stdout}");
    assert!(stderr.contains("not enough training data") && stderr.contains("holds 0 positions"), "{stderr}");
    let _ = std::fs::remove_dir_all(&run);
}

/// `kill -9` at random moments, five times, then a run to the end: no complete checkpoint is ever
/// lost or changed, and every checkpoint (content-addressed weights, losses) equals the one of an
/// uninterrupted run over the same shards.
#[test]
fn kill_9_loses_nothing_and_resumes_exactly() {
    const STEPS: u64 = 24;
    let reference = temp_run("reference");
    let killed = temp_run("killed");
    for path in write_shards(&reference, 3) {
        std::fs::copy(&path, killed.join("shards").join(path.file_name().expect("name"))).expect("copy");
    }
    let (ok, stdout, stderr) = train(&reference, STEPS, &[]);
    assert!(ok, "{stdout}\n{stderr}");
    let expected = manifests(&reference);
    assert_eq!(expected.len() as u64, STEPS / 2 + 1, "generation 0, then every 2 steps");

    let mut rng = StdRng::seed_from_u64(9);
    let mut seen: BTreeMap<u64, String> = BTreeMap::new();
    for round in 0..5 {
        let mut child = train_command(&killed, STEPS, &[])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start qizero train");
        std::thread::sleep(Duration::from_millis(rng.random_range(300..2500)));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let now = manifests(&killed);
        for (step, text) in &seen {
            assert_eq!(now.get(step), Some(text), "round {round}: checkpoint {step} was lost or changed");
        }
        for (k, (step, text)) in now.iter().rev().enumerate() {
            let lineage: train::Lineage = serde_json::from_str(text).expect("manifest parses");
            let dir = killed.join("checkpoints");
            assert!(dir.join(&lineage.weights).is_file(), "round {round}: the weights of {step} are gone");
            // The optimiser state is kept for the newest two (train.keep_optimizer_states); an
            // older one may outlive a kill between a checkpoint and its pruning.
            if k < 2 {
                assert!(dir.join(&lineage.optimizer_state).is_file(), "round {round}: optimiser state of {step}");
            }
            assert_eq!(lineage.step, *step);
        }
        seen = now;
    }
    let (ok, stdout, stderr) = train(&killed, STEPS, &[]);
    assert!(ok, "{stdout}\n{stderr}");
    let got = manifests(&killed);
    assert_eq!(got.keys().collect::<Vec<_>>(), expected.keys().collect::<Vec<_>>());
    let optim = std::fs::read_dir(killed.join("checkpoints"))
        .expect("lists")
        .filter(|e| e.as_ref().is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".optim.safetensors")))
        .count();
    assert_eq!(optim, 2, "after a checkpoint, the optimiser states of the newest two only");
    for (step, text) in &got {
        let a: train::Lineage = serde_json::from_str(text).expect("manifest");
        let b: train::Lineage = serde_json::from_str(&expected[step]).expect("manifest");
        assert_eq!(a.weights, b.weights, "step {step}: weights differ from the uninterrupted run");
        assert_eq!((a.parent, a.samples_seen), (b.parent, b.samples_seen), "step {step}");
        assert_eq!(a.losses, b.losses, "step {step}: losses differ from the uninterrupted run");
    }
    let _ = std::fs::remove_dir_all(&reference);
    let _ = std::fs::remove_dir_all(&killed);
}
