//! The run directories a server watches (`qizero serve --run DIR`): their checkpoints (as
//! models for the net engine), ratings, metrics, self-play games and arena records, all read
//! through `pipeline::RunDir`'s paths. Nothing a request names becomes a path: runs are
//! numbered, checkpoints are steps, and match folders and record files are matched against a
//! listing of the folder they live in.
//!
//! Files here are written by other processes while we read them. Each is written atomically,
//! so a read sees a whole file or none; a file not there yet reads as empty (no ratings
//! before the first arena, no self-play game before the first shard).

use crate::error::ApiError;
use crate::games::{MoveView, ResultView, WebGame};
use game::Side;
use pipeline::RunDir;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Largest ratings file or game record read.
const MAX_SMALL_FILE: u64 = 16 << 20;

/// One watched run.
#[derive(Clone, Debug)]
pub struct Run {
    /// The folder, as given.
    pub dir: RunDir,
    /// Its game (from its config.toml).
    pub game: String,
}

impl Run {
    /// Opens the run at `path`: it must exist and hold a config.toml naming its game.
    ///
    /// # Errors
    /// A message naming the folder and what is missing.
    pub fn open(path: &Path) -> Result<Run, String> {
        let dir = RunDir::new(path);
        if !path.is_dir() {
            return Err(format!("{}: no such run directory", path.display()));
        }
        let config = dir.config();
        let text = std::fs::read_to_string(&config).map_err(|e| format!("{}: {e}", config.display()))?;
        let table: toml::Table = text.parse().map_err(|e| format!("{}: {e}", config.display()))?;
        let game = match table.get("game").and_then(toml::Value::as_str) {
            Some(g @ ("xiangqi" | "draughts")) => g.to_string(),
            Some(other) => return Err(format!("{}: unknown game {other:?}", config.display())),
            None => return Err(format!("{}: no `game` key", config.display())),
        };
        Ok(Run { dir, game })
    }

    /// The complete checkpoints, (step, weights file), oldest first.
    #[must_use]
    pub fn checkpoints(&self) -> Vec<(u64, PathBuf)> {
        train::lineage::complete(&self.dir.checkpoints())
    }

    /// `arena/ratings.json`, or an empty ladder before the first rating.
    ///
    /// # Errors
    /// 500 if the file is there but does not read as JSON.
    pub fn ratings(&self) -> Result<Value, ApiError> {
        let path = self.dir.ratings();
        match durable::read_text_bounded(&path, MAX_SMALL_FILE) {
            Ok(text) => serde_json::from_str(&text)
                .map_err(|e| ApiError::internal(format!("{}: not a ratings file: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Ok(json!({ "anchor": "random", "players": [], "matches": [] }))
            }
            Err(e) => Err(ApiError::internal(format!("{}: {e}", path.display()))),
        }
    }

    /// The metrics events, grouped for the page's charts (see `API.md`).
    ///
    /// # Errors
    /// 500 if `metrics.jsonl` cannot be read.
    pub fn metrics(&self) -> Result<Value, ApiError> {
        use pipeline::metrics::MetricsEvent;
        let metrics = pipeline::metrics::read(&self.dir.metrics()).map_err(|e| ApiError::internal(e.to_string()))?;
        let (mut train, mut selfplay, mut gates, mut generations, mut arena) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for line in &metrics.lines {
            let time_ms = line.time_ms;
            match &line.event {
                MetricsEvent::Train(t) => train.push(json!({
                    "time_ms": time_ms, "step": t.step, "policy_loss": t.policy_loss, "value_loss": t.value_loss,
                    "learning_rate": t.learning_rate, "samples_per_s": t.samples_per_s,
                })),
                MetricsEvent::Selfplay(s) => selfplay.push(json!({
                    "time_ms": time_ms, "worker": s.worker, "games": s.games, "positions": s.positions,
                    "positions_per_s": s.positions_per_s, "evals_per_s": s.evals_per_s, "mean_batch": s.mean_batch,
                })),
                MetricsEvent::Arena(m) => {
                    let entry = json!({
                        "time_ms": time_ms, "step": m.step, "candidate": m.a, "best": m.b, "opponent": m.b,
                        "kind": m.kind, "verdict": m.verdict, "wins": m.wins, "draws": m.draws, "losses": m.losses,
                    });
                    if matches!(m.kind, pipeline::matches::MatchKind::Gate) {
                        gates.push(entry.clone());
                    }
                    arena.push(entry);
                }
                MetricsEvent::Generation(g) => generations.push(json!({
                    "time_ms": time_ms, "generation": g.generation, "step": g.step, "positions": g.positions,
                    "seconds": g.seconds, "best": g.best,
                })),
                MetricsEvent::Checkpoint(_) | MetricsEvent::CorruptShard { .. } => {}
            }
        }
        Ok(json!({
            "train": train, "selfplay": selfplay, "gates": gates, "arena": arena,
            "generations": generations, "skipped_lines": metrics.skipped,
        }))
    }

    /// The newest shard file, if any.
    fn newest_shard(&self) -> Option<PathBuf> {
        // Shard names start with their writing time in milliseconds, so the last name is the newest.
        shard::list_shards(&self.dir.shards()).ok()?.into_iter().max_by(|a, b| a.file_name().cmp(&b.file_name()))
    }

    /// The match folders under `arena/` with their record files, sorted by name.
    #[must_use]
    pub fn arena_listing(&self, extension: &str) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = list_dir(&self.dir.arena(), true)
            .into_iter()
            .map(|name| {
                let mut files: Vec<String> = list_dir(&self.dir.arena().join(&name), false)
                    .into_iter()
                    .filter(|f| f.ends_with(&format!(".{extension}")))
                    .collect();
                files.sort();
                (name, files)
            })
            .collect();
        out.sort();
        out
    }

    /// What changes between polls: the modification times of the files the page shows.
    #[must_use]
    pub fn stamps(&self) -> [(&'static str, Option<SystemTime>); 4] {
        let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        [
            ("ratings", mtime(&self.dir.ratings())),
            ("metrics", mtime(&self.dir.metrics())),
            ("selfplay", self.newest_shard().and_then(|p| mtime(&p))),
            ("arena", mtime(&self.dir.matches())),
        ]
    }
}

/// The names of the sub-folders (`dirs`) or plain files in `dir`; none if it cannot be read.
fn list_dir(dir: &Path, dirs: bool) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| if dirs { t.is_dir() } else { t.is_file() }))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !durable::is_temp_name(n))
        .collect()
}

/// A game replayed for the page: the start and one frame per move.
fn replay_json<G: WebGame>(start: &G, moves: &[G::Move], players: Option<[String; 2]>, result: Option<Value>) -> Value {
    let mut at = start.clone();
    let mut frames = Vec::with_capacity(moves.len());
    for &mv in moves {
        let view: MoveView = at.view(mv);
        at.play_unchecked(mv);
        frames.push(json!({ "move": view, "board": at.board(), "check": at.check_square() }));
    }
    let result = result.or_else(|| at.outcome().map(|o| json!(ResultView::of::<G>(o))));
    json!({
        "game": G::NAME, "side_names": G::SIDE_NAMES, "start_board": start.board(), "start_fen": start.fen(),
        "players": players, "result": result, "frames": frames,
    })
}

/// The newest self-play game of `run`, replayed.
///
/// # Errors
/// 404 before the first shard; 500 for a shard that does not read or does not replay.
pub fn latest_selfplay<G: WebGame>(run: &Run) -> Result<Value, ApiError> {
    let path = run.newest_shard().ok_or_else(|| ApiError::not_found("no self-play game yet (no shard)"))?;
    let shard = shard::read_shard(&path).map_err(|e| ApiError::internal(e.to_string()))?;
    shard.expect_game::<G>(&path).map_err(|e| ApiError::internal(e.to_string()))?;
    let record = shard.games.last().ok_or_else(|| ApiError::internal(format!("{}: holds no game", path.display())))?;
    let start = G::from_fen(&record.start_fen)
        .map_err(|e| ApiError::internal(format!("{}: start FEN: {e}", path.display())))?;
    let mut at = start.clone();
    let mut moves = Vec::with_capacity(record.moves.len());
    for (i, text) in record.moves.iter().enumerate() {
        let mv = at.parse_move_strict(text).map_err(|e| {
            ApiError::internal(format!("{}: game {}, move {}: {e}", path.display(), record.game_id, i + 1))
        })?;
        at.play_unchecked(mv);
        moves.push(mv);
    }
    let winner = record.result.winner.map(Side::from);
    let score = record.result.score_str();
    let reason = record.result.reason.replace('-', " ");
    let text = match winner {
        Some(side) => format!("{} wins by {reason}", G::SIDE_NAMES[side.index()]),
        None => format!("draw ({reason})"),
    };
    let result = json!({ "score": score, "winner": winner.map(Side::index), "reason": reason, "text": text });
    let mut replay = replay_json(&start, &moves, None, Some(result));
    replay["shard"] = json!(path.file_name().map(|n| n.to_string_lossy().into_owned()));
    replay["model"] = json!(shard.header.model);
    Ok(replay)
}

/// Arena record `file` of match folder `name`, replayed.
///
/// # Errors
/// 404 unless both are in the listing; 400/500 for a record that does not read.
pub fn arena_record<G: WebGame>(run: &Run, name: &str, file: &str) -> Result<Value, ApiError> {
    let listing = run.arena_listing(G::RECORD_EXTENSION);
    let known = listing.iter().any(|(m, files)| m == name && files.iter().any(|f| f == file));
    if !known {
        return Err(ApiError::not_found(format!("no arena record {name}/{file} in this run")));
    }
    let path = run.dir.arena().join(name).join(file);
    let text = durable::read_text_bounded(&path, MAX_SMALL_FILE)
        .map_err(|e| ApiError::internal(format!("{}: {e}", path.display())))?;
    let parsed =
        arena::record::parse_record(&text).map_err(|e| ApiError::internal(format!("{}: {e}", path.display())))?;
    let start = match parsed.tag("FEN") {
        Some(fen) => G::from_fen(fen).map_err(|e| ApiError::internal(format!("{}: FEN: {e}", path.display())))?,
        None => G::new(),
    };
    let mut at = start.clone();
    let mut moves = Vec::with_capacity(parsed.moves.len());
    for (i, text) in parsed.moves.iter().enumerate() {
        let mv = at
            .parse_move(text)
            .map_err(|e| ApiError::internal(format!("{}: move {} ({text}): {e}", path.display(), i + 1)))?;
        at.play_unchecked(mv);
        moves.push(mv);
    }
    let players = [G::SIDE_NAMES[0], G::SIDE_NAMES[1]].map(|side| parsed.tag(side).unwrap_or("?").to_string());
    let score = parsed.tag("Result").or(parsed.result.as_deref()).unwrap_or("*").to_string();
    let reason = parsed.tag("Termination").unwrap_or("").to_string();
    let result =
        json!({ "score": score, "winner": Value::Null, "reason": reason, "text": format!("{score} ({reason})") });
    Ok(replay_json(&start, &moves, Some(players), Some(result)))
}
