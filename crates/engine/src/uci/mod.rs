//! UCI for xiangqi (with UCCI's handshake and dialect): the server ([`Uci`], `qizero uci`) and
//! the client ([`UciClient`], for the arena).

mod client;
mod server;

pub use client::UciClient;
pub use server::Uci;
