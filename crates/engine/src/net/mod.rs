//! [`NetSearcher`]: the MCTS searcher with a net, behind `qizero uci --weights` and
//! `qizero hub --weights`, and behind the arena's MCTS agent. It plugs into the background
//! search like alpha-beta ([`Think`]), and [`Brain`] lets one server hold either.
//!
//! - **The search** is the `mcts` crate's PUCT search with no root noise, guided by an
//!   [`Evaluator`] (the net, loaded through a [`Loader`] so this crate links no net library).
//!   It runs in rounds of [`NetSettings::batch`] leaves; between rounds it checks the stop flag
//!   and the clock, and writes an `info` report about twice a second and once at the end.
//! - **Tree reuse**: when the new position continues the last one searched (the same start
//!   position, and the moves played since are a continuation of the old list), the subtree of
//!   the moves played in between is kept with all its visits. A node limit then counts the
//!   visits the root already holds, so reuse saves simulations ([`LastSearch::reused`]).
//! - **Limits** ([`Limits`]): `nodes` is the root's visit count to reach (reused visits
//!   included); `movetime` is spent minus [`NetSettings::move_overhead`]; a clock (`time_left`,
//!   `increment`, `moves_to_go`) is managed as [`TimeBudget`] says; `depth` stops once the mean
//!   depth of the tree reaches it; `infinite` runs until stopped. With no limit at all the
//!   search runs [`NetSettings::simulations`] visits. Any limit reached ends the search, and
//!   the tree never grows past [`MAX_VISITS`] visits (about a gigabyte in xiangqi).
//! - **Early stop** (time limits only): the search ends once the most visited move cannot be
//!   overtaken in the time left at the speed so far (Leela's smart pruning); node limits run
//!   exactly, so equal-simulation comparisons stay equal.
//! - **Reports**: `depth` is the mean depth of the tree's positions below the root, `seldepth`
//!   the deepest, `nodes` the root's visits, `nps` new visits per second, the PV the most
//!   visited line. The score comes from the best move's Q (the mean value, side to move's
//!   view, in [-1, 1]) as Leela maps it: `cp = 90 * tan(1.5637541897 * Q)`, so Q = 0.25 reads
//!   +37, Q = 0.5 +89 and Q = 0.9 +546; a root proven won or lost by the rules reads as a mate
//!   in the length of the line. The net has one value output (no win/draw/loss split), so no
//!   `wdl` is reported.
//! - **Move choice**: the most visited move (proven wins first, proven losses last, as the
//!   search decides), or with [`NetSettings::temperature`] above 0 a sample proportional to
//!   `N^(1/T)` for the first [`NetSettings::temperature_plies`] plies of the game, for variety
//!   in opening play. `searchmoves` restricts the choice (and the PV) to the listed moves.
//!
//! An evaluator that fails ends the search with the best move found so far; the error is kept
//! ([`NetSearcher::take_error`]) for callers that must not play on (the arena), and written to
//! standard error for a GUI's log.

use crate::background::Think;
use alphabeta::{Limits, MATE, Score, SearchGame, SearchInfo, SearchResult};
use game::Game;
use mcts::{EvalError, Evaluator, MctsParams, Proof, Search};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

mod options;

pub use options::{NET_OPTIONS, NetOption, OptionKind, net_option};

/// Loads a net for game `G` from a weights file, with this many CPU threads for it.
pub type Loader<G> = Arc<dyn Fn(&Path, usize) -> Result<Arc<dyn Evaluator<G>>, String> + Send + Sync>;

/// The most visits one search tree holds (every limit stops there).
pub const MAX_VISITS: u32 = 1_000_000;
/// Largest accepted leaves per evaluator call.
pub const MAX_BATCH: u32 = 256;
/// Largest accepted net thread count.
pub const MAX_NET_THREADS: usize = 64;
/// Largest accepted move overhead.
pub const MAX_MOVE_OVERHEAD_MS: u64 = 10_000;
/// Moves a clock is spread over when the protocol gives no `movestogo`.
pub const DEFAULT_MOVES_TO_GO: u32 = 25;
/// How often a running search reports.
const INFO_EVERY: Duration = Duration::from_millis(500);

/// The settings of a [`NetSearcher`], each a protocol option (UCI name / Hub name).
#[derive(Clone, Debug, PartialEq)]
pub struct NetSettings {
    /// `Simulations` / `simulations`: visits per move when `go` sets no limit. 1..=[`MAX_VISITS`];
    /// default 800.
    pub simulations: u32,
    /// `CPuct` / `c-puct`: PUCT's exploration constant. 0.01..=10; default 1.5 (as trained).
    pub c_puct: f32,
    /// `MinibatchSize` / `batch`: leaves gathered per evaluator call. 1..=[`MAX_BATCH`];
    /// default 8.
    pub batch: u32,
    /// `Threads` / `threads`: CPU threads of the net. 1..=[`MAX_NET_THREADS`]; default 1.
    pub threads: usize,
    /// `Temperature` / `temperature`: 0 plays the most visited move; above 0 samples with
    /// probability proportional to `N^(1/T)` (with `GumbelRoot`, Gumbel draws scaled by `T`:
    /// a sample from about `softmax((log P + sigma(Q)) / T)`). 0..=10; default 0.
    pub temperature: f32,
    /// `TempPlies` / `temp-plies`: the game plies (from the start of its history) the
    /// temperature applies to. 0..=10000; default 30.
    pub temperature_plies: u32,
    /// `TreeReuse` / `tree-reuse`: keep the subtree of the moves played since the last search.
    /// Default true.
    pub tree_reuse: bool,
    /// `GumbelRoot` / `gumbel-root`: for a search with a fixed number of simulations (`nodes`,
    /// or no limit), visit the root moves by Sequential Halving over the `gumbel_considered`
    /// moves of the highest priors and play the best survivor by `log P + sigma(Q)`, as the
    /// Gumbel root does in self-play but without the Gumbel draws (a greedy choice, or a
    /// sample while the temperature applies). Searches limited by time or depth stay PUCT.
    /// Default false.
    pub gumbel_root: bool,
    /// `GumbelConsidered` / `gumbel-considered`: with `GumbelRoot`, the moves of the highest
    /// priors that Sequential Halving starts from ([`MctsParams::gumbel_considered`]).
    /// 1..=256; default 16, as the nets are trained.
    pub gumbel_considered: u32,
    /// `ProveLeaves` / `prove-leaves`: look one move ahead at every new node and prove the
    /// ones where the side to move can mate ([`MctsParams::prove_leaves`]). Default false.
    pub prove_leaves: bool,
    /// `MoveOverhead` / `move-overhead`: time kept back from every timed move for the protocol
    /// and the GUI, in milliseconds. 0..=[`MAX_MOVE_OVERHEAD_MS`]; default 50.
    pub move_overhead: Duration,
}

impl Default for NetSettings {
    fn default() -> NetSettings {
        NetSettings {
            simulations: 800,
            c_puct: MctsParams::default().c_puct,
            batch: 8,
            threads: 1,
            temperature: 0.0,
            temperature_plies: 30,
            tree_reuse: true,
            gumbel_root: false,
            gumbel_considered: MctsParams::default().gumbel_considered,
            prove_leaves: false,
            move_overhead: Duration::from_millis(50),
        }
    }
}

impl NetSettings {
    /// The search parameters these settings give: the defaults the nets are trained and rated
    /// with, no root noise, with this exploration constant and batch.
    #[must_use]
    pub fn params(&self) -> MctsParams {
        MctsParams {
            c_puct: self.c_puct,
            leaves_per_batch: self.batch,
            dirichlet_epsilon: 0.0,
            temperature: 0.0,
            temperature_plies: 0,
            final_temperature: 0.0,
            prove_leaves: self.prove_leaves,
            gumbel_considered: self.gumbel_considered,
            ..MctsParams::default()
        }
    }
}

/// What the last search did, for reports and tests.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LastSearch {
    /// Root visits kept from earlier searches when it started.
    pub reused: u32,
    /// Simulations it ran.
    pub simulations: u32,
    /// Root visits at the end.
    pub visits: u32,
    /// It stopped early because the best move could not be overtaken.
    pub stopped_early: bool,
}

/// How long a timed search may run: `soft` is the share of the clock it aims to spend,
/// `hard` what it never exceeds.
///
/// From the time left `t` (less the move overhead), the increment `inc` and the moves to the
/// next control `m` ([`DEFAULT_MOVES_TO_GO`] when not given): `share = t / m + 3/4 inc`,
/// `hard = min(2 share, 2/5 t)` and `soft = min(share, hard)`. So a search never takes more than
/// two fifths of what is left, and a clock with an increment never runs down below a few moves'
/// worth.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    /// Aim: stop here when the best move is also the best valued.
    pub soft: Duration,
    /// Never search past this.
    pub hard: Duration,
}

impl TimeBudget {
    /// The budget for `limits` (`None` when they set no time), keeping `overhead` back.
    #[must_use]
    pub fn of(limits: &Limits, overhead: Duration) -> Option<TimeBudget> {
        let floor = Duration::from_millis(1);
        let clock = limits.time_left.map(|left| {
            let left = left.saturating_sub(overhead);
            let moves = limits.moves_to_go.unwrap_or(DEFAULT_MOVES_TO_GO).max(1);
            let share = left / moves + limits.increment * 3 / 4;
            let hard = (share * 2).min(left * 2 / 5).max(floor);
            TimeBudget { soft: share.min(hard).max(floor), hard }
        });
        let fixed = limits.movetime.map(|t| {
            let t = t.saturating_sub(overhead).max(floor);
            TimeBudget { soft: t, hard: t }
        });
        match (clock, fixed) {
            (Some(a), Some(b)) => Some(TimeBudget { soft: a.soft.min(b.soft), hard: a.hard.min(b.hard) }),
            (a, b) => a.or(b),
        }
    }
}

/// The MCTS searcher with a net. See the module docs.
pub struct NetSearcher<G: Game> {
    evaluator: Arc<dyn Evaluator<G>>,
    loader: Option<Loader<G>>,
    weights: Option<PathBuf>,
    settings: NetSettings,
    stop: Arc<AtomicBool>,
    tree: Option<Search<G>>,
    seed: u64,
    last: LastSearch,
    error: Option<EvalError>,
}

impl<G: Game> NetSearcher<G> {
    /// A searcher with the net in `weights`, loaded by `loader`.
    ///
    /// # Errors
    /// The loader's message (a missing or damaged file, a net for another game).
    pub fn load(weights: &Path, loader: Loader<G>, settings: NetSettings, seed: u64) -> Result<NetSearcher<G>, String> {
        let evaluator = loader(weights, settings.threads)?;
        let mut searcher = NetSearcher::with_evaluator(evaluator, settings, seed);
        searcher.loader = Some(loader);
        searcher.weights = Some(weights.to_path_buf());
        Ok(searcher)
    }

    /// A searcher guided by `evaluator` (which cannot be reloaded: the weights and threads
    /// options are then refused).
    #[must_use]
    pub fn with_evaluator(evaluator: Arc<dyn Evaluator<G>>, settings: NetSettings, seed: u64) -> NetSearcher<G> {
        NetSearcher {
            evaluator,
            loader: None,
            weights: None,
            settings,
            stop: Arc::new(AtomicBool::new(false)),
            tree: None,
            seed,
            last: LastSearch::default(),
            error: None,
        }
    }

    /// The settings.
    #[must_use]
    pub fn settings(&self) -> &NetSettings {
        &self.settings
    }

    /// The weights file, if the net came from one.
    #[must_use]
    pub fn weights(&self) -> Option<&Path> {
        self.weights.as_deref()
    }

    /// Changes the settings that need no reload (the search tree is dropped when the search
    /// parameters change).
    pub fn set(&mut self, change: impl FnOnce(&mut NetSettings)) {
        let threads = self.settings.threads;
        change(&mut self.settings);
        self.settings.threads = threads;
        if self.tree.as_ref().is_some_and(|t| *t.params() != self.settings.params()) {
            self.tree = None;
        }
    }

    /// Loads the net in `weights` (the old one stays if that fails) and forgets the tree.
    ///
    /// # Errors
    /// The loader's message, or that this searcher was built without a loader.
    pub fn set_weights(&mut self, weights: &Path) -> Result<(), String> {
        let loader = self.loader.clone().ok_or("this engine's net cannot be changed")?;
        self.evaluator = loader(weights, self.settings.threads)?;
        self.weights = Some(weights.to_path_buf());
        self.tree = None;
        Ok(())
    }

    /// Reloads the net with `threads` CPU threads.
    ///
    /// # Errors
    /// As [`NetSearcher::set_weights`].
    pub fn set_threads(&mut self, threads: usize) -> Result<(), String> {
        if threads == self.settings.threads {
            return Ok(());
        }
        let loader = self.loader.clone().ok_or("this engine's net threads cannot be changed")?;
        let weights = self.weights.clone().ok_or("this engine has no weights file to reload")?;
        self.evaluator = loader(&weights, threads)?;
        self.settings.threads = threads;
        self.tree = None;
        Ok(())
    }

    /// Forgets the search tree (a new game).
    pub fn clear(&mut self) {
        self.tree = None;
    }

    /// What the last search did.
    #[must_use]
    pub fn last(&self) -> LastSearch {
        self.last
    }

    /// The evaluator failure that ended the last search early, if any (taken: the next call
    /// returns `None`).
    pub fn take_error(&mut self) -> Option<EvalError> {
        self.error.take()
    }

    /// The tree for `game`: the kept one moved down the moves played since, when `game`
    /// continues it and reuse is on, else a fresh one.
    fn tree_for(&mut self, game: &G) -> Search<G> {
        let params = self.settings.params();
        if let Some(mut tree) = self.tree.take().filter(|t| self.settings.tree_reuse && *t.params() == params) {
            if let Some(moves) = continuation(tree.game(), game) {
                for mv in moves {
                    tree.advance(mv);
                }
                return tree;
            }
        }
        let seed = self.seed ^ (game.ply() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        Search::new(game.clone(), params, seed)
    }
}

/// The moves that lead from `old` to `new` when `new` continues `old`'s game: the same start
/// position, and `old`'s moves a prefix of `new`'s. `None` otherwise.
#[must_use]
pub fn continuation<G: Game>(old: &G, new: &G) -> Option<Vec<G::Move>> {
    let (before, after) = (old.moves_played(), new.moves_played());
    if after.len() < before.len() || after[..before.len()] != before[..] {
        return None;
    }
    let start = |g: &G| {
        let mut g = g.clone();
        while g.undo().is_some() {}
        g.fen()
    };
    (start(old) == start(new)).then(|| after[before.len()..].to_vec())
}

/// Leela's mapping of a value in [-1, 1] to centipawns: `90 * tan(1.5637541897 * q)`, kept
/// inside the range of non-mate scores.
#[must_use]
pub fn q_to_cp(q: f32) -> i32 {
    let cp = 90.0 * (1.563_754_2 * f64::from(q.clamp(-1.0, 1.0))).tan();
    let bound = f64::from(alphabeta::MATE_BOUND - 1);
    cp.clamp(-bound, bound).round() as i32
}

/// How the search stands against its limits after a round.
struct Progress {
    elapsed: Duration,
    visits: u32,
}

/// The limits of one search, resolved.
struct Plan {
    visits: Option<u32>,
    time: Option<TimeBudget>,
    depth: Option<u32>,
    infinite: bool,
    /// The root visits at which the depth limit is next checked: measuring the depth walks the
    /// tree, so it is checked each time the tree has grown by an eighth, not every round.
    depth_check_at: u32,
}

impl Plan {
    fn of(limits: &Limits, settings: &NetSettings) -> Plan {
        let visits = limits.nodes.map(|n| n.min(u64::from(MAX_VISITS)) as u32);
        let time = TimeBudget::of(limits, settings.move_overhead);
        let depth = limits.depth;
        let unlimited = visits.is_none() && time.is_none() && depth.is_none() && !limits.infinite;
        Plan {
            visits: if unlimited { Some(settings.simulations) } else { visits },
            time,
            depth,
            infinite: limits.infinite,
            depth_check_at: 0,
        }
    }

    /// How many visits the root may still get: up to the node limit, and never past
    /// [`MAX_VISITS`].
    fn visits_left(&self, p: &Progress) -> u32 {
        let cap = MAX_VISITS.saturating_sub(p.visits);
        self.visits.map_or(cap, |v| v.saturating_sub(p.visits).min(cap))
    }

    /// True when a limit is reached.
    fn done(&mut self, p: &Progress, search: &Search<impl Game>) -> bool {
        if self.visits_left(p) == 0 {
            return true;
        }
        if let Some(t) = self.time
            && !self.infinite
            && p.elapsed >= t.hard
        {
            return true;
        }
        if let Some(d) = self.depth
            && !self.infinite
            && p.visits >= self.depth_check_at
        {
            if search.depth_stats().0 >= f64::from(d) {
                return true;
            }
            self.depth_check_at = p.visits + (p.visits / 8).max(1);
        }
        false
    }
}

/// The two largest visit counts among the allowed root moves, and whether the most visited
/// also has the best Q.
fn leaders<M>(stats: &[mcts::MoveStats<M>], allowed: impl Fn(&M) -> bool) -> (u32, u32, bool) {
    let (mut first, mut second) = (None::<&mcts::MoveStats<M>>, 0u32);
    for s in stats.iter().filter(|s| allowed(&s.mv)) {
        match first {
            Some(f) if f.visits >= s.visits => second = second.max(s.visits),
            _ => {
                second = first.map_or(0, |f| f.visits);
                first = Some(s);
            }
        }
    }
    let Some(best) = first else { return (0, 0, true) };
    let q = best.q.unwrap_or(-1.0);
    let stable = stats.iter().filter(|s| allowed(&s.mv) && s.visits > 0).all(|s| s.q.unwrap_or(-1.0) <= q);
    (best.visits, second, stable)
}

impl<G: SearchGame> NetSearcher<G> {
    fn report(&self, search: &Search<G>, start: Instant, simulations: u32, allowed: &[u32]) -> SearchInfo<G::Move> {
        let (mean, max) = search.depth_stats();
        let pv = self.pv(search, allowed);
        let elapsed = start.elapsed();
        let visits = search.root_visit_count();
        let nps = if elapsed.is_zero() { 0 } else { (f64::from(simulations) / elapsed.as_secs_f64()) as u64 };
        SearchInfo {
            depth: (mean.round() as u32).max(1),
            seldepth: max.max(1),
            score: score(search, &pv),
            nodes: u64::from(visits),
            nps,
            time: elapsed,
            pv,
            hashfull: (u64::from(visits) * 1000 / u64::from(MAX_VISITS)) as u32,
        }
    }

    /// The most visited line, starting among the allowed moves.
    fn pv(&self, search: &Search<G>, allowed: &[u32]) -> Vec<G::Move> {
        if allowed.is_empty() {
            return search.principal_variation(64);
        }
        let line = search.principal_variation(64);
        if line.first().is_some_and(|m| allowed.contains(&G::move_id(m))) {
            return line;
        }
        let stats = search.root_stats();
        let best = stats.iter().filter(|s| allowed.contains(&G::move_id(&s.mv))).max_by_key(|s| s.visits).map(|s| s.mv);
        best.into_iter().collect()
    }

    /// Starts the Gumbel root plan of [`NetSettings::gumbel_root`] when it applies: a search of
    /// fixed simulations (no time, depth or infinite limit) with new simulations to run. With
    /// the temperature in force (see [`NetSearcher::choose`]) the plan keeps its Gumbel draws,
    /// scaled by the temperature, so the move is sampled; otherwise it draws nothing.
    fn start_gumbel(&self, search: &mut Search<G>, game: &G, plan: &Plan) {
        let fixed = plan.time.is_none() && plan.depth.is_none() && !plan.infinite;
        let new = plan.visits.map_or(0, |v| v.saturating_sub(search.root_visit_count()));
        if !self.settings.gumbel_root || !fixed || new == 0 {
            return;
        }
        let t = &self.settings;
        if t.temperature > 0.0 && (game.ply() as u64) < u64::from(t.temperature_plies) {
            search.start_gumbel_tempered(new, t.temperature);
        } else {
            search.start_gumbel_greedy(new);
        }
    }

    /// The move to play: the search's choice, or the most visited allowed move.
    fn choose(&self, search: &mut Search<G>, game: &G, allowed: &[u32]) -> Option<G::Move> {
        let t = &self.settings;
        let temperature = if (game.ply() as u64) < u64::from(t.temperature_plies) { t.temperature } else { 0.0 };
        let choice = search.choose_move(temperature);
        if allowed.is_empty() || choice.is_some_and(|m| allowed.contains(&G::move_id(&m))) {
            return choice.or_else(|| game.legal_moves().as_ref().first().copied());
        }
        let stats = search.root_stats();
        let allowed_stats = stats.iter().filter(|s| allowed.contains(&G::move_id(&s.mv)));
        allowed_stats.max_by_key(|s| (s.visits, s.proof == Proof::Win)).map(|s| s.mv).or(choice)
    }
}

/// The score of the root: a mate when the rules prove it (in the length of the line), else
/// the best move's Q mapped by [`q_to_cp`].
fn score<G: Game>(search: &Search<G>, pv: &[G::Move]) -> Score {
    let proof = search.root_proof();
    if matches!(proof, Proof::Win | Proof::Loss) {
        let mut end = search.game().clone();
        for &mv in pv {
            end.play_unchecked(mv);
        }
        if end.outcome().is_some() {
            let moves = (pv.len() as i32 + 1) / 2;
            return if proof == Proof::Win { Score::Mate(moves.max(1)) } else { Score::Mate(-moves) };
        }
        return Score::Cp(if proof == Proof::Win { MATE_BOUND_CP } else { -MATE_BOUND_CP });
    }
    let stats = search.root_stats();
    let best = pv.first().and_then(|m| stats.iter().find(|s| s.mv == *m));
    let q = best.and_then(|s| s.q).unwrap_or_else(|| search.root_value());
    Score::Cp(q_to_cp(q))
}

/// The largest centipawn score, for a proven result whose line does not reach the end.
const MATE_BOUND_CP: i32 = alphabeta::MATE_BOUND - 1;
const _: () = assert!(MATE_BOUND_CP < MATE);

impl<G: SearchGame> Think<G> for NetSearcher<G> {
    fn stop_handle(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    fn think(
        &mut self,
        game: &G,
        limits: &Limits,
        info: &mut dyn FnMut(&SearchInfo<G::Move>),
    ) -> SearchResult<G::Move> {
        let start = Instant::now();
        self.stop.store(false, Ordering::SeqCst);
        self.error = None;
        let mut search = self.tree_for(game);
        let reused = search.root_visit_count();
        let legal = game.legal_moves();
        // `searchmoves` naming no legal move counts as empty, as in alpha-beta.
        let allowed: Vec<u32> =
            legal.as_ref().iter().map(G::move_id).filter(|id| limits.searchmoves.contains(id)).collect();
        let mut plan = Plan::of(limits, &self.settings);
        self.start_gumbel(&mut search, game, &plan);
        let (mut simulations, mut last_info, mut stopped_early) = (0u32, start, false);
        let batch = self.settings.batch.max(1);
        while game.outcome().is_none() && !legal.as_ref().is_empty() && !self.stop.load(Ordering::SeqCst) {
            let progress = Progress { elapsed: start.elapsed(), visits: search.root_visit_count() };
            if plan.done(&progress, &search) || search.root_proof() != Proof::Unknown {
                break;
            }
            if let Some(t) = plan.time.filter(|_| !plan.infinite && simulations >= 2 * batch) {
                let stats = search.root_stats();
                let (first, second, stable) =
                    leaders(&stats, |m| allowed.is_empty() || allowed.contains(&G::move_id(m)));
                let rate = f64::from(simulations) / progress.elapsed.as_secs_f64().max(1e-6);
                let left = t.hard.saturating_sub(progress.elapsed).as_secs_f64() * rate;
                if f64::from(first - second) > left || (progress.elapsed >= t.soft && stable) {
                    stopped_early = progress.elapsed < t.hard;
                    break;
                }
            }
            let round = plan.visits_left(&progress).min(batch);
            match search.run(self.evaluator.as_ref(), round) {
                Ok(stats) => simulations += stats.simulations as u32,
                Err(error) => {
                    eprintln!("qizero: the net failed, playing the best move found so far: {error}");
                    self.error = Some(error);
                    break;
                }
            }
            if last_info.elapsed() >= INFO_EVERY {
                last_info = Instant::now();
                info(&self.report(&search, start, simulations, &allowed));
            }
        }
        let report = self.report(&search, start, simulations, &allowed);
        if simulations > 0 || reused > 0 {
            info(&report);
        }
        let best = self.choose(&mut search, game, &allowed);
        let mut pv = report.pv;
        if best.is_some() && pv.first() != best.as_ref() {
            pv = best.into_iter().collect();
        }
        self.last = LastSearch { reused, simulations, visits: search.root_visit_count(), stopped_early };
        if self.settings.tree_reuse {
            self.tree = Some(search);
        }
        SearchResult {
            best,
            score: report.score,
            raw_score: report.score.raw(),
            depth: report.depth,
            nodes: report.nodes,
            pv,
        }
    }
}

/// The searcher of a protocol server: alpha-beta, or MCTS with a net (boxed: it is large,
/// and there is one per server).
pub enum Brain<G: Game> {
    /// The alpha-beta engine.
    AlphaBeta(alphabeta::Searcher),
    /// MCTS with a net.
    Net(Box<NetSearcher<G>>),
}

impl<G: SearchGame> Think<G> for Brain<G> {
    fn stop_handle(&self) -> Arc<AtomicBool> {
        match self {
            Brain::AlphaBeta(s) => s.stop_handle(),
            Brain::Net(s) => s.stop_handle(),
        }
    }

    fn think(
        &mut self,
        game: &G,
        limits: &Limits,
        info: &mut dyn FnMut(&SearchInfo<G::Move>),
    ) -> SearchResult<G::Move> {
        match self {
            Brain::AlphaBeta(s) => Think::<G>::think(s, game, limits, info),
            Brain::Net(s) => s.think(game, limits, info),
        }
    }
}

impl<G: Game> Brain<G> {
    /// Resizes the alpha-beta table (the net searcher has none).
    pub fn set_hash(&mut self, mb: usize) {
        if let Brain::AlphaBeta(s) = self {
            s.set_hash(mb);
        }
    }

    /// Sets the alpha-beta thread count (the net's threads are a net option).
    pub fn set_threads(&mut self, threads: usize) {
        if let Brain::AlphaBeta(s) = self {
            s.set_threads(threads);
        }
    }

    /// Forgets what the searcher learnt about earlier positions (a new game).
    pub fn clear(&mut self) {
        match self {
            Brain::AlphaBeta(s) => s.clear(),
            Brain::Net(s) => s.clear(),
        }
    }
}

#[cfg(test)]
mod tests;
