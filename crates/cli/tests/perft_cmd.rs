//! `qizero perft` through the binary: the counts, with and without threads.

use std::process::Command;

fn perft(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_qizero")).arg("perft").args(args).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn threads_change_nothing_but_the_time() {
    for game in ["xiangqi", "draughts"] {
        let serial = perft(&["--game", game, "--divide", "3"]);
        let parallel = perft(&["--game", game, "--divide", "--threads", "3", "3"]);
        assert_eq!(serial, parallel, "{game}");
        assert_eq!(perft(&["--game", game, "--threads", "0", "3"]).lines().last(), serial.lines().last());
    }
    assert_eq!(perft(&["3"]).trim(), "nodes 79666");
    assert_eq!(perft(&["--threads", "2", "0"]).trim(), "nodes 1");
}
