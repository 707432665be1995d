//! The [`Agent`] trait: anything that picks a move, and [`AgentError`], everything that can go
//! wrong while it does.
//!
//! An agent is configured once (limits, hash, engine options are part of its config, see
//! [`crate::spec`]) and then asked for a move in one position after another. The match runner
//! treats an error from an agent as the agent's loss: it forfeits the game, the error's text is
//! recorded as the reason, and the match goes on with fresh agent instances. The one exception
//! is [`AgentError::Evaluation`]: an evaluator that fails (a net's forward pass, a stopped
//! inference service) is broken for every game that uses it, so the match stops with the error
//! ([`AgentError::is_fatal`]) instead of scoring forfeits that say nothing about the agents.
//!
//! In a match on a clock ([`crate::TimeControl`]) the runner asks with [`Agent::choose_timed`]
//! instead, handing over both clocks ([`MoveClock`]). The clock is the runner's: it times the
//! call and flags the agent whatever the agent thinks it spent, so an agent that ignores the
//! clock (the default method, which calls [`Agent::choose`]) still plays, at its own limits,
//! and loses on time if they are too slow.

use engine::Go;
use engine::go::Clock;
use std::fmt;

/// A player: picks a move for game `G`.
///
/// `Send` so that agents can be built on one thread and played on another.
pub trait Agent<G: game::Game>: Send {
    /// A short name for records and reports: the spec, or what an engine calls itself.
    fn name(&self) -> String;

    /// Prepares for a new game (clears tables; an engine agent restarts its process if an earlier
    /// error left it unusable).
    ///
    /// # Errors
    /// An engine that cannot be (re)started or does not answer.
    fn new_game(&mut self) -> Result<(), AgentError>;

    /// Picks a move for the side to move in `game`, which carries the whole history since its
    /// start position. Called only when the game is not over.
    ///
    /// # Errors
    /// Whatever stops the agent from giving a legal move: a crash, a timeout, garbage, an illegal
    /// move. The caller forfeits the game for this agent.
    fn choose(&mut self, game: &G) -> Result<G::Move, AgentError>;

    /// Picks a move as [`Agent::choose`] does, on the clock: `clock` holds the mover's time
    /// left and the opponent's as the runner keeps them. The runner flags the agent if the call
    /// takes longer than `clock.own.left`, so an agent that can budget its time should.
    ///
    /// The default ignores the clock and calls [`Agent::choose`] (the random agent; an agent
    /// whose limits are simulations or nodes).
    ///
    /// # Errors
    /// As [`Agent::choose`].
    fn choose_timed(&mut self, game: &G, clock: &MoveClock) -> Result<G::Move, AgentError> {
        let _ = clock;
        self.choose(game)
    }

    /// What a tree-searching agent has searched so far: moves, simulations run and root
    /// visits reused from earlier moves. `None` for agents that keep no such count.
    fn search_counts(&self) -> Option<crate::mcts_agent::ReuseStats> {
        None
    }
}

/// The clocks when an agent is asked for a move, from the mover's view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MoveClock {
    /// The mover's clock: the time it has for this move (and the rest of the game), and the
    /// increment it gets after making it.
    pub own: Clock,
    /// The opponent's clock, as it stands.
    pub other: Clock,
    /// Moves until the next time control (`None`: the rest of the game is on this clock).
    pub moves_to_go: Option<u32>,
}

impl MoveClock {
    /// `go` on this clock: the clocks and moves to go replace those in `go`; its other limits
    /// (depth, nodes, movetime) stay, so an agent with limits of its own plays to whichever
    /// comes first.
    #[must_use]
    pub fn apply(&self, go: &Go) -> Go {
        Go { own: Some(self.own), other: Some(self.other), moves_to_go: self.moves_to_go, ..go.clone() }
    }
}

/// Why an agent gave no legal move.
#[derive(Debug)]
pub enum AgentError {
    /// An external engine failed: it could not start, crashed, hung, sent garbage or an illegal
    /// move.
    Engine(engine::ClientError),
    /// The move is not legal in the position.
    IllegalMove {
        /// The agent.
        agent: String,
        /// The move as the agent gave it.
        text: String,
        /// Why it was rejected.
        reason: String,
    },
    /// The agent gave no move although the game is not over.
    NoMove {
        /// The agent.
        agent: String,
    },
    /// A checkpoint an MCTS agent names cannot be loaded.
    Checkpoint {
        /// The checkpoint's path.
        path: String,
        /// Why (missing, damaged, another game or architecture).
        message: String,
    },
    /// The evaluator an MCTS agent searches with failed; the match stops (see the module docs).
    Evaluation {
        /// The agent.
        agent: String,
        /// The evaluator's error, naming the cause.
        error: mcts::EvalError,
    },
    /// The agent does not play this game (a UCI engine for draughts, a Hub engine for xiangqi).
    WrongGame {
        /// The agent spec.
        spec: String,
        /// The game asked for.
        game: &'static str,
    },
}

impl From<engine::ClientError> for AgentError {
    fn from(e: engine::ClientError) -> AgentError {
        AgentError::Engine(e)
    }
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentError::Engine(e) => write!(f, "{e}"),
            AgentError::IllegalMove { agent, text, reason } => {
                write!(f, "'{agent}' played the illegal move {text:?}: {reason}")
            }
            AgentError::NoMove { agent } => write!(f, "'{agent}' gave no move in a game that is not over"),
            AgentError::Checkpoint { path, message } => write!(f, "cannot load checkpoint '{path}': {message}"),
            AgentError::Evaluation { agent, error } => write!(f, "'{agent}' cannot search: {error}"),
            AgentError::WrongGame { spec, game } => write!(f, "agent '{spec}' does not play {game}"),
        }
    }
}

impl AgentError {
    /// True for errors that stop a whole match rather than forfeit one game: an evaluator that
    /// failed ([`AgentError::Evaluation`]) fails every game it would play.
    #[must_use]
    pub fn is_fatal(&self) -> bool {
        matches!(self, AgentError::Evaluation { .. })
    }
}

/// Each cause is part of the message, so `source` gives nothing more.
impl std::error::Error for AgentError {}
