//! [`EngineAgent`]: any external engine behind a protocol client ([`engine::Client`]: UCI for
//! xiangqi, Hub for draughts) as an [`Agent`], with the restart-on-failure rule written once.
//!
//! The engine is started when the agent is built (so a missing program or a bad option stops a
//! match before its first game). After any failure (a crash, a timeout, garbage, an illegal
//! move) the engine's state is unknown, so the process is dropped (asked to quit, then killed)
//! and the next request starts a fresh one.
//!
//! On a clock ([`Agent::choose_timed`]) the engine gets both clocks in its protocol's form (UCI
//! `wtime`/`btime`/`winc`/`binc` by colour, Hub `time=`/`inc=`, see [`engine::Go`]) with the
//! spec's own limits, if any, and the match's default movetime is not sent. The wait for its
//! answer follows the clock: its time left plus [`CLOCK_GRACE`] (or the spec's `timeout` if
//! shorter), so a hung engine costs its time and no more, and one that is merely late still
//! gets its move read, for the runner to flag.

use crate::agent::{Agent, AgentError, MoveClock};
use engine::{Client, EngineSpec, Go};
use std::marker::PhantomData;
use std::time::Duration;

/// How long past its time left an engine on a clock is waited for. The runner flags it either
/// way; the grace only lets a late answer arrive, so the record says how late it was rather
/// than that the engine sent nothing.
pub const CLOCK_GRACE: Duration = Duration::from_millis(500);

/// An external engine playing game `G` through client `C`.
pub struct EngineAgent<G: game::Game, C: Client<G>> {
    spec: EngineSpec,
    /// What an untimed move asks for: the spec's limits, or the match's movetime.
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
    fn with_client<R>(&mut self, f: impl FnOnce(&mut C) -> Result<R, engine::ClientError>) -> Result<R, AgentError> {
        let result = self.client().and_then(|c| f(c).map_err(AgentError::from));
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
        self.with_client(|c| c.new_game())
    }

    fn choose(&mut self, game: &G) -> Result<G::Move, AgentError> {
        let (go, timeout) = (self.go.clone(), self.spec.move_timeout(&self.go));
        self.with_client(|c| c.best_move(game, &go, timeout))
    }

    fn choose_timed(&mut self, game: &G, clock: &MoveClock) -> Result<G::Move, AgentError> {
        let go = clock.apply(&self.spec.go);
        let flag = clock.own.left + CLOCK_GRACE;
        let timeout = self.spec.timeout.map_or(flag, |t| t.min(flag));
        self.with_client(|c| c.best_move(game, &go, timeout))
    }
}
