//! End-to-end runs of `qizero match`: the built binary, its summary line and records, with our
//! own `qizero uci` and `qizero hub` as external engines (the UCI and Hub agents against the
//! engines we ship), and its errors for bad specs.

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
