//! An external Hub draughts engine (Scan's protocol, version 2) as an [`Agent`].
//!
//! Start-up: `hub` until `wait` (collecting `id name=...`), `set-param name=... value=...` for
//! each option of the spec, `init` until `ready`. Each game: `new-game`, then `ping` until `pong`
//! to know the engine is listening. Each move: `pos pos=<side><50 squares> moves="..."` with the
//! game's start position and every move since (Hub notation, so the engine sees the history),
//! `level move-time=S` (or `depth=`, `nodes=`), `go think`, and we wait for `done move=...`.
//! The move may come in Hub or PDN form; it must be one of our legal moves, or the engine
//! forfeits.

use crate::agent::{Agent, AgentError};
use crate::engine::Process;
use crate::spec::{EngineSpec, SearchLimits};
use draughts::{Color, Game, Position};
use std::time::Duration;

/// How long start-up and `ping` may take.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// A Hub engine playing draughts.
pub struct HubAgent {
    spec: EngineSpec,
    limits: SearchLimits,
    process: Option<Process>,
    /// The engine's `id name`, once known.
    id: Option<String>,
}

/// The fields of a Hub line: the command word, then `name=value` pairs (values may be quoted
/// with `"`; a bare word is a name with an empty value).
#[must_use]
pub fn hub_fields(line: &str) -> (String, Vec<(String, String)>) {
    let mut chars = line.trim().chars().peekable();
    let mut words: Vec<(String, String)> = Vec::new();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            break;
        }
        let mut name = String::new();
        while let Some(c) = chars.next_if(|c| !c.is_whitespace() && *c != '=') {
            name.push(c);
        }
        let mut value = String::new();
        if chars.next_if_eq(&'=').is_some() {
            if chars.next_if_eq(&'"').is_some() {
                for c in chars.by_ref() {
                    if c == '"' {
                        break;
                    }
                    value.push(c);
                }
            } else {
                while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                    value.push(c);
                }
            }
        }
        words.push((name, value));
    }
    let command = if words.is_empty() { String::new() } else { words.remove(0).0 };
    (command, words)
}

/// A value for a Hub field: quoted if it holds a space.
fn quote(value: &str) -> String {
    if value.contains(char::is_whitespace) || value.is_empty() { format!("\"{value}\"") } else { value.to_string() }
}

/// The Hub form of a position: `W` or `B`, then the 50 squares.
#[must_use]
pub fn hub_position(pos: &Position) -> String {
    let side = if pos.side_to_move() == Color::White { 'W' } else { 'B' };
    format!("{side}{}", pos.board_chars())
}

impl HubAgent {
    /// Starts the engine and sets it up; `movetime` is the time per move when the spec sets no
    /// limit.
    ///
    /// # Errors
    /// The engine cannot be started or does not complete the handshake.
    pub fn new(spec: &EngineSpec, movetime: Duration) -> Result<HubAgent, AgentError> {
        let mut agent =
            HubAgent { spec: spec.clone(), limits: spec.limits.or_movetime(movetime), process: None, id: None };
        agent.start()?;
        Ok(agent)
    }

    fn start(&mut self) -> Result<(), AgentError> {
        self.process = None;
        let mut p = Process::spawn(&self.spec.program, &self.spec.args, "quit")?;
        p.send("hub")?;
        let mut id = None;
        p.wait_for("wait", HANDSHAKE, |line| {
            let (command, fields) = hub_fields(line);
            if command == "id" {
                id = fields.into_iter().find(|(k, _)| k == "name").map(|(_, v)| v);
            }
        })?;
        if let Some(name) = &id {
            p.name.clone_from(name);
        }
        for (name, value) in &self.spec.options {
            p.send(&format!("set-param name={} value={}", quote(name), quote(value)))?;
        }
        p.send("init")?;
        p.wait_for("ready", HANDSHAKE, |_| {})?;
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

    fn level_command(&self) -> String {
        let l = &self.limits;
        let mut level = String::from("level");
        if let Some(d) = l.depth {
            level.push_str(&format!(" depth={d}"));
        }
        if let Some(n) = l.nodes {
            level.push_str(&format!(" nodes={n}"));
        }
        if let Some(t) = l.movetime {
            level.push_str(&format!(" move-time={:.3}", t.as_secs_f64()));
        }
        level
    }

    fn ask(&mut self, game: &Game) -> Result<draughts::Move, AgentError> {
        let mut pos = format!("pos pos={}", hub_position(game.start_position()));
        if game.ply() > 0 {
            let moves: Vec<String> = game.moves().map(|m| draughts::notation::to_hub(&m)).collect();
            pos.push_str(&format!(" moves={}", quote(&moves.join(" "))));
        }
        let level = self.level_command();
        let timeout = self.spec.move_timeout(&self.limits);
        let p = self.process()?;
        p.send(&pos)?;
        p.send(&level)?;
        p.send("go think")?;
        let line = p.wait_for("done", timeout, |_| {})?;
        let engine = p.name.clone();
        let (_, fields) = hub_fields(&line);
        let Some((_, text)) = fields.into_iter().find(|(k, _)| k == "move") else {
            return Err(AgentError::NoMove { agent: engine });
        };
        game::Game::parse_move(game, &text).map_err(|e| AgentError::IllegalMove {
            agent: engine,
            text: text.clone(),
            reason: format!("{e} (position {})", game.position().fen()),
        })
    }
}

impl Agent<Game> for HubAgent {
    fn name(&self) -> String {
        self.id.clone().unwrap_or_else(|| self.spec.program.clone())
    }

    fn new_game(&mut self) -> Result<(), AgentError> {
        let result = (|| {
            let p = self.process()?;
            p.send("new-game")?;
            p.send("ping")?;
            p.wait_for("pong", HANDSHAKE, |_| {}).map(|_| ())
        })();
        if result.is_err() {
            self.process = None;
        }
        result
    }

    fn choose(&mut self, game: &Game) -> Result<draughts::Move, AgentError> {
        let result = self.ask(game);
        // After any failure the engine's state is unknown: the next game starts a fresh process.
        if result.is_err() {
            self.process = None;
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_read_quoted_values() {
        let (command, fields) = hub_fields("id name=dame version=0.2.0 author=\"Markus Bilz\"");
        assert_eq!(command, "id");
        assert_eq!(fields[0], ("name".to_string(), "dame".to_string()));
        assert_eq!(fields[2], ("author".to_string(), "Markus Bilz".to_string()));
        let (command, fields) = hub_fields("done move=28x19x23 ponder=14x23x19");
        assert_eq!(command, "done");
        assert_eq!(fields[0].1, "28x19x23");
        assert_eq!(hub_fields("  ").0, "");
    }

    #[test]
    fn start_position_in_hub_form() {
        let pos = Position::startpos();
        assert_eq!(hub_position(&pos), format!("W{}{}{}", "b".repeat(20), "e".repeat(10), "w".repeat(20)));
    }
}
