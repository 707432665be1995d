//! The alpha-beta bench signature, pinned: the node total that `qizero bench alphabeta` prints
//! (`alphabeta::bench::run` on the xiangqi positions at depth 7 and the draughts positions at
//! depth 9, one thread, a fresh table).
//!
//! Any change to the search or an evaluation changes it. A commit that changes it on purpose
//! gives the new number here and in BENCHMARKS.md; one that does not mean to is caught here.
//!
//! Signature 1456705. The full-depth run takes about 1.4 s under `--profile ci` on the 2-core
//! dev machine, so it always runs and needs no shallower stand-in.

use alphabeta::bench;

/// Node total of the xiangqi bench at `xiangqi_depth` plus the draughts bench at `draughts_depth`.
fn signature(xiangqi_depth: u32, draughts_depth: u32) -> u64 {
    let x = bench::run::<xiangqi::Game>(bench::XIANGQI_POSITIONS, xiangqi_depth, |_, _, _| {})
        .expect("xiangqi bench FENs read");
    let d = bench::run::<draughts::Game>(bench::DRAUGHTS_POSITIONS, draughts_depth, |_, _, _| {})
        .expect("draughts bench FENs read");
    x.nodes + d.nodes
}

#[test]
fn bench_signature_is_pinned() {
    assert_eq!(signature(7, 9), 1_456_705);
}
