//! What a seed makes: fresh weights pinned by their content ids (a tiny run with the same seed
//! must keep playing the same games), and libtorch's process-wide state left alone by building
//! and loading nets. A test binary of its own, so no other test changes that state meanwhile.

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
