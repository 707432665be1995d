//! One game on the page: its position with history, the engine that searches it, and the
//! events its tabs listen to.
//!
//! A [`Session`] holds two locks, always taken in this order: the engine ([`Engine`]: the
//! background search thread and what it was built for), then the game. The search thread's
//! final report (`on_done`) takes only the game lock, so stopping a search while holding the
//! engine lock, which waits for that report, cannot deadlock.
//!
//! Sessions are type-erased behind [`Table`] so the server keeps both games in one map.

use crate::error::ApiError;
use crate::games::{self, MoveView, ResultView, WebGame};
use alphabeta::{Limits, Score, SearchGame, SearchInfo, SearchResult};
use engine::net::{Loader, NetSearcher, NetSettings};
use engine::{Brain, SearchThread};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::broadcast;

/// Alpha-beta's table, per game session.
const HASH_MB: usize = 16;
/// An alpha-beta search given neither depth nor time thinks this long.
pub const DEFAULT_MOVETIME_MS: u64 = 1000;
/// Events a slow tab may fall behind by before it misses some.
const EVENT_BUFFER: usize = 256;

/// One server-sent event: its name and its JSON data.
#[derive(Clone, Debug)]
pub struct Event {
    /// `info`, `done`, `state` or `error`.
    pub name: &'static str,
    /// The data, as JSON text.
    pub data: String,
}

/// A search the page asks for (`POST /api/games/{id}/search`, see `API.md`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    /// `alphabeta` or `net`.
    pub engine: String,
    /// Alpha-beta: depth limit, 1..=64.
    pub depth: Option<u32>,
    /// Time limit, 1..=600000 ms.
    pub movetime_ms: Option<u64>,
    /// Net: a model id of `GET /api/models`.
    pub model: Option<String>,
    /// Net: simulations (root visits), 1..=1000000.
    pub sims: Option<u32>,
    /// Play the best move when the search ends.
    #[serde(default)]
    pub play: bool,
    /// Search until stopped (analysis); never plays.
    #[serde(default)]
    pub infinite: bool,
}

/// What the engine of a search is: checked and resolved by the server before the session
/// sees it (the model id turned into a file).
#[derive(Clone, Debug, PartialEq)]
pub enum EngineChoice {
    /// The alpha-beta engine.
    AlphaBeta,
    /// MCTS with the net in this file.
    Net(PathBuf),
}

/// A checked search: the engine, its limits, and whether to play the result.
#[derive(Clone, Debug)]
pub struct SearchPlan {
    /// Which engine.
    pub engine: EngineChoice,
    /// Its limits.
    pub limits: Limits,
    /// Play the best move at the end.
    pub play: bool,
}

impl SearchRequest {
    /// Checks the numbers and the engine name, and resolves the model with `resolve`.
    ///
    /// # Errors
    /// 400 naming the field that is out of range or unknown; what `resolve` refuses.
    pub fn plan(&self, resolve: impl FnOnce(&str) -> Result<PathBuf, ApiError>) -> Result<SearchPlan, ApiError> {
        let mut limits = Limits::default();
        if let Some(ms) = self.movetime_ms {
            if !(1..=600_000).contains(&ms) {
                return Err(ApiError::bad_request(format!("movetime_ms = {ms}: must be 1..=600000")));
            }
            limits.movetime = Some(Duration::from_millis(ms));
        }
        let engine = match self.engine.as_str() {
            "alphabeta" => {
                if self.model.is_some() || self.sims.is_some() {
                    return Err(ApiError::bad_request("model and sims are for the net engine, not alphabeta"));
                }
                if let Some(depth) = self.depth {
                    if !(1..=64).contains(&depth) {
                        return Err(ApiError::bad_request(format!("depth = {depth}: must be 1..=64")));
                    }
                    limits.depth = Some(depth);
                }
                if limits.depth.is_none() && limits.movetime.is_none() {
                    limits.movetime = Some(Duration::from_millis(DEFAULT_MOVETIME_MS));
                }
                EngineChoice::AlphaBeta
            }
            "net" => {
                if self.depth.is_some() {
                    return Err(ApiError::bad_request("depth is for alphabeta; the net engine takes sims"));
                }
                let model = self.model.as_deref().unwrap_or("shipped");
                if let Some(sims) = self.sims {
                    if !(1..=1_000_000).contains(&sims) {
                        return Err(ApiError::bad_request(format!("sims = {sims}: must be 1..=1000000")));
                    }
                }
                limits.nodes = Some(u64::from(self.sims.unwrap_or(NetSettings::default().simulations)));
                EngineChoice::Net(resolve(model)?)
            }
            other => return Err(ApiError::bad_request(format!("engine {other:?}: must be \"alphabeta\" or \"net\""))),
        };
        if self.infinite {
            if self.play {
                return Err(ApiError::bad_request("an infinite search (analysis) cannot play: drop play or infinite"));
            }
            limits = Limits { infinite: true, ..Limits::default() };
        }
        Ok(SearchPlan { engine, limits, play: self.play })
    }
}

/// What every session does, whatever its game: the server's view of one.
pub trait Table: Send + Sync {
    /// The state as `API.md` describes it.
    fn state(&self) -> Value;
    /// Plays a move given in any notation the game reads.
    ///
    /// # Errors
    /// 400 for a move that does not read or is illegal, or a game already over; 409 while
    /// the engine searches.
    fn play(&self, text: &str) -> Result<Value, ApiError>;
    /// Takes back `plies` moves (at most those played), stopping a search without playing.
    fn undo(&self, plies: usize) -> Value;
    /// Starts again from the start position or `fen`.
    ///
    /// # Errors
    /// 400 for a FEN that does not read.
    fn reset(&self, fen: Option<&str>) -> Result<Value, ApiError>;
    /// Starts a search.
    ///
    /// # Errors
    /// 409 if one runs, 400 if the game is over, 400/500 if the engine cannot be built.
    fn search(&self, plan: SearchPlan) -> Result<Value, ApiError>;
    /// Stops the search, if any, once it has reported (an "AI move" plays what it has).
    fn stop(&self) -> Value;
    /// Abandons any search (the session is being dropped).
    fn close(&self);
    /// A receiver of this session's events.
    fn subscribe(&self) -> broadcast::Receiver<Event>;
}

/// The engine side of a session.
struct Engine<G: WebGame> {
    /// The background search, once one was asked for.
    thread: Option<SearchThread<Brain<G>>>,
    /// What `thread`'s searcher is.
    built_for: Option<EngineChoice>,
}

/// The game side of a session.
struct Core<G: WebGame> {
    game: G,
}

/// One game with its engine and its listeners.
pub struct Session<G: WebGame> {
    id: String,
    engine: Mutex<Engine<G>>,
    core: Arc<Mutex<Core<G>>>,
    searching: Arc<AtomicBool>,
    events: broadcast::Sender<Event>,
    net: Option<Loader<G>>,
    seed: u64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn send(events: &broadcast::Sender<Event>, name: &'static str, data: &Value) {
    // No tab listening is not an error.
    let _ = events.send(Event { name, data: data.to_string() });
}

impl<G: WebGame + SearchGame> Session<G> {
    /// A session on `game`, with `net` to load checkpoints for the net engine (none: the net
    /// engine is refused).
    #[must_use]
    pub fn new(id: String, game: G, net: Option<Loader<G>>, seed: u64) -> Session<G> {
        Session {
            id,
            engine: Mutex::new(Engine { thread: None, built_for: None }),
            core: Arc::new(Mutex::new(Core { game })),
            searching: Arc::new(AtomicBool::new(false)),
            events: broadcast::channel(EVENT_BUFFER).0,
            net,
            seed,
        }
    }

    /// Stops any search without playing its move; the engine lock is held by the caller.
    fn abandon_locked(&self, engine: &mut Engine<G>) {
        if let Some(thread) = engine.thread.as_mut() {
            thread.abandon();
        }
        self.searching.store(false, Ordering::SeqCst);
    }

    /// A searcher for `choice`.
    fn build(&self, choice: &EngineChoice) -> Result<Brain<G>, ApiError> {
        match choice {
            EngineChoice::AlphaBeta => Ok(Brain::AlphaBeta(alphabeta::Searcher::new(HASH_MB))),
            EngineChoice::Net(path) => {
                let loader = self
                    .net
                    .clone()
                    .ok_or_else(|| ApiError::bad_request(format!("this server has no net engine for {}", G::NAME)))?;
                let settings = NetSettings::default();
                NetSearcher::load(path, loader, settings, self.seed)
                    .map(|s| Brain::Net(Box::new(s)))
                    .map_err(|e| ApiError::bad_request(format!("cannot load the net {}: {e}", path.display())))
            }
        }
    }

    fn broadcast_state(&self) -> Value {
        let state = state_of(&self.id, &lock(&self.core).game, self.searching.load(Ordering::SeqCst));
        send(&self.events, "state", &json!({ "state": state }));
        state
    }
}

/// The state of `game` as `API.md` describes it.
fn state_of<G: WebGame>(id: &str, game: &G, searching: bool) -> Value {
    let replayed = games::replay(game);
    let history: Vec<Value> = replayed
        .steps
        .iter()
        .map(|(mv, after)| json!({ "move": mv, "board": after.board(), "fen": after.fen(), "check": after.check_square() }))
        .collect();
    let result = game.outcome().map(ResultView::of::<G>);
    json!({
        "id": id,
        "game": G::NAME,
        "side_names": G::SIDE_NAMES,
        "start_fen": replayed.start.fen(),
        "start_board": replayed.start.board(),
        "fen": game.fen(),
        "board": game.board(),
        "turn": game.side_to_move().index(),
        "ply": replayed.steps.len(),
        "history": history,
        "legal": games::legal_views(game),
        "check": game.check_square(),
        "result": result,
        "searching": searching,
        "record": {
            "format": G::RECORD_EXTENSION,
            "text": games::record_text(game, ["qizero serve".to_string(), "qizero serve".to_string()]),
        },
    })
}

/// A search report as the page reads it (`info` event).
#[derive(Serialize)]
struct InfoView {
    depth: u32,
    seldepth: u32,
    nodes: u64,
    nps: u64,
    time_ms: u64,
    score: Value,
    pv: Vec<MoveView>,
}

fn score_json(score: Score) -> Value {
    match score {
        Score::Cp(cp) => json!({ "cp": cp }),
        Score::Mate(m) => json!({ "mate": m }),
    }
}

/// The moves of `pv` from `root`, as far as they are legal.
fn pv_views<G: WebGame>(root: &G, pv: &[G::Move]) -> Vec<MoveView> {
    let mut at = root.clone();
    let mut out = Vec::with_capacity(pv.len());
    for &mv in pv {
        if !at.legal_moves().as_ref().contains(&mv) {
            break;
        }
        out.push(at.view(mv));
        at.play_unchecked(mv);
    }
    out
}

impl<G: WebGame + SearchGame> Table for Session<G> {
    fn state(&self) -> Value {
        state_of(&self.id, &lock(&self.core).game, self.searching.load(Ordering::SeqCst))
    }

    fn play(&self, text: &str) -> Result<Value, ApiError> {
        let engine = lock(&self.engine);
        if self.searching.load(Ordering::SeqCst) {
            return Err(ApiError::conflict("the engine is searching: stop it first"));
        }
        {
            let mut core = lock(&self.core);
            if let Some(outcome) = core.game.outcome() {
                return Err(ApiError::bad_request(format!(
                    "the game is over ({}): no more moves",
                    ResultView::of::<G>(outcome).text
                )));
            }
            let mv =
                core.game.parse_move(text.trim()).map_err(|e| ApiError::bad_request(format!("move {text:?}: {e}")))?;
            core.game.play_unchecked(mv);
        }
        drop(engine);
        Ok(self.broadcast_state())
    }

    fn undo(&self, plies: usize) -> Value {
        let mut engine = lock(&self.engine);
        self.abandon_locked(&mut engine);
        {
            let mut core = lock(&self.core);
            for _ in 0..plies {
                if core.game.undo().is_none() {
                    break;
                }
            }
        }
        drop(engine);
        self.broadcast_state()
    }

    fn reset(&self, fen: Option<&str>) -> Result<Value, ApiError> {
        let game = match fen {
            Some(fen) => G::from_fen(fen.trim()).map_err(|e| ApiError::bad_request(format!("FEN {fen:?}: {e}")))?,
            None => {
                let mut start = lock(&self.core).game.clone();
                while start.undo().is_some() {}
                start
            }
        };
        let mut engine = lock(&self.engine);
        self.abandon_locked(&mut engine);
        if let Some(thread) = engine.thread.as_mut() {
            let _ = thread.idle(Brain::clear);
        }
        lock(&self.core).game = game;
        drop(engine);
        Ok(self.broadcast_state())
    }

    fn search(&self, plan: SearchPlan) -> Result<Value, ApiError> {
        let mut engine = lock(&self.engine);
        if self.searching.load(Ordering::SeqCst) {
            return Err(ApiError::conflict("the engine is already searching: stop it first"));
        }
        let game = lock(&self.core).game.clone();
        if let Some(outcome) = game.outcome() {
            return Err(ApiError::bad_request(format!(
                "the game is over ({}): nothing to search",
                ResultView::of::<G>(outcome).text
            )));
        }
        if engine.built_for.as_ref() != Some(&plan.engine) || engine.thread.is_none() {
            let brain = self.build(&plan.engine)?;
            engine.thread = Some(SearchThread::new(brain));
            engine.built_for = Some(plan.engine.clone());
        }
        let Some(thread) = engine.thread.as_mut() else {
            return Err(ApiError::internal("no search thread"));
        };
        let (events, root) = (self.events.clone(), game.clone());
        let on_info = move |info: &SearchInfo<G::Move>| {
            let view = InfoView {
                depth: info.depth,
                seldepth: info.seldepth,
                nodes: info.nodes,
                nps: info.nps,
                time_ms: u64::try_from(info.time.as_millis()).unwrap_or(u64::MAX),
                score: score_json(info.score),
                pv: pv_views(&root, &info.pv),
            };
            if let Ok(data) = serde_json::to_value(&view) {
                send(&events, "info", &data);
            }
        };
        let (core, searching, events, id, play) =
            (Arc::clone(&self.core), Arc::clone(&self.searching), self.events.clone(), self.id.clone(), plan.play);
        let on_done = move |searched: &G, result: SearchResult<G::Move>| {
            let mut core = lock(&core);
            let best = result.best.map(|mv| searched.view(mv));
            // The game cannot change under a running search (moves are refused, undo and
            // reset abandon it first); the check keeps a stale move off the board regardless.
            let current = core.game.key() == searched.key() && core.game.ply() == searched.ply();
            let played = match result.best {
                Some(mv) if play && current => {
                    core.game.play_unchecked(mv);
                    true
                }
                _ => false,
            };
            searching.store(false, Ordering::SeqCst);
            let state = state_of(&id, &core.game, false);
            send(&events, "done", &json!({ "best": best, "played": played, "state": state }));
        };
        self.searching.store(true, Ordering::SeqCst);
        if let Err(e) = thread.start(game, plan.limits, on_info, on_done) {
            self.searching.store(false, Ordering::SeqCst);
            return Err(ApiError::internal(format!("cannot start the search: {e}")));
        }
        drop(engine);
        Ok(self.state())
    }

    fn stop(&self) -> Value {
        let mut engine = lock(&self.engine);
        if let Some(thread) = engine.thread.as_mut() {
            thread.stop();
        }
        drop(engine);
        self.state()
    }

    fn close(&self) {
        let mut engine = lock(&self.engine);
        self.abandon_locked(&mut engine);
    }

    fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::Game;

    fn session() -> Session<xiangqi::Game> {
        Session::new("t".into(), xiangqi::Game::new(), None, 1)
    }

    fn plan(json: Value) -> Result<SearchPlan, ApiError> {
        let request: SearchRequest = serde_json::from_value(json).map_err(|e| ApiError::bad_request(e.to_string()))?;
        request.plan(|m| Err(ApiError::not_found(format!("no model {m}"))))
    }

    #[test]
    fn plans_check_their_numbers() {
        let p = plan(json!({ "engine": "alphabeta", "depth": 3, "play": true })).expect("valid");
        assert_eq!((p.engine, p.limits.depth, p.play), (EngineChoice::AlphaBeta, Some(3), true));
        let p = plan(json!({ "engine": "alphabeta" })).expect("valid");
        assert_eq!(p.limits.movetime, Some(Duration::from_millis(DEFAULT_MOVETIME_MS)));
        for bad in [
            json!({ "engine": "alphabeta", "depth": 0 }),
            json!({ "engine": "alphabeta", "movetime_ms": 0 }),
            json!({ "engine": "alphabeta", "sims": 10 }),
            json!({ "engine": "stockfish" }),
            json!({ "engine": "alphabeta", "infinite": true, "play": true }),
        ] {
            let e = plan(bad.clone()).expect_err("refused");
            assert_eq!(e.status, axum::http::StatusCode::BAD_REQUEST, "{bad}: {e}");
        }
        let e = plan(json!({ "engine": "net", "model": "run/9/100" })).expect_err("unknown model");
        assert_eq!(e.status, axum::http::StatusCode::NOT_FOUND);
    }

    #[test]
    fn an_ai_move_is_played_and_reported() {
        let s = session();
        let mut events = s.subscribe();
        let p = plan(json!({ "engine": "alphabeta", "depth": 2, "play": true })).expect("valid");
        let state = s.search(p).expect("starts");
        assert_eq!(state["searching"], true);
        let done = loop {
            let event = events.blocking_recv().expect("an event");
            if event.name == "done" {
                break event;
            }
            assert_eq!(event.name, "info");
        };
        let done: Value = serde_json::from_str(&done.data).expect("JSON");
        assert_eq!(done["played"], true);
        assert_eq!(done["state"]["ply"], 1);
        assert_eq!(s.state()["searching"], false);
        assert_eq!(s.state()["turn"], 1);
    }

    #[test]
    fn moves_are_refused_while_searching_and_after_the_end() {
        let s = session();
        let p = plan(json!({ "engine": "alphabeta", "infinite": true })).expect("valid");
        s.search(p.clone()).expect("starts");
        assert_eq!(s.play("h2e2").expect_err("busy").status, axum::http::StatusCode::CONFLICT);
        assert_eq!(s.search(p).expect_err("busy").status, axum::http::StatusCode::CONFLICT);
        let state = s.stop();
        assert_eq!((state["searching"].as_bool(), state["ply"].as_u64()), (Some(false), Some(0)));
        s.play("h2e2").expect("legal once stopped");
        let e = s.play("h2e2").expect_err("now illegal");
        assert!(e.message.contains("h2e2"), "{e}");
        // Black mated by two rooks.
        s.reset(Some("R3k4/1R7/9/9/9/9/9/9/9/3K5 b - - 0 1")).expect("valid FEN");
        let state = s.state();
        assert!(state["result"]["text"].as_str().is_some_and(|t| t.contains("checkmate")), "{state}");
        assert_eq!(state["legal"].as_array().map(Vec::len), Some(0));
        assert_eq!(s.play("e9e8").expect_err("over").status, axum::http::StatusCode::BAD_REQUEST);
    }

    #[test]
    fn undo_abandons_a_search_and_takes_back_moves() {
        let s = session();
        s.play("h2e2").expect("legal");
        s.play("h9g7").expect("legal");
        s.search(plan(json!({ "engine": "alphabeta", "infinite": true })).expect("valid")).expect("starts");
        let state = s.undo(1);
        assert_eq!((state["ply"].as_u64(), state["searching"].as_bool()), (Some(1), Some(false)));
        assert_eq!(s.undo(5)["ply"], 0);
        assert_eq!(s.state()["fen"], xiangqi::Game::new().fen());
    }

    #[test]
    fn the_net_engine_needs_a_loader() {
        let s = session();
        let e = s
            .search(SearchPlan {
                engine: EngineChoice::Net("x.safetensors".into()),
                limits: Limits::default(),
                play: true,
            })
            .expect_err("no loader");
        assert!(e.message.contains("no net engine"), "{e}");
    }
}
