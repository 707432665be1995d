//! The net on the CPU: it learns (overfits a fixed batch), checkpoints round-trip exactly, wrong
//! checkpoints are refused with a message naming the mismatch, damaged or renamed checkpoints
//! and device files are refused naming the file, the batching service answers exactly what a
//! direct forward pass gives, and a service whose net fails answers errors.

use encode::Encode;
use mcts::{EvalError, EvalRequest, Evaluator};
use nn::checkpoint;
use nn::evaluator::{EncodedBatch, priors_from_logits};
use nn::{InferenceService, NetConfig, NnError, PolicyValueNet, ServiceConfig};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::path::PathBuf;
use tch::nn::OptimizerConfig;
use tch::{Device, Kind, Tensor};

fn cpu_tiny() -> NetConfig {
    NetConfig { device: "cpu".into(), ..NetConfig::tiny() }
}

/// `n` distinct positions from seeded random xiangqi playouts.
fn xiangqi_positions(n: usize, seed: u64) -> Vec<xiangqi::Game> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut g = xiangqi::Game::new();
        let plies = rng.random_range(0..40);
        for _ in 0..plies {
            if game::Game::outcome(&g).is_some() {
                break;
            }
            let moves = game::Game::legal_moves(&g);
            let moves = moves.as_ref();
            game::Game::play_unchecked(&mut g, moves[rng.random_range(0..moves.len())]);
        }
        if game::Game::outcome(&g).is_none() {
            out.push(g);
        }
    }
    out
}

/// The encoded positions one after another, as the inference service stages them.
fn encoded<G: Encode>(games: &[G]) -> Vec<f32> {
    let info = G::ENCODING;
    let mut buf = vec![0f32; games.len() * info.plane_len()];
    for (g, out) in games.iter().zip(buf.chunks_exact_mut(info.plane_len())) {
        g.encode(out);
    }
    buf
}

fn planes<G: Encode>(games: &[G]) -> Tensor {
    let info = G::ENCODING;
    Tensor::from_slice(&encoded(games)).view([
        games.len() as i64,
        info.planes as i64,
        info.height as i64,
        info.width as i64,
    ])
}

fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qizero-nn-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

fn max_abs_diff(a: &Tensor, b: &Tensor) -> f64 {
    (a - b).abs().max().double_value(&[])
}

#[test]
fn tiny_net_overfits_a_fixed_batch() {
    let games = xiangqi_positions(32, 1);
    let xs = planes(&games);
    let mut rng = StdRng::seed_from_u64(2);
    // A fixed target for each position: one legal move and a win or a loss.
    let mut targets = Vec::new();
    let mut zs = Vec::new();
    for g in &games {
        let moves = game::Game::legal_moves(g);
        let moves = moves.as_ref();
        targets.push(g.policy_index(moves[rng.random_range(0..moves.len())]) as i64);
        zs.push(if rng.random_bool(0.5) { 1f32 } else { -1f32 });
    }
    let targets = Tensor::from_slice(&targets);
    let zs = Tensor::from_slice(&zs);
    let net = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 7).expect("net");
    let mut opt = tch::nn::Adam::default().build(net.var_store(), 3e-3).expect("optimiser");
    let mut first = None;
    let (mut policy_loss, mut value_loss) = (f64::MAX, f64::MAX);
    for _ in 0..300 {
        let (logits, values) = net.forward_t(&xs, true);
        let pl = logits.log_softmax(-1, Kind::Float).nll_loss(&targets);
        let vl = (&values - &zs).square().mean(Kind::Float);
        let loss = &pl + &vl;
        first.get_or_insert(loss.double_value(&[]));
        opt.backward_step(&loss);
        policy_loss = pl.double_value(&[]);
        value_loss = vl.double_value(&[]);
    }
    let first = first.unwrap_or(0.0);
    // Stated threshold: cross-entropy below 0.05 (from ln(2086) ~ 7.6) and value MSE below 0.02.
    assert!(policy_loss < 0.05, "policy loss {policy_loss} (first total loss {first})");
    assert!(value_loss < 0.02, "value loss {value_loss} (first total loss {first})");
}

#[test]
fn save_then_load_gives_identical_outputs() {
    let games = xiangqi_positions(8, 3);
    let xs = planes(&games);
    let config = NetConfig { se_ratio: 4, ..cpu_tiny() };
    let net = PolicyValueNet::for_game::<xiangqi::Game>(&config, 11).expect("net");
    // Move the batch-norm statistics away from their initial values, so they are tested too.
    let _ = net.forward_t(&xs, true);
    let (p0, v0) = net.infer(&xs);
    let path = temp_path("roundtrip.safetensors");
    checkpoint::save(&net, &path, 42, &[("parent", "none")]).expect("save");
    let (loaded, meta) = checkpoint::load(&path, "xiangqi", xiangqi::Game::ENCODING, &config).expect("load");
    assert_eq!(meta.step, 42);
    assert_eq!(meta.game, "xiangqi");
    assert_eq!(meta.all.get("parent").map(String::as_str), Some("none"));
    let (p1, v1) = loaded.infer(&xs);
    assert_eq!(max_abs_diff(&p0, &p1), 0.0);
    assert_eq!(max_abs_diff(&v0, &v1), 0.0);
    // A different seed gives a different net: the comparison above can fail.
    let other = PolicyValueNet::for_game::<xiangqi::Game>(&config, 12).expect("net");
    assert!(max_abs_diff(&p0, &other.infer(&xs).0) > 1e-4);
}

/// `f_input` stacks whole positions into the net's input, the same tensor as stacking them by
/// hand; a plane count that is not whole positions is an input error naming both counts.
#[test]
fn f_input_stacks_whole_positions_and_refuses_a_partial_one() {
    let games = xiangqi_positions(3, 5);
    let info = <xiangqi::Game as Encode>::ENCODING;
    let buf = encoded(&games);
    let net = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 1).expect("net");
    let xs = net.f_input(&buf).expect("three whole positions");
    assert_eq!(xs.size(), planes(&games).size());
    assert_eq!(max_abs_diff(&xs, &planes(&games)), 0.0);
    let err = net.f_input(&buf[..buf.len() - 1]).expect_err("a position short of one float");
    assert!(matches!(err, NnError::Input(_)), "{err}");
    let text = err.to_string();
    assert!(text.contains(&(buf.len() - 1).to_string()) && text.contains(&info.plane_len().to_string()), "{text}");
}

/// With `material_utility`, what play reads is the value head's output plus that share of the
/// material head's, clamped; training's forward pass keeps both heads apart; a checkpoint
/// carries the utility, so a net loaded as saved plays the same values.
#[test]
fn the_material_utility_moves_the_played_value_by_the_material_head() {
    let games = xiangqi_positions(16, 5);
    let xs = planes(&games);
    let config = NetConfig { material_head: true, material_utility: 0.5, ..cpu_tiny() };
    let net = PolicyValueNet::for_game::<xiangqi::Game>(&config, 21).expect("net");
    let (_, v_played) = net.infer(&xs);
    let (value, material) = tch::no_grad(|| {
        let (_, v, m) = net.forward_heads_t(&xs, false);
        (v, m.expect("the net has the head"))
    });
    let expected = (&value + &material * 0.5).clamp(-1.0, 1.0);
    assert!(max_abs_diff(&v_played, &expected) < 1e-6, "played value is v + 0.5 m");
    // The material head's share is not nothing here, so the check above can fail.
    assert!(max_abs_diff(&v_played, &value) > 1e-4, "utility changed no value");
    let plain = NetConfig { material_utility: 0.0, ..config.clone() };
    let same_weights = PolicyValueNet::for_game::<xiangqi::Game>(&plain, 21).expect("net");
    assert!(max_abs_diff(&same_weights.infer(&xs).1, &value) < 1e-6, "utility 0 plays the value head alone");
    let path = temp_path("utility.safetensors");
    checkpoint::save(&net, &path, 7, &[]).expect("save");
    let (loaded, _) =
        checkpoint::load_as_saved(&path, "xiangqi", xiangqi::Game::ENCODING, &cpu_tiny()).expect("load as saved");
    assert_eq!(loaded.config().material_utility, 0.5);
    assert_eq!(max_abs_diff(&loaded.infer(&xs).1, &v_played), 0.0);
    let err = checkpoint::load(&path, "xiangqi", xiangqi::Game::ENCODING, &plain).expect_err("other utility");
    assert!(err.to_string().contains("material_utility"), "{err}");
}

/// `f_heads` shows each head apart and what play reads: its logits and played values are
/// exactly the search's ([`PolicyValueNet::f_infer`]), its value and material are the training
/// forward pass's, and the played value is the value plus the utility's share of the material;
/// a net without the head shows none and plays its value.
#[test]
fn every_head_is_shown_as_play_and_training_read_it() {
    let games = xiangqi_positions(12, 8);
    let xs = planes(&games);
    let config = NetConfig { material_head: true, material_utility: 0.5, ..cpu_tiny() };
    let net = PolicyValueNet::for_game::<xiangqi::Game>(&config, 33).expect("net");
    let heads = net.f_heads(&xs).expect("heads");
    let (logits, played) = net.f_infer(&xs).expect("infer");
    assert_eq!(max_abs_diff(&heads.logits, &logits), 0.0);
    assert_eq!(max_abs_diff(&heads.played, &played), 0.0);
    let (value, material) = tch::no_grad(|| {
        let (_, v, m) = net.forward_heads_t(&xs, false);
        (v, m.expect("the net has the head"))
    });
    let shown = heads.material.as_ref().expect("the material head is shown");
    assert_eq!(max_abs_diff(&heads.value, &value), 0.0);
    assert_eq!(max_abs_diff(shown, &material), 0.0);
    let expected = (&value + &material * 0.5).clamp(-1.0, 1.0);
    assert!(max_abs_diff(&heads.played, &expected) < 1e-6);
    assert!(max_abs_diff(&heads.played, &heads.value) > 1e-4, "the utility's share is not nothing here");
    // With the head but no utility, the head is still shown and play reads the value alone.
    let plain = NetConfig { material_utility: 0.0, ..config.clone() };
    let plain = PolicyValueNet::for_game::<xiangqi::Game>(&plain, 33).expect("net");
    let heads = plain.f_heads(&xs).expect("heads");
    assert_eq!(max_abs_diff(heads.material.as_ref().expect("shown"), &material), 0.0);
    assert_eq!(max_abs_diff(&heads.played, &heads.value), 0.0);
    // Without the head there is nothing to show.
    let headless = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 33).expect("net");
    let heads = headless.f_heads(&xs).expect("heads");
    assert!(heads.material.is_none());
    assert_eq!(max_abs_diff(&heads.played, &headless.f_infer(&xs).expect("infer").1), 0.0);
    // A batch of the wrong shape is an error naming the forward pass, not a panic.
    let wrong = Tensor::zeros([2, 3, 10, 9], (Kind::Float, Device::Cpu));
    let err = net.f_heads(&wrong).expect_err("wrong planes");
    assert!(err.to_string().contains("forward pass on cpu"), "{err}");
}

/// A net without feature planes reads the planes before them and records their layout's id
/// (what every net made before the feature planes did); one with them reads every plane and
/// records the encoding's own id; neither loads as the other, and an encoding without feature
/// planes refuses them.
#[test]
fn feature_planes_decide_what_a_net_reads_and_records() {
    let games = xiangqi_positions(8, 5);
    let xs = planes(&games);
    let info = xiangqi::Game::ENCODING;
    assert!(info.feature_planes() > 0);
    // The same positions with the feature planes scrambled: only a net that reads them sees it.
    let scrambled = xs.copy();
    let features = info.feature_planes() as i64;
    let _ = scrambled.narrow(1, info.base_planes as i64, features).fill_(0.75);

    let plain = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 3).expect("net");
    assert_eq!((plain.input_id(), plain.input_planes()), (info.base_id, info.base_planes as i64));
    assert_eq!(max_abs_diff(&plain.infer(&xs).0, &plain.infer(&scrambled).0), 0.0, "the features are not read");
    let with_config = NetConfig { feature_planes: true, ..cpu_tiny() };
    let with = PolicyValueNet::for_game::<xiangqi::Game>(&with_config, 3).expect("net");
    assert_eq!((with.input_id(), with.input_planes()), (info.id, info.planes as i64));
    assert!(max_abs_diff(&with.infer(&xs).0, &with.infer(&scrambled).0) > 1e-6, "the features are read");

    let (plain_path, with_path) = (temp_path("plain.safetensors"), temp_path("features.safetensors"));
    checkpoint::save(&plain, &plain_path, 1, &[]).expect("save");
    checkpoint::save(&with, &with_path, 1, &[]).expect("save");
    assert_eq!(checkpoint::read_meta(&plain_path).expect("meta").encoding, "xiangqi-v1");
    assert_eq!(checkpoint::read_meta(&with_path).expect("meta").encoding, "xiangqi-v2");
    let (back, _) = checkpoint::load_as_saved(&with_path, "xiangqi", info, &cpu_tiny()).expect("loads as saved");
    assert_eq!(max_abs_diff(&back.infer(&xs).0, &with.infer(&xs).0), 0.0);
    let err = checkpoint::load(&with_path, "xiangqi", info, &cpu_tiny()).expect_err("not a plain net");
    assert!(matches!(err, NnError::Mismatch { .. }), "{err}");

    // An encoding without feature planes refuses them.
    let bare = encode::EncodingInfo { id: info.base_id, planes: info.base_planes, ..info };
    let err = PolicyValueNet::new("xiangqi", bare, &with_config, 1).expect_err("no feature planes");
    assert!(err.to_string().contains("feature_planes") && err.to_string().contains("xiangqi-v1"), "{err}");
    // Draughts has them too: the captures each side could make.
    let draughts = PolicyValueNet::for_game::<draughts::Game>(&with_config, 1).expect("draughts has them");
    assert_eq!(draughts.input_id(), "draughts-v2");
}

#[test]
fn mismatched_checkpoints_are_refused() {
    let config = cpu_tiny();
    let net = PolicyValueNet::for_game::<xiangqi::Game>(&config, 1).expect("net");
    let path = temp_path("mismatch.safetensors");
    checkpoint::save(&net, &path, 1, &[]).expect("save");

    let err = checkpoint::load(&path, "draughts", draughts::Game::ENCODING, &config).expect_err("must fail");
    assert!(matches!(err, NnError::Mismatch { field: "game", .. }), "{err}");
    assert!(err.to_string().contains("made for game 'xiangqi', but this net needs 'draughts'"), "{err}");

    let bigger = NetConfig { blocks: 3, ..config.clone() };
    let err = checkpoint::load(&path, "xiangqi", xiangqi::Game::ENCODING, &bigger).expect_err("must fail");
    assert!(matches!(err, NnError::Mismatch { field: "architecture", .. }), "{err}");
    assert!(err.to_string().contains("blocks=3"), "{err}");

    let mut other_encoding = xiangqi::Game::ENCODING;
    other_encoding.base_id = "xiangqi-v0";
    let err = checkpoint::load(&path, "xiangqi", other_encoding, &config).expect_err("must fail");
    assert!(matches!(err, NnError::Mismatch { field: "encoding", .. }), "{err}");

    let garbage = temp_path("garbage.safetensors");
    std::fs::write(&garbage, b"this is not a checkpoint").expect("write");
    let err = checkpoint::load(&garbage, "xiangqi", xiangqi::Game::ENCODING, &config).expect_err("must fail");
    assert!(err.to_string().contains("garbage.safetensors") && err.to_string().contains("not a safetensors"), "{err}");

    let missing = temp_path("missing.safetensors");
    let err = checkpoint::load(&missing, "xiangqi", xiangqi::Game::ENCODING, &config).expect_err("must fail");
    assert!(err.to_string().contains("missing.safetensors"), "{err}");
}

#[test]
fn service_answers_like_a_direct_forward_pass() {
    let games = xiangqi_positions(24, 5);
    let net = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 3).expect("net");
    let (logits, values) = net.infer(&planes(&games));
    let logits = Vec::<f32>::try_from(&logits.view([-1])).expect("logits");
    let values = Vec::<f32>::try_from(&values).expect("values");
    let service = InferenceService::start(
        net,
        ServiceConfig { max_batch: 16, max_wait_us: 2000, cache_entries: 1024, net_threads: 1 },
    )
    .expect("starts");
    let moves: Vec<Vec<xiangqi::Move>> = games.iter().map(|g| game::Game::legal_moves(g).as_ref().to_vec()).collect();
    let requests: Vec<EvalRequest<'_, xiangqi::Game>> =
        games.iter().zip(&moves).map(|(game, moves)| EvalRequest { game, moves }).collect();
    let policy = xiangqi::Game::ENCODING.policy_size;
    let check = |answers: &[mcts::Evaluation]| {
        for (i, (a, g)) in answers.iter().zip(&games).enumerate() {
            assert!((a.value - values[i]).abs() < 1e-5, "value {i}");
            let idx: Vec<u32> = moves[i].iter().map(|&m| g.policy_index(m) as u32).collect();
            let row: Vec<f32> = idx.iter().map(|&k| logits[i * policy + k as usize]).collect();
            let want = priors_from_logits(&row, &idx);
            for (p, q) in a.priors.iter().zip(&want) {
                assert!((p - q).abs() < 1e-5, "priors of position {i}");
            }
            assert!((a.priors.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        }
    };
    // Three threads at once, in chunks of 8: batches form across threads.
    std::thread::scope(|s| {
        for chunk in requests.chunks(8) {
            let ev = service.evaluator::<xiangqi::Game>();
            let games_chunk = chunk;
            s.spawn(move || ev.evaluate(games_chunk).expect("evaluates"));
        }
    });
    let ev = service.evaluator::<xiangqi::Game>();
    let first = ev.evaluate(&requests).expect("evaluates");
    check(&first);
    let stats = service.stats();
    // The second pass over the same positions is answered from the cache, but for slots two
    // positions share (the cache is direct-mapped) and repeated positions.
    assert!(stats.cache_hits >= 20, "the second pass hits the cache: {stats:?}");
    assert_eq!(stats.positions, 48);
    assert_eq!(stats.forward_positions + stats.cache_hits, 48);
    let mut encoded = EncodedBatch::default();
    encoded.encode(&requests);
    assert_eq!(encoded.len(), 24);
}

/// With two net threads the answers are the ones one thread gives (each thread runs an exact
/// copy of the net, batch norm statistics included), and a swap reaches both: after
/// `replace_net`, no request from any of four threads meets the old net. (Which thread takes a
/// request is `pick_lane`'s unit test.)
#[test]
fn two_net_threads_answer_as_one_and_both_take_the_new_net() {
    let games = xiangqi_positions(24, 7);
    let moves = legal(&games);
    let requests = requests_of(&games, &moves);
    let first = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 3).expect("net");
    // Trained-looking batch norm statistics, so a copy that missed them would answer otherwise.
    tch::no_grad(|| {
        for (name, mut var) in first.var_store().variables() {
            if name.ends_with("running_mean") {
                let _ = var.fill_(0.25);
            }
        }
    });
    let want = |net: &PolicyValueNet| Vec::<f32>::try_from(&net.infer(&planes(&games)).1).expect("values");
    let (old_values, copy) = (want(&first), first.try_clone().expect("copies"));
    assert_eq!(want(&copy), old_values, "a copy answers exactly as the net");
    let second = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 4).expect("net");
    let new_values = want(&second);
    assert!(old_values.iter().zip(&new_values).any(|(a, b)| (a - b).abs() > 1e-4), "the nets differ");

    let config = ServiceConfig { max_batch: 8, max_wait_us: 0, cache_entries: 0, net_threads: 2 };
    let service = InferenceService::start(first, config).expect("starts");
    let check = |values: &[f32], answers: &[Vec<mcts::Evaluation>]| {
        for chunk in answers {
            for (i, a) in chunk.iter().enumerate() {
                assert!((a.value - values[i]).abs() < 1e-5, "value {i}: {} against {}", a.value, values[i]);
            }
        }
    };
    // Four threads, each asking for every position many times.
    let ask = || -> Vec<Vec<mcts::Evaluation>> {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    let ev = service.evaluator::<xiangqi::Game>();
                    let requests = &requests;
                    s.spawn(move || (0..10).map(|_| ev.evaluate(requests).expect("evaluates")).collect::<Vec<_>>())
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().expect("joins")).collect()
        })
    };
    check(&old_values, &ask());
    service.replace_net(second).expect("swaps");
    check(&new_values, &ask());
    let stats = service.stats();
    assert_eq!(stats.positions, 2 * 4 * 10 * 24, "{stats:?}");
    assert_eq!(stats.requests, 2 * 4 * 10, "{stats:?}");
}

/// Makes `net`'s forward pass fail inside libtorch (a C++ exception): the stem's weight gets
/// a shape no input fits.
fn break_forward(net: &PolicyValueNet) {
    let mut stem = net.var_store().variables()["stem.weight"].shallow_clone();
    tch::no_grad(|| stem.set_data(&Tensor::zeros([1, 1, 1, 1], (Kind::Float, Device::Cpu))));
}

fn requests_of<'a>(games: &'a [xiangqi::Game], moves: &'a [Vec<xiangqi::Move>]) -> Vec<EvalRequest<'a, xiangqi::Game>> {
    games.iter().zip(moves).map(|(game, moves)| EvalRequest { game, moves }).collect()
}

fn legal(games: &[xiangqi::Game]) -> Vec<Vec<xiangqi::Move>> {
    games.iter().map(|g| game::Game::legal_moves(g).as_ref().to_vec()).collect()
}

#[test]
fn a_failing_forward_pass_is_an_error_for_every_requester() {
    let games = xiangqi_positions(6, 9);
    let moves = legal(&games);
    let requests = requests_of(&games, &moves);
    let net = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 3).expect("net");
    break_forward(&net);
    // A long wait, so the two threads' requests share one pass.
    let config = ServiceConfig { max_batch: 64, max_wait_us: 50_000, cache_entries: 256, net_threads: 1 };
    let service = InferenceService::start(net, config).expect("starts");
    let answers: Vec<Result<_, EvalError>> = std::thread::scope(|s| {
        let handles: Vec<_> = requests
            .chunks(3)
            .map(|chunk| {
                let ev = service.evaluator::<xiangqi::Game>();
                s.spawn(move || ev.evaluate(chunk))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("joins")).collect()
    });
    for answer in answers {
        match answer {
            Err(EvalError::Backend(cause)) => assert!(cause.contains("forward pass on cpu"), "{cause}"),
            other => panic!("a failed pass must be an error, got {other:?}"),
        }
    }
    // Asked again, the same positions fail again: nothing was cached or made up.
    let again = service.evaluator::<xiangqi::Game>().evaluate(&requests);
    assert!(matches!(again, Err(EvalError::Backend(_))), "{again:?}");
    let stats = service.stats();
    assert_eq!((stats.requests, stats.positions, stats.forward_passes, stats.cache_hits), (0, 0, 0, 0), "{stats:?}");
}

#[test]
fn non_finite_outputs_are_errors() {
    let games = xiangqi_positions(2, 4);
    let moves = legal(&games);
    let requests = requests_of(&games, &moves);
    let net = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 3).expect("net");
    tch::no_grad(|| {
        for (_, mut var) in net.var_store().variables() {
            let _ = var.fill_(f64::NAN);
        }
    });
    let service = InferenceService::start(net, ServiceConfig::default()).expect("starts");
    let e = service.evaluator::<xiangqi::Game>().evaluate(&requests).expect_err("NaN out");
    assert!(e.to_string().contains("is NaN"), "{e}");
}

/// Evaluators leave the feature planes out for a net that does not read them (the service test
/// above compares such a net's answers with a forward pass over every plane) and put them back
/// once a net that reads them replaces it.
#[test]
fn a_net_that_reads_feature_planes_gets_them_after_a_swap() {
    let games = xiangqi_positions(6, 9);
    let moves = legal(&games);
    let requests = requests_of(&games, &moves);
    let config = NetConfig { feature_planes: true, ..cpu_tiny() };
    let with = PolicyValueNet::for_game::<xiangqi::Game>(&config, 4).expect("net");
    let values = Vec::<f32>::try_from(&with.infer(&planes(&games)).1).expect("values");
    // The same net with the feature planes zeroed answers differently, so the check can fail.
    let zeroed = planes(&games);
    let info = xiangqi::Game::ENCODING;
    let _ = zeroed.narrow(1, info.base_planes as i64, info.feature_planes() as i64).fill_(0.0);
    let blind = Vec::<f32>::try_from(&with.infer(&zeroed).1).expect("values");
    assert!(values.iter().zip(&blind).any(|(a, b)| (a - b).abs() > 1e-5), "the features matter here");

    let plain = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 3).expect("net");
    let service = InferenceService::start(plain, ServiceConfig::default()).expect("starts");
    let ev = service.evaluator::<xiangqi::Game>();
    assert!(ev.evaluate(&requests).is_ok());
    service.replace_net(with).expect("swaps");
    let answers = ev.evaluate(&requests).expect("the featured net answers");
    for (i, a) in answers.iter().enumerate() {
        assert!((a.value - values[i]).abs() < 1e-5, "value {i}: {} against {}", a.value, values[i]);
    }
}

#[test]
fn a_request_the_net_cannot_take_is_refused_and_the_service_goes_on() {
    let net = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 3).expect("net");
    let service = InferenceService::start(net, ServiceConfig::default()).expect("starts");
    let board = draughts::Game::new();
    let moves = game::Game::legal_moves(&board);
    let wrong = [EvalRequest { game: &board, moves: moves.as_ref() }];
    let e = service.evaluator::<draughts::Game>().evaluate(&wrong).expect_err("another game");
    assert!(matches!(e, EvalError::Backend(_)), "{e:?}");
    assert!(e.to_string().contains("draughts-v1") && e.to_string().contains("xiangqi-v1"), "{e}");
    let games = xiangqi_positions(2, 6);
    let moves = legal(&games);
    let requests = requests_of(&games, &moves);
    assert_eq!(service.evaluator::<xiangqi::Game>().evaluate(&requests).expect("serves on").len(), 2);
}

#[test]
fn a_stopped_service_answers_stopped() {
    let games = xiangqi_positions(2, 8);
    let moves = legal(&games);
    let requests = requests_of(&games, &moves);
    let net = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 3).expect("net");
    let mut service = InferenceService::start(net, ServiceConfig::default()).expect("starts");
    let before = service.evaluator::<xiangqi::Game>();
    assert!(before.evaluate(&requests).is_ok());
    service.stop();
    service.stop();
    for ev in [before, service.evaluator::<xiangqi::Game>()] {
        let e = ev.evaluate(&requests).expect_err("stopped");
        assert!(matches!(e, EvalError::Stopped(_)), "{e:?}");
        assert!(e.to_string().contains("stopped"), "{e}");
    }
}

#[test]
fn service_config_ranges_are_checked() {
    let refused = |config: ServiceConfig, field: &str| {
        let e = config.validate().expect_err("out of range");
        assert!(e.contains(&format!("inference.{field} = ")), "{e}");
        let net = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 3).expect("net");
        let e = InferenceService::start(net, config).expect_err("refused at start");
        assert!(e.to_string().contains(&format!("inference.{field}")), "{e}");
    };
    refused(ServiceConfig { max_batch: 0, ..ServiceConfig::default() }, "max_batch");
    refused(ServiceConfig { max_batch: 4097, ..ServiceConfig::default() }, "max_batch");
    refused(ServiceConfig { cache_entries: 100_000_000_000, ..ServiceConfig::default() }, "cache_entries");
    refused(ServiceConfig { max_wait_us: 100_000_000, ..ServiceConfig::default() }, "max_wait_us");
    let e = ServiceConfig { max_batch: 0, ..ServiceConfig::default() }.validate().expect_err("0");
    assert_eq!(e, "inference.max_batch = 0 is outside 1..=4096");
    assert_eq!(ServiceConfig::default().validate(), Ok(()));
    let edge =
        ServiceConfig { max_batch: 4096, max_wait_us: 100_000, cache_entries: nn::MAX_CACHE_ENTRIES, net_threads: 64 };
    assert_eq!(edge.validate(), Ok(()));
}

/// Where the tensor data of a safetensors file begins (after the 8-byte length and the header).
fn data_start(bytes: &[u8]) -> usize {
    let mut len = [0u8; 8];
    len.copy_from_slice(&bytes[..8]);
    8 + usize::try_from(u64::from_le_bytes(len)).expect("fits")
}

/// `path` rewritten as a file from before `weights_sha256` existed: the same tensors and
/// metadata, less that key, at `to`.
fn without_digest(path: &std::path::Path, to: &std::path::Path) {
    let bytes = std::fs::read(path).expect("reads");
    let (_, header) = safetensors::SafeTensors::read_metadata(&bytes).expect("header");
    let mut meta = header.metadata().clone().expect("metadata");
    assert!(meta.remove(checkpoint::WEIGHTS_SHA256).is_some(), "save records the digest");
    let file = safetensors::SafeTensors::deserialize(&bytes).expect("reads");
    let out = safetensors::serialize(file.tensors(), &Some(meta)).expect("serializes");
    std::fs::write(to, out).expect("writes");
}

fn saved_tiny(name: &str) -> (PolicyValueNet, PathBuf) {
    let net = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 21).expect("net");
    let path = temp_path(name);
    checkpoint::save(&net, &path, 7, &[]).expect("save");
    (net, path)
}

fn load_err(path: &std::path::Path) -> String {
    let e = checkpoint::load(path, "xiangqi", xiangqi::Game::ENCODING, &cpu_tiny()).expect_err("must be refused");
    let text = e.to_string();
    let name = path.file_name().and_then(|n| n.to_str()).expect("a name");
    assert!(text.contains(name), "the error names the file: {text}");
    text
}

#[test]
fn checkpoints_with_nan_weights_are_refused() {
    let (_, path) = saved_tiny("nan.safetensors");
    let mut bytes = std::fs::read(&path).expect("reads");
    let start = data_start(&bytes);
    for chunk in bytes[start..].chunks_exact_mut(4) {
        chunk.copy_from_slice(&f32::NAN.to_le_bytes());
    }
    std::fs::write(&path, &bytes).expect("writes");
    let text = load_err(&path);
    assert!(text.contains("tensor '") && text.contains("holds NaN at index 0"), "{text}");

    // NaN weights saved as such are refused too (their digest is right, their values are not).
    let net = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 21).expect("net");
    tch::no_grad(|| {
        let mut var = net.var_store().variables()["value_fc2.bias"].shallow_clone();
        let _ = var.fill_(f64::INFINITY);
    });
    let path = temp_path("inf.safetensors");
    checkpoint::save(&net, &path, 7, &[]).expect("save");
    let text = load_err(&path);
    assert!(text.contains("tensor 'value_fc2.bias' holds inf"), "{text}");
}

#[test]
fn a_flipped_byte_in_the_weights_is_refused() {
    let (_, path) = saved_tiny("flipped.safetensors");
    assert!(checkpoint::load(&path, "xiangqi", xiangqi::Game::ENCODING, &cpu_tiny()).is_ok());
    let mut bytes = std::fs::read(&path).expect("reads");
    let at = data_start(&bytes) + 4 * 1000;
    bytes[at] ^= 1; // the lowest mantissa bit of one weight: still a finite number
    std::fs::write(&path, &bytes).expect("writes");
    let text = load_err(&path);
    assert!(text.contains("SHA-256") && text.contains("damaged"), "{text}");
}

#[test]
fn the_content_id_in_the_file_name_is_checked() {
    let (net, path) = saved_tiny("named.safetensors");
    let id = checkpoint::content_id(&net).expect("id");
    let meta = checkpoint::read_meta(&path).expect("meta");
    let digest = meta.all.get(checkpoint::WEIGHTS_SHA256).expect("recorded");
    assert_eq!(digest, &checkpoint::weights_sha256(&net).expect("digest"));
    assert!(digest.starts_with(&id));

    let named = temp_path(&format!("7-{id}.safetensors"));
    std::fs::copy(&path, &named).expect("copies");
    assert!(checkpoint::load(&named, "xiangqi", xiangqi::Game::ENCODING, &cpu_tiny()).is_ok());
    let renamed = temp_path("7-0123456789ab.safetensors");
    std::fs::copy(&path, &renamed).expect("copies");
    let text = load_err(&renamed);
    assert!(text.contains(&format!("content id 0123456789ab, the weights' is {id}")), "{text}");

    // Files from before the digest was recorded: still readable, checked by name when they
    // have a content-id name.
    let old = temp_path("old.safetensors");
    without_digest(&path, &old);
    let (loaded, meta) = checkpoint::load(&old, "xiangqi", xiangqi::Game::ENCODING, &cpu_tiny()).expect("loads");
    assert!(!meta.all.contains_key(checkpoint::WEIGHTS_SHA256));
    assert_eq!(checkpoint::content_id(&loaded).expect("id"), id);
    let old_named = temp_path(&format!("9-{id}.safetensors"));
    without_digest(&path, &old_named);
    assert!(checkpoint::load(&old_named, "xiangqi", xiangqi::Game::ENCODING, &cpu_tiny()).is_ok());
    let old_renamed = temp_path("9-ba9876543210.safetensors");
    without_digest(&path, &old_renamed);
    let text = load_err(&old_renamed);
    assert!(text.contains("content id ba9876543210"), "{text}");
}

#[test]
fn a_device_file_is_refused_at_once() {
    let zero = std::path::Path::new("/dev/zero");
    let started = std::time::Instant::now();
    let text = load_err(zero);
    assert!(text.contains("/dev/zero") && text.contains("not a regular file"), "{text}");
    let e = checkpoint::read_meta(zero).expect_err("refused");
    assert!(e.to_string().contains("not a regular file"), "{e}");
    let e = checkpoint::load_as_saved(zero, "xiangqi", xiangqi::Game::ENCODING, &cpu_tiny()).expect_err("refused");
    assert!(e.to_string().contains("not a regular file"), "{e}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}
