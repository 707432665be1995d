//! What self-play reports while it runs: [`Progress`], counters every worker adds to and any
//! thread may read (a progress display), [`Totals`], a snapshot of them, and [`ShardReport`],
//! what one shard holds, handed to an [`Observer`] as each shard is written (a line of
//! `metrics.jsonl`).
//!
//! Results are counted from the first player's view (Red in xiangqi, White in draughts).
//! The false-resign rate is measured on the games played with resignation off: of those where
//! some side would have resigned, the share that this side went on to win or draw.

use game::{DrawReason, Outcome, Side, WinReason};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// Counters of one self-play run, shared by its workers. All counts only grow.
#[derive(Debug, Default)]
pub struct Progress {
    games: AtomicU64,
    first_wins: AtomicU64,
    draws: AtomicU64,
    second_wins: AtomicU64,
    resigned: AtomicU64,
    capped: AtomicU64,
    repetitions: AtomicU64,
    no_resign_games: AtomicU64,
    would_resign: AtomicU64,
    false_resigns: AtomicU64,
    moves: AtomicU64,
    samples: AtomicU64,
    simulations: AtomicU64,
    evaluator_calls: AtomicU64,
    positions_evaluated: AtomicU64,
    shards: AtomicU64,
    opponent_games: AtomicU64,
    opponent_net_wins: AtomicU64,
    opponent_draws: AtomicU64,
}

/// A snapshot of [`Progress`] (or the counts of one shard, in [`ShardReport`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Games finished.
    pub games: u64,
    /// Games the first player won.
    pub first_wins: u64,
    /// Games drawn (the ply cap included).
    pub draws: u64,
    /// Games the second player won.
    pub second_wins: u64,
    /// Games ended by resignation.
    pub resigned: u64,
    /// Games stopped at `max_plies` (counted as draws too).
    pub capped: u64,
    /// Games drawn by repetition (counted as draws too): the share to watch when self-play
    /// drifts into shuffling.
    pub repetitions: u64,
    /// Games played with resignation off.
    pub no_resign_games: u64,
    /// Of those, games where some side would have resigned.
    pub would_resign: u64,
    /// Of those, games the would-be resigner won or drew: false resignations.
    pub false_resigns: u64,
    /// Moves played (positions searched), cheap searches included.
    pub moves: u64,
    /// Training samples recorded (moves searched in full).
    pub samples: u64,
    /// Simulations run.
    pub simulations: u64,
    /// Evaluator calls (search rounds) made by the workers.
    pub evaluator_calls: u64,
    /// Positions sent to the evaluator.
    pub positions_evaluated: u64,
    /// Shards written.
    pub shards: u64,
    /// Games played against the fixed opponent (`opponent_games`), counted in the results above
    /// too.
    pub opponent_games: u64,
    /// Of those, games the net won.
    pub opponent_net_wins: u64,
    /// Of those, games drawn.
    pub opponent_draws: u64,
}

impl Totals {
    /// False resignations per game where resignation would have triggered (with resignation
    /// off); `None` before there is any such game.
    #[must_use]
    pub fn false_resign_rate(&self) -> Option<f64> {
        (self.would_resign > 0).then(|| self.false_resigns as f64 / self.would_resign as f64)
    }

    /// Positions per evaluator call, as the workers made them (0 without calls). A batching
    /// service may merge several of these into one forward pass.
    #[must_use]
    pub fn mean_batch(&self) -> f64 {
        if self.evaluator_calls == 0 { 0.0 } else { self.positions_evaluated as f64 / self.evaluator_calls as f64 }
    }

    /// Counts one finished game: its result, its moves and its samples.
    pub(crate) fn add_game(&mut self, game: &GameResult) {
        self.add_result(game);
        self.moves += game.moves;
        self.samples += game.samples;
    }

    /// Counts one finished game's result only (moves and samples are counted as they happen).
    pub(crate) fn add_result(&mut self, game: &GameResult) {
        self.games += 1;
        match game.outcome.winner() {
            Some(Side::First) => self.first_wins += 1,
            Some(Side::Second) => self.second_wins += 1,
            None => self.draws += 1,
        }
        self.resigned += u64::from(matches!(game.outcome, Outcome::Win { reason: WinReason::Resignation, .. }));
        self.capped += u64::from(game.outcome == Outcome::Draw(DrawReason::Cap));
        self.repetitions += u64::from(game.outcome == Outcome::Draw(DrawReason::Repetition));
        self.no_resign_games += u64::from(!game.resign_enabled);
        if let Some(side) = game.would_resign {
            self.would_resign += 1;
            self.false_resigns += u64::from(game.outcome.winner() != Some(side.opponent()));
        }
        if let Some(opponent) = game.opponent {
            self.opponent_games += 1;
            self.opponent_net_wins += u64::from(game.outcome.winner() == Some(opponent.opponent()));
            self.opponent_draws += u64::from(game.outcome.winner().is_none());
        }
    }

    /// The net's wins, draws and losses against the fixed opponent.
    #[must_use]
    pub fn opponent_record(&self) -> (u64, u64, u64) {
        let (w, d) = (self.opponent_net_wins, self.opponent_draws);
        (w, d, self.opponent_games.saturating_sub(w + d))
    }
}

/// How one game went, for the counters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GameResult {
    pub outcome: Outcome,
    pub resign_enabled: bool,
    pub would_resign: Option<Side>,
    pub moves: u64,
    pub samples: u64,
    /// The side the fixed opponent played, in a game against it.
    pub opponent: Option<Side>,
}

impl Progress {
    /// Fresh counters.
    #[must_use]
    pub fn new() -> Progress {
        Progress::default()
    }

    /// The counters now. Each is read on its own, so a snapshot taken while workers run may mix
    /// counts from slightly different moments.
    #[must_use]
    pub fn snapshot(&self) -> Totals {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        Totals {
            games: get(&self.games),
            first_wins: get(&self.first_wins),
            draws: get(&self.draws),
            second_wins: get(&self.second_wins),
            resigned: get(&self.resigned),
            capped: get(&self.capped),
            repetitions: get(&self.repetitions),
            no_resign_games: get(&self.no_resign_games),
            would_resign: get(&self.would_resign),
            false_resigns: get(&self.false_resigns),
            moves: get(&self.moves),
            samples: get(&self.samples),
            simulations: get(&self.simulations),
            evaluator_calls: get(&self.evaluator_calls),
            positions_evaluated: get(&self.positions_evaluated),
            shards: get(&self.shards),
            opponent_games: get(&self.opponent_games),
            opponent_net_wins: get(&self.opponent_net_wins),
            opponent_draws: get(&self.opponent_draws),
        }
    }

    /// Adds `t` to the counters.
    pub(crate) fn add(&self, t: &Totals) {
        let add = |c: &AtomicU64, v: u64| {
            if v != 0 {
                c.fetch_add(v, Ordering::Relaxed);
            }
        };
        add(&self.games, t.games);
        add(&self.first_wins, t.first_wins);
        add(&self.draws, t.draws);
        add(&self.second_wins, t.second_wins);
        add(&self.resigned, t.resigned);
        add(&self.capped, t.capped);
        add(&self.repetitions, t.repetitions);
        add(&self.no_resign_games, t.no_resign_games);
        add(&self.would_resign, t.would_resign);
        add(&self.false_resigns, t.false_resigns);
        add(&self.moves, t.moves);
        add(&self.samples, t.samples);
        add(&self.simulations, t.simulations);
        add(&self.evaluator_calls, t.evaluator_calls);
        add(&self.positions_evaluated, t.positions_evaluated);
        add(&self.shards, t.shards);
        add(&self.opponent_games, t.opponent_games);
        add(&self.opponent_net_wins, t.opponent_net_wins);
        add(&self.opponent_draws, t.opponent_draws);
    }
}

/// One shard as written: where, by whom, with which model, and what is in it.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardReport {
    /// The worker's index in its process (0-based).
    pub worker: usize,
    /// The worker id written into the shard header.
    pub worker_id: String,
    /// The shard file.
    pub path: PathBuf,
    /// The model id in the shard header: the model current when it was written.
    pub model_id: String,
    /// Counts over the games of this shard; the search counts (simulations, evaluator calls,
    /// positions evaluated) are the worker's since its previous shard.
    pub totals: Totals,
    /// Moves the worker played since its previous shard (or its start), in any game: its
    /// throughput, unlike `totals.moves`, which counts the moves of this shard's games (played
    /// over a longer time, since games overlap).
    pub moves_played: u64,
    /// Seconds since the worker's previous shard (or its start).
    pub seconds: f64,
}

impl ShardReport {
    /// Moves played per second by this worker since its previous shard.
    #[must_use]
    pub fn moves_per_second(&self) -> f64 {
        if self.seconds > 0.0 { self.moves_played as f64 / self.seconds } else { 0.0 }
    }

    /// Positions evaluated per second by this worker over the shard's time.
    #[must_use]
    pub fn evaluations_per_second(&self) -> f64 {
        if self.seconds > 0.0 { self.totals.positions_evaluated as f64 / self.seconds } else { 0.0 }
    }
}

/// Hears about self-play events as they happen (called from worker threads).
pub trait Observer: Sync {
    /// A worker wrote a shard.
    fn shard_written(&self, report: &ShardReport) {
        let _ = report;
    }

    /// The workers switched to a newer model.
    fn model_changed(&self, id: &str) {
        let _ = id;
    }
}

/// An [`Observer`] that ignores everything.
#[derive(Copy, Clone, Debug, Default)]
pub struct NoObserver;

impl Observer for NoObserver {}
