//! An external UCI xiangqi engine as an [`Agent`].
//!
//! Start-up: `uci` until `uciok` (collecting `id name`), `setoption` for each option of the spec,
//! `isready` until `readyok`. Fairy-Stockfish plays chess unless told otherwise, so for it we send
//! `setoption name UCI_Variant value xiangqi` first; it also numbers ranks 1-10 in plain UCI where
//! Pikafish and `qizero uci` use 0-9. We recognise it by its `id name` (or the spec's `ranks=`).
//!
//! Each move: `position fen <start fen> moves <every move since>` (the engine sees the whole
//! history, so it can apply the repetition rules), then `go movetime|depth|nodes`, and we wait
//! for `bestmove`. The answer is checked against our legal moves; anything else forfeits.

use crate::agent::{Agent, AgentError};
use crate::engine::Process;
use crate::spec::{EngineSpec, Ranks, SearchLimits};
use std::time::Duration;
use xiangqi::Game;
use xiangqi::notation::{parse_fsf, parse_uci, uci_to_fsf};

/// How long start-up and `isready` may take.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// A UCI engine playing xiangqi.
pub struct UciAgent {
    spec: EngineSpec,
    limits: SearchLimits,
    process: Option<Process>,
    ranks: Ranks,
    /// The engine's `id name`, once known.
    id: Option<String>,
}

impl UciAgent {
    /// Starts the engine and sets it up; `movetime` is the time per move when the spec sets no
    /// limit.
    ///
    /// # Errors
    /// The engine cannot be started or does not complete the handshake.
    pub fn new(spec: &EngineSpec, movetime: Duration) -> Result<UciAgent, AgentError> {
        let mut agent = UciAgent {
            spec: spec.clone(),
            limits: spec.limits.or_movetime(movetime),
            process: None,
            ranks: Ranks::ZeroToNine,
            id: None,
        };
        agent.start()?;
        Ok(agent)
    }

    fn start(&mut self) -> Result<(), AgentError> {
        self.process = None;
        let mut p = Process::spawn(&self.spec.program, &self.spec.args, "quit")?;
        p.send("uci")?;
        let mut id = None;
        p.wait_for("uciok", HANDSHAKE, |line| {
            if let Some(name) = line.strip_prefix("id name ") {
                id = Some(name.trim().to_string());
            }
        })?;
        if let Some(name) = &id {
            p.name.clone_from(name);
        }
        let fairy = id.as_deref().is_some_and(|n| n.starts_with("Fairy-Stockfish"));
        self.ranks = self.spec.ranks.unwrap_or(if fairy { Ranks::OneToTen } else { Ranks::ZeroToNine });
        if fairy {
            p.send("setoption name UCI_Variant value xiangqi")?;
        }
        for (name, value) in &self.spec.options {
            p.send(&format!("setoption name {name} value {value}"))?;
        }
        p.send("isready")?;
        p.wait_for("readyok", HANDSHAKE, |_| {})?;
        self.id = id;
        self.process = Some(p);
        Ok(())
    }

    fn process(&mut self) -> Result<&mut Process, AgentError> {
        if self.process.is_none() {
            self.start()?;
        }
        self.process.as_mut().ok_or_else(|| AgentError::NoMove { agent: self.spec.program.clone() })
    }

    fn write_move(&self, mv: xiangqi::Move) -> String {
        match self.ranks {
            Ranks::ZeroToNine => mv.to_string(),
            Ranks::OneToTen => uci_to_fsf(mv),
        }
    }

    fn go_command(&self) -> String {
        let l = &self.limits;
        let mut go = String::from("go");
        if let Some(d) = l.depth {
            go.push_str(&format!(" depth {d}"));
        }
        if let Some(n) = l.nodes {
            go.push_str(&format!(" nodes {n}"));
        }
        if let Some(t) = l.movetime {
            go.push_str(&format!(" movetime {}", t.as_millis()));
        }
        go
    }

    fn ask(&mut self, game: &Game) -> Result<xiangqi::Move, AgentError> {
        let mut position = format!("position fen {}", game.start_position().fen());
        if game.ply() > 0 {
            position.push_str(" moves");
            for mv in game.moves() {
                position.push(' ');
                position.push_str(&self.write_move(mv));
            }
        }
        let go = self.go_command();
        let timeout = self.spec.move_timeout(&self.limits);
        let ranks = self.ranks;
        let p = self.process()?;
        p.send(&position)?;
        p.send(&go)?;
        let line = p.wait_for("bestmove", timeout, |_| {})?;
        let engine = p.name.clone();
        let garbage = |line: &str| AgentError::Garbage {
            engine: engine.clone(),
            line: line.to_string(),
            expected: "bestmove <move> [ponder <move>]",
        };
        let text = line.split_whitespace().nth(1).ok_or_else(|| garbage(&line))?;
        if matches!(text, "(none)" | "0000" | "none" | "resign") {
            return Err(AgentError::NoMove { agent: engine });
        }
        let mv = match ranks {
            Ranks::ZeroToNine => parse_uci(text),
            Ranks::OneToTen => parse_fsf(text),
        }
        .map_err(|_| garbage(&line))?;
        if !game.legal_moves().contains(&mv) {
            return Err(AgentError::IllegalMove {
                agent: engine,
                text: text.to_string(),
                reason: format!("not legal in {}", game.position().fen()),
            });
        }
        Ok(mv)
    }
}

impl Agent<Game> for UciAgent {
    fn name(&self) -> String {
        self.id.clone().unwrap_or_else(|| self.spec.program.clone())
    }

    fn new_game(&mut self) -> Result<(), AgentError> {
        let result = (|| {
            let p = self.process()?;
            p.send("ucinewgame")?;
            p.send("isready")?;
            p.wait_for("readyok", HANDSHAKE, |_| {}).map(|_| ())
        })();
        if result.is_err() {
            self.process = None;
        }
        result
    }

    fn choose(&mut self, game: &Game) -> Result<xiangqi::Move, AgentError> {
        let result = self.ask(game);
        // After any failure the engine's state is unknown: the next game starts a fresh process.
        if result.is_err() {
            self.process = None;
        }
        result
    }
}
