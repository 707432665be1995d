//! `qizero arena`: rates a run's checkpoints. Each new checkpoint plays the random and
//! alpha-beta baselines and is gated against the current best (SPRT or a win-rate threshold);
//! an Elo ladder over everyone (random anchored at 0) goes to `arena/ratings.json`, the plots
//! are redrawn, and every game's record is kept under `arena/`.
//!
//! What has been played is kept in `arena/matches.jsonl`, one line per *complete* match, so an
//! interrupted arena replays only the match it was in; the current best is the last checkpoint
//! whose gate passed, read back from the same file. [`Arena`] is shared with `qizero run`.

use anyhow::{Context, Result, bail};
use arena::ladder::{Pairing, RatedPlayer, RatingsFile};
use arena::spec::{AgentKind, MctsSpec};
use arena::sprt::Verdict;
use arena::{AgentSpec, ArenaConfig, ArenaGame, GateKind, MatchConfig, Score};
use clap::Args;
use encode::Encode;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::GameName;
use crate::config::{self, RunConfig};
use crate::metrics;
use crate::nets::CheckpointNets;

/// Arguments of `qizero arena`.
#[derive(Args)]
pub struct ArenaArgs {
    /// The run directory (its config.toml says the game and the [arena] settings).
    #[arg(long)]
    run: PathBuf,
    /// Rate every complete checkpoint, not only generation checkpoints (steps that are
    /// multiples of train.checkpoint_every, and step 0).
    #[arg(long)]
    all: bool,
    /// Override an [arena] value for this command only, e.g. --set arena.games_vs_random=100
    /// (repeatable; other tables are the run's and cannot change).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

/// `qizero arena`.
pub fn run(args: &ArenaArgs) -> Result<()> {
    let path = args.run.join("config.toml");
    if !path.exists() {
        bail!(
            "{} has no config.toml: not a run directory (start one with qizero run or qizero selfplay)",
            args.run.display()
        );
    }
    if let Some(o) = args.overrides.iter().find(|o| !o.trim_start().starts_with("arena.")) {
        bail!("--set {o}: only arena.* values can change for an existing run");
    }
    let config = config::load(&path, &args.overrides)?;
    // Nets no longer set libtorch's thread count when built: this phase sets it once.
    nn::set_cpu_threads(config.net.cpu_threads);
    let stop = crate::signals::stop_flag("stopping: giving up the match in progress")?;
    match config.game {
        GameName::Xiangqi => run_game::<xiangqi::Game>(args, &config, &stop),
        GameName::Draughts => run_game::<draughts::Game>(args, &config, &stop),
    }
}

fn run_game<G: ArenaGame + Encode>(args: &ArenaArgs, config: &RunConfig, stop: &AtomicBool) -> Result<()> {
    let arena = Arena::<G>::new(&args.run, config, stop);
    let mut checkpoints = nn::checkpoint::complete_in(&args.run.join("checkpoints"));
    if !args.all {
        let every = config.train.checkpoint_every;
        checkpoints.retain(|(step, _)| step % every == 0);
    }
    if checkpoints.first().is_none_or(|(step, _)| *step != 0) {
        checkpoints.insert(0, (0, arena.generation_zero()?));
    }
    println!(
        "arena: {} checkpoint(s) of {} in {}; {} simulations per move; gate {}",
        checkpoints.len(),
        G::NAME,
        args.run.display(),
        config.arena.simulations,
        arena.gate_text()
    );
    for (step, path) in &checkpoints {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        if let Some(report) = arena.rate(*step, path)? {
            if !report.played.is_empty() {
                println!("{}", report.line());
            }
        }
    }
    let ratings = arena.update_ratings()?;
    if let Some(r) = &ratings {
        print!("{}", ladder_table(r));
    }
    match crate::plots::write_all(&args.run) {
        Ok(files) if !files.is_empty() => println!("plots: {}", args.run.join("plots").display()),
        Ok(_) => {}
        Err(e) => eprintln!("warning: plots: {e:#}"),
    }
    if stop.load(Ordering::Relaxed) {
        println!("arena: stopped; the same command goes on from the last complete match");
    }
    Ok(())
}

/// The ladder as a table, best first.
pub fn ladder_table(r: &RatingsFile) -> String {
    let mut players: Vec<&RatedPlayer> = r.players.iter().collect();
    players.sort_by(|a, b| b.elo.total_cmp(&a.elo));
    let mut out = format!("{:<24} {:>8} {:>19} {:>6} {:>6}\n", "player", "elo", "95% interval", "games", "score");
    for p in players {
        let best = if r.best.as_deref() == Some(p.name.as_str()) { "  (best)" } else { "" };
        out.push_str(&format!(
            "{:<24} {:>8.1} {:>19} {:>6} {:>5.1}%{best}\n",
            p.name,
            p.elo,
            format!("[{:.0}, {:.0}]", p.lo, p.hi),
            p.games,
            100.0 * p.score
        ));
    }
    out
}

/// What a match was for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchKind {
    /// Against the random baseline.
    Random,
    /// Against the alpha-beta baseline.
    Alphabeta,
    /// Against the current best: the gate.
    Gate,
}

/// One complete match, one line of `arena/matches.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchEntry {
    /// The checkpoint rated (`ckpt-<step>`).
    pub a: String,
    /// Its opponent.
    pub b: String,
    /// What the match was for.
    pub kind: MatchKind,
    /// The step of checkpoint `a`.
    pub step: u64,
    /// A's wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// A's losses.
    pub losses: u32,
    /// Gate matches: `pass` or `fail`.
    pub verdict: Option<String>,
    /// SPRT gates: the final log-likelihood ratio.
    pub llr: Option<f64>,
    /// Wall-clock seconds the match took.
    pub seconds: f64,
    /// The directory of its records, relative to the run.
    pub records: String,
}

impl MatchEntry {
    /// A's wins, draws and losses.
    pub fn score(&self) -> Score {
        Score { wins: self.wins, draws: self.draws, losses: self.losses }
    }

    fn passed(&self) -> bool {
        self.verdict.as_deref() == Some("pass")
    }
}

/// The name of the checkpoint at `step` in matches and ratings.
pub fn checkpoint_name(step: u64) -> String {
    format!("ckpt-{step}")
}

/// What rating one checkpoint did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The checkpoint's name.
    pub name: String,
    /// Its results: every match it has, played now or before.
    pub matches: Vec<MatchEntry>,
    /// The matches played by this call.
    pub played: Vec<MatchKind>,
    /// The best checkpoint after its gate.
    pub best: String,
}

impl Report {
    /// The result of the match of `kind`, if any.
    pub fn get(&self, kind: MatchKind) -> Option<&MatchEntry> {
        self.matches.iter().find(|m| m.kind == kind)
    }

    /// One line: each match's W-D-L and score, the gate's verdict.
    pub fn line(&self) -> String {
        let mut parts = vec![format!("arena: {}", self.name)];
        for m in &self.matches {
            let s = m.score();
            let what = match m.kind {
                MatchKind::Gate => format!(
                    "gate vs {} {} {s} ({:.0}%{})",
                    m.b,
                    m.verdict.as_deref().unwrap_or("?").to_uppercase(),
                    100.0 * s.fraction(),
                    m.llr.map(|l| format!(", LLR {l:.2}")).unwrap_or_default()
                ),
                _ => format!("vs {} {s} ({:.0}%)", m.b, 100.0 * s.fraction()),
            };
            parts.push(what);
        }
        parts.push(format!("best {}", self.best));
        parts.join("; ")
    }
}

/// The arena of one run directory.
pub struct Arena<'a, G: ArenaGame + Encode> {
    run: &'a Path,
    config: &'a ArenaConfig,
    seed: u64,
    net: nn::NetConfig,
    nets: CheckpointNets<G>,
    openings: Vec<G>,
    stop: &'a AtomicBool,
}

impl<'a, G: ArenaGame + Encode> Arena<'a, G> {
    /// The arena of `run`, with the run's config; `stop` ends it between match parts.
    pub fn new(run: &'a Path, config: &'a RunConfig, stop: &'a AtomicBool) -> Arena<'a, G> {
        let service = nn::ServiceConfig {
            max_batch: config.arena.concurrency * config.arena.leaves_per_batch as usize,
            max_wait_us: 300,
            cache_entries: 0,
        };
        Arena {
            run,
            config: &config.arena,
            seed: config.seed,
            net: config.net.clone(),
            nets: CheckpointNets::new(config.net.clone(), service),
            openings: arena::openings::shipped::<G>(),
            stop,
        }
    }

    /// The gate in words.
    pub fn gate_text(&self) -> String {
        let c = self.config;
        match c.gate {
            GateKind::Sprt => format!(
                "SPRT elo0 {} elo1 {} alpha {} beta {}, at most {} games",
                c.sprt_elo0, c.sprt_elo1, c.sprt_alpha, c.sprt_beta, c.gate_games
            ),
            GateKind::Winrate => format!("{:.0}% of {} games", 100.0 * c.gate_win_rate, c.gate_games),
            GateKind::None => "none (every checkpoint becomes the best)".to_owned(),
        }
    }

    /// Generation 0 for a run whose trainer wrote no step-0 checkpoint: the randomly
    /// initialised net self-play starts with (the same seed), saved as `arena/ckpt-0.safetensors`.
    ///
    /// # Errors
    /// The net cannot be built or saved.
    pub fn generation_zero(&self) -> Result<PathBuf> {
        let path = self.run.join("arena").join("ckpt-0.safetensors");
        if !path.exists() {
            std::fs::create_dir_all(self.run.join("arena"))
                .with_context(|| format!("creating {}", self.run.join("arena").display()))?;
            let net = nn::PolicyValueNet::for_game::<G>(&self.net, self.seed).context("building the step-0 net")?;
            let tmp = path.with_extension("tmp");
            nn::checkpoint::save(&net, &tmp, 0, &[("origin", "random initialisation")])?;
            std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(path)
    }

    /// Every complete match so far. A line that does not read (a cut-off last line after a
    /// kill) is reported and skipped: that match is played again.
    ///
    /// # Errors
    /// The file exists but cannot be read.
    pub fn entries(&self) -> Result<Vec<MatchEntry>> {
        let path = self.run.join("arena").join("matches.jsonl");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        let mut entries = Vec::new();
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            match serde_json::from_str::<MatchEntry>(line) {
                Ok(e) => entries.push(e),
                Err(e) => eprintln!("warning: {} line {}: {e}; that match is played again", path.display(), i + 1),
            }
        }
        Ok(entries)
    }

    fn append(&self, entry: &MatchEntry) -> Result<()> {
        let path = self.run.join("arena").join("matches.jsonl");
        std::fs::create_dir_all(self.run.join("arena"))?;
        let mut line = serde_json::to_string(entry)?;
        line.push('\n');
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        f.write_all(line.as_bytes()).with_context(|| format!("writing {}", path.display()))?;
        f.sync_data().with_context(|| format!("writing {}", path.display()))?;
        let mut event = serde_json::to_value(entry)?;
        if let Some(obj) = event.as_object_mut() {
            obj.insert("score".into(), entry.score().fraction().into());
        }
        metrics::append(self.run, "arena", event)
    }

    /// The best checkpoint after the matches in `entries`: the first one rated, then each whose
    /// gate passed, in step order.
    pub fn best(entries: &[MatchEntry]) -> Option<String> {
        let mut by_step: Vec<&MatchEntry> = entries.iter().collect();
        by_step.sort_by_key(|e| e.step);
        let mut best = by_step.first().map(|e| e.a.clone());
        for e in by_step {
            if e.kind == MatchKind::Gate && e.passed() {
                best = Some(e.a.clone());
            }
        }
        best
    }

    fn checkpoint_spec(&self, name: &str, path: &Path) -> AgentSpec {
        AgentSpec {
            text: name.to_owned(),
            kind: AgentKind::Mcts(MctsSpec {
                checkpoint: Some(path.to_path_buf()),
                simulations: self.config.simulations,
                batch: self.config.leaves_per_batch,
            }),
        }
    }

    /// The weights of the checkpoint called `name` (for the gate's opponent).
    pub fn path_of(&self, name: &str) -> Result<PathBuf> {
        let step: u64 = name
            .strip_prefix("ckpt-")
            .and_then(|s| s.parse().ok())
            .with_context(|| format!("'{name}' does not name a checkpoint"))?;
        if let Some((_, path)) =
            nn::checkpoint::complete_in(&self.run.join("checkpoints")).into_iter().find(|(s, _)| *s == step)
        {
            return Ok(path);
        }
        if step == 0 {
            return self.generation_zero();
        }
        bail!("the best checkpoint {name} is gone from {}", self.run.join("checkpoints").display())
    }

    /// Plays whatever the checkpoint at `step` still lacks (random, alpha-beta, the gate) and
    /// records each complete match. `None` if stopped before it was done.
    ///
    /// # Errors
    /// A match that cannot be played (an agent that cannot start), a file that cannot be written.
    pub fn rate(&self, step: u64, path: &Path) -> Result<Option<Report>> {
        let name = checkpoint_name(step);
        let me = self.checkpoint_spec(&name, path);
        let entries = self.entries()?;
        let done = |kind: MatchKind| entries.iter().find(|e| e.a == name && e.kind == kind).cloned();
        let mut report = Report { name: name.clone(), ..Report::default() };
        let c = self.config;
        let baselines = [
            (MatchKind::Random, "random".to_owned(), c.games_vs_random),
            (MatchKind::Alphabeta, c.alphabeta.clone(), c.games_vs_alphabeta),
        ];
        for (kind, opponent, games) in baselines {
            if games == 0 {
                continue;
            }
            if let Some(e) = done(kind) {
                report.matches.push(e);
                continue;
            }
            let spec = AgentSpec::parse(&opponent).with_context(|| format!("arena.alphabeta = '{opponent}'"))?;
            let Some(entry) = self.play(&me, &spec, kind, step, games)? else { return Ok(None) };
            self.append(&entry)?;
            report.played.push(kind);
            report.matches.push(entry);
        }
        let best = Self::best(&entries).filter(|b| *b != name && entries.iter().any(|e| e.a == *b && e.step < step));
        if let Some(best) = best {
            if let Some(e) = done(MatchKind::Gate) {
                report.matches.push(e);
            } else {
                let opponent = self.checkpoint_spec(&best, &self.path_of(&best)?);
                let entry = match c.gate {
                    GateKind::None => Some(MatchEntry {
                        a: name.clone(),
                        b: best.clone(),
                        kind: MatchKind::Gate,
                        step,
                        wins: 0,
                        draws: 0,
                        losses: 0,
                        verdict: Some("pass".to_owned()),
                        llr: None,
                        seconds: 0.0,
                        records: String::new(),
                    }),
                    _ => self.play(&me, &opponent, MatchKind::Gate, step, c.gate_games)?,
                };
                let Some(entry) = entry else { return Ok(None) };
                self.append(&entry)?;
                report.played.push(MatchKind::Gate);
                report.matches.push(entry);
            }
        }
        let mut all = entries;
        all.extend(report.matches.iter().filter(|m| report.played.contains(&m.kind)).cloned());
        report.best = Self::best(&all).unwrap_or_else(|| name.clone());
        // The nets of checkpoints that play no more: every one but this one and the best.
        let best_path = self.path_of(&report.best).ok();
        let keep: Vec<&Path> = [Some(path), best_path.as_deref()].into_iter().flatten().collect();
        self.nets.retain(&keep);
        Ok(Some(report))
    }

    /// Plays `a` against `b` for up to `games` games in parts of a few rounds (so a stop or a
    /// gate's early verdict comes between parts), `None` if stopped.
    fn play(
        &self,
        a: &AgentSpec,
        b: &AgentSpec,
        kind: MatchKind,
        step: u64,
        games: usize,
    ) -> Result<Option<MatchEntry>> {
        let c = self.config;
        let records = format!("arena/{}-vs-{}", a.text, file_safe(&b.text));
        let part = (2 * c.concurrency).max(2);
        let started = Instant::now();
        let bar = ProgressBar::new(games as u64);
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games  {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_message(format!("{} vs {}", a.text, b.text));
        let mut score = Score::default();
        let mut verdict = None;
        let sprt = c.sprt();
        while (score.games() as usize) < games {
            if self.stop.load(Ordering::Relaxed) {
                bar.finish_and_clear();
                return Ok(None);
            }
            let config = MatchConfig {
                games: part.min(games - score.games() as usize),
                first_game: score.games() as usize,
                concurrency: c.concurrency,
                movetime: Duration::from_millis(c.movetime_ms),
                max_plies: c.max_plies,
                seed: match_seed(self.seed, &a.text, &b.text),
                out_dir: Some(self.run.join(&records)),
                event: format!("qizero arena: {} vs {}", a.text, b.text),
            };
            let on_game = |_: &arena::GameResult, s: &Score| {
                bar.inc(1);
                bar.set_message(format!("{} vs {}: {}", a.text, b.text, s));
            };
            let part_result = arena::run_match::<G>(a, b, &self.openings, &config, &self.nets, on_game)
                .with_context(|| format!("{} vs {}", a.text, b.text))?;
            score.wins += part_result.score.wins;
            score.draws += part_result.score.draws;
            score.losses += part_result.score.losses;
            bar.set_message(format!("{} vs {}: {}", a.text, b.text, score));
            if kind == MatchKind::Gate && c.gate == GateKind::Sprt {
                match sprt.verdict(&score) {
                    Verdict::Continue => {}
                    v => {
                        verdict = Some(v);
                        break;
                    }
                }
            }
        }
        bar.finish_and_clear();
        let (verdict, llr) = match (kind, c.gate) {
            (MatchKind::Gate, GateKind::Sprt) => {
                let pass = verdict == Some(Verdict::Pass);
                (Some(if pass { "pass" } else { "fail" }.to_owned()), Some(sprt.llr(&score)))
            }
            (MatchKind::Gate, _) => {
                let pass = score.fraction() >= c.gate_win_rate;
                (Some(if pass { "pass" } else { "fail" }.to_owned()), None)
            }
            _ => (None, None),
        };
        Ok(Some(MatchEntry {
            a: a.text.clone(),
            b: b.text.clone(),
            kind,
            step,
            wins: score.wins,
            draws: score.draws,
            losses: score.losses,
            verdict,
            llr,
            seconds: started.elapsed().as_secs_f64(),
            records,
        }))
    }

    /// Rates everyone from every complete match (random anchored at 0) and writes
    /// `arena/ratings.json`; `None` when there is nothing to rate yet (or no random games to
    /// anchor the ladder).
    ///
    /// # Errors
    /// The ladder cannot be computed (a player cut off from the anchor), or the file written.
    pub fn update_ratings(&self) -> Result<Option<RatingsFile>> {
        let entries = self.entries()?;
        if !entries.iter().any(|e| e.kind == MatchKind::Random) {
            return Ok(None);
        }
        let mut players: Vec<String> = vec!["random".to_owned()];
        let mut pairings: Vec<Pairing> = Vec::new();
        for e in &entries {
            for p in [&e.a, &e.b] {
                if !players.contains(p) {
                    players.push(p.clone());
                }
            }
            if e.wins + e.draws + e.losses == 0 {
                continue;
            }
            match pairings.iter_mut().find(|p| p.a == e.a && p.b == e.b) {
                Some(p) => {
                    p.wins += e.wins;
                    p.draws += e.draws;
                    p.losses += e.losses;
                }
                None => pairings.push(Pairing {
                    a: e.a.clone(),
                    b: e.b.clone(),
                    wins: e.wins,
                    draws: e.draws,
                    losses: e.losses,
                }),
            }
        }
        // A player with no games (a gate without games) cannot be rated: leave it out.
        players.retain(|p| pairings.iter().any(|q| q.a == *p || q.b == *p));
        let ratings = arena::ladder::rate(&players, &pairings, "random").context("rating the arena's players")?;
        let rated = ratings
            .into_iter()
            .map(|r| {
                let step = r.name.strip_prefix("ckpt-").and_then(|s| s.parse::<u64>().ok());
                RatedPlayer {
                    kind: if step.is_some() { "checkpoint" } else { "baseline" }.to_owned(),
                    step,
                    name: r.name,
                    elo: r.elo,
                    lo: r.lo,
                    hi: r.hi,
                    games: r.games,
                    score: r.score,
                }
            })
            .collect();
        let file =
            RatingsFile { anchor: "random".to_owned(), players: rated, matches: pairings, best: Self::best(&entries) };
        let path = self.run.join("arena").join("ratings.json");
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_string_pretty(&file)?)
            .with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))?;
        Ok(Some(file))
    }
}

/// A spec as a directory name: letters, digits, `-`, `_`, `=`, `.` kept, the rest `_`.
fn file_safe(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_alphanumeric() || "-_=.".contains(c) { c } else { '_' }).collect()
}

/// The seed of the match between `a` and `b` in a run seeded `seed` (FNV-1a of the names).
fn match_seed(seed: u64, a: &str, b: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for byte in a.bytes().chain([0]).chain(b.bytes()) {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
