//! Differential tests of the draughts rules against pydraughts and dame-rs.
//!
//! Seeded random games are played with qizero's rules and replayed by pydraughts
//! (`scripts/oracles/draughts_oracle.py`): at every ply the sets of legal moves must be equal,
//! with pydraughts' capture routes merged by (origin, destination, captured set), and the game
//! must end at the same ply with the same result. Most games start from the initial position;
//! one in ten starts from a random sparse position with kings (so the 16-move and 5-move rules
//! are reached often), and one in ten from two to four kings a side played by a policy that
//! takes moves back and forth (so the 25-move rule and repetition are reached).
//!
//! One difference is by design and is counted, not failed: for the 16-move and 5-move endgame
//! rules pydraughts reuses its 25-move counter, so a man move restarts its count, while FMJD (and
//! qizero, see `draughts::rules`) counts from the moment the material configuration arises. A
//! game qizero draws by an endgame rule, at a ply where pydraughts plays on and a man moved inside
//! qizero's count, is reported as that difference and its comparison stops there.
//!
//! dame-rs, an independent Rust engine, counts perft from positions met along those games; the
//! counts must equal ours.
//!
//! `QIZERO_DRAUGHTS_ORACLE_GAMES` overrides the number of games (1,000 by default). The games
//! are split between two oracle processes, one per core.

use draughts::{Color, Game, Kind, Move, Piece, Position, Square};
use game::Outcome;
use qizero_tests::{Oracle, oracle_or_skip};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;

const SEED: u64 = 0x0d0a_0d0a_5eed;
const DEFAULT_GAMES: usize = 1000;
const HINT: &str = "scripts/test installs both (pip install pydraughts dame-rs).";

/// A random sparse position: one to four pieces a side, kings likely, White or Black to move.
fn sparse_position(rng: &mut StdRng) -> Position {
    let mut squares: Vec<Square> = Square::all().collect();
    squares.shuffle(rng);
    let mut pos = Position::empty(if rng.random_bool(0.5) { Color::White } else { Color::Black });
    let mut next = squares.into_iter();
    for color in Color::BOTH {
        for _ in 0..rng.random_range(1..=4) {
            let Some(sq) = next.next() else { break };
            let king = rng.random_bool(0.6) || sq.is_promotion_row(color);
            pos.put(sq, Piece { color, kind: if king { Kind::King } else { Kind::Man } });
        }
    }
    pos
}

/// Two to four kings a side, nothing else.
fn kings_position(rng: &mut StdRng) -> Position {
    let mut squares: Vec<Square> = Square::all().collect();
    squares.shuffle(rng);
    let mut pos = Position::empty(if rng.random_bool(0.5) { Color::White } else { Color::Black });
    let mut next = squares.into_iter();
    for color in Color::BOTH {
        for _ in 0..rng.random_range(2..=4) {
            if let Some(sq) = next.next() {
                pos.put(sq, Piece { color, kind: Kind::King });
            }
        }
    }
    pos
}

/// A move that undoes `mv` (a quiet king move), if it is legal in `game` now.
fn take_back(game: &Game, mv: Move) -> Option<Move> {
    let back = Move::quiet(mv.to(), mv.from());
    (!mv.is_capture()).then_some(back).filter(|m| game.legal_moves().contains(m))
}

/// One random game as qizero played it.
struct Played {
    start: String,
    moves: Vec<Move>,
    /// Per position (start, then after each move): sorted legal moves and qizero's result.
    plies: Vec<(Vec<String>, Option<Outcome>)>,
    /// Per position: qizero's endgame count, and whether the move played from it moved a man
    /// without capturing or promoting.
    endgame: Vec<(u32, bool)>,
    /// Positions (FEN) to count perft from with dame-rs.
    samples: Vec<String>,
}

fn play_random_game(g: usize) -> Played {
    let mut rng = StdRng::seed_from_u64(SEED.wrapping_add(g as u64));
    let shuffle = g % 10 == 9;
    let start = match g % 10 {
        4 => sparse_position(&mut rng),
        9 => kings_position(&mut rng),
        _ => Position::startpos(),
    };
    let mut game = Game::from_position(start);
    let mut plies = Vec::new();
    let mut moves = Vec::new();
    let mut samples = Vec::new();
    let mut endgame = Vec::new();
    loop {
        let legal = game.legal_moves();
        let mut names: Vec<String> = legal.iter().map(Move::to_string).collect();
        names.sort();
        let outcome = game.outcome();
        plies.push((names, outcome));
        if game.ply() % 25 == 10 && g % 4 == 0 {
            samples.push(game.position().fen());
        }
        if outcome.is_some() {
            break;
        }
        // Half of the kings-only games shuffle: a move two plies old is taken back, most of the
        // time (repetitions). The other half wander without offering a capture when they can
        // (so the kings survive to the 25-move rule).
        let back = (shuffle && g % 20 == 9 && moves.len() >= 2 && rng.random_bool(0.8))
            .then(|| take_back(&game, moves[moves.len() - 2]))
            .flatten();
        let safe: Vec<Move> = if shuffle && g % 20 == 19 {
            legal.iter().copied().filter(|m| !game.position().after(m).has_capture()).collect()
        } else {
            Vec::new()
        };
        let mv = back.unwrap_or_else(|| {
            if safe.is_empty() {
                legal[rng.random_range(0..legal.len())]
            } else {
                safe[rng.random_range(0..safe.len())]
            }
        });
        let pos = game.position();
        let man = pos.piece_at(mv.from()).is_some_and(|p| p.kind == Kind::Man);
        let promotes = mv.to().is_promotion_row(pos.side_to_move());
        endgame.push((game.endgame_plies(), man && !mv.is_capture() && !promotes));
        game.play_unchecked(mv);
        moves.push(mv);
    }
    endgame.push((game.endgame_plies(), false));
    Played { start: start.fen(), moves, plies, endgame, samples }
}

fn result_letter(outcome: Option<Outcome>) -> &'static str {
    match outcome {
        None => "0 -",
        Some(o) => match o.winner() {
            Some(game::Side::First) => "1 W",
            Some(game::Side::Second) => "1 B",
            None => "1 D",
        },
    }
}

/// True if qizero's endgame draw at `ply` differs from pydraughts only because pydraughts
/// restarts its count when a man moves (see the module docs).
fn endgame_count_difference(played: &Played, ply: usize, pydraughts_over: &str) -> bool {
    let count = played.endgame[ply].0 as usize;
    matches!(played.plies[ply].1, Some(Outcome::Draw(game::DrawReason::Endgame)))
        && pydraughts_over == "0"
        && played.endgame[ply.saturating_sub(count)..ply].iter().any(|&(_, man_move)| man_move)
}

/// Checks one game against pydraughts; returns the first disagreement, or `Ok(true)` if the
/// game ended in the known endgame-count difference.
fn check_game(oracle: &mut Oracle, g: usize, played: &Played) -> Result<bool, String> {
    let moves: Vec<String> = played.moves.iter().map(Move::to_string).collect();
    let replies = oracle.ask(&[format!("G {}|{}", played.start, moves.join(" "))], played.plies.len());
    for (ply, ((legal, outcome), reply)) in played.plies.iter().zip(&replies).enumerate() {
        let context =
            || format!("game {g}: start FEN {}\nmoves {}\nat ply {ply}", played.start, moves[..ply].join(" "));
        let mut fields = reply.splitn(3, ' ');
        let over = fields.next().unwrap_or_default();
        let who = fields.next().unwrap_or_default();
        let oracle_moves: Vec<&str> = fields.next().unwrap_or_default().split_whitespace().collect();
        if over == "stop" {
            return Err(format!("{}\npydraughts refuses move {who}", context()));
        }
        if oracle_moves != *legal {
            let missing: Vec<&&str> = oracle_moves.iter().filter(|m| !legal.iter().any(|l| l == **m)).collect();
            let extra: Vec<&String> = legal.iter().filter(|l| !oracle_moves.contains(&l.as_str())).collect();
            return Err(format!("{}\nlegal moves differ: qizero lacks {missing:?}, has extra {extra:?}", context()));
        }
        let ours = result_letter(*outcome);
        if ours != format!("{over} {who}") && endgame_count_difference(played, ply, over) {
            return Ok(true);
        }
        if ours != format!("{over} {who}") {
            let described = outcome.map_or_else(|| "game goes on".to_string(), |o| o.to_string());
            return Err(format!(
                "{}\ngame end differs: qizero {described} ({ours}), pydraughts '{over} {who}'",
                context()
            ));
        }
    }
    Ok(false)
}

/// What the games came to.
#[derive(Default)]
struct Tally {
    endings: HashMap<String, usize>,
    positions: usize,
    perfts: usize,
    endgame_differences: Vec<usize>,
}

/// Runs `games` games on two oracle processes.
fn run_games(games: usize) -> Option<(Tally, String)> {
    let oracles: Vec<Oracle> = (0..2).map(|_| oracle_or_skip("draughts_oracle.py", HINT)).collect::<Option<_>>()?;
    let banner = oracles[0].banner.clone();
    let results: Vec<Tally> = std::thread::scope(|s| {
        let handles: Vec<_> = oracles
            .into_iter()
            .enumerate()
            .map(|(t, mut oracle)| {
                s.spawn(move || {
                    let mut tally = Tally::default();
                    for g in (t..games).step_by(2) {
                        let played = play_random_game(g);
                        match check_game(&mut oracle, g, &played) {
                            Err(e) => panic!("disagreement with pydraughts (seed {SEED:#x}):\n{e}"),
                            Ok(true) => tally.endgame_differences.push(g),
                            Ok(false) => {}
                        }
                        tally.positions += played.plies.len();
                        if let Some((_, Some(o))) = played.plies.last() {
                            *tally.endings.entry(format!("{o}")).or_insert(0) += 1;
                        }
                        for fen in &played.samples {
                            let depth = 3;
                            let theirs = oracle.ask(&[format!("P {depth} {fen}")], 1);
                            let mut pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
                            let ours = draughts::perft(&mut pos, depth).to_string();
                            assert_eq!(ours, theirs[0], "perft {depth} differs from dame-rs for {fen}");
                            tally.perfts += 1;
                        }
                    }
                    tally
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    let mut total = Tally::default();
    for t in results {
        for (k, v) in t.endings {
            *total.endings.entry(k).or_insert(0) += v;
        }
        total.positions += t.positions;
        total.perfts += t.perfts;
        total.endgame_differences.extend(t.endgame_differences);
    }
    Some((total, banner))
}

#[test]
fn random_games_agree_with_pydraughts_and_dame() {
    let games: usize =
        std::env::var("QIZERO_DRAUGHTS_ORACLE_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_GAMES);
    let Some((tally, banner)) = run_games(games) else {
        return;
    };
    let mut summary: Vec<_> = tally.endings.into_iter().collect();
    summary.sort();
    let mut differences = tally.endgame_differences;
    differences.sort_unstable();
    eprintln!(
        "{games} games, {} positions, 0 mismatches against {banner}; {} perft counts equal to dame-rs; \
         {} games end earlier by FMJD's endgame count than by pydraughts' (games {differences:?}); endings: {summary:?}",
        tally.positions,
        tally.perfts,
        differences.len()
    );
}
