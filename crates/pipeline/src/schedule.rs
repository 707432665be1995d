//! The generation scheduler that `qizero run` drives: generations of self-play, training and the
//! arena in one process, all state in the run directory, so the same command resumes where a
//! stop left off.
//!
//! Generation `g` (from 1) is complete when the run has `g * run.games_per_generation` self-play
//! games in its shards, a checkpoint at step `g * train.checkpoint_every`, and (when the arena is
//! due) that checkpoint's matches in the match log. Generation 0 is the net initialised from the
//! run seed, the step-0 checkpoint, written before anything else. Each phase looks at the
//! directory, not at a state file of its own, to see what is left to do:
//!
//! 1. self-play until the shards hold the generation's games (with the newest generation's
//!    checkpoint, or the gate's best: `run.selfplay_model`);
//! 2. training until the generation's step; if the trainer runs out of data (the reuse cap),
//!    a quarter generation's more games first (the trainer waits in memory: no checkpoint);
//! 3. the arena: the new checkpoint against random, alpha-beta and the current best; ratings,
//!    `best` and plots brought up to date; one summary line.
//!
//! A stop (Ctrl-C, SIGTERM) lands at a safe point in whatever phase is running: self-play writes
//! its finished games, the trainer a checkpoint at the step reached, the arena drops the match in
//! progress at once (it is played again). Nothing complete is lost, and nothing is done twice.

use crate::arena::{Arena, Report, checkpoint_name, ladder_table};
use crate::config::{RunConfig, RunSchedule, SelfplayModel};
use crate::error::PipelineError;
use crate::lease::LeaseOptions;
use crate::matches::MatchKind;
use crate::metrics::{GenerationEvent, MetricsEvent, MetricsLog};
use crate::models::{CheckpointSource, checkpoint_at};
use crate::report::{Reporter, count};
use crate::run_dir::RunDir;
use arena::ArenaGame;
use encode::Encode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use train::{RunOptions, StopReason, Trainer};

/// Games in the run's shards (headers only; damaged shards count nothing: the trainer reports
/// them).
///
/// # Errors
/// The shards folder cannot be listed.
pub fn games_in(run: &RunDir) -> Result<u64, PipelineError> {
    let mut games = 0;
    for path in shard::list_shards(&run.shards())? {
        if let Ok((_, counts)) = shard::read_header(&path) {
            games += counts.games;
        }
    }
    Ok(games)
}

fn minutes(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}m{:02}s", s / 60, s % 60)
}

/// The mean of `times`; `None` when there are none.
fn mean_time(times: impl Iterator<Item = Duration>) -> Option<Duration> {
    let (sum, n) = times.fold((Duration::ZERO, 0u32), |(sum, n), t| (sum + t, n + 1));
    (n > 0).then(|| sum / n)
}

/// How long the next generation should take, from the generations so far (each with whether
/// the arena rated it): the mean of those of its kind (with the arena when `rated`, else
/// without), else the mean of all, else zero. A generation that ends with the arena takes
/// several times one that does not, so the time budget judges each by its own kind.
fn next_generation_time(times: &[(Duration, bool)], rated: bool) -> Duration {
    mean_time(times.iter().filter(|&&(_, r)| r == rated).map(|&(t, _)| t))
        .or_else(|| mean_time(times.iter().map(|&(t, _)| t)))
        .unwrap_or(Duration::ZERO)
}

/// The steps a run expects to have taken when it ends, seen before generation `done + 1`:
/// `run.generations` generations, or as many as the time budget lets the scheduler start after
/// `elapsed`, whichever is fewer. The clock plays the scheduler's own rule forward: each
/// generation to come costs [`next_generation_time`] for its kind (with the arena or without,
/// from `times`, the generations so far) and starts only [`RunSchedule::within_budget`], so a
/// generation that ends with the arena is costed as one. The generation about to start always
/// counts: the scheduler has let it begin. `u64::MAX` while neither is known (no generation
/// timed yet and no count). A cosine the run fits ([`crate::config::RunConfig::fits_cosine`])
/// reaches its floor here.
fn expected_steps(
    schedule: &RunSchedule,
    per_gen_steps: u64,
    done: u64,
    elapsed: Duration,
    times: &[(Duration, bool)],
) -> u64 {
    let by_count = if schedule.generations > 0 { schedule.generations } else { u64::MAX };
    let (plain, rated) = (next_generation_time(times, false), next_generation_time(times, true));
    let cost = |g: u64| if schedule.arena_due(g) { rated } else { plain };
    // Generations that take no time give the clock nothing to go on.
    let by_time = if schedule.max_minutes > 0.0 && !plain.is_zero() && !rated.is_zero() {
        let (mut g, mut clock) = (done + 1, elapsed + cost(done + 1));
        while g < by_count && schedule.within_budget(clock, cost(g + 1)) {
            g += 1;
            clock += cost(g);
        }
        g
    } else {
        u64::MAX
    };
    by_count.min(by_time).saturating_mul(per_gen_steps)
}

/// One `qizero run`.
struct Scheduler<'a, G: ArenaGame + Encode> {
    run: &'a RunDir,
    config: &'a RunConfig,
    stop: &'a AtomicBool,
    reporter: &'a dyn Reporter,
    arena: Arena<'a, G>,
}

/// Runs the generations of `config` in `run` (see the module docs), holding the run's trainer
/// and arena leases.
///
/// # Errors
/// A lease held by another live process, a phase that fails (its error named), a file that
/// cannot be written.
pub fn run<G: ArenaGame + Encode>(
    run: &RunDir,
    config: &RunConfig,
    lease: &LeaseOptions,
    stop: &AtomicBool,
    reporter: &dyn Reporter,
) -> Result<(), PipelineError> {
    let schedule = &config.run;
    let per_gen_steps = config.train.checkpoint_every;
    let started = Instant::now();
    nn::set_cpu_threads(schedule.train_threads);
    let mut held = crate::training::open::<G>(run, config, lease, reporter)?;
    let s = Scheduler { run, config, stop, reporter, arena: Arena::<G>::open(run, config, lease, stop, reporter)? };
    let trainer = &mut held.trainer;
    let total = match (schedule.generations, schedule.max_minutes > 0.0) {
        (0, true) => format!("until the time budget of {} minutes", schedule.max_minutes),
        (0, false) => "until Ctrl-C".to_owned(),
        (n, _) => n.to_string(),
    };
    reporter.say(&format!(
        "run: {} {} in {}; generations: {total}, each {} self-play games and {} training steps; \
         self-play with the {} checkpoint{}{}{}; arena every {} generation(s), gate {}{}",
        G::NAME,
        config.net.architecture(),
        run.root().display(),
        schedule.games_per_generation,
        per_gen_steps,
        match schedule.selfplay_model {
            SelfplayModel::Latest => "newest",
            SelfplayModel::Best => "best",
        },
        config.selfplay.leaf_teacher_note(),
        config.selfplay.opponent_note(),
        config.selfplay.opening_note(),
        schedule.arena_every,
        s.arena.gate().describe(),
        if config.fits_cosine() { "; the cosine learning rate fitted to the run's length" } else { "" },
    ));

    // Whatever generation the trainer has finished, its arena may still be pending.
    let mut done = trainer.step() / per_gen_steps;
    if trainer.step() % per_gen_steps == 0 && schedule.arena_due(done) {
        nn::set_cpu_threads(config.net.cpu_threads);
        if let Some(report) = s.arena.rate(trainer.step(), &checkpoint_at(run, trainer.step())?)? {
            s.print_report(&report, done)?;
        }
    }
    // Each generation's time, and whether the arena rated it.
    let mut generation_times: Vec<(Duration, bool)> = Vec::new();
    while !stop.load(Ordering::Relaxed) && (schedule.generations == 0 || done < schedule.generations) {
        let g = done + 1;
        let next = next_generation_time(&generation_times, schedule.arena_due(g));
        if !schedule.within_budget(started.elapsed(), next) {
            reporter.say(&format!(
                "run: time budget of {} minutes reached after {} (the next generation{} takes about {})",
                schedule.max_minutes,
                minutes(started.elapsed()),
                if schedule.arena_due(g) { ", with the arena," } else { "" },
                minutes(next)
            ));
            break;
        }
        if config.fits_cosine() {
            trainer.set_cosine_horizon(expected_steps(
                schedule,
                per_gen_steps,
                done,
                started.elapsed(),
                &generation_times,
            ));
        }
        let gen_started = Instant::now();
        match s.generation(trainer, g)? {
            Some((positions, report)) => {
                done = g;
                let elapsed = gen_started.elapsed();
                generation_times.push((elapsed, schedule.arena_due(g)));
                s.summarise(trainer, g, positions, report.as_ref(), elapsed)?;
            }
            None => break,
        }
    }
    // A run cut short by its time budget ends on a generation the arena may have skipped.
    let last_step = done * per_gen_steps;
    if !stop.load(Ordering::Relaxed) && done > 0 && !schedule.arena_due(done) {
        nn::set_cpu_threads(config.net.cpu_threads);
        if let Some(report) = s.arena.rate(last_step, &checkpoint_at(run, last_step)?)? {
            s.print_report(&report, done)?;
        }
    }
    s.final_ratings(last_step)?;
    s.plots();
    s.compute_used();
    if stop.load(Ordering::Relaxed) {
        reporter.say(&format!("run: stopped after {}; run the same command to go on", minutes(started.elapsed())));
    } else {
        reporter.say(&format!("run: {done} generation(s) done in {}", minutes(started.elapsed())));
    }
    Ok(())
}

impl<G: ArenaGame + Encode> Scheduler<'_, G> {
    /// Plays generation `g`: self-play, training, and the arena when due. Returns the positions
    /// generated and the arena's report, or `None` if stopped before the generation was done.
    fn generation(&self, trainer: &mut Trainer<G>, g: u64) -> Result<Option<(u64, Option<Report>)>, PipelineError> {
        let schedule = &self.config.run;
        let target_step = g * self.config.train.checkpoint_every;
        let target_games = g * schedule.games_per_generation;
        let have = games_in(self.run)?;
        let positions_before = trainer.positions_generated();
        if have < target_games {
            nn::set_cpu_threads(self.config.net.cpu_threads);
            self.selfplay(trainer.step(), target_games - have, g, have)?;
        }
        if self.stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        nn::set_cpu_threads(schedule.train_threads);
        let summary = loop {
            let options = RunOptions { until_step: Some(target_step), no_wait: true, resume_later: true };
            let summary =
                crate::training::train_until(self.run, &self.config.train, trainer, options, self.stop, self.reporter)?;
            match &summary.reason {
                StopReason::Target | StopReason::Stopped => break summary,
                StopReason::Starved(why) => {
                    let more = schedule.games_per_generation.div_ceil(4);
                    self.reporter.say(&format!("run: training needs more data ({why}): {more} more self-play games"));
                    nn::set_cpu_threads(self.config.net.cpu_threads);
                    let have = games_in(self.run)?;
                    self.selfplay(trainer.step(), more, g, have)?;
                    if self.stop.load(Ordering::Relaxed) {
                        break summary;
                    }
                    nn::set_cpu_threads(schedule.train_threads);
                }
            }
        };
        if summary.reason == StopReason::Stopped || trainer.step() < target_step {
            return Ok(None);
        }
        let positions = trainer.positions_generated().saturating_sub(positions_before);
        let mut report = None;
        if schedule.arena_due(g) {
            nn::set_cpu_threads(self.config.net.cpu_threads);
            report = self.arena.rate(target_step, &checkpoint_at(self.run, target_step)?)?;
            if report.is_none() {
                return Ok(None);
            }
        }
        Ok(Some((positions, report)))
    }

    /// Plays `games` self-play games for generation `g` with the model `run.selfplay_model`
    /// names; `have` games are in the shards already.
    fn selfplay(&self, step: u64, games: u64, g: u64, have: u64) -> Result<(), PipelineError> {
        let source = CheckpointSource::<G>::start(self.run, self.config, self.config.run.selfplay_model)?
            .with_leaf_teacher(&self.config.selfplay);
        let id = selfplay::ModelSource::current(&source).id;
        let opponent = crate::selfplay::EngineOpponent::for_config(&self.config.selfplay);
        // Unique per generation and per games already written: a resumed phase plays new games.
        let instance = (g << 40) ^ have ^ self.config.seed.rotate_left(17);
        self.reporter.say(&format!("run: generation {g}: {games} self-play games with {id} (trainer at step {step})"));
        let job = crate::selfplay::Job {
            run: self.run,
            config: self.config,
            selfplay: &self.config.selfplay,
            source: &source,
            opponent: opponent.as_ref().map(|o| o as &dyn selfplay::Opponent<G>),
            max_games: Some(games),
            instance,
            stop: self.stop,
            reporter: self.reporter,
        };
        crate::selfplay::play(&job)?;
        Ok(())
    }

    /// The summary line and metrics event of generation `g`.
    fn summarise(
        &self,
        trainer: &Trainer<G>,
        g: u64,
        positions: u64,
        report: Option<&Report>,
        elapsed: Duration,
    ) -> Result<(), PipelineError> {
        let schedule = &self.config.run;
        let target_step = g * self.config.train.checkpoint_every;
        let losses = trainer.last_checkpoint().map(|l| (l.losses.clone(), l.learning_rate));
        let ratings = self.arena.update_ratings()?;
        let mut line = format!("gen {g}");
        if schedule.generations > 0 {
            line.push_str(&format!("/{}", schedule.generations));
        }
        line.push_str(&format!(" (step {target_step}, {}): {positions} new positions", minutes(elapsed)));
        if let Some((l, lr)) = &losses {
            line.push_str(&format!(
                "; loss {:.3} (policy {:.3}, value {:.3}), lr {lr:.2e}",
                l.total, l.policy, l.value
            ));
        }
        if let Some(r) = report {
            line.push_str(&format!("; {}", r.results()));
        }
        if let Some(p) =
            ratings.as_ref().and_then(|r| r.players.iter().find(|p| p.name == checkpoint_name(target_step)))
        {
            line.push_str(&format!("; Elo {:.0} [{:.0}, {:.0}]", p.elo, p.lo, p.hi));
        }
        self.reporter.say(&line);
        let event = GenerationEvent {
            generation: g,
            step: target_step,
            positions,
            seconds: elapsed.as_secs_f64(),
            policy_loss: losses.as_ref().map(|(l, _)| l.policy),
            value_loss: losses.as_ref().map(|(l, _)| l.value),
            best: report.map(|r| r.best.clone()),
        };
        if let Err(e) = MetricsLog::new(self.run.metrics()).append(MetricsEvent::Generation(event)) {
            self.reporter.warn(&format!("warning: {e}"));
        }
        self.plots();
        Ok(())
    }

    fn print_report(&self, report: &Report, g: u64) -> Result<(), PipelineError> {
        if report.played.is_empty() {
            return Ok(());
        }
        let mut line = format!("gen {g}: {}", report.results());
        if let Some(p) =
            self.arena.update_ratings()?.and_then(|r| r.players.into_iter().find(|p| p.name == report.name))
        {
            line.push_str(&format!("; Elo {:.0} [{:.0}, {:.0}]", p.elo, p.lo, p.hi));
        }
        self.reporter.say(&line);
        self.plots();
        Ok(())
    }

    /// What self-play did over the whole run (every session of it), and how fast: a wall-clock
    /// budget buys more search on a faster machine, and this line says how much it bought here.
    fn compute_used(&self) {
        let metrics = match crate::metrics::read(&self.run.metrics()) {
            Ok(m) => m,
            Err(e) => {
                self.reporter.warn(&format!("warning: {e}"));
                return;
            }
        };
        let t = metrics.totals();
        let Some(rate) = t.evaluations_per_second() else { return };
        self.reporter.say(&format!(
            "compute: {} generation(s) in {}: {} self-play games, {} positions, {} net evaluations; \
             {rate:.0} evaluations per second of generation time, what this machine made of the budget",
            t.generations,
            minutes(Duration::from_secs_f64(t.generation_seconds)),
            t.games,
            count(t.positions as f64),
            count(t.evaluations as f64),
        ));
    }

    /// The ladder and the last checkpoint's standing, at the end of the run.
    fn final_ratings(&self, last_step: u64) -> Result<(), PipelineError> {
        let Some(r) = self.arena.update_ratings()? else { return Ok(()) };
        self.reporter.say(&format!("ratings (random = 0, 95% intervals), {}:", self.run.ratings().display()));
        self.reporter.say(ladder_table(&r).trim_end());
        let find = |name: &str| r.players.iter().find(|p| p.name == name);
        let entries = self.arena.entries()?;
        let last = checkpoint_name(last_step);
        if let (Some(first), Some(newest)) = (find(&checkpoint_name(0)), find(&last)) {
            let vs_random = entries.iter().find(|e| e.a == last && e.kind == MatchKind::Random);
            let score = vs_random.map_or_else(String::new, |e| {
                let s = e.score();
                format!(" scores {s} ({:.0}%) against random;", 100.0 * s.fraction())
            });
            self.reporter.say(&format!(
                "final: {last}{score} Elo {:.0} [{:.0}, {:.0}], {:+.0} over generation 0 ({:.0} [{:.0}, {:.0}])",
                newest.elo,
                newest.lo,
                newest.hi,
                newest.elo - first.elo,
                first.elo,
                first.lo,
                first.hi
            ));
        }
        Ok(())
    }

    fn plots(&self) {
        if let Err(e) = crate::plots::write_all(self.run, self.reporter) {
            self.reporter.warn(&format!("warning: {e}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunSchedule;

    #[test]
    fn the_expected_steps_follow_the_count_and_the_clock() {
        let secs = Duration::from_secs;
        let timed = RunSchedule { generations: 0, max_minutes: 10.0, arena_every: 1, ..RunSchedule::default() };
        // Nothing timed yet and no count: unknown.
        assert_eq!(expected_steps(&timed, 300, 0, secs(5), &[]), u64::MAX);
        // 2 generations done in 120 s at 60 s each: 480 s left fit 8 more, 10 in all.
        let minute = [(secs(60), true); 2];
        assert_eq!(expected_steps(&timed, 300, 2, secs(120), &minute), 3000);
        // Slower generations shorten the horizon; the one about to start always counts.
        let slow = [(secs(200), true); 2];
        assert_eq!(expected_steps(&timed, 300, 2, secs(120), &slow), 1200);
        assert_eq!(expected_steps(&timed, 300, 9, secs(599), &minute), 3000);
        // A count caps it, with or without a clock.
        let counted = RunSchedule { generations: 5, ..timed.clone() };
        assert_eq!(expected_steps(&counted, 300, 2, secs(120), &minute), 1500);
        let counted = RunSchedule { generations: 5, max_minutes: 0.0, ..timed.clone() };
        assert_eq!(expected_steps(&counted, 300, 0, secs(0), &[]), 1500);
        // Generations that took no time say nothing about the clock.
        assert_eq!(expected_steps(&timed, 300, 2, secs(0), &[(Duration::ZERO, true); 2]), u64::MAX);
    }

    #[test]
    fn the_expected_steps_cost_the_arena_generations_to_come() {
        let secs = Duration::from_secs;
        // 13 minutes, the arena every 10th generation: nine plain generations of 30 s and the
        // tenth, with the arena, of 120 s: 390 s gone, 390 s left.
        let schedule = RunSchedule { generations: 0, max_minutes: 13.0, arena_every: 10, ..RunSchedule::default() };
        let mut times = vec![(secs(30), false); 9];
        times.push((secs(120), true));
        // Generations 11-19 take 270 s and the 20th, with the arena, 120 s: 780 s, exactly the
        // budget; the 21st would not start.
        assert_eq!(expected_steps(&schedule, 300, 10, secs(390), &times), 20 * 300);
        // Five plain generations on, 240 s left: four plain ones and the arena's fit. A mean of
        // all (36 s) would expect six more, 21 in all, and the rate would fall short of its floor.
        times.extend([(secs(30), false); 5]);
        assert_eq!(expected_steps(&schedule, 300, 15, secs(540), &times), 20 * 300);
        // The scheduler's own rule agrees: it starts the 20th generation and not the 21st.
        assert!(schedule.within_budget(secs(390 + 270), next_generation_time(&times, schedule.arena_due(20))));
        assert!(!schedule.within_budget(secs(780), next_generation_time(&times, schedule.arena_due(21))));
        // A second slower: the 20th no longer fits, and the 19th ends the run (the scheduler
        // stops at the first generation that would overrun, even if a plainer one would fit).
        assert_eq!(expected_steps(&schedule, 300, 15, secs(541), &times), 19 * 300);
    }

    #[test]
    fn the_next_generation_is_judged_by_its_kind() {
        let secs = Duration::from_secs;
        assert_eq!(next_generation_time(&[], true), Duration::ZERO);
        // Only plain generations so far: a rated one is judged by them until one is timed.
        let plain = [(secs(40), false), (secs(50), false)];
        assert_eq!((next_generation_time(&plain, false), next_generation_time(&plain, true)), (secs(45), secs(45)));
        let mixed = [(secs(40), false), (secs(150), true), (secs(50), false), (secs(170), true)];
        assert_eq!(next_generation_time(&mixed, false), secs(45));
        assert_eq!(next_generation_time(&mixed, true), secs(160));
    }
}
