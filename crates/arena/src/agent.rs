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
