//! Draughts encoding: policy coverage over the perft suite (with same-from-to sharing), the
//! turned view, the rule planes, and the capture feature planes.

mod common;

use draughts::{Color, Game, Move, Piece, Position, Square};
use encode::draughts::{
    self as enc, BASE_PLANES, ENDGAME_PLANE, KING_MOVES_PLANE, ONES_PLANE, PIECE_PLANES, PLANES, POLICY_SIZE,
    REPETITION_PLANE, TARGETS_PLANE, THREATS_PLANE,
};
use encode::{Encode, encode_batch, legal_priors, moves_for_index};
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

const AREA: usize = 100;

fn game(fen: &str) -> Game {
    Game::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn planes(g: &Game) -> Vec<f32> {
    let mut out = vec![f32::NAN; Game::ENCODING.plane_len()];
    g.encode(&mut out);
    out
}

fn plane(v: &[f32], p: usize) -> &[f32] {
    &v[p * AREA..(p + 1) * AREA]
}

fn play(g: &mut Game, moves: &str) {
    for text in moves.split_whitespace() {
        let legal = g.legal_moves();
        let mv = legal.iter().find(|m| m.to_string() == text);
        let mv = *mv.unwrap_or_else(|| panic!("{text} illegal in {}: {legal:?}", g.position().fen()));
        g.play_unchecked(mv);
    }
}

fn sq(n: u32) -> Square {
    Square::new(n).expect("square number")
}

/// The plane cell of square number `n` as `mover` sees the board.
fn cell(n: u32, mover: Color) -> usize {
    let seen = if mover == Color::White { sq(n) } else { sq(n).rotate() };
    seen.row() as usize * 10 + seen.column() as usize
}

/// The square numbers marked in plane `k` of `p`, encoded for `mover`.
fn marked(p: &[f32], k: usize, mover: Color) -> HashSet<u32> {
    (1..=50).filter(|&n| plane(p, k)[cell(n, mover)] == 1.0).collect()
}

/// The square numbers some move of `moves` captures on.
fn taken(moves: &[Move]) -> HashSet<u32> {
    moves.iter().flat_map(Move::captured).map(Square::number).collect()
}

/// The position with colours swapped and the board turned (square n -> 51 - n).
fn flip(pos: &Position) -> Position {
    let mut out = Position::empty(!pos.side_to_move());
    for (s, p) in pos.iter() {
        out.put(s.rotate(), Piece { color: !p.color, kind: p.kind });
    }
    out
}

/// `mv` turned, as the legal move of `g` (which is the flipped game) it becomes.
fn flip_move(g: &Game, mv: &Move) -> Move {
    let captured: Vec<Square> = mv.captured().map(Square::rotate).collect();
    let path: Vec<Square> = mv.path().map(Square::rotate).collect();
    let turned = Move::with_captures(mv.from().rotate(), mv.to().rotate(), &captured, &path).expect("move parts");
    let found = g.legal_moves().iter().find(|m| **m == turned).copied();
    found.unwrap_or_else(|| panic!("{mv} turned is not legal in {}", g.position().fen()))
}

/// A game kept in lockstep with its colour-flipped image.
struct Pair {
    g: Game,
    flipped: Game,
}

impl Pair {
    fn new(g: Game) -> Pair {
        let flipped = Game::from_position(flip(g.position()));
        Pair { g, flipped }
    }

    fn play_unchecked(&mut self, mv: Move) {
        let turned = flip_move(&self.flipped, &mv);
        self.g.play_unchecked(mv);
        self.flipped.play_unchecked(turned);
    }

    fn undo(&mut self) {
        assert!(self.g.undo().is_some() && self.flipped.undo().is_some());
    }

    /// Everything the encoding promises about this position; returns how many legal moves share
    /// an index with another.
    fn check(&self) -> usize {
        let g = &self.g;
        let at = || g.position().fen();
        let p = planes(g);
        assert!(p.iter().all(|v| v.is_finite() && (0.0..=1.0).contains(v)), "{}", at());
        // For a net without feature planes: the same base planes, and zeros (not whatever the
        // buffer held) where the feature planes go.
        let mut bare = vec![7.0; p.len()];
        g.encode_input(&mut bare, false);
        assert_eq!(bare[..BASE_PLANES * AREA], p[..BASE_PLANES * AREA], "base planes of {}", at());
        assert!(bare[BASE_PLANES * AREA..].iter().all(|&v| v == 0.0), "no feature planes in {}", at());
        assert_eq!(p, planes(&self.flipped), "flipped planes of {}", at());
        let mut same = p.clone();
        Game::transform_planes(0, &mut same);
        assert_eq!(same, p);

        let moves = g.legal_moves();
        let mover = g.position().side_to_move();
        // The feature planes: what the mover's legal moves take, and what the opponent's would.
        assert_eq!(marked(&p, TARGETS_PLANE, mover), taken(moves.as_ref()), "targets in {}", at());
        let mut theirs = *g.position();
        theirs.set_side_to_move(!mover);
        assert_eq!(marked(&p, THREATS_PLANE, mover), taken(theirs.legal_moves().as_ref()), "threats in {}", at());
        let feature_cells = p[BASE_PLANES * AREA..].iter().filter(|&&v| v != 0.0).count();
        let feature_squares = marked(&p, TARGETS_PLANE, mover).len() + marked(&p, THREATS_PLANE, mover).len();
        assert_eq!(feature_cells, feature_squares, "nothing else is set in {}", at());

        let mut indices = Vec::new();
        g.policy_indices(moves.as_ref(), &mut indices);
        let mut by_index: HashMap<u32, Vec<Move>> = HashMap::new();
        for (mv, &idx) in moves.iter().zip(&indices) {
            let i = idx as usize;
            assert!(i < POLICY_SIZE);
            assert_eq!(Game::transform_policy_index(0, i), i);
            assert_eq!(enc::index_squares(i, mover), Some((mv.from(), mv.to())), "{mv} in {}", at());
            assert!(moves_for_index(g, i).contains(mv));
            assert_eq!(self.flipped.policy_index(flip_move(&self.flipped, mv)), i, "turned {mv} in {}", at());
            by_index.entry(idx).or_default().push(*mv);
        }
        // Moves share an index exactly when they share origin and destination.
        let mut shared = 0;
        for group in by_index.values() {
            assert!(group.iter().all(|m| (m.from(), m.to()) == (group[0].from(), group[0].to())));
            if group.len() > 1 {
                shared += group.len();
                assert!(group.iter().all(|m| m.is_capture()), "only captures can share: {group:?}");
            }
        }
        let distinct_pairs: HashSet<_> = moves.iter().map(|m| (m.from(), m.to())).collect();
        assert_eq!(distinct_pairs.len(), by_index.len());
        shared
    }
}

fn walk(t: &mut Pair, depth: usize, stats: &mut (usize, usize)) {
    stats.0 += 1;
    stats.1 += t.check();
    if depth == 0 {
        return;
    }
    for mv in t.g.legal_moves() {
        t.play_unchecked(mv);
        walk(t, depth - 1, stats);
        t.undo();
    }
}

#[test]
fn perft_suite_moves_index_round_trip_and_turn() {
    let mut stats = (0, 0);
    for fen in common::perft_fens("draughts.perft") {
        walk(&mut Pair::new(game(&fen)), 3, &mut stats);
    }
    assert!(stats.0 > 2_000, "walked only {} positions", stats.0);
}

/// Positions where a king has two maximal captures with the same origin and destination but
/// different captured pieces (found by a random search over king positions).
const SHARED: [&str; 2] = ["W:WK3:B8,K10,K18,K19,K22,30,43,44,K49", "W:WK22,29:B1,9,16,21,24,33,34,36,40"];

#[test]
fn same_from_to_captures_share_an_index_and_split_its_prior() {
    let mut stats = (0, 0);
    for fen in SHARED {
        walk(&mut Pair::new(game(fen)), 1, &mut stats);
    }
    assert!(stats.1 >= 4, "expected shared indices, saw {}", stats.1);

    let g = game(SHARED[0]);
    let moves = g.legal_moves();
    let texts: Vec<String> = moves.iter().map(Move::to_string).collect();
    assert_eq!(texts, ["3x5x8x10x18x19", "3x5x8x10x19x22"]);
    let mut indices = Vec::new();
    g.policy_indices(moves.as_ref(), &mut indices);
    let idx = enc::squares_index(sq(3), sq(5), Color::White);
    assert_eq!(indices, [idx as u32, idx as u32]);
    assert_eq!(moves_for_index(&g, idx), moves.to_vec());
    let mut logits = vec![0.0; POLICY_SIZE];
    logits[idx] = 5.0;
    let mut priors = Vec::new();
    legal_priors(&logits, &indices, &mut priors);
    assert_eq!(priors, [0.5, 0.5]);
    let mut target = vec![0.0; POLICY_SIZE];
    encode::policy_target(&indices, &[0.75, 0.25], &mut target);
    assert_eq!(target[idx], 1.0);
    assert_eq!(target.iter().sum::<f32>(), 1.0);
}

#[test]
fn encoding_info_matches_the_tables() {
    let info = Game::ENCODING;
    assert_eq!(info.id, "draughts-v2");
    assert_eq!((info.planes, info.height, info.width), (PLANES, 10, 10));
    assert_eq!(info.plane_len(), 1000);
    assert_eq!((info.base_id, info.base_planes, info.feature_planes()), ("draughts-v1", 8, 2));
    assert_eq!(info.policy_size, 2500);
    assert_eq!(info.symmetries, 1);
}

#[test]
fn start_position_planes() {
    let p = planes(&Game::new());
    let count = |k| plane(&p, k).iter().filter(|&&v| v == 1.0).count();
    assert_eq!((0..PIECE_PLANES).map(count).collect::<Vec<_>>(), [20, 0, 20, 0]);
    assert!(p.iter().all(|&v| v == 0.0 || v == 1.0));
    // The mover's men fill rows 6-9, on dark squares only (row + column odd).
    for (cell, &v) in plane(&p, 0).iter().enumerate() {
        let (row, col) = (cell / 10, cell % 10);
        assert_eq!(v == 1.0, row >= 6 && (row + col) % 2 == 1, "cell {cell}");
    }
    for scalar in [REPETITION_PLANE, KING_MOVES_PLANE, ENDGAME_PLANE] {
        assert!(plane(&p, scalar).iter().all(|&v| v == 0.0));
    }
    assert!(plane(&p, ONES_PLANE).iter().all(|&v| v == 1.0));
    // Black to move sees the same: its men at the bottom.
    let mut g = Game::new();
    play(&mut g, "32-28");
    let p = planes(&g);
    assert!(plane(&p, 0)[60..].iter().filter(|&&v| v == 1.0).count() == 20);
    // White's man on 28 is Black's 23 (row 4, column 5).
    assert_eq!(plane(&p, 2)[4 * 10 + 5], 1.0);
    // Nothing can be taken at the start.
    assert!(p[BASE_PLANES * AREA..].iter().all(|&v| v == 0.0));
}

#[test]
fn feature_planes_mark_what_each_side_can_take() {
    // White's man on 28 takes Black's on 23 (28x19); Black's on 23 would take it (23x32).
    let p = planes(&game("W:W28:B23"));
    assert_eq!(marked(&p, TARGETS_PLANE, Color::White), HashSet::from([23]));
    assert_eq!(marked(&p, THREATS_PLANE, Color::White), HashSet::from([28]));
    // The same with Black to move, seen from Black's side of the board.
    let p = planes(&game("B:W28:B23"));
    assert_eq!(marked(&p, TARGETS_PLANE, Color::Black), HashSet::from([28]));
    assert_eq!(marked(&p, THREATS_PLANE, Color::Black), HashSet::from([23]));
    // Only the majority capture counts: 28 can take 23 alone (28x19), or 22 and then 12
    // (28x17x8), so only the pieces of the two-piece line are targets. Black's 22 and 23 both
    // threaten 28.
    let p = planes(&game("W:W28:B12,22,23"));
    assert_eq!(marked(&p, TARGETS_PLANE, Color::White), HashSet::from([12, 22]));
    assert_eq!(marked(&p, THREATS_PLANE, Color::White), HashSet::from([28]));
}

#[test]
fn rule_planes_follow_the_game_counts() {
    // Kings only: the 25-move count runs; 2 kings against 1 is the 5-move endgame (limit 10).
    let mut g = game("W:WK46,K50:BK1");
    play(&mut g, "46-41 1-7 41-46 7-1");
    let p = planes(&g);
    assert_eq!(plane(&p, KING_MOVES_PLANE)[0], 4.0 / 50.0);
    assert_eq!(plane(&p, ENDGAME_PLANE)[0], 0.4);
    assert_eq!(plane(&p, REPETITION_PLANE)[0], 0.5);
    assert_eq!(plane(&p, 1).iter().filter(|&&v| v == 1.0).count(), 2);
    assert_eq!(plane(&p, 3).iter().filter(|&&v| v == 1.0).count(), 1);
    // Outside the endgame material the endgame plane stays 0.
    let mut g = Game::new();
    play(&mut g, "32-28 19-23");
    assert_eq!(plane(&planes(&g), ENDGAME_PLANE)[0], 0.0);
    assert_eq!(plane(&planes(&g), KING_MOVES_PLANE)[0], 0.0);
}

#[test]
fn batch_and_priors() {
    let a = Game::new();
    let mut b = Game::new();
    play(&mut b, "32-28");
    let batch = encode_batch(&[&a, &b]);
    assert_eq!(batch.shape(), [2, PLANES, 10, 10]);
    let flat = batch.as_slice().expect("contiguous");
    let len = Game::ENCODING.plane_len();
    assert_eq!(&flat[..len], planes(&a).as_slice());
    assert_eq!(&flat[len..], planes(&b).as_slice());
    let moves = b.legal_moves();
    let mut indices = Vec::new();
    b.policy_indices(moves.as_ref(), &mut indices);
    let mut priors = Vec::new();
    legal_priors(&vec![0.0; POLICY_SIZE], &indices, &mut priors);
    assert_eq!(priors.len(), moves.len());
    assert!(priors.iter().all(|&p| (p - 1.0 / moves.len() as f32).abs() < 1e-6));
    assert_eq!(enc::squares_index(sq(1), sq(1), Color::White), 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random games keep the turned-view property and the index contract, counts included.
    #[test]
    fn random_games_keep_the_turned_view(choices in prop::collection::vec(any::<u32>(), 1..150)) {
        let mut t = Pair::new(Game::new());
        for c in choices {
            t.check();
            if t.g.outcome().is_some() {
                break;
            }
            let moves = t.g.legal_moves();
            let mv = moves[c as usize % moves.len()];
            t.play_unchecked(mv);
        }
    }
}
