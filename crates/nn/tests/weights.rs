//! What a seed makes: fresh weights pinned by their content ids (a tiny run with the same seed
//! must keep playing the same games), and libtorch's process-wide state left alone by building
//! and loading nets. A test binary of its own, so no other test changes that state meanwhile.

use game::Game as _;
use nn::checkpoint::{content_id, weights_sha256};
use nn::{NetConfig, PolicyValueNet};

fn cpu_tiny() -> NetConfig {
    NetConfig { device: "cpu".into(), ..NetConfig::tiny() }
}

/// Content ids computed before net construction stopped touching libtorch's global settings;
/// a change here changes every seeded run.
#[test]
fn fresh_weights_are_pinned_by_seed_and_config() {
    let xiangqi = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 1).expect("net");
    assert_eq!(content_id(&xiangqi).expect("id"), "005247df497a");
    let draughts = PolicyValueNet::for_game::<draughts::Game>(&cpu_tiny(), 7).expect("net");
    assert_eq!(content_id(&draughts).expect("id"), "820d76b030c5");
    let se = NetConfig { se_ratio: 4, ..cpu_tiny() };
    let squeezed = PolicyValueNet::for_game::<xiangqi::Game>(&se, 11).expect("net");
    assert_eq!(content_id(&squeezed).expect("id"), "094276716876");
    let full = weights_sha256(&xiangqi).expect("digest");
    assert_eq!(full.len(), 64);
    assert!(full.starts_with("005247df497a"));
}

/// Threads building nets at once each get exactly what their seed makes alone: seeding and
/// drawing are not interleaved.
#[test]
fn nets_built_at_once_on_several_threads_are_still_pinned() {
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|k| {
                s.spawn(move || {
                    (0..3)
                        .map(|i| {
                            let seed = if (k + i) % 2 == 0 { 1 } else { 2 };
                            let net = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), seed).expect("net");
                            (seed, content_id(&net).expect("id"))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let ids: Vec<(u64, String)> = handles.into_iter().flat_map(|h| h.join().expect("joins")).collect();
        let two = ids.iter().find(|(seed, _)| *seed == 2).map(|(_, id)| id.clone()).expect("seed 2 built");
        assert_ne!(two, "005247df497a");
        for (seed, id) in &ids {
            assert_eq!(id, if *seed == 1 { "005247df497a" } else { two.as_str() }, "seed {seed}");
        }
    });
}

/// The material head is drawn after every other layer, so a seeded net with it plays exactly
/// as the same net without it; only training reads the head's predictions, one per position.
#[test]
fn the_material_head_leaves_policy_and_value_alone() {
    let with = NetConfig { material_head: true, ..cpu_tiny() };
    let plain = PolicyValueNet::for_game::<xiangqi::Game>(&cpu_tiny(), 1).expect("net");
    let headed = PolicyValueNet::for_game::<xiangqi::Game>(&with, 1).expect("net");
    assert!(headed.has_material_head() && !plain.has_material_head());
    assert!(headed.parameter_count() > plain.parameter_count());
    let info = <xiangqi::Game as encode::Encode>::ENCODING;
    let (start, mut opened) = (xiangqi::Game::default(), xiangqi::Game::default());
    opened.play(opened.parse_move_strict("h2e2").expect("move")).expect("legal");
    let mut planes = vec![0f32; 2 * info.plane_len()];
    encode::encode_into(&[&start, &opened], &mut planes);
    let dims = [2, info.planes, info.height, info.width].map(|d| i64::try_from(d).expect("small"));
    let xs = tch::Tensor::from_slice(&planes).view(dims);
    let (p0, v0) = plain.infer(&xs);
    let (p1, v1) = headed.infer(&xs);
    assert!(p0.allclose(&p1, 0.0, 0.0, false) && v0.allclose(&v1, 0.0, 0.0, false));
    let (_, _, material) = headed.forward_heads_t(&xs, false);
    assert_eq!(material.expect("a material prediction").size(), [2]);
    assert!(plain.forward_heads_t(&xs, false).2.is_none());
}
