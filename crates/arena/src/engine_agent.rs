//! [`EngineAgent`]: any external engine behind a protocol client ([`engine::Client`]: UCI for
//! xiangqi, Hub for draughts) as an [`Agent`], with the restart-on-failure rule written once.
//!
//! The engine is started when the agent is built (so a missing program or a bad option stops a
//! match before its first game). After any failure (a crash, a timeout, garbage, an illegal
//! move) the engine's state is unknown, so the process is dropped (asked to quit, then killed)
//! and the next request starts a fresh one.

use crate::agent::{Agent, AgentError};
use engine::{Client, EngineSpec, Go};
use std::marker::PhantomData;
use std::time::Duration;

/// An external engine playing game `G` through client `C`.
pub struct EngineAgent<G: game::Game, C: Client<G>> {
    spec: EngineSpec,
    go: Go,
    client: Option<C>,
    /// What the engine called itself when it last ran (its program until then).
    name: String,
    _game: PhantomData<fn() -> G>,
}

impl<G: game::Game, C: Client<G>> EngineAgent<G, C> {
    /// Starts the engine of `spec`; `movetime` is the time per move when the spec bounds no
    /// search.
    ///
    /// # Errors
    /// The engine cannot be started or does not complete the handshake.
    pub fn new(spec: &EngineSpec, movetime: Duration) -> Result<EngineAgent<G, C>, AgentError> {
        let mut agent = EngineAgent {
            spec: spec.clone(),
            go: spec.go.or_movetime(movetime),
            client: None,
            name: spec.program.clone(),
            _game: PhantomData,
        };
        agent.client()?;
        Ok(agent)
    }

    /// The running client, started afresh if there is none.
    fn client(&mut self) -> Result<&mut C, AgentError> {
        if self.client.is_none() {
            let client = C::start(&self.spec)?;
            self.name = client.name().to_string();
            self.client = Some(client);
        }
        self.client.as_mut().ok_or_else(|| AgentError::NoMove { agent: self.spec.program.clone() })
    }

    /// Runs `f` on the client; after any failure the process is dropped (see the module docs).
    fn with_client<R>(
        &mut self,
        f: impl FnOnce(&mut C, &Go, Duration) -> Result<R, engine::ClientError>,
    ) -> Result<R, AgentError> {
        let (go, timeout) = (self.go.clone(), self.spec.move_timeout(&self.go));
        let result = self.client().and_then(|c| f(c, &go, timeout).map_err(AgentError::from));
        if result.is_err() {
            self.client = None;
        }
        result
    }
}

impl<G: game::Game, C: Client<G>> Agent<G> for EngineAgent<G, C> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) -> Result<(), AgentError> {
        self.with_client(|c, _, _| c.new_game())
    }

    fn choose(&mut self, game: &G) -> Result<G::Move, AgentError> {
        self.with_client(|c, go, timeout| c.best_move(game, go, timeout))
    }
}
