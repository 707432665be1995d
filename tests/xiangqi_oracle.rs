//! Differential test of the xiangqi rules against Fairy-Stockfish.
//!
//! Seeded random games are played with qizero's own rules, then checked by
//! `scripts/oracles/xiangqi_oracle.py`, which asks Fairy-Stockfish twice over: the engine
//! (Debian package `fairy-stockfish`) lists the legal moves of every position from the FEN qizero
//! writes, and `pyffish` (PyPI) replays each whole game, saying which moves gave check and how
//! the game ends. Every answer must agree:
//! - the legal move sets are equal at every ply (so is every move qizero played);
//! - the check status is equal at every ply;
//! - a game qizero ends for want of a legal move, Fairy-Stockfish scores as lost for the side to
//!   move; a game qizero ends by repetition (draw, perpetual check, perpetual chase) or by the
//!   120-ply rule, Fairy-Stockfish ends too, with the same score; at every repeated position where
//!   qizero plays on, Fairy-Stockfish does not claim an end;
//! - where qizero draws for insufficient material (no rook, horse, cannon or soldier left),
//!   Fairy-Stockfish agrees that neither side can mate. (Fairy-Stockfish's rule is wider: it
//!   also calls, say, king and cannon against a bare king dead, where qizero plays on to the
//!   move rule; so only this direction is checked.)
//!
//! Games are uniform random playouts, except that a capture, when there is one, is chosen with
//! probability 1/2: that keeps games short (about 175 plies) and reaches more endings.
//! `QIZERO_ORACLE_GAMES` overrides the number of games (at least 2,000 by default).

use game::{DrawReason, Outcome, WinReason};
use qizero_tests::{oracle_or_skip, read_perft_suite};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use xiangqi::{Game, Kind, Move, Position, START_FEN, notation};

const SEED: u64 = 0x05ee_d0f0_ac1e;
const DEFAULT_GAMES: usize = 2000;
const DEFAULT_CYCLE_GAMES: usize = 1000;

/// What qizero recorded at one ply of a random game.
struct PlyRecord {
    fen: String,
    key: u64,
    /// The first ply after the last capture (or 0): repetitions cannot reach back further.
    segment_start: usize,
    in_check: bool,
    legal: Vec<String>,
    outcome: Option<Outcome>,
    /// The request for the oracle's verdict on the game so far, when one is needed here.
    end_query: Option<String>,
}

/// A random game as qizero played it.
struct Played {
    start: String,
    moves: Vec<Move>,
    plies: Vec<PlyRecord>,
}

fn fsf(mv: Move) -> String {
    notation::uci_to_fsf(mv)
}

/// Plays a game from `start` with qizero's rules, `choose` picking each move, and records what
/// the oracle is to be asked.
fn play_game(start: &str, mut choose: impl FnMut(&Game) -> Move) -> Played {
    let mut game = Game::from_fen(start).unwrap_or_else(|e| panic!("{start}: {e}"));
    // Since the last capture: the position it left, the moves after it, how often each position
    // occurred. Repetition can only involve these.
    let mut segment_fen = game.position().fen();
    let mut segment_moves: Vec<String> = Vec::new();
    let mut seen: HashMap<u64, usize> = HashMap::new();
    let mut segment_start = 0;
    let mut plies = Vec::new();
    let mut moves = Vec::new();
    loop {
        let pos = game.position();
        let outcome = game.outcome();
        let occurrences = seen.entry(pos.key()).or_insert(0);
        *occurrences += 1;
        let end_query =
            (outcome.is_some() || *occurrences > 1).then(|| format!("E {segment_fen}|{}", segment_moves.join(" ")));
        let mut legal: Vec<String> = pos.legal_moves().iter().map(|&m| fsf(m)).collect();
        legal.sort();
        plies.push(PlyRecord {
            fen: pos.fen(),
            key: pos.key(),
            segment_start,
            in_check: pos.in_check(),
            legal,
            outcome,
            end_query,
        });
        if outcome.is_some() {
            break;
        }
        let mv = choose(&game);
        let capture = pos.is_capture(mv);
        game.play_unchecked(mv);
        moves.push(mv);
        if capture {
            segment_fen = game.position().fen();
            segment_moves.clear();
            seen.clear();
            segment_start = plies.len();
        } else {
            segment_moves.push(fsf(mv));
        }
    }
    Played { start: start.to_string(), moves, plies }
}

/// A random legal move, a capture with probability 1/2 when there is one.
fn random_move(game: &Game, rng: &mut StdRng) -> Move {
    let pos = game.position();
    let list = pos.legal_moves();
    let captures: Vec<Move> = list.iter().copied().filter(|&m| pos.is_capture(m)).collect();
    if !captures.is_empty() && rng.random_bool(0.5) {
        captures[rng.random_range(0..captures.len())]
    } else {
        list[rng.random_range(0..list.len())]
    }
}

/// Picks moves that walk into repetitions. After a random opening of `prefix` plies it plays
/// cycles of eight moves that return twice to the same position, ending the game by repetition
/// unless a move along the way turns out illegal (then play goes on at random and a new cycle is
/// tried). Two kinds of cycle, chosen at random:
/// - *chase*: a piece that is attacked steps away and back, and the attacker follows it each
///   time so that every one of its moves attacks it again (the pattern of a perpetual chase;
///   protection and the kinds involved decide whether it is one);
/// - *shuffle*: each side plays a move (a checking one when it can, half the time), then both
///   are taken back and replayed (perpetual check when the checks keep coming, else a draw).
struct CyclePlanner {
    prefix: usize,
    plan: Vec<Move>,
    next: usize,
    /// The two moves of a shuffle cycle being chosen.
    shuffle: Vec<Move>,
}

fn reverse(mv: Move) -> Move {
    Move::new(mv.to(), mv.from())
}

/// All (runner, chaser) move pairs where the side to move steps an attacked piece away and the
/// attacker follows it with a quiet move that attacks it again.
fn chase_patterns(pos: &Position) -> Vec<[Move; 2]> {
    let us = pos.side_to_move();
    let mut out = Vec::new();
    for step in pos.legal_moves() {
        let (x0, x1) = (step.from(), step.to());
        let Some(piece) = pos.piece_at(x0) else { continue };
        if piece.kind == Kind::King || pos.is_capture(step) {
            continue;
        }
        let attackers = pos.pieces_of(!us).filter(|&a| pos.attacks_from(a).has(x0));
        let after = pos.after(step);
        for a in attackers {
            for follow in after.legal_moves() {
                if follow.from() == a
                    && !after.is_capture(follow)
                    && after.after(follow).attacks_from(follow.to()).has(x1)
                {
                    out.push([step, follow]);
                }
            }
        }
    }
    out
}

impl CyclePlanner {
    fn new(prefix: usize) -> CyclePlanner {
        CyclePlanner { prefix, plan: Vec::new(), next: 0, shuffle: Vec::new() }
    }

    fn choose(&mut self, game: &Game, rng: &mut StdRng) -> Move {
        if game.ply() < self.prefix {
            return random_move(game, rng);
        }
        let pos = game.position();
        if self.next < self.plan.len() {
            let planned = self.plan[self.next];
            self.next += 1;
            if pos.is_legal(planned) {
                return planned;
            }
            self.plan.clear();
            return random_move(game, rng);
        }
        if self.shuffle.is_empty() && rng.random_bool(0.5) {
            let patterns = chase_patterns(pos);
            if !patterns.is_empty() {
                let [step, follow] = patterns[rng.random_range(0..patterns.len())];
                let cycle = [step, follow, reverse(step), reverse(follow)];
                self.plan = cycle.iter().chain(cycle.iter()).copied().collect();
                self.next = 1;
                return step;
            }
        }
        let list = pos.legal_moves();
        let checks: Vec<Move> = list.iter().copied().filter(|&m| pos.gives_check(m)).collect();
        let quiet: Vec<Move> = list.iter().copied().filter(|&m| !pos.is_capture(m)).collect();
        let mv = if !checks.is_empty() && rng.random_bool(0.5) {
            checks[rng.random_range(0..checks.len())]
        } else if !quiet.is_empty() {
            quiet[rng.random_range(0..quiet.len())]
        } else {
            list[rng.random_range(0..list.len())]
        };
        self.shuffle.push(mv);
        if self.shuffle.len() == 2 {
            let (m1, m2) = (self.shuffle[0], self.shuffle[1]);
            self.plan = vec![reverse(m1), reverse(m2), m1, m2, reverse(m1), reverse(m2)];
            self.next = 0;
            self.shuffle.clear();
        }
        mv
    }
}

/// Score of an outcome for the side to move: +1 win, 0 draw, -1 loss.
fn score_for_mover(outcome: Outcome, mover_is_red: bool) -> i64 {
    match outcome.winner() {
        None => 0,
        Some(w) if (w == game::Side::First) == mover_is_red => 1,
        Some(_) => -1,
    }
}

impl Played {
    fn context(&self, ply: usize) -> String {
        let moves: Vec<String> = self.moves[..ply].iter().map(Move::to_string).collect();
        format!("start FEN {}\nmoves {}\nat ply {ply}, FEN {}", self.start, moves.join(" "), self.plies[ply].fen)
    }

    /// The oracle requests for this game and how many reply lines they produce.
    fn requests(&self) -> (Vec<String>, usize) {
        let mut lines = vec![format!("B {}", self.plies.len())];
        lines.extend(self.plies.iter().map(|p| p.fen.clone()));
        let moves: Vec<String> = self.moves.iter().map(|&m| fsf(m)).collect();
        lines.push(format!("G {}|{}", self.start, moves.join(" ")));
        lines.extend(self.plies.iter().filter_map(|p| p.end_query.clone()));
        let replies = lines.len() - 1;
        (lines, replies)
    }

    /// True if the repetition ending at `ply` is a cycle without any check: any decisive
    /// verdict on it can only come from the chase rules.
    fn quiet_cycle(&self, ply: usize) -> bool {
        let rec = &self.plies[ply];
        let first = (rec.segment_start..ply).find(|&i| self.plies[i].key == rec.key);
        first.is_some_and(|f| self.plies[f + 1..=ply].iter().all(|p| !p.in_check))
    }

    /// Compares the game with the oracle's replies; describes the first mismatch. A verdict on
    /// a check-free repetition cycle that differs only because qizero follows Pikafish's chase
    /// definition and Fairy-Stockfish its own is not a mismatch: it is returned for counting.
    fn compare(&self, replies: &[String]) -> Result<Option<String>, String> {
        let mut chase_difference = None;
        let (legal_replies, rest) = replies.split_at(self.plies.len());
        for (ply, (rec, reply)) in self.plies.iter().zip(legal_replies).enumerate() {
            let oracle: Vec<&str> = reply.split_whitespace().collect();
            if oracle != rec.legal {
                let missing: Vec<&&str> = oracle.iter().filter(|m| !rec.legal.iter().any(|l| l == **m)).collect();
                let extra: Vec<&String> = rec.legal.iter().filter(|l| !oracle.contains(&l.as_str())).collect();
                return Err(format!(
                    "{}\nlegal moves differ: qizero lacks {missing:?}, has extra {extra:?}",
                    self.context(ply)
                ));
            }
        }
        let (game_reply, end_replies) = rest.split_first().ok_or("no game reply")?;
        let flags = game_reply.strip_prefix("ok ").ok_or_else(|| format!("oracle rejects the game: {game_reply}"))?;
        for (ply, (rec, flag)) in self.plies.iter().zip(flags.chars()).enumerate() {
            if rec.in_check != (flag == '1') {
                return Err(format!(
                    "{}\ncheck status differs: qizero {}, oracle {flag}",
                    self.context(ply),
                    rec.in_check
                ));
            }
        }
        let mut end_replies = end_replies.iter();
        for (ply, rec) in self.plies.iter().enumerate().filter(|(_, r)| r.end_query.is_some()) {
            let reply = end_replies.next().ok_or("missing end reply")?;
            let f: Vec<&str> = reply.split_whitespace().collect();
            let num = |i: usize| f.get(i).and_then(|x| x.parse::<i64>().ok());
            let (Some(legal_count), Some(ended), Some(value), Some(result), Some(&insufficient)) =
                (num(0), num(1), num(2), num(3), f.get(4))
            else {
                return Err(format!("{}\nbad oracle reply '{reply}'", self.context(ply)));
            };
            let mover_is_red = rec.fen.split_whitespace().nth(1) == Some("w");
            let agrees = match rec.outcome {
                None => ended == 0,
                Some(o @ Outcome::Win { reason: WinReason::Checkmate | WinReason::Stalemate, .. }) => {
                    legal_count == 0 && result < 0 && score_for_mover(o, mover_is_red) == -1
                }
                Some(Outcome::Draw(DrawReason::InsufficientMaterial)) => insufficient == "11",
                Some(o) => ended != 0 && score_for_mover(o, mover_is_red) == value.signum(),
            };
            let chase_verdict = matches!(rec.outcome, Some(Outcome::Win { reason: WinReason::PerpetualChase, .. }))
                || (rec.outcome == Some(Outcome::Draw(DrawReason::Repetition)) && value != 0);
            if !agrees && chase_verdict && self.quiet_cycle(ply) {
                let ours = rec.outcome.map_or_else(String::new, |o| o.to_string());
                chase_difference = Some(format!("{}\nqizero: {ours}; oracle value {value}", self.context(ply)));
                continue;
            }
            if !agrees {
                let ours = rec.outcome.map_or_else(|| "game goes on".to_string(), |o| o.to_string());
                let legend = "legal moves, optional end, value for the side to move, result, insufficient red/black";
                return Err(format!("{}\nqizero: {ours}; oracle: '{reply}' ({legend})", self.context(ply)));
            }
        }
        Ok(chase_difference)
    }
}

#[test]
fn random_games_agree_with_fairy_stockfish() {
    let hint = "scripts/test installs both (pip install pyffish; apt-get install fairy-stockfish).";
    let Some(mut oracle) = oracle_or_skip("xiangqi_oracle.py", hint) else {
        return;
    };
    let games: usize = std::env::var("QIZERO_ORACLE_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_GAMES);
    // Mostly the start position; every tenth game from a perft-suite position for variety.
    let suite: Vec<String> = read_perft_suite("xiangqi.perft").into_iter().map(|c| c.fen).collect();
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut endings: HashMap<String, usize> = HashMap::new();
    let mut plies = 0;
    for g in 0..games {
        let start = if g % 10 == 9 { suite[(g / 10) % suite.len()].as_str() } else { START_FEN };
        let played = play_game(start, |g| random_move(g, &mut rng));
        let (requests, replies) = played.requests();
        let answers = oracle.ask(&requests, replies);
        match played.compare(&answers) {
            Err(e) => panic!("game {g} (seed {SEED:#x}) disagrees with Fairy-Stockfish:\n{e}"),
            Ok(Some(d)) => eprintln!("game {g}: chase rules differ (Pikafish's vs Fairy-Stockfish's):\n{d}"),
            Ok(None) => {}
        }
        plies += played.plies.len();
        count_ending(&mut endings, &played);
    }
    eprintln!("{games} games, {plies} plies, 0 mismatches against {}; endings: {}", oracle.banner, summary(endings));
}

fn count_ending(endings: &mut HashMap<String, usize>, played: &Played) {
    if let Some(o) = played.plies.last().and_then(|r| r.outcome) {
        let key = match o {
            Outcome::Win { reason, .. } => format!("{reason:?}"),
            Outcome::Draw(reason) => format!("draw by {reason:?}"),
        };
        *endings.entry(key).or_insert(0) += 1;
    }
}

fn summary(endings: HashMap<String, usize>) -> String {
    let mut v: Vec<_> = endings.into_iter().collect();
    v.sort();
    v.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", ")
}

/// Games steered into repetitions, so that perpetual check and perpetual chase are judged
/// often: each verdict (and every repeated position before it) is compared with the oracle's.
#[test]
fn repetition_verdicts_agree_with_fairy_stockfish() {
    let hint = "scripts/test installs both (pip install pyffish; apt-get install fairy-stockfish).";
    let Some(mut oracle) = oracle_or_skip("xiangqi_oracle.py", hint) else {
        return;
    };
    let games: usize =
        std::env::var("QIZERO_ORACLE_CYCLE_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_CYCLE_GAMES);
    let mut rng = StdRng::seed_from_u64(SEED ^ 0xc1c1e);
    let mut endings: HashMap<String, usize> = HashMap::new();
    let mut chase_differences = 0;
    for g in 0..games {
        let mut planner = CyclePlanner::new(rng.random_range(0..60));
        let played = play_game(START_FEN, |game| planner.choose(game, &mut rng));
        let (requests, replies) = played.requests();
        let answers = oracle.ask(&requests, replies);
        match played.compare(&answers) {
            Err(e) => panic!("cycle game {g} (seed {SEED:#x}) disagrees with Fairy-Stockfish:\n{e}"),
            Ok(Some(d)) => {
                chase_differences += 1;
                if chase_differences <= 3 {
                    eprintln!("cycle game {g}: chase rules differ (Pikafish's vs Fairy-Stockfish's):\n{d}");
                }
                continue;
            }
            Ok(None) => {}
        }
        count_ending(&mut endings, &played);
    }
    for reason in ["PerpetualCheck", "PerpetualChase", "draw by Repetition"] {
        assert!(endings.get(reason).is_some_and(|&n| n >= 10), "too few {reason} endings to judge: {endings:?}");
    }
    eprintln!(
        "{games} cycle games against {}: 0 mismatches; {chase_differences} chase verdicts differ by definition; \
         agreed endings: {}",
        oracle.banner,
        summary(endings)
    );
}
