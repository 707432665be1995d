//! Scan's Hub protocol (version 2) for international draughts: the [`codec`] both directions
//! share, the server ([`Hub`], `qizero hub`) and the client ([`HubClient`], for the arena).

mod client;
pub mod codec;
mod server;

pub use client::HubClient;
pub use server::Hub;
