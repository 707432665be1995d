//! The trainer against real shards on disk: learning, exact resume, corrupt shards, lineage,
//! the replay window and the reuse cap.

use encode::Encode;
use nn::NetConfig;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use train::{
    Event, Lineage, OptimizerKind, PolicyTarget, Readiness, ReplayWindow, RunOptions, StopReason, TrainConfig, Trainer,
    TrainerSetup, ValueTarget, batch, synthetic,
};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qizero-train-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("shards")).expect("scratch dir");
    dir
}

/// Writes `n` shards of random games, created at times `t0, t0 + 1, ...`; returns their paths
/// and sample counts.
fn write_shards<G: Encode>(run: &Path, n: u64, games: usize, t0: u64) -> Vec<(PathBuf, u64)> {
    (0..n)
        .map(|i| {
            let s = synthetic::random_shard::<G>(t0 + i, games, 40, t0 + i, "test");
            let count = s.counts().samples;
            (shard::write_shard(&run.join("shards"), &s).expect("write shard"), count)
        })
        .collect()
}

fn train_config() -> TrainConfig {
    TrainConfig {
        batch_size: 16,
        min_positions: 1,
        max_samples_per_new_sample: 0.0,
        checkpoint_every: 1000,
        metrics_every: 0,
        poll_seconds: 0.05,
        ..TrainConfig::default()
    }
}

fn setup(run: &Path, train: TrainConfig) -> TrainerSetup {
    TrainerSetup {
        shards: run.join("shards"),
        checkpoints: run.join("checkpoints"),
        net: NetConfig { device: "cpu".into(), ..NetConfig::tiny() },
        train,
        seed: 7,
        config_hash: "cafe".into(),
    }
}

fn run_collect<G: Encode>(trainer: &mut Trainer<G>, options: RunOptions) -> (train::RunSummary, Vec<Event>) {
    let mut events = Vec::new();
    let summary = trainer.run(options, &AtomicBool::new(false), &mut |e| events.push(e.clone())).expect("run");
    (summary, events)
}

#[test]
fn loss_falls_on_a_fixed_shard_set() {
    let run = scratch("loss-falls");
    write_shards::<xiangqi::Game>(&run, 2, 3, 100);
    let mut trainer = Trainer::<xiangqi::Game>::open(setup(&run, train_config())).expect("open");
    trainer.rescan().expect("scan");
    let losses: Vec<f64> = (0..60).map(|_| trainer.train_step().expect("step").total_loss).collect();
    let first: f64 = losses[..5].iter().sum::<f64>() / 5.0;
    let last: f64 = losses[55..].iter().sum::<f64>() / 5.0;
    // The policy's softmax runs over the legal moves only, so a fresh net's policy loss is about
    // ln(40) = 3.7 nats (not ln(2062) = 7.6); fitting these few games takes off more than 0.3.
    assert!((3.0..5.0).contains(&first), "first losses {first:.3}: not a softmax over the legal moves?");
    assert!(last < first - 0.3, "loss did not fall: first {first:.3}, last {last:.3}");
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn draughts_trains_too() {
    let run = scratch("draughts");
    write_shards::<draughts::Game>(&run, 2, 2, 100);
    let mut trainer = Trainer::<draughts::Game>::open(setup(&run, train_config())).expect("open");
    let (summary, _) =
        run_collect(&mut trainer, RunOptions { until_step: Some(3), no_wait: true, ..RunOptions::default() });
    assert_eq!((summary.reason, summary.last_step), (StopReason::Target, 3));
    let _ = std::fs::remove_dir_all(&run);
}

/// Train K steps with a checkpoint at K, go on; a fresh trainer opened on the same directory
/// resumes at K and computes the same next losses and weights, bit for bit.
#[test]
fn resume_is_exact() {
    for optimizer in [OptimizerKind::Sgd, OptimizerKind::Adamw] {
        for loader_threads in [0, 2] {
            let run = scratch(&format!("resume-{optimizer:?}-{loader_threads}"));
            write_shards::<xiangqi::Game>(&run, 3, 2, 100);
            let learning_rate = if optimizer == OptimizerKind::Sgd { 0.02 } else { 1e-3 };
            let config =
                TrainConfig { optimizer, loader_threads, learning_rate, checkpoint_every: 3, ..train_config() };
            let mut a = Trainer::<xiangqi::Game>::open(setup(&run, config.clone())).expect("open");
            let (summary, _) =
                run_collect(&mut a, RunOptions { until_step: Some(3), no_wait: true, ..RunOptions::default() });
            assert_eq!(summary.last_checkpoint.as_ref().map(|l| l.step), Some(3));
            let ahead: Vec<f64> = (0..3).map(|_| a.train_step().expect("step").total_loss).collect();
            let ahead_id = train::content_id(a.net()).expect("id");

            let mut b = Trainer::<xiangqi::Game>::open(setup(&run, config)).expect("reopen");
            assert_eq!((b.step(), b.samples_seen()), (3, 48));
            b.rescan().expect("scan");
            let resumed: Vec<f64> = (0..3).map(|_| b.train_step().expect("step").total_loss).collect();
            assert_eq!(ahead, resumed, "{optimizer:?}, loader threads {loader_threads}");
            assert_eq!(ahead_id, train::content_id(b.net()).expect("id"));
            let _ = std::fs::remove_dir_all(&run);
        }
    }
}

#[test]
fn batches_depend_only_on_seed_step_and_window() {
    let run = scratch("batches");
    write_shards::<xiangqi::Game>(&run, 2, 2, 100);
    let mut window = ReplayWindow::<xiangqi::Game>::new(&run.join("shards"), 1_000_000, PolicyTarget::Auto);
    window.scan().expect("scan");
    let w = window.snapshot();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().expect("a pool");
    let one = batch::build(w, 5, 9, 33, ValueTarget::Z, None);
    let three = batch::build(w, 5, 9, 33, ValueTarget::Z, Some(&pool));
    let same = |a: &batch::Batch, b: &batch::Batch| {
        a.inputs.equal(&b.inputs)
            && a.policy_index.equal(&b.policy_index)
            && a.policy_share.equal(&b.policy_share)
            && a.value.equal(&b.value)
            && a.legal_mask.equal(&b.legal_mask)
    };
    assert!(same(&one, &three));
    let other = batch::build(w, 5, 10, 33, ValueTarget::Z, None);
    assert!(!same(&one, &other));
    let sums = Vec::<f32>::try_from(one.policy_share.sum_dim_intlist(1, false, tch::Kind::Float)).expect("sums");
    assert!(sums.iter().all(|s| (s - 1.0).abs() < 1e-5), "{sums:?}");
    assert_eq!(one.inputs.size(), [33, 35, 10, 9], "every encoded plane; the net picks what it reads");
    let _ = std::fs::remove_dir_all(&run);
}

/// Every row of a batch is the encoder's planes and [`encode::policy_target`]'s target for its
/// position, under one of the symmetries, and both symmetries occur.
#[test]
fn batch_rows_are_the_encoders_view() {
    use game::Game as _;
    let run = scratch("rows");
    // One game, one sample: the start position.
    let data = synthetic::random_shard::<xiangqi::Game>(3, 1, 1, 100, "rows");
    shard::write_shard(&run.join("shards"), &data).expect("write");
    let sample = &data.games[0].samples[0];
    let start = xiangqi::Game::new();
    let info = xiangqi::Game::ENCODING;
    let moves: Vec<_> = sample.pi.iter().map(|(m, _)| start.parse_move(m).expect("legal")).collect();
    let shares: Vec<f32> = sample.pi.iter().map(|&(_, p)| p).collect();
    let mut indices = Vec::new();
    start.policy_indices(&moves, &mut indices);
    let expected: Vec<(Vec<f32>, Vec<f32>)> = (0..info.symmetries)
        .map(|sym| {
            let mut planes = vec![0.0; info.plane_len()];
            start.encode(&mut planes);
            xiangqi::Game::transform_planes(sym, &mut planes);
            let turned: Vec<u32> =
                indices.iter().map(|&i| xiangqi::Game::transform_policy_index(sym, i as usize) as u32).collect();
            let mut target = vec![0.0; info.policy_size];
            encode::policy_target(&turned, &shares, &mut target);
            (planes, target)
        })
        .collect();

    let mut window = ReplayWindow::<xiangqi::Game>::new(&run.join("shards"), 1000, PolicyTarget::Auto);
    window.scan().expect("scan");
    let b = batch::build(window.snapshot(), 1, 0, 16, ValueTarget::Z, None);
    let dense = tch::Tensor::zeros([16, info.policy_size as i64], (tch::Kind::Float, tch::Device::Cpu)).scatter_add(
        1,
        &b.policy_index,
        &b.policy_share,
    );
    // The legal-move mask of each symmetry: 0 at the start position's legal moves, turned.
    let mut legal = Vec::new();
    start.policy_indices(start.legal_moves().as_ref(), &mut legal);
    let masks: Vec<Vec<f32>> = (0..info.symmetries)
        .map(|sym| {
            let mut mask = vec![batch::ILLEGAL; info.policy_size];
            for &i in &legal {
                mask[xiangqi::Game::transform_policy_index(sym, i as usize)] = 0.0;
            }
            mask
        })
        .collect();
    let mut seen = vec![false; info.symmetries];
    for row in 0..16 {
        let planes = Vec::<f32>::try_from(b.inputs.get(row).view([-1])).expect("planes");
        let target = Vec::<f32>::try_from(dense.get(row)).expect("target");
        let sym = expected.iter().position(|(p, t)| *p == planes && *t == target).expect("row matches a symmetry");
        let mask = Vec::<f32>::try_from(b.legal_mask.get(row)).expect("mask");
        assert_eq!(mask, masks[sym], "row {row}: the mask is the legal moves under the row's symmetry");
        assert_eq!(mask.iter().filter(|&&m| m == 0.0).count(), 44, "44 legal moves at the start");
        seen[sym] = true;
    }
    assert!(seen.iter().all(|&s| s), "both symmetries drawn: {seen:?}");
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn corrupt_shards_are_skipped_and_named() {
    let run = scratch("corrupt");
    let shards = write_shards::<xiangqi::Game>(&run, 4, 2, 100);
    // Cut one short, flip a bit in another's payload, add a file that is no shard at all and a
    // shard of the other game.
    let cut = &shards[1].0;
    let len = std::fs::metadata(cut).expect("meta").len();
    std::fs::OpenOptions::new().write(true).open(cut).expect("open").set_len(len / 2).expect("truncate");
    let flipped = &shards[3].0;
    let mut bytes = std::fs::read(flipped).expect("read");
    bytes[40] ^= 0x10;
    std::fs::write(flipped, bytes).expect("write");
    std::fs::write(run.join("shards/0000000000050-junk.shard"), b"hello").expect("junk");
    let other = synthetic::random_shard::<draughts::Game>(1, 1, 10, 99, "draughts");
    let other = shard::write_shard(&run.join("shards"), &other).expect("write");

    let mut trainer = Trainer::<xiangqi::Game>::open(setup(&run, train_config())).expect("open");
    let (summary, events) =
        run_collect(&mut trainer, RunOptions { until_step: Some(2), no_wait: true, ..RunOptions::default() });
    assert_eq!(summary.reason, StopReason::Target, "the good shards still train");
    let reported: Vec<(String, String)> = events
        .iter()
        .filter_map(|e| if let Event::Corrupt(c) = e { Some((c.name.clone(), c.fault.clone())) } else { None })
        .collect();
    let name = |p: &Path| p.file_name().expect("name").to_string_lossy().into_owned();
    let fault_of = |p: &str| reported.iter().find(|(n, _)| n == p).map(|(_, f)| f.clone());
    assert_eq!(reported.len(), 4, "{reported:?}");
    assert!(fault_of(&name(cut)).expect("cut reported").contains("truncated"));
    assert!(fault_of(&name(flipped)).expect("flip reported").contains("checksum"));
    assert!(fault_of("0000000000050-junk.shard").expect("junk reported").contains("not a qizero shard"));
    assert!(fault_of(&name(&other)).expect("other game reported").contains("draughts"));
    assert_eq!(summary.corrupt.len(), 4);
    assert_eq!(summary.last_checkpoint.expect("checkpoint").corrupt_shards, 4);
    // Reported once: a rescan finds nothing new.
    assert!(trainer.rescan().expect("scan").is_empty());
    assert_eq!(trainer.window().snapshot().positions(), shards[0].1 + shards[2].1);
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn lineage_records_the_checkpoint() {
    let run = scratch("lineage");
    let shards = write_shards::<xiangqi::Game>(&run, 3, 2, 100);
    let total: u64 = shards.iter().map(|s| s.1).sum();
    let config = TrainConfig { checkpoint_every: 2, ..train_config() };
    let mut trainer = Trainer::<xiangqi::Game>::open(setup(&run, config)).expect("open");
    let (summary, events) =
        run_collect(&mut trainer, RunOptions { until_step: Some(4), no_wait: true, ..RunOptions::default() });
    let written: Vec<u64> =
        events.iter().filter_map(|e| if let Event::Checkpoint(l) = e { Some(l.step) } else { None }).collect();
    assert_eq!(written, [2, 4]);
    let dir = run.join("checkpoints");
    let two = Lineage::read(&dir.join("2.json")).expect("2.json");
    let four = Lineage::read(&dir.join("4.json")).expect("4.json");
    assert_eq!(Some(&four), summary.last_checkpoint.as_ref());
    assert_eq!(two.parent, None);
    assert_eq!(four.parent.as_deref(), Some(two.weights.as_str()));
    assert_eq!((four.step, four.samples_seen, four.positions_generated), (4, 64, total));
    assert_eq!((four.game.as_str(), four.encoding.as_str(), four.optimizer.as_str()), ("xiangqi", "xiangqi-v1", "sgd"));
    assert_eq!(four.architecture, NetConfig::tiny().architecture());
    assert_eq!((four.window.shards, four.window.positions), (3, total));
    let name = |p: &Path| p.file_name().expect("name").to_string_lossy().into_owned();
    assert_eq!(four.window.oldest.as_deref(), Some(name(&shards[0].0).as_str()));
    assert_eq!(four.window.newest.as_deref(), Some(name(&shards[2].0).as_str()));
    assert_eq!(four.losses.steps, 2);
    assert!(four.losses.total.is_finite() && four.losses.policy > 0.0 && four.losses.value >= 0.0);
    assert!((four.losses.total - four.losses.policy - four.losses.value).abs() < 1e-5);
    assert_eq!((four.config_hash.as_str(), four.seed, four.corrupt_shards), ("cafe", 7, 0));
    assert_eq!(four.optimizer_state, "4.optim.safetensors");
    assert!(four.weights.starts_with("4-") && four.weights.len() == "4-".len() + 12 + ".safetensors".len());
    // The weights file is what nn (and self-play) take as the newest checkpoint, named by content.
    let (step, path) = train::lineage::newest(&dir).expect("latest");
    assert_eq!((step, name(&path)), (4, four.weights.clone()));
    let meta = nn::checkpoint::read_meta(&path).expect("meta");
    assert_eq!(meta.all.get("parent"), Some(&two.weights));
    let (net, _) = nn::checkpoint::load(&path, "xiangqi", xiangqi::Game::ENCODING, &NetConfig::tiny()).expect("load");
    assert_eq!(format!("4-{}.safetensors", train::content_id(&net).expect("id")), four.weights);
    assert!(
        std::fs::read_dir(&dir).expect("dir").flatten().all(|e| !e.file_name().to_string_lossy().ends_with(".tmp"))
    );
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn incomplete_checkpoints_are_ignored_and_cleared() {
    let run = scratch("incomplete");
    write_shards::<xiangqi::Game>(&run, 2, 2, 100);
    let config = TrainConfig { checkpoint_every: 2, ..train_config() };
    let mut trainer = Trainer::<xiangqi::Game>::open(setup(&run, config.clone())).expect("open");
    run_collect(&mut trainer, RunOptions { until_step: Some(4), no_wait: true, ..RunOptions::default() });
    // As if killed while writing step 6: weights and optimiser state, no manifest; and a temp.
    let dir = run.join("checkpoints");
    std::fs::copy(dir.join("4.optim.safetensors"), dir.join("6.optim.safetensors")).expect("copy");
    std::fs::write(dir.join("6-000000000000.safetensors"), b"half").expect("write");
    std::fs::write(dir.join(".6.json.tmp"), b"{").expect("write");
    std::fs::write(dir.join(".6-000000000000.safetensors.77-0.tmp"), b"half").expect("write");
    // Another process's temporary file (the run directory's write probe, mid-write): not the
    // trainer's to remove (a self-play task starting beside it failed when it was).
    let probe = ".write-probe-77.77-0.tmp";
    std::fs::write(dir.join(probe), b"qizero").expect("write");
    let reopened = Trainer::<xiangqi::Game>::open(setup(&run, config)).expect("reopen");
    assert_eq!(reopened.step(), 4);
    let left: Vec<String> =
        std::fs::read_dir(&dir).expect("dir").flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    assert!(left.iter().all(|n| !n.starts_with('6') && (!n.ends_with(".tmp") || n == probe)), "{left:?}");
    assert!(left.iter().any(|n| n == probe), "{left:?}");
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn window_takes_the_newest_shards_up_to_its_size() {
    let run = scratch("window");
    let shards = write_shards::<xiangqi::Game>(&run, 5, 1, 100);
    let names: Vec<String> =
        shards.iter().map(|(p, _)| p.file_name().expect("name").to_string_lossy().into_owned()).collect();
    let count = |i: usize| shards[i].1;
    // One position short of the newest two: the second newest crosses the line and is taken whole.
    let mut window =
        ReplayWindow::<xiangqi::Game>::new(&run.join("shards"), (count(4) + count(3) - 1) as usize, PolicyTarget::Auto);
    window.scan().expect("scan");
    assert_eq!(window.snapshot().names(), [names[3].as_str(), names[4].as_str()]);
    // Exactly the newest two.
    let mut window =
        ReplayWindow::<xiangqi::Game>::new(&run.join("shards"), (count(4) + count(3)) as usize, PolicyTarget::Auto);
    let report = window.scan().expect("scan");
    assert!(report.changed && report.new_shards == 5 && report.corrupt.is_empty());
    assert_eq!(window.snapshot().names(), [names[3].as_str(), names[4].as_str()]);
    let all: u64 = shards.iter().map(|s| s.1).sum();
    assert_eq!(window.positions_generated(), all, "shards outside the window count as generated");
    // A newer shard pushes the oldest out; nothing changes on a rescan without news.
    let newer = write_shards::<xiangqi::Game>(&run, 1, 1, 200);
    window.scan().expect("scan");
    let newest = newer[0].0.file_name().expect("name").to_string_lossy().into_owned();
    assert_eq!(window.snapshot().names().last().copied(), Some(newest.as_str()));
    assert!(!window.snapshot().names().contains(&names[2].as_str()));
    assert!(!window.scan().expect("scan").changed);
    // Deleted shards still count as generated.
    std::fs::remove_file(&shards[0].0).expect("remove");
    window.scan().expect("scan");
    assert_eq!(window.positions_generated(), all + newer[0].1);
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn reuse_cap_and_minimum_gate_training() {
    let run = scratch("cap");
    let shards = write_shards::<xiangqi::Game>(&run, 1, 2, 100);
    let positions = shards[0].1;
    let config = TrainConfig { min_positions: positions as usize + 1, ..train_config() };
    let mut trainer = Trainer::<xiangqi::Game>::open(setup(&run, config)).expect("open");
    let (summary, _) =
        run_collect(&mut trainer, RunOptions { until_step: Some(100), no_wait: true, ..RunOptions::default() });
    assert_eq!(
        summary.reason,
        StopReason::Starved(Readiness::TooFewPositions { have: positions, need: positions + 1 })
    );
    assert_eq!((summary.last_step, summary.last_checkpoint), (0, None));

    let config = TrainConfig { max_samples_per_new_sample: 1.0, ..train_config() };
    let mut trainer = Trainer::<xiangqi::Game>::open(setup(&run, config)).expect("open");
    let (summary, _) =
        run_collect(&mut trainer, RunOptions { until_step: Some(100), no_wait: true, ..RunOptions::default() });
    let steps = positions / 16;
    assert_eq!(summary.last_step, steps);
    assert_eq!(
        summary.reason,
        StopReason::Starved(Readiness::ReuseCap { samples_seen: steps * 16, allowed: positions })
    );
    assert_eq!(summary.last_checkpoint.map(|l| l.step), Some(steps), "stopping writes a checkpoint");
    write_shards::<xiangqi::Game>(&run, 1, 2, 200);
    trainer.rescan().expect("scan");
    assert_eq!(trainer.readiness(), Readiness::Ready);
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn waits_for_data_and_stops_on_request() {
    let run = scratch("wait");
    let mut trainer = Trainer::<xiangqi::Game>::open(setup(&run, train_config())).expect("open");
    let stop = AtomicBool::new(false);
    let mut events = Vec::new();
    let summary = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(300));
            stop.store(true, Ordering::Relaxed);
        });
        trainer.run(RunOptions::default(), &stop, &mut |e| events.push(e.clone())).expect("run")
    });
    assert_eq!(summary.reason, StopReason::Stopped);
    assert!(matches!(events.first(), Some(Event::Waiting(Readiness::TooFewPositions { have: 0, need: 1 }))));
    assert_eq!(events.len(), 1, "one waiting event, not one per poll: {events:?}");
    assert!(summary.last_checkpoint.is_none());
    let _ = std::fs::remove_dir_all(&run);
}

/// A trainer paused for data again and again (as `qizero run` does between self-play phases)
/// writes checkpoints on schedule only, and keeps the optimiser state of the newest two.
#[test]
fn pauses_write_no_checkpoints_and_old_optimizer_states_go() {
    let run = scratch("churn");
    write_shards::<xiangqi::Game>(&run, 1, 2, 300);
    let config = TrainConfig { max_samples_per_new_sample: 1.0, checkpoint_every: 4, ..train_config() };
    let mut trainer = Trainer::<xiangqi::Game>::open(setup(&run, config)).expect("open");
    let pause = RunOptions { until_step: Some(1000), no_wait: true, resume_later: true };
    let mut pauses = 0;
    for seed in 0..12 {
        let (summary, _) = run_collect(&mut trainer, pause);
        assert!(matches!(summary.reason, StopReason::Starved(_)), "{:?}", summary.reason);
        pauses += 1;
        write_shards::<xiangqi::Game>(&run, 1, 1, 400 + seed);
        trainer.rescan().expect("scan");
    }
    let steps = trainer.step();
    assert!(steps >= 12, "trained {steps} steps over {pauses} pauses");
    let dir = run.join("checkpoints");
    let manifests = train::lineage::steps_in(&dir);
    assert_eq!(manifests, (1..=steps / 4).map(|k| k * 4).collect::<Vec<_>>(), "on schedule only");
    let optim: Vec<String> = std::fs::read_dir(&dir)
        .expect("lists")
        .filter_map(|e| e.ok()?.file_name().to_str().map(str::to_owned))
        .filter(|n| n.ends_with(".optim.safetensors"))
        .collect();
    assert_eq!(optim.len(), 2, "the newest two optimiser states: {optim:?}");
    let weights = std::fs::read_dir(&dir)
        .expect("lists")
        .filter(|e| e.as_ref().is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".safetensors")))
        .count();
    assert_eq!(weights, manifests.len() + 2, "every checkpoint's weights stay");
    // The newest still resumes.
    let again = Trainer::<xiangqi::Game>::open(setup(&run, train_config())).expect("resumes");
    assert_eq!(again.step(), *manifests.last().expect("one"));
    let _ = std::fs::remove_dir_all(&run);
}

/// `train.value_target` and `train.policy_target` reach the steps: on the same shards and
/// weights, the first step's value loss changes with the value target alone and its policy loss
/// with the policy target alone (the shards carry improved policies, uniform over the legal
/// moves, unlike their visit shares).
#[test]
fn targets_reach_the_trainer() {
    use game::Game as _;
    let run = scratch("targets");
    let mut data = synthetic::random_shard::<xiangqi::Game>(5, 3, 30, 100, "targets");
    for record in &mut data.games {
        let replayed = record.replay::<xiangqi::Game>(Path::new("mem")).expect("replays");
        for (sample, r) in record.samples.iter_mut().zip(replayed) {
            let legal = r.game.legal_moves();
            let share = 1.0 / legal.as_ref().len() as f32;
            sample.improved = legal.as_ref().iter().map(|&mv| (r.game.move_to_string(mv), share)).collect();
        }
    }
    shard::write_shard(&run.join("shards"), &data).expect("write");
    let first_step = |value_target, policy_target| {
        let _ = std::fs::remove_dir_all(run.join("checkpoints"));
        let config = TrainConfig { value_target, policy_target, loader_threads: 0, ..train_config() };
        let mut trainer = Trainer::<xiangqi::Game>::open(setup(&run, config)).expect("open");
        assert_eq!(trainer.window().policy_target(), policy_target);
        trainer.rescan().expect("scan");
        let stats = trainer.train_step().expect("step");
        (stats.policy_loss, stats.value_loss)
    };
    let base = first_step(ValueTarget::Z, PolicyTarget::Auto);
    let q = first_step(ValueTarget::Q, PolicyTarget::Auto);
    let mix = first_step(ValueTarget::Mix(0.5), PolicyTarget::Auto);
    let visits = first_step(ValueTarget::Z, PolicyTarget::Visits);
    assert_eq!(base, first_step(ValueTarget::Mix(0.0), PolicyTarget::Auto), "mix:0 is z");
    assert_eq!((q.0, mix.0), (base.0, base.0), "the value target leaves the policy loss alone");
    assert!(q.1 != base.1 && mix.1 != base.1 && mix.1 != q.1, "value losses {base:?} {q:?} {mix:?}");
    assert_eq!(visits.1, base.1, "the policy target leaves the value loss alone");
    assert!(visits.0 != base.0, "policy losses: auto {} visits {}", base.0, visits.0);
    let _ = std::fs::remove_dir_all(&run);
}

/// A net with the material head trains it beside the value (the total loss counts it with
/// `material_loss_weight`), records it in the checkpoint, and resumes only as a net with the
/// head: its architecture says so.
#[test]
fn the_material_head_trains_and_resumes() {
    let run = scratch("material");
    write_shards::<xiangqi::Game>(&run, 2, 3, 100);
    let config = TrainConfig { material_loss_weight: 0.5, ..train_config() };
    let mut with_head = setup(&run, config);
    with_head.net.material_head = true;
    let mut trainer = Trainer::<xiangqi::Game>::open(with_head.clone()).expect("open");
    let (summary, events) =
        run_collect(&mut trainer, RunOptions { until_step: Some(60), no_wait: true, ..RunOptions::default() });
    let steps: Vec<&train::StepStats> =
        events.iter().filter_map(|e| if let Event::Step(s) = e { Some(s) } else { None }).collect();
    assert_eq!(steps.len(), 60);
    let material: Vec<f64> = steps.iter().map(|s| s.material_loss.expect("a material loss every step")).collect();
    for (s, m) in steps.iter().zip(&material) {
        assert!((s.total_loss - s.policy_loss - s.value_loss - 0.5 * m).abs() < 1e-4, "{s:?}");
    }
    let (first, last) = (material[..5].iter().sum::<f64>() / 5.0, material[55..].iter().sum::<f64>() / 5.0);
    assert!(last < first, "material loss did not fall: first {first:.4}, last {last:.4}");
    let lineage = summary.last_checkpoint.expect("a checkpoint at step 60");
    assert!(lineage.architecture.ends_with(" material_head=1"), "{}", lineage.architecture);
    assert!(lineage.losses.material.is_some_and(f64::is_finite));
    drop(trainer);
    let resumed = Trainer::<xiangqi::Game>::open(with_head).expect("resume");
    assert_eq!(resumed.step(), 60);
    let Err(refused) = Trainer::<xiangqi::Game>::open(setup(&run, train_config())) else {
        panic!("a net without the head resumed from one with it");
    };
    assert!(refused.to_string().contains("material_head=1"), "{refused}");
    // A plain net's steps carry no material loss, and its manifest no material field.
    let plain = scratch("material-plain");
    write_shards::<xiangqi::Game>(&plain, 1, 2, 100);
    let mut trainer = Trainer::<xiangqi::Game>::open(setup(&plain, train_config())).expect("open");
    trainer.rescan().expect("scan");
    assert_eq!(trainer.train_step().expect("step").material_loss, None);
    trainer.checkpoint().expect("checkpoint");
    let json = std::fs::read_to_string(plain.join("checkpoints/1.json")).expect("manifest");
    assert!(!json.contains("material"), "{json}");
    let _ = std::fs::remove_dir_all(&run);
    let _ = std::fs::remove_dir_all(&plain);
}

/// A trainer on a scratch run of xiangqi shards with `config`, scanned and ready to step.
fn scheduled_trainer(name: &str, config: &TrainConfig) -> (PathBuf, Trainer<xiangqi::Game>) {
    let run = scratch(name);
    write_shards::<xiangqi::Game>(&run, 1, 2, 100);
    let mut trainer = Trainer::<xiangqi::Game>::open(setup(&run, config.clone())).expect("open");
    trainer.rescan().expect("scan");
    (run, trainer)
}

/// A cosine from 0.01 to a floor of 0.001 over `cosine_steps`, no warm-up.
fn cosine_config(cosine_steps: u64) -> TrainConfig {
    TrainConfig {
        learning_rate: 0.01,
        schedule: train::Schedule::Cosine,
        cosine_steps,
        cosine_final: 0.1,
        loader_threads: 0,
        ..train_config()
    }
}

/// A set cosine (`cosine_steps > 0`) steps over `cosine_steps` until a run sets a horizon
/// (`run.fit_cosine`), and over the horizon after; a constant rate ignores the horizon.
#[test]
fn a_horizon_replaces_cosine_steps() {
    let config = cosine_config(1000);
    let (run, mut trainer) = scheduled_trainer("horizon-over-steps", &config);
    let first = trainer.train_step().expect("step").learning_rate;
    let second = trainer.train_step().expect("step").learning_rate;
    assert_eq!((first, second), (config.learning_rate_at(0), config.learning_rate_at(1)));
    assert!(second > 0.0099, "{second}");
    trainer.set_cosine_horizon(4);
    let lrs: Vec<f64> = (0..3).map(|_| trainer.train_step().expect("step").learning_rate).collect();
    assert_eq!(lrs, (2..5).map(|s| config.learning_rate_over(s, 4)).collect::<Vec<_>>());
    assert!((lrs[0] - 0.0055).abs() < 1e-12 && (lrs[2] - 0.001).abs() < 1e-12, "{lrs:?}");
    let _ = std::fs::remove_dir_all(&run);

    let constant = TrainConfig { learning_rate: 0.01, loader_threads: 0, ..train_config() };
    assert_eq!(constant.schedule, train::Schedule::Constant);
    let (run, mut trainer) = scheduled_trainer("horizon-constant", &constant);
    trainer.set_cosine_horizon(1);
    let lrs: Vec<f64> = (0..3).map(|_| trainer.train_step().expect("step").learning_rate).collect();
    assert!(lrs.iter().all(|&lr| (lr - 0.01).abs() < 1e-15), "{lrs:?}");
    let _ = std::fs::remove_dir_all(&run);
}

/// `cosine_steps = 0`: no step without a horizon (a clear error), and with one the steps follow
/// the cosine over it; a new horizon moves the rest of the schedule.
#[test]
fn a_fitted_cosine_needs_and_follows_its_horizon() {
    let config = cosine_config(0);
    let (run, mut trainer) = scheduled_trainer("fitted-cosine", &config);
    let e = trainer.train_step().expect_err("no horizon");
    assert!(e.to_string().contains("train.cosine_steps = 0") && e.to_string().contains("qizero run"), "{e}");
    assert_eq!(trainer.step(), 0);
    trainer.set_cosine_horizon(4);
    let lrs: Vec<f64> = (0..5).map(|_| trainer.train_step().expect("step").learning_rate).collect();
    let want: Vec<f64> = (0..5).map(|s| config.learning_rate_over(s, 4)).collect();
    assert_eq!(lrs, want);
    assert!((lrs[0] - 0.01).abs() < 1e-12 && (lrs[2] - 0.0055).abs() < 1e-12 && (lrs[4] - 0.001).abs() < 1e-12);
    trainer.set_cosine_horizon(10);
    let lr = trainer.train_step().expect("step").learning_rate;
    assert!((lr - config.learning_rate_over(5, 10)).abs() < 1e-15 && lr > 0.001, "{lr}");
    let _ = std::fs::remove_dir_all(&run);
}
