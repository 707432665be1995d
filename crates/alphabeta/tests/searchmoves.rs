//! `Limits::searchmoves` (UCI `go searchmoves`): the root is restricted to the listed moves.

use alphabeta::{Limits, SearchGame, SearchResult, Searcher};

fn search<G: SearchGame>(game: &G, depth: u32, searchmoves: Vec<u32>, threads: usize) -> SearchResult<G::Move> {
    let mut searcher = Searcher::new(8);
    searcher.set_threads(threads);
    searcher.search(game, &Limits { depth: Some(depth), searchmoves, ..Limits::default() }, |_| {})
}

/// The legal moves of `game` other than `best`.
fn other_moves<G: SearchGame>(game: &G, best: G::Move) -> Vec<G::Move> {
    game.legal_moves().as_ref().iter().copied().filter(|&m| m != best).collect()
}

/// Restricted to one move that is not the best, the search returns that move (with one thread
/// and with several); restricted to two, one of them.
fn restricts_the_root<G: SearchGame>(game: &G, depth: u32) {
    let free = search(game, depth, Vec::new(), 1);
    let best = free.best.expect("the start position has moves");
    let others = other_moves(game, best);
    // Two moves the unrestricted search does not choose.
    let (a, b) = (others[others.len() - 1], others[others.len() - 2]);
    for threads in [1, 3] {
        let r = search(game, depth, vec![G::move_id(&a)], threads);
        assert_eq!(r.best, Some(a), "{} threads", threads);
        assert_eq!(r.pv.first(), Some(&a), "{} threads", threads);
        let r = search(game, depth, vec![G::move_id(&a), G::move_id(&b)], threads);
        assert!(r.best == Some(a) || r.best == Some(b), "{:?} with {} threads", r.best, threads);
    }
}

#[test]
fn xiangqi_root_is_restricted() {
    restricts_the_root(&xiangqi::Game::new(), 4);
}

#[test]
fn draughts_root_is_restricted() {
    restricts_the_root(&draughts::Game::new(), 6);
}

#[test]
fn a_list_naming_no_legal_move_searches_every_move() {
    let game = xiangqi::Game::new();
    // e4e5 and a9a8 are moves of no piece of the side to move: no legal move has their ids.
    let ids = ["e4e5", "a9a8"]
        .iter()
        .map(|t| <xiangqi::Game as SearchGame>::move_id(&xiangqi::notation::parse_uci(t).expect("uci")))
        .collect();
    let free = search(&game, 5, Vec::new(), 1);
    let stale = search(&game, 5, ids, 1);
    assert_eq!(stale.best, free.best);
    assert_eq!(stale.nodes, free.nodes, "exactly the unrestricted search");
}
