//! One self-play worker: a set of games in flight, one search tree each, all searched through
//! one evaluator, and a buffer of finished games that becomes a shard every `games_per_shard`
//! games.
//!
//! The loop, one iteration per search round:
//! 1. **Settle** every game: a game whose root has reached its move's visit target plays its
//!    move (recording a sample first if the move was searched in full, and checking
//!    resignation), repeatedly while the kept subtree already meets the next target; a game
//!    that has ended is recorded (a shard is written when the buffer is full, a newer model is
//!    looked for) and replaced by a new game unless the worker is stopping or the game quota
//!    is spent.
//! 2. **Search** one round: [`mcts::search_many`] over all trees with a budget of
//!    `min(leaves_per_batch, smallest remaining need)` simulations each, so no tree passes its
//!    target and every evaluator call carries leaves from every game in flight. A new tree's
//!    first round only expands its root (free), so that call takes a second, smaller round.
//!
//! Each move is searched in full (`simulations` root visits, root noise, recorded as a
//! training sample) or, with playout-cap randomisation on, cheaply (`fast_simulations`, no
//! noise, not recorded), drawn per move. With a PUCT root the visit targets count the visits
//! kept from the previous move's tree. With a Gumbel root (`mcts.root = "gumbel"`) each search
//! plans that many new simulations on top of the kept ones, takes no Dirichlet noise, plays the
//! Sequential Halving choice and records the improved policy beside the visits.
//!
//! Games against a fixed opponent (`opponent_games`, drawn per game with the opponent's colour):
//! when the opponent is to move, settling asks it for its move at once, records it (as a
//! one-hot sample with `opponent_samples`) and plays it on the tree, keeping what the tree
//! holds below it; the net's moves are searched as in any game. The opponent never resigns.
//!
//! With `opening_plies` on, each game starts after a few uniformly random moves (a count drawn
//! per game), kept in its record but not as samples.
//!
//! Resignation: after each search the mover's value is the larger of the root value and the
//! value of its most visited move; below `resign_threshold` on `resign_plies` consecutive own
//! moves, the mover resigns, unless the game was drawn (with `no_resign_fraction`) to be played
//! out, in which case the first such side is noted, to measure the false-resign rate.
//!
//! Stopping (the caller's stop flag, another worker's failure, or the quota): games in flight
//! are dropped, the finished ones are written. An evaluator error stops the worker the same
//! way and is reported ([`crate::SelfplayError::Evaluation`]); the games whose search failed
//! are among those dropped. A panic inside the search (an evaluator that panicked) is caught
//! long enough to write the finished games, then reported.

use crate::model::ModelSource;
use crate::opponent::Opponent;
use crate::progress::{GameResult, Observer, Progress, ShardReport, Totals};
use crate::seed::game_seed;
use crate::{SelfplayConfig, SelfplayError};
use encode::Encode;
use game::{DrawReason, Game, Outcome, Side, WinReason};
use mcts::{MctsParams, Root, Search, search_many};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use shard::{GameRecord, GameRecorder, Header, Shard};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What the workers of one run share.
pub(crate) struct Shared<'a, G: Game> {
    pub config: &'a SelfplayConfig,
    pub mcts: &'a MctsParams,
    pub source: &'a dyn ModelSource<G>,
    /// The fixed opponent, when some games are played against one.
    pub opponent: Option<&'a dyn Opponent<G>>,
    pub shard_dir: &'a Path,
    pub max_games: Option<u64>,
    pub stop: &'a AtomicBool,
    pub progress: &'a Progress,
    pub observer: &'a dyn Observer,
    /// Games claimed so far (against `max_games`).
    pub started: AtomicU64,
    /// Set when a worker fails, so the others stop too.
    pub abort: AtomicBool,
    /// When the model source was last asked for a newer model; whoever holds the lock polls.
    pub last_poll: Mutex<Instant>,
}

impl<G: Game> Shared<'_, G> {
    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.abort.load(Ordering::Relaxed)
    }

    /// Claims one more game against the quota.
    fn claim_game(&self) -> bool {
        match self.max_games {
            Some(max) => self.started.fetch_add(1, Ordering::Relaxed) < max,
            None => true,
        }
    }
}

/// The per-game state beside its search tree.
struct Slot<G: Game> {
    /// The game's own generator: resignation draw, full or cheap search per move.
    rng: StdRng,
    recorder: GameRecorder<G>,
    resign_enabled: bool,
    /// Consecutive own moves below the resignation threshold, per side.
    low_moves: [u32; 2],
    /// With resignation off: the first side that would have resigned.
    would_resign: Option<Side>,
    /// Whether the current move is searched in full (and recorded).
    full: bool,
    /// Root visits at which the current move is played.
    target: u32,
    /// The side the fixed opponent plays, in a game against it.
    opponent_side: Option<Side>,
}

/// One worker; see the module docs.
pub(crate) struct Worker<'s, 'a, G: Encode> {
    shared: &'s Shared<'a, G>,
    index: usize,
    id: String,
    seed: u64,
    games_started: u64,
    searches: Vec<Search<G>>,
    slots: Vec<Slot<G>>,
    buffer: Vec<GameRecord>,
    /// Counts for the next shard's report.
    shard_totals: Totals,
    shard_started: Instant,
    /// Moves played since the last shard.
    moves_since_shard: u64,
    /// Counts not yet added to the shared progress.
    unreported: Totals,
}

impl<'s, 'a, G: Encode> Worker<'s, 'a, G> {
    pub fn new(shared: &'s Shared<'a, G>, index: usize, id: String, seed: u64) -> Self {
        Worker {
            shared,
            index,
            id,
            seed,
            games_started: 0,
            searches: Vec::new(),
            slots: Vec::new(),
            buffer: Vec::new(),
            shard_totals: Totals::default(),
            shard_started: Instant::now(),
            moves_since_shard: 0,
            unreported: Totals::default(),
        }
    }

    /// Plays until stopped or out of games, then writes the finished games.
    pub fn run(mut self) -> Result<(), SelfplayError> {
        let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.play()));
        let played = played.unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            Err(SelfplayError::WorkerPanicked { worker: self.index, message })
        });
        if played.is_err() {
            self.shared.abort.store(true, Ordering::Relaxed);
        }
        let flushed = if self.buffer.is_empty() { Ok(()) } else { self.write_shard() };
        self.report();
        played.and(flushed)
    }

    fn play(&mut self) -> Result<(), SelfplayError> {
        // With a game quota, each worker starts with at most its share of it, so a small quota
        // is spread over the workers rather than taken by the first one started.
        let config = self.shared.config;
        let share = self.shared.max_games.map_or(u64::MAX, |max| max.div_ceil(config.workers.max(1) as u64));
        for _ in 0..(config.games_in_flight as u64).min(share) {
            if !self.start_game() {
                break;
            }
        }
        loop {
            if self.shared.stopping() {
                return Ok(());
            }
            let mut i = 0;
            while i < self.searches.len() {
                if self.settle(i)? {
                    i += 1;
                }
            }
            if self.searches.is_empty() {
                return Ok(());
            }
            let need = self
                .searches
                .iter()
                .zip(&self.slots)
                .map(|(s, slot)| slot.target.saturating_sub(s.root_visit_count()))
                .min();
            let step = need.unwrap_or(1).min(self.shared.mcts.leaves_per_batch.max(1));
            let model = self.shared.source.current();
            // A failed round leaves every game unfinished: they are dropped with the worker's
            // other games in flight, and only the games finished before are written.
            let stats = search_many(&mut self.searches, &*model.evaluator, step)
                .map_err(|error| SelfplayError::Evaluation { worker: self.index, error })?;
            for t in [&mut self.unreported, &mut self.shard_totals] {
                t.simulations += stats.simulations;
                t.evaluator_calls += stats.evaluator_calls;
                t.positions_evaluated += stats.positions_evaluated;
            }
            self.report();
        }
    }

    /// Adds the unreported counts to the shared progress.
    fn report(&mut self) {
        self.shared.progress.add(&std::mem::take(&mut self.unreported));
    }

    /// Plays game `i`'s moves while its search is done; ends it if it is over. Returns false
    /// when the game at `i` was removed (another game, or none, now sits at `i`).
    fn settle(&mut self, i: usize) -> Result<bool, SelfplayError> {
        loop {
            let game = self.searches[i].game();
            let cap = game.ply() >= self.shared.config.max_plies as usize;
            if let Some(outcome) = game.outcome().or(cap.then_some(Outcome::Draw(DrawReason::Cap))) {
                self.end_game(i, outcome)?;
                return Ok(false);
            }
            if self.slots[i].opponent_side == Some(game.side_to_move()) {
                if let Some(outcome) = self.play_opponent_move(i) {
                    self.end_game(i, outcome)?;
                    return Ok(false);
                }
                continue;
            }
            if self.searches[i].root_visit_count() < self.slots[i].target {
                return Ok(true);
            }
            if let Some(outcome) = self.play_move(i) {
                self.end_game(i, outcome)?;
                return Ok(false);
            }
        }
    }

    /// Game `i`'s search is done: records it, checks resignation, plays the move and prepares
    /// the next search. Returns the outcome if the mover resigns.
    fn play_move(&mut self, i: usize) -> Option<Outcome> {
        let config = self.shared.config;
        let (search, slot) = (&mut self.searches[i], &mut self.slots[i]);
        let mover = search.game().side_to_move();
        let root_value = search.root_value();
        if slot.full {
            let improved = if search.gumbel_active() { search.improved_policy() } else { Vec::new() };
            slot.recorder.record_sample(search.game(), &search.policy_target(), &improved, root_value);
            self.unreported.samples += 1;
        }
        let stats = search.root_stats();
        let best_q = stats.iter().max_by_key(|s| s.visits).and_then(|s| s.q).unwrap_or(root_value);
        let low = &mut slot.low_moves[mover.index()];
        *low = if root_value.max(best_q) < config.resign_threshold { *low + 1 } else { 0 };
        if *low >= config.resign_plies {
            if slot.resign_enabled {
                return Some(Outcome::Win { winner: mover.opponent(), reason: WinReason::Resignation });
            }
            slot.would_resign.get_or_insert(mover);
        }
        // The game layer lists no move only when the game is over, which settle checked; a
        // draw is the only safe reading should a rules crate ever break that.
        let Some(mv) = search.choose_move_scheduled() else { return Some(Outcome::Draw(DrawReason::Adjudication)) };
        self.play_on(i, mv);
        None
    }

    /// Game `i`'s fixed opponent is to move: asks it, records its move (and, with
    /// `opponent_samples`, a sample of it), plays it and prepares the net's next search. Returns
    /// an outcome only should the opponent offer no move in a game that is not over (read as
    /// a draw, as when a search finds no move).
    fn play_opponent_move(&mut self, i: usize) -> Option<Outcome> {
        let config = self.shared.config;
        let opponent = self.shared.opponent?;
        let (search, slot) = (&mut self.searches[i], &mut self.slots[i]);
        let Some((mv, value)) = opponent.choose(search.game()) else {
            return Some(Outcome::Draw(DrawReason::Adjudication));
        };
        if config.opponent_samples {
            slot.recorder.record_sample(search.game(), &[(mv, 1.0)], &[], value);
            self.unreported.samples += 1;
        }
        self.play_on(i, mv);
        None
    }

    /// Records `mv` in game `i`, plays it on the tree (keeping the subtree below it) and
    /// prepares the next move's search.
    fn play_on(&mut self, i: usize, mv: G::Move) {
        let (search, slot) = (&mut self.searches[i], &mut self.slots[i]);
        slot.recorder.record_move(search.game(), mv);
        search.advance(mv);
        self.unreported.moves += 1;
        self.moves_since_shard += 1;
        begin_move(self.shared.config, slot, search);
    }

    /// Records game `i` as finished with `outcome`, writes a shard if the buffer is full, looks
    /// for a newer model, and starts the next game in its place (at the end of the list).
    fn end_game(&mut self, i: usize, outcome: Outcome) -> Result<(), SelfplayError> {
        self.searches.swap_remove(i);
        let slot = self.slots.swap_remove(i);
        let result = GameResult {
            outcome,
            resign_enabled: slot.resign_enabled,
            would_resign: slot.would_resign,
            moves: slot.recorder.ply() as u64,
            samples: slot.recorder.sample_count() as u64,
            opponent: slot.opponent_side,
        };
        self.shard_totals.add_game(&result);
        self.unreported.add_result(&result);
        self.buffer.push(slot.recorder.finish_outcome(outcome));
        if self.buffer.len() >= self.shared.config.games_per_shard {
            self.write_shard()?;
        }
        self.poll_model()?;
        self.start_game();
        Ok(())
    }

    /// Asks the model source for a newer model if it is time and no other worker is asking.
    fn poll_model(&self) -> Result<(), SelfplayError> {
        let interval = Duration::from_secs_f64(self.shared.config.model_poll_seconds.max(0.0));
        let Ok(mut last) = self.shared.last_poll.try_lock() else { return Ok(()) };
        if last.elapsed() < interval {
            return Ok(());
        }
        *last = Instant::now();
        if let Some(id) = self.shared.source.poll().map_err(SelfplayError::Model)? {
            self.shared.observer.model_changed(&id);
        }
        Ok(())
    }

    /// Starts a new game at the end of the list, if the worker is not stopping and the quota
    /// allows. Returns whether it did.
    fn start_game(&mut self) -> bool {
        if self.shared.stopping() || !self.shared.claim_game() {
            return false;
        }
        let seed = game_seed(self.seed, self.games_started);
        self.games_started += 1;
        let config = self.shared.config;
        let mut rng = StdRng::seed_from_u64(seed);
        let resign_enabled = rng.random::<f32>() >= config.no_resign_fraction;
        let search_seed = rng.random();
        // Drawn only when an opponent plays, so that games without one draw as they always did.
        let opponent_side = match self.shared.opponent {
            Some(_) if rng.random::<f32>() < config.opponent_games => {
                Some(if rng.random::<bool>() { Side::First } else { Side::Second })
            }
            _ => None,
        };
        // Drawn last, and only when on, for the same reason.
        let game = random_opening::<G>(config.opening_plies, &mut rng);
        self.unreported.moves += game.ply() as u64;
        self.moves_since_shard += game.ply() as u64;
        let mut search = Search::new(game, self.shared.mcts.clone(), search_seed);
        // The recorder takes the opening's moves from the game's history.
        let recorder = GameRecorder::new(seed, search.game());
        let mut slot = Slot {
            rng,
            recorder,
            resign_enabled,
            low_moves: [0; 2],
            would_resign: None,
            full: true,
            target: config.simulations,
            opponent_side,
        };
        begin_move(config, &mut slot, &mut search);
        self.searches.push(search);
        self.slots.push(slot);
        true
    }

    /// Writes the finished games as one shard and reports it.
    fn write_shard(&mut self) -> Result<(), SelfplayError> {
        let model = self.shared.source.current();
        let header = Header {
            game: G::NAME.to_owned(),
            encoding: G::ENCODING.id.to_owned(),
            model: model.id.to_string(),
            worker: self.id.clone(),
            seed: self.seed,
            created_ms: shard::now_ms(),
        };
        let shard = Shard { header, games: std::mem::take(&mut self.buffer) };
        let path = match shard::write_shard(self.shared.shard_dir, &shard) {
            Ok(path) => path,
            Err(e) => {
                self.buffer = shard.games;
                return Err(SelfplayError::Shard(e));
            }
        };
        let mut totals = std::mem::take(&mut self.shard_totals);
        totals.shards = 1;
        self.unreported.shards += 1;
        let report = ShardReport {
            worker: self.index,
            worker_id: self.id.clone(),
            path,
            model_id: model.id.to_string(),
            totals,
            moves_played: std::mem::take(&mut self.moves_since_shard),
            seconds: self.shard_started.elapsed().as_secs_f64(),
        };
        self.shard_started = Instant::now();
        self.report();
        self.shared.observer.shard_written(&report);
        Ok(())
    }
}

/// A new game after its random opening: a ply count drawn uniformly from 0..=`plies`, each
/// move uniform over the legal ones (fewer should the game end first). No draw at all when
/// `plies` is 0.
fn random_opening<G: Game>(plies: u32, rng: &mut StdRng) -> G {
    let mut game = G::new();
    if plies == 0 {
        return game;
    }
    for _ in 0..rng.random_range(0..=plies) {
        if game.outcome().is_some() {
            break;
        }
        let moves = game.legal_moves();
        let moves = moves.as_ref();
        if moves.is_empty() {
            break;
        }
        game.play_unchecked(moves[rng.random_range(0..moves.len())]);
    }
    game
}

/// Draws whether the next move of `slot`'s game is searched in full and sets its visit
/// target. A PUCT root counts the visits kept from the previous move towards the target and
/// gets root noise on full searches; a Gumbel root plans that many new simulations (its
/// Sequential Halving needs the whole budget) and takes no noise.
fn begin_move<G: Game>(config: &SelfplayConfig, slot: &mut Slot<G>, search: &mut Search<G>) {
    slot.full = !config.playout_cap() || slot.rng.random::<f32>() < config.full_search_fraction;
    let simulations = if slot.full { config.simulations } else { config.fast_simulations };
    match search.params().root {
        Root::Puct => {
            slot.target = simulations;
            if slot.full {
                search.add_root_noise();
            }
        }
        Root::Gumbel => {
            slot.target = search.root_visit_count() + simulations;
            let temperature = search.params().temperature_at(search.game().ply());
            search.start_gumbel_tempered(simulations, temperature);
        }
    }
}
