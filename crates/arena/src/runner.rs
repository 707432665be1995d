//! The match runner: agent A against agent B over a set of openings, games in parallel.
//!
//! Game `i` (from 0) starts from opening `(i / 2) mod n`, A playing Red/White when `i` is even: each
//! opening is played twice with colours swapped. Every game gets fresh agent instances, built
//! from the specs with a seed derived from the match seed and the game number, so a game's
//! result does not depend on which thread played it or what it played before (with depth or
//! node limits the whole match is reproducible; time limits are not). An engine process thus
//! lives for one game: a crash or a hang costs that game and nothing more.
//!
//! Only the game layer ends a game ([`game::Game::outcome`]), plus two things outside the
//! rules: a game that reaches `max_plies` plies is a draw ([`DrawReason::Cap`]), and an agent
//! that fails to give a legal move (error, crash, timeout, garbage, illegal move) forfeits
//! ([`WinReason::Forfeit`]) with the reason recorded.
//!
//! On a clock ([`MatchConfig::clock`], see [`crate::clock`]) each move is timed from the call to
//! the agent to its answer, and a move that took longer than the mover's time left loses on time,
//! whatever the answer was: also a forfeit by the rules' reckoning, but recorded apart
//! ([`ForfeitKind::Time`], `Termination` "time forfeit: ...") from an agent's failure
//! ([`ForfeitKind::Error`], "forfeit: ..."), and counted apart ([`MatchResult::forfeits`]).
//!
//! A failed evaluator is not a forfeit: an MCTS agent whose net cannot evaluate
//! ([`AgentError::Evaluation`], see [`AgentError::is_fatal`]) would fail every game, and a
//! score of forfeits would rate a broken backend as a weak player. The match stops with
//! [`MatchError::Evaluation`]; the game in which it happened gets no result and no record,
//! the games finished before it keep theirs (and were reported to `on_game`).

use crate::ArenaGame;
use crate::agent::{Agent, AgentError};
use crate::clock::{Flagged, GameClocks, TimeControl};
use crate::elo::Score;
use crate::mcts_agent::{MctsAgent, NetSource, ReuseStats};
use crate::record::{GameRecord, today};
use crate::spec::{AgentKind, AgentSpec, SpecError};
use crate::{alphabeta_agent::AlphaBetaAgent, random::RandomAgent};
use game::{DrawReason, Outcome, Side, WinReason};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

/// How a match is run.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Games in all (default 2). Odd counts leave the last opening played once.
    pub games: usize,
    /// The number of the first game (default 0): a match played in parts continues the
    /// numbering (openings, colours, seeds, record names) where the previous part stopped.
    pub first_game: usize,
    /// Games played at the same time, each on its own thread (default 1).
    pub concurrency: usize,
    /// Time per move for agents whose spec sets no limit (default 100 ms); on a clock, only for
    /// agents that ignore it.
    pub movetime: Duration,
    /// The clock both agents play on (default `None`: no clock, each move at the agent's limits
    /// or `movetime`).
    pub clock: Option<TimeControl>,
    /// A game reaching this many plies is adjudicated a draw (default 400).
    pub max_plies: usize,
    /// Seed for every random choice (default 1).
    pub seed: u64,
    /// Where to write one record per game (`None`: nowhere).
    pub out_dir: Option<PathBuf>,
    /// `Event` tag of the records.
    pub event: String,
}

impl Default for MatchConfig {
    fn default() -> MatchConfig {
        MatchConfig {
            games: 2,
            first_game: 0,
            concurrency: 1,
            movetime: Duration::from_millis(100),
            clock: None,
            max_plies: 400,
            seed: 1,
            out_dir: None,
            event: "qizero match".to_string(),
        }
    }
}

/// One finished game of a match.
#[derive(Clone, Debug)]
pub struct GameResult {
    /// The game's number in the match, from 0.
    pub index: usize,
    /// Which opening it started from (index into the openings given).
    pub opening: usize,
    /// The side A played.
    pub a_side: Side,
    /// How it ended.
    pub outcome: Outcome,
    /// Why a side lost outside the rules (on time, or its agent failed), if one did.
    pub forfeit: Option<Forfeit>,
    /// Plies played from the opening position.
    pub plies: usize,
    /// The record (also written to the output directory, if any).
    pub record: GameRecord,
    /// A's and B's search counts in this game (MCTS agents: simulations run and reused).
    pub searched: [Option<ReuseStats>; 2],
}

impl GameResult {
    /// A's points: 1, 0.5 or 0.
    #[must_use]
    pub fn points_for_a(&self) -> f64 {
        f64::from(self.outcome.value_for(self.a_side) + 1.0) / 2.0
    }
}

/// How a side lost outside the rules.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ForfeitKind {
    /// Its agent gave no legal move: it could not start, crashed, hung, sent garbage or an
    /// illegal move.
    Error,
    /// Its move took longer than its time left.
    Time,
}

impl ForfeitKind {
    /// How the record's `Termination` tag and comment name it: `forfeit`, `time forfeit`.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            ForfeitKind::Error => "forfeit",
            ForfeitKind::Time => "time forfeit",
        }
    }
}

/// Why a side forfeited a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forfeit {
    /// On time, or its agent failed.
    pub kind: ForfeitKind,
    /// In words, naming the side and its agent: `Black (Fake hang): engine ... sent no
    /// 'bestmove' within 400 ms`, `Red (alphabeta): took 1203 ms with 1000 ms left`.
    pub reason: String,
}

impl fmt::Display for Forfeit {
    /// `forfeit: REASON` or `time forfeit: REASON`, as the record writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.label(), self.reason)
    }
}

/// A finished match.
#[derive(Clone, Debug)]
pub struct MatchResult {
    /// A's wins, draws and losses.
    pub score: Score,
    /// Every game, by number.
    pub games: Vec<GameResult>,
}

impl MatchResult {
    /// The games each agent forfeited, on time and otherwise.
    #[must_use]
    pub fn forfeits(&self) -> Forfeits {
        let mut forfeits = Forfeits::default();
        for game in &self.games {
            let (Some(forfeit), Some(winner)) = (&game.forfeit, game.outcome.winner()) else { continue };
            // The loser: 0 for A, 1 for B.
            let loser = usize::from(winner == game.a_side);
            match forfeit.kind {
                ForfeitKind::Time => forfeits.time[loser] += 1,
                ForfeitKind::Error => forfeits.error[loser] += 1,
            }
        }
        forfeits
    }

    /// A's and B's search counts summed over the games, for agents that keep them (MCTS: the
    /// simulations run, and the root visits tree reuse saved).
    #[must_use]
    pub fn searched(&self) -> [Option<ReuseStats>; 2] {
        [0, 1].map(|i| {
            self.games.iter().filter_map(|g| g.searched[i]).reduce(|a, b| ReuseStats {
                moves: a.moves + b.moves,
                simulations: a.simulations + b.simulations,
                reused: a.reused + b.reused,
            })
        })
    }
}

/// The games of a match each agent forfeited (index 0: A, 1: B).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Forfeits {
    /// Lost on time ([`ForfeitKind::Time`]).
    pub time: [usize; 2],
    /// Lost because the agent failed ([`ForfeitKind::Error`]: a protocol error, a crash, a
    /// hang past its timeout, an illegal move, an agent that could not start).
    pub error: [usize; 2],
}

impl fmt::Display for Forfeits {
    /// `time losses: A 0, B 1; error forfeits: A 0, B 0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "time losses: A {}, B {}; error forfeits: A {}, B {}",
            self.time[0], self.time[1], self.error[0], self.error[1]
        )
    }
}

/// Why a match could not be played.
#[derive(Debug)]
pub enum MatchError {
    /// An agent does not play this game.
    Spec {
        /// `A` or `B`.
        which: &'static str,
        /// Why.
        source: SpecError,
    },
    /// An agent could not be started before the first game.
    Agent {
        /// `A` or `B`.
        which: &'static str,
        /// Why.
        source: AgentError,
    },
    /// An agent's evaluator failed during a game (a net's forward pass, a device copy, a
    /// stopped inference service): the match stopped without scoring that game.
    Evaluation {
        /// The game's number, from 1 (as in its record's name).
        game: usize,
        /// `A` or `B`.
        which: &'static str,
        /// The agent's error, naming the cause.
        source: AgentError,
    },
    /// No openings were given.
    NoOpenings,
    /// A record could not be written.
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatchError::Spec { which, source } => write!(f, "agent {which}: {source}"),
            MatchError::Agent { which, source } => write!(f, "agent {which}: {source}"),
            MatchError::Evaluation { game, which, source } => {
                write!(f, "game {game}, agent {which}: {source}; the match is stopped")
            }
            MatchError::NoOpenings => write!(f, "no openings to play"),
            MatchError::Write { path, source } => write!(f, "cannot write {}: {source}", path.display()),
        }
    }
}

/// Each cause is part of the message, so `source` gives nothing more.
impl std::error::Error for MatchError {}

/// Builds the agent a spec describes, for game `G`; `movetime` is the time per move when the
/// spec sets no limit, `seed` drives its random choices, `nets` gives MCTS agents the
/// evaluator of the checkpoint they name.
///
/// # Errors
/// An engine or a checkpoint that cannot be started or loaded, or a spec for the other game's
/// protocol.
pub fn build_agent<G: ArenaGame>(
    spec: &AgentSpec,
    movetime: Duration,
    seed: u64,
    nets: &dyn NetSource<G>,
) -> Result<Box<dyn Agent<G>>, AgentError> {
    match &spec.kind {
        AgentKind::Random { seed: extra } => Ok(Box::new(RandomAgent::new(mix(seed ^ mix(*extra))))),
        AgentKind::AlphaBeta(ab) => Ok(Box::new(AlphaBetaAgent::<G>::new(&spec.text, ab, movetime, seed))),
        AgentKind::Mcts(m) => Ok(Box::new(MctsAgent::<G>::new(&spec.text, m, nets, seed)?)),
        AgentKind::Uci(_) | AgentKind::Hub(_) => G::engine_agent(spec, movetime),
    }
}

/// SplitMix64's finaliser: spreads a seed over all bits.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The seed of agent `slot` (0 = A, 1 = B) in game `index`.
fn agent_seed(match_seed: u64, index: usize, slot: u64) -> u64 {
    mix(match_seed ^ mix(index as u64 * 2 + slot))
}

/// How a game ended, in words, for the `Termination` tag.
#[must_use]
pub fn termination(outcome: Outcome, forfeit: Option<&Forfeit>, max_plies: usize) -> String {
    match outcome {
        Outcome::Win { reason, .. } => match reason {
            WinReason::Checkmate => "checkmate".to_string(),
            WinReason::Stalemate => "stalemate (no legal move)".to_string(),
            WinReason::NoMoves => "no legal move".to_string(),
            WinReason::PerpetualCheck => "perpetual check".to_string(),
            WinReason::PerpetualChase => "perpetual chase".to_string(),
            WinReason::Resignation => "resignation".to_string(),
            WinReason::Forfeit => forfeit.map_or_else(|| "forfeit: no reason given".to_string(), Forfeit::to_string),
            WinReason::Adjudication => "adjudication".to_string(),
        },
        Outcome::Draw(reason) => match reason {
            DrawReason::Repetition => "draw by repetition".to_string(),
            DrawReason::MoveRule => "draw by the move-count rule".to_string(),
            DrawReason::InsufficientMaterial => "draw by insufficient material".to_string(),
            DrawReason::KingMoves => "draw by the 25-move king rule".to_string(),
            DrawReason::Endgame => "draw by the endgame rule".to_string(),
            DrawReason::Adjudication => "draw by adjudication".to_string(),
            DrawReason::Cap => format!("draw by the game length cap ({max_plies} plies)"),
        },
    }
}

/// A game as played, before it becomes a record.
struct Played {
    outcome: Outcome,
    forfeit: Option<Forfeit>,
    moves: Vec<String>,
    names: [String; 2],
    /// Each colour's search counts, for agents that keep them.
    searched: [Option<ReuseStats>; 2],
}

/// Why a game has no result.
enum Unfinished {
    /// A fatal agent error ([`AgentError::is_fatal`]): the side whose agent failed, and why.
    Fatal(Side, AgentError),
    /// The match's stop flag was raised: the game was abandoned between two moves.
    Stopped,
}

/// Plays one game from `start` between `agents`, by colour (`Side::First`'s agent first; an
/// agent that could not be built forfeits at once), on `clock` if given, until it ends or
/// `stop` is raised.
///
/// # Errors
/// [`Unfinished`]: the game has no result.
fn play_game<G: ArenaGame>(
    start: &G,
    mut agents: [Result<Box<dyn Agent<G>>, AgentError>; 2],
    specs: [&str; 2],
    max_plies: usize,
    clock: Option<&TimeControl>,
    stop: &AtomicBool,
) -> Result<Played, Unfinished> {
    let names = [0, 1].map(|i| agents[i].as_ref().map_or_else(|_| specs[i].to_string(), |a| a.name()));
    let lose = |side: Side, kind: ForfeitKind, why: String| {
        let reason = format!("{} ({}): {why}", G::SIDE_NAMES[side.index()], names[side.index()]);
        (Outcome::Win { winner: !side, reason: WinReason::Forfeit }, Some(Forfeit { kind, reason }))
    };
    let forfeit = |side: Side, error: &AgentError| lose(side, ForfeitKind::Error, error.to_string());
    let flagged = |side: Side, Flagged { took, left }: Flagged| {
        let why = format!("took {} ms with {} ms left", took.as_millis(), left.as_millis());
        lose(side, ForfeitKind::Time, why)
    };
    let mut clocks = clock.map(GameClocks::new);
    let mut game = start.clone();
    let mut moves = Vec::new();
    let mut end = None;
    for side in Side::BOTH {
        let failure = match &mut agents[side.index()] {
            Ok(agent) => agent.new_game().err(),
            Err(e) => {
                end = Some(forfeit(side, e));
                break;
            }
        };
        if let Some(e) = failure {
            if e.is_fatal() {
                return Err(Unfinished::Fatal(side, e));
            }
            end = Some(forfeit(side, &e));
            break;
        }
    }
    let (outcome, reason) = loop {
        if let Some(end) = end {
            break end;
        }
        if stop.load(Ordering::Relaxed) {
            return Err(Unfinished::Stopped);
        }
        if let Some(outcome) = game.outcome() {
            break (outcome, None);
        }
        if game.ply() - start.ply() >= max_plies {
            break (Outcome::Draw(DrawReason::Cap), None);
        }
        let side = game.side_to_move();
        let Ok(agent) = &mut agents[side.index()] else {
            unreachable!("an agent that failed to build forfeited before the first move");
        };
        let asked = Instant::now();
        let choice = match &clocks {
            Some(clocks) => agent.choose_timed(&game, &clocks.for_move(side)),
            None => agent.choose(&game),
        };
        let took = asked.elapsed();
        let choice = match choice {
            Err(e) if e.is_fatal() => return Err(Unfinished::Fatal(side, e)),
            choice => choice,
        };
        // The flag falls first: a move (or a failure) after the time is up is a loss on time.
        if let Some(Err(flag)) = clocks.as_mut().map(|c| c.charge(side, took)) {
            end = Some(flagged(side, flag));
            continue;
        }
        match choice {
            Ok(mv) if game.legal_moves().as_ref().contains(&mv) => {
                moves.push(game.record_move(mv));
                game.play_unchecked(mv);
            }
            Ok(mv) => {
                let e = AgentError::IllegalMove {
                    agent: names[side.index()].clone(),
                    text: format!("{mv:?}"),
                    reason: "not legal here".to_string(),
                };
                end = Some(forfeit(side, &e));
            }
            Err(e) => end = Some(forfeit(side, &e)),
        }
    };
    let searched = [0, 1].map(|i| agents[i].as_ref().ok().and_then(|a| a.search_counts()));
    Ok(Played { outcome, forfeit: reason, moves, names, searched })
}

/// Plays game number `index` of the match (see the module docs) and makes its record; `None`
/// if `stop` was raised before it ended.
///
/// # Errors
/// [`MatchError::Evaluation`] when an agent's evaluator failed.
#[allow(clippy::too_many_arguments)]
fn play_numbered<G: ArenaGame>(
    a: &AgentSpec,
    b: &AgentSpec,
    openings: &[G],
    config: &MatchConfig,
    nets: &dyn NetSource<G>,
    index: usize,
    date: &str,
    stop: &AtomicBool,
) -> Result<Option<GameResult>, MatchError> {
    let opening = (index / 2) % openings.len();
    let a_side = if index % 2 == 0 { Side::First } else { Side::Second };
    let start = &openings[opening];
    let build =
        |spec: &AgentSpec, slot| build_agent::<G>(spec, config.movetime, agent_seed(config.seed, index, slot), nets);
    let (agent_a, agent_b) = (build(a, 0), build(b, 1));
    // Agents by colour, as `play_game` wants them.
    let (agents, specs) = if a_side == Side::First {
        ([agent_a, agent_b], [a.text.as_str(), b.text.as_str()])
    } else {
        ([agent_b, agent_a], [b.text.as_str(), a.text.as_str()])
    };
    let played = match play_game(start, agents, specs, config.max_plies, config.clock.as_ref(), stop) {
        Ok(played) => played,
        Err(Unfinished::Stopped) => return Ok(None),
        Err(Unfinished::Fatal(side, source)) => {
            let which = if side == a_side { "A" } else { "B" };
            return Err(MatchError::Evaluation { game: index + 1, which, source });
        }
    };
    let fen = start.fen();
    let record = GameRecord {
        event: config.event.clone(),
        site: "qizero arena".to_string(),
        date: date.to_string(),
        round: index + 1,
        side_names: G::SIDE_NAMES,
        players: played.names,
        result: G::result_text(played.outcome.winner()).to_string(),
        first_to_move: start.side_to_move(),
        first_move_number: G::first_move_number(&fen),
        fen,
        termination: termination(played.outcome, played.forfeit.as_ref(), config.max_plies),
        extra_tags: G::extra_tags().iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect(),
        comment: played.forfeit.as_ref().map(Forfeit::to_string),
        moves: played.moves,
    };
    Ok(Some(GameResult {
        index,
        opening,
        a_side,
        outcome: played.outcome,
        forfeit: played.forfeit,
        plies: record.moves.len(),
        record,
        searched: if a_side == Side::First { played.searched } else { [played.searched[1], played.searched[0]] },
    }))
}

/// Writes a record through [`durable::write_atomic`], so a reader never sees half of one.
fn write_atomically(path: &Path, text: &str) -> Result<(), MatchError> {
    durable::write_atomic(path, text.as_bytes())
        .map_err(|e| MatchError::Write { path: path.to_path_buf(), source: e.source })
}

/// Plays a match of `config.games` games between A and B from `openings` (see the module docs),
/// MCTS agents taking their nets from `nets`, calling `on_game` with each finished game and the
/// running score (from A's view) as it comes in, and writing each game's record to
/// `config.out_dir` if set (`<game>-0001.pgn|pdn`).
///
/// `stop` ends the match at a safe point: no game starts after it is raised, and games under way
/// are abandoned between two moves. A stopped match returns `None`, so a caller never takes a
/// part of a match for the whole (records of games finished before the stop stay on disk; a
/// replayed match writes them again).
///
/// # Errors
/// A spec for the other game, an agent that cannot start before the first game, no openings, a
/// record that cannot be written, or an agent's evaluator that fails during a game
/// ([`MatchError::Evaluation`]). An error while games are played stops the match: no new game
/// starts, and games under way on other threads are finished but dropped.
pub fn run_match<G: ArenaGame>(
    a: &AgentSpec,
    b: &AgentSpec,
    openings: &[G],
    config: &MatchConfig,
    nets: &dyn NetSource<G>,
    stop: &AtomicBool,
    mut on_game: impl FnMut(&GameResult, &Score),
) -> Result<Option<MatchResult>, MatchError> {
    a.check_game(G::NAME).map_err(|source| MatchError::Spec { which: "A", source })?;
    b.check_game(G::NAME).map_err(|source| MatchError::Spec { which: "B", source })?;
    if openings.is_empty() {
        return Err(MatchError::NoOpenings);
    }
    // Start each agent once, so a missing engine or a bad option stops the match here rather
    // than forfeiting every game.
    for (which, spec) in [("A", a), ("B", b)] {
        build_agent::<G>(spec, config.movetime, 0, nets)
            .and_then(|mut agent| agent.new_game())
            .map_err(|source| MatchError::Agent { which, source })?;
    }
    if let Some(dir) = &config.out_dir {
        std::fs::create_dir_all(dir).map_err(|source| MatchError::Write { path: dir.clone(), source })?;
    }
    let date = today();
    let next = AtomicUsize::new(0);
    let abort = AtomicBool::new(false);
    let (tx, rx) = channel::<Result<GameResult, MatchError>>();
    let mut results = Vec::with_capacity(config.games);
    let mut score = Score::default();
    let mut failure = None;
    std::thread::scope(|s| {
        for _ in 0..config.concurrency.clamp(1, config.games.max(1)) {
            let tx = tx.clone();
            let (next, abort, date) = (&next, &abort, &date);
            s.spawn(move || {
                loop {
                    let index = config.first_game + next.fetch_add(1, Ordering::Relaxed);
                    let stopping = abort.load(Ordering::Relaxed) || stop.load(Ordering::Relaxed);
                    if index >= config.first_game + config.games || stopping {
                        break;
                    }
                    let result = match play_numbered(a, b, openings, config, nets, index, date, stop) {
                        Ok(Some(result)) => Ok(result),
                        // Stopped: the game is dropped, and so is the match.
                        Ok(None) => break,
                        Err(e) => {
                            // Stop this thread and the others before the next game starts.
                            abort.store(true, Ordering::Relaxed);
                            Err(e)
                        }
                    };
                    if tx.send(result).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for result in rx {
            // After a failure or a stop the match has no result: what is left is dropped.
            if failure.is_some() || stop.load(Ordering::Relaxed) {
                continue;
            }
            let result = match result {
                Ok(result) => result,
                Err(e) => {
                    failure = Some(e);
                    abort.store(true, Ordering::Relaxed);
                    continue;
                }
            };
            if let Some(dir) = &config.out_dir {
                let path = dir.join(format!("{}-{:04}.{}", G::NAME, result.index + 1, G::RECORD_EXTENSION));
                if let Err(e) = write_atomically(&path, &result.record.to_string()) {
                    failure = Some(e);
                    abort.store(true, Ordering::Relaxed);
                    continue;
                }
            }
            score.add(result.points_for_a());
            on_game(&result, &score);
            results.push(result);
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    if results.len() < config.games {
        // Stopped before every game was played: no result for the match.
        return Ok(None);
    }
    results.sort_by_key(|r| r.index);
    Ok(Some(MatchResult { score, games: results }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::MoveClock;
    use std::sync::{Arc, Mutex};

    /// Never raised: these games play to the end.
    static GO: AtomicBool = AtomicBool::new(false);

    /// One request to a [`Fake`]: who was asked, the clock it was shown (`None`: untimed) and
    /// how long it took by its own watch.
    #[derive(Clone, Debug)]
    struct Asked {
        side: Side,
        clock: Option<MoveClock>,
        took: Duration,
    }

    /// An agent that plays after thinking `think` (its `n`th move the `7n`th legal one, so that
    /// the games do not repeat), except on its move
    /// number `overstep` (from 1), where it thinks its whole time left and a little more, and
    /// then fails instead if `fail` is set. Every request goes to `log`.
    struct Fake {
        side: Side,
        think: Duration,
        overstep: Option<usize>,
        fail: bool,
        log: Arc<Mutex<Vec<Asked>>>,
    }

    impl Fake {
        fn new(side: Side, think_ms: u64, log: &Arc<Mutex<Vec<Asked>>>) -> Fake {
            Fake { side, think: Duration::from_millis(think_ms), overstep: None, fail: false, log: Arc::clone(log) }
        }

        fn play(&mut self, game: &xiangqi::Game, clock: Option<MoveClock>) -> Result<xiangqi::Move, AgentError> {
            let started = Instant::now();
            let mut log = self.log.lock().expect("log");
            let number = log.iter().filter(|a| a.side == self.side).count() + 1;
            let late = self.overstep == Some(number);
            let think = match clock {
                Some(c) if late => c.own.left + Duration::from_millis(30),
                _ => self.think,
            };
            std::thread::sleep(think);
            log.push(Asked { side: self.side, clock, took: started.elapsed() });
            if late && self.fail {
                return Err(AgentError::NoMove { agent: "fake".to_string() });
            }
            let moves = game.legal_moves();
            let moves = moves.as_ref();
            if moves.is_empty() {
                return Err(AgentError::NoMove { agent: "fake".to_string() });
            }
            Ok(moves[(7 * number) % moves.len()])
        }
    }

    impl Agent<xiangqi::Game> for Fake {
        fn name(&self) -> String {
            "fake".to_string()
        }

        fn new_game(&mut self) -> Result<(), AgentError> {
            Ok(())
        }

        fn choose(&mut self, game: &xiangqi::Game) -> Result<xiangqi::Move, AgentError> {
            self.play(game, None)
        }

        fn choose_timed(&mut self, game: &xiangqi::Game, clock: &MoveClock) -> Result<xiangqi::Move, AgentError> {
            self.play(game, Some(*clock))
        }
    }

    /// Plays `red` against `black` from the start position, `max_plies` at most, on `tc`.
    fn play(red: Fake, black: Fake, max_plies: usize, tc: Option<&str>) -> Played {
        let tc: Option<TimeControl> = tc.map(|t| t.parse().expect("a time control"));
        let agents: [Result<Box<dyn Agent<xiangqi::Game>>, AgentError>; 2] = [Ok(Box::new(red)), Ok(Box::new(black))];
        let played = play_game(&xiangqi::Game::new(), agents, ["red", "black"], max_plies, tc.as_ref(), &GO);
        played.unwrap_or_else(|_| panic!("the game has a result"))
    }

    fn log() -> Arc<Mutex<Vec<Asked>>> {
        Arc::new(Mutex::new(Vec::new()))
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn an_agent_slower_than_its_clock_loses_on_time() {
        let log = log();
        let played = play(Fake::new(Side::First, 150, &log), Fake::new(Side::Second, 0, &log), 20, Some("0.1+0.05"));
        assert_eq!(played.outcome, Outcome::Win { winner: Side::Second, reason: WinReason::Forfeit });
        let forfeit = played.forfeit.clone().expect("a reason");
        assert_eq!(forfeit.kind, ForfeitKind::Time);
        let took =
            forfeit.reason.strip_prefix("Red (fake): took ").and_then(|r| r.strip_suffix(" ms with 100 ms left"));
        let took: u64 = took.and_then(|t| t.parse().ok()).unwrap_or_else(|| panic!("{}", forfeit.reason));
        assert!(took >= 150, "{}", forfeit.reason);
        assert!(played.moves.is_empty(), "the late move is not played: {:?}", played.moves);
        let text = termination(played.outcome, played.forfeit.as_ref(), 20);
        assert_eq!(text, format!("time forfeit: {}", forfeit.reason));
    }

    #[test]
    fn the_flag_falls_on_the_move_that_oversteps_even_if_the_agent_fails() {
        for fail in [false, true] {
            let log = log();
            let mut black = Fake::new(Side::Second, 5, &log);
            (black.overstep, black.fail) = (Some(3), fail);
            let played = play(Fake::new(Side::First, 5, &log), black, 40, Some("1+0.01"));
            let forfeit = played.forfeit.expect("a reason");
            assert_eq!(played.outcome, Outcome::Win { winner: Side::First, reason: WinReason::Forfeit }, "{forfeit:?}");
            assert_eq!(forfeit.kind, ForfeitKind::Time, "{fail}: {}", forfeit.reason);
            assert!(forfeit.reason.starts_with("Black (fake): took "), "{}", forfeit.reason);
            // Red's three moves and Black's two: the third was too late to count.
            assert_eq!(played.moves.len(), 5, "{fail}");
        }
    }

    #[test]
    fn a_failure_in_time_is_an_error_forfeit() {
        let log = log();
        let mut black = Fake::new(Side::Second, 5, &log);
        (black.overstep, black.fail) = (Some(2), true);
        // Untimed, "overstepping" is an ordinary think, and the failure an ordinary forfeit.
        let played = play(Fake::new(Side::First, 0, &log), black, 40, None);
        let forfeit = played.forfeit.expect("a reason");
        assert_eq!(forfeit.kind, ForfeitKind::Error, "{}", forfeit.reason);
        assert_eq!(forfeit.reason, "Black (fake): 'fake' gave no move in a game that is not over");
        assert_eq!(played.moves.len(), 3);
    }

    #[test]
    fn clocks_count_down_by_the_time_taken_and_up_by_the_increment() {
        let log = log();
        let played = play(Fake::new(Side::First, 10, &log), Fake::new(Side::Second, 20, &log), 12, Some("1+1"));
        assert_eq!((played.outcome, played.forfeit), (Outcome::Draw(DrawReason::Cap), None));
        let asked = log.lock().expect("log").clone();
        assert_eq!(asked.len(), 12);
        let clocks: Vec<MoveClock> = asked.iter().map(|a| a.clock.expect("asked on the clock")).collect();
        let start = engine::go::Clock { left: ms(1000), increment: ms(1000) };
        assert_eq!((clocks[0].own, clocks[0].other, clocks[0].moves_to_go), (start, start, None));
        assert_eq!(clocks[1].own, start, "Black's clock does not run while Red thinks");
        for i in 0..asked.len() - 1 {
            assert_eq!(asked[i].side, !asked[i + 1].side);
            // What the mover saw of its opponent's clock is what the opponent sees next.
            assert_eq!(clocks[i].other, clocks[i + 1].own, "move {i}");
        }
        for i in 0..asked.len() - 2 {
            // The runner charged what the move took by its watch, from the call to the answer
            // (at least what the agent measured inside, and not much more), and gave the
            // increment back: without it the charge would look a whole second longer.
            let charged = clocks[i].own.left + ms(1000) - clocks[i + 2].own.left;
            assert!(charged >= asked[i].took, "move {i}: charged {charged:?}, took {:?}", asked[i].took);
            assert!(charged < asked[i].took + ms(500), "move {i}: charged {charged:?}, took {:?}", asked[i].took);
        }
    }

    #[test]
    fn without_a_clock_agents_are_asked_untimed_and_never_flagged() {
        let log = log();
        let played = play(Fake::new(Side::First, 30, &log), Fake::new(Side::Second, 0, &log), 6, None);
        assert_eq!((played.outcome, played.forfeit), (Outcome::Draw(DrawReason::Cap), None));
        assert!(log.lock().expect("log").iter().all(|a| a.clock.is_none()));
    }

    #[test]
    fn agents_that_ignore_the_clock_still_play_on_it() {
        let agents: [Result<Box<dyn Agent<xiangqi::Game>>, AgentError>; 2] =
            [Ok(Box::new(RandomAgent::new(1))), Ok(Box::new(RandomAgent::new(2)))];
        let tc: TimeControl = "5".parse().expect("a time control");
        let played = play_game(&xiangqi::Game::new(), agents, ["a", "b"], 30, Some(&tc), &GO)
            .unwrap_or_else(|_| panic!("the game has a result"));
        assert_eq!((played.outcome, played.forfeit, played.moves.len()), (Outcome::Draw(DrawReason::Cap), None, 30));
    }

    #[test]
    fn forfeits_are_counted_by_kind_and_agent() {
        let game = |a_side: Side, winner: Side, kind: Option<ForfeitKind>| {
            let reason = if kind.is_some() { WinReason::Forfeit } else { WinReason::Checkmate };
            let outcome = Outcome::Win { winner, reason };
            let forfeit = kind.map(|kind| Forfeit { kind, reason: "why".to_string() });
            let record = GameRecord {
                event: String::new(),
                site: String::new(),
                date: String::new(),
                round: 1,
                side_names: ["Red", "Black"],
                players: [String::new(), String::new()],
                result: String::new(),
                fen: String::new(),
                first_to_move: Side::First,
                first_move_number: 1,
                moves: Vec::new(),
                termination: String::new(),
                extra_tags: Vec::new(),
                comment: None,
            };
            GameResult { index: 0, opening: 0, a_side, outcome, forfeit, plies: 0, record, searched: [None, None] }
        };
        let result = MatchResult {
            score: Score::default(),
            games: vec![
                // B (Black) lost on time, twice; A lost on time once, as Black.
                game(Side::First, Side::First, Some(ForfeitKind::Time)),
                game(Side::Second, Side::Second, Some(ForfeitKind::Time)),
                game(Side::First, Side::Second, Some(ForfeitKind::Time)),
                // A crashed once; a checkmate is no forfeit.
                game(Side::Second, Side::First, Some(ForfeitKind::Error)),
                game(Side::First, Side::First, None),
            ],
        };
        let forfeits = result.forfeits();
        assert_eq!(forfeits, Forfeits { time: [1, 2], error: [1, 0] });
        assert_eq!(forfeits.to_string(), "time losses: A 1, B 2; error forfeits: A 1, B 0");
    }
}
