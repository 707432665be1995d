//! `qizero serve`: the web page of the `serve` crate, with the shipped models and the nets of
//! the runs named on the command line.

use anyhow::{Context, Result};
use clap::Args;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

/// Arguments of `qizero serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// A run directory to watch (ratings, losses, self-play and arena games, live while
    /// `qizero run` writes it) and whose checkpoints the page offers as opponents. Repeat for
    /// several runs.
    #[arg(long = "run", value_name = "DIR")]
    runs: Vec<PathBuf>,
    /// Where to listen. Localhost only by default; port 0 picks a free port (the line
    /// `listening on http://ADDR` says which).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Where the nets run: auto (CUDA if present, else the CPU), cpu, cuda, cuda:N.
    #[arg(long, default_value = "auto")]
    device: String,
    /// Serve the page's files from this folder instead of the copy built into the binary
    /// (for working on the page without rebuilding).
    #[arg(long, value_name = "DIR", hide = true)]
    assets_dir: Option<PathBuf>,
}

/// `qizero serve`: until Ctrl-C or SIGTERM.
///
/// # Errors
/// A run directory that does not open, an address that cannot be bound.
pub fn run(args: &ServeArgs) -> Result<()> {
    let runs = args
        .runs
        .iter()
        .map(|dir| serve::watch::Run::open(dir).map_err(anyhow::Error::msg).context("--run"))
        .collect::<Result<Vec<_>>>()?;
    if let Some(dir) = &args.assets_dir {
        anyhow::ensure!(dir.is_dir(), "--assets-dir {}: not a folder", dir.display());
    }
    // A game without a shipped model still serves alpha-beta and the runs' checkpoints.
    let mut shipped = Vec::new();
    for game in ["xiangqi", "draughts"] {
        match crate::models::resolve_weights("default", game) {
            Ok(path) => shipped.push((game.to_string(), path)),
            Err(e) => eprintln!("note: no shipped {game} model ({e:#}); the page offers alpha-beta and the runs' nets"),
        }
    }
    let config = serve::ServeConfig {
        addr: Some(args.addr),
        runs,
        shipped,
        xiangqi_net: Some(crate::engine_cmd::loader::<xiangqi::Game>(args.device.clone())),
        draughts_net: Some(crate::engine_cmd::loader::<draughts::Game>(args.device.clone())),
        assets_dir: args.assets_dir.clone(),
    };
    serve::serve(config, |addr| {
        // Never a panic for a closed standard output (a caller that read the address and went).
        let mut out = std::io::stdout();
        let _ = writeln!(out, "listening on http://{addr}");
        let _ = writeln!(out, "play: http://{addr}/   watch a run: http://{addr}/watch   (Ctrl-C stops)");
        let _ = out.flush();
    })?;
    Ok(())
}
