//! The arena: agents, matches between them, Elo.
//!
//! - [`Agent`]: anything that picks a move for a [`game::Game`]: [`RandomAgent`],
//!   [`AlphaBetaAgent`] (our engine, in process), [`EngineAgent`] (any external engine through
//!   the `engine` crate's protocol clients: a UCI xiangqi engine such as Fairy-Stockfish,
//!   Pikafish or `qizero uci`, a Hub draughts engine such as Scan or `scripts/dame-hub`) and
//!   [`MctsAgent`] (PUCT search with a checkpoint's net, which a [`NetSource`] supplies, or with
//!   the rules alone).
//! - [`spec`]: the one-line agent specs the command line takes (`alphabeta:depth=4`,
//!   `uci:/usr/games/fairy-stockfish,movetime=200`), and [`build_agent`] to make one.
//! - [`run_match`]: A against B from a set of openings (each twice, colours swapped), games in
//!   parallel, results by the game layer's rules, forfeits for agents that fail, a game-length
//!   cap, one record per game ([`record`]: PGN-style for xiangqi, PDN for draughts). An MCTS
//!   agent whose evaluator fails stops the match with the error instead of forfeiting.
//! - [`clock`]: matches on a clock ([`TimeControl`], `10+0.1`): the runner keeps both clocks,
//!   agents see them as a [`MoveClock`] ([`Agent::choose_timed`]), and a flag that falls is a
//!   loss on time, counted apart from other forfeits ([`Forfeits`]).
//! - [`elo`]: the score, the Elo it implies and its 95% interval.
//! - [`openings`]: reading openings files; the shipped ones are compiled in.
//!
//! The protocols themselves (servers and clients) live in the `engine` crate; this one only
//! plays games between agents. The library reads no file and no environment variable: openings
//! come as text, records go to the directory it is handed, engines are the programs the specs
//! name.

mod agent;
mod alphabeta_agent;
pub mod clock;
pub mod config;
pub mod elo;
mod engine_agent;
mod games;
pub mod ladder;
mod mcts_agent;
pub mod openings;
mod random;
pub mod record;
mod runner;
pub mod spec;
pub mod sprt;

pub use agent::{Agent, AgentError, MoveClock};
pub use alphabeta_agent::AlphaBetaAgent;
pub use clock::{TimeControl, TimeControlError};
pub use config::{ArenaConfig, GateKind};
pub use elo::Score;
pub use engine_agent::{CLOCK_GRACE, EngineAgent};
pub use games::ArenaGame;
pub use mcts_agent::{MctsAgent, NetSource, NoNets};
pub use random::RandomAgent;
pub use runner::{
    Forfeit, ForfeitKind, Forfeits, GameResult, MatchConfig, MatchError, MatchResult, build_agent, run_match,
    termination,
};
pub use spec::{AgentSpec, SpecError};
