//! `qizero uci` and `qizero hub`: the engine protocol servers of the `engine` crate on standard
//! input and output.

use clap::Args;
use engine::protocol::{self, book_rng};
use std::sync::Arc;

/// Arguments of `qizero uci` and `qizero hub`.
#[derive(Args)]
pub struct ServerArgs {
    /// Seed for choosing among book moves, for reproducible games (default: from the system).
    #[arg(long)]
    seed: Option<u64>,
}

/// `qizero uci`: until `quit` or the end of input.
///
/// # Errors
/// A read error on standard input.
pub fn uci(args: &ServerArgs) -> anyhow::Result<()> {
    let out = protocol::stdout();
    let mut server = engine::uci::Uci::new(Arc::clone(&out), book_rng(args.seed));
    protocol::serve(&mut server, &out)?;
    Ok(())
}

/// `qizero hub`: until `quit` or the end of input.
///
/// # Errors
/// A read error on standard input.
pub fn hub(args: &ServerArgs) -> anyhow::Result<()> {
    let out = protocol::stdout();
    let mut server = engine::hub::Hub::new(Arc::clone(&out), book_rng(args.seed));
    protocol::serve(&mut server, &out)?;
    Ok(())
}
