//! The HTTP interface (`API.md`), driven through the router without a socket: refusals with
//! their messages (an illegal move, a bad FEN, an unknown checkpoint, bad bodies), path
//! traversal, live search events, many games at once, and a watched run.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use serve::watch::Run;
use serve::{App, ServeConfig, router};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tower::ServiceExt;

async fn call(app: &Arc<App>, method: &str, uri: &str, body: Option<Value>) -> (StatusCode, Value) {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
        .expect("a valid request");
    let response = router(Arc::clone(app)).oneshot(request).await.expect("the router answers");
    let status = response.status();
    let bytes = response.into_body().collect().await.expect("a body").to_bytes();
    let value = if bytes.is_empty() { Value::Null } else { serde_json::from_slice(&bytes).unwrap_or(Value::Null) };
    (status, value)
}

async fn raw(app: &Arc<App>, uri: &str) -> (StatusCode, String) {
    let request = Request::builder().uri(uri).body(Body::empty()).expect("a valid request");
    let response = router(Arc::clone(app)).oneshot(request).await.expect("the router answers");
    let status = response.status();
    let bytes = response.into_body().collect().await.expect("a body").to_bytes();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

fn error_of(value: &Value) -> &str {
    value["error"].as_str().unwrap_or_default()
}

async fn new_game(app: &Arc<App>, game: &str) -> Value {
    let (status, state) = call(app, "POST", "/api/games", Some(json!({ "game": game }))).await;
    assert_eq!(status, StatusCode::CREATED, "{state}");
    state
}

fn plain_app() -> Arc<App> {
    App::new(ServeConfig::default())
}

#[tokio::test]
async fn an_illegal_move_is_refused_with_its_reason() {
    let app = plain_app();
    let id = new_game(&app, "xiangqi").await["id"].as_str().expect("an id").to_string();
    let (status, body) = call(&app, "POST", &format!("/api/games/{id}/move"), Some(json!({ "move": "h2h8" }))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&body).contains("h2h8"), "{body}");
    let (status, state) = call(&app, "POST", &format!("/api/games/{id}/move"), Some(json!({ "move": "C2=5" }))).await;
    assert_eq!(status, StatusCode::OK, "{state}");
    assert_eq!(state["ply"], 1);
    assert_eq!(state["history"][0]["move"]["id"], "h2e2");
    // Draughts: a move that is not one, and one that is.
    let id = new_game(&app, "draughts").await["id"].as_str().expect("an id").to_string();
    let (status, body) = call(&app, "POST", &format!("/api/games/{id}/move"), Some(json!({ "move": "46-41" }))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(!error_of(&body).is_empty());
    let (status, state) = call(&app, "POST", &format!("/api/games/{id}/move"), Some(json!({ "move": "32-28" }))).await;
    assert_eq!((status, state["turn"].as_u64()), (StatusCode::OK, Some(1)));
}

#[tokio::test]
async fn a_bad_fen_or_record_is_refused_with_its_reason() {
    let app = plain_app();
    for (game, fen) in [("xiangqi", "rnbakabnr/9/9 w"), ("draughts", "W:W51:B1")] {
        let (status, body) = call(&app, "POST", "/api/games", Some(json!({ "game": game, "fen": fen }))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{game} {fen}: {body}");
        assert!(error_of(&body).contains("FEN"), "{body}");
    }
    let (status, body) = call(&app, "POST", "/api/games", Some(json!({ "game": "chess" }))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&body).contains("chess"), "{body}");
    let (status, body) =
        call(&app, "POST", "/api/games", Some(json!({ "game": "xiangqi", "record": "1. C2=5 K5+5" }))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&body).contains("move 2"), "{body}");
    // A record that reads is the game it holds.
    let (status, state) =
        call(&app, "POST", "/api/games", Some(json!({ "game": "xiangqi", "record": "1. C2=5 H8+7 2. H2+3" }))).await;
    assert_eq!((status, state["ply"].as_u64()), (StatusCode::CREATED, Some(3)), "{state}");
    // Reset to a FEN that does not read changes nothing.
    let id = state["id"].as_str().expect("an id");
    let (status, body) = call(&app, "POST", &format!("/api/games/{id}/reset"), Some(json!({ "fen": "x" }))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(call(&app, "GET", &format!("/api/games/{id}"), None).await.1["ply"], 3);
}

#[tokio::test]
async fn bad_bodies_and_unknown_things_get_json_errors() {
    let app = plain_app();
    let request = Request::builder().method("POST").uri("/api/games").body(Body::from("{not json")).expect("request");
    let response = router(Arc::clone(&app)).oneshot(request).await.expect("answers");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let (status, body) = call(&app, "POST", "/api/games", Some(json!({ "game": "xiangqi", "colour": 1 }))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&body).contains("colour"), "{body}");
    let (status, body) = call(&app, "GET", "/api/games/g999", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(error_of(&body).contains("g999"), "{body}");
    let (status, body) = call(&app, "GET", "/api/nothing", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(error_of(&body).contains("/api/nothing"), "{body}");
    let id = new_game(&app, "xiangqi").await["id"].as_str().expect("an id").to_string();
    let (status, body) =
        call(&app, "POST", &format!("/api/games/{id}/search"), Some(json!({ "engine": "alphabeta", "depth": 99 })))
            .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&body).contains("depth"), "{body}");
}

#[tokio::test]
async fn an_unknown_checkpoint_is_refused() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let run = micro_run(dir.path());
    let app = App::new(ServeConfig { runs: vec![run], ..ServeConfig::default() });
    let id = new_game(&app, "xiangqi").await["id"].as_str().expect("an id").to_string();
    for model in ["run/0/123", "run/7/0", "shipped", "../../etc/passwd", "run/0/../../x"] {
        let (status, body) = call(
            &app,
            "POST",
            &format!("/api/games/{id}/search"),
            Some(json!({ "engine": "net", "model": model, "sims": 10, "play": true })),
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{model}: {body}");
        assert!(error_of(&body).contains("model"), "{model}: {body}");
    }
    let (_, models) = call(&app, "GET", "/api/models?game=xiangqi", None).await;
    assert_eq!(models, json!([]));
    let (status, _) = call(&app, "GET", "/api/models", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn paths_outside_the_page_and_the_runs_are_refused() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let run = micro_run(dir.path());
    let app = App::new(ServeConfig { runs: vec![run], ..ServeConfig::default() });
    for uri in [
        "/assets/..%2F..%2FCargo.toml",
        "/assets/%2E%2E%2Fbuild.rs",
        "/assets/../../Cargo.toml",
        "/assets//etc/passwd",
        "/api/runs/0/arena/..%2F..%2F/config.toml",
        "/api/runs/0/arena/ckpt-1-vs-random/..%2Fratings.json",
        "/api/runs/0/arena/..%2Farena/ratings.json",
        "/api/runs/1/ratings",
        "/api/runs/..%2F/ratings",
        "/..%2F..%2Fetc%2Fpasswd",
    ] {
        let (status, text) = raw(&app, uri).await;
        assert!(status.is_client_error(), "{uri}: {status} {text}");
        assert!(!text.contains("root:") && !text.contains("[workspace]") && !text.contains("anchor"), "{uri}: {text}");
    }
    // What the run does hold is there.
    let (status, text) = raw(&app, "/api/runs/0/arena/ckpt-1-vs-random/xiangqi-0001.pgn").await;
    assert_eq!(status, StatusCode::OK, "{text}");
}

#[tokio::test]
async fn a_search_reports_live_and_plays_its_move() {
    let app = plain_app();
    let id = new_game(&app, "xiangqi").await["id"].as_str().expect("an id").to_string();
    let request = Request::builder().uri(format!("/api/games/{id}/events")).body(Body::empty()).expect("request");
    let response = router(Arc::clone(&app)).oneshot(request).await.expect("answers");
    assert_eq!(response.status(), StatusCode::OK);
    let mut events = response.into_body();
    let (status, state) = call(
        &app,
        "POST",
        &format!("/api/games/{id}/search"),
        Some(json!({ "engine": "alphabeta", "depth": 3, "play": true })),
    )
    .await;
    assert_eq!((status, state["searching"].as_bool()), (StatusCode::ACCEPTED, Some(true)), "{state}");
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !text.contains("event: done") {
        let frame = tokio::time::timeout_at(deadline, events.frame()).await.expect("a done event within 60 s");
        if let Some(Ok(frame)) = frame {
            if let Some(data) = frame.data_ref() {
                text.push_str(&String::from_utf8_lossy(data));
            }
        }
    }
    assert!(text.contains("event: info"), "{text}");
    let info = text
        .split("\n\n")
        .find(|e| e.starts_with("event: info"))
        .and_then(|e| e.lines().find_map(|l| l.strip_prefix("data: ")))
        .expect("an info event with data");
    let info: Value = serde_json::from_str(info).expect("JSON data");
    assert!(info["depth"].as_u64() >= Some(1), "{info}");
    assert!(info["pv"][0]["text"].is_string() && info["score"]["cp"].is_i64(), "{info}");
    let (_, state) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
    assert_eq!((state["ply"].as_u64(), state["searching"].as_bool()), (Some(1), Some(false)), "{state}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_games_at_once_do_not_interfere() {
    let app = plain_app();
    let mut tasks = Vec::new();
    for i in 0..20 {
        let app = Arc::clone(&app);
        tasks.push(tokio::spawn(async move {
            let game = if i % 2 == 0 { "xiangqi" } else { "draughts" };
            let id = new_game(&app, game).await["id"].as_str().expect("an id").to_string();
            // Each game its own opening move, then an engine reply.
            let first = if game == "xiangqi" {
                ["h2e2", "b2e2", "h0g2", "c3c4", "g3g4"][i / 2 % 5]
            } else {
                ["32-28", "31-27", "33-29", "34-30", "35-30"][i / 2 % 5]
            };
            let (status, _) =
                call(&app, "POST", &format!("/api/games/{id}/move"), Some(json!({ "move": first }))).await;
            assert_eq!(status, StatusCode::OK);
            let (status, _) = call(
                &app,
                "POST",
                &format!("/api/games/{id}/search"),
                Some(json!({ "engine": "alphabeta", "depth": 2, "play": true })),
            )
            .await;
            assert_eq!(status, StatusCode::ACCEPTED);
            let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
            loop {
                let (_, state) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
                if state["searching"] == false {
                    return (id, first, state);
                }
                assert!(tokio::time::Instant::now() < deadline, "game {id} still searching");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }));
    }
    let mut ids = std::collections::HashSet::new();
    for task in tasks {
        let (id, first, state) = task.await.expect("the task ran");
        assert_eq!(state["ply"], 2, "{id}: {state}");
        assert_eq!(state["history"][0]["move"]["id"], first, "{id}");
        assert!(ids.insert(id));
    }
    assert_eq!(ids.len(), 20);
}

#[tokio::test]
async fn undo_reset_and_the_end_of_a_game() {
    let app = plain_app();
    let (_, state) = call(&app, "POST", "/api/games", Some(json!({ "game": "draughts", "fen": "W:W28:B23,13" }))).await;
    let id = state["id"].as_str().expect("an id").to_string();
    assert_eq!(state["legal"][0]["path"], json!([27, 18, 7]));
    let (_, state) = call(&app, "POST", &format!("/api/games/{id}/move"), Some(json!({ "move": "28x8" }))).await;
    assert_eq!(state["result"]["winner"], 0, "{state}");
    assert!(state["result"]["text"].as_str().is_some_and(|t| t.starts_with("White wins")), "{state}");
    let (status, body) =
        call(&app, "POST", &format!("/api/games/{id}/search"), Some(json!({ "engine": "alphabeta" }))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (_, state) = call(&app, "POST", &format!("/api/games/{id}/undo"), None).await;
    assert_eq!((state["ply"].as_u64(), state["result"].is_null()), (Some(0), true));
    let (_, state) = call(&app, "POST", &format!("/api/games/{id}/reset"), Some(json!({}))).await;
    assert_eq!(state["fen"], state["start_fen"]);
    let (status, _) = call(&app, "DELETE", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(call(&app, "GET", &format!("/api/games/{id}"), None).await.0, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_watched_run_shows_its_ladder_metrics_and_games() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let app = App::new(ServeConfig { runs: vec![micro_run(dir.path())], ..ServeConfig::default() });
    let (_, runs) = call(&app, "GET", "/api/runs", None).await;
    assert_eq!(runs[0]["game"], "xiangqi");
    let (_, ratings) = call(&app, "GET", "/api/runs/0/ratings", None).await;
    assert_eq!(ratings["players"][1]["name"], "ckpt-1");
    let (_, metrics) = call(&app, "GET", "/api/runs/0/metrics", None).await;
    assert_eq!(metrics["train"][0]["step"], 10, "{metrics}");
    assert_eq!(metrics["skipped_lines"], 1, "{metrics}");
    let (_, arena) = call(&app, "GET", "/api/runs/0/arena", None).await;
    assert_eq!(arena, json!([{ "match": "ckpt-1-vs-random", "games": ["xiangqi-0001.pgn"] }]));
    let (status, replay) = call(&app, "GET", "/api/runs/0/arena/ckpt-1-vs-random/xiangqi-0001.pgn", None).await;
    assert_eq!(status, StatusCode::OK, "{replay}");
    assert_eq!(replay["players"], json!(["ckpt-1", "random"]));
    assert_eq!(replay["frames"].as_array().map(Vec::len), Some(2));
    assert_eq!(replay["frames"][1]["move"]["text"], "H8+7");
    let (status, body) = call(&app, "GET", "/api/runs/0/selfplay/latest", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(error_of(&body).contains("no self-play game yet"), "{body}");
}

/// A run directory as `qizero run` leaves one, by hand: a config, a ladder, a metrics file
/// (with one line cut short) and one arena record.
fn micro_run(root: &Path) -> Run {
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
        std::fs::write(&path, text).expect("written");
    };
    write("config.toml", "game = \"xiangqi\"\nseed = 1\n");
    write(
        "arena/ratings.json",
        r#"{"anchor":"random","players":[{"name":"random","kind":"baseline","step":null,"elo":0.0,"lo":0.0,"hi":0.0,"games":2,"score":0.0},{"name":"ckpt-1","kind":"checkpoint","step":1,"elo":100.0,"lo":-50.0,"hi":250.0,"games":2,"score":1.0}],"matches":[]}"#,
    );
    write(
        "metrics.jsonl",
        "{\"v\":1,\"time_ms\":5,\"event\":\"train\",\"step\":10,\"policy_loss\":3.1,\"value_loss\":0.5}\n{\"v\":1,\"event\":\"tra\n",
    );
    write(
        "arena/ckpt-1-vs-random/xiangqi-0001.pgn",
        "[Event \"x\"]\n[Red \"ckpt-1\"]\n[Black \"random\"]\n[Result \"*\"]\n[Termination \"cap\"]\n\n1. C2=5 H8+7 *\n",
    );
    Run::open(root).expect("the run opens")
}
