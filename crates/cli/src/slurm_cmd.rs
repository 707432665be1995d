//! `qizero slurm render|submit|status|stop`: a run as Slurm jobs over a shared run directory
//! (`pipeline::slurm` writes the scripts and keeps the record of jobs; this module runs
//! `sbatch`, `squeue` and `scancel`).

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use pipeline::metrics::MetricsEvent;
use pipeline::slurm::{self, JobKind, JobsRecord, QueueEntry, SubmittedJob};
use pipeline::{RunDir, config};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// `qizero slurm ...`.
#[derive(Subcommand)]
pub enum SlurmCommand {
    /// Write the job scripts into RUN/slurm/ (selfplay.sbatch, trainer.sbatch, arena.sbatch)
    /// from the config's [slurm] table, making the run directory if needed. Edit them freely;
    /// existing scripts are kept unless --force.
    Render(RenderArgs),
    /// Submit the three jobs with sbatch (rendering the scripts first if there are none) and
    /// record their ids in RUN/slurm/jobs.json. Generation 0 is written first, so no job races
    /// the trainer for it, and a STOP file left by `qizero slurm stop` is removed. Refused while
    /// jobs of this run are still queued.
    Submit(RenderArgs),
    /// Show the run's jobs (squeue), positions/s per self-play worker, the trainer's step, the
    /// leases and the last gate decisions.
    Status(RunArg),
    /// Stop the run: write RUN/STOP, which every qizero process of the run honours at its next
    /// safe point, wait up to slurm.stop_grace_seconds for the jobs to end, then scancel those
    /// still there.
    Stop(StopArgs),
}

/// The run directory and the config of `render` and `submit`.
#[derive(Args)]
pub struct RenderArgs {
    /// The run directory, on a filesystem every node sees.
    #[arg(long)]
    run: PathBuf,
    /// The config preset (TOML). `submit` without it uses the run's config.toml.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Override a config value, e.g. --set slurm.selfplay.tasks=8 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// Rewrite job scripts that exist already.
    #[arg(long)]
    force: bool,
}

/// Just the run directory.
#[derive(Args)]
pub struct RunArg {
    /// The run directory.
    #[arg(long)]
    run: PathBuf,
}

/// Arguments of `stop`.
#[derive(Args)]
pub struct StopArgs {
    /// The run directory.
    #[arg(long)]
    run: PathBuf,
    /// Seconds to wait for the jobs to stop by themselves (default: slurm.stop_grace_seconds).
    #[arg(long)]
    grace: Option<u64>,
}

/// Runs `qizero slurm ...`.
///
/// # Errors
/// Anything that fails, named: a config, a script, a Slurm command.
pub fn run(command: &SlurmCommand) -> Result<()> {
    match command {
        SlurmCommand::Render(args) => {
            for path in render(args)? {
                println!("wrote {}", path.display());
            }
            Ok(())
        }
        SlurmCommand::Submit(args) => submit(args),
        SlurmCommand::Status(args) => status(&RunDir::new(&args.run)),
        SlurmCommand::Stop(args) => stop(args),
    }
}

/// The run's config: the preset with overrides, or the run's own.
fn load_config(args: &RenderArgs) -> Result<pipeline::RunConfig> {
    let run = RunDir::new(&args.run);
    match &args.config {
        Some(path) => {
            let config = config::load(path, &args.overrides)?;
            config::prepare(&run, &config)?;
            Ok(config)
        }
        None => Ok(config::of_run(&run, &args.overrides)?),
    }
}

/// The binary the jobs run: the config's, or this one.
fn qizero_binary(config: &pipeline::RunConfig) -> Result<PathBuf> {
    if !config.slurm.qizero.is_empty() {
        return Ok(PathBuf::from(&config.slurm.qizero));
    }
    std::env::current_exe().and_then(std::fs::canonicalize).context("finding this qizero binary for the job scripts")
}

fn render(args: &RenderArgs) -> Result<Vec<PathBuf>> {
    let config = load_config(args)?;
    let qizero = qizero_binary(&config)?;
    Ok(slurm::render(&RunDir::new(&args.run), &config.slurm, &qizero, args.force)?)
}

/// Runs a Slurm command and returns its standard output.
fn slurm_tool(program: &str, args: &[String]) -> Result<String> {
    let out = Command::new(program).args(args).output().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            anyhow::anyhow!("{program} not found: is Slurm's client (slurm-client) installed and on PATH?")
        } else {
            anyhow::anyhow!("cannot run {program}: {e}")
        }
    })?;
    if !out.status.success() {
        bail!("{program} {} failed ({}): {}", args.join(" "), out.status, String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The queued jobs and array tasks of the run (by the job names its scripts give).
fn queue(run: &RunDir) -> Result<Vec<QueueEntry>> {
    let root = std::path::absolute(run.root()).context("the run directory's absolute path")?;
    let tag = slurm::run_tag(&root);
    let names: Vec<String> = JobKind::ALL.iter().map(|k| format!("{tag}-{}", k.name())).collect();
    let text = slurm_tool(
        "squeue",
        &["--noheader".into(), format!("--format={}", slurm::SQUEUE_FORMAT), format!("--name={}", names.join(","))],
    )?;
    Ok(slurm::parse_squeue(&text))
}

fn submit(args: &RenderArgs) -> Result<()> {
    let run = RunDir::new(&args.run);
    let config = load_config(args)?;
    let root = std::path::absolute(run.root()).context("the run directory's absolute path")?;
    let run = RunDir::new(&root);
    let missing = JobKind::ALL.iter().any(|k| !k.script(&run).exists());
    if missing || args.force {
        for path in slurm::render(&run, &config.slurm, &qizero_binary(&config)?, true)? {
            println!("wrote {}", path.display());
        }
    }
    let queued = queue(&run)?;
    if !queued.is_empty() {
        let ids: Vec<&str> = queued.iter().map(|q| q.id.as_str()).collect();
        bail!(
            "jobs of this run are still queued ({}): `qizero slurm stop --run {}` first",
            ids.join(", "),
            args.run.display()
        );
    }
    // Generation 0 before any job starts, so that no job races the trainer to write it (the
    // first to take the trainer's lease would make the trainer job exit).
    let lease = crate::ui::lease_options();
    let no_stop = std::sync::atomic::AtomicBool::new(false);
    let zero = match config.game {
        pipeline::GameName::Xiangqi => {
            pipeline::models::generation_zero::<xiangqi::Game>(&run, &config, &lease, &no_stop)?
        }
        pipeline::GameName::Draughts => {
            pipeline::models::generation_zero::<draughts::Game>(&run, &config, &lease, &no_stop)?
        }
    };
    println!("generation 0: {}", zero.display());
    if run.stop_file().exists() {
        std::fs::remove_file(run.stop_file()).with_context(|| format!("removing {}", run.stop_file().display()))?;
        println!("removed {} (left by the last stop)", run.stop_file().display());
    }
    let mut record = JobsRecord::read(&run)?;
    for kind in JobKind::ALL {
        let script = kind.script(&run);
        let out = slurm_tool("sbatch", &["--parsable".into(), script.to_string_lossy().into_owned()])?;
        // --parsable prints `id` or `id;cluster`.
        let id = out.trim().split(';').next().unwrap_or_default().to_string();
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            bail!("sbatch {} printed {out:?}, not a job id", script.display());
        }
        println!("submitted {} as job {id}", kind.name());
        record.jobs.push(SubmittedJob { kind, id, submitted_ms: pipeline::metrics::now_ms() });
        record.write(&run)?;
    }
    println!("record: {}", slurm::jobs_path(&run).display());
    Ok(())
}

fn status(run: &RunDir) -> Result<()> {
    if !run.exists() {
        bail!("{} is not a run directory (no config.toml)", run.root().display());
    }
    let record = JobsRecord::read(run)?;
    let queued = queue(run)?;
    println!(
        "run {}{}",
        run.root().display(),
        if run.stop_file().exists() { " (STOP file present: stopping)" } else { "" }
    );
    for job in record.latest() {
        let tasks: Vec<&QueueEntry> = queued.iter().filter(|q| slurm::base_id(&q.id) == job.id).collect();
        if tasks.is_empty() {
            println!("  {:<8} job {:<8} not queued (ended)", job.kind.name(), job.id);
        }
        for t in tasks {
            println!("  {:<8} job {:<12} {:<10} {:>10}  {}", job.kind.name(), t.id, t.state, t.time, t.reason);
        }
    }
    if record.jobs.is_empty() {
        println!("  no jobs submitted (qizero slurm submit)");
    }
    let metrics = pipeline::metrics::read(&run.metrics())?;
    let now = pipeline::metrics::now_ms();
    let mut workers: BTreeMap<String, (u64, f64, u64)> = BTreeMap::new();
    let (mut step, mut gates) = (None, Vec::new());
    for line in &metrics.lines {
        match &line.event {
            MetricsEvent::Selfplay(s) => {
                let w = workers.entry(s.worker_id.clone()).or_insert((0, 0.0, 0));
                *w = (line.time_ms, s.positions_per_s, w.2 + s.games);
            }
            MetricsEvent::Train(t) => step = Some((t.step, t.samples_per_s, line.time_ms)),
            MetricsEvent::Arena(m) if matches!(m.kind, pipeline::matches::MatchKind::Gate) => gates.push(m.clone()),
            _ => {}
        }
    }
    println!("self-play workers (newest shard):");
    for (id, (time, pps, games)) in &workers {
        let age = now.saturating_sub(*time) / 1000;
        println!("  {id:<40} {pps:>8.1} positions/s  {games:>6} games  last shard {age} s ago");
    }
    match step {
        Some((s, sps, time)) => {
            println!("trainer: step {s}, {sps:.0} samples/s, {} s ago", now.saturating_sub(time) / 1000);
        }
        None => println!("trainer: no step yet"),
    }
    for role in [pipeline::Role::Trainer, pipeline::Role::Arena] {
        let path = run.lease(role);
        match std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<pipeline::lease::LeaseInfo>(&t).ok())
        {
            Some(info) => println!("{} lease: {}", role.name(), info.describe()),
            None => println!("{} lease: none", role.name()),
        }
    }
    println!("gate decisions (newest last):");
    for m in gates.iter().rev().take(5).rev() {
        println!("  {} vs {}: {}-{}-{} {}", m.a, m.b, m.wins, m.draws, m.losses, m.verdict.as_deref().unwrap_or("-"));
    }
    if let Some(best) = pipeline::gate::Best::read(&run.best())? {
        println!("best: {}", best.checkpoint);
    }
    Ok(())
}

fn stop(args: &StopArgs) -> Result<()> {
    let run = RunDir::new(&args.run);
    let config = config::of_run(&run, &[])?;
    let grace = Duration::from_secs(args.grace.unwrap_or(u64::from(config.slurm.stop_grace_seconds)));
    durable::write_atomic(&run.stop_file(), b"stop\n")?;
    println!("wrote {}: every process of the run stops at its next safe point", run.stop_file().display());
    let deadline = Instant::now() + grace;
    loop {
        let queued = queue(&run)?;
        if queued.is_empty() {
            println!("all jobs of the run have ended");
            return Ok(());
        }
        // A job that has not started would only start to see STOP and end: cancel it now.
        let pending: Vec<String> = queued.iter().filter(|q| q.state == "PENDING").map(|q| q.id.clone()).collect();
        if !pending.is_empty() {
            println!("cancelling jobs not started: {}", pending.join(" "));
            slurm_tool("scancel", &pending)?;
        }
        if Instant::now() >= deadline {
            let ids: Vec<String> = queued
                .iter()
                .map(|q| slurm::base_id(&q.id).to_string())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            println!("still queued after {} s: scancel {}", grace.as_secs(), ids.join(" "));
            slurm_tool("scancel", &ids)?;
            return Ok(());
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}
