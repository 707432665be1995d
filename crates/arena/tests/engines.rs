//! External engines through the protocols: short games against Fairy-Stockfish (UCI) and
//! dame-rs (Hub, through `scripts/dame-hub`), and fake engines that crash, hang, send garbage or
//! illegal moves, which must forfeit the game and let the match go on; on a clock, engines that
//! are told the clocks, play within them, or are flagged when too slow.
//!
//! The real engines are skipped when missing, except under `CI=true`, where a missing engine
//! fails the test. Every wait has a timeout: no test here can hang.

use arena::{AgentSpec, ArenaGame, CLOCK_GRACE, ForfeitKind, MatchConfig, MatchResult, TimeControl, run_match};
use game::WinReason;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

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

fn tc(text: &str) -> Option<TimeControl> {
    Some(text.parse().unwrap_or_else(|e| panic!("{e}")))
}

#[test]
fn fairy_stockfish_plays_on_a_clock() {
    if !available(Path::new(FAIRY_STOCKFISH).exists(), FAIRY_STOCKFISH) {
        return;
    }
    // A default movetime far beyond the clock: only the clock can keep these games in time.
    // The runner allows no margin, so Fairy-Stockfish keeps 100 ms in hand for a busy machine.
    let config = MatchConfig {
        games: 2,
        max_plies: 16,
        movetime: Duration::from_secs(5),
        clock: tc("0.3+0.05"),
        ..MatchConfig::default()
    };
    let fairy = format!("uci:{FAIRY_STOCKFISH},Hash=8,Move Overhead=100");
    let result = play::<xiangqi::Game>("alphabeta", &fairy, &config);
    assert_no_forfeits(&result);
    assert_eq!(result.forfeits(), arena::Forfeits::default());
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
    fake_uci_for("uci", name, on_go)
}

/// [`fake_uci`] in test `test`'s own directory, for tests that run beside the others.
fn fake_uci_for(test: &str, name: &str, on_go: &str) -> String {
    fake_engine(
        test,
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

/// The forfeit reasons of a match in which B is meant to lose every game on time.
fn time_losses_of(result: &MatchResult, b_spec: &str) -> Vec<String> {
    assert_eq!(result.forfeits().time, [0, result.games.len()], "{b_spec}: {:?}", result.games);
    result
        .games
        .iter()
        .map(|g| {
            let forfeit = g.forfeit.clone().expect("a reason");
            assert_eq!(forfeit.kind, ForfeitKind::Time, "{b_spec}: {}", forfeit.reason);
            assert!(g.record.termination.starts_with("time forfeit: "), "{}", g.record.termination);
            assert_eq!(g.record.comment.as_deref(), Some(g.record.termination.as_str()));
            forfeit.reason
        })
        .collect()
}

#[test]
fn engines_are_told_the_clocks_by_colour() {
    // The fake prints the `go` it got to its standard error and exits; the forfeit's reason
    // carries its last lines.
    let b = format!("uci:{}", fake_uci_for("uci-clocks", "echo", "echo \"$line\" >&2; exit 3"));
    let config = MatchConfig { games: 2, clock: tc("0.3+0.05"), ..MatchConfig::default() };
    let result = play::<xiangqi::Game>("random", &b, &config);
    for reason in forfeits_of(&result, &b) {
        // B's first move, on its full clock; A's clock is whatever A left on it.
        assert!(reason.contains("stderr: go wtime "), "{reason}");
        assert!(reason.contains(" winc 50 btime ") && reason.ends_with(" binc 50)"), "{reason}");
        assert!(reason.contains("wtime 300 ") || reason.contains("btime 300 "), "{reason}");
        assert!(!reason.contains("movetime"), "{reason}");
    }
    remove_fakes("uci-clocks");
}

#[test]
fn engines_too_slow_for_their_clock_lose_on_time() {
    // The late engine's move is not even legal: the flag falls first.
    let late = format!("uci:{}", fake_uci_for("uci-slow", "late", "sleep 0.4; echo 'bestmove a0a9'"));
    let config = MatchConfig { games: 2, clock: tc("0.2"), ..MatchConfig::default() };
    for reason in time_losses_of(&play::<xiangqi::Game>("random", &late, &config), &late) {
        assert!(reason.contains("(Fake late): took ") && reason.ends_with(" ms with 200 ms left"), "{reason}");
    }
    // A hung engine is waited for its time left and a grace, not the movetime's timeout (here
    // 2 x 2 s + 3 s).
    let hang = format!("uci:{}", fake_uci_for("uci-slow", "hang", ":"));
    let config = MatchConfig { games: 2, movetime: Duration::from_secs(2), clock: tc("0.2"), ..MatchConfig::default() };
    let started = Instant::now();
    let result = play::<xiangqi::Game>("random", &hang, &config);
    let took = started.elapsed();
    for reason in time_losses_of(&result, &hang) {
        assert!(reason.contains("(Fake hang): took ") && reason.ends_with(" ms with 200 ms left"), "{reason}");
    }
    let most = (Duration::from_millis(200) + CLOCK_GRACE) * 2 + Duration::from_secs(2);
    assert!(took < most, "two games took {took:?}, more than {most:?}");
    remove_fakes("uci-slow");
}

#[test]
fn hub_engines_too_slow_for_their_clock_lose_on_time() {
    let b = format!(
        "hub:{}",
        fake_engine(
            "hub-late",
            "late",
            "while read -r line; do\n  case \"$line\" in\n    hub) echo 'id name=fake-late'; echo wait ;;\n    \
             init) echo ready ;;\n    ping) echo pong ;;\n    go*) sleep 0.4; echo 'done move=1-50' ;;\n    \
             quit) exit 0 ;;\n  esac\ndone\n",
        )
    );
    let config = MatchConfig { games: 2, clock: tc("0.2+0.1"), ..MatchConfig::default() };
    for reason in time_losses_of(&play::<draughts::Game>("random", &b, &config), &b) {
        assert!(reason.starts_with("Black (fake-late): took ") || reason.starts_with("White (fake-late): took "));
        assert!(reason.ends_with(" ms with 200 ms left"), "{reason}");
    }
    remove_fakes("hub-late");
}
