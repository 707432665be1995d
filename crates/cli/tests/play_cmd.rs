//! End-to-end runs of `qizero play`: the built binary with a game piped into its standard input,
//! as a person would type it, against the random agent and a shallow alpha-beta search.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a run of `qizero` left behind.
struct Run {
    success: bool,
    stdout: String,
    stderr: String,
}

/// Runs `qizero` with `args`, `input` on its standard input, killing it after a minute.
fn qizero(args: &[&str], input: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_qizero"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start qizero");
    // Readers on their own threads, so that a full pipe can never stall the child.
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        out.read_to_string(&mut text).map(|_| text)
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        err.read_to_string(&mut text).map(|_| text)
    });
    {
        let mut stdin = child.stdin.take().expect("stdin");
        // The program may exit (quit, an error) before reading everything: that is fine.
        let _ = stdin.write_all(input.as_bytes());
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("qizero {args:?} ran for over a minute");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stdout = out.join().expect("stdout reader").expect("read stdout");
    let stderr = err.join().expect("stderr reader").expect("read stderr");
    Run { success: status.success(), stdout, stderr }
}

/// The line of `text` right after the prompt line that echoes `input`.
fn answer_to<'a>(text: &'a str, input: &str) -> &'a str {
    let mut lines = text.lines();
    lines
        .by_ref()
        .find(|l| l.starts_with("your move (") && l.ends_with(&format!("> {input}")))
        .unwrap_or_else(|| panic!("no prompt answered with {input:?} in:\n{text}"));
    lines.next().unwrap_or_else(|| panic!("nothing after {input:?} in:\n{text}"))
}

#[test]
fn xiangqi_refusals_are_explained_and_the_game_goes_on() {
    let input = "h7h6\ne4e5\na0a5\nhello there\nh2e2\nH2+3\nC5+2\nquit\n";
    let run = qizero(&["play", "--game", "xiangqi", "--opponent", "random", "--seed", "1"], input);
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    let out = &run.stdout;
    assert_eq!(answer_to(out, "h7h6"), "\"h7h6\": h7 holds a black cannon, and you play red");
    assert_eq!(answer_to(out, "e4e5"), "\"e4e5\": there is no piece on e4");
    assert_eq!(answer_to(out, "a0a5"), "\"a0a5\": the rook on a0 cannot go to a5");
    assert!(answer_to(out, "hello there").contains("is not a move or a command"), "{out}");
    // A UCI move and a WXF move are played, each answered by the opponent.
    assert_eq!(answer_to(out, "h2e2"), "you play C2=5 (h2e2)");
    assert_eq!(answer_to(out, "H2+3"), "you play H2+3 (h0g2)");
    assert_eq!(out.matches("random plays ").count(), 2, "{out}");
    assert_eq!(answer_to(out, "C5+2"), "\"C5+2\": that piece cannot go there");
    assert!(out.contains("last move: ") && out.contains("by random"), "{out}");
    // The board: coordinates, the river, the moved cannon on e2.
    assert!(out.contains("~~~~~~~~~~ river ~~~~~~~~~~"), "{out}");
    assert!(out.contains("     a  b  c  d  e  f  g  h  i"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("  2  .  C  .  .  C")), "{out}");
    assert_eq!(out.matches("your move (Red)> ").count(), input.lines().count(), "{out}");
    assert!(out.lines().last().is_some_and(|l| l.starts_with("you quit")), "{out}");
}

#[test]
fn draughts_moves_list_and_undo() {
    let input = "moves\n32-29\n32-28\nfen\nundo\nfen\nundo\n33-28\nquit\n";
    let run = qizero(&["play", "--game", "draughts", "--opponent", "alphabeta:depth=1"], input);
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    let out = &run.stdout;
    assert_eq!(answer_to(out, "moves"), "9 legal move(s):");
    let listing: Vec<&str> =
        out.lines().skip_while(|l| !l.starts_with("9 legal")).skip(1).take_while(|l| l.starts_with("  ")).collect();
    let listed: Vec<&str> = listing.iter().flat_map(|l| l.split_whitespace()).collect();
    assert_eq!(listed, ["31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30"], "{out}");
    assert_eq!(answer_to(out, "32-29"), "\"32-29\": the man on 32 cannot go there");
    assert_eq!(answer_to(out, "32-28"), "you play 32-28");
    assert!(out.contains("alphabeta:depth=1 plays "), "{out}");
    // fen after the reply, then after undo: back at the start; a second undo has nothing left.
    let fens: Vec<&str> = out.lines().filter(|l| l.contains("> fen")).collect();
    assert_eq!(fens.len(), 2, "{out}");
    let after_reply = answer_to(out, "fen");
    assert!(after_reply.starts_with("W:") && after_reply.contains("28"), "{after_reply}");
    let tail = &out[out.find("> undo").expect("undo echoed")..];
    assert_eq!(answer_to(tail, "fen"), "W:W31-50:B1-20");
    assert_eq!(answer_to(&tail[6..], "undo"), "nothing to take back: you have not moved yet");
    assert_eq!(answer_to(out, "33-28"), "you play 33-28");
    assert_eq!(out.matches("alphabeta:depth=1 plays ").count(), 2, "{out}");
}

#[test]
fn draughts_capture_by_its_path_ends_the_game() {
    // White's man on 37 takes all three black men: 37x28x17x8, written with its whole path.
    let input = "37-31\n37x28x17x8\n";
    let run = qizero(&["play", "--game", "draughts", "--opponent", "random", "--fen", "W:W37:B32,22,12"], input);
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    let out = &run.stdout;
    assert!(out.contains("White to move (you): a capture is compulsory"), "{out}");
    assert_eq!(answer_to(out, "37-31"), "\"37-31\": a capture is compulsory: 37x8");
    assert_eq!(answer_to(out, "37x28x17x8"), "you play 37x8");
    assert!(out.contains("game over: 2-0, White wins by no legal move: you win"), "{out}");
    assert!(out.contains("final FEN: B:W8:B"), "{out}");
    assert!(!out.contains("random plays"), "{out}");
}

#[test]
fn xiangqi_checkmate_is_reported() {
    let fen = "4k4/R8/9/9/9/9/9/9/1R7/3K5 w - - 0 1";
    let run = qizero(&["play", "--opponent", "random", "--fen", fen], "R8+8\n");
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(answer_to(&run.stdout, "R8+8"), "you play R8+8 (b1b9)");
    assert!(run.stdout.contains("game over: 1-0, Red wins by checkmate: you win"), "{}", run.stdout);
}

#[test]
fn the_engine_moves_first_and_end_of_input_stops_cleanly() {
    let run = qizero(&["play", "--side", "black", "--opponent", "random"], "");
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    let out = &run.stdout;
    assert!(out.contains("you play Black against random"), "{out}");
    assert_eq!(out.matches("random plays ").count(), 1, "{out}");
    assert!(out.contains("Black to move (you)"), "{out}");
    assert!(out.contains("end of input: the game stops unfinished"), "{out}");
}

#[test]
fn bad_opponents_fail_naming_the_spec() {
    let run = qizero(&["play", "--opponent", "alphabeta:depht=4"], "quit\n");
    assert!(!run.success);
    assert!(
        run.stderr.contains("alphabeta:depht=4") && run.stderr.contains("unknown option 'depht'"),
        "{}",
        run.stderr
    );

    let run = qizero(&["play", "--opponent", "mcts:ckpt=/nonexistent.safetensors", "--device", "cpu"], "quit\n");
    assert!(!run.success);
    assert!(run.stderr.contains("--opponent mcts:ckpt=/nonexistent.safetensors"), "{}", run.stderr);
    assert!(run.stderr.contains("checkpoint /nonexistent.safetensors does not exist"), "{}", run.stderr);
    assert!(!run.stdout.contains("your move"), "{}", run.stdout);

    let run = qizero(&["play", "--game", "draughts", "--opponent", "uci:/bin/true"], "quit\n");
    assert!(!run.success);
    assert!(run.stderr.contains("uci agents do not play draughts"), "{}", run.stderr);

    let run = qizero(&["play", "--game", "xiangqi", "--side", "white"], "quit\n");
    assert!(!run.success);
    assert!(run.stderr.contains("--side white: xiangqi has no white"), "{}", run.stderr);
}

#[test]
fn bad_fens_are_reported() {
    let run = qizero(&["play", "--opponent", "random", "--fen", "rnbakabnr/9/x w"], "quit\n");
    assert!(!run.success);
    assert!(run.stderr.contains("--fen \"rnbakabnr/9/x w\"") && run.stderr.contains("10"), "{}", run.stderr);

    let run = qizero(&["play", "--game", "draughts", "--opponent", "random", "--fen", "W:W31-50:B1-51"], "quit\n");
    assert!(!run.success);
    assert!(run.stderr.contains("--fen \"W:W31-50:B1-51\"") && run.stderr.contains("1-51"), "{}", run.stderr);
}
