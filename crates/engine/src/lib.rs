//! The engine protocols of qizero, servers and clients side by side: UCI (with UCCI's dialect)
//! for xiangqi, Scan's Hub protocol (version 2) for international draughts.
//!
//! - Servers ([`uci::Uci`], [`hub::Hub`]): state machines fed one input line at a time
//!   ([`protocol::Frontend`]) that answer synchronous commands at once and leave the thinking
//!   to a [`background::SearchThread`], so `stop`, `isready` and `ping` are answered while the
//!   engine searches. [`protocol::serve`] moves lines between standard input and output.
//! - The background search is generic over the searcher ([`background::Think`]): alpha-beta,
//!   or MCTS with a net ([`net::NetSearcher`]: tree reuse, time management, lc0-style reports),
//!   which a server holds as a [`net::Brain`]. The net comes through a [`net::Loader`], so this
//!   crate links no net library. [`session::Session`] holds what both servers share beside it:
//!   the opening book, pondering and `ponderhit`.
//! - Clients ([`uci::UciClient`], [`hub::HubClient`]): an external engine process
//!   ([`process::Process`], every read with a deadline) driven through the same protocol, for
//!   the arena's matches. Both implement [`client::Client`], so the arena wraps them in one
//!   restart-on-failure agent.
//! - One vocabulary for both directions: [`go::Go`], the search parameters of a `go` (UCI) or
//!   `level` (Hub) command, parsed by the servers and written by the clients; and one Hub codec
//!   ([`hub::codec`]): the line scanner, value quoting and the 51-character board.
//!
//! The crate reads no file and no environment variable; it talks only through the lines it is
//! given and the processes its clients are told to start.

pub mod background;
pub mod client;
pub mod go;
pub mod hub;
pub mod net;
pub mod process;
pub mod protocol;
pub mod session;
pub mod uci;

pub use background::{Busy, SearchThread, StartError, Think};
pub use client::{Client, ClientError, EngineSpec, Ranks};
pub use go::Go;
pub use net::{Brain, Loader, NetSearcher, NetSettings};
pub use protocol::{Frontend, Output, serve, serve_from};
