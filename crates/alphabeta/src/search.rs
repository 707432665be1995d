//! The search: iterative deepening with aspiration windows over a principal-variation search.
//!
//! Per node, in order: the game's history rules (repetition, perpetual check and chase, draw
//! counts) through [`SearchGame::rule_outcome`]; mate-distance pruning; check extension; the
//! transposition table (cutoffs only outside the principal variation, bounds read exactly as
//! stored); razoring, reverse futility and null-move pruning (with a zugzwang guard, and only
//! where the game allows it); internal iterative deepening when a PV node has no hash move;
//! then the moves, ordered hash move, captures by most valuable victim / least valuable
//! attacker, two killers, history; late-move pruning and futility pruning of quiet moves near
//! the leaves; late-move reductions with a re-search. Leaves go to quiescence search:
//! captures (every evasion when in check, every capture when one is forced), stand-pat where
//! allowed, delta pruning.
//!
//! Mate scores are stored in the table relative to the node (`MATE - plies from here`) and
//! converted back on reading, so a mate found through a transposition keeps its true distance.
//!
//! Several threads (UCI `Threads`) search the same root independently and share the table
//! ("lazy SMP"); the main thread's result is the answer. [`Limits::searchmoves`] (UCI `go
//! searchmoves`) restricts the root moves of every thread. With one thread and a cleared table
//! the search is deterministic: `qizero bench alphabeta` relies on it.

use crate::tt::{Bound, Entry, TranspositionTable};
use crate::{MATE, MATE_BOUND, SearchGame};
use game::Outcome;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Deepest ply searched (quiescence included).
const MAX_PLY: usize = 128;
/// Size of the history table (move ids are hashed into it).
const HISTORY_SIZE: usize = 1 << 14;
/// Score bounds.
const INFINITE: i32 = MATE + 1;

/// When to stop searching. Any combination; with none set (and not `infinite`) the search
/// stops at depth 64.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Stop after this depth.
    pub depth: Option<u32>,
    /// Stop after about this many nodes.
    pub nodes: Option<u64>,
    /// Stop after this long.
    pub movetime: Option<Duration>,
    /// Time left on the clock of the side to move.
    pub time_left: Option<Duration>,
    /// Increment per move.
    pub increment: Duration,
    /// Moves until the next time control, if any.
    pub moves_to_go: Option<u32>,
    /// Search until stopped.
    pub infinite: bool,
    /// Search only these root moves (UCI `go searchmoves`), as [`SearchGame::move_id`]s of
    /// moves of the root position; every thread honours it. Empty (the default): every legal
    /// move. Ids naming no legal move are ignored, and a list naming no legal move at all counts
    /// as empty: the search then still returns a move, as [`Searcher::search`] promises, rather
    /// than none (a GUI's stale list should not make the engine resign or hang).
    pub searchmoves: Vec<u32>,
}

impl Limits {
    /// A fixed-depth limit.
    #[must_use]
    pub fn depth(depth: u32) -> Limits {
        Limits { depth: Some(depth), ..Limits::default() }
    }

    /// A fixed-time limit.
    #[must_use]
    pub fn movetime(time: Duration) -> Limits {
        Limits { movetime: Some(time), ..Limits::default() }
    }

    /// The time to spend on this move, if the limits set one: all of `movetime`, or a share of
    /// the clock (a thirtieth of what is left, or of it divided by the moves to go, plus most of
    /// the increment), never more than a third of the clock.
    #[must_use]
    pub fn time_budget(&self) -> Option<Duration> {
        let clock = self.time_left.map(|left| {
            let share = match self.moves_to_go {
                Some(n) if n > 0 => left / (n + 1),
                _ => left / 30,
            };
            let budget = share + self.increment.mul_f64(0.8);
            budget.min(left / 3).saturating_sub(Duration::from_millis(5))
        });
        match (self.movetime, clock) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// A score as engines report it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Hundredths of a unit piece, side to move's view.
    Cp(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl Score {
    /// Reads an internal score.
    #[must_use]
    pub fn from_raw(raw: i32) -> Score {
        if raw >= MATE_BOUND {
            Score::Mate((MATE - raw + 1) / 2)
        } else if raw <= -MATE_BOUND {
            Score::Mate(-(MATE + raw + 1) / 2)
        } else {
            Score::Cp(raw)
        }
    }

    /// The internal score this reads as ([`Score::from_raw`] undone): mates as `MATE` less the
    /// plies to the mate.
    #[must_use]
    pub fn raw(self) -> i32 {
        match self {
            Score::Cp(c) => c,
            Score::Mate(m) if m > 0 => MATE - (2 * m - 1),
            Score::Mate(m) => -MATE + 2 * -m,
        }
    }
}

impl std::fmt::Display for Score {
    /// UCI form: `cp 35` or `mate -3`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Cp(c) => write!(f, "cp {c}"),
            Score::Mate(m) => write!(f, "mate {m}"),
        }
    }
}

/// What the search reports after each completed depth.
#[derive(Clone, Debug)]
pub struct SearchInfo<M> {
    /// Depth completed.
    pub depth: u32,
    /// Deepest ply reached (quiescence included).
    pub seldepth: u32,
    /// Score of the best line.
    pub score: Score,
    /// Nodes searched so far, all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Time since the search started.
    pub time: Duration,
    /// The principal variation.
    pub pv: Vec<M>,
    /// Table fill, per mille.
    pub hashfull: u32,
}

/// The answer of a search.
#[derive(Clone, Debug)]
pub struct SearchResult<M> {
    /// The move to play; `None` if the side to move has no legal move.
    pub best: Option<M>,
    /// Its score.
    pub score: Score,
    /// Its score in internal units.
    pub raw_score: i32,
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Nodes searched, all threads.
    pub nodes: u64,
    /// The principal variation.
    pub pv: Vec<M>,
}

/// An alpha-beta searcher: the shared table, the stop flag and the settings. Reusable across
/// searches and games (call [`Searcher::clear`] between unrelated games).
pub struct Searcher {
    tt: Arc<TranspositionTable>,
    stop: Arc<AtomicBool>,
    threads: usize,
}

impl Searcher {
    /// A searcher with a table of `hash_mb` mebibytes and one thread.
    #[must_use]
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher { tt: Arc::new(TranspositionTable::new(hash_mb)), stop: Arc::new(AtomicBool::new(false)), threads: 1 }
    }

    /// Replaces the table with one of `hash_mb` mebibytes.
    pub fn set_hash(&mut self, hash_mb: usize) {
        self.tt = Arc::new(TranspositionTable::new(hash_mb));
    }

    /// Sets the number of search threads (at least one).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// Forgets everything learnt (the table).
    pub fn clear(&mut self) {
        self.tt.clear();
    }

    /// A flag that stops the running search when set (from another thread: UCI `stop`). The
    /// search clears it when it starts.
    #[must_use]
    pub fn stop_handle(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    /// Searches `game` within `limits`, calling `info` after each completed depth of the main
    /// thread. Always returns a legal move if there is one, even when stopped at once.
    pub fn search<G: SearchGame>(
        &mut self,
        game: &G,
        limits: &Limits,
        mut info: impl FnMut(&SearchInfo<G::Move>),
    ) -> SearchResult<G::Move> {
        self.stop.store(false, Ordering::Relaxed);
        self.tt.new_search();
        let start = Instant::now();
        let deadline = limits.time_budget().map(|t| start + t);
        let nodes = Arc::new(AtomicU64::new(0));
        let shared = Shared { tt: &self.tt, stop: &self.stop, nodes: &nodes, start, deadline, limits };
        let result = std::thread::scope(|s| {
            for t in 1..self.threads {
                let shared = shared.clone();
                let game = game.clone();
                s.spawn(move || {
                    let mut w = Worker::new(game, shared, t);
                    w.iterate(&mut |_| {});
                });
            }
            let mut main = Worker::new(game.clone(), shared.clone(), 0);
            let result = main.iterate(&mut info);
            self.stop.store(true, Ordering::Relaxed);
            result
        });
        SearchResult { nodes: nodes.load(Ordering::Relaxed), ..result }
    }
}

/// What all threads of one search share.
#[derive(Clone)]
struct Shared<'a> {
    tt: &'a TranspositionTable,
    stop: &'a AtomicBool,
    nodes: &'a AtomicU64,
    start: Instant,
    deadline: Option<Instant>,
    limits: &'a Limits,
}

/// One thread's search state.
struct Worker<'a, G: SearchGame> {
    game: G,
    shared: Shared<'a>,
    thread: usize,
    root_ply: usize,
    nodes: u64,
    /// Part of `nodes` already added to the shared count.
    flushed: u64,
    seldepth: usize,
    killers: [[u32; 2]; MAX_PLY + 1],
    history: Vec<i32>,
    pv: Vec<Vec<G::Move>>,
    /// Ordering keys per ply, reused so nodes do not allocate.
    keys: Vec<Vec<i64>>,
    aborted: bool,
}

fn history_index(id: u32) -> usize {
    (id as usize).wrapping_mul(0x9e37_79b9) >> 7 & (HISTORY_SIZE - 1)
}

/// A score for the side to move of a finished game.
fn outcome_score<G: SearchGame>(game: &G, outcome: Outcome, ply: usize) -> i32 {
    match outcome.winner() {
        None => 0,
        Some(w) if w == game.side_to_move() => MATE - ply as i32,
        Some(_) => -MATE + ply as i32,
    }
}

/// Mate scores are stored relative to the node, and read back relative to the root.
fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

impl<'a, G: SearchGame> Worker<'a, G> {
    fn new(game: G, shared: Shared<'a>, thread: usize) -> Worker<'a, G> {
        let root_ply = game.ply();
        Worker {
            game,
            shared,
            thread,
            root_ply,
            nodes: 0,
            flushed: 0,
            seldepth: 0,
            killers: [[0; 2]; MAX_PLY + 1],
            history: vec![0; HISTORY_SIZE],
            pv: vec![Vec::new(); MAX_PLY + 2],
            keys: vec![Vec::new(); MAX_PLY + 2],
            aborted: false,
        }
    }

    /// Checks the limits every 1,024 nodes; sets `aborted` when the search must stop.
    fn check_limits(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if self.nodes - self.flushed >= 1024 {
            let fresh = self.nodes - self.flushed;
            self.flushed = self.nodes;
            let total = self.shared.nodes.fetch_add(fresh, Ordering::Relaxed) + fresh;
            let over_nodes = self.shared.limits.nodes.is_some_and(|n| total >= n);
            let over_time = self.shared.deadline.is_some_and(|d| Instant::now() >= d);
            if over_nodes || over_time {
                self.shared.stop.store(true, Ordering::Relaxed);
            }
        }
        if self.shared.stop.load(Ordering::Relaxed) {
            self.aborted = true;
        }
        self.aborted
    }

    fn total_nodes(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed) + (self.nodes - self.flushed)
    }

    /// Iterative deepening; the main thread (`thread == 0`) reports and decides.
    fn iterate(&mut self, info: &mut dyn FnMut(&SearchInfo<G::Move>)) -> SearchResult<G::Move> {
        let mut legal = self.game.legal_moves();
        let allowed = root_moves::<G>(legal.as_mut(), &self.shared.limits.searchmoves);
        let first = legal.as_ref()[..allowed].first().copied();
        let mut result =
            SearchResult { best: first, score: Score::Cp(0), raw_score: 0, depth: 0, nodes: 0, pv: Vec::new() };
        if first.is_none() {
            return result;
        }
        let max_depth = self.shared.limits.depth.map_or(64, |d| d.clamp(1, 64)) as i32;
        let mut score = 0;
        // Helper threads start one ply deeper on odd threads, to spread the work.
        let mut depth = 1 + (self.thread % 2) as i32;
        while depth <= max_depth {
            self.seldepth = 0;
            let mut delta = 30;
            let (mut alpha, mut beta) = if depth >= 4 { (score - delta, score + delta) } else { (-INFINITE, INFINITE) };
            let iteration = loop {
                let s = self.search(depth, 0, alpha, beta, true);
                if self.aborted {
                    break None;
                }
                if s <= alpha {
                    alpha = (alpha - delta).max(-INFINITE);
                    beta = (alpha + beta) / 2;
                } else if s >= beta {
                    beta = (beta + delta).min(INFINITE);
                } else {
                    break Some(s);
                }
                delta *= 2;
            };
            let Some(s) = iteration else { break };
            score = s;
            if self.thread == 0 {
                let pv = self.pv[0].clone();
                result = SearchResult {
                    best: pv.first().copied().or(first),
                    score: Score::from_raw(s),
                    raw_score: s,
                    depth: depth as u32,
                    nodes: self.total_nodes(),
                    pv: pv.clone(),
                };
                let time = self.shared.start.elapsed();
                let nodes = self.total_nodes();
                info(&SearchInfo {
                    depth: depth as u32,
                    seldepth: self.seldepth as u32,
                    score: result.score,
                    nodes,
                    nps: (nodes as f64 / time.as_secs_f64().max(1e-6)) as u64,
                    time,
                    pv,
                    hashfull: self.shared.tt.hashfull(),
                });
                // A forced mate found is not improved by searching deeper.
                if s.abs() >= MATE_BOUND && MATE - s.abs() <= depth {
                    break;
                }
                // Starting a depth that cannot finish in time wastes it.
                if let Some(deadline) = self.shared.deadline {
                    let spent = self.shared.start.elapsed();
                    let left = deadline.saturating_duration_since(Instant::now());
                    if !self.shared.limits.infinite && self.shared.limits.movetime.is_none() && left < spent {
                        break;
                    }
                }
            }
            depth += 1;
        }
        if self.thread == 0 {
            // Wait for `stop` in infinite mode, as protocols require.
            while self.shared.limits.infinite && !self.shared.stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(2));
            }
            self.shared.stop.store(true, Ordering::Relaxed);
        }
        self.shared.nodes.fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
        self.flushed = self.nodes;
        result
    }

    /// Ordering keys for `moves`, into `keys`: hash move, captures (best victim first), killers,
    /// history.
    fn order_keys(&self, moves: &[G::Move], tt_move: u32, ply: usize, keys: &mut Vec<i64>) {
        let score = |mv: &G::Move| -> i64 {
            let id = G::move_id(mv);
            if id == tt_move && tt_move != 0 {
                1 << 40
            } else if self.game.is_capture(mv) {
                (1 << 32) + i64::from(self.game.capture_order(mv))
            } else if id == self.killers[ply][0] {
                (1 << 31) + 1
            } else if id == self.killers[ply][1] {
                1 << 31
            } else {
                i64::from(self.history[history_index(id)])
            }
        };
        keys.clear();
        keys.extend(moves.iter().map(score));
    }

    fn search(&mut self, mut depth: i32, ply: usize, mut alpha: i32, mut beta: i32, pv_node: bool) -> i32 {
        self.pv[ply].clear();
        if self.check_limits() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if ply > 0 {
            if let Some(outcome) = self.game.rule_outcome(self.root_ply) {
                return outcome_score(&self.game, outcome, ply);
            }
            // Mate-distance pruning: no line from here beats a mate already found nearer the root.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        if ply >= MAX_PLY {
            return self.game.evaluate();
        }
        let in_check = self.game.in_check();
        if in_check {
            depth += 1;
        }
        if depth <= 0 {
            return self.quiescence(ply, alpha, beta);
        }

        let key = self.game.key();
        let entry = self.shared.tt.probe(key);
        let tt_move = entry.map_or(0, |e| e.move_id);
        if let Some(e) = entry {
            let s = from_tt(e.score, ply);
            if !pv_node && e.depth >= depth {
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }

        let eval = if in_check { -INFINITE } else { self.game.evaluate() };
        if !pv_node && !in_check {
            // Razoring: hopeless positions near the leaves go straight to quiescence.
            if depth <= 2 && eval + 300 * depth < alpha {
                let q = self.quiescence(ply, alpha - 1, alpha);
                if q < alpha {
                    return q;
                }
            }
            // Reverse futility: comfortably above beta near the leaves.
            if depth <= 5 && eval - 90 * depth >= beta && eval.abs() < MATE_BOUND {
                return eval;
            }
            // Null move, guarded against zugzwang.
            if G::NULL_MOVE && depth >= 3 && eval >= beta && self.game.has_non_pawn_material() && ply > 0 {
                let r = 3 + depth / 6;
                self.game.play_null();
                let s = -self.search(depth - 1 - r, ply + 1, -beta, -beta + 1, false);
                self.game.undo();
                if self.aborted {
                    return 0;
                }
                if s >= beta {
                    return if s >= MATE_BOUND { beta } else { s };
                }
            }
        }

        // Internal iterative deepening: find a move to try first.
        let mut tt_move = tt_move;
        if pv_node && tt_move == 0 && depth >= 5 {
            self.search(depth - 2, ply, alpha, beta, true);
            if self.aborted {
                return 0;
            }
            tt_move = self.shared.tt.probe(key).map_or(0, |e| e.move_id);
        }

        let mut list = self.game.legal_moves();
        let mut moves = list.as_mut();
        if ply == 0 {
            // The root's table entry then holds the restricted search's result; as in Stockfish,
            // a later search of this position may read it (the root cannot recur within this
            // search: a repetition is judged by the history rules before the table is probed).
            let allowed = root_moves::<G>(moves, &self.shared.limits.searchmoves);
            moves = &mut moves[..allowed];
        }
        if moves.is_empty() {
            // No legal move loses, in both games (xiangqi stalemate included).
            return -MATE + ply as i32;
        }
        let mut keys = std::mem::take(&mut self.keys[ply]);
        self.order_keys(moves, tt_move, ply, &mut keys);

        let alpha_orig = alpha;
        let mut best = -INFINITE;
        let mut best_id = 0;
        let mut quiets_tried: Vec<u32> = Vec::new();
        for i in 0..moves.len() {
            pick_next(moves, &mut keys, i);
            let mv = &moves[i];
            let capture = self.game.is_capture(mv);
            let id = G::move_id(mv);
            let quiet = !capture;
            // Late-move pruning: enough quiet moves tried near the leaves.
            let late = depth <= 3 && i >= 4 + depth as usize * depth as usize * 2;
            if late && !pv_node && !in_check && quiet && best > -MATE_BOUND {
                continue;
            }
            self.game.play_unchecked(*mv);
            let gives_check = self.game.in_check();
            // Futility: a quiet, non-checking move cannot lift a hopeless eval near the leaves.
            let futile = depth <= 2 && eval + 150 * depth <= alpha;
            if futile && !pv_node && !in_check && quiet && !gives_check && i > 0 && best > -MATE_BOUND {
                self.game.undo();
                continue;
            }
            let new_depth = depth - 1;
            let score = if i == 0 {
                -self.search(new_depth, ply + 1, -beta, -alpha, pv_node)
            } else {
                let reduction = if depth >= 3 && i >= 3 && quiet && !in_check && !gives_check {
                    let r = 0.75 + (f64::from(depth)).ln() * (i as f64).ln() / 2.25;
                    (r as i32 - i32::from(pv_node)).clamp(0, new_depth - 1)
                } else {
                    0
                };
                let mut s = -self.search(new_depth - reduction, ply + 1, -alpha - 1, -alpha, false);
                if s > alpha && reduction > 0 {
                    s = -self.search(new_depth, ply + 1, -alpha - 1, -alpha, false);
                }
                if s > alpha && s < beta && pv_node {
                    s = -self.search(new_depth, ply + 1, -beta, -alpha, true);
                }
                s
            };
            self.game.undo();
            if self.aborted {
                self.keys[ply] = keys;
                return 0;
            }
            if quiet {
                quiets_tried.push(id);
            }
            if score > best {
                best = score;
                best_id = id;
                if score > alpha {
                    alpha = score;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(*mv);
                    head[ply].extend_from_slice(&tail[0]);
                    if alpha >= beta {
                        if quiet {
                            self.reward(id, depth, ply, &quiets_tried);
                        }
                        break;
                    }
                }
            }
        }
        self.keys[ply] = keys;
        if best == -INFINITE {
            // Every move was pruned (cannot happen at the first move); treat as a fail low.
            best = alpha;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.shared.tt.store(key, Entry { move_id: best_id, score: to_tt(best, ply), depth, bound });
        best
    }

    /// Killer and history updates after a quiet move `id` caused a cutoff; the quiet moves
    /// tried before it are penalised.
    fn reward(&mut self, id: u32, depth: i32, ply: usize, tried: &[u32]) {
        if self.killers[ply][0] != id {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = id;
        }
        let bonus = (depth * depth).min(400);
        for &t in tried {
            let h = &mut self.history[history_index(t)];
            let delta = if t == id { bonus } else { -bonus };
            // Gravity keeps values bounded.
            *h += delta - *h * delta.abs() / 16_384;
        }
    }

    fn quiescence(&mut self, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        self.pv[ply].clear();
        if self.check_limits() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY {
            return self.game.evaluate();
        }
        let (mut list, stand_pat_allowed) = self.game.quiescence_moves();
        let moves = list.as_mut();
        let mut best = -INFINITE;
        let stand_pat = if stand_pat_allowed { self.game.evaluate() } else { -INFINITE };
        if stand_pat_allowed {
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
        } else if moves.is_empty() {
            // Forced to move (in check) but nothing qualifies: only possible with no legal move.
            return if self.game.legal_moves().as_ref().is_empty() { -MATE + ply as i32 } else { self.game.evaluate() };
        }
        let mut keys = std::mem::take(&mut self.keys[ply]);
        self.order_keys(moves, 0, ply, &mut keys);
        for i in 0..moves.len() {
            pick_next(moves, &mut keys, i);
            let mv = &moves[i];
            // Delta pruning: even winning this victim outright cannot reach alpha.
            if stand_pat_allowed && stand_pat + self.game.capture_order(mv) / 16 + 200 < alpha {
                continue;
            }
            self.game.play_unchecked(*mv);
            let score = -self.quiescence(ply + 1, -beta, -alpha);
            self.game.undo();
            if self.aborted {
                self.keys[ply] = keys;
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.keys[ply] = keys;
        best
    }
}

/// Moves the root moves that `searchmoves` names ([`Limits::searchmoves`]) to the front of
/// `moves`, keeping their order, and returns how many there are. Leaves `moves` untouched and
/// returns its length when the list is empty or names none of them.
fn root_moves<G: SearchGame>(moves: &mut [G::Move], searchmoves: &[u32]) -> usize {
    if searchmoves.is_empty() {
        return moves.len();
    }
    let mut kept = 0;
    for i in 0..moves.len() {
        if searchmoves.contains(&G::move_id(&moves[i])) {
            moves.swap(kept, i);
            kept += 1;
        }
    }
    if kept == 0 { moves.len() } else { kept }
}

/// Moves the best-keyed of `moves[i..]` to position `i` (selection, one step at a time: a
/// cutoff after the first moves saves ordering the rest).
fn pick_next<M>(moves: &mut [M], keys: &mut [i64], i: usize) {
    let mut best = i;
    for j in i + 1..moves.len() {
        if keys[j] > keys[best] {
            best = j;
        }
    }
    moves.swap(i, best);
    keys.swap(i, best);
}

#[cfg(test)]
mod score_tests {
    use super::*;

    #[test]
    fn raw_undoes_from_raw() {
        for score in [Score::Cp(0), Score::Cp(-250), Score::Mate(1), Score::Mate(7), Score::Mate(0), Score::Mate(-3)] {
            assert_eq!(Score::from_raw(score.raw()), score, "{score:?}");
        }
        assert_eq!(Score::Mate(1).raw(), MATE - 1);
        assert_eq!(Score::Mate(-3).raw(), -MATE + 6);
    }
}
