//! `qizero slurm` on a real Slurm: a single-node cluster started under a temporary folder
//! (`scripts/slurm-local`, every daemon stopped by pid at the end), a micro run submitted as a
//! 2-task self-play array, the trainer and the arena; a self-play task and the trainer requeued
//! mid-run, both resuming; a second trainer started by hand refused; a task that reaches its
//! time limit stops on Slurm's SIGTERM and completes; then `qizero slurm stop`.
//! At the end the run passes the checks of an uninterrupted run: no shard lost or duplicated,
//! checkpoints contiguous, each match once, `best` consistent with the match log.
//!
//! Needs slurmctld, slurmd, slurm-client and munge (scripts/test installs them): under
//! `CI=true` their absence is a failure, elsewhere the test says so and passes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/xiangqi-tiny.toml");
const CKPT_EVERY: u64 = 10;

/// A run of very short games, few steps per checkpoint and a tiny arena; the trainer bound to
/// new data so it does not race ahead of self-play.
const SETS: [&str; 31] = [
    "net.device=cpu",
    "net.cpu_threads=1",
    "selfplay.simulations=4",
    "selfplay.fast_simulations=0",
    "selfplay.games_in_flight=4",
    "selfplay.workers=1",
    "selfplay.games_per_shard=2",
    "selfplay.max_plies=30",
    "selfplay.model_poll_seconds=1",
    "train.batch_size=16",
    "train.min_positions=30",
    "train.max_samples_per_new_sample=1",
    "train.checkpoint_every=10",
    "train.metrics_every=5",
    "train.warmup_steps=0",
    "train.poll_seconds=0.5",
    "train.rescan_every=5",
    "train.loader_threads=0",
    "inference.max_batch=4",
    "arena.simulations=2",
    "arena.games_vs_random=2",
    "arena.games_vs_alphabeta=2",
    "arena.gate=\"winrate\"",
    "arena.gate_games=2",
    "arena.concurrency=2",
    "arena.max_plies=30",
    "run.train_threads=1",
    "slurm.selfplay.tasks=2",
    "slurm.signal_seconds=30",
    "slurm.stop_grace_seconds=90",
    "slurm.trainer.time=\"0:30:00\"",
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The cluster: stopped (every daemon, by pid) when dropped.
struct Cluster {
    dir: PathBuf,
    conf: String,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(repo().join("scripts/slurm-local")).arg("stop").arg(&self.dir).output();
    }
}

/// Writes the run's STOP file when dropped, so that a failing test leaves no qizero process
/// behind (no cgroups here: processes of a job can outlive it).
struct StopOnDrop(PathBuf);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if self.0.is_dir() {
            let _ = std::fs::write(self.0.join("STOP"), "stop\n");
        }
    }
}

fn have_slurm() -> bool {
    ["slurmctld", "slurmd", "sbatch", "munged"].iter().all(|tool| {
        Command::new("sh").args(["-c", &format!("command -v {tool}")]).output().is_ok_and(|o| o.status.success())
            || Path::new("/usr/sbin").join(tool).exists()
    })
}

fn start_cluster(dir: &Path) -> Cluster {
    let out = Command::new(repo().join("scripts/slurm-local"))
        .arg("start")
        .arg(dir)
        .arg("8")
        .output()
        .expect("run slurm-local");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "slurm-local start failed:\n{text}\n{}", String::from_utf8_lossy(&out.stderr));
    let conf = text
        .lines()
        .find_map(|l| l.strip_prefix("export SLURM_CONF="))
        .unwrap_or_else(|| panic!("no SLURM_CONF in {text}"))
        .to_string();
    Cluster { dir: dir.to_path_buf(), conf }
}

fn tool(cluster: &Cluster, program: &str, args: &[&str]) -> Output {
    let out = Command::new(program)
        .args(args)
        .env("SLURM_CONF", &cluster.conf)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(out.status.success(), "{program} {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn qizero(cluster: &Cluster, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qizero")).args(args).env("SLURM_CONF", &cluster.conf).output().expect("run qizero")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(250));
    }
}

fn checkpoint_steps(run: &Path) -> Vec<u64> {
    train::lineage::complete(&run.join("checkpoints")).into_iter().map(|(s, _)| s).collect()
}

fn shard_names(run: &Path) -> Vec<PathBuf> {
    shard::list_shards(&run.join("shards")).unwrap_or_default()
}

/// The job ids the run's record holds, by kind.
fn job_ids(run: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(run.join("slurm/jobs.json")).expect("jobs.json");
    let record: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    record["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| (j["kind"].as_str().expect("kind").to_string(), j["id"].as_str().expect("id").to_string()))
        .collect()
}

/// Requeues `job`, waiting until Slurm has taken it back (pending again).
fn requeue(cluster: &Cluster, job: &str) {
    tool(cluster, "scontrol", &["requeue", job]);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !is_pending(cluster, job) {
        assert!(Instant::now() < deadline, "{job} not pending again after its requeue");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn is_pending(cluster: &Cluster, job: &str) -> bool {
    let out = tool(cluster, "squeue", &["--noheader", "--format=%T", &format!("--jobs={job}")]);
    String::from_utf8_lossy(&out.stdout).trim() == "PENDING"
}

/// Lets pending requeued `jobs` start now rather than after Slurm's requeue delay (a begin
/// time about two minutes on). Applied again on every call: Slurm may set that begin time
/// after the job first shows as pending, undoing an earlier update.
fn start_now(cluster: &Cluster, jobs: &[&str]) {
    for job in jobs {
        if is_pending(cluster, job) {
            // The job may start between the look and the update: that refusal is fine.
            let _ = Command::new("scontrol")
                .args(["update", &format!("jobid={job}"), "StartTime=now"])
                .env("SLURM_CONF", &cluster.conf)
                .output();
        }
    }
}

fn log_text(run: &Path, prefix: &str) -> String {
    let mut all = String::new();
    for entry in std::fs::read_dir(run.join("slurm/logs")).into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().starts_with(prefix) {
            all.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
        }
    }
    all
}

#[test]
fn a_micro_run_on_slurm_survives_requeues_and_stops_cleanly() {
    if !have_slurm() {
        assert!(!qizero_tests::in_ci(), "CI=true: Slurm (slurmctld, slurmd, slurm-client, munge) is missing");
        eprintln!("skipped: Slurm is not installed (scripts/test installs it)");
        return;
    }
    let base = std::env::temp_dir().join(format!("qizero-slurm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let cluster = start_cluster(&base.join("cluster"));
    let run = base.join("run");
    let run_s = run.to_string_lossy().into_owned();
    let _stop = StopOnDrop(run.clone());

    let mut submit: Vec<&str> = vec!["slurm", "submit", "--run", &run_s, "--config", CONFIG];
    for s in SETS {
        submit.extend(["--set", s]);
    }
    let out = qizero(&cluster, &submit);
    assert!(out.status.success(), "submit failed:\n{}", text(&out));
    let ids = job_ids(&run);
    let (selfplay, trainer) = (ids["selfplay"].clone(), ids["trainer"].clone());
    // A second submission while the jobs run is refused.
    let again = qizero(&cluster, &submit);
    assert!(!again.status.success() && text(&again).contains("still queued"), "{}", text(&again));
    // One more self-play task, with a 2-minute limit and SIGTERM 110 s before it (Slurm sends it
    // within its minute of resolution): it stops at a safe point and completes, not TIMEOUT.
    let script = run.join("slurm/selfplay.sbatch").to_string_lossy().into_owned();
    let timed_log = run.join("slurm/logs/timed-%A_%a.out").to_string_lossy().into_owned();
    let timed = tool(
        &cluster,
        "sbatch",
        &[
            "--parsable",
            "--job-name=qz-timed",
            "--array=0",
            "--time=2",
            "--signal=B:TERM@110",
            "--output",
            &timed_log,
            &script,
        ],
    );
    let timed = format!("{}_0", String::from_utf8_lossy(&timed.stdout).trim());

    wait_until("two checkpoints and shards from both workers", Duration::from_secs(180), || {
        checkpoint_steps(&run).len() >= 2
            && log_text(&run, "selfplay-").matches("restart 0").count() >= 2
            && shard_names(&run).len() >= 4
    });

    // A second trainer by hand: refused at once, naming the live one and its job.
    let cfg = run.join("config.toml");
    let second = qizero(&cluster, &["train", "--config", &cfg.to_string_lossy(), "--run", &run_s]);
    assert!(!second.status.success(), "a second trainer ran:\n{}", text(&second));
    assert!(
        text(&second).contains(&format!("job {trainer}")),
        "the refusal names the live trainer's job:\n{}",
        text(&second)
    );

    // Requeue a self-play task and the trainer mid-run; both come back and go on.
    let before_requeue = checkpoint_steps(&run).last().copied().unwrap_or(0);
    let shards_before = shard_names(&run).len();
    let task0 = format!("{selfplay}_0");
    requeue(&cluster, &task0);
    requeue(&cluster, &trainer);
    let mut last_nudge = Instant::now() - Duration::from_secs(10);
    wait_until("the requeued worker and trainer running again", Duration::from_secs(240), || {
        if last_nudge.elapsed() >= Duration::from_secs(2) {
            start_now(&cluster, &[&task0, &trainer]);
            last_nudge = Instant::now();
        }
        log_text(&run, "selfplay-").contains("restart 1") && log_text(&run, "trainer-").contains("restart 1")
    });
    // What each wrote after its restart.
    let since_restart = |prefix: &str| log_text(&run, prefix).split("restart 1").nth(1).unwrap_or_default().to_string();
    // The new shards may all be the other task's: wait for the requeued worker's own start line
    // too (loading its net takes a while on a loaded machine).
    wait_until(
        "a checkpoint from the resumed trainer, new shards and the worker's start",
        Duration::from_secs(180),
        || {
            since_restart("trainer-").contains("train: checkpoint")
                && shard_names(&run).len() >= shards_before + 4
                && since_restart("selfplay-").contains("instance ")
        },
    );
    let resumed = since_restart("trainer-");
    let step = resumed
        .split("resuming at step ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse::<u64>().ok());
    assert!(
        step.is_some_and(|s| s >= before_requeue),
        "the requeued trainer resumed from its last checkpoint:\n{resumed}"
    );
    let worker = since_restart("selfplay-");
    assert!(
        worker.contains(&format!("instance {}", selfplay.parse::<u64>().expect("a job id") * 1_000_000 + 1)),
        "the requeued worker plays a new instance:\n{worker}"
    );
    let status = qizero(&cluster, &["slurm", "status", "--run", &run_s]);
    assert!(status.status.success(), "{}", text(&status));
    let shown = text(&status);
    assert!(shown.contains("RUNNING") && shown.contains("trainer: step") && shown.contains("positions/s"), "{shown}");

    wait_until("the time-limited task to stop on its signal", Duration::from_secs(180), || {
        log_text(&run, "timed-").contains("stopping")
            && tool(&cluster, "squeue", &["--noheader", "--name=qz-timed"]).stdout.is_empty()
    });
    let shown = String::from_utf8_lossy(&tool(&cluster, "scontrol", &["show", "job", &timed]).stdout).into_owned();
    assert!(
        shown.contains("JobState=COMPLETED") && shown.contains("ExitCode=0:0"),
        "{timed}:\n{shown}\n{}",
        log_text(&run, "timed-")
    );

    let stopped = qizero(&cluster, &["slurm", "stop", "--run", &run_s]);
    assert!(stopped.status.success(), "{}", text(&stopped));
    assert!(
        text(&stopped).contains("all jobs of the run have ended"),
        "the jobs stopped by themselves:\n{}",
        text(&stopped)
    );
    for (name, log) in [
        ("selfplay", log_text(&run, "selfplay-")),
        ("trainer", log_text(&run, "trainer-")),
        ("arena", log_text(&run, "arena-")),
    ] {
        assert!(log.contains("STOP"), "{name} saw the STOP file:\n{log}");
        assert!(!log.contains("panicked"), "{name}:\n{log}");
    }
    check_run(&run);
}

/// The checks of an uninterrupted run.
fn check_run(run: &Path) {
    // Checkpoints: every multiple of checkpoint_every up to the last, each the child of the one
    // before (stops add checkpoints between them, which chain in too).
    let steps = checkpoint_steps(run);
    let last = steps.last().copied().expect("checkpoints");
    for step in (0..=last).step_by(CKPT_EVERY as usize) {
        assert!(steps.contains(&step), "checkpoint {step} missing: {steps:?}");
    }
    let mut parent: Option<String> = None;
    for step in &steps {
        let lineage: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(run.join("checkpoints").join(format!("{step}.json"))).expect("lineage"),
        )
        .expect("JSON");
        assert_eq!(lineage["parent"].as_str().map(str::to_string), parent, "checkpoint {step}'s parent");
        parent = lineage["weights"].as_str().map(str::to_string);
    }
    // Shards: each reads whole, each named in the metrics exists, no game twice.
    let shards = shard_names(run);
    let mut games = Vec::new();
    for path in &shards {
        let s = shard::read_shard(path).unwrap_or_else(|e| panic!("{e}"));
        for g in &s.games {
            games.push(format!("{:?}", (&g.start_fen, &g.moves)));
        }
    }
    let distinct: BTreeSet<&String> = games.iter().collect();
    assert_eq!(distinct.len(), games.len(), "a game was written twice");
    let names: BTreeSet<String> = shards.iter().filter_map(|p| p.file_name()?.to_str().map(str::to_string)).collect();
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).expect("metrics");
    let mut logged = 0;
    for line in metrics.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a whole metrics line");
        if v["event"] == "selfplay" {
            if let Some(shard) = v["shard"].as_str() {
                assert!(names.contains(shard), "shard {shard} in the metrics is missing");
                logged += 1;
            }
        }
    }
    assert_eq!(logged, names.len(), "every shard has its metrics line and no more");
    // Matches: each (checkpoint, kind) once; best as the log says.
    let log = std::fs::read_to_string(run.join("arena/matches.jsonl")).expect("matches");
    let mut seen = BTreeSet::new();
    let mut passed: Vec<(u64, String)> = Vec::new();
    let mut first: Option<(u64, String)> = None;
    for line in log.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a match line");
        let (a, kind, step) =
            (v["a"].as_str().expect("a"), v["kind"].as_str().expect("kind"), v["step"].as_u64().expect("step"));
        assert!(seen.insert((a.to_string(), kind.to_string())), "{a} vs {kind} twice");
        if first.as_ref().is_none_or(|(s, _)| step < *s) {
            first = Some((step, a.to_string()));
        }
        if kind == "gate" && v["verdict"] == "pass" {
            passed.push((step, a.to_string()));
        }
    }
    assert!(!seen.is_empty(), "the arena rated nothing");
    passed.sort();
    let expected = passed.last().or(first.as_ref()).map(|(_, a)| a.clone()).expect("a best");
    let best: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("best")).expect("best")).expect("JSON");
    assert_eq!(best["checkpoint"].as_str(), Some(expected.as_str()), "best against the match log");
}
