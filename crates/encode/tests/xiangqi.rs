//! Xiangqi encoding: policy coverage over the perft suite, the turned view, the mirror, the
//! history and rule planes, and the control planes against the rules crate's attackers.

mod common;

use encode::xiangqi::{
    self as enc, BASE_PLANES, CONTROL_CAP, HISTORY, ONES_PLANE, OWN_CHECKS_PLANE, OWN_CONTROL_PLANE, PIECE_PLANES,
    PLANES, POLICY_SIZE, REPETITION_PLANE, RULE_PLIES_PLANE, THEIR_CHECKS_PLANE, THEIR_CONTROL_PLANE,
};
use encode::{Encode, encode_batch, move_for_index, moves_for_index};
use proptest::prelude::*;
use std::collections::HashSet;
use xiangqi::{Color, Game, Move, Square, notation};

const AREA: usize = 90;

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
        let mv = notation::parse_uci(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(g.position().is_legal(mv), "{text} illegal in {}", g.position().fen());
        g.play_unchecked(mv);
    }
}

/// Rewrites the board field of a FEN rank by rank: `f(ranks)` gets the ranks expanded to nine
/// characters each (`.` for empty), top rank first.
fn map_board(fen: &str, f: impl Fn(Vec<Vec<char>>) -> Vec<Vec<char>>) -> String {
    let mut fields = fen.split_whitespace();
    let board = fields.next().expect("board field");
    let ranks: Vec<Vec<char>> = board
        .split('/')
        .map(|r| {
            r.chars()
                .flat_map(|c| match c.to_digit(10) {
                    Some(d) => vec!['.'; d as usize],
                    None => vec![c],
                })
                .collect()
        })
        .collect();
    let ranks: Vec<String> = f(ranks)
        .into_iter()
        .map(|r| {
            let mut s = String::new();
            let mut empty = 0;
            for c in r {
                if c == '.' {
                    empty += 1;
                } else {
                    if empty > 0 {
                        s.push_str(&empty.to_string());
                        empty = 0;
                    }
                    s.push(c);
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            s
        })
        .collect();
    std::iter::once(ranks.join("/")).chain(fields.map(str::to_string)).collect::<Vec<_>>().join(" ")
}

/// The FEN mirrored left-right.
fn mirror_fen(fen: &str) -> String {
    map_board(fen, |ranks| ranks.into_iter().map(|r| r.into_iter().rev().collect()).collect())
}

/// The FEN with colours swapped and the board turned 180 degrees (side to move swapped too).
fn flip_fen(fen: &str) -> String {
    let board = map_board(fen, |ranks| {
        let swap = |c: char| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() };
        ranks.into_iter().rev().map(|r| r.into_iter().rev().map(swap).collect()).collect()
    });
    let mut fields: Vec<String> = board.split_whitespace().map(str::to_string).collect();
    if fields.len() < 2 {
        fields.push("w".into());
    }
    fields[1] = if fields[1] == "b" { "w".into() } else { "b".into() };
    fields.join(" ")
}

/// A game kept in lockstep with its mirror image and its colour-flipped image.
struct Trio {
    g: Game,
    mirrored: Game,
    flipped: Game,
}

impl Trio {
    fn new(fen: &str) -> Trio {
        Trio { g: game(fen), mirrored: game(&mirror_fen(fen)), flipped: game(&flip_fen(fen)) }
    }

    fn play_unchecked(&mut self, mv: Move) {
        self.g.play_unchecked(mv);
        self.mirrored.play_unchecked(mv.mirror());
        self.flipped.play_unchecked(mv.rotate());
    }

    fn undo(&mut self) {
        for g in [&mut self.g, &mut self.mirrored, &mut self.flipped] {
            assert!(g.undo().is_some());
        }
    }

    /// Everything the encoding promises about this position.
    fn check(&self) {
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
        // The mirror of the planes is the encoding of the mirrored game.
        let mut m = p.clone();
        Game::transform_planes(1, &mut m);
        assert_eq!(m, planes(&self.mirrored), "mirror planes of {}", at());
        Game::transform_planes(1, &mut m);
        assert_eq!(m, p, "mirror twice");
        // The turned view: colours swapped and board turned encode the same.
        assert_eq!(p, planes(&self.flipped), "flipped planes of {}", at());
        // The earlier-position planes are that position's own piece planes as the current mover
        // would see it (when that position is a valid FEN with the mover to move).
        let history = &p[PIECE_PLANES * AREA..2 * PIECE_PLANES * AREA];
        match g.previous_position(1) {
            None => assert!(history.iter().all(|&v| v == 0.0)),
            Some(prev) => {
                let side = if g.position().side_to_move() == Color::Red { "w" } else { "b" };
                let fen = prev.fen();
                let mut fields: Vec<&str> = fen.split_whitespace().collect();
                fields[1] = side;
                if let Ok(seen) = Game::from_fen(&fields.join(" ")) {
                    assert_eq!(history, &planes(&seen)[..PIECE_PLANES * AREA], "history planes of {}", at());
                }
            }
        }

        control_planes_count_attackers(g, &p);

        let moves = g.legal_moves();
        let mut indices = Vec::new();
        g.policy_indices(moves.as_ref(), &mut indices);
        let distinct: HashSet<u32> = indices.iter().copied().collect();
        assert_eq!(distinct.len(), moves.len(), "indices not unique in {}", at());
        let mirrored_moves: HashSet<Move> = self.mirrored.legal_moves().iter().map(|m| m.mirror()).collect();
        assert_eq!(mirrored_moves, moves.iter().copied().collect(), "mirror game out of step");
        let mover = g.position().side_to_move();
        for (&mv, &idx) in moves.iter().zip(&indices) {
            let idx = idx as usize;
            assert!(idx < POLICY_SIZE);
            assert_eq!(g.policy_index(mv), idx);
            assert_eq!(enc::index_move(idx, mover), Some(mv), "{mv} in {}", at());
            assert_eq!(move_for_index(g, idx), Some(mv));
            assert_eq!(self.mirrored.policy_index(mv.mirror()), Game::transform_policy_index(1, idx));
            assert_eq!(self.flipped.policy_index(mv.rotate()), idx, "turned index of {mv} in {}", at());
        }
    }
}

/// The control planes of `p` (the encoding of `g`) against the rules crate's own answer to "which
/// pieces of this side could capture on that square" (`attackers_to`, computed from the target
/// square with the attacker tables, not from each piece's moves), for all 90 squares.
fn control_planes_count_attackers(g: &Game, p: &[f32]) {
    let pos = g.position();
    let us = pos.side_to_move();
    for index in 0..AREA {
        let sq = Square::new(index).expect("a square");
        let seen = if us == Color::Red { sq } else { sq.rotate() };
        let cell = (9 - seen.rank()) * 9 + seen.file();
        for (which, side) in [(OWN_CONTROL_PLANE, us), (THEIR_CONTROL_PLANE, !us)] {
            let count = (pos.attackers_to(sq, side).count() as usize).min(CONTROL_CAP);
            let want = count as f32 / CONTROL_CAP as f32;
            assert_eq!(plane(p, which)[cell], want, "control of {sq} by {} in {}", side.name(), pos.fen());
        }
    }
}

fn walk(t: &mut Trio, depth: usize) -> usize {
    t.check();
    if depth == 0 {
        return 1;
    }
    let mut nodes = 1;
    for mv in t.g.legal_moves() {
        t.play_unchecked(mv);
        nodes += walk(t, depth - 1);
        t.undo();
    }
    nodes
}

#[test]
fn perft_suite_moves_index_round_trip_and_transform() {
    let mut nodes = 0;
    for fen in common::perft_fens("xiangqi.perft") {
        nodes += walk(&mut Trio::new(&fen), 2);
        // The same positions with Black to move (the flipped FEN), so both views are covered
        // at every depth.
        nodes += walk(&mut Trio::new(&flip_fen(&fen)), 1);
    }
    assert!(nodes > 10_000, "walked only {nodes} positions");
}

#[test]
fn encoding_info_matches_the_tables() {
    let info = Game::ENCODING;
    assert_eq!(info.id, "xiangqi-v2");
    assert_eq!((info.planes, info.height, info.width), (PLANES, 10, 9));
    assert_eq!(info.plane_len(), 35 * 90);
    assert_eq!((info.base_id, info.base_planes, info.feature_planes()), ("xiangqi-v1", 33, 2));
    assert_eq!(info.input(false), ("xiangqi-v1", BASE_PLANES));
    assert_eq!(info.input(true), ("xiangqi-v2", 35));
    assert_eq!(info.policy_size, 2062);
    assert_eq!(info.symmetries, 2);
}

#[test]
fn start_position_planes() {
    let p = planes(&Game::new());
    let counts: Vec<usize> = (0..PIECE_PLANES).map(|k| plane(&p, k).iter().filter(|&&v| v == 1.0).count()).collect();
    assert_eq!(counts, [1, 2, 2, 2, 2, 2, 5, 1, 2, 2, 2, 2, 2, 5]);
    assert!(p[..BASE_PLANES * AREA].iter().all(|&v| v == 0.0 || v == 1.0));
    // Red's king on e0 is at the bottom centre, Black's at the top centre.
    assert_eq!(plane(&p, 0)[9 * 9 + 4], 1.0);
    assert_eq!(plane(&p, 7)[4], 1.0);
    // No history at the start: the earlier-position planes are empty.
    assert!(p[PIECE_PLANES * AREA..HISTORY * PIECE_PLANES * AREA].iter().all(|&v| v == 0.0));
    for scalar in [REPETITION_PLANE, RULE_PLIES_PLANE, OWN_CHECKS_PLANE, THEIR_CHECKS_PLANE] {
        assert!(plane(&p, scalar).iter().all(|&v| v == 0.0));
    }
    assert!(plane(&p, ONES_PLANE).iter().all(|&v| v == 1.0));
    // Control, worked by hand. Black's horse on b9 (top row, column 1): Red's cannon on b2
    // attacks it over Black's cannon on b7; Black's rook on a9 guards it.
    assert_eq!(plane(&p, OWN_CONTROL_PLANE)[1], 0.25);
    assert_eq!(plane(&p, THEIR_CONTROL_PLANE)[1], 0.25);
    // e1 (row 8, column 4), in Red's palace: its king, both advisors; no Black piece reaches it.
    assert_eq!(plane(&p, OWN_CONTROL_PLANE)[8 * 9 + 4], 0.75);
    assert_eq!(plane(&p, THEIR_CONTROL_PLANE)[8 * 9 + 4], 0.0);
    // e3 (row 6, column 4), Red's centre soldier: no piece of either side reaches it yet.
    assert_eq!(plane(&p, OWN_CONTROL_PLANE)[6 * 9 + 4], 0.0);
    assert_eq!(plane(&p, THEIR_CONTROL_PLANE)[6 * 9 + 4], 0.0);
}

#[test]
fn after_the_first_move_black_sees_itself_at_the_bottom_with_one_position_of_history() {
    let mut g = Game::new();
    play(&mut g, "h2e2");
    let p = planes(&g);
    let cannon = 5;
    // Black's own king is now the bottom centre.
    assert_eq!(plane(&p, 0)[9 * 9 + 4], 1.0);
    // Red's cannon on e2 is, turned, file e (column 4) and rank 7 from Black's side: row 2.
    assert_eq!(plane(&p, 7 + cannon)[2 * 9 + 4], 1.0);
    assert_eq!(plane(&p, 7 + cannon)[2 * 9 + 1], 0.0);
    // One ply earlier it stood on h2: column 1 in Black's view.
    let earlier = PIECE_PLANES + 7 + cannon;
    assert_eq!(plane(&p, earlier)[2 * 9 + 1], 1.0);
    assert_eq!(plane(&p, earlier)[2 * 9 + 4], 0.0);
    assert_eq!(plane(&p, PIECE_PLANES)[9 * 9 + 4], 1.0, "Black's king in the earlier position");
    assert_eq!(plane(&p, RULE_PLIES_PLANE)[0], 1.0 / 120.0);
    // Two plies on, asymmetric: Red's b0 horse stood, seen by Black, at the top (row 0,
    // column 7); Black's own g7 horse at row 7, column 2.
    play(&mut g, "h9g7 b0c2");
    let p = planes(&g);
    let horse = 3;
    assert_eq!(plane(&p, PIECE_PLANES + 7 + horse)[7], 1.0);
    assert_eq!(plane(&p, PIECE_PLANES + horse)[7 * 9 + 2], 1.0);
    assert_eq!(plane(&p, 7 + horse)[7], 0.0, "moved on since");
    assert_eq!(plane(&p, RULE_PLIES_PLANE)[0], 3.0 / 120.0);
}

#[test]
fn a_fen_start_has_no_history_and_keeps_its_capture_clock() {
    let fen = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 b - - 30 12";
    let g = game(fen);
    let p = planes(&g);
    assert!(p[PIECE_PLANES * AREA..HISTORY * PIECE_PLANES * AREA].iter().all(|&v| v == 0.0));
    assert!(p[..PIECE_PLANES * AREA].contains(&1.0));
    assert!(plane(&p, RULE_PLIES_PLANE).iter().all(|&v| v == 0.25));
}

#[test]
fn repetition_plane_counts_earlier_occurrences() {
    let mut g = Game::new();
    play(&mut g, "h2e2 h9g7 e2h2 g7h9");
    assert_eq!(plane(&planes(&g), REPETITION_PLANE)[0], 0.5);
    play(&mut g, "h2e2");
    assert_eq!(plane(&planes(&g), REPETITION_PLANE)[0], 0.5, "the position after h2e2 came before");
    play(&mut g, "h9g7 e2h2 g7h9");
    assert_eq!(plane(&planes(&g), REPETITION_PLANE)[0], 1.0);
}

#[test]
fn check_planes_count_runs_of_checks() {
    // The red rook checks on every move; the black king steps e8 <-> e9.
    let mut g = game("9/4k4/9/9/9/9/9/9/7R1/3K5 w");
    play(&mut g, "h1h8");
    let p = planes(&g);
    assert_eq!((plane(&p, OWN_CHECKS_PLANE)[0], plane(&p, THEIR_CHECKS_PLANE)[0]), (0.0, 0.1));
    play(&mut g, "e8e9 h8h9 e9e8 h9h8 e8e9 h8h9 e9e8");
    let p = planes(&g);
    assert_eq!((plane(&p, OWN_CHECKS_PLANE)[0], plane(&p, THEIR_CHECKS_PLANE)[0]), (0.4, 0.0));
    assert_eq!(plane(&p, REPETITION_PLANE)[0], 0.5);
    // A quiet rook move ends Red's run.
    play(&mut g, "h9h2 e8e9");
    assert_eq!(plane(&planes(&g), OWN_CHECKS_PLANE)[0], 0.0);
}

#[test]
fn batch_and_indices_agree_with_single_calls() {
    let mut a = Game::new();
    let mut b = Game::new();
    play(&mut a, "h2e2 h9g7");
    play(&mut b, "b0c2");
    let batch = encode_batch(&[&a, &b]);
    assert_eq!(batch.shape(), [2, PLANES, 10, 9]);
    let flat = batch.as_slice().expect("contiguous");
    assert_eq!(&flat[..Game::ENCODING.plane_len()], planes(&a).as_slice());
    assert_eq!(&flat[Game::ENCODING.plane_len()..], planes(&b).as_slice());
    // Every index decodes to at most one legal move.
    for idx in 0..POLICY_SIZE {
        assert!(moves_for_index(&b, idx).len() <= 1);
    }
    assert_eq!(enc::move_index(Move::NULL, Color::Red), None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random games keep the mirror and turned-view properties, history and counts included.
    #[test]
    fn random_games_keep_the_symmetries(choices in prop::collection::vec(any::<u32>(), 1..120)) {
        let mut t = Trio::new(xiangqi::START_FEN);
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
