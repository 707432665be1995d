//! The background search both engine protocols (`qizero uci`, `qizero hub`) run on, so that the
//! protocol loop stays free to answer `stop`, `isready` and `ping` while the engine thinks.
//!
//! A [`SearchThread`] owns the [`Searcher`] (its transposition table and settings). While a
//! search runs, the searcher lives on the worker thread and comes back when the search ends;
//! the settings can only change while it is home. The worker calls back twice: after each
//! completed depth (`on_info`), and once with the result (`on_done`), both from the worker
//! thread, so the protocol's callbacks write their lines through an [`Output`] shared with the
//! protocol loop.
//!
//! Stopping has one subtlety: [`Searcher::search`] clears its stop flag when it starts, so a
//! `stop` arriving before the worker got that far would be lost. [`SearchThread::stop`] therefore
//! keeps raising the flag until the worker has finished, which also makes `stop` return only
//! after the final report (`bestmove`, `done`) is written: the next command sees an idle engine.

use alphabeta::{Limits, Score, SearchGame, SearchInfo, SearchResult, Searcher};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// Where protocol lines go: standard output in the binary, a buffer in tests. Called from the
/// protocol loop and from the search thread; each call writes one whole line.
pub type Output = Arc<dyn Fn(&str) + Send + Sync>;

/// The table size a new engine starts with, in mebibytes (UCI `Hash`, Hub `hash`).
pub const DEFAULT_HASH_MB: usize = 16;
/// Largest accepted table size, in mebibytes.
pub const MAX_HASH_MB: usize = 4096;
/// Largest accepted number of search threads.
pub const MAX_THREADS: usize = 64;

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
    handle: JoinHandle<Searcher>,
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
pub struct SearchThread {
    hash_mb: usize,
    threads: usize,
    /// The searcher while no search runs.
    idle: Option<Searcher>,
    job: Option<Job>,
}

impl SearchThread {
    /// An idle engine with a table of `hash_mb` mebibytes and `threads` search threads.
    #[must_use]
    pub fn new(hash_mb: usize, threads: usize) -> SearchThread {
        let mut searcher = Searcher::new(hash_mb);
        searcher.set_threads(threads);
        SearchThread { hash_mb, threads: threads.max(1), idle: Some(searcher), job: None }
    }

    /// The table size, in mebibytes.
    #[must_use]
    pub fn hash_mb(&self) -> usize {
        self.hash_mb
    }

    /// The number of search threads.
    #[must_use]
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// True while a search runs.
    pub fn is_searching(&mut self) -> bool {
        self.reap();
        self.job.is_some()
    }

    /// The idle searcher (after collecting a search that has ended by itself).
    fn home(&mut self) -> Result<&mut Searcher, Busy> {
        self.reap();
        if self.job.is_some() {
            return Err(Busy);
        }
        let (hash_mb, threads) = (self.hash_mb, self.threads);
        Ok(self.idle.get_or_insert_with(|| fresh(hash_mb, threads)))
    }

    /// Replaces the table with one of `hash_mb` mebibytes.
    ///
    /// # Errors
    /// [`Busy`] while a search runs.
    pub fn set_hash(&mut self, hash_mb: usize) -> Result<(), Busy> {
        self.home()?.set_hash(hash_mb);
        self.hash_mb = hash_mb;
        Ok(())
    }

    /// Sets the number of search threads.
    ///
    /// # Errors
    /// [`Busy`] while a search runs.
    pub fn set_threads(&mut self, threads: usize) -> Result<(), Busy> {
        self.home()?.set_threads(threads);
        self.threads = threads.max(1);
        Ok(())
    }

    /// Clears the table (a new game).
    ///
    /// # Errors
    /// [`Busy`] while a search runs.
    pub fn clear(&mut self) -> Result<(), Busy> {
        self.home()?.clear();
        Ok(())
    }

    /// Starts searching `game` within `limits` on the worker thread. `on_info` is called after
    /// each completed depth, `on_done` once at the end with the result, unless the search is
    /// [abandoned](SearchThread::abandon). An infinite search reports only after
    /// [`SearchThread::stop`], even when the side to move has no legal move.
    ///
    /// Should the search itself panic (a bug, never input), the panic is caught and the first
    /// legal move reported, so a GUI waiting for a move still gets one.
    ///
    /// # Errors
    /// [`StartError::Busy`] if a search is already running, [`StartError::Thread`] if the
    /// system refuses a thread.
    pub fn start<G: SearchGame>(
        &mut self,
        game: G,
        limits: Limits,
        mut on_info: impl FnMut(&SearchInfo<G::Move>) + Send + 'static,
        on_done: impl FnOnce(&G, SearchResult<G::Move>) + Send + 'static,
    ) -> Result<(), StartError> {
        self.home().map_err(|Busy| StartError::Busy)?;
        let mut searcher = self.idle.take().unwrap_or_else(|| fresh(self.hash_mb, self.threads));
        let stop = searcher.stop_handle();
        let stop_requested = Arc::new(AtomicBool::new(false));
        let silent = Arc::new(AtomicBool::new(false));
        let over = Arc::new(AtomicBool::new(false));
        let (requested, quiet, ended) = (Arc::clone(&stop_requested), Arc::clone(&silent), Arc::clone(&over));
        let body = move || {
            let searched = catch_unwind(AssertUnwindSafe(|| searcher.search(&game, &limits, |i| on_info(i))));
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
            searcher
        };
        // The main thread's stack size: the search recurses up to its maximum ply.
        let spawned = std::thread::Builder::new().name("search".into()).stack_size(8 << 20).spawn(body);
        match spawned {
            Ok(handle) => {
                self.job = Some(Job { handle, stop, stop_requested, silent, over });
                Ok(())
            }
            // The closure, searcher included, is gone: a fresh searcher is built on next use.
            Err(e) => Err(StartError::Thread(e.to_string())),
        }
    }

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
    #[cfg(test)]
    pub fn wait(&mut self) {
        if let Some(job) = self.job.take() {
            self.collect(job);
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
        self.collect(job);
    }

    /// Takes back the searcher of a search that has ended by itself.
    fn reap(&mut self) {
        if self.job.as_ref().is_some_and(|j| j.over.load(Ordering::SeqCst) || j.handle.is_finished()) {
            if let Some(job) = self.job.take() {
                self.collect(job);
            }
        }
    }

    fn collect(&mut self, job: Job) {
        // A worker that died lost its searcher; start again with the same settings.
        self.idle = Some(job.handle.join().unwrap_or_else(|_| fresh(self.hash_mb, self.threads)));
    }
}

impl Drop for SearchThread {
    fn drop(&mut self) {
        self.abandon();
    }
}

fn fresh(hash_mb: usize, threads: usize) -> Searcher {
    let mut searcher = Searcher::new(hash_mb);
    searcher.set_threads(threads);
    searcher
}

/// What a search that panicked reports: the first legal move, if any.
fn fallback<G: SearchGame>(game: &G) -> SearchResult<G::Move> {
    let best = game.legal_moves().as_ref().first().copied();
    SearchResult { best, score: Score::Cp(0), raw_score: 0, depth: 0, nodes: 0, pv: best.into_iter().collect() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Instant;

    #[test]
    fn reports_each_depth_then_the_result() {
        let mut engine = SearchThread::new(1, 1);
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
    fn settings_wait_for_the_search_and_stop_is_prompt() {
        let mut engine = SearchThread::new(1, 1);
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
        assert_eq!(engine.set_hash(2), Err(Busy));
        assert_eq!(engine.clear(), Err(Busy));
        assert!(engine.is_searching());
        let t = Instant::now();
        engine.stop();
        assert!(t.elapsed() < Duration::from_secs(2));
        assert!(matches!(rx.try_recv(), Ok(Some(_))));
        assert_eq!(engine.set_hash(2), Ok(()));
        assert_eq!(engine.hash_mb(), 2);
    }

    #[test]
    fn stop_right_after_start_is_not_lost() {
        let mut engine = SearchThread::new(1, 1);
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
        let mut engine = SearchThread::new(1, 1);
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
            assert!(rx.recv_timeout(Duration::from_secs(5)).is_ok());
            assert!(!engine.is_searching());
        }
    }

    #[test]
    fn abandoned_search_reports_nothing() {
        let mut engine = SearchThread::new(1, 1);
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

    #[test]
    fn infinite_search_without_moves_waits_for_stop() {
        // Black is checkmated (two rooks; the flying king guards e9).
        let Ok(game) = xiangqi::Game::from_fen("3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1") else { panic!("mate FEN") };
        let mut engine = SearchThread::new(1, 1);
        let (tx, rx) = mpsc::channel();
        let infinite = Limits { infinite: true, ..Limits::default() };
        assert!(
            engine
                .start(
                    game,
                    infinite,
                    |_| {},
                    move |_, r| {
                        let _ = tx.send(r.best);
                    }
                )
                .is_ok()
        );
        std::thread::sleep(Duration::from_millis(50));
        assert!(rx.try_recv().is_err());
        engine.stop();
        assert_eq!(rx.try_recv(), Ok(None));
    }
}
