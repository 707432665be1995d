//! Basic behaviour of the search on both games.

use alphabeta::{Limits, Score, Searcher};

fn best_xiangqi(fen: &str, depth: u32) -> (String, Score) {
    let game = xiangqi::Game::from_fen(fen).expect("fen");
    let r = Searcher::new(8).search(&game, &Limits::depth(depth), |_| {});
    (r.best.map(|m| m.to_string()).unwrap_or_default(), r.score)
}

#[test]
fn xiangqi_mate_in_one() {
    assert_eq!(best_xiangqi("4k4/1R7/9/9/9/9/9/9/R8/3K5 w", 3), ("a1a9".to_string(), Score::Mate(1)));
}

#[test]
fn xiangqi_takes_a_free_rook() {
    // The red cannon on e2 (screen e5) takes the black rook on e7.
    let (mv, _) = best_xiangqi("3k5/9/4r4/9/4p4/9/9/4C4/9/5K3 w", 4);
    assert_eq!(mv, "e2e7");
}

#[test]
fn search_is_deterministic() {
    let game = xiangqi::Game::new();
    let a = Searcher::new(8).search(&game, &Limits::depth(5), |_| {});
    let b = Searcher::new(8).search(&game, &Limits::depth(5), |_| {});
    assert_eq!(a.nodes, b.nodes);
    assert_eq!(a.best, b.best);
}

#[test]
fn draughts_shot() {
    // "mg-02" of data/tactics/draughts.txt: 26-21 gives a man (17x37), then 48-42 a second
    // (37x48 to a king), then 30-25 a third (48x30), and 35x4 takes back more than was given.
    // A quiet start the search must see through: at depth 3 or less it plays 34-29.
    let game = draughts::Game::from_fen("W:W26,27,30,31,34,35,46,48,49:B2,3,5,9,11,12,17,19,20").expect("fen");
    let r = Searcher::new(8).search(&game, &Limits::depth(6), |_| {});
    let best = r.best.map(|m| draughts::notation::to_pdn(game.position(), &m));
    assert_eq!(best.as_deref(), Some("26-21"), "score {}", r.score);
    assert!(matches!(r.score, Score::Cp(cp) if cp > 100), "26-21 wins at least a man: {}", r.score);
}
