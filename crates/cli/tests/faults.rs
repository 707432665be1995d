//! The defects found when qizero was tried as a new user would and under fault injection, each
//! reproduced through the binary: an interrupted arena match must not be stored as complete, and
//! a stop during the arena must not play the match out; a second trainer on a run directory must
//! not train; a full disk must leave no partial file and say why once; a read-only run directory
//! must be refused before any work is done.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/xiangqi-tiny.toml");

/// Long enough for anything a test waits for, even on a loaded machine.
const PATIENCE: Duration = Duration::from_secs(120);

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qizero-faults-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn qizero(args: &[&str], run: &Path, sets: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_qizero"));
    cmd.args(args).args(["--run"]).arg(run);
    for set in sets {
        cmd.args(["--set", set]);
    }
    cmd
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Makes a run directory with its config (`sets` applied) and generation 0, and no data: a
/// trainer that cannot train says so and exits.
fn make_run(run: &Path, sets: &[&str]) {
    let out = qizero(&["train", "--config", CONFIG, "--no-wait"], run, sets).output().expect("runs");
    assert!(text(&out).contains("not enough training data"), "{}", text(&out));
}

/// Waits until `done` holds, panicking after [`PATIENCE`].
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A child process killed when the test ends, whatever happens in it.
struct Running(Option<Child>);

impl Running {
    fn id(&self) -> u32 {
        self.0.as_ref().map_or(0, Child::id)
    }

    /// Waits for the exit and the output.
    fn output(mut self) -> Output {
        self.0.take().expect("running").wait_with_output().expect("waits")
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn spawn(cmd: &mut Command) -> Running {
    Running(Some(cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn qizero")))
}

fn signal(child: &Running, sig: &str) {
    let status = Command::new("kill").args([sig, &child.id().to_string()]).status().expect("kill");
    assert!(status.success(), "kill {sig}");
}

/// Game records written so far in `dir` (a match's records folder).
fn records(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map_or(0, |entries| entries.flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".pgn")).count())
}

fn match_lines(run: &Path) -> String {
    std::fs::read_to_string(run.join("arena").join("matches.jsonl")).unwrap_or_default()
}

/// `qizero arena`, Ctrl-C a few games into a match against random played in one part (8 games, 4
/// at once, as with the tiny preset's 20 games 16 at once): the match stops there, and nothing
/// of it goes into the match log, so a rerun plays it again. Before the fix the match was played
/// out and stored as complete.
#[test]
fn an_interrupted_arena_match_is_not_stored() {
    let run = scratch("arena-int");
    // A run directory with generation 0 and its config.
    make_run(&run, &["net.device=cpu"]);
    let sets = ["arena.games_vs_random=8", "arena.games_vs_alphabeta=0", "arena.concurrency=4", "arena.simulations=48"];
    let child = spawn(&mut qizero(&["arena"], &run, &sets));
    let dir = run.join("arena").join("ckpt-0-vs-random");
    wait_until("the first games", || records(&dir) >= 2);
    signal(&child, "-INT");
    let out = child.output();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("arena: stopped"), "{}", text(&out));
    let played = records(&dir);
    assert!(played < 8, "the match was played out after Ctrl-C ({played} records)");
    assert!(!match_lines(&run).contains("\"random\""), "an interrupted match was logged: {}", match_lines(&run));
    let _ = std::fs::remove_dir_all(&run);
}

/// `qizero run`, Ctrl-C during the arena: the run stops at that safe point instead of playing
/// the match out, logs nothing of the match, and says how to go on.
#[test]
fn ctrl_c_in_run_stops_the_arena_at_once() {
    let run = scratch("run-int");
    let sets = [
        "net.device=cpu",
        "selfplay.simulations=8",
        "selfplay.fast_simulations=0",
        "selfplay.games_in_flight=4",
        "selfplay.workers=1",
        "selfplay.games_per_shard=2",
        "selfplay.max_plies=30",
        "train.batch_size=16",
        "train.min_positions=20",
        "train.max_samples_per_new_sample=0",
        "train.checkpoint_every=2",
        "arena.simulations=48",
        "arena.games_vs_random=8",
        "arena.games_vs_alphabeta=0",
        "arena.concurrency=4",
        "run.generations=1",
        "run.games_per_generation=4",
        "run.max_minutes=0",
    ];
    let child = spawn(&mut qizero(&["run", "--config", CONFIG], &run, &sets));
    // Generation 0 is rated first, against random.
    let dir = run.join("arena").join("ckpt-0-vs-random");
    wait_until("the arena's first games", || records(&dir) >= 2);
    signal(&child, "-INT");
    let out = child.output();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("run: stopped after"), "{}", text(&out));
    assert!(records(&dir) < 8, "the match was played out after Ctrl-C ({} records)", records(&dir));
    assert!(match_lines(&run).is_empty(), "an interrupted match was logged: {}", match_lines(&run));
    assert!(!text(&out).contains("panicked"), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&run);
}

/// Two `qizero train` on one run directory: the second exits at once naming the first (which
/// waits for data meanwhile); once the first is killed with -9, its stale lease is taken over.
#[test]
fn a_second_trainer_is_refused_and_a_stale_lease_taken_over() {
    let run = scratch("two-trainers");
    let sets = ["net.device=cpu", "train.poll_seconds=0.2"];
    let first = spawn(&mut qizero(&["train", "--config", CONFIG], &run, &sets));
    let lease = run.join("leases").join("trainer.lease");
    wait_until("the first trainer's lease", || lease.is_file() && run.join("checkpoints").join("0.json").is_file());
    let out = qizero(&["train", "--config", CONFIG, "--no-wait"], &run, &sets).output().expect("runs");
    assert!(!out.status.success(), "a second trainer ran: {}", text(&out));
    let why = text(&out);
    assert!(why.contains("another trainer holds") && why.contains(&format!("pid {}", first.id())), "{why}");
    drop(first); // SIGKILL: the lease stays behind, with a dead pid.
    assert!(lease.is_file(), "kill -9 leaves its lease");
    let out = qizero(&["train", "--config", CONFIG, "--no-wait"], &run, &sets).output().expect("runs");
    let why = text(&out);
    assert!(!why.contains("another trainer holds"), "the stale lease was not taken over: {why}");
    assert!(why.contains("not enough training data"), "{why}");
    assert!(!lease.exists(), "the lease is released on exit");
    let _ = std::fs::remove_dir_all(&run);
}

/// Names of the hidden temporary files in `dir`.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir).map_or_else(
        |_| Vec::new(),
        |entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".tmp"))
                .collect()
        },
    )
}

/// A disk that fills up while a checkpoint is written (here: a file-size limit of 100 KiB, below
/// the tiny net's weights): the command fails naming the file and the reason once, and leaves no
/// partial temporary file behind.
#[test]
fn a_full_disk_leaves_no_partial_checkpoint_and_says_why_once() {
    let run = scratch("full");
    let exe = env!("CARGO_BIN_EXE_qizero");
    let script = format!(
        "trap '' XFSZ; ulimit -f 100; exec '{exe}' train --config '{CONFIG}' --run '{}' --no-wait --set net.device=cpu",
        run.display()
    );
    let out = Command::new("bash").args(["-c", &script]).output().expect("runs bash");
    let why = text(&out);
    assert!(!out.status.success(), "{why}");
    assert!(why.contains("checkpoints") && why.contains(".safetensors"), "names the file: {why}");
    assert_eq!(why.matches("File too large").count(), 1, "the reason once: {why}");
    assert_eq!(temporaries(&run.join("checkpoints")), Vec::<String>::new(), "a partial file was left");
    assert!(!run.join("checkpoints").join("0.json").exists(), "no lineage for weights that were not written");
    let _ = std::fs::remove_dir_all(&run);
}

/// A read-only folder: a tmpfs remounted read-only where the tests run as root (which ignores
/// permission bits), else permissions. `None` where neither can be had.
struct ReadOnly {
    dir: PathBuf,
    mounted: bool,
}

impl ReadOnly {
    /// Makes `dir` (holding what `fill` puts there) read-only.
    fn new(dir: &Path, fill: impl FnOnce(&Path)) -> Option<ReadOnly> {
        std::fs::create_dir_all(dir).expect("mkdir");
        let root =
            Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
        if !root {
            fill(dir);
            let status = Command::new("chmod").args(["-R", "a-w"]).arg(dir).status().expect("chmod");
            return status.success().then(|| ReadOnly { dir: dir.to_path_buf(), mounted: false });
        }
        let mounted = Command::new("mount").args(["-t", "tmpfs", "-o", "size=64m", "qizero-ro"]).arg(dir).status();
        if !mounted.is_ok_and(|s| s.success()) {
            return None;
        }
        fill(dir);
        let ro = Command::new("mount").args(["-o", "remount,ro"]).arg(dir).status();
        let guard = ReadOnly { dir: dir.to_path_buf(), mounted: true };
        ro.is_ok_and(|s| s.success()).then_some(guard)
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        if self.mounted {
            let _ = Command::new("umount").arg(&self.dir).status();
        } else {
            let _ = Command::new("chmod").args(["-R", "u+w"]).arg(&self.dir).status();
        }
    }
}

/// A read-only run directory is refused at start, naming it, before a game is played (it was
/// found out only after every game had been played).
#[test]
fn a_read_only_run_directory_is_refused_at_start() {
    let run = scratch("read-only");
    let sets = ["net.device=cpu", "selfplay.simulations=8", "selfplay.fast_simulations=0", "selfplay.max_plies=30"];
    let made = |dir: &Path| {
        make_run(dir, &sets);
    };
    let Some(ro) = ReadOnly::new(&run, made) else {
        assert!(std::env::var("CI").is_err(), "no way to make a read-only folder here");
        eprintln!("skipped: cannot make a read-only folder here (neither tmpfs nor permissions)");
        return;
    };
    let out = qizero(&["selfplay", "--config", CONFIG, "--games", "8"], &ro.dir, &sets).output().expect("runs");
    let why = text(&out);
    assert!(!out.status.success(), "{why}");
    assert!(why.contains("cannot be written"), "{why}");
    assert!(!why.contains("positions/s"), "games were played first: {why}");
    drop(ro);
    let _ = std::fs::remove_dir_all(&run);
}

/// A net whose forward pass fails (weights so large that its logits overflow to infinity,
/// though every weight is finite and the checkpoint verifies): `qizero selfplay` exits non-zero
/// naming the failed evaluation, and writes no shard of the games it was playing (it never
/// turns a failed evaluation into a made-up one).
#[test]
fn a_failed_evaluation_stops_selfplay_and_writes_no_games() {
    let run = scratch("bad-net");
    let sets =
        ["net.device=cpu", "selfplay.simulations=8", "selfplay.fast_simulations=0", "selfplay.model_poll_seconds=0"];
    let out = qizero(&["selfplay", "--config", CONFIG, "--games", "2"], &run, &sets).output().expect("runs");
    assert!(out.status.success(), "{}", text(&out));
    let dir = run.join("checkpoints");
    let (_, gen0) = train::lineage::newest(&dir).expect("generation 0");
    let placement = nn::NetConfig { device: "cpu".into(), ..nn::NetConfig::default() };
    let (net, _) =
        nn::checkpoint::load_as_saved(&gen0, "xiangqi", <xiangqi::Game as encode::Encode>::ENCODING, &placement)
            .expect("loads");
    tch::no_grad(|| {
        for (_, mut var) in net.var_store().variables() {
            let huge = var.f_mul_scalar(1e30).expect("scales");
            var.copy_(&huge);
        }
    });
    let id = nn::checkpoint::content_id(&net).expect("content id");
    let weights = format!("5-{id}.safetensors");
    nn::checkpoint::save(&net, &dir.join(&weights), 5, &[]).expect("saves");
    let lineage = std::fs::read_to_string(dir.join("0.json")).expect("lineage");
    let mut lineage: serde_json::Value = serde_json::from_str(&lineage).expect("json");
    lineage["step"] = 5.into();
    lineage["weights"] = weights.clone().into();
    std::fs::write(dir.join("5.json"), lineage.to_string()).expect("writes");
    let before = shard::list_shards(&run.join("shards")).expect("lists");

    let out = qizero(&["selfplay", "--config", CONFIG, "--games", "4"], &run, &sets).output().expect("runs");
    let why = text(&out);
    assert!(!out.status.success(), "{why}");
    assert!(why.contains("evaluation failed") && (why.contains("inf") || why.contains("NaN")), "names it: {why}");
    assert_eq!(why.matches("evaluation failed").count(), 1, "said once: {why}");
    let after = shard::list_shards(&run.join("shards")).expect("lists");
    assert_eq!(after, before, "a shard was written from games searched with the failing net");
    let _ = std::fs::remove_dir_all(&run);
}

/// A Ctrl-C delivered twice at once (as `timeout -s INT` and shells do: to the process, then to
/// its group) is one stop at a safe point, not "quit at once".
#[test]
fn a_signal_delivered_twice_is_one_stop() {
    let run = scratch("quit-twice");
    make_run(&run, &["net.device=cpu"]);
    let sets = ["arena.games_vs_random=8", "arena.games_vs_alphabeta=0", "arena.concurrency=4", "arena.simulations=48"];
    let child = spawn(&mut qizero(&["arena"], &run, &sets));
    let dir = run.join("arena").join("ckpt-0-vs-random");
    wait_until("the first games", || records(&dir) >= 2);
    let pid = child.id().to_string();
    let status = Command::new("kill").args(["-INT", &pid, &pid]).status().expect("kill");
    assert!(status.success());
    let out = child.output();
    let said = text(&out);
    assert!(out.status.success(), "{:?}: {said}", out.status);
    assert!(said.contains("arena: stopped") && !said.contains("panicked"), "{said}");
    assert!(!match_lines(&run).contains("\"random\""), "an interrupted match was logged");
    let _ = std::fs::remove_dir_all(&run);
}

/// A second Ctrl-C while a net is searching (a long MCTS move of a checkpoint) quits at once,
/// with no panic from the net: the intermittent "Invalid (backend, op) pair" panic came from
/// exiting (C++ static destructors) under a running forward pass.
#[test]
fn a_second_ctrl_c_quits_at_once_without_a_panic() {
    use std::os::unix::process::ExitStatusExt;
    let run = scratch("quit-later");
    make_run(&run, &["net.device=cpu"]);
    let (_, gen0) = train::lineage::newest(&run.join("checkpoints")).expect("generation 0");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_qizero"));
    let a = format!("mcts:ckpt={},sims=1000000", gen0.display());
    cmd.args(["match", "--game", "xiangqi", "--a", &a, "--b", "random", "--games", "2", "--device", "cpu"]);
    let child = spawn(&mut cmd);
    // The net is busy once the match is under way (its progress line needs no game to end).
    std::thread::sleep(Duration::from_millis(1500));
    signal(&child, "-INT");
    std::thread::sleep(Duration::from_millis(400));
    signal(&child, "-INT");
    let out = child.output();
    let said = text(&out);
    assert!(said.contains("quitting at once") && !said.contains("panicked"), "{said}");
    assert_eq!(out.status.signal(), Some(9), "{:?}: {said}", out.status);
    let _ = std::fs::remove_dir_all(&run);
}

/// A run's STOP file (what `qizero slurm stop` writes) stops every process of the run at its next
/// safe point: self-play running when it appears writes its finished games and exits cleanly,
/// and a trainer, an arena or `qizero run` started while it is there stops at once, saying why.
#[test]
fn a_stop_file_stops_every_process_of_the_run() {
    let run = scratch("stop-file");
    let sets = ["selfplay.simulations=2", "selfplay.games_per_shard=1", "selfplay.max_plies=20"];
    make_run(&run, &sets);
    let selfplay = spawn(&mut qizero(&["selfplay", "--config", CONFIG], &run, &sets));
    wait_until("a first shard", || std::fs::read_dir(run.join("shards")).is_ok_and(|d| d.count() > 0));
    std::fs::write(run.join("STOP"), "stop\n").expect("write STOP");
    let started = Instant::now();
    let out = selfplay.output();
    assert!(out.status.success(), "{}", text(&out));
    assert!(started.elapsed() < Duration::from_secs(30), "self-play took {:?} to stop", started.elapsed());
    assert!(text(&out).contains("STOP"), "self-play says why it stopped:\n{}", text(&out));
    for args in [vec!["train", "--config", CONFIG], vec!["arena"], vec!["run", "--config", CONFIG]] {
        let started = Instant::now();
        let out = qizero(&args, &run, if args[0] == "arena" { &[] } else { &sets }).output().expect("runs");
        assert!(out.status.success(), "{args:?}:\n{}", text(&out));
        assert!(text(&out).contains("STOP"), "{args:?} says why it stopped:\n{}", text(&out));
        assert!(started.elapsed() < Duration::from_secs(60), "{args:?} took {:?}", started.elapsed());
    }
    let _ = std::fs::remove_dir_all(&run);
}
