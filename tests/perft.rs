//! Perft suites under `data/perft/`, run by one generic runner.
//!
//! The normal run checks every count up to a node budget per entry (seconds in all);
//! `cargo test --test perft -- --ignored` checks the deep counts (minutes).

use qizero_tests::{PerftCase, read_perft_suite};

/// Counts up to this many leaves run in the normal test run.
const SHALLOW_LIMIT: u64 = 20_000_000;

/// Runs every (position, depth) of `cases` selected by `select`, with `perft` computing the
/// count, and reports all mismatches at once.
fn run_suite(
    suite: &str,
    cases: &[PerftCase],
    select: impl Fn(&PerftCase, u32, u64) -> bool,
    perft: impl Fn(&str, u32) -> Result<u64, String>,
) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in cases {
        for &(depth, expected) in &case.counts {
            if !select(case, depth, expected) {
                continue;
            }
            checked += 1;
            match perft(&case.fen, depth) {
                Ok(n) if n == expected => {}
                Ok(n) => failures
                    .push(format!("{suite}:{}: {} depth {depth}: expected {expected}, got {n}", case.line, case.fen)),
                Err(e) => failures.push(format!("{suite}:{}: {}: {e}", case.line, case.fen)),
            }
        }
    }
    assert!(checked > 0, "{suite}: nothing selected");
    assert!(failures.is_empty(), "{} perft mismatches:\n{}", failures.len(), failures.join("\n"));
    eprintln!("{suite}: {checked} counts match");
}

fn xiangqi_perft(fen: &str, depth: u32) -> Result<u64, String> {
    let mut pos = xiangqi::Position::from_fen(fen).map_err(|e| e.to_string())?;
    let before = pos.clone();
    let n = xiangqi::perft(&mut pos, depth);
    if pos != before {
        return Err("perft did not restore the position".into());
    }
    Ok(n)
}

fn draughts_perft(fen: &str, depth: u32) -> Result<u64, String> {
    let mut pos = draughts::Position::from_fen(fen).map_err(|e| e.to_string())?;
    let before = pos;
    let n = draughts::perft(&mut pos, depth);
    if pos != before {
        return Err("perft did not restore the position".into());
    }
    Ok(n)
}

#[test]
fn draughts_shallow() {
    let cases = read_perft_suite("draughts.perft");
    run_suite("draughts.perft", &cases, |_, _, n| n <= SHALLOW_LIMIT, draughts_perft);
}

#[test]
#[ignore = "deep perft: start position to depth 9 and every count up to 2 billion leaves (minutes)"]
fn draughts_deep() {
    let cases = read_perft_suite("draughts.perft");
    run_suite("draughts.perft", &cases, |_, _, n| n > SHALLOW_LIMIT && n <= 2_000_000_000, draughts_perft);
}

#[test]
fn xiangqi_shallow() {
    let cases = read_perft_suite("xiangqi.perft");
    run_suite("xiangqi.perft", &cases, |_, _, n| n <= SHALLOW_LIMIT, xiangqi_perft);
}

#[test]
#[ignore = "deep perft: all positions to depth 5 (about a minute in release)"]
fn xiangqi_depth_5() {
    let cases = read_perft_suite("xiangqi.perft");
    run_suite("xiangqi.perft", &cases, |_, d, n| d <= 5 && n > SHALLOW_LIMIT, xiangqi_perft);
}

#[test]
#[ignore = "deep perft: depth 6 (5.4 billion leaves from the start position; minutes)"]
fn xiangqi_depth_6() {
    let cases = read_perft_suite("xiangqi.perft");
    run_suite("xiangqi.perft", &cases, |_, d, _| d == 6, xiangqi_perft);
}
