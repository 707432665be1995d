//! [`CheckpointNets`]: the arena's [`NetSource`] on libtorch. Each checkpoint is loaded once,
//! with the architecture it records, and served by one batching inference service, so every
//! game played at once with that checkpoint shares its batches.

use encode::Encode;
use nn::{InferenceService, NetConfig, ServiceConfig};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// One loaded checkpoint. `evaluator` is declared first so it is dropped before the service,
/// whose thread ends once every evaluator made from it is gone.
struct Loaded<G: Encode> {
    evaluator: Arc<dyn mcts::Evaluator<G>>,
    _service: InferenceService,
}

/// Loads checkpoints on demand and keeps them for the life of the value.
pub struct CheckpointNets<G: Encode> {
    placement: NetConfig,
    service: ServiceConfig,
    loaded: Mutex<HashMap<PathBuf, Loaded<G>>>,
}

impl<G: Encode> CheckpointNets<G> {
    /// Nets placed as `placement` says (device, threads; the architecture comes from each
    /// checkpoint), served with `service`'s batching.
    pub fn new(placement: NetConfig, service: ServiceConfig) -> CheckpointNets<G> {
        CheckpointNets { placement, service, loaded: Mutex::new(HashMap::new()) }
    }

    /// Forgets every loaded checkpoint except those in `keep` (their services stop once the
    /// agents using them are gone).
    pub fn retain(&self, keep: &[&Path]) {
        if let Ok(mut loaded) = self.loaded.lock() {
            loaded.retain(|path, _| keep.iter().any(|k| *k == path));
        }
    }
}

impl<G: Encode> arena::NetSource<G> for CheckpointNets<G> {
    fn evaluator(&self, checkpoint: &Path) -> Result<Arc<dyn mcts::Evaluator<G>>, String> {
        let mut loaded = self.loaded.lock().map_err(|_| "the checkpoint cache lock is poisoned".to_owned())?;
        if let Some(l) = loaded.get(checkpoint) {
            return Ok(Arc::clone(&l.evaluator));
        }
        let (net, _) = nn::checkpoint::load_as_saved(checkpoint, G::NAME, G::ENCODING, &self.placement)
            .map_err(|e| e.to_string())?;
        let service = InferenceService::start(net, self.service.clone()).map_err(|e| e.to_string())?;
        let evaluator: Arc<dyn mcts::Evaluator<G>> = Arc::new(service.evaluator::<G>());
        loaded.insert(checkpoint.to_path_buf(), Loaded { evaluator: Arc::clone(&evaluator), _service: service });
        Ok(evaluator)
    }
}
