//! `qizero experiment` end to end with a micro spec, through the binary: two arms of a micro
//! net differing in one override, one seed, a budget of a quarter minute each, a ladder of two
//! games per pairing against random; then the same command again, which resumes without
//! training or playing anything.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/xiangqi-tiny.toml");

/// A micro net and micro generations: a generation in about a second on two cores.
const MICRO: [&str; 19] = [
    "net.device=\"cpu\"",
    "net.blocks=1",
    "net.channels=8",
    "net.value_hidden=8",
    "selfplay.simulations=8",
    "selfplay.fast_simulations=0",
    "selfplay.games_in_flight=4",
    "selfplay.workers=1",
    "selfplay.games_per_shard=2",
    "selfplay.max_plies=40",
    "train.batch_size=16",
    "train.min_positions=20",
    "train.max_samples_per_new_sample=0",
    "train.checkpoint_every=4",
    "train.warmup_steps=0",
    "train.metrics_every=0",
    "inference.max_batch=8",
    "run.games_per_generation=4",
    "run.train_threads=1",
];

fn spec_text() -> String {
    let set = |extra: &str| {
        let all: Vec<String> = std::iter::once(extra).chain(MICRO).map(|s| format!("{s:?}")).collect();
        format!("[{}]", all.join(", "))
    };
    format!(
        r#"name = "micro"
budget_minutes = 8.0    # replaced by --budget
seeds = [1]
[ladder]
games = 2
simulations = 4
anchors = ["random"]
concurrency = 2
max_plies = 40
device = "cpu"
cpu_threads = 1
[[arm]]
name = "low"
config = "{CONFIG}"
set = {}
[[arm]]
name = "high"
config = "{CONFIG}"
set = {}
"#,
        set("mcts.c_puct=1.0"),
        set("mcts.c_puct=3.0")
    )
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qizero-experiment-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Runs the experiment; its output and how long it took.
fn experiment(spec: &Path, dir: &Path) -> (String, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_qizero"))
        .args(["experiment", "--budget", "0.25", "--spec"])
        .arg(spec)
        .arg("--dir")
        .arg(dir)
        .output()
        .expect("runs qizero");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "qizero experiment failed:\n{text}");
    (text, started.elapsed())
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn micro_experiment_rates_both_arms_and_resumes_without_rerunning() {
    let root = scratch();
    let spec = root.join("micro.toml");
    std::fs::write(&spec, spec_text()).expect("writes the spec");
    let dir = root.join("exp");

    let (text, _) = experiment(&spec, &dir);
    for arm in ["low", "high"] {
        assert!(text.contains(&format!("{arm}-s1: training for 0.25 minutes")), "{text}");
        let done: serde_json::Value =
            serde_json::from_str(&read(&dir.join(format!("runs/{arm}-s1/experiment-done.json"))))
                .expect("experiment-done.json is JSON");
        assert_eq!(done["budget_minutes"].as_f64(), Some(0.25));
        assert!(done["evaluations"].as_u64().is_some_and(|e| e > 0), "{done}");
        assert!(done["generations"].as_u64().is_some_and(|g| g >= 1), "{done}");
        let wall = done["wall_seconds"].as_f64().expect("wall_seconds");
        assert!((10.0..40.0).contains(&wall), "a quarter-minute budget took {wall} s");
        let config = read(&dir.join(format!("runs/{arm}-s1/config.toml")));
        assert!(config.contains("games_vs_random = 0") && config.contains("gate = \"none\""), "{config}");
        // The run's own arena played no game: the budget went into self-play and training.
        let matches =
            std::fs::read_to_string(dir.join(format!("runs/{arm}-s1/arena/matches.jsonl"))).unwrap_or_default();
        for line in matches.lines() {
            let m: serde_json::Value = serde_json::from_str(line).expect("a match line");
            let games: u64 = ["wins", "draws", "losses"].iter().filter_map(|k| m[*k].as_u64()).sum();
            assert_eq!(games, 0, "{line}");
        }
    }
    let results: serde_json::Value = serde_json::from_str(&read(&dir.join("results.json"))).expect("results.json");
    let arms: Vec<&str> = results["arms"].as_array().expect("arms").iter().filter_map(|a| a["arm"].as_str()).collect();
    assert_eq!(arms, ["low", "high"]);
    let players = results["players"].as_array().expect("players");
    assert_eq!(players.len(), 2, "each run's last checkpoint");
    for p in players {
        assert!(p["elo"].as_f64().is_some() && p["lo"].as_f64().is_some(), "{p}");
        assert_eq!(p["vs"][0]["anchor"], "random");
    }
    assert_eq!(results["anchors"][0]["elo"].as_f64(), Some(0.0));
    let md = read(&dir.join("results.md"));
    assert!(md.contains("| low | 1 |") && md.contains("| high | 1 |"), "{md}");
    let png = std::fs::read(dir.join("elo.png")).expect("elo.png");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "elo.png is not a PNG");
    assert!(text.contains("mean Elo"), "the per-arm summary is printed:\n{text}");

    // Again: every run is done and every pairing played, so nothing is trained or played.
    let pairings = read(&dir.join("ladder/pairings.jsonl"));
    assert_eq!(pairings.lines().count(), 2);
    let done_before = read(&dir.join("runs/low-s1/experiment-done.json"));
    let (text, took) = experiment(&spec, &dir);
    assert!(text.contains("low-s1: done") && text.contains("high-s1: done") && text.contains("skipped"), "{text}");
    assert!(text.contains("2 already played (skipped), 0 to play"), "{text}");
    assert!(!text.contains("training for"), "{text}");
    assert!(took < Duration::from_secs(12), "the resume took {took:?}");
    assert_eq!(read(&dir.join("ladder/pairings.jsonl")), pairings);
    assert_eq!(read(&dir.join("runs/low-s1/experiment-done.json")), done_before);

    // Another budget in the same directory is refused: every run of one experiment gets one.
    let out = Command::new(env!("CARGO_BIN_EXE_qizero"))
        .args(["experiment", "--budget", "0.5", "--spec"])
        .arg(&spec)
        .arg("--dir")
        .arg(&dir)
        .output()
        .expect("runs qizero");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("max_minutes"), "{err}");
    let _ = std::fs::remove_dir_all(&root);
}
