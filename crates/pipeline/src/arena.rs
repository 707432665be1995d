//! [`Arena`]: rates a run's checkpoints. Each new checkpoint plays the random and alpha-beta
//! baselines and is gated against the current best ([`crate::gate`]); an Elo ladder over
//! everyone (random anchored at 0) goes to `arena/ratings.json`, and every game's record is kept
//! under `arena/`.
//!
//! What has been played is kept in the match log ([`crate::matches`]), one line per *complete*
//! match, so an interrupted arena replays only the match it was in: a stop (Ctrl-C, SIGTERM)
//! ends the match at once, between moves, and records nothing of it. The gate's verdict goes to
//! the `best` file. The arena is the only writer of `best`, `arena/` and the ratings, and holds
//! the run's arena lease ([`crate::lease`]) while it lives.

use crate::config::RunConfig;
use crate::error::PipelineError;
use crate::gate::{Best, Evidence, Gate};
use crate::lease::{Lease, LeaseOptions};
use crate::matches::{MatchEntry, MatchKind, MatchLog};
use crate::metrics::{MetricsEvent, MetricsLog};
use crate::models::{checkpoint_at, generation_zero};
use crate::nets::CheckpointNets;
use crate::report::Reporter;
use crate::run_dir::{Role, RunDir};
use arena::ladder::{Pairing, RatedPlayer, RatingsFile};
use arena::spec::{AgentKind, MctsSpec};
use arena::{AgentSpec, ArenaConfig, ArenaGame, MatchConfig, Score};
use encode::Encode;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The name of the checkpoint at `step` in matches, ratings and `best`.
#[must_use]
pub fn checkpoint_name(step: u64) -> String {
    format!("ckpt-{step}")
}

/// The step a checkpoint name (`ckpt-<step>`) stands for.
#[must_use]
pub fn step_of(name: &str) -> Option<u64> {
    name.strip_prefix("ckpt-").and_then(|s| s.parse().ok())
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
    #[must_use]
    pub fn get(&self, kind: MatchKind) -> Option<&MatchEntry> {
        self.matches.iter().find(|m| m.kind == kind)
    }

    /// One line: each match's W-D-L and score, the gate's verdict.
    #[must_use]
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

    /// The gate and baseline results, short.
    #[must_use]
    pub fn results(&self) -> String {
        let mut parts = Vec::new();
        if let Some(m) = self.get(MatchKind::Gate) {
            let s = m.score();
            if s.wins + s.draws + s.losses == 0 {
                // `arena.gate = "none"`: no games, every checkpoint passes.
                parts.push("gate none".to_owned());
            } else {
                parts.push(format!("gate {} {} vs {}", m.verdict.as_deref().unwrap_or("?").to_uppercase(), s, m.b));
            }
        }
        for kind in [MatchKind::Random, MatchKind::Alphabeta] {
            if let Some(m) = self.get(kind) {
                let s = m.score();
                parts.push(format!("vs {} {} ({:.0}%)", m.b, s, 100.0 * s.fraction()));
            }
        }
        parts.join("; ")
    }
}

/// The ladder as a table, best first.
#[must_use]
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

/// The arena of one run directory.
pub struct Arena<'a, G: ArenaGame + Encode> {
    run: &'a RunDir,
    config: &'a RunConfig,
    arena: &'a ArenaConfig,
    nets: CheckpointNets<G>,
    openings: Vec<G>,
    log: MatchLog,
    metrics: MetricsLog,
    lease_options: LeaseOptions,
    stop: &'a AtomicBool,
    reporter: &'a dyn Reporter,
    _lease: Lease,
}

impl<'a, G: ArenaGame + Encode> Arena<'a, G> {
    /// The arena of `run`, with the run's config, holding its arena lease; `stop` ends a match
    /// between moves (nothing of it is recorded).
    ///
    /// # Errors
    /// Another live arena holds the lease.
    pub fn open(
        run: &'a RunDir,
        config: &'a RunConfig,
        lease: &LeaseOptions,
        stop: &'a AtomicBool,
        reporter: &'a dyn Reporter,
    ) -> Result<Arena<'a, G>, PipelineError> {
        let held = Lease::acquire(run, Role::Arena, lease)?;
        let service = nn::ServiceConfig {
            max_batch: (config.arena.concurrency * config.arena.leaves_per_batch as usize).clamp(1, 4096),
            max_wait_us: 300,
            cache_entries: 0,
            net_threads: config.inference.net_threads,
        };
        Ok(Arena {
            run,
            config,
            arena: &config.arena,
            nets: CheckpointNets::new(config.net.clone(), service),
            openings: arena::openings::shipped::<G>(),
            log: MatchLog::new(run.matches()),
            metrics: MetricsLog::new(run.metrics()),
            lease_options: lease.clone(),
            stop,
            reporter,
            _lease: held,
        })
    }

    /// The gate.
    #[must_use]
    pub fn gate(&self) -> Gate<'_> {
        Gate::new(self.arena)
    }

    /// Every complete match so far (lines that do not read are reported and played again).
    ///
    /// # Errors
    /// The log exists but cannot be read.
    pub fn entries(&self) -> Result<Vec<MatchEntry>, PipelineError> {
        let found = self.log.read()?;
        for (line, why) in &found.skipped {
            self.reporter.warn(&format!(
                "warning: {} line {line}: {why}; that match is played again",
                self.log.path().display()
            ));
        }
        Ok(found.entries)
    }

    /// The current best: the `best` file's verdict. A run rated before the file existed gets
    /// one from its match log (the first checkpoint rated, then each whose gate passed).
    ///
    /// # Errors
    /// `best` or the match log does not read.
    pub fn best(&self) -> Result<Option<Best>, PipelineError> {
        if let Some(best) = Best::read(&self.run.best())? {
            return Ok(Some(best));
        }
        let entries = self.entries()?;
        let mut by_step: Vec<&MatchEntry> = entries.iter().collect();
        by_step.sort_by_key(|e| e.step);
        let Some(first) = by_step.first() else { return Ok(None) };
        let mut best = self.first_verdict(&first.a, first.step)?;
        for e in by_step.iter().filter(|e| e.passed()) {
            best = self.verdict(e)?;
        }
        best.write(&self.run.best())?;
        Ok(Some(best))
    }

    /// The verdict making the first checkpoint rated the best.
    fn first_verdict(&self, name: &str, step: u64) -> Result<Best, PipelineError> {
        let weights = self.weights_name(step)?;
        let evidence = Evidence {
            against: None,
            wins: 0,
            draws: 0,
            losses: 0,
            games: 0,
            test: "the first checkpoint rated".to_owned(),
            llr: None,
        };
        Ok(Best::new(name, step, &weights, evidence))
    }

    /// The verdict of a passed gate match.
    fn verdict(&self, e: &MatchEntry) -> Result<Best, PipelineError> {
        let evidence = Evidence {
            against: Some(e.b.clone()),
            wins: e.wins,
            draws: e.draws,
            losses: e.losses,
            games: e.wins + e.draws + e.losses,
            test: self.gate().describe(),
            llr: e.llr,
        };
        Ok(Best::new(&e.a, e.step, &self.weights_name(e.step)?, evidence))
    }

    /// The weights' file name of the checkpoint at `step`.
    fn weights_name(&self, step: u64) -> Result<String, PipelineError> {
        let path = self.path_of(step)?;
        Ok(path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
    }

    /// The weights of the checkpoint at `step` (generation 0 is written if missing).
    fn path_of(&self, step: u64) -> Result<PathBuf, PipelineError> {
        if step == 0 {
            return generation_zero::<G>(self.run, self.config, &self.lease_options, self.stop);
        }
        checkpoint_at(self.run, step)
    }

    fn checkpoint_spec(&self, name: &str, path: &Path) -> AgentSpec {
        AgentSpec {
            text: name.to_owned(),
            kind: AgentKind::Mcts(MctsSpec {
                checkpoint: Some(path.to_path_buf()),
                simulations: self.arena.simulations,
                batch: self.arena.leaves_per_batch,
                reuse: true,
                gumbel: self.arena.root == mcts::Root::Gumbel,
                prove_leaves: self.arena.prove_leaves,
                ..MctsSpec::default()
            }),
        }
    }

    /// Plays whatever the checkpoint at `step` (weights at `path`) still lacks (random,
    /// alpha-beta, the gate), records each complete match, and publishes a passed gate's
    /// verdict. `None` if stopped before it was done.
    ///
    /// # Errors
    /// A match that cannot be played (an agent that cannot start, a failed evaluation), a file
    /// that cannot be written.
    pub fn rate(&self, step: u64, path: &Path) -> Result<Option<Report>, PipelineError> {
        let name = checkpoint_name(step);
        let me = self.checkpoint_spec(&name, path);
        let entries = self.entries()?;
        let done = |kind: MatchKind| entries.iter().find(|e| e.a == name && e.kind == kind).cloned();
        let mut report = Report { name: name.clone(), ..Report::default() };
        let c = self.arena;
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
            let spec = AgentSpec::parse(&opponent)
                .map_err(|e| PipelineError::Config(format!("arena.alphabeta = '{opponent}': {e}")))?;
            let Some(entry) = self.play(&me, &spec, kind, step, games)? else { return Ok(None) };
            self.record(&entry)?;
            report.played.push(kind);
            report.matches.push(entry);
        }
        let best = match self.best()? {
            Some(best) => best,
            None => {
                // The first checkpoint rated is the best until a gate passes.
                let first = self.first_verdict(&name, step)?;
                first.write(&self.run.best())?;
                first
            }
        };
        let mut now_best = best.checkpoint.clone();
        if best.checkpoint != name && best.step < step {
            if let Some(e) = done(MatchKind::Gate) {
                report.matches.push(e);
            } else {
                let opponent = self.checkpoint_spec(&best.checkpoint, &self.path_of(best.step)?);
                let entry = if self.gate().plays() {
                    self.play(&me, &opponent, MatchKind::Gate, step, self.gate().max_games())?
                } else {
                    Some(self.unplayed_gate(&name, &best.checkpoint, step))
                };
                let Some(entry) = entry else { return Ok(None) };
                self.record(&entry)?;
                if entry.passed() {
                    self.verdict(&entry)?.write(&self.run.best())?;
                }
                report.played.push(MatchKind::Gate);
                report.matches.push(entry);
            }
            if report.get(MatchKind::Gate).is_some_and(MatchEntry::passed) {
                now_best.clone_from(&name);
            }
        }
        report.best = now_best;
        // The nets of checkpoints that play no more: every one but this one and the best.
        let best_path = step_of(&report.best).and_then(|s| self.path_of(s).ok());
        let keep: Vec<&Path> = [Some(path), best_path.as_deref()].into_iter().flatten().collect();
        self.nets.retain(&keep);
        Ok(Some(report))
    }

    /// A gate of kind `none`: passed without games.
    fn unplayed_gate(&self, name: &str, best: &str, step: u64) -> MatchEntry {
        MatchEntry {
            a: name.to_owned(),
            b: best.to_owned(),
            kind: MatchKind::Gate,
            step,
            wins: 0,
            draws: 0,
            losses: 0,
            verdict: Some("pass".to_owned()),
            llr: None,
            seconds: 0.0,
            records: String::new(),
        }
    }

    /// Writes a complete match to the log and the metrics.
    fn record(&self, entry: &MatchEntry) -> Result<(), PipelineError> {
        self.log.append(entry)?;
        if let Err(e) = self.metrics.append(MetricsEvent::Arena(entry.clone())) {
            self.reporter.warn(&format!("warning: {e}"));
        }
        Ok(())
    }

    /// Plays `a` against `b` for up to `games` games in parts of a few rounds (so a gate's early
    /// verdict comes between parts); `None` if stopped (then nothing of the match counts).
    fn play(
        &self,
        a: &AgentSpec,
        b: &AgentSpec,
        kind: MatchKind,
        step: u64,
        games: usize,
    ) -> Result<Option<MatchEntry>, PipelineError> {
        let c = self.arena;
        let records = RunDir::match_records_name(&a.text, &b.text);
        let part = (2 * c.concurrency).max(2);
        let started = Instant::now();
        let bar = self.reporter.progress(Some(games as u64), "games");
        bar.set_message(&format!("{} vs {}", a.text, b.text));
        let mut score = Score::default();
        let gate = self.gate();
        let mut decided = false;
        while (score.games() as usize) < games && !decided {
            if self.stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            let config = MatchConfig {
                games: part.min(games - score.games() as usize),
                first_game: score.games() as usize,
                concurrency: c.concurrency,
                movetime: Duration::from_millis(c.movetime_ms),
                clock: None,
                max_plies: c.max_plies,
                seed: match_seed(self.config.seed, &a.text, &b.text),
                out_dir: Some(self.run.resolve(&records)),
                event: format!("qizero arena: {} vs {}", a.text, b.text),
            };
            let so_far = score;
            let on_game = |_: &arena::GameResult, s: &Score| {
                bar.inc(1);
                let total = Score {
                    wins: so_far.wins + s.wins,
                    draws: so_far.draws + s.draws,
                    losses: so_far.losses + s.losses,
                };
                bar.set_message(&format!("{} vs {}: {total}", a.text, b.text));
            };
            let part = arena::run_match::<G>(a, b, &self.openings, &config, &self.nets, self.stop, on_game)
                .map_err(|e| PipelineError::Match(format!("{} vs {}: {e}", a.text, b.text)))?;
            let Some(part) = part else { return Ok(None) };
            score.wins += part.score.wins;
            score.draws += part.score.draws;
            score.losses += part.score.losses;
            decided = kind == MatchKind::Gate && gate.early(&score).is_some();
        }
        let (verdict, llr) = match kind {
            MatchKind::Gate => {
                let (pass, llr) = gate.verdict(&score);
                (Some(if pass { "pass" } else { "fail" }.to_owned()), llr)
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
    pub fn update_ratings(&self) -> Result<Option<RatingsFile>, PipelineError> {
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
        let ratings = arena::ladder::rate(&players, &pairings, "random")
            .map_err(|e| PipelineError::Match(format!("rating the arena's players: {e}")))?;
        let rated = ratings
            .into_iter()
            .map(|r| {
                let step = step_of(&r.name);
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
        let best = Best::read(&self.run.best())?.map(|b| b.checkpoint);
        let file = RatingsFile { anchor: "random".to_owned(), players: rated, matches: pairings, best };
        let path = self.run.ratings();
        let text = serde_json::to_string_pretty(&file)
            .map_err(|e| PipelineError::Format { path: path.clone(), message: e.to_string() })?;
        durable::write_atomic(&path, text.as_bytes())?;
        Ok(Some(file))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: MatchKind, b: &str, (wins, draws, losses): (u32, u32, u32), verdict: Option<&str>) -> MatchEntry {
        MatchEntry {
            a: "ckpt-300".into(),
            b: b.into(),
            kind,
            step: 300,
            wins,
            draws,
            losses,
            verdict: verdict.map(str::to_owned),
            llr: None,
            seconds: 1.0,
            records: String::new(),
        }
    }

    #[test]
    fn the_summary_names_the_gate_and_each_score() {
        let vs = [
            entry(MatchKind::Random, "random", (20, 0, 0), None),
            entry(MatchKind::Alphabeta, "alphabeta:depth=2", (5, 4, 11), None),
        ];
        let gated = Report {
            name: "ckpt-300".into(),
            matches: [vec![entry(MatchKind::Gate, "ckpt-0", (17, 3, 10), Some("pass"))], vs.to_vec()].concat(),
            played: vec![],
            best: "ckpt-300".into(),
        };
        assert_eq!(
            gated.results(),
            "gate PASS 17-3-10 vs ckpt-0; vs random 20-0-0 (100%); vs alphabeta:depth=2 5-4-11 (35%)"
        );
        // `arena.gate = "none"` records a pass of no games: the line says there was no gate.
        let ungated = Report {
            matches: [vec![entry(MatchKind::Gate, "ckpt-0", (0, 0, 0), Some("pass"))], vs.to_vec()].concat(),
            ..gated
        };
        assert_eq!(ungated.results(), "gate none; vs random 20-0-0 (100%); vs alphabeta:depth=2 5-4-11 (35%)");
    }
}
