//! What the clients of both protocols share: how an external engine is named and set up
//! ([`EngineSpec`]), what can go wrong while talking to it ([`ClientError`]), and the
//! [`Client`] trait the arena's restarting agent drives.

use crate::go::Go;
use std::fmt;
use std::io;
use std::time::Duration;

/// How a UCI xiangqi engine numbers ranks in its move text.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ranks {
    /// `h2e2`: Pikafish, our own `qizero uci`, UCCI.
    ZeroToNine,
    /// `h3e3`: Fairy-Stockfish in plain UCI mode.
    OneToTen,
}

/// An external engine: the program, its arguments and options, and what to ask it for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The program to run.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// What to ask for per move (nothing bounded: the caller's default move time).
    pub go: Go,
    /// How long to wait for a move before giving up (`None`: [`Go::answer_timeout`]).
    pub timeout: Option<Duration>,
    /// UCI only: rank numbering (`None`: detect Fairy-Stockfish from its `id name`).
    pub ranks: Option<Ranks>,
    /// Engine options passed on as they are, in the order given (UCI `setoption`, Hub
    /// `set-param`).
    pub options: Vec<(String, String)>,
}

impl EngineSpec {
    /// An engine running `program` with no arguments or options.
    #[must_use]
    pub fn program(program: &str) -> EngineSpec {
        EngineSpec {
            program: program.to_string(),
            args: Vec::new(),
            go: Go::default(),
            timeout: None,
            ranks: None,
            options: Vec::new(),
        }
    }

    /// How long to wait for the answer to `go`.
    #[must_use]
    pub fn move_timeout(&self, go: &Go) -> Duration {
        self.timeout.unwrap_or_else(|| go.answer_timeout())
    }
}

/// What went wrong with an external engine.
#[derive(Debug)]
pub enum ClientError {
    /// The program could not be started.
    Spawn {
        /// The program as given.
        program: String,
        /// The operating system's reason.
        source: io::Error,
    },
    /// The engine exited or closed its output.
    Crashed {
        /// The engine (program or `id name`).
        engine: String,
        /// Exit status and the last lines of its standard error, when known.
        detail: String,
    },
    /// The engine did not answer in time.
    Timeout {
        /// The engine.
        engine: String,
        /// The answer awaited (`uciok`, `bestmove`, `done`...).
        waiting_for: &'static str,
        /// How long we waited.
        after: Duration,
    },
    /// The engine answered outside the protocol.
    Garbage {
        /// The engine.
        engine: String,
        /// The line it sent.
        line: String,
        /// What a correct line looks like.
        expected: &'static str,
    },
    /// The move it gave is not legal in the position.
    IllegalMove {
        /// The engine.
        engine: String,
        /// The move as it gave it.
        text: String,
        /// Why it was rejected.
        reason: String,
    },
    /// It gave no move although the game is not over.
    NoMove {
        /// The engine.
        engine: String,
    },
    /// Talking to it failed.
    Io {
        /// The engine.
        engine: String,
        /// The operating system's reason.
        source: io::Error,
    },
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Spawn { program, source } => write!(f, "cannot start engine '{program}': {source}"),
            ClientError::Crashed { engine, detail } => write!(f, "engine '{engine}' exited ({detail})"),
            ClientError::Timeout { engine, waiting_for, after } => {
                write!(f, "engine '{engine}' sent no '{waiting_for}' within {} ms", after.as_millis())
            }
            ClientError::Garbage { engine, line, expected } => {
                write!(f, "engine '{engine}' sent {line:?}, expected {expected}")
            }
            ClientError::IllegalMove { engine, text, reason } => {
                write!(f, "'{engine}' played the illegal move {text:?}: {reason}")
            }
            ClientError::NoMove { engine } => write!(f, "'{engine}' gave no move in a game that is not over"),
            ClientError::Io { engine, source } => write!(f, "cannot talk to engine '{engine}': {source}"),
        }
    }
}

/// The operating system's reason is part of the message, so `source` gives nothing more.
impl std::error::Error for ClientError {}

/// A running external engine for game `G`, driven through its protocol.
pub trait Client<G: game::Game>: Sized + Send {
    /// Starts the engine and completes the handshake, sending the spec's options.
    ///
    /// # Errors
    /// The program cannot be started, or does not complete the handshake in time.
    fn start(spec: &EngineSpec) -> Result<Self, ClientError>;

    /// What the engine calls itself (its `id name`), or the program.
    fn name(&self) -> &str;

    /// Tells the engine a new game begins and waits until it is listening.
    ///
    /// # Errors
    /// The engine does not answer, or has gone.
    fn new_game(&mut self) -> Result<(), ClientError>;

    /// The engine's move in `game` (sent with its whole history since the start position),
    /// searched as `go` says, waiting at most `timeout`; checked against the legal moves.
    ///
    /// # Errors
    /// A crash, a timeout, a line outside the protocol, or a move that is not legal.
    fn best_move(&mut self, game: &G, go: &Go, timeout: Duration) -> Result<G::Move, ClientError>;
}
