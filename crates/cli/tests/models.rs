//! The shipped models (`models/`): the manifest's hashes match the files, and `default` finds
//! them through `$QIZERO_MODELS` and beside the executable, in `qizero play` and `qizero match`.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::models_dir;

/// A fresh empty folder under the system's temporary folder.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qizero-models-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("make a scratch folder");
    dir
}

/// Runs `qizero` with `args` in `cwd`, `input` on standard input, `$QIZERO_MODELS` set to
/// `models` or unset.
fn qizero(args: &[&str], input: &str, cwd: &Path, models: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_qizero"));
    command.args(args).current_dir(cwd).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    match models {
        Some(dir) => command.env("QIZERO_MODELS", dir),
        None => command.env_remove("QIZERO_MODELS"),
    };
    let mut child = command.spawn().expect("start qizero");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        // The program may exit before reading everything: that is fine.
        let _ = stdin.write_all(input.as_bytes());
    }
    child.wait_with_output().expect("wait for qizero")
}

fn text(output: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// The net the opponent named `name` plays, and its first move, from `qizero play`'s output.
fn net_and_first_move(output: &Output, name: &str) -> (String, String) {
    let out = String::from_utf8_lossy(&output.stdout);
    let net = out
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: the net ")))
        .unwrap_or_else(|| panic!("no net named in:\n{}", text(output)));
    let mv = out
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name} plays ")))
        .and_then(|rest| rest.rsplit_once(" (").map(|(mv, _)| mv))
        .unwrap_or_else(|| panic!("{name} made no move in:\n{}", text(output)));
    (net.to_string(), mv.to_string())
}

/// The JSON header of a safetensors file: an 8-byte little-endian length, then that much JSON.
fn safetensors_header(bytes: &[u8]) -> serde_json::Value {
    let len: [u8; 8] = bytes.get(..8).and_then(|b| b.try_into().ok()).expect("a safetensors header length");
    let len = usize::try_from(u64::from_le_bytes(len)).expect("a header length that fits");
    let header = bytes.get(8..8 + len).expect("the whole header");
    serde_json::from_slice(header).expect("the header is JSON")
}

#[test]
fn the_manifest_hashes_match_the_files() {
    let dir = models_dir();
    let manifest = common::manifest();
    assert_eq!(manifest["format"], "qizero-models-1");
    let models = manifest["models"].as_array().expect("a models list");
    let mut games: Vec<&str> = Vec::new();
    for model in models {
        let game = model["game"].as_str().expect("a game");
        let file = model["file"].as_str().expect("a file name");
        // The resolver looks for <game>.safetensors.
        assert_eq!(file, format!("{game}.safetensors"));
        let bytes = std::fs::read(dir.join(file)).unwrap_or_else(|e| panic!("read models/{file}: {e}"));
        assert_eq!(model["bytes"].as_u64(), Some(bytes.len() as u64), "{file}: size");
        assert_eq!(model["sha256"].as_str(), Some(train::fsutil::sha256_hex(&bytes).as_str()), "{file}: sha256");
        // The file's own metadata agrees: game, architecture, step, weights and the config it
        // was trained with (the embedded config.toml hashes to the config_hash it records).
        let meta = &safetensors_header(&bytes)["__metadata__"];
        assert_eq!(meta["game"].as_str(), Some(game), "{file}: game");
        assert_eq!(meta["architecture"], model["architecture"], "{file}: architecture");
        assert_eq!(meta["weights_sha256"], model["weights_sha256"], "{file}: weights");
        let step = model["source"]["step"].as_u64().expect("a step");
        assert_eq!(meta["step"].as_str(), Some(step.to_string().as_str()), "{file}: step");
        let lines: Vec<&str> = model["training"]["config_toml"]
            .as_array()
            .expect("the config as lines")
            .iter()
            .map(|l| l.as_str().expect("a line"))
            .collect();
        let config = format!("{}\n", lines.join("\n"));
        assert_eq!(
            meta["config_hash"].as_str(),
            Some(train::fsutil::sha256_hex(config.as_bytes()).as_str()),
            "{file}: config"
        );
        games.push(game);
    }
    games.sort_unstable();
    assert_eq!(games, ["draughts", "xiangqi"]);
}

#[test]
fn play_mcts_finds_the_shipped_net_beside_the_executable() {
    // Started elsewhere, with no $QIZERO_MODELS: target/<profile>/qizero finds the repository's
    // models/, and plays the same first move as with the file named by its path.
    let cwd = scratch("beside");
    let shipped = models_dir().join("xiangqi.safetensors");
    let args = ["play", "--game", "xiangqi", "--side", "black", "--device", "cpu", "--opponent"];
    let by_default = qizero(&[&args[..], &["mcts:sims=16"]].concat(), "quit\n", &cwd, None);
    assert!(by_default.status.success(), "{}", text(&by_default));
    let (net, first) = net_and_first_move(&by_default, "mcts:sims=16,ckpt=default");
    assert_eq!(
        Path::new(&net).canonicalize().expect("the net exists"),
        shipped.canonicalize().expect("models/xiangqi.safetensors")
    );
    let spec = format!("mcts:sims=16,ckpt={}", shipped.display());
    let by_path = qizero(&[&args[..], &[spec.as_str()]].concat(), "quit\n", &cwd, None);
    assert!(by_path.status.success(), "{}", text(&by_path));
    assert_eq!(net_and_first_move(&by_path, &spec).1, first);
    let _ = std::fs::remove_dir_all(cwd);
}

#[test]
fn qizero_models_comes_first() {
    let models = scratch("env");
    std::fs::copy(models_dir().join("draughts.safetensors"), models.join("draughts.safetensors")).expect("copy");
    let cwd = scratch("env-cwd");
    let run = qizero(
        &["play", "--game", "draughts", "--side", "second", "--device", "cpu", "--opponent", "mcts:sims=8"],
        "quit\n",
        &cwd,
        Some(&models),
    );
    assert!(run.status.success(), "{}", text(&run));
    let (net, _) = net_and_first_move(&run, "mcts:sims=8,ckpt=default");
    assert_eq!(PathBuf::from(net), models.join("draughts.safetensors"));
    // --weights default says the same.
    let run = qizero(
        &["play", "--game", "draughts", "--side", "second", "--weights", "default"],
        "quit\n",
        &cwd,
        Some(&models),
    );
    assert!(run.status.success(), "{}", text(&run));
    assert_eq!(PathBuf::from(net_and_first_move(&run, "mcts:ckpt=default").0), models.join("draughts.safetensors"));
    let _ = std::fs::remove_dir_all(models);
    let _ = std::fs::remove_dir_all(cwd);
}

#[test]
fn match_takes_ckpt_default_and_names_what_is_missing() {
    let cwd = scratch("match");
    let run = qizero(
        &[
            "match",
            "--game",
            "draughts",
            "--a",
            "mcts:ckpt=default,sims=4",
            "--b",
            "random",
            "--games",
            "2",
            "--device",
            "cpu",
        ],
        "",
        &cwd,
        None,
    );
    assert!(run.status.success(), "{}", text(&run));
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(out.contains("A's net: ") && out.contains("draughts.safetensors (the shipped model)"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("score: ")), "{out}");
    // The other game's model, and a path that is not there, are refused before anything starts.
    let run =
        qizero(&["match", "--game", "xiangqi", "--a", "mcts:ckpt=default:draughts", "--b", "random"], "", &cwd, None);
    assert!(!run.status.success());
    assert!(
        text(&run).contains("default:draughts names the shipped draughts model, but this is xiangqi"),
        "{}",
        text(&run)
    );
    let run = qizero(&["play", "--weights", "no/such.safetensors"], "quit\n", &cwd, None);
    assert!(!run.status.success());
    assert!(text(&run).contains("checkpoint no/such.safetensors does not exist"), "{}", text(&run));
    let _ = std::fs::remove_dir_all(cwd);
}

/// The benchmarks take `--weights default`; `bench half` has nothing to compare on the CPU and
/// says so instead of reporting a pass.
#[test]
fn benchmarks_time_the_shipped_model_and_half_needs_cuda() {
    let cwd = scratch("bench");
    let models = models_dir();
    let args = ["bench", "nn", "--game", "draughts", "--weights", "default", "--device", "cpu"];
    let run =
        qizero(&[&args[..], &["--batches", "1", "--seconds", "0", "--threads", "1"]].concat(), "", &cwd, Some(&models));
    assert!(run.status.success(), "{}", text(&run));
    let draughts = common::shipped_model("draughts");
    let architecture = draughts["architecture"].as_str().expect("architecture");
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(out.starts_with(&format!("net: draughts {architecture} (")), "{out}");
    assert!(out.lines().any(|l| l.trim_start().starts_with("1 ")), "a line for batch 1: {out}");

    let run = qizero(&["bench", "half", "--weights", "default", "--device", "cpu"], "", &cwd, Some(&models));
    assert!(!run.status.success(), "{}", text(&run));
    assert!(text(&run).contains("half precision runs on CUDA only, and this net is on cpu"), "{}", text(&run));
    let _ = std::fs::remove_dir_all(cwd);
}
