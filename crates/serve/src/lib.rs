//! `qizero serve`: one local web server with a page to play and analyse both games against the
//! engines (alpha-beta, or MCTS with a shipped model or a run's checkpoint), and to watch
//! training runs live.
//!
//! - The page is plain ES modules and SVG, embedded in the binary ([`assets`]); it talks to
//!   the server only through the JSON interface of `API.md`, and knows no rules: legal moves,
//!   notation, check and results all come from the rules crates through [`games::WebGame`].
//! - Each game on the page is a [`session::Session`] with its own engine thread; live search
//!   reports reach every tab that watches the game as server-sent events.
//! - Runs are read through [`watch::Run`]; nothing a request says becomes a path.
//! - The async runtime lives in this crate only: [`serve`] starts it and returns when the
//!   server stops (Ctrl-C, SIGTERM). Engine work runs on blocking threads, never on the
//!   runtime's own.

pub mod assets;
pub mod error;
pub mod games;
pub mod session;
pub mod watch;

use crate::error::ApiError;
use crate::session::{SearchRequest, Session, Table};
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{StatusCode, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use engine::net::Loader;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::IntoFuture as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio_stream::StreamExt as _;
use tokio_stream::wrappers::BroadcastStream;
use watch::Run;

/// Games one server keeps at most; the least recently used idle one goes when a new one
/// would pass this.
pub const MAX_GAMES: usize = 256;
/// Largest request body read.
const MAX_BODY: usize = 1 << 20;

/// What a server serves.
#[derive(Clone, Default)]
pub struct ServeConfig {
    /// Where to listen (port 0: any free port).
    pub addr: Option<SocketAddr>,
    /// Runs to watch and whose checkpoints to offer.
    pub runs: Vec<Run>,
    /// The shipped model of each game, if there is one: (game, file).
    pub shipped: Vec<(String, PathBuf)>,
    /// Loads xiangqi nets (none: no net engine for xiangqi).
    pub xiangqi_net: Option<Loader<xiangqi::Game>>,
    /// Loads draughts nets.
    pub draughts_net: Option<Loader<draughts::Game>>,
    /// Serve the page from this folder instead of the embedded copy (development).
    pub assets_dir: Option<PathBuf>,
}

/// A game session with its last use.
struct Entry {
    table: Arc<dyn Table>,
    used: Instant,
}

/// The server's state.
pub struct App {
    config: ServeConfig,
    games: Mutex<HashMap<String, Entry>>,
    next_id: AtomicU64,
}

impl App {
    /// A server's state for `config`.
    #[must_use]
    pub fn new(config: ServeConfig) -> Arc<App> {
        Arc::new(App { config, games: Mutex::new(HashMap::new()), next_id: AtomicU64::new(1) })
    }

    fn table(&self, id: &str) -> Result<Arc<dyn Table>, ApiError> {
        let mut games = self.games.lock().unwrap_or_else(PoisonError::into_inner);
        let entry =
            games.get_mut(id).ok_or_else(|| ApiError::not_found(format!("no game {id:?} (it may have expired)")))?;
        entry.used = Instant::now();
        Ok(Arc::clone(&entry.table))
    }

    fn insert(&self, table: Arc<dyn Table>, id: String) {
        let mut games = self.games.lock().unwrap_or_else(PoisonError::into_inner);
        while games.len() >= MAX_GAMES {
            let Some(oldest) = games.iter().min_by_key(|(_, e)| e.used).map(|(k, _)| k.clone()) else { break };
            if let Some(entry) = games.remove(&oldest) {
                entry.table.close();
            }
        }
        games.insert(id, Entry { table, used: Instant::now() });
    }

    fn run(&self, r: &str) -> Result<&Run, ApiError> {
        r.parse::<usize>().ok().and_then(|i| self.config.runs.get(i)).ok_or_else(|| {
            ApiError::not_found(format!("no run {r:?} (this server watches {})", self.config.runs.len()))
        })
    }

    /// The models for `game` (see `API.md`, "Models").
    fn models(&self, game: &str) -> Vec<Value> {
        let mut out = Vec::new();
        for (g, path) in &self.config.shipped {
            if g == game {
                out.push(json!({ "id": "shipped", "label": format!("shipped model ({})", path.display()) }));
            }
        }
        for (r, run) in self.config.runs.iter().enumerate() {
            if run.game != game {
                continue;
            }
            for (step, _) in run.checkpoints().into_iter().rev() {
                out.push(json!({
                    "id": format!("run/{r}/{step}"),
                    "label": format!("{} ckpt-{step}", run.dir.root().display()),
                    "step": step,
                }));
            }
        }
        out
    }

    /// The file of model `id` for `game`.
    fn resolve_model(&self, game: &str, id: &str) -> Result<PathBuf, ApiError> {
        if id == "shipped" {
            return self
                .config
                .shipped
                .iter()
                .find(|(g, _)| g == game)
                .map(|(_, p)| p.clone())
                .ok_or_else(|| ApiError::not_found(format!("no shipped model for {game}")));
        }
        let unknown =
            || ApiError::not_found(format!("no model {id:?} for {game} (GET /api/models?game={game} lists them)"));
        let mut parts = id.split('/');
        let (Some("run"), Some(r), Some(step), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
            return Err(unknown());
        };
        let run = self.run(r).map_err(|_| unknown())?;
        if run.game != game {
            return Err(ApiError::bad_request(format!("model {id:?} is a {} net, not {game}", run.game)));
        }
        let step: u64 = step.parse().map_err(|_| unknown())?;
        run.checkpoints().into_iter().find(|(s, _)| *s == step).map(|(_, p)| p).ok_or_else(unknown)
    }
}

/// Runs blocking session work off the runtime's threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| ApiError::internal(format!("a request's task failed: {e}")))?
}

/// Reads a JSON body (an empty one reads as `{}`), with a message naming the problem.
fn body<T: DeserializeOwned>(bytes: &Bytes) -> Result<T, ApiError> {
    let text = if bytes.iter().all(u8::is_ascii_whitespace) { b"{}".as_slice() } else { bytes.as_ref() };
    serde_json::from_slice(text).map_err(|e| ApiError::bad_request(format!("bad request body: {e}")))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    game: String,
    fen: Option<String>,
    record: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveBody {
    #[serde(rename = "move")]
    mv: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UndoBody {
    plies: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResetBody {
    fen: Option<String>,
}

#[derive(Deserialize)]
struct GameQuery {
    game: Option<String>,
}

fn session_for<G: games::WebGame + alphabeta::SearchGame>(
    id: String,
    fen: Option<&str>,
    record: Option<&str>,
    net: Option<Loader<G>>,
    seed: u64,
) -> Result<Arc<dyn Table>, ApiError> {
    let game = match (fen, record) {
        (Some(_), Some(_)) => return Err(ApiError::bad_request("give fen or record, not both")),
        (Some(fen), None) => G::from_fen(fen.trim()).map_err(|e| ApiError::bad_request(format!("FEN {fen:?}: {e}")))?,
        (None, Some(text)) => games::game_from_record::<G>(text).map_err(ApiError::bad_request)?,
        (None, None) => G::new(),
    };
    Ok(Arc::new(Session::new(id, game, net, seed)))
}

async fn create_game(State(app): State<Arc<App>>, bytes: Bytes) -> Result<Response, ApiError> {
    let request: NewGame = body(&bytes)?;
    let n = app.next_id.fetch_add(1, Ordering::Relaxed);
    let id = format!("g{n}");
    let (fen, record) = (request.fen.as_deref(), request.record.as_deref());
    let table = match request.game.as_str() {
        "xiangqi" => session_for::<xiangqi::Game>(id.clone(), fen, record, app.config.xiangqi_net.clone(), n)?,
        "draughts" => session_for::<draughts::Game>(id.clone(), fen, record, app.config.draughts_net.clone(), n)?,
        other => return Err(ApiError::bad_request(format!("game {other:?}: must be \"xiangqi\" or \"draughts\""))),
    };
    let state = table.state();
    app.insert(table, id);
    Ok((StatusCode::CREATED, Json(state)).into_response())
}

async fn get_game(State(app): State<Arc<App>>, UrlPath(id): UrlPath<String>) -> Result<Json<Value>, ApiError> {
    let table = app.table(&id)?;
    blocking(move || Ok(table.state())).await.map(Json)
}

async fn play_move(
    State(app): State<Arc<App>>,
    UrlPath(id): UrlPath<String>,
    bytes: Bytes,
) -> Result<Json<Value>, ApiError> {
    let table = app.table(&id)?;
    let request: MoveBody = body(&bytes)?;
    blocking(move || table.play(&request.mv)).await.map(Json)
}

async fn undo(
    State(app): State<Arc<App>>,
    UrlPath(id): UrlPath<String>,
    bytes: Bytes,
) -> Result<Json<Value>, ApiError> {
    let table = app.table(&id)?;
    let request: UndoBody = body(&bytes)?;
    blocking(move || Ok(table.undo(request.plies.unwrap_or(1)))).await.map(Json)
}

async fn reset(
    State(app): State<Arc<App>>,
    UrlPath(id): UrlPath<String>,
    bytes: Bytes,
) -> Result<Json<Value>, ApiError> {
    let table = app.table(&id)?;
    let request: ResetBody = body(&bytes)?;
    blocking(move || table.reset(request.fen.as_deref())).await.map(Json)
}

async fn search(State(app): State<Arc<App>>, UrlPath(id): UrlPath<String>, bytes: Bytes) -> Result<Response, ApiError> {
    let table = app.table(&id)?;
    let request: SearchRequest = body(&bytes)?;
    let game = table.state()["game"].as_str().unwrap_or_default().to_string();
    let plan = request.plan(|model| app.resolve_model(&game, model))?;
    let state = blocking(move || table.search(plan)).await?;
    Ok((StatusCode::ACCEPTED, Json(state)).into_response())
}

async fn stop(State(app): State<Arc<App>>, UrlPath(id): UrlPath<String>) -> Result<Json<Value>, ApiError> {
    let table = app.table(&id)?;
    blocking(move || Ok(table.stop())).await.map(Json)
}

async fn delete_game(State(app): State<Arc<App>>, UrlPath(id): UrlPath<String>) -> Result<StatusCode, ApiError> {
    let entry = app.games.lock().unwrap_or_else(PoisonError::into_inner).remove(&id);
    let entry = entry.ok_or_else(|| ApiError::not_found(format!("no game {id:?}")))?;
    blocking(move || {
        entry.table.close();
        Ok(())
    })
    .await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn game_events(
    State(app): State<Arc<App>>,
    UrlPath(id): UrlPath<String>,
) -> Result<Sse<impl tokio_stream::Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let table = app.table(&id)?;
    let stream = BroadcastStream::new(table.subscribe())
        // A tab that fell behind misses events; the next `done` or `state` carries the whole state.
        .filter_map(|event| event.ok())
        .map(|event| Ok(SseEvent::default().event(event.name).data(event.data)));
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

async fn list_models(State(app): State<Arc<App>>, Query(query): Query<GameQuery>) -> Result<Json<Value>, ApiError> {
    let game = query.game.ok_or_else(|| ApiError::bad_request("name the game: /api/models?game=xiangqi"))?;
    if !matches!(game.as_str(), "xiangqi" | "draughts") {
        return Err(ApiError::bad_request(format!("game {game:?}: must be \"xiangqi\" or \"draughts\"")));
    }
    let app = Arc::clone(&app);
    blocking(move || Ok(json!(app.models(&game)))).await.map(Json)
}

async fn list_runs(State(app): State<Arc<App>>) -> Json<Value> {
    let runs: Vec<Value> = app
        .config
        .runs
        .iter()
        .enumerate()
        .map(|(i, run)| json!({ "id": i, "name": run.dir.root().display().to_string(), "game": run.game }))
        .collect();
    Json(json!(runs))
}

/// Runs `f` on run `r` on a blocking thread.
async fn with_run<T: Send + 'static>(
    app: &Arc<App>,
    r: &str,
    f: impl FnOnce(&Run) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let run = app.run(r)?.clone();
    blocking(move || f(&run)).await
}

async fn run_ratings(State(app): State<Arc<App>>, UrlPath(r): UrlPath<String>) -> Result<Json<Value>, ApiError> {
    with_run(&app, &r, Run::ratings).await.map(Json)
}

async fn run_metrics(State(app): State<Arc<App>>, UrlPath(r): UrlPath<String>) -> Result<Json<Value>, ApiError> {
    with_run(&app, &r, Run::metrics).await.map(Json)
}

async fn run_selfplay(State(app): State<Arc<App>>, UrlPath(r): UrlPath<String>) -> Result<Json<Value>, ApiError> {
    with_run(&app, &r, |run| match run.game.as_str() {
        "xiangqi" => watch::latest_selfplay::<xiangqi::Game>(run),
        _ => watch::latest_selfplay::<draughts::Game>(run),
    })
    .await
    .map(Json)
}

fn record_extension(game: &str) -> &'static str {
    use arena::ArenaGame;
    if game == "xiangqi" { xiangqi::Game::RECORD_EXTENSION } else { draughts::Game::RECORD_EXTENSION }
}

async fn run_arena(State(app): State<Arc<App>>, UrlPath(r): UrlPath<String>) -> Result<Json<Value>, ApiError> {
    with_run(&app, &r, |run| {
        let listing = run.arena_listing(record_extension(&run.game));
        Ok(json!(listing.into_iter().map(|(m, files)| json!({ "match": m, "games": files })).collect::<Vec<_>>()))
    })
    .await
    .map(Json)
}

async fn run_record(
    State(app): State<Arc<App>>,
    UrlPath((r, name, file)): UrlPath<(String, String, String)>,
) -> Result<Json<Value>, ApiError> {
    with_run(&app, &r, move |run| match run.game.as_str() {
        "xiangqi" => watch::arena_record::<xiangqi::Game>(run, &name, &file),
        _ => watch::arena_record::<draughts::Game>(run, &name, &file),
    })
    .await
    .map(Json)
}

async fn run_events(
    State(app): State<Arc<App>>,
    UrlPath(r): UrlPath<String>,
) -> Result<Sse<impl tokio_stream::Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let run = app.run(&r)?.clone();
    let (tx, rx) = tokio::sync::mpsc::channel::<SseEvent>(16);
    tokio::spawn(async move {
        let mut last = None;
        loop {
            let probe = run.clone();
            let Ok(stamps) = tokio::task::spawn_blocking(move || probe.stamps()).await else { return };
            if let Some(before) = &last {
                for ((what, now), (_, then)) in stamps.iter().zip(before as &[(&str, _); 4]) {
                    if now != then {
                        let event = SseEvent::default().event("changed").data(json!({ "what": what }).to_string());
                        if tx.send(event).await.is_err() {
                            return;
                        }
                    }
                }
            }
            last = Some(stamps);
            if tx.is_closed() {
                return;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    });
    let stream = tokio_stream::wrappers::ReceiverStream::new(rx).map(Ok);
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

/// A page file by name: embedded, or from the development folder.
fn asset(app: &App, name: &str) -> Response {
    let bytes = match &app.config.assets_dir {
        Some(dir) => assets::from_dir(dir, name),
        None => assets::embedded(name).map(<[u8]>::to_vec),
    };
    match bytes {
        Some(bytes) => ([(header::CONTENT_TYPE, assets::content_type(name))], bytes).into_response(),
        None => ApiError::not_found(format!("no page file {name:?}")).into_response(),
    }
}

async fn index(State(app): State<Arc<App>>) -> Response {
    asset(&app, "index.html")
}

async fn watch_page(State(app): State<Arc<App>>) -> Response {
    asset(&app, "watch.html")
}

async fn asset_file(State(app): State<Arc<App>>, UrlPath(name): UrlPath<String>) -> Response {
    asset(&app, &name)
}

async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no such page or API call: {}", uri.path()))
}

/// The server's routes (see `API.md`), for [`serve`] and for tests.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/watch", get(watch_page))
        .route("/assets/{name}", get(asset_file))
        .route("/api/games", post(create_game))
        .route("/api/games/{id}", get(get_game).delete(delete_game))
        .route("/api/games/{id}/move", post(play_move))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/reset", post(reset))
        .route("/api/games/{id}/search", post(search))
        .route("/api/games/{id}/stop", post(stop))
        .route("/api/games/{id}/events", get(game_events))
        .route("/api/models", get(list_models))
        .route("/api/runs", get(list_runs))
        .route("/api/runs/{r}/ratings", get(run_ratings))
        .route("/api/runs/{r}/metrics", get(run_metrics))
        .route("/api/runs/{r}/selfplay/latest", get(run_selfplay))
        .route("/api/runs/{r}/arena", get(run_arena))
        .route("/api/runs/{r}/arena/{name}/{file}", get(run_record))
        .route("/api/runs/{r}/events", get(run_events))
        .fallback(not_found)
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .with_state(app)
}

/// Why the server did not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The runtime could not start.
    #[error("cannot start the server's runtime: {0}")]
    Runtime(std::io::Error),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The server failed while running.
    #[error("the server failed: {0}")]
    Serve(std::io::Error),
}

/// The default address: localhost, port 8080.
pub const DEFAULT_ADDR: ([u8; 4], u16) = ([127, 0, 0, 1], 8080);

/// Serves `config` until Ctrl-C or SIGTERM; calls `listening` with the bound address first.
///
/// # Errors
/// [`ServeError`] if the runtime cannot start, the address cannot be bound, or serving fails.
pub fn serve(config: ServeConfig, listening: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("serve")
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    let addr = config.addr.unwrap_or_else(|| SocketAddr::from(DEFAULT_ADDR));
    let app = App::new(config);
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|source| ServeError::Bind { addr, source })?;
        let bound = listener.local_addr().map_err(ServeError::Serve)?;
        // The handlers are in place before the address is announced: a signal sent as soon as
        // the server answers stops it, never kills it with the default action.
        let stop = Shutdown::install();
        listening(bound);
        // Not a graceful shutdown: open event streams would keep it waiting for ever. The
        // server owns no file, so dropping the connections loses nothing.
        tokio::select! {
            served = axum::serve(listener, router(app)).into_future() => served.map_err(ServeError::Serve),
            () = stop.wait() => Ok(()),
        }
    })?;
    runtime.shutdown_timeout(Duration::from_millis(500));
    Ok(())
}

/// Ctrl-C (SIGINT) and SIGTERM, caught from the moment [`Shutdown::install`] returns. A signal
/// whose handler cannot be installed is left to its default action.
struct Shutdown {
    interrupt: Option<tokio::signal::unix::Signal>,
    terminate: Option<tokio::signal::unix::Signal>,
}

impl Shutdown {
    /// Installs both handlers now (inside the runtime).
    fn install() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        Self { interrupt: signal(SignalKind::interrupt()).ok(), terminate: signal(SignalKind::terminate()).ok() }
    }

    /// Resolves on the first of the two signals.
    async fn wait(mut self) {
        async fn next(signal: Option<&mut tokio::signal::unix::Signal>) {
            match signal {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        tokio::select! {
            () = next(self.interrupt.as_mut()) => {},
            () = next(self.terminate.as_mut()) => {},
        }
    }
}
