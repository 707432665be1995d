//! `qizero run` end to end with a micro config, through the binary: generations of self-play,
//! training and the arena; then the same run interrupted (SIGINT) in the middle of self-play and
//! in the middle of the arena, and resumed with the same command: it ends exactly where an
//! uninterrupted run ends, with no shard, checkpoint or match lost or done twice.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/xiangqi-tiny.toml");

/// Two generations of a few short games, a few steps and a few arena games each.
const SETS: [&str; 26] = [
    "net.device=cpu",
    "selfplay.simulations=8",
    "selfplay.fast_simulations=0",
    "selfplay.games_in_flight=4",
    "selfplay.workers=2",
    "selfplay.games_per_shard=2",
    "selfplay.max_plies=40",
    "train.batch_size=16",
    "train.min_positions=20",
    "train.max_samples_per_new_sample=0",
    "train.checkpoint_every=4",
    "train.metrics_every=2",
    "train.warmup_steps=0",
    "inference.max_batch=8",
    "arena.simulations=4",
    "arena.games_vs_random=4",
    "arena.games_vs_alphabeta=2",
    "arena.gate=\"winrate\"",
    "arena.gate_games=4",
    "arena.concurrency=2",
    "arena.max_plies=40",
    "run.generations=2",
    "run.games_per_generation=8",
    "run.arena_every=1",
    "run.max_minutes=0",
    "run.train_threads=1",
];

fn command(run: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_qizero"));
    cmd.args(["run", "--config", CONFIG, "--run"]).arg(run);
    for set in SETS {
        cmd.args(["--set", set]);
    }
    cmd
}

fn run_to_end(run: &Path) -> String {
    let out = command(run).output().expect("run qizero");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "qizero run failed:\n{text}");
    text
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qizero-run-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Steps of the complete checkpoints.
fn checkpoint_steps(run: &Path) -> Vec<u64> {
    train::lineage::complete(&run.join("checkpoints")).into_iter().map(|(s, _)| s).collect()
}

/// Every shard's name and game count; each must read back whole.
fn shards(run: &Path) -> BTreeMap<String, u64> {
    shard::list_shards(&run.join("shards"))
        .expect("lists shards")
        .into_iter()
        .map(|p| {
            let s = shard::read_shard(&p).unwrap_or_else(|e| panic!("{e}"));
            (p.file_name().and_then(|n| n.to_str()).expect("name").to_owned(), s.counts().games)
        })
        .collect()
}

/// (checkpoint, kind) of every complete match, counted.
fn matches(run: &Path) -> BTreeMap<(String, String), usize> {
    let text = std::fs::read_to_string(run.join("arena").join("matches.jsonl")).unwrap_or_default();
    let mut seen = BTreeMap::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        let key = (v["a"].as_str().expect("a").to_owned(), v["kind"].as_str().expect("kind").to_owned());
        *seen.entry(key).or_insert(0) += 1;
    }
    seen
}

/// The games of every shard: start, moves and result, to find any game played twice.
fn games(run: &Path) -> Vec<String> {
    let mut all = Vec::new();
    for p in shard::list_shards(&run.join("shards")).expect("lists shards") {
        let s = shard::read_shard(&p).expect("reads");
        for g in &s.games {
            all.push(format!("{:?}", (&g.start_fen, &g.moves)));
        }
    }
    all
}

fn check_complete_run(run: &Path) {
    assert_eq!(checkpoint_steps(run), [0, 4, 8], "a checkpoint per generation, and step 0");
    let played: u64 = shards(run).values().sum();
    assert!(played >= 16, "two generations of 8 games, {played} in the shards");
    let m = matches(run);
    for ckpt in ["ckpt-0", "ckpt-4", "ckpt-8"] {
        assert_eq!(m.get(&(ckpt.into(), "random".into())), Some(&1), "{ckpt} vs random once: {m:?}");
        assert_eq!(m.get(&(ckpt.into(), "alphabeta".into())), Some(&1), "{ckpt} vs alpha-beta once: {m:?}");
    }
    assert_eq!(m.get(&("ckpt-0".into(), "gate".into())), None, "generation 0 has no one to gate against");
    for ckpt in ["ckpt-4", "ckpt-8"] {
        assert_eq!(m.get(&(ckpt.into(), "gate".into())), Some(&1), "{ckpt} gated once: {m:?}");
    }
    let ratings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("arena").join("ratings.json")).expect("ratings.json"))
            .expect("ratings.json is JSON");
    let players = ratings["players"].as_array().expect("players");
    let random = players.iter().find(|p| p["name"] == "random").expect("random is rated");
    assert_eq!(random["elo"].as_f64(), Some(0.0), "random anchors the ladder");
    for name in ["ckpt-0", "ckpt-4", "ckpt-8", "alphabeta:depth=1"] {
        let p = players.iter().find(|p| p["name"] == name).unwrap_or_else(|| panic!("{name} not rated"));
        let (lo, elo, hi) =
            (p["lo"].as_f64().expect("lo"), p["elo"].as_f64().expect("elo"), p["hi"].as_f64().expect("hi"));
        assert!(lo <= elo && elo <= hi, "{name}: {lo} {elo} {hi}");
    }
    for plot in ["losses.png", "elo.png", "throughput.png"] {
        let bytes = std::fs::read(run.join("plots").join(plot)).unwrap_or_else(|e| panic!("{plot}: {e}"));
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{plot} is not a PNG");
    }
    let records = std::fs::read_dir(run.join("arena").join("ckpt-8-vs-random")).expect("records").count();
    assert_eq!(records, 4, "one record per game");
    let all = games(run);
    let distinct: BTreeSet<&String> = all.iter().collect();
    assert_eq!(distinct.len(), all.len(), "no game was played twice");
}

#[test]
fn micro_run_goes_through_every_phase_and_says_so() {
    let run = scratch("e2e");
    let text = run_to_end(&run);
    check_complete_run(&run);
    assert!(text.contains("gen 1/2 (step 4"), "{text}");
    assert!(text.contains("gen 2/2 (step 8"), "{text}");
    assert!(text.contains("vs random"), "{text}");
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).expect("metrics");
    for event in ["\"selfplay\"", "\"train\"", "\"checkpoint\"", "\"arena\"", "\"generation\""] {
        assert!(metrics.contains(event), "no {event} line in metrics.jsonl");
    }
    // The preset fits its cosine to the run (run.fit_cosine): over these 8 steps, not its
    // cosine_steps, so the last step's rate is near the floor (a fixed cosine would still be
    // near the peak of 0.02).
    assert!(text.contains("the cosine learning rate fitted to the run's length"), "{text}");
    let last_lr = metrics
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["event"] == "train")
        .filter_map(|v| v["learning_rate"].as_f64())
        .next_back()
        .unwrap_or_else(|| panic!("no learning rate in metrics.jsonl:\n{metrics}"));
    assert!(last_lr > 0.0 && last_lr < 0.003, "last learning rate {last_lr}");
    // The compute line counts the games the shards hold.
    let compute = |text: &str| text.lines().find(|l| l.starts_with("compute: ")).map(str::to_owned);
    let first = compute(&text).unwrap_or_else(|| panic!("no compute line:\n{text}"));
    let games: u64 = shards(&run).values().sum();
    assert!(first.starts_with("compute: 2 generation(s) in "), "{first}");
    assert!(first.contains(&format!(": {games} self-play games, ")), "{first} ({games} games in the shards)");
    assert!(
        first.contains(" net evaluations; ") && first.contains(" evaluations per second of generation time"),
        "{first}"
    );
    // Run again: nothing is left to do, and nothing changes; the compute line is the run's, not
    // this session's.
    let before = (shards(&run), matches(&run), checkpoint_steps(&run));
    let text = run_to_end(&run);
    assert!(text.contains("run: 2 generation(s) done"), "{text}");
    assert_eq!((shards(&run), matches(&run), checkpoint_steps(&run)), before);
    assert_eq!(compute(&text).as_deref(), Some(first.as_str()), "{text}");
    let _ = std::fs::remove_dir_all(&run);
}

/// Starts `qizero run`, waits until `ready` holds for the run directory, then sends SIGINT and
/// waits for a clean exit.
fn interrupt_when(run: &Path, what: &str, ready: impl Fn(&Path) -> bool) {
    let mut child: Child = command(run).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("starts");
    let deadline = Instant::now() + Duration::from_secs(300);
    while !ready(run) {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("qizero run ended ({status}) before {what}");
        }
        assert!(Instant::now() < deadline, "never reached {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = child.id().to_string();
    let killed = Command::new("kill").args(["-INT", &pid]).status().expect("kill runs");
    assert!(killed.success());
    let status = child.wait().expect("waits");
    assert!(status.success(), "an interrupted run exits cleanly, got {status} ({what})");
}

#[test]
fn interrupted_twice_and_resumed_it_ends_as_a_whole_run() {
    let run = scratch("resume");
    // 1. Stop in generation 1's self-play, once a shard of it is written.
    interrupt_when(&run, "the first shard", |r| !shards_quiet(r).is_empty());
    let after_first = shards(&run);
    assert!(checkpoint_steps(&run).contains(&0));
    // 2. Resume; stop again in the middle of generation 2's arena (a match of ckpt-8 done).
    interrupt_when(&run, "ckpt-8's first match", |r| matches_quiet(r).keys().any(|(a, _)| a == "ckpt-8"));
    let after_second = shards(&run);
    for (name, games) in &after_first {
        assert_eq!(after_second.get(name), Some(games), "shard {name} lost or changed by the resume");
    }
    // 3. Resume to the end.
    run_to_end(&run);
    let after_all = shards(&run);
    for (name, games) in &after_second {
        assert_eq!(after_all.get(name), Some(games), "shard {name} lost or changed by the resume");
    }
    check_complete_run(&run);
    let _ = std::fs::remove_dir_all(&run);
}

/// Shard names, tolerating a directory that does not exist yet.
fn shards_quiet(run: &Path) -> Vec<PathBuf> {
    shard::list_shards(&run.join("shards")).unwrap_or_default()
}

/// Matches so far, tolerating a line being written (read again on the next poll).
fn matches_quiet(run: &Path) -> BTreeMap<(String, String), usize> {
    let text = std::fs::read_to_string(run.join("arena").join("matches.jsonl")).unwrap_or_default();
    let mut seen = BTreeMap::new();
    for line in text.lines() {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
            if let (Some(a), Some(k)) = (v["a"].as_str(), v["kind"].as_str()) {
                *seen.entry((a.to_owned(), k.to_owned())).or_insert(0) += 1;
            }
        }
    }
    seen
}

const FAIRY_STOCKFISH: &str = "/usr/games/fairy-stockfish";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// False (skip) when `what` is missing; a failure instead under CI=true.
fn available(present: bool, what: &str) -> bool {
    if !present {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{what} is missing, and CI=true needs it");
        eprintln!("skipped: {what} is missing");
    }
    present
}

fn qizero(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_qizero")).args(args).output().expect("runs qizero");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "qizero {args:?} failed:\n{text}");
    text
}

/// `qizero arena` on a run with no checkpoint yet rates generation 0 (the run seed's random
/// net, written as the trainer's step-0 checkpoint: its one source) and names it the best, and a
/// checkpoint plays the external engines through `qizero match`: Fairy-Stockfish over UCI for
/// xiangqi, dame-rs over Hub for draughts.
#[test]
fn standalone_arena_and_checkpoints_against_external_engines() {
    let root = repo_root();
    for (game, preset) in [("xiangqi", "configs/xiangqi-tiny.toml"), ("draughts", "configs/draughts-tiny.toml")] {
        let run = scratch(&format!("arena-{game}"));
        std::fs::create_dir_all(&run).expect("mkdir");
        std::fs::copy(root.join(preset), run.join("config.toml")).expect("copies the preset");
        let run_arg = run.display().to_string();
        let text = qizero(&[
            "arena",
            "--run",
            &run_arg,
            "--set",
            "arena.games_vs_random=2",
            "--set",
            "arena.games_vs_alphabeta=0",
            "--set",
            "arena.simulations=4",
            "--set",
            "arena.max_plies=30",
        ]);
        assert!(text.contains("arena: ckpt-0; vs random"), "{text}");
        let (step, ckpt) = train::lineage::newest(&run.join("checkpoints")).expect("generation 0");
        assert_eq!(step, 0, "generation 0 is the step-0 checkpoint");
        assert!(run.join("checkpoints").join("0.json").is_file(), "with its lineage");
        let best = pipeline::gate::Best::read(&run.join("best")).expect("reads").expect("a verdict");
        assert_eq!((best.checkpoint.as_str(), best.evidence.against.as_deref()), ("ckpt-0", None));
        assert_eq!(run.join("checkpoints").join(&best.weights), ckpt);
        let e = Command::new(env!("CARGO_BIN_EXE_qizero"))
            .args(["arena", "--run", &run_arg, "--set", "train.batch_size=7"])
            .output()
            .expect("runs");
        assert!(!e.status.success());
        assert!(String::from_utf8_lossy(&e.stderr).contains("only arena.* values"), "{e:?}");

        let a = format!("mcts:ckpt={},sims=8", ckpt.display());
        let b = if game == "xiangqi" {
            if !available(Path::new(FAIRY_STOCKFISH).exists(), FAIRY_STOCKFISH) {
                continue;
            }
            format!("uci:{FAIRY_STOCKFISH},depth=1")
        } else {
            let python = root.join(".venv/bin/python");
            let has_dame =
                Command::new(&python).args(["-c", "import dame"]).output().is_ok_and(|out| out.status.success());
            if !available(has_dame, "dame-rs in .venv (scripts/test installs it)") {
                continue;
            }
            format!("hub:{},movetime=20", root.join("scripts/dame-hub").display())
        };
        let text = qizero(&[
            "match",
            "--game",
            game,
            "--a",
            &a,
            "--b",
            &b,
            "--games",
            "2",
            "--max-plies",
            "30",
            "--device",
            "cpu",
        ]);
        assert!(text.contains("score: "), "{text}");
        // No forfeits: the summary counts none, and no game line gives a reason.
        assert!(text.contains("time losses: A 0, B 0; error forfeits: A 0, B 0"), "{text}");
        assert!(!text.contains("forfeit:"), "{text}");
        let _ = std::fs::remove_dir_all(&run);
    }
}
