//! [`HubClient`]: an external Hub draughts engine (Scan's protocol, version 2) driven by us.
//!
//! Start-up: `hub` until `wait` (collecting `id name=...`), `set-param name=... value=...` for
//! each option of the spec, `init` until `ready`. Each game: `new-game`, then `ping` until `pong`
//! to know the engine is listening. Each move: `pos pos=<side><50 squares> moves="..."` with the
//! game's start position and every move since (Hub notation, so the engine sees the history),
//! the [`Go`] as a `level` line, `go think`, and we wait for `done move=...`. The move may come
//! in Hub or PDN form; it must be one of our legal moves.

use super::codec::{arg, board, quote, scan};
use crate::client::{Client, ClientError, EngineSpec};
use crate::go::Go;
use crate::process::Process;
use draughts::Game;
use std::time::Duration;

/// How long start-up and `ping` may take.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// A running Hub engine.
pub struct HubClient {
    process: Process,
}

impl Client<Game> for HubClient {
    fn start(spec: &EngineSpec) -> Result<HubClient, ClientError> {
        let mut p = Process::spawn(&spec.program, &spec.args, "quit")?;
        p.send("hub")?;
        let mut id = None;
        p.wait_for("wait", HANDSHAKE, |line| {
            if let Ok(Some((command, fields))) = scan(line) {
                if command == "id" {
                    id = arg(&fields, "name").map(str::to_string);
                }
            }
        })?;
        if let Some(name) = id {
            p.name = name;
        }
        for (name, value) in &spec.options {
            p.send(&format!("set-param name={} value={}", quote(name), quote(value)))?;
        }
        p.send("init")?;
        p.wait_for("ready", HANDSHAKE, |_| {})?;
        Ok(HubClient { process: p })
    }

    fn name(&self) -> &str {
        &self.process.name
    }

    fn new_game(&mut self) -> Result<(), ClientError> {
        let p = &mut self.process;
        p.send("new-game")?;
        p.send("ping")?;
        p.wait_for("pong", HANDSHAKE, |_| {}).map(|_| ())
    }

    fn best_move(&mut self, game: &Game, go: &Go, timeout: Duration) -> Result<draughts::Move, ClientError> {
        let mut pos = format!("pos pos={}", board(game.start_position()));
        if game.ply() > 0 {
            let moves: Vec<String> = game.moves().map(|m| draughts::notation::to_hub(&m)).collect();
            pos.push_str(&format!(" moves={}", quote(&moves.join(" "))));
        }
        let p = &mut self.process;
        p.send(&pos)?;
        p.send(&go.hub_level_command())?;
        p.send("go think")?;
        let line = p.wait_for("done", timeout, |_| {})?;
        let engine = p.name.clone();
        let garbage = || ClientError::Garbage {
            engine: engine.clone(),
            line: line.clone(),
            expected: "done move=<move> [ponder=<move>]",
        };
        let (_, fields) = scan(&line).map_err(|_| garbage())?.ok_or_else(garbage)?;
        let Some(text) = arg(&fields, "move") else { return Err(ClientError::NoMove { engine }) };
        game::Game::parse_move(game, text).map_err(|e| ClientError::IllegalMove {
            engine,
            text: text.to_string(),
            reason: format!("{e} (position {})", game.position().fen()),
        })
    }
}
