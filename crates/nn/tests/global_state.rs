//! Building and loading nets leaves libtorch's process-wide state alone: the CPU thread count
//! changes only through `nn::set_cpu_threads`, and loading a checkpoint draws nothing from the
//! global generator. One test in a binary of its own, so nothing else touches that state while
//! it looks.

use encode::Encode;
use nn::{NetConfig, PolicyValueNet, checkpoint};
use tch::{Device, Kind, Tensor};

fn draws(seed: i64, between: impl FnOnce()) -> Vec<f32> {
    tch::manual_seed(seed);
    between();
    let t = Tensor::rand([8], (Kind::Float, Device::Cpu));
    Vec::<f32>::try_from(&t).expect("floats")
}

#[test]
fn nets_change_no_global_setting() {
    let before = tch::get_num_threads();
    let config = NetConfig {
        device: "cpu".into(),
        cpu_threads: usize::try_from(before).expect("positive") + 3,
        ..NetConfig::tiny()
    };
    let net = PolicyValueNet::for_game::<xiangqi::Game>(&config, 5).expect("net");
    assert_eq!(tch::get_num_threads(), before, "building a net leaves the thread count");
    let dir = std::env::temp_dir().join(format!("qizero-nn-global-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("net.safetensors");
    checkpoint::save(&net, &path, 3, &[]).expect("saves");

    // Loading draws nothing: the generator gives the same numbers with or without a load.
    let plain = draws(99, || {});
    let with_load = draws(99, || {
        let (loaded, _) = checkpoint::load(&path, "xiangqi", xiangqi::Game::ENCODING, &config).expect("loads");
        assert_eq!(checkpoint::content_id(&loaded).ok(), checkpoint::content_id(&net).ok());
        let (again, _) =
            checkpoint::load_as_saved(&path, "xiangqi", xiangqi::Game::ENCODING, &config).expect("loads as saved");
        assert_eq!(again.config().cpu_threads, config.cpu_threads);
    });
    assert_eq!(plain, with_load, "loading a checkpoint touched libtorch's generator");
    // A fresh net does draw (the comparison above can fail).
    let with_fresh = draws(99, || {
        let _ = PolicyValueNet::for_game::<xiangqi::Game>(&config, 5).expect("net");
    });
    assert_ne!(plain, with_fresh);
    assert_eq!(tch::get_num_threads(), before, "loading a net leaves the thread count");

    // Only the explicit call changes it; 0 is one thread per core.
    nn::set_cpu_threads(config.cpu_threads);
    assert_eq!(tch::get_num_threads(), before + 3);
    nn::set_cpu_threads(0);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    assert_eq!(tch::get_num_threads(), i32::try_from(cores).expect("cores"));
    nn::set_cpu_threads(usize::try_from(before).expect("positive"));
    assert_eq!(tch::get_num_threads(), before);
    let _ = std::fs::remove_dir_all(&dir);
}
