//! The experiment's ladder: every rated checkpoint of every done run ([`Entrant`]) plays every
//! anchor, and neighbouring anchors play each other, `ladder.games` games a pairing, each
//! opening twice with colours swapped ([`arena::run_match`] from the shipped openings).
//!
//! A checkpoint plays as the arena's MCTS agent (the same fixed PUCT search, no noise,
//! most-visited move) at `ladder.simulations` per move, whatever search its arm trained with: the
//! ladder compares nets, not training searches. Each checkpoint's games share one batching
//! inference service ([`crate::CheckpointNets`]).
//!
//! Each finished pairing is one line of `ladder/pairings.jsonl` ([`PairingLine`], through
//! [`durable::append_line`]); a stop drops the pairing in progress. A pairing is played only if
//! the log has no line for it with the same players (names and identities: a checkpoint's file,
//! an anchor's spec), games and simulations, so a resumed ladder plays only what is missing, and
//! one with other settings plays everything again rather than mix them.

use super::spec::{Checkpoints, LadderSpec, Plan, REFERENCE};
use super::{DoneRecord, ExperimentDir};
use crate::error::PipelineError;
use crate::nets::CheckpointNets;
use crate::report::Reporter;
use crate::run_dir::RunDir;
use arena::spec::{AgentKind, MctsSpec};
use arena::{AgentSpec, ArenaGame, MatchConfig, Score};
use encode::Encode;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The version of the lines of `pairings.jsonl` this build writes.
pub const PAIRINGS_VERSION: u32 = 1;

/// Largest `pairings.jsonl` read.
const MAX_PAIRINGS_BYTES: u64 = 1 << 28;

/// A fixed player of the ladder.
#[derive(Clone, Debug, PartialEq)]
pub struct Anchor {
    /// Its name on the ladder: the spec as written, or `ref`.
    pub name: String,
    /// What it is, for the pairing log: the spec, or the reference's file.
    pub id: String,
    /// The agent.
    pub spec: AgentSpec,
}

/// A rated checkpoint of a done run.
#[derive(Clone, Debug, PartialEq)]
pub struct Entrant {
    /// Its name on the ladder: `<run>/ckpt-<step>`.
    pub name: String,
    /// Its weights' file name (`<step>-<sha12>.safetensors`: content-addressed).
    pub id: String,
    /// The run.
    pub run: String,
    /// The run's arm.
    pub arm: String,
    /// The run's seed.
    pub seed: u64,
    /// Whether it is the run's final checkpoint.
    pub last: bool,
    /// Its place in time and the work done by then.
    pub at: super::CheckpointTime,
    /// The run's whole wall clock, seconds.
    pub run_seconds: f64,
    /// The weights.
    pub path: PathBuf,
}

/// The anchors of `spec`, in order, the reference last.
///
/// # Errors
/// An anchor spec that does not parse.
pub fn anchors(spec: &LadderSpec) -> Result<Vec<Anchor>, PipelineError> {
    let mut out = Vec::new();
    for text in &spec.anchors {
        let parsed =
            AgentSpec::parse(text).map_err(|e| PipelineError::Config(format!("ladder.anchors: '{text}': {e}")))?;
        out.push(Anchor { name: parsed.text.clone(), id: parsed.text.clone(), spec: parsed });
    }
    if let Some(path) = &spec.reference {
        let id =
            format!("{REFERENCE}:{}", path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()));
        out.push(Anchor {
            name: REFERENCE.to_owned(),
            id,
            spec: mcts_spec(REFERENCE, path, spec.simulations, spec.root),
        });
    }
    Ok(out)
}

fn mcts_spec(name: &str, path: &Path, simulations: u32, root: mcts::Root) -> AgentSpec {
    AgentSpec {
        text: name.to_owned(),
        kind: AgentKind::Mcts(MctsSpec {
            checkpoint: Some(path.to_path_buf()),
            simulations,
            batch: 1,
            reuse: true,
            gumbel: root == mcts::Root::Gumbel,
            prove_leaves: false,
            ..MctsSpec::default()
        }),
    }
}

/// The rated checkpoints of the done runs, in the order given (`done`: each run's folder and
/// record): each run's last generation checkpoint, or all of them.
///
/// # Errors
/// A checkpoint the record names is missing from its run.
pub fn entrants(done: &[(RunDir, DoneRecord)], which: Checkpoints) -> Result<Vec<Entrant>, PipelineError> {
    let mut out = Vec::new();
    for (run, record) in done {
        let last = record.last().map(|c| c.step);
        for at in &record.checkpoints {
            let is_last = Some(at.step) == last;
            if which == Checkpoints::Last && !is_last {
                continue;
            }
            let path = crate::models::checkpoint_at(run, at.step)?;
            out.push(Entrant {
                name: format!("{}/{}", record.run, crate::arena::checkpoint_name(at.step)),
                id: path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
                run: record.run.clone(),
                arm: record.arm.clone(),
                seed: record.seed,
                last: is_last,
                at: at.clone(),
                run_seconds: record.wall_seconds,
                path,
            });
        }
    }
    Ok(out)
}

/// One line of `ladder/pairings.jsonl`: a finished pairing, from `a`'s view.
///
/// ```json
/// {"v":1,"a":"puct-s1/ckpt-2100","a_id":"2100-0123456789ab.safetensors","b":"random","b_id":"random",
///  "games":40,"simulations":48,"wins":31,"draws":6,"losses":3,"seconds":95.2,"time_ms":1767226200000}
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairingLine {
    /// The format version ([`PAIRINGS_VERSION`]).
    pub v: u32,
    /// The first player's name.
    pub a: String,
    /// What it is: a checkpoint's weights file, an anchor's spec.
    pub a_id: String,
    /// The second player's name.
    pub b: String,
    /// What it is.
    pub b_id: String,
    /// Games the pairing was to have (`ladder.games`).
    pub games: usize,
    /// Simulations per move of its MCTS players (`ladder.simulations`).
    pub simulations: u32,
    /// The root rule of its MCTS players (`ladder.root`; `puct` in lines written before the
    /// option existed).
    #[serde(default)]
    pub root: mcts::Root,
    /// Games `a` won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games `a` lost.
    pub losses: u32,
    /// Seconds it took.
    pub seconds: f64,
    /// When it finished, milliseconds since the Unix epoch.
    pub time_ms: u64,
}

impl PairingLine {
    /// The result as a ladder pairing.
    #[must_use]
    pub fn pairing(&self) -> arena::ladder::Pairing {
        arena::ladder::Pairing {
            a: self.a.clone(),
            b: self.b.clone(),
            wins: self.wins,
            draws: self.draws,
            losses: self.losses,
        }
    }

    /// `a`'s score.
    #[must_use]
    pub fn score(&self) -> Score {
        Score { wins: self.wins, draws: self.draws, losses: self.losses }
    }
}

/// A pairing the ladder needs: two players, and what they are.
#[derive(Clone, Debug, PartialEq)]
pub struct Scheduled {
    /// The first player.
    pub a: AgentSpec,
    /// Its identity.
    pub a_id: String,
    /// The second player.
    pub b: AgentSpec,
    /// Its identity.
    pub b_id: String,
}

impl Scheduled {
    /// Whether `line` is this pairing played with `ladder`'s games, simulations and root rule.
    #[must_use]
    pub fn is(&self, line: &PairingLine, ladder: &LadderSpec) -> bool {
        line.a == self.a.text
            && line.a_id == self.a_id
            && line.b == self.b.text
            && line.b_id == self.b_id
            && line.games == ladder.games
            && line.simulations == ladder.simulations
            && line.root == ladder.root
    }
}

/// Every pairing of the ladder, in the order played: neighbouring anchors first (the
/// reference last), then each entrant against each anchor.
#[must_use]
pub fn schedule(anchors: &[Anchor], entrants: &[Entrant], ladder: &LadderSpec) -> Vec<Scheduled> {
    let mut out: Vec<Scheduled> = anchors
        .windows(2)
        .map(|w| Scheduled { a: w[0].spec.clone(), a_id: w[0].id.clone(), b: w[1].spec.clone(), b_id: w[1].id.clone() })
        .collect();
    for e in entrants {
        let me = mcts_spec(&e.name, &e.path, ladder.simulations, ladder.root);
        for anchor in anchors {
            out.push(Scheduled { a: me.clone(), a_id: e.id.clone(), b: anchor.spec.clone(), b_id: anchor.id.clone() });
        }
    }
    out
}

/// The line of `lines` that is `s` played with `ladder`'s games, simulations and root rule, if
/// any (the first, should there be several).
#[must_use]
pub fn played<'a>(s: &Scheduled, lines: &'a [PairingLine], ladder: &LadderSpec) -> Option<&'a PairingLine> {
    lines.iter().find(|l| s.is(l, ladder))
}

/// The log `ladder/pairings.jsonl`.
#[derive(Clone, Debug)]
pub struct PairingLog {
    path: PathBuf,
}

impl PairingLog {
    /// The log at `path`.
    #[must_use]
    pub fn new(path: PathBuf) -> PairingLog {
        PairingLog { path }
    }

    /// Every line that reads, and the number that do not (cut short, of a newer version); a
    /// missing file is an empty log.
    ///
    /// # Errors
    /// The file exists but cannot be read.
    pub fn read(&self) -> Result<(Vec<PairingLine>, usize), PipelineError> {
        let text = match durable::read_text_bounded(&self.path, MAX_PAIRINGS_BYTES) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
            Err(e) => return Err(e.into()),
        };
        let (mut lines, mut skipped) = (Vec::new(), 0);
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str::<PairingLine>(line) {
                Ok(l) if l.v <= PAIRINGS_VERSION => lines.push(l),
                _ => skipped += 1,
            }
        }
        Ok((lines, skipped))
    }

    /// Appends `line`.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn append(&self, line: &PairingLine) -> Result<(), PipelineError> {
        let text = serde_json::to_string(line)
            .map_err(|e| PipelineError::Format { path: self.path.clone(), message: e.to_string() })?;
        durable::append_line(&self.path, &text)?;
        Ok(())
    }
}

/// Plays every pairing of the ladder not yet in the log (see the module docs) and returns
/// every line of the log; `None` if `stop` was raised (the pairing in progress is dropped).
///
/// # Errors
/// A pairing that cannot be played (an agent that cannot start, a net that fails), a file that
/// cannot be written.
pub fn play<G: ArenaGame + Encode>(
    dir: &ExperimentDir,
    plan: &Plan,
    anchors: &[Anchor],
    entrants: &[Entrant],
    stop: &AtomicBool,
    reporter: &dyn Reporter,
) -> Result<Option<Vec<PairingLine>>, PipelineError> {
    let ladder = &plan.spec.ladder;
    std::fs::create_dir_all(dir.ladder()).map_err(|e| PipelineError::file("creating", &dir.ladder(), e))?;
    let log = PairingLog::new(dir.pairings());
    let (mut lines, skipped) = log.read()?;
    if skipped > 0 {
        reporter.warn(&format!(
            "warning: {}: {skipped} line(s) do not read; those pairings are played again",
            dir.pairings().display()
        ));
    }
    let all = schedule(anchors, entrants, ladder);
    let todo: Vec<&Scheduled> = all.iter().filter(|s| played(s, &lines, ladder).is_none()).collect();
    reporter.say(&format!(
        "ladder: {} player(s) and {} anchor(s), {} pairing(s) of {} games at {} simulations; {} already played \
         (skipped), {} to play",
        entrants.len(),
        anchors.len(),
        all.len(),
        ladder.games,
        ladder.simulations,
        all.len() - todo.len(),
        todo.len()
    ));
    if todo.is_empty() {
        return Ok(Some(lines));
    }
    nn::set_cpu_threads(ladder.cpu_threads);
    let placement = nn::NetConfig { device: ladder.device.clone(), ..nn::NetConfig::default() };
    let service = nn::ServiceConfig {
        max_batch: ladder.concurrency.clamp(1, 4096),
        max_wait_us: 300,
        cache_entries: 0,
        net_threads: 1,
    };
    let nets = CheckpointNets::<G>::new(placement, service);
    let openings = arena::openings::shipped::<G>();
    let keep: Vec<&Path> = ladder.reference.as_deref().into_iter().collect();
    for (i, s) in todo.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let Some(line) = play_one::<G>(dir, plan, s, &openings, &nets, stop, reporter)? else { return Ok(None) };
        let score = line.score();
        reporter.say(&format!(
            "ladder {}/{}: {} vs {}: {score} ({:.0}%) in {:.0} s",
            i + 1,
            todo.len(),
            line.a,
            line.b,
            100.0 * score.fraction(),
            line.seconds
        ));
        log.append(&line)?;
        lines.push(line);
        // A checkpoint's net is needed no more once its last pairing is played.
        if todo.get(i + 1).is_none_or(|n| n.a.text != s.a.text) {
            nets.retain(&keep);
        }
    }
    Ok(Some(lines))
}

fn play_one<G: ArenaGame + Encode>(
    dir: &ExperimentDir,
    plan: &Plan,
    s: &Scheduled,
    openings: &[G],
    nets: &CheckpointNets<G>,
    stop: &AtomicBool,
    reporter: &dyn Reporter,
) -> Result<Option<PairingLine>, PipelineError> {
    let ladder = &plan.spec.ladder;
    let (a, b) = (&s.a, &s.b);
    let config = MatchConfig {
        games: ladder.games,
        first_game: 0,
        concurrency: ladder.concurrency,
        movetime: Duration::from_millis(ladder.movetime_ms),
        clock: None,
        max_plies: ladder.max_plies,
        seed: match_seed(&a.text, &b.text),
        out_dir: Some(dir.records(&a.text, &b.text)),
        event: format!("qizero experiment {}: {} vs {}", plan.spec.name, a.text, b.text),
    };
    let bar = reporter.progress(Some(ladder.games as u64), "games");
    bar.set_message(&format!("{} vs {}", a.text, b.text));
    let started = Instant::now();
    let on_game = |_: &arena::GameResult, score: &Score| {
        bar.inc(1);
        bar.set_message(&format!("{} vs {}: {score}", a.text, b.text));
    };
    let result = arena::run_match::<G>(a, b, openings, &config, nets, stop, on_game)
        .map_err(|e| PipelineError::Match(format!("ladder: {} vs {}: {e}", a.text, b.text)))?;
    let Some(result) = result else { return Ok(None) };
    Ok(Some(PairingLine {
        v: PAIRINGS_VERSION,
        a: a.text.clone(),
        a_id: s.a_id.clone(),
        b: b.text.clone(),
        b_id: s.b_id.clone(),
        games: ladder.games,
        simulations: ladder.simulations,
        root: ladder.root,
        wins: result.score.wins,
        draws: result.score.draws,
        losses: result.score.losses,
        seconds: started.elapsed().as_secs_f64(),
        time_ms: crate::metrics::now_ms(),
    }))
}

/// The seed of the pairing of `a` and `b` (FNV-1a of the names): the same pairing always
/// plays the same games, whichever order it comes in.
fn match_seed(a: &str, b: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in a.bytes().chain([0]).chain(b.bytes()) {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::experiment::CheckpointTime;

    pub(crate) fn entrant(run: &str, arm: &str, seed: u64, step: u64, last: bool) -> Entrant {
        Entrant {
            name: format!("{run}/ckpt-{step}"),
            id: format!("{step}-abcdef012345.safetensors"),
            run: run.to_owned(),
            arm: arm.to_owned(),
            seed,
            last,
            at: CheckpointTime {
                generation: step / 100,
                step,
                seconds: step as f64 * 0.6,
                evaluations: step * 1000,
                positions: step * 10,
                samples: step * 9,
            },
            run_seconds: 480.0,
            path: PathBuf::from(format!("/runs/{run}/checkpoints/{step}-abcdef012345.safetensors")),
        }
    }

    pub(crate) fn line(a: &str, a_id: &str, b: &str, w: u32, d: u32, l: u32) -> PairingLine {
        PairingLine {
            v: PAIRINGS_VERSION,
            a: a.to_owned(),
            a_id: a_id.to_owned(),
            b: b.to_owned(),
            b_id: b.to_owned(),
            games: (w + d + l) as usize,
            simulations: 48,
            root: mcts::Root::Puct,
            wins: w,
            draws: d,
            losses: l,
            seconds: 1.0,
            time_ms: 0,
        }
    }

    #[test]
    fn finished_pairings_are_skipped_and_others_played() {
        let ladder = LadderSpec {
            games: 4,
            anchors: vec!["random".into(), "alphabeta:depth=1".into()],
            ..LadderSpec::default()
        };
        let anchors = anchors(&ladder).expect("anchors");
        let entrants = [entrant("a-s1", "a", 1, 300, true)];
        let all = schedule(&anchors, &entrants, &ladder);
        let names: Vec<(&str, &str)> = all.iter().map(|s| (s.a.text.as_str(), s.b.text.as_str())).collect();
        assert_eq!(
            names,
            [("random", "alphabeta:depth=1"), ("a-s1/ckpt-300", "random"), ("a-s1/ckpt-300", "alphabeta:depth=1")]
        );
        let id = "300-abcdef012345.safetensors";
        let mut lines =
            vec![line("random", "random", "alphabeta:depth=1", 0, 1, 3), line("a-s1/ckpt-300", id, "random", 3, 1, 0)];
        let todo: Vec<&str> =
            all.iter().filter(|s| played(s, &lines, &ladder).is_none()).map(|s| s.b.text.as_str()).collect();
        assert_eq!(todo, ["alphabeta:depth=1"], "only the pairing missing from the log");
        // A line with other settings, or of another checkpoint by the same name, does not count.
        lines[1].games = 40;
        assert!(played(&all[1], &lines, &ladder).is_none());
        lines[1].games = 4;
        lines[1].a_id = "300-ffffffffffff.safetensors".into();
        assert!(played(&all[1], &lines, &ladder).is_none());
        lines[1].a_id = id.into();
        lines[1].simulations = 8;
        assert!(played(&all[1], &lines, &ladder).is_none());
        // A ladder with the Gumbel root: its checkpoints search with it, and a line played with
        // PUCT is not one of its pairings.
        lines[1].simulations = 48;
        assert!(played(&all[1], &lines, &ladder).is_some());
        let gumbel = LadderSpec { root: mcts::Root::Gumbel, ..ladder };
        let all = schedule(&anchors, &entrants, &gumbel);
        assert!(matches!(&all[1].a.kind, AgentKind::Mcts(m) if m.gumbel));
        assert!(played(&all[1], &lines, &gumbel).is_none());
        lines[1].root = mcts::Root::Gumbel;
        assert!(played(&all[1], &lines, &gumbel).is_some());
        // Lines written before the option existed read as PUCT.
        let old = r#"{"v":1,"a":"x","a_id":"x","b":"random","b_id":"random","games":2,"simulations":48,"wins":1,"draws":0,"losses":1,"seconds":1.0,"time_ms":0}"#;
        let old: PairingLine = serde_json::from_str(old).expect("an old line reads");
        assert_eq!(old.root, mcts::Root::Puct);
    }

    #[test]
    fn the_log_round_trips_and_skips_bad_lines() {
        let dir = std::env::temp_dir().join(format!("qizero-exp-pairings-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let log = PairingLog::new(dir.join("pairings.jsonl"));
        assert_eq!(log.read().expect("missing is empty"), (Vec::new(), 0));
        let l = line("x/ckpt-1", "1-a.safetensors", "random", 1, 2, 1);
        log.append(&l).expect("appends");
        durable::append_line(&dir.join("pairings.jsonl"), "{\"v\":1,\"a\":").expect("appends");
        durable::append_line(
            &dir.join("pairings.jsonl"),
            &serde_json::to_string(&PairingLine { v: 9, ..l.clone() }).expect("json"),
        )
        .expect("appends");
        assert_eq!(log.read().expect("reads"), (vec![l], 2));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_reference_is_the_last_anchor() {
        let ladder = LadderSpec {
            reference: Some(PathBuf::from("/m/ref-net.safetensors")),
            simulations: 9,
            ..LadderSpec::default()
        };
        let a = anchors(&ladder).expect("anchors");
        let names: Vec<&str> = a.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["random", "alphabeta:depth=1", "ref"]);
        assert_eq!(a[2].id, "ref:ref-net.safetensors");
        assert!(matches!(&a[2].spec.kind, AgentKind::Mcts(m) if m.simulations == 9));
    }
}
