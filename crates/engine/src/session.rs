//! [`Session`]: what the UCI and Hub servers share around the background search: answering from
//! the opening book, thinking, pondering and the ponder hit. The servers differ only in how they
//! write the search's reports, which they pass in as a [`Report`].
//!
//! - **Think** ([`Session::think`]): a position in the book is answered at once with a book
//!   move (unless the search is infinite: analysis never plays from the book); otherwise the
//!   search starts in the background and reports through the session's [`Output`].
//! - **Analyse** ([`Session::analyse`]): a search, never the book.
//! - **Ponder** ([`Session::ponder`]): an infinite search of the expected position, keeping the
//!   limits the real search will have. On [`Session::ponder_hit`] that search is dropped and a
//!   fresh one starts with those limits on a warm table (a running search cannot change its
//!   limits), so the clock counts from the hit as the protocols intend.

use crate::background::{SearchThread, Think};
use crate::protocol::Output;
use alphabeta::book::Book;
use alphabeta::{Limits, SearchGame, SearchInfo, SearchResult};
use rand::rngs::StdRng;
use std::sync::Arc;

/// How a protocol writes what a search reports.
pub trait Report<G: game::Game>: Copy + Send + 'static {
    /// The line for one completed iteration.
    fn info(&self, info: &SearchInfo<G::Move>) -> String;
    /// The line that ends a search (`bestmove ...`, `done ...`).
    fn done(&self, result: &SearchResult<G::Move>) -> String;
    /// The lines that answer with a book move instead of a search.
    fn book_move(&self, mv: G::Move) -> Vec<String>;
}

/// The search thread, the book and the ponder state of one server.
pub struct Session<G: SearchGame, S> {
    /// The background search.
    pub search: SearchThread<S>,
    /// Whether [`Session::think`] answers from the book.
    pub use_book: bool,
    out: Output,
    book: Book<G>,
    rng: StdRng,
    /// What a ponder hit starts: the pondered position and the real search's limits.
    ponder: Option<(G, Limits)>,
}

impl<G, S> Session<G, S>
where
    G: SearchGame + Send + 'static,
    S: Think<G>,
{
    /// A session searching with `searcher`, writing search output to `out`, answering from
    /// `book` (when `use_book`) with moves picked by `rng`.
    #[must_use]
    pub fn new(searcher: S, book: Book<G>, use_book: bool, rng: StdRng, out: Output) -> Session<G, S> {
        Session { search: SearchThread::new(searcher), use_book, out, book, rng, ponder: None }
    }

    /// The book.
    #[must_use]
    pub fn book(&self) -> &Book<G> {
        &self.book
    }

    /// A book move at once (its lines returned), or a search started in the background.
    ///
    /// # Errors
    /// A search is running, or its thread cannot start.
    pub fn think(&mut self, game: G, limits: Limits, report: impl Report<G>) -> Result<Vec<String>, String> {
        self.ponder = None;
        if self.use_book && !limits.infinite {
            if let Some(mv) = self.book.pick(&game, &mut self.rng) {
                return Ok(report.book_move(mv));
            }
        }
        self.start(game, limits, report)?;
        Ok(Vec::new())
    }

    /// Writes `lines` now, through the output the search reports to. For what must come
    /// before a search's own lines (a `go`'s errors): returned from `handle`, they would be
    /// written only after the search had started, and a short search can answer first.
    pub fn say(&self, lines: &[String]) {
        for line in lines {
            (self.out)(line);
        }
    }

    /// A search started in the background, never a book move.
    ///
    /// # Errors
    /// As [`Session::think`].
    pub fn analyse(&mut self, game: G, limits: Limits, report: impl Report<G>) -> Result<(), String> {
        self.ponder = None;
        self.start(game, limits, report)
    }

    /// Ponders `game` (an infinite search) until [`Session::ponder_hit`] starts the real search
    /// with `limits`, or [`Session::stop`].
    ///
    /// # Errors
    /// As [`Session::think`].
    pub fn ponder(&mut self, game: G, limits: Limits, report: impl Report<G>) -> Result<(), String> {
        let infinite = Limits { infinite: true, searchmoves: limits.searchmoves.clone(), ..Limits::default() };
        self.start(game.clone(), infinite, report)?;
        self.ponder = Some((game, limits));
        Ok(())
    }

    /// The opponent played the expected move: the ponder search gives way to the real one.
    /// Nothing happens when not pondering (GUIs send it in races).
    ///
    /// # Errors
    /// As [`Session::think`].
    pub fn ponder_hit(&mut self, report: impl Report<G>) -> Result<Vec<String>, String> {
        let Some((game, limits)) = self.ponder.take() else { return Ok(Vec::new()) };
        if !self.search.is_searching() {
            return Ok(Vec::new());
        }
        self.search.abandon();
        self.think(game, limits, report)
    }

    /// Stops any search (pondering included) once it has reported.
    pub fn stop(&mut self) {
        self.ponder = None;
        self.search.stop();
    }

    fn start(&mut self, game: G, limits: Limits, report: impl Report<G>) -> Result<(), String> {
        let (info_out, done_out) = (Arc::clone(&self.out), Arc::clone(&self.out));
        self.search
            .start(
                game,
                limits,
                move |info| info_out(&report.info(info)),
                move |_, result| done_out(&report.done(&result)),
            )
            .map_err(|e| format!("go: {e}"))
    }
}

/// The move a search expects in reply to its best move (the second move of its principal
/// variation), which both protocols offer for pondering.
#[must_use]
pub fn expected_reply<M: Copy + PartialEq>(result: &SearchResult<M>) -> Option<M> {
    match (result.best, result.pv.as_slice()) {
        (Some(best), [first, reply, ..]) if *first == best => Some(*reply),
        _ => None,
    }
}

/// The table size a new alpha-beta engine starts with, in mebibytes (UCI `Hash`, Hub `hash`).
pub const DEFAULT_HASH_MB: usize = 16;
/// Largest accepted table size, in mebibytes.
pub const MAX_HASH_MB: usize = 4096;
/// Largest accepted number of search threads.
pub const MAX_THREADS: usize = 64;
