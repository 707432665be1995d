//! [`UciClient`]: an external UCI xiangqi engine driven by us.
//!
//! Start-up: `uci` until `uciok` (collecting `id name`), `setoption` for each option of the spec,
//! `isready` until `readyok`. Fairy-Stockfish plays chess unless told otherwise, so for it we send
//! `setoption name UCI_Variant value xiangqi` first; it also numbers ranks 1-10 in plain UCI where
//! Pikafish and `qizero uci` use 0-9. We recognise it by its `id name` (or the spec's `ranks=`).
//!
//! Each move: `position fen <start fen> moves <every move since>` (the engine sees the whole
//! history, so it can apply the repetition rules), then the [`Go`] as a `go` line, and we wait for
//! `bestmove`. The answer is checked against our legal moves.

use crate::client::{Client, ClientError, EngineSpec, Ranks};
use crate::go::Go;
use crate::process::Process;
use std::time::Duration;
use xiangqi::Game;
use xiangqi::notation::{parse_fsf, parse_uci, uci_to_fsf};

/// How long start-up and `isready` may take.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// A running UCI engine playing xiangqi.
pub struct UciClient {
    process: Process,
    ranks: Ranks,
}

impl UciClient {
    fn write_move(&self, mv: xiangqi::Move) -> String {
        match self.ranks {
            Ranks::ZeroToNine => mv.to_string(),
            Ranks::OneToTen => uci_to_fsf(mv),
        }
    }
}

impl Client<Game> for UciClient {
    fn start(spec: &EngineSpec) -> Result<UciClient, ClientError> {
        let mut p = Process::spawn(&spec.program, &spec.args, "quit")?;
        p.send("uci")?;
        let mut id = None;
        p.wait_for("uciok", HANDSHAKE, |line| {
            if let Some(name) = line.strip_prefix("id name ") {
                id = Some(name.trim().to_string());
            }
        })?;
        let fairy = id.as_deref().is_some_and(|n| n.starts_with("Fairy-Stockfish"));
        if let Some(name) = id {
            p.name = name;
        }
        let ranks = spec.ranks.unwrap_or(if fairy { Ranks::OneToTen } else { Ranks::ZeroToNine });
        if fairy {
            p.send("setoption name UCI_Variant value xiangqi")?;
        }
        for (name, value) in &spec.options {
            p.send(&format!("setoption name {name} value {value}"))?;
        }
        p.send("isready")?;
        p.wait_for("readyok", HANDSHAKE, |_| {})?;
        Ok(UciClient { process: p, ranks })
    }

    fn name(&self) -> &str {
        &self.process.name
    }

    fn new_game(&mut self) -> Result<(), ClientError> {
        let p = &mut self.process;
        p.send("ucinewgame")?;
        p.send("isready")?;
        p.wait_for("readyok", HANDSHAKE, |_| {}).map(|_| ())
    }

    fn best_move(&mut self, game: &Game, go: &Go, timeout: Duration) -> Result<xiangqi::Move, ClientError> {
        let mut position = format!("position fen {}", game.start_position().fen());
        if game.ply() > 0 {
            position.push_str(" moves");
            for mv in game.moves() {
                position.push(' ');
                position.push_str(&self.write_move(mv));
            }
        }
        let ranks = self.ranks;
        let side = game::Game::side_to_move(game);
        let p = &mut self.process;
        p.send(&position)?;
        p.send(&go.uci_command(side))?;
        let line = p.wait_for("bestmove", timeout, |_| {})?;
        let engine = p.name.clone();
        let garbage = |line: &str| ClientError::Garbage {
            engine: engine.clone(),
            line: line.to_string(),
            expected: "bestmove <move> [ponder <move>]",
        };
        let text = line.split_whitespace().nth(1).ok_or_else(|| garbage(&line))?;
        if matches!(text, "(none)" | "0000" | "none" | "resign") {
            return Err(ClientError::NoMove { engine });
        }
        let mv = match ranks {
            Ranks::ZeroToNine => parse_uci(text),
            Ranks::OneToTen => parse_fsf(text),
        }
        .map_err(|_| garbage(&line))?;
        if !game.legal_moves().contains(&mv) {
            return Err(ClientError::IllegalMove {
                engine,
                text: text.to_string(),
                reason: format!("not legal in {}", game.position().fen()),
            });
        }
        Ok(mv)
    }
}
