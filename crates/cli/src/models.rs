//! The shipped models: one net per game in the repository's `models/` folder
//! (`models/xiangqi.safetensors`, `models/draughts.safetensors`, where they came from and how
//! strong they are in `models/manifest.json`), named `default` on the command line.
//!
//! Wherever a checkpoint is named (`--weights`, `ckpt=` in an agent spec), `default` means the
//! shipped model of the game being played and `default:GAME` that of the game named (which must
//! be the game being played). The folder holding `<game>.safetensors` is looked for, in order,
//!
//! 1. in `$QIZERO_MODELS`, if set;
//! 2. in `<the running executable's folder>/../../models`, so that `target/release/qizero` and
//!    `target/ci/qizero` find the repository's `models/` wherever they are started from;
//! 3. in `./models`, relative to the current directory.
//!
//! The first that has the file wins; when none has it the error lists every place searched.
//! Anything else is a path and is returned unchanged once it is known to name a file, so a
//! mistyped path fails here, with its name, rather than deep inside a match. A file that is
//! literally called `default` can still be named as `./default`.
//!
//! The resolution happens here, in the command line, before agents are built: the arena library
//! and the checkpoint loader only ever see real paths.

use anyhow::{Result, bail};
use arena::AgentSpec;
use arena::spec::AgentKind;
use std::path::{Path, PathBuf};

/// The environment variable naming a folder of shipped models, searched first.
pub const MODELS_ENV: &str = "QIZERO_MODELS";

/// The word that names the shipped model.
const DEFAULT: &str = "default";

/// `text` as a checkpoint path for `game` (`"xiangqi"` or `"draughts"`, [`game::Game::NAME`]):
/// `default` or `default:GAME` is the shipped model's file, found as the module docs say;
/// anything else is a path, returned unchanged.
///
/// # Errors
/// `default` when no searched place has the model (the message lists them), `default:GAME`
/// for another game, a path that does not name a file.
pub fn resolve_weights(text: &str, game: &str) -> Result<PathBuf> {
    resolve_in(text, game, &search_places)
}

/// [`resolve_weights`] with the places to search for `default` given by `places` (called only
/// when `text` names the shipped model).
fn resolve_in(text: &str, game: &str, places: &dyn Fn() -> Vec<Place>) -> Result<PathBuf> {
    match default_game(text, game)? {
        Some(game) => find_model(game, &places()),
        None => {
            let path = PathBuf::from(text);
            if !path.is_file() {
                let why = if path.exists() { "is not a file" } else { "does not exist" };
                bail!(
                    "checkpoint {} {why} (give the path of a .safetensors file, or default for the shipped model)",
                    path.display()
                );
            }
            Ok(path)
        }
    }
}

/// `spec` with the checkpoint of an MCTS agent resolved by [`resolve_weights`]; other agents
/// come back as they are. The spec's text, which names the agent in reports, stays as written
/// (`mcts:ckpt=default,sims=48`).
///
/// # Errors
/// As [`resolve_weights`].
pub fn resolve_spec(spec: &AgentSpec, game: &str) -> Result<AgentSpec> {
    let mut spec = spec.clone();
    if let AgentKind::Mcts(mcts) = &mut spec.kind {
        if let Some(path) = &mcts.checkpoint {
            let text = path.to_string_lossy();
            mcts.checkpoint = Some(resolve_weights(&text, game)?);
        }
    }
    Ok(spec)
}

/// The game whose shipped model `text` names, `None` if it is a path.
fn default_game<'a>(text: &'a str, game: &'a str) -> Result<Option<&'a str>> {
    if text == DEFAULT {
        return Ok(Some(game));
    }
    match text.strip_prefix(DEFAULT).and_then(|rest| rest.strip_prefix(':')) {
        Some(named) if named == game => Ok(Some(game)),
        Some(named) => {
            bail!("{text} names the shipped {named} model, but this is {game} (use default or default:{game})")
        }
        None => Ok(None),
    }
}

/// A folder that may hold the shipped models, and why it is searched.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Place {
    /// The folder.
    dir: PathBuf,
    /// Where it came from, for the error message.
    origin: &'static str,
}

/// The folders to search, in order (see the module docs).
fn search_places() -> Vec<Place> {
    let env = std::env::var_os(MODELS_ENV).filter(|v| !v.is_empty()).map(PathBuf::from);
    places(env, std::env::current_exe().ok().as_deref())
}

/// The folders to search given `$QIZERO_MODELS` and the executable's path.
fn places(env: Option<PathBuf>, exe: Option<&Path>) -> Vec<Place> {
    let mut places = Vec::new();
    if let Some(dir) = env {
        places.push(Place { dir, origin: "$QIZERO_MODELS" });
    }
    // target/<profile>/qizero: three levels up is the repository.
    if let Some(root) = exe.and_then(|exe| exe.ancestors().nth(3)) {
        places.push(Place { dir: root.join("models"), origin: "beside the executable" });
    }
    places.push(Place { dir: PathBuf::from("models"), origin: "the current directory" });
    places
}

/// `<game>.safetensors` in the first of `places` that has it.
fn find_model(game: &str, places: &[Place]) -> Result<PathBuf> {
    let file = format!("{game}.safetensors");
    if let Some(path) = places.iter().map(|p| p.dir.join(&file)).find(|path| path.is_file()) {
        return Ok(path);
    }
    let searched: Vec<String> =
        places.iter().map(|p| format!("{} ({})", p.dir.join(&file).display(), p.origin)).collect();
    let env_note = if places.iter().any(|p| p.origin == "$QIZERO_MODELS") { "" } else { "; $QIZERO_MODELS is not set" };
    bail!(
        "no shipped {game} model: looked for {}{env_note}; set {MODELS_ENV} to the folder holding {file} \
         (the repository's models/), or give a checkpoint's path",
        searched.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh empty folder under the system's temporary folder.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("qizero-models-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("make a scratch folder");
        dir
    }

    #[test]
    fn the_first_place_with_the_model_wins() {
        let first = scratch("first");
        let second = scratch("second");
        std::fs::write(second.join("xiangqi.safetensors"), b"x").expect("write");
        let places = [Place { dir: first.clone(), origin: "a" }, Place { dir: second.clone(), origin: "b" }];
        assert_eq!(find_model("xiangqi", &places).ok(), Some(second.join("xiangqi.safetensors")));
        std::fs::write(first.join("xiangqi.safetensors"), b"x").expect("write");
        assert_eq!(find_model("xiangqi", &places).ok(), Some(first.join("xiangqi.safetensors")));
        let search = || places.to_vec();
        assert_eq!(resolve_in("default", "xiangqi", &search).ok(), Some(first.join("xiangqi.safetensors")));
        assert_eq!(resolve_in("default:xiangqi", "xiangqi", &search).ok(), Some(first.join("xiangqi.safetensors")));
        // Draughts is in neither: the error lists both places.
        let err = find_model("draughts", &places).expect_err("no draughts model").to_string();
        assert!(err.starts_with("no shipped draughts model: looked for "), "{err}");
        assert!(err.contains(&format!("{} (a)", first.join("draughts.safetensors").display())), "{err}");
        assert!(err.contains(&format!("{} (b)", second.join("draughts.safetensors").display())), "{err}");
        assert!(err.contains("$QIZERO_MODELS is not set"), "{err}");
        let _ = std::fs::remove_dir_all(first);
        let _ = std::fs::remove_dir_all(second);
    }

    #[test]
    fn places_are_the_env_then_the_executable_then_the_current_directory() {
        let exe = Path::new("/repo/target/release/qizero");
        let found = places(Some(PathBuf::from("/shipped")), Some(exe));
        let dirs: Vec<&Path> = found.iter().map(|p| p.dir.as_path()).collect();
        assert_eq!(dirs, [Path::new("/shipped"), Path::new("/repo/models"), Path::new("models")]);
        let found = places(None, None);
        assert_eq!(found, [Place { dir: PathBuf::from("models"), origin: "the current directory" }]);
    }

    #[test]
    fn default_names_the_game_being_played() {
        assert_eq!(default_game("default", "xiangqi").ok().flatten(), Some("xiangqi"));
        assert_eq!(default_game("default:draughts", "draughts").ok().flatten(), Some("draughts"));
        assert_eq!(default_game("defaults/x.safetensors", "xiangqi").ok().flatten(), None);
        assert_eq!(default_game("./default", "xiangqi").ok().flatten(), None);
        let err = default_game("default:draughts", "xiangqi").expect_err("other game").to_string();
        assert_eq!(
            err,
            "default:draughts names the shipped draughts model, but this is xiangqi (use default or default:xiangqi)"
        );
    }

    #[test]
    fn paths_come_back_unchanged_if_they_name_a_file() {
        let dir = scratch("paths");
        let file = dir.join("net.safetensors");
        std::fs::write(&file, b"x").expect("write");
        let text = file.to_string_lossy();
        assert_eq!(resolve_weights(&text, "xiangqi").ok(), Some(file.clone()));
        let missing = dir.join("missing.safetensors");
        let err = resolve_weights(&missing.to_string_lossy(), "xiangqi").expect_err("missing").to_string();
        assert!(err.starts_with(&format!("checkpoint {} does not exist", missing.display())), "{err}");
        let err = resolve_weights(&dir.to_string_lossy(), "xiangqi").expect_err("a folder").to_string();
        assert!(err.contains("is not a file"), "{err}");
        // Specs without the shipped model pass through as written.
        for text in ["alphabeta:depth=2", "mcts:sims=8", "random"] {
            let spec = AgentSpec::parse(text).expect("parses");
            assert_eq!(resolve_spec(&spec, "xiangqi").ok(), Some(spec));
        }
        let spec = AgentSpec::parse(&format!("mcts:ckpt={text},sims=8")).expect("parses");
        assert_eq!(resolve_spec(&spec, "xiangqi").ok(), Some(spec));
        let _ = std::fs::remove_dir_all(dir);
    }
}
