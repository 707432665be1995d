//! The background search both protocol servers run on, so that the protocol loop stays free to
//! answer `stop`, `isready` and `ping` while the engine thinks. Generic over the searcher
//! ([`Think`]): the alpha-beta [`alphabeta::Searcher`] implements it here; an MCTS searcher that
//! reports the same [`SearchInfo`] and returns the same [`SearchResult`] plugs in the same way.
//!
//! A [`SearchThread`] owns the searcher (its tables and settings). While a search runs, the
//! searcher lives on the worker thread and comes back when the search ends; settings can only
//! change while it is home ([`SearchThread::idle`]). The worker calls back twice: after each
//! completed iteration (`on_info`), and once with the result (`on_done`), both from the worker
//! thread, so the protocol's callbacks write their lines through an [`crate::Output`] shared
//! with the protocol loop.
//!
//! Stopping has one subtlety: a searcher clears its stop flag when it starts, so a `stop`
//! arriving before the worker got that far would be lost. [`SearchThread::stop`] therefore keeps
//! raising the flag until the worker has finished, which also makes `stop` return only after the
//! final report (`bestmove`, `done`) is written: the next command sees an idle engine.
//!
//! The searcher travels to the worker through a shared slot rather than inside the thread's
//! closure, so it survives a thread that cannot be started, and a search that panics (a bug,
//! never input) is caught: the first legal move is reported instead, so a GUI waiting for a move
//! still gets one.

use alphabeta::{Limits, Score, SearchGame, SearchInfo, SearchResult, Searcher};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// A searcher the background thread can run for game `G`.
pub trait Think<G: game::Game>: Send + 'static {
    /// A flag that stops the running search when set from another thread. The searcher may
    /// clear it when a search starts (see the module docs).
    fn stop_handle(&self) -> Arc<AtomicBool>;

    /// Searches `game` within `limits`, calling `info` after each completed iteration. Returns
    /// a legal move whenever there is one, even when stopped at once.
    fn think(&mut self, game: &G, limits: &Limits, info: &mut dyn FnMut(&SearchInfo<G::Move>))
    -> SearchResult<G::Move>;
}

impl<G: SearchGame> Think<G> for Searcher {
    fn stop_handle(&self) -> Arc<AtomicBool> {
        Searcher::stop_handle(self)
    }

    fn think(
        &mut self,
        game: &G,
        limits: &Limits,
        info: &mut dyn FnMut(&SearchInfo<G::Move>),
    ) -> SearchResult<G::Move> {
        self.search(game, limits, |i| info(i))
    }
}

/// The settings can only change while no search runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Busy;

impl std::fmt::Display for Busy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the engine is searching (stop it first)")
    }
}

/// Why a search did not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartError {
    /// A search is already running.
    Busy,
    /// The system refused a thread (the message says why).
    Thread(String),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Busy => write!(f, "already searching (send stop first)"),
            StartError::Thread(e) => write!(f, "cannot start the search thread: {e}"),
        }
    }
}

/// A search running on the worker thread.
struct Job {
    handle: JoinHandle<()>,
    /// The searcher's own stop flag.
    stop: Arc<AtomicBool>,
    /// Set by [`SearchThread::stop`]: ends the wait of an infinite search with no legal move.
    stop_requested: Arc<AtomicBool>,
    /// Set by [`SearchThread::abandon`]: the result is not reported.
    silent: Arc<AtomicBool>,
    /// Set by the worker once the search is over, before it reports: from then on the worker
    /// only writes its report and returns, so waiting for it is brief.
    over: Arc<AtomicBool>,
}

/// The engine's searcher and, while it thinks, the thread it thinks on.
pub struct SearchThread<S> {
    /// The searcher, home while no search runs; the worker takes it out and puts it back.
    slot: Arc<Mutex<Option<S>>>,
    job: Option<Job>,
}

impl<S: Send + 'static> SearchThread<S> {
    /// An idle engine with `searcher`.
    #[must_use]
    pub fn new(searcher: S) -> SearchThread<S> {
        SearchThread { slot: Arc::new(Mutex::new(Some(searcher))), job: None }
    }

    /// True while a search runs.
    pub fn is_searching(&mut self) -> bool {
        self.reap();
        self.job.is_some()
    }

    /// Runs `f` on the idle searcher (to read or change its settings), after collecting a search
    /// that has ended by itself.
    ///
    /// # Errors
    /// [`Busy`] while a search runs.
    pub fn idle<R>(&mut self, f: impl FnOnce(&mut S) -> R) -> Result<R, Busy> {
        self.reap();
        if self.job.is_some() {
            return Err(Busy);
        }
        let mut slot = self.slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        slot.as_mut().map(f).ok_or(Busy)
    }

    /// Starts searching `game` within `limits` on the worker thread. `on_info` is called after
    /// each completed iteration, `on_done` once at the end with the result, unless the search is
    /// [abandoned](SearchThread::abandon). An infinite search reports only after
    /// [`SearchThread::stop`], even when the side to move has no legal move.
    ///
    /// # Errors
    /// [`StartError::Busy`] if a search is already running, [`StartError::Thread`] if the
    /// system refuses a thread (the searcher stays home).
    pub fn start<G>(
        &mut self,
        game: G,
        limits: Limits,
        mut on_info: impl FnMut(&SearchInfo<G::Move>) + Send + 'static,
        on_done: impl FnOnce(&G, SearchResult<G::Move>) + Send + 'static,
    ) -> Result<(), StartError>
    where
        G: game::Game + Send + 'static,
        S: Think<G>,
    {
        let stop = self.idle(|s| s.stop_handle()).map_err(|Busy| StartError::Busy)?;
        let stop_requested = Arc::new(AtomicBool::new(false));
        let silent = Arc::new(AtomicBool::new(false));
        let over = Arc::new(AtomicBool::new(false));
        let (requested, quiet, ended) = (Arc::clone(&stop_requested), Arc::clone(&silent), Arc::clone(&over));
        let slot = Arc::clone(&self.slot);
        let body = move || {
            let taken = slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
            let Some(mut searcher) = taken else { return };
            let searched = catch_unwind(AssertUnwindSafe(|| searcher.think(&game, &limits, &mut on_info)));
            *slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(searcher);
            let result = searched.unwrap_or_else(|_| fallback(&game));
            // An infinite search must not answer before `stop`; the searcher waits by itself
            // unless there was no legal move to search.
            while limits.infinite && !requested.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(2));
            }
            // Before the report: a GUI that reads `bestmove` and at once sends `go` must find
            // the engine idle.
            ended.store(true, Ordering::SeqCst);
            if !quiet.load(Ordering::SeqCst) {
                on_done(&game, result);
            }
        };
        // The main thread's stack size: an alpha-beta search recurses up to its maximum ply.
        let spawned = std::thread::Builder::new().name("search".into()).stack_size(8 << 20).spawn(body);
        match spawned {
            Ok(handle) => {
                self.job = Some(Job { handle, stop, stop_requested, silent, over });
                Ok(())
            }
            Err(e) => Err(StartError::Thread(e.to_string())),
        }
    }
}

/// What needs no searcher: stopping and collecting the worker.
impl<S> SearchThread<S> {
    /// Stops the running search, if any, and waits until it has reported its result.
    pub fn stop(&mut self) {
        self.halt(false);
    }

    /// Stops the running search, if any, without reporting its result (a ponder search
    /// replaced by a real one after a ponder hit).
    pub fn abandon(&mut self) {
        self.halt(true);
    }

    /// Waits for the running search to end by itself (tests; never for an infinite search).
    pub fn wait(&mut self) {
        if let Some(job) = self.job.take() {
            let _ = job.handle.join();
        }
    }

    fn halt(&mut self, silent: bool) {
        let Some(job) = self.job.take() else { return };
        if silent {
            job.silent.store(true, Ordering::SeqCst);
        }
        job.stop_requested.store(true, Ordering::SeqCst);
        // See the module docs: the search clears the flag when it starts.
        while !job.handle.is_finished() {
            job.stop.store(true, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(1));
        }
        let _ = job.handle.join();
    }

    /// Collects a search that has ended by itself.
    fn reap(&mut self) {
        if self.job.as_ref().is_some_and(|j| j.over.load(Ordering::SeqCst) || j.handle.is_finished()) {
            if let Some(job) = self.job.take() {
                let _ = job.handle.join();
            }
        }
    }
}

impl<S> Drop for SearchThread<S> {
    fn drop(&mut self) {
        self.abandon();
    }
}

/// What a search that panicked reports: the first legal move, if any.
fn fallback<G: game::Game>(game: &G) -> SearchResult<G::Move> {
    let best = game.legal_moves().as_ref().first().copied();
    SearchResult { best, score: Score::Cp(0), raw_score: 0, depth: 0, nodes: 0, pv: best.into_iter().collect() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn alphabeta() -> SearchThread<Searcher> {
        SearchThread::new(Searcher::new(1))
    }

    #[test]
    fn reports_each_depth_then_the_result() {
        let mut engine = alphabeta();
        let (tx, rx) = mpsc::channel();
        let tx2 = tx.clone();
        let started = engine.start(
            xiangqi::Game::new(),
            Limits::depth(3),
            move |i| {
                let _ = tx.send(format!("info {}", i.depth));
            },
            move |_, r| {
                let _ = tx2.send(format!("done {}", r.best.is_some()));
            },
        );
        assert!(started.is_ok());
        engine.wait();
        let lines: Vec<String> = rx.try_iter().collect();
        assert_eq!(lines, ["info 1", "info 2", "info 3", "done true"]);
        assert!(!engine.is_searching());
    }

    #[test]
    fn settings_wait_for_the_search_and_stop_reports_first() {
        let mut engine = alphabeta();
        let (tx, rx) = mpsc::channel();
        let infinite = Limits { infinite: true, ..Limits::default() };
        let started = engine.start(
            draughts::Game::new(),
            infinite,
            |_| {},
            move |_, r| {
                let _ = tx.send(r.best);
            },
        );
        assert!(started.is_ok());
        assert_eq!(engine.idle(|s| s.set_hash(2)), Err(Busy));
        assert!(engine.is_searching());
        assert!(rx.try_recv().is_err(), "an infinite search waits for stop");
        // `stop` returns only once the result is reported: no timing needed to check it.
        engine.stop();
        assert!(matches!(rx.try_recv(), Ok(Some(_))));
        assert_eq!(engine.idle(|s| s.set_hash(2)), Ok(()));
    }

    #[test]
    fn stop_right_after_start_is_not_lost() {
        let mut engine = alphabeta();
        for _ in 0..20 {
            let infinite = Limits { infinite: true, ..Limits::default() };
            assert!(engine.start(xiangqi::Game::new(), infinite, |_| {}, |_, _| {}).is_ok());
            engine.stop();
            assert!(!engine.is_searching());
        }
    }

    #[test]
    fn idle_as_soon_as_the_result_is_reported() {
        // A GUI sends the next `go` the moment it reads `bestmove`.
        let mut engine = alphabeta();
        for _ in 0..50 {
            let (tx, rx) = mpsc::channel();
            let started = engine.start(
                draughts::Game::new(),
                Limits::depth(1),
                |_| {},
                move |_, _| {
                    let _ = tx.send(());
                },
            );
            assert!(started.is_ok());
            assert!(rx.recv().is_ok());
            assert!(!engine.is_searching());
        }
    }

    #[test]
    fn abandoned_search_reports_nothing() {
        let mut engine = alphabeta();
        let (tx, rx) = mpsc::channel::<()>();
        let infinite = Limits { infinite: true, ..Limits::default() };
        assert!(
            engine
                .start(
                    xiangqi::Game::new(),
                    infinite,
                    |_| {},
                    move |_, _| {
                        let _ = tx.send(());
                    }
                )
                .is_ok()
        );
        engine.abandon();
        assert!(rx.try_recv().is_err());
    }

    /// Alpha-beta that says when each of its searches has returned.
    struct Telling(Searcher, mpsc::Sender<()>);

    impl Think<xiangqi::Game> for Telling {
        fn stop_handle(&self) -> Arc<AtomicBool> {
            self.0.stop_handle()
        }
        fn think(
            &mut self,
            game: &xiangqi::Game,
            limits: &Limits,
            info: &mut dyn FnMut(&SearchInfo<xiangqi::Move>),
        ) -> SearchResult<xiangqi::Move> {
            let result = Think::<xiangqi::Game>::think(&mut self.0, game, limits, info);
            let _ = self.1.send(());
            result
        }
    }

    #[test]
    fn infinite_search_without_moves_waits_for_stop() {
        // Black is checkmated (two rooks; the flying king guards e9).
        let Ok(game) = xiangqi::Game::from_fen("3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1") else { panic!("mate FEN") };
        let (returned_tx, returned) = mpsc::channel();
        let mut engine = SearchThread::new(Telling(Searcher::new(1), returned_tx));
        let (tx, rx) = mpsc::channel();
        let infinite = Limits { infinite: true, ..Limits::default() };
        let started = engine.start(
            game,
            infinite,
            |_| {},
            move |_, r| {
                let _ = tx.send(r.best);
            },
        );
        assert!(started.is_ok());
        // The search itself is over at once (nothing to search); the report waits for stop.
        assert!(returned.recv().is_ok());
        assert!(rx.try_recv().is_err(), "reported before stop");
        engine.stop();
        assert_eq!(rx.try_recv(), Ok(None));
    }

    /// A searcher that panics: the engine still answers with a legal move.
    struct Broken(Arc<AtomicBool>);

    impl Think<xiangqi::Game> for Broken {
        fn stop_handle(&self) -> Arc<AtomicBool> {
            Arc::clone(&self.0)
        }
        fn think(
            &mut self,
            _: &xiangqi::Game,
            _: &Limits,
            _: &mut dyn FnMut(&SearchInfo<xiangqi::Move>),
        ) -> SearchResult<xiangqi::Move> {
            panic!("a bug in the searcher")
        }
    }

    #[test]
    fn a_panicking_searcher_still_answers_and_stays_home() {
        let mut engine = SearchThread::new(Broken(Arc::new(AtomicBool::new(false))));
        let (tx, rx) = mpsc::channel();
        let started = engine.start(
            xiangqi::Game::new(),
            Limits::depth(1),
            |_| {},
            move |_, r| {
                let _ = tx.send(r.best);
            },
        );
        assert!(started.is_ok());
        engine.wait();
        assert!(matches!(rx.try_recv(), Ok(Some(_))), "the first legal move");
        assert_eq!(engine.idle(|_| ()), Ok(()), "the searcher came back");
    }
}
