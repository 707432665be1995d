//! End-to-end runs of `qizero match`: the built binary, its summary line and records, with our
//! own `qizero uci` and `qizero hub` as external engines (the UCI and Hub agents against the
//! engines we ship), matches on a clock (`--tc`), and its errors for bad specs and time controls.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `qizero` with `args`, killing it after a minute; returns (success, stdout, stderr).
fn qizero(args: &[&str]) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_qizero"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start qizero");
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("qizero {args:?} ran for over a minute");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (mut out, mut err) = (String::new(), String::new());
    child.stdout.take().expect("stdout").read_to_string(&mut out).expect("read stdout");
    child.stderr.take().expect("stderr").read_to_string(&mut err).expect("read stderr");
    (status.success(), out, err)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qizero-match-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The W-D-L of a summary line, checking its form: `score: W-D-L <pct>% elo <E> +/- <C>`.
fn score_line(line: &str) -> (u32, u32, u32) {
    let words: Vec<&str> = line.split(' ').collect();
    assert_eq!(words.len(), 7, "{line}");
    assert_eq!((words[0], words[3], words[5]), ("score:", "elo", "+/-"), "{line}");
    assert!(words[2].ends_with('%') && words[2].trim_end_matches('%').parse::<f64>().is_ok(), "{line}");
    for number in [words[4], words[6]] {
        assert!(number.parse::<f64>().is_ok() || number == "inf" || number == "-inf", "{line}");
    }
    let wdl: Vec<u32> = words[1].split('-').map(|n| n.parse().expect("a count")).collect();
    (wdl[0], wdl[1], wdl[2])
}

#[test]
fn match_prints_the_score_last_and_writes_records() {
    let dir = temp_dir("records");
    let out = dir.to_str().expect("utf-8 path");
    let (ok, stdout, stderr) = qizero(&[
        "match",
        "--game",
        "draughts",
        "--a",
        "alphabeta:depth=2",
        "--b",
        "random",
        "--games",
        "4",
        "--out",
        out,
    ]);
    assert!(ok, "{stderr}");
    let last = stdout.lines().last().expect("output");
    assert_eq!(score_line(last), (4, 0, 0), "{stdout}");
    for n in 1..=4 {
        let record = std::fs::read_to_string(dir.join(format!("draughts-{n:04}.pdn"))).expect("record");
        assert!(record.contains("[FEN \"W:"), "{record}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn our_engines_play_through_the_protocols() {
    let bin = env!("CARGO_BIN_EXE_qizero");
    for (game, spec) in [("xiangqi", format!("uci:{bin} uci")), ("draughts", format!("hub:{bin} hub"))] {
        let (ok, stdout, stderr) = qizero(&[
            "match",
            "--game",
            game,
            "--a",
            &spec,
            "--b",
            "random",
            "--games",
            "2",
            "--movetime",
            "20",
            "--max-plies",
            "40",
        ]);
        assert!(ok, "{game}: {stderr}");
        assert!(!stderr.contains("forfeit"), "{game}: {stderr}");
        let (w, d, l) = score_line(stdout.lines().last().expect("output"));
        assert_eq!(w + d + l, 2);
    }
}

#[test]
fn bad_specs_are_clear_errors() {
    let (ok, _, stderr) = qizero(&["match", "--game", "xiangqi", "--a", "foo", "--b", "random"]);
    assert!(!ok);
    assert!(stderr.contains("unknown agent 'foo'"), "{stderr}");
    let (ok, _, stderr) = qizero(&["match", "--game", "xiangqi", "--a", "alphabeta:depth=x", "--b", "random"]);
    assert!(!ok);
    assert!(stderr.contains("bad option depth=x"), "{stderr}");
    let (ok, _, stderr) =
        qizero(&["match", "--game", "draughts", "--a", "random", "--b", "uci:/usr/games/fairy-stockfish"]);
    assert!(!ok);
    assert!(stderr.contains("--b: uci agents do not play draughts"), "{stderr}");
}

/// The `time losses: ...; error forfeits: ...` line of a match's output.
fn forfeits_line(stdout: &str) -> &str {
    stdout.lines().find(|l| l.starts_with("time losses: ")).unwrap_or_else(|| panic!("no forfeits line: {stdout}"))
}

#[test]
fn our_engine_plays_on_a_clock_without_losing_on_time() {
    // `qizero uci` (told the clocks by colour) against the alpha-beta agent in process (told
    // them as limits); a default movetime far beyond the clock: only the clock keeps these
    // games in time. The Hub side of the clock is the fake engines' in the arena's tests.
    let spec = format!("uci:{} uci", env!("CARGO_BIN_EXE_qizero"));
    let (ok, stdout, stderr) = qizero(&[
        "match",
        "--game",
        "xiangqi",
        "--a",
        &spec,
        "--b",
        "alphabeta",
        "--games",
        "2",
        "--tc",
        "1+0.05",
        "--movetime",
        "5000",
        "--max-plies",
        "16",
        "--concurrency",
        "1",
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("; a clock of 1+0.05 s each; "), "{stdout}");
    assert_eq!(forfeits_line(&stdout), "time losses: A 0, B 0; error forfeits: A 0, B 0", "{stderr}");
    let (w, d, l) = score_line(stdout.lines().last().expect("output"));
    assert_eq!(w + d + l, 2);
}

#[test]
fn the_net_engine_plays_fairy_stockfish_on_a_clock() {
    // `qizero uci --weights default` (MCTS with the shipped net, its own time management)
    // against Fairy-Stockfish, both told the clocks: no time loss, no protocol error.
    let fairy = "/usr/games/fairy-stockfish";
    if !std::path::Path::new(fairy).exists() {
        assert!(!qizero_tests::in_ci(), "{fairy} is missing (scripts/test installs fairy-stockfish)");
        println!("skipped: {fairy} is not installed");
        return;
    }
    let net = format!("uci:{} uci --weights default", env!("CARGO_BIN_EXE_qizero"));
    let (ok, stdout, stderr) = qizero(&[
        "match",
        "--game",
        "xiangqi",
        "--a",
        &net,
        "--b",
        &format!("uci:{fairy},Hash=8,Move Overhead=100"),
        "--games",
        "2",
        "--tc",
        "2+0.05",
        "--max-plies",
        "40",
        "--concurrency",
        "1",
    ]);
    assert!(ok, "{stderr}");
    assert_eq!(forfeits_line(&stdout), "time losses: A 0, B 0; error forfeits: A 0, B 0", "{stdout}\n{stderr}");
    let (w, d, l) = score_line(stdout.lines().last().expect("output"));
    assert_eq!(w + d + l, 2);
}

#[test]
fn an_engine_too_slow_for_the_clock_loses_on_time_and_is_counted() {
    let dir = temp_dir("slow-engine");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let script = dir.join("slow.sh");
    std::fs::write(
        &script,
        "while read -r line; do\n  case \"$line\" in\n    uci) echo 'id name Slow'; echo uciok ;;\n    \
         isready) echo readyok ;;\n    go*) sleep 0.3; echo 'bestmove a0a9' ;;\n    quit) exit 0 ;;\n  esac\ndone\n",
    )
    .expect("write the fake engine");
    let b = format!("uci:bash {}", script.display());
    let records = dir.join("records");
    let (ok, stdout, stderr) = qizero(&[
        "match",
        "--game",
        "xiangqi",
        "--a",
        "random",
        "--b",
        &b,
        "--games",
        "2",
        "--tc",
        "0.1",
        "--out",
        records.to_str().expect("utf-8 path"),
    ]);
    assert!(ok, "{stderr}");
    assert_eq!(forfeits_line(&stdout), "time losses: A 0, B 2; error forfeits: A 0, B 0", "{stdout}");
    assert!(stdout.contains("endings: time forfeit 2"), "{stdout}");
    assert_eq!(score_line(stdout.lines().last().expect("output")), (2, 0, 0), "{stdout}");
    for n in 1..=2 {
        let record = std::fs::read_to_string(records.join(format!("xiangqi-{n:04}.pgn"))).expect("record");
        assert!(record.contains("[Termination \"time forfeit: "), "{record}");
        assert!(record.contains(" (Slow): took ") && record.contains(" ms with 100 ms left"), "{record}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_time_controls_are_clear_errors() {
    for (tc, why) in [
        ("abc", "base: \"abc\" is not a number of seconds"),
        ("0", "the base time must be more than zero"),
        ("1.0001", "more than 3 decimals"),
    ] {
        let (ok, _, stderr) = qizero(&["match", "--game", "xiangqi", "--a", "random", "--b", "random", "--tc", tc]);
        assert!(!ok, "{tc}");
        assert!(stderr.contains(&format!("invalid value '{tc}' for '--tc <BASE+INC>'")), "{tc}: {stderr}");
        assert!(stderr.contains(why), "{tc}: {stderr}");
        assert!(stderr.contains("expected BASE+INC in seconds (at most 3 decimals), e.g. 10+0.1"), "{tc}: {stderr}");
    }
    let (ok, stdout, _) = qizero(&["match", "--help"]);
    assert!(ok);
    assert!(stdout.contains("--tc <BASE+INC>") && stdout.contains("loses the game on time"), "{stdout}");
}

#[test]
fn an_untimed_match_reports_no_forfeits() {
    let (ok, stdout, stderr) =
        qizero(&["match", "--game", "draughts", "--a", "random", "--b", "random", "--max-plies", "10"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("; 100 ms per move by default; "), "{stdout}");
    assert_eq!(forfeits_line(&stdout), "time losses: A 0, B 0; error forfeits: A 0, B 0");
}
