//! Which net a process plays: generation 0, the newest checkpoint or the gate's best, and
//! [`CheckpointSource`], the self-play model source that follows one of them.
//!
//! **Generation 0 has one source**: the trainer's step-0 checkpoint in `checkpoints/`, the
//! weights initialised from the run seed. `qizero run` and `qizero train` write it when they
//! open a run without checkpoints; a self-play or arena process that starts first writes it
//! through the same trainer code ([`generation_zero`]), holding the trainer's lease while it does,
//! so the checkpoints folder keeps one writer and generation 0 is one file whoever made it.
//!
//! **Following** ([`Follow`]): `latest` plays the newest complete checkpoint (AlphaZero);
//! `best` plays the checkpoint the run's `best` file names (AlphaGo Zero, KataGo's gatekeeper),
//! generation 0 while there is no verdict yet. [`CheckpointSource::poll`], called by the
//! self-play workers between games, switches the inference service to a new net when the
//! followed checkpoint changes. A checkpoint that fails to load is reported (through
//! [`CheckpointSource::take_warnings`]) and skipped: self-play goes on with the net it has and
//! takes the next good one, rather than stopping a cluster's workers over one bad file.

use crate::config::{RunConfig, SelfplayModel};
use crate::error::PipelineError;
use crate::gate::Best;
use crate::lease::{Lease, LeaseOptions};
use crate::run_dir::{Role, RunDir};
use encode::Encode;
use nn::{InferenceService, NetConfig};
use selfplay::{Model, ModelSource, SourceError};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Which checkpoint a self-play process plays.
pub type Follow = SelfplayModel;

/// The checkpoint's model id: its file stem (`<step>-<sha12>`).
#[must_use]
pub fn model_id(path: &Path) -> String {
    path.file_stem().map_or_else(|| path.display().to_string(), |s| s.to_string_lossy().into_owned())
}

/// The trainer of `run`, set up from its config.
///
/// # Errors
/// The config cannot be written as TOML, or the trainer cannot open the run.
pub fn open_trainer<G: Encode>(run: &RunDir, config: &RunConfig) -> Result<train::Trainer<G>, PipelineError> {
    let setup = train::TrainerSetup {
        shards: run.shards(),
        checkpoints: run.checkpoints(),
        net: config.net.clone(),
        train: config.train.clone(),
        seed: config.seed,
        config_hash: train::config_hash(&run_config_text(run, config)?),
    };
    Ok(train::Trainer::<G>::open(setup)?)
}

/// The text whose hash each checkpoint records as its `config_hash`: the run's own
/// `config.toml` as it lies on disk, so that a run resumed by a build that prints its config
/// differently keeps one hash; the config as this build writes it when the run has none yet.
///
/// # Errors
/// The run's `config.toml` exists but cannot be read.
fn run_config_text(run: &RunDir, config: &RunConfig) -> Result<String, PipelineError> {
    let path = run.config();
    if !path.exists() {
        return crate::config::to_toml(config);
    }
    std::fs::read_to_string(&path).map_err(|e| PipelineError::File {
        op: "reading",
        path: path.clone(),
        reason: e.to_string(),
    })
}

/// Every complete checkpoint of `run`, by step, with its weights' path.
#[must_use]
pub fn checkpoints(run: &RunDir) -> Vec<(u64, PathBuf)> {
    train::lineage::complete(&run.checkpoints())
}

/// The weights of the complete checkpoint at `step`.
///
/// # Errors
/// [`PipelineError::MissingCheckpoint`] naming the step and the folder.
pub fn checkpoint_at(run: &RunDir, step: u64) -> Result<PathBuf, PipelineError> {
    checkpoints(run).into_iter().find(|(s, _)| *s == step).map(|(_, p)| p).ok_or_else(|| {
        PipelineError::MissingCheckpoint(format!(
            "the checkpoint of step {step} is missing from {}",
            run.checkpoints().display()
        ))
    })
}

/// Generation 0 of `run`: the step-0 checkpoint's weights, written first if the run has no
/// checkpoint yet (see the module docs). When a live trainer holds the lease, waits for it to
/// write its own (until `stop`).
///
/// # Errors
/// The trainer cannot open the run or write the checkpoint; stopped while waiting.
pub fn generation_zero<G: Encode>(
    run: &RunDir,
    config: &RunConfig,
    lease: &LeaseOptions,
    stop: &AtomicBool,
) -> Result<PathBuf, PipelineError> {
    loop {
        match checkpoints(run).into_iter().next() {
            Some((0, path)) => return Ok(path),
            // Later checkpoints but no step 0: a damaged run, not one to write generation 0 into.
            Some((step, _)) => {
                return Err(PipelineError::MissingCheckpoint(format!(
                    "generation 0 (the step-0 checkpoint) is missing from {}, which starts at step {step}",
                    run.checkpoints().display()
                )));
            }
            None => {}
        }
        match Lease::acquire_for(run, Role::Trainer, crate::lease::GENERATION_ZERO, lease) {
            Ok(held) => {
                let mut trainer = open_trainer::<G>(run, config)?;
                if trainer.last_checkpoint().is_none() {
                    trainer.checkpoint()?;
                }
                drop(held);
                return checkpoint_at(run, 0);
            }
            Err(PipelineError::LeaseHeld(_)) => {
                if stop.load(Ordering::Relaxed) {
                    return Err(PipelineError::MissingCheckpoint(
                        "stopped while waiting for the trainer's step-0 checkpoint".into(),
                    ));
                }
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(e) => return Err(e),
        }
    }
}

/// The weights the followed checkpoint names now: the newest complete checkpoint, or the
/// `best` file's (generation 0 without one).
///
/// # Errors
/// The `best` file does not read, or names a checkpoint that is not there; no checkpoint at
/// all.
pub fn followed(run: &RunDir, follow: Follow) -> Result<(u64, PathBuf), PipelineError> {
    let all = checkpoints(run);
    let missing = || PipelineError::MissingCheckpoint(format!("no checkpoint in {}", run.checkpoints().display()));
    match follow {
        SelfplayModel::Latest => all.into_iter().next_back().ok_or_else(missing),
        SelfplayModel::Best => match Best::read(&run.best())? {
            None => all.into_iter().find(|(s, _)| *s == 0).ok_or_else(missing),
            Some(best) => {
                let path = run.checkpoints().join(&best.weights);
                if all.iter().any(|(_, p)| *p == path) {
                    Ok((best.step, path))
                } else {
                    Err(PipelineError::MissingCheckpoint(format!(
                        "{} names {} ({}), which is not a complete checkpoint in {}",
                        run.best().display(),
                        best.checkpoint,
                        best.weights,
                        run.checkpoints().display()
                    )))
                }
            }
        },
    }
}

/// The followed checkpoint of a run served by one inference service; see the module docs.
pub struct CheckpointSource<G: Encode> {
    /// Declared before `service`, so it is dropped first: the service's thread ends only once
    /// every evaluator made from it is gone.
    evaluator: Arc<dyn mcts::Evaluator<G>>,
    service: InferenceService,
    run: RunDir,
    follow: Follow,
    net: NetConfig,
    /// The weights being served and their model id.
    current: Mutex<(PathBuf, Arc<str>)>,
    /// A checkpoint that failed to load, not to be tried again.
    failed: Mutex<Option<PathBuf>>,
    warnings: Mutex<Vec<String>>,
}

impl<G: Encode> CheckpointSource<G> {
    /// Serves the checkpoint `follow` names now in `run` (which must have one: see
    /// [`generation_zero`]), with the run's `[net]` and `[inference]` settings.
    ///
    /// # Errors
    /// No checkpoint to follow; the checkpoint cannot be loaded; the service cannot start.
    pub fn start(run: &RunDir, config: &RunConfig, follow: Follow) -> Result<CheckpointSource<G>, PipelineError> {
        let (_, path) = followed(run, follow)?;
        let (net, _) = nn::checkpoint::load(&path, G::NAME, G::ENCODING, &config.net)?;
        let service = InferenceService::start(net, config.inference.clone())?;
        let evaluator: Arc<dyn mcts::Evaluator<G>> = Arc::new(service.evaluator::<G>());
        let id: Arc<str> = model_id(&path).into();
        Ok(CheckpointSource {
            evaluator,
            service,
            run: run.clone(),
            follow,
            net: config.net.clone(),
            current: Mutex::new((path, id)),
            failed: Mutex::new(None),
            warnings: Mutex::new(Vec::new()),
        })
    }

    /// The inference service (its counters).
    #[must_use]
    pub fn service(&self) -> &InferenceService {
        &self.service
    }

    /// Warnings since the last call: checkpoints skipped because they did not load.
    pub fn take_warnings(&self) -> Vec<String> {
        self.warnings.lock().map(|mut w| std::mem::take(&mut *w)).unwrap_or_default()
    }

    fn warn(&self, line: String) {
        if let Ok(mut w) = self.warnings.lock() {
            w.push(line);
        }
    }
}

impl<G: Encode + alphabeta::SearchGame> CheckpointSource<G> {
    /// The same source with `selfplay.leaf_teacher` applied: every evaluation mixed with the
    /// alpha-beta engine's capture search ([`alphabeta::LeafTeacher`]) when the weight is above
    /// 0, the net alone otherwise. Checkpoints picked up later are served through it too.
    #[must_use]
    pub fn with_leaf_teacher(mut self, selfplay: &selfplay::SelfplayConfig) -> CheckpointSource<G> {
        if selfplay.leaf_teacher > 0.0 {
            let net = Arc::clone(&self.evaluator);
            self.evaluator =
                Arc::new(alphabeta::LeafTeacher::new(net, selfplay.leaf_teacher, selfplay.leaf_teacher_scale));
        }
        self
    }
}

impl<G: Encode> ModelSource<G> for CheckpointSource<G> {
    fn current(&self) -> Model<G> {
        let id = match self.current.lock() {
            Ok(c) => Arc::clone(&c.1),
            Err(poisoned) => Arc::clone(&poisoned.get_ref().1),
        };
        Model { id, evaluator: Arc::clone(&self.evaluator) }
    }

    fn poll(&self) -> Result<Option<Arc<str>>, SourceError> {
        let path = match followed(&self.run, self.follow) {
            Ok((_, path)) => path,
            Err(e) => {
                // A `best` naming a checkpoint not (yet) there, say: keep the net in use.
                self.warn(format!("selfplay: keeping the current net: {e}"));
                return Ok(None);
            }
        };
        let mut current = self.current.lock().map_err(|_| "model lock poisoned")?;
        if current.0 == path {
            return Ok(None);
        }
        let mut failed = self.failed.lock().map_err(|_| "model lock poisoned")?;
        if failed.as_deref() == Some(path.as_path()) {
            return Ok(None);
        }
        match nn::checkpoint::load(&path, G::NAME, G::ENCODING, &self.net) {
            Ok((net, _)) => {
                self.service.replace_net(net)?;
                *current = (path.clone(), model_id(&path).into());
                Ok(Some(Arc::clone(&current.1)))
            }
            Err(e) => {
                self.warn(format!("warning: skipping checkpoint {}: {e}", path.display()));
                *failed = Some(path);
                Ok(None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> RunConfig {
        let text = "game = \"xiangqi\"\n[net]\nblocks = 1\nchannels = 8\npolicy_channels = 1\nvalue_hidden = 8\n\
                    device = \"cpu\"\n";
        crate::config::parse(text, &[]).expect("parses")
    }

    /// A new, empty run directory under the temp folder (`tag` keeps tests apart), its root
    /// to remove at the end.
    fn fresh_run(tag: &str) -> (PathBuf, RunDir) {
        let root = std::env::temp_dir().join(format!("qizero-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let run = RunDir::new(&root);
        run.create().expect("creates");
        (root, run)
    }

    #[test]
    fn generation_zero_is_written_once_and_a_run_without_it_is_refused() {
        let (root, run) = fresh_run("gen0");
        let (config, lease, stop) = (config(), LeaseOptions::on("here"), AtomicBool::new(false));
        // The run's config.toml as another build printed it: the checkpoint hashes that file.
        let written = format!("# printed by another build\n{}", crate::config::to_toml(&config).expect("writes"));
        std::fs::write(run.config(), &written).expect("writes the config");
        let first = generation_zero::<xiangqi::Game>(&run, &config, &lease, &stop).expect("writes generation 0");
        assert!(model_id(&first).starts_with("0-"), "{}", first.display());
        let lineage =
            std::fs::read_to_string(run.checkpoints().join("0.json")).expect("through the trainer: with its lineage");
        let lineage: serde_json::Value = serde_json::from_str(&lineage).expect("JSON");
        assert_eq!(lineage["config_hash"].as_str(), Some(train::config_hash(&written).as_str()), "the run's own file");
        assert!(!run.lease(Role::Trainer).exists(), "the trainer's lease is given back");
        let again = generation_zero::<xiangqi::Game>(&run, &config, &lease, &stop).expect("is there");
        assert_eq!(again, first);
        assert_eq!(followed(&run, Follow::Best).expect("no verdict: generation 0").1, first);
        assert_eq!(followed(&run, Follow::Latest).expect("the newest").1, first);
        // Later checkpoints without step 0: a damaged run, refused at once (never waited on).
        std::fs::remove_file(run.checkpoints().join("0.json")).expect("removes");
        std::fs::write(run.checkpoints().join("4-000000000000.safetensors"), b"x").expect("writes");
        std::fs::write(run.checkpoints().join("4.json"), b"{}").expect("writes");
        let e = generation_zero::<xiangqi::Game>(&run, &config, &lease, &stop).expect_err("damaged");
        assert!(e.to_string().contains("generation 0") && e.to_string().contains("step 4"), "{e}");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn the_leaf_teacher_mixes_the_served_values() {
        let (root, run) = fresh_run("teacher");
        let (config, lease, stop) = (config(), LeaseOptions::on("here"), AtomicBool::new(false));
        std::fs::write(run.config(), crate::config::to_toml(&config).expect("writes")).expect("writes the config");
        generation_zero::<xiangqi::Game>(&run, &config, &lease, &stop).expect("writes generation 0");
        // Red's rook takes black's, which nothing retakes: the capture search reads a rook up.
        let game = xiangqi::Game::from_fen("5k3/9/9/9/4r4/9/9/9/9/3KR4 w - - 0 1").expect("fen");
        let moves = game.legal_moves();
        let batch = [mcts::EvalRequest { game: &game, moves: moves.as_ref() }];
        let value = |weight: f32| {
            let selfplay = selfplay::SelfplayConfig { leaf_teacher: weight, ..selfplay::SelfplayConfig::default() };
            let source = CheckpointSource::<xiangqi::Game>::start(&run, &config, Follow::Latest)
                .expect("serves generation 0")
                .with_leaf_teacher(&selfplay);
            let out = source.current().evaluator.evaluate(&batch).expect("evaluates");
            (out[0].value, out[0].priors.clone())
        };
        let (net, net_priors) = value(0.0);
        let (taught, taught_priors) = value(1.0);
        let (half, _) = value(0.5);
        let teacher = (alphabeta::LeafTeacher::<xiangqi::Game>::new(
            Arc::new(mcts::UniformEvaluator),
            1.0,
            selfplay::SelfplayConfig::default().leaf_teacher_scale,
        ))
        .teacher_value(&game);
        assert!(teacher > 0.8, "a rook up: {teacher}");
        assert!((taught - teacher).abs() < 1e-5, "weight 1: the capture search alone ({taught} against {teacher})");
        assert!((half - 0.5 * (net + teacher)).abs() < 1e-4, "weight 0.5: {half} from {net} and {teacher}");
        assert_eq!(net_priors, taught_priors, "the priors are the net's");
        let _ = std::fs::remove_dir_all(&root);
    }
}
