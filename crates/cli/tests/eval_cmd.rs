//! `qizero eval`: what the shipped nets say about a position, head by head, as a table and as
//! JSON, and clear errors for a bad FEN, an illegal move, a missing checkpoint and a checkpoint
//! of the other game.

mod common;

use std::path::Path;
use std::process::{Command, Output};

/// Runs `qizero eval` with `args` (the shipped models found beside the executable).
fn eval(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qizero"))
        .arg("eval")
        .args(["--device", "cpu"])
        .args(args)
        .env_remove("QIZERO_MODELS")
        .output()
        .expect("start qizero eval")
}

fn text(output: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// `qizero eval --json` with `args`, which must succeed.
fn eval_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let output = eval(&all);
    assert!(output.status.success(), "qizero eval {args:?} failed:\n{}", text(&output));
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", text(&output)))
}

/// `qizero eval` with `args`, which must fail; its standard error.
fn eval_error(args: &[&str]) -> String {
    let output = eval(args);
    assert!(!output.status.success(), "qizero eval {args:?} succeeded:\n{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

/// The training step of the shipped net of `game`, as models/manifest.json records it.
fn shipped_step(game: &str) -> u64 {
    common::shipped_model(game)["source"]["step"].as_u64().expect("a step")
}

fn number(v: &serde_json::Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} is not a number in {v}"))
}

/// The priors of a report: (move, prior) in the order given.
fn priors(v: &serde_json::Value) -> Vec<(String, f64)> {
    v["priors"]
        .as_array()
        .expect("a priors list")
        .iter()
        .map(|p| (p["move"].as_str().expect("a move").to_owned(), p["prior"].as_f64().expect("a prior")))
        .collect()
}

/// The priors are a distribution over exactly the legal moves, highest first.
fn assert_a_distribution(v: &serde_json::Value, legal: usize) {
    let priors = priors(v);
    assert_eq!(v["legal_moves"].as_u64(), Some(legal as u64), "{v}");
    assert_eq!(priors.len(), legal);
    let sum: f64 = priors.iter().map(|(_, p)| p).sum();
    assert!((sum - 1.0).abs() < 1e-4, "priors sum to {sum}");
    assert!(priors.windows(2).all(|w| w[0].1 >= w[1].1), "not highest first: {priors:?}");
    let mut moves: Vec<&String> = priors.iter().map(|(m, _)| m).collect();
    moves.sort();
    moves.dedup();
    assert_eq!(moves.len(), legal, "a move listed twice");
}

#[test]
fn the_shipped_xiangqi_net_reads_the_start_and_sees_a_missing_rook() {
    let start = eval_json(&[]);
    assert_eq!(start["game"], "xiangqi");
    assert_eq!(start["side_to_move"], "Red");
    assert_eq!(start["outcome"], serde_json::Value::Null);
    assert!(start["checkpoint"].as_str().expect("a path").ends_with("xiangqi.safetensors"), "{start}");
    // The shipped net is the one models/manifest.json lists; it has no material head and no
    // utility.
    assert_eq!(start["step"].as_u64(), Some(shipped_step("xiangqi")));
    assert_eq!(start["material"], serde_json::Value::Null);
    assert_eq!(number(&start, "material_now"), 0.0);
    let value = number(&start, "value");
    assert!((-1.0..=1.0).contains(&value), "{value}");
    assert_eq!(number(&start, "played"), value, "without a utility the search reads the value head");
    assert_a_distribution(&start, 44);

    // Black without its a-file rook: Red is a rook (9) up, and the net's value moves.
    let fen = "1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    let up = eval_json(&["--fen", fen]);
    assert_eq!(up["fen"], fen);
    assert_eq!(number(&up, "material_now"), 9.0);
    assert_ne!(number(&up, "value"), value, "the net read the same value without a rook");
    assert_a_distribution(&up, 44);
}

#[test]
fn moves_are_played_in_any_notation_before_the_net_reads() {
    let uci = eval_json(&["--moves", "h2e2", "h9g7"]);
    let wxf = eval_json(&["--moves", "C2=5", "H8+7"]);
    assert_eq!(uci["fen"], wxf["fen"]);
    assert_eq!(uci["value"], wxf["value"]);
    assert_eq!(uci["priors"], wxf["priors"]);
    assert_eq!(uci["side_to_move"], "Red");
    let fen = uci["fen"].as_str().expect("a FEN");
    assert!(fen.starts_with("rnbakab1r/9/1c4nc1/"), "{fen}");
    // The history is part of what the net sees: the same board from its FEN alone may read
    // differently, but it is the same position with the same legal moves.
    let bare = eval_json(&["--fen", fen]);
    assert_eq!(bare["fen"], uci["fen"]);
    assert_eq!(bare["legal_moves"], uci["legal_moves"]);
}

#[test]
fn the_table_shows_each_head_and_the_top_moves() {
    let report = eval_json(&["--game", "draughts"]);
    assert_eq!(report["side_to_move"], "White");
    assert_a_distribution(&report, 9);
    let output = eval(&["--game", "draughts", "--top", "3"]);
    assert!(output.status.success(), "{}", text(&output));
    let table = String::from_utf8_lossy(&output.stdout).into_owned();
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("net       ") && lines[0].contains("draughts.safetensors"), "{table}");
    assert!(lines[1].starts_with("position  ") && lines[1].ends_with("(White to move)"), "{table}");
    let value = format!("value     {:+.3}  the value head, White's view", number(&report, "value"));
    assert!(lines[2].starts_with(&value), "{table}\nwanted {value}");
    assert!(lines[3].starts_with("material  none"), "{table}");
    assert!(lines[4].starts_with(&format!("played    {:+.3}", number(&report, "played"))), "{table}");
    assert_eq!(lines[5], "priors    3 of 9 legal moves, highest first", "{table}");
    let best = priors(&report);
    for (rank, line) in lines[6..].iter().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields[0], (rank + 1).to_string(), "{table}");
        assert_eq!(fields[1], best[rank].0, "{table}");
        assert_eq!(fields[2], format!("{:.2}%", 100.0 * best[rank].1), "{table}");
    }
    assert_eq!(lines.len(), 9, "{table}");
}

#[test]
fn a_finished_game_is_said_to_be_over() {
    // Red's general on e0 is in check from the cannon on e3 (over the pawn on e2, which also
    // takes e1), and the rooks on d2 and f2 take d0, d1, f0 and f1: mate, Black wins.
    let mate = "4k4/9/9/9/9/9/4c4/3rpr3/9/4K4 w - - 0 1";
    let output = eval(&["--fen", mate]);
    assert!(output.status.success(), "{}", text(&output));
    let table = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(table.contains("result    0-1"), "{table}");
    assert!(table.contains("priors    no legal moves"), "{table}");
    let report = eval_json(&["--fen", mate]);
    assert_eq!(report["outcome"], "0-1");
    assert_eq!(report["legal_moves"].as_u64(), Some(0));
}

#[test]
fn bad_input_is_named() {
    let err = eval_error(&["--fen", "rnbakabnr/9/not a fen"]);
    assert!(err.contains("--fen 'rnbakabnr/9/not a fen'"), "{err}");
    let err = eval_error(&["--moves", "h2e2", "a0a5"]);
    assert!(err.contains("--moves: move 2 (a0a5)"), "{err}");
    let err = eval_error(&["--weights", "no-such-net.safetensors"]);
    assert!(err.contains("no-such-net.safetensors does not exist"), "{err}");
    let xiangqi = common::models_dir().join("xiangqi.safetensors");
    let xiangqi = xiangqi.to_string_lossy();
    let err = eval_error(&["--game", "draughts", "--weights", &xiangqi]);
    assert!(err.contains("made for game 'xiangqi'"), "{err}");
    let err = eval_error(&["--weights", "default:draughts"]);
    assert!(err.contains("this is xiangqi"), "{err}");
}

/// `scripts/probe-priors` reads the start and every shipped opening through `qizero eval` and
/// summarises how sharp the priors are.
#[test]
fn the_prior_probe_reads_the_start_and_every_opening() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let openings = std::fs::read_to_string(root.join("data/openings/draughts.txt")).expect("read the openings");
    let fens = openings.lines().filter(|l| !l.split('#').next().unwrap_or("").trim().is_empty()).count();
    let output = Command::new(root.join("scripts/probe-priors"))
        .args(["--game", "draughts", "--qizero", env!("CARGO_BIN_EXE_qizero"), "default"])
        .env_remove("QIZERO_MODELS")
        .output()
        .expect("run scripts/probe-priors");
    assert!(output.status.success(), "{}", text(&output));
    let line = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(line.starts_with(&format!("default: {} positions, first choice's prior 0.", fens + 1)), "{line}");
    let entropy: f64 = line
        .split("entropy ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no entropy in {line}"));
    // Between a one-hot net (0) and a uniform one (at most ln 9 at the start, a little more
    // in some openings).
    assert!(entropy > 0.0 && entropy < 3.0, "{line}");
    let output = Command::new(root.join("scripts/probe-priors"))
        .args(["--qizero", env!("CARGO_BIN_EXE_qizero"), "no-such.safetensors"])
        .output()
        .expect("run scripts/probe-priors");
    assert!(!output.status.success());
    assert!(text(&output).contains("no-such.safetensors does not exist"), "{}", text(&output));
}
