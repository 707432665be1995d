//! `qizero uci` and `qizero hub`: the engine protocol servers of the `engine` crate on standard
//! input and output, searching with alpha-beta, or with MCTS and a trained net (`--weights`).

use anyhow::Context;
use clap::Args;
use encode::Encode;
use engine::net::{Loader, NetSearcher, NetSettings};
use engine::protocol::{self, book_rng};
use nn::{InferenceService, NetConfig, ServiceConfig};
use std::path::Path;
use std::sync::Arc;

/// Arguments of `qizero uci` and `qizero hub`.
#[derive(Args)]
pub struct ServerArgs {
    /// Search with MCTS and the net of this checkpoint (a .safetensors file written by
    /// `qizero train` or `qizero run`, or `default` for the shipped model in models/) instead of
    /// alpha-beta. The engine's options then set the simulations, c_puct, batch, net threads,
    /// temperature and tree reuse (see the README).
    #[arg(long, value_name = "CKPT")]
    weights: Option<String>,
    /// Where the net runs: auto (CUDA if present, else the CPU), cpu, cuda, cuda:N.
    #[arg(long, default_value = "auto", requires = "weights")]
    device: String,
    /// Seed for choosing among book moves and for the net search's tie-breaks, for reproducible
    /// games (default: from the system).
    #[arg(long)]
    seed: Option<u64>,
}

/// `qizero uci`: until `quit` or the end of input.
///
/// # Errors
/// The weights cannot be loaded, or a read error on standard input.
pub fn uci(args: &ServerArgs) -> anyhow::Result<()> {
    let out = protocol::stdout();
    let rng = book_rng(args.seed);
    let mut server = match &args.weights {
        None => engine::uci::Uci::new(Arc::clone(&out), rng),
        Some(text) => engine::uci::Uci::with_net(net_searcher(text, args)?, Arc::clone(&out), rng),
    };
    protocol::serve(&mut server, &out)?;
    Ok(())
}

/// `qizero hub`: until `quit` or the end of input.
///
/// # Errors
/// The weights cannot be loaded, or a read error on standard input.
pub fn hub(args: &ServerArgs) -> anyhow::Result<()> {
    let out = protocol::stdout();
    let rng = book_rng(args.seed);
    let mut server = match &args.weights {
        None => engine::hub::Hub::new(Arc::clone(&out), rng),
        Some(text) => engine::hub::Hub::with_net(net_searcher(text, args)?, Arc::clone(&out), rng),
    };
    protocol::serve(&mut server, &out)?;
    Ok(())
}

/// The net searcher for the checkpoint `weights` names ([`crate::models::resolve_weights`]),
/// with the default settings.
fn net_searcher<G: Encode>(weights: &str, args: &ServerArgs) -> anyhow::Result<NetSearcher<G>> {
    let path = crate::models::resolve_weights(weights, G::NAME).with_context(|| format!("--weights {weights}"))?;
    let seed = args.seed.unwrap_or_else(rand::random);
    NetSearcher::load(&path, loader::<G>(args.device.clone()), NetSettings::default(), seed)
        .map_err(anyhow::Error::msg)
        .with_context(|| format!("--weights {weights}"))
}

/// Loads checkpoints for game `G` on `device` (`default` is the shipped model), each served by its own batching inference
/// service (one forward pass per search round, no waiting for more requests).
pub fn loader<G: Encode>(device: String) -> Loader<G> {
    Arc::new(move |path: &Path, threads: usize| {
        // The WeightsFile option takes `default` too.
        let resolved =
            crate::models::resolve_weights(&path.to_string_lossy(), G::NAME).map_err(|e| format!("{e:#}"))?;
        let path = resolved.as_path();
        let placement = NetConfig { device: device.clone(), cpu_threads: threads, ..NetConfig::default() };
        nn::set_cpu_threads(threads);
        let (net, _) = nn::checkpoint::load_as_saved(path, G::NAME, G::ENCODING, &placement)
            .map_err(|e| format!("cannot load {}: {e}", path.display()))?;
        let config = ServiceConfig {
            max_batch: engine::net::MAX_BATCH as usize,
            max_wait_us: 0,
            cache_entries: 0,
            net_threads: 1,
        };
        let service = InferenceService::start(net, config).map_err(|e| format!("cannot start the net: {e}"))?;
        let evaluator: Arc<dyn mcts::Evaluator<G>> =
            Arc::new(Served { evaluator: service.evaluator::<G>(), _service: service });
        Ok(evaluator)
    })
}

/// A service's evaluator that keeps the service running while it lives. `evaluator` is
/// declared first so it is dropped before the service, whose thread ends once every evaluator
/// made from it is gone.
struct Served<G: Encode> {
    evaluator: nn::ServiceEvaluator<G>,
    _service: InferenceService,
}

impl<G: Encode> mcts::Evaluator<G> for Served<G> {
    fn evaluate(&self, batch: &[mcts::EvalRequest<'_, G>]) -> Result<Vec<mcts::Evaluation>, mcts::EvalError> {
        self.evaluator.evaluate(batch)
    }
}
