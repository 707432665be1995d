//! External engines through the protocols: short games against Fairy-Stockfish (UCI) and
//! dame-rs (Hub, through `scripts/dame-hub`), and fake engines that crash, hang, send garbage or
//! illegal moves, which must forfeit the game and let the match go on.
//!
//! The real engines are skipped when missing, except under `CI=true`, where a missing engine
//! fails the test. Every wait has a timeout: no test here can hang.

use arena::{AgentSpec, ArenaGame, ForfeitKind, MatchConfig, MatchResult, run_match};
use game::WinReason;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

const FAIRY_STOCKFISH: &str = "/usr/games/fairy-stockfish";

/// Never raised: these matches play to the end.
static GO: AtomicBool = AtomicBool::new(false);

fn spec(text: &str) -> AgentSpec {
    AgentSpec::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// False (skip) when `what` is missing; a failure instead under CI=true.
fn available(present: bool, what: &str) -> bool {
    if !present {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{what} is missing, and CI=true needs it");
        eprintln!("skipped: {what} is missing");
    }
    present
}

fn play<G: ArenaGame>(a: &str, b: &str, config: &MatchConfig) -> MatchResult {
    let openings = arena::openings::shipped::<G>();
    run_match::<G>(&spec(a), &spec(b), &openings, config, &arena::NoNets, &GO, |_, _| {})
        .unwrap_or_else(|e| panic!("match: {e}"))
        .expect("not stopped")
}

fn assert_no_forfeits(result: &MatchResult) {
    for g in &result.games {
        assert!(g.forfeit.is_none(), "game {}: {:?}", g.index + 1, g.forfeit);
        assert!(g.plies > 0, "game {} has no moves", g.index + 1);
    }
}

#[test]
fn uci_games_against_fairy_stockfish() {
    if !available(Path::new(FAIRY_STOCKFISH).exists(), FAIRY_STOCKFISH) {
        return;
    }
    let config = MatchConfig { games: 2, max_plies: 30, movetime: Duration::from_millis(20), ..MatchConfig::default() };
    let result = play::<xiangqi::Game>("alphabeta:depth=2", &format!("uci:{FAIRY_STOCKFISH},Hash=8"), &config);
    assert_no_forfeits(&result);
    // The engine named itself, and its moves (ranks 1-10) were read as our moves.
    assert!(result.games[0].record.players[1].starts_with("Fairy-Stockfish"), "{:?}", result.games[0].record.players);
    assert_eq!(result.score.games(), 2);
}

#[test]
fn hub_games_against_dame() {
    let root = repo_root();
    let python = root.join(".venv/bin/python");
    let has_dame =
        std::process::Command::new(&python).args(["-c", "import dame"]).output().is_ok_and(|out| out.status.success());
    if !available(has_dame, "dame-rs in .venv (scripts/test installs it)") {
        return;
    }
    let engine = root.join("scripts/dame-hub");
    let config = MatchConfig { games: 2, max_plies: 30, movetime: Duration::from_millis(20), ..MatchConfig::default() };
    let result = play::<draughts::Game>("alphabeta:depth=2", &format!("hub:{},hash=8", engine.display()), &config);
    assert_no_forfeits(&result);
    assert_eq!(result.games[0].record.players[1], "dame-hub");
}

/// The directory of one test's fake engines (removed by [`remove_fakes`]).
fn fake_dir(test: &str) -> PathBuf {
    std::env::temp_dir().join(format!("arena-fake-{}-{test}", std::process::id()))
}

fn remove_fakes(test: &str) {
    let _ = std::fs::remove_dir_all(fake_dir(test));
}

/// Writes a fake engine script for `test` and returns its spec prefix (`bash PATH`).
fn fake_engine(test: &str, name: &str, script: &str) -> String {
    let dir = fake_dir(test);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{name}.sh"));
    std::fs::write(&path, script).expect("write fake engine");
    format!("bash {}", path.display())
}

/// A UCI engine that answers the handshake and then misbehaves on `go` as `on_go` says.
fn fake_uci(name: &str, on_go: &str) -> String {
    fake_engine(
        "uci",
        name,
        &format!(
            "while read -r line; do\n  case \"$line\" in\n    uci) echo 'id name Fake {name}'; echo uciok ;;\n    \
             isready) echo readyok ;;\n    go*) {on_go} ;;\n    quit) exit 0 ;;\n  esac\ndone\n"
        ),
    )
}

fn forfeits_of(result: &MatchResult, b_spec: &str) -> Vec<String> {
    result
        .games
        .iter()
        .map(|g| {
            assert!(
                matches!(g.outcome, game::Outcome::Win { reason: WinReason::Forfeit, winner } if winner == g.a_side),
                "{b_spec}: game {} should be B's forfeit: {:?}",
                g.index + 1,
                g.outcome
            );
            let forfeit = g.forfeit.clone().expect("a reason");
            assert_eq!(forfeit.kind, ForfeitKind::Error, "{b_spec}: {}", forfeit.reason);
            assert!(g.record.termination.starts_with("forfeit: "), "{}", g.record.termination);
            forfeit.reason
        })
        .collect()
}

#[test]
fn misbehaving_uci_engines_forfeit_and_the_match_goes_on() {
    let config = MatchConfig { games: 2, movetime: Duration::from_millis(20), ..MatchConfig::default() };
    let cases = [
        ("crash", "exit 3", "exited (exit status: 3"),
        ("garbage", "echo 'bestmove zz99'", "sent \"bestmove zz99\""),
        ("illegal", "echo 'bestmove a0a9'", "illegal move \"a0a9\""),
        ("nomove", "echo 'bestmove (none)'", "gave no move"),
        ("hang", ":", "sent no 'bestmove' within"),
    ];
    for (name, on_go, expected) in cases {
        let b = format!("uci:{},timeout=400", fake_uci(name, on_go));
        let result = play::<xiangqi::Game>("random", &b, &config);
        assert_eq!(result.games.len(), 2, "{name}: the match went on");
        for reason in forfeits_of(&result, &b) {
            assert!(reason.contains(expected), "{name}: {reason}");
            assert!(
                reason.starts_with(&format!("Black (Fake {name}): "))
                    || reason.starts_with(&format!("Red (Fake {name}): ")),
                "{name}: {reason}"
            );
        }
    }
    remove_fakes("uci");
}

#[test]
fn misbehaving_hub_engines_forfeit() {
    let config = MatchConfig { games: 2, movetime: Duration::from_millis(20), ..MatchConfig::default() };
    let hub = |name: &str, on_go: &str| {
        fake_engine(
            "hub",
            name,
            &format!(
                "while read -r line; do\n  case \"$line\" in\n    hub) echo 'id name=fake-{name}'; echo wait ;;\n    \
                 init) echo ready ;;\n    ping) echo pong ;;\n    go*) {on_go} ;;\n    quit) exit 0 ;;\n  esac\ndone\n"
            ),
        )
    };
    let cases = [
        ("crash", "exit 4", "exited (exit status: 4"),
        ("illegal", "echo 'done move=1-50'", "illegal move \"1-50\""),
        ("hang", ":", "sent no 'done' within"),
    ];
    for (name, on_go, expected) in cases {
        let b = format!("hub:{},timeout=400", hub(name, on_go));
        let result = play::<draughts::Game>("random", &b, &config);
        for reason in forfeits_of(&result, &b) {
            assert!(reason.contains(expected), "{name}: {reason}");
        }
    }
    remove_fakes("hub");
}
