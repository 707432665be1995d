//! A run as Slurm jobs: the `[slurm]` table ([`SlurmConfig`]), the job scripts rendered from it
//! into `<run>/slurm/` ([`render`]), and the record of submitted jobs (`<run>/slurm/jobs.json`,
//! [`JobsRecord`]). The `qizero slurm` command runs `sbatch`, `squeue` and `scancel` around
//! these; nothing here starts a process.
//!
//! Three kinds of job share the run directory, as the processes of `qizero run` do on one
//! machine:
//! - **self-play**, a job array of `selfplay.tasks` workers (`qizero selfplay`), each with a
//!   unique `--instance` made of the array job id, the task id and the restart count, so a
//!   requeued task never replays the games it played before;
//! - **one trainer** (`qizero train`), `--dependency=singleton`: a second submission waits for
//!   the first to end, and the trainer's lease refuses a duplicate that starts anyway;
//! - **one arena** (`qizero arena --follow`), the only writer of `best` and the ratings, also
//!   a singleton with a lease.
//!
//! Every job is `--requeue`able and gets `SIGTERM` `signal_seconds` before its time limit
//! (`--signal=B:TERM@N`; the script `exec`s qizero, so the signal reaches it), which stops it
//! at a safe point: self-play writes its finished games, the trainer a checkpoint, the arena
//! drops the match in progress. A `STOP` file in the run directory does the same for every
//! process at once (`qizero slurm stop`).

use crate::error::PipelineError;
use crate::run_dir::RunDir;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One kind of job: its resources.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct JobResources {
    /// Array tasks (self-play only; 1 for the others). Default 2 for self-play, range 1..=1000.
    pub tasks: u32,
    /// `--partition`; empty: the cluster's default partition. Default empty.
    pub partition: String,
    /// GPUs per task (`--gres=gpu:N`); 0 asks for none. Default 0, range 0..=64.
    pub gpus: u32,
    /// `--cpus-per-task`. Default 1, range 1..=1024.
    pub cpus: u32,
    /// `--time`, in Slurm's forms (`MM`, `HH:MM:SS`, `D-HH:MM:SS`, ...). Default `1-00:00:00`.
    pub time: String,
}

impl JobResources {
    fn with_tasks(tasks: u32) -> JobResources {
        JobResources { tasks, partition: String::new(), gpus: 0, cpus: 1, time: "1-00:00:00".to_string() }
    }
}

impl Default for JobResources {
    fn default() -> JobResources {
        JobResources::with_tasks(1)
    }
}

fn default_selfplay() -> JobResources {
    JobResources::with_tasks(2)
}

/// The `[slurm]` table: how `qizero slurm render` writes the job scripts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SlurmConfig {
    /// The self-play array (`[slurm.selfplay]`).
    #[serde(default = "default_selfplay")]
    pub selfplay: JobResources,
    /// The trainer (`[slurm.trainer]`); `tasks` must be 1.
    pub trainer: JobResources,
    /// The arena and gate (`[slurm.arena]`); `tasks` must be 1.
    pub arena: JobResources,
    /// Seconds before a job's time limit at which it gets `SIGTERM` to stop at a safe point.
    /// Default 120, range 1..=65535.
    pub signal_seconds: u32,
    /// `qizero slurm stop`: seconds to wait after writing `STOP` before cancelling the jobs
    /// still running. Default 120, range 0..=86400.
    pub stop_grace_seconds: u32,
    /// The qizero binary the jobs run, as the compute nodes see it; empty: the binary running
    /// `qizero slurm render`. Default empty.
    pub qizero: String,
    /// Further `#SBATCH` options for every job, e.g. `["--account=abc", "--qos=normal"]`.
    pub sbatch_args: Vec<String>,
}

impl Default for SlurmConfig {
    fn default() -> SlurmConfig {
        SlurmConfig {
            selfplay: default_selfplay(),
            trainer: JobResources::default(),
            arena: JobResources::default(),
            signal_seconds: 120,
            stop_grace_seconds: 120,
            qizero: String::new(),
            sbatch_args: Vec::new(),
        }
    }
}

/// True if `time` is one of the forms `sbatch --time` takes (minutes, `MM:SS`, `HH:MM:SS`,
/// `D-HH`, `D-HH:MM`, `D-HH:MM:SS`), or `UNLIMITED`.
#[must_use]
pub fn is_slurm_time(time: &str) -> bool {
    if time == "UNLIMITED" || time == "INFINITE" {
        return true;
    }
    let numbers =
        |s: &str| !s.is_empty() && s.split(':').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    match time.split_once('-') {
        Some((days, rest)) => {
            !days.is_empty()
                && days.bytes().all(|b| b.is_ascii_digit())
                && numbers(rest)
                && rest.split(':').count() <= 3
        }
        None => numbers(time) && time.split(':').count() <= 3,
    }
}

impl SlurmConfig {
    /// Checks the ranges and forms.
    ///
    /// # Errors
    /// The first value out of range, named by its key.
    pub fn validate(&self) -> Result<(), String> {
        for (name, job) in [("selfplay", &self.selfplay), ("trainer", &self.trainer), ("arena", &self.arena)] {
            let max_tasks = if name == "selfplay" { 1000 } else { 1 };
            if !(1..=max_tasks).contains(&job.tasks) {
                return Err(format!("slurm.{name}.tasks = {} is outside 1..={max_tasks}", job.tasks));
            }
            if job.gpus > 64 {
                return Err(format!("slurm.{name}.gpus = {} is outside 0..=64", job.gpus));
            }
            if !(1..=1024).contains(&job.cpus) {
                return Err(format!("slurm.{name}.cpus = {} is outside 1..=1024", job.cpus));
            }
            if !is_slurm_time(&job.time) {
                return Err(format!(
                    "slurm.{name}.time = {:?} is not a Slurm time (MM, HH:MM:SS, D-HH:MM:SS, ...)",
                    job.time
                ));
            }
            if job.partition.contains(char::is_whitespace) {
                return Err(format!("slurm.{name}.partition = {:?} has white space", job.partition));
            }
        }
        if !(1..=65535).contains(&self.signal_seconds) {
            return Err(format!("slurm.signal_seconds = {} is outside 1..=65535", self.signal_seconds));
        }
        if self.stop_grace_seconds > 86_400 {
            return Err(format!("slurm.stop_grace_seconds = {} is outside 0..=86400", self.stop_grace_seconds));
        }
        if let Some(bad) = self.sbatch_args.iter().find(|a| !a.starts_with('-') || a.contains(['\n', '\r'])) {
            return Err(format!("slurm.sbatch_args: {bad:?} is not one sbatch option (like \"--account=abc\")"));
        }
        Ok(())
    }
}

/// The three kinds of job.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobKind {
    /// The self-play array.
    Selfplay,
    /// The trainer.
    Trainer,
    /// The arena and gate.
    Arena,
}

impl JobKind {
    /// All three, in submission order.
    pub const ALL: [JobKind; 3] = [JobKind::Selfplay, JobKind::Trainer, JobKind::Arena];

    /// `selfplay`, `trainer` or `arena`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            JobKind::Selfplay => "selfplay",
            JobKind::Trainer => "trainer",
            JobKind::Arena => "arena",
        }
    }

    /// The job script's path in `run`.
    #[must_use]
    pub fn script(self, run: &RunDir) -> PathBuf {
        run.slurm().join(format!("{}.sbatch", self.name()))
    }
}

/// The logs folder of the jobs.
#[must_use]
pub fn logs_dir(run: &RunDir) -> PathBuf {
    run.slurm().join("logs")
}

/// The record of submitted jobs.
#[must_use]
pub fn jobs_path(run: &RunDir) -> PathBuf {
    run.slurm().join("jobs.json")
}

/// A name for the run's jobs, the same for every submission of one run directory and
/// different between run directories: `qz-<folder name>-<hash of the absolute path>`, so the
/// singleton dependency of the trainer and the arena applies per run.
#[must_use]
pub fn run_tag(root: &Path) -> String {
    let name: String = root
        .file_name()
        .map(|n| {
            n.to_string_lossy().chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
        })
        .unwrap_or_else(|| "run".to_string());
    // FNV-1a of the path: stable across builds and machines (no random hasher seed).
    let hash = root
        .to_string_lossy()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    format!("qz-{}-{:08x}", name.chars().take(24).collect::<String>(), hash & 0xffff_ffff)
}

/// Quotes `text` for a POSIX shell.
fn shell_quote(text: &str) -> String {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-=:+,@%".contains(&b)) {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The job script of `kind` for the run at `root` (an absolute path), running `qizero`.
#[must_use]
pub fn script(kind: JobKind, config: &SlurmConfig, root: &Path, qizero: &Path) -> String {
    let run = RunDir::new(root);
    let job = match kind {
        JobKind::Selfplay => &config.selfplay,
        JobKind::Trainer => &config.trainer,
        JobKind::Arena => &config.arena,
    };
    let tag = run_tag(root);
    let logs = logs_dir(&run);
    let mut s = String::from("#!/bin/bash\n");
    let _ = writeln!(s, "# qizero {} job for the run {}.", kind.name(), root.display());
    let _ = writeln!(
        s,
        "# Written by `qizero slurm render` from the run's [slurm] table; edit freely, render --force rewrites it."
    );
    let _ = writeln!(s, "#SBATCH --job-name={tag}-{}", kind.name());
    if kind == JobKind::Selfplay {
        let _ = writeln!(s, "#SBATCH --array=0-{}", job.tasks.saturating_sub(1));
        let _ = writeln!(s, "#SBATCH --output={}/selfplay-%A_%a.out", logs.display());
    } else {
        let _ = writeln!(s, "#SBATCH --dependency=singleton");
        let _ = writeln!(s, "#SBATCH --output={}/{}-%j.out", logs.display(), kind.name());
    }
    let _ = writeln!(s, "#SBATCH --open-mode=append");
    let _ = writeln!(s, "#SBATCH --requeue");
    let _ = writeln!(s, "#SBATCH --signal=B:TERM@{}", config.signal_seconds);
    let _ = writeln!(s, "#SBATCH --time={}", job.time);
    let _ = writeln!(s, "#SBATCH --ntasks=1");
    let _ = writeln!(s, "#SBATCH --cpus-per-task={}", job.cpus);
    if !job.partition.is_empty() {
        let _ = writeln!(s, "#SBATCH --partition={}", job.partition);
    }
    if job.gpus > 0 {
        let _ = writeln!(s, "#SBATCH --gres=gpu:{}", job.gpus);
    }
    for arg in &config.sbatch_args {
        let _ = writeln!(s, "#SBATCH {arg}");
    }
    s.push_str("set -euo pipefail\n");
    let (exe, dir, cfg) = (
        shell_quote(&qizero.to_string_lossy()),
        shell_quote(&root.to_string_lossy()),
        shell_quote(&run.config().to_string_lossy()),
    );
    let _ = writeln!(
        s,
        "echo \"[$(date -u +%FT%TZ)] job ${{SLURM_JOB_ID}} restart ${{SLURM_RESTART_COUNT:-0}} on $(hostname)\""
    );
    // `exec`: qizero itself gets the signals (the time-limit SIGTERM, scancel), not a shell.
    match kind {
        JobKind::Selfplay => {
            s.push_str("# A unique instance per array job, task and restart: a requeued task plays new games.\n");
            s.push_str("instance=$(( SLURM_ARRAY_JOB_ID * 1000000 + SLURM_ARRAY_TASK_ID * 1000 + ${SLURM_RESTART_COUNT:-0} % 1000 ))\n");
            let _ = writeln!(s, "exec {exe} selfplay --config {cfg} --run {dir} --instance \"$instance\"");
        }
        JobKind::Trainer => {
            let _ = writeln!(s, "exec {exe} train --config {cfg} --run {dir}");
        }
        JobKind::Arena => {
            let _ = writeln!(s, "exec {exe} arena --run {dir} --follow");
        }
    }
    s
}

/// The scripts of every kind of job, written into `<run>/slurm/` (atomically), with the logs
/// folder. Existing scripts are kept (they may have been edited) unless `force`.
///
/// # Errors
/// An existing script without `force` (named), or a file that cannot be written.
pub fn render(run: &RunDir, config: &SlurmConfig, qizero: &Path, force: bool) -> Result<Vec<PathBuf>, PipelineError> {
    let root =
        std::path::absolute(run.root()).map_err(|e| PipelineError::Config(format!("{}: {e}", run.root().display())))?;
    let run = RunDir::new(&root);
    let existing: Vec<PathBuf> = JobKind::ALL.iter().map(|k| k.script(&run)).filter(|p| p.exists()).collect();
    if !force && !existing.is_empty() {
        let names: Vec<String> = existing.iter().map(|p| p.display().to_string()).collect();
        return Err(PipelineError::Config(format!(
            "{} already exist (perhaps edited): submit them as they are, or render --force to rewrite them",
            names.join(", ")
        )));
    }
    std::fs::create_dir_all(logs_dir(&run))
        .map_err(|e| PipelineError::Config(format!("{}: {e}", logs_dir(&run).display())))?;
    let mut written = Vec::new();
    for kind in JobKind::ALL {
        let path = kind.script(&run);
        durable::write_atomic(&path, script(kind, config, &root, qizero).as_bytes())?;
        written.push(path);
    }
    Ok(written)
}

/// One submitted job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubmittedJob {
    /// Which kind.
    pub kind: JobKind,
    /// The job id `sbatch --parsable` printed (for the array: the array job's id).
    pub id: String,
    /// When, milliseconds since the Unix epoch.
    pub submitted_ms: u64,
}

/// `<run>/slurm/jobs.json`: every job submitted for the run, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobsRecord {
    /// The jobs.
    pub jobs: Vec<SubmittedJob>,
}

impl JobsRecord {
    /// The record of `run`; empty when nothing was submitted.
    ///
    /// # Errors
    /// The file is there but does not read.
    pub fn read(run: &RunDir) -> Result<JobsRecord, PipelineError> {
        let path = jobs_path(run);
        match durable::read_text_bounded(&path, 1 << 20) {
            Ok(text) => serde_json::from_str(&text)
                .map_err(|e| PipelineError::Config(format!("{}: not a jobs record: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(JobsRecord::default()),
            Err(e) => Err(e.into()),
        }
    }

    /// Writes the record (atomically).
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write(&self, run: &RunDir) -> Result<(), PipelineError> {
        let text = serde_json::to_string_pretty(self).map_err(|e| PipelineError::Config(e.to_string()))?;
        durable::write_atomic(&jobs_path(run), text.as_bytes())?;
        Ok(())
    }

    /// The newest submission of each kind.
    #[must_use]
    pub fn latest(&self) -> Vec<&SubmittedJob> {
        JobKind::ALL.iter().filter_map(|k| self.jobs.iter().rev().find(|j| j.kind == *k)).collect()
    }
}

/// One line of `squeue --noheader --format=%i|%T|%M|%R|%j`: a job or array task and its state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueEntry {
    /// `1234`, or `1234_0` for an array task (`1234_[2-5]` for tasks still pending).
    pub id: String,
    /// `PENDING`, `RUNNING`, `COMPLETING`, ...
    pub state: String,
    /// Time used.
    pub time: String,
    /// The node, or why it waits.
    pub reason: String,
}

/// The `--format` that [`parse_squeue`] reads.
pub const SQUEUE_FORMAT: &str = "%i|%T|%M|%R";

/// Reads `squeue --noheader --format=SQUEUE_FORMAT` output; lines that do not fit are skipped.
#[must_use]
pub fn parse_squeue(text: &str) -> Vec<QueueEntry> {
    text.lines()
        .filter_map(|line| {
            let mut f = line.trim().splitn(4, '|');
            Some(QueueEntry {
                id: f.next()?.trim().to_string(),
                state: f.next()?.trim().to_string(),
                time: f.next()?.trim().to_string(),
                reason: f.next()?.trim().to_string(),
            })
        })
        .filter(|e| !e.id.is_empty())
        .collect()
}

/// The job id of `entry` without its array task (`1234_0` -> `1234`).
#[must_use]
pub fn base_id(entry_id: &str) -> &str {
    entry_id.split('_').next().unwrap_or(entry_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_checked_in_slurm_forms() {
        for ok in ["30", "30:00", "12:00:00", "1-00", "1-12:00", "2-00:00:00", "UNLIMITED"] {
            assert!(is_slurm_time(ok), "{ok}");
        }
        for bad in ["", "1h", "1-", "-1", "1:2:3:4", "1-1:2:3:4", "12::00", "one"] {
            assert!(!is_slurm_time(bad), "{bad}");
        }
    }

    #[test]
    fn the_config_is_checked() {
        assert_eq!(SlurmConfig::default().validate(), Ok(()));
        let mut c = SlurmConfig::default();
        c.trainer.tasks = 2;
        assert!(c.validate().expect_err("refused").contains("slurm.trainer.tasks"));
        let mut c = SlurmConfig::default();
        c.selfplay.time = "2h".into();
        assert!(c.validate().expect_err("refused").contains("slurm.selfplay.time"));
        let c = SlurmConfig { sbatch_args: vec!["account=x".into()], ..SlurmConfig::default() };
        assert!(c.validate().expect_err("refused").contains("sbatch_args"));
    }

    #[test]
    fn scripts_carry_the_resources_and_exec_qizero() {
        let mut c = SlurmConfig::default();
        c.selfplay.tasks = 4;
        c.selfplay.gpus = 1;
        c.selfplay.partition = "gpu".into();
        c.sbatch_args = vec!["--account=lab".into()];
        let root = Path::new("/shared/runs/x q");
        let s = script(JobKind::Selfplay, &c, root, Path::new("/opt/qizero"));
        for line in [
            "#SBATCH --array=0-3",
            "#SBATCH --requeue",
            "#SBATCH --signal=B:TERM@120",
            "#SBATCH --partition=gpu",
            "#SBATCH --gres=gpu:1",
            "#SBATCH --account=lab",
            "exec /opt/qizero selfplay --config '/shared/runs/x q/config.toml' --run '/shared/runs/x q' --instance \"$instance\"",
        ] {
            assert!(s.lines().any(|l| l == line), "missing {line:?} in\n{s}");
        }
        let t = script(JobKind::Trainer, &c, root, Path::new("/opt/qizero"));
        assert!(t.contains("#SBATCH --dependency=singleton") && !t.contains("--array") && !t.contains("--gres"), "{t}");
        assert!(t.contains(&format!("#SBATCH --job-name={}-trainer", run_tag(root))), "{t}");
        let a = script(JobKind::Arena, &c, root, Path::new("/opt/qizero"));
        assert!(a.lines().any(|l| l.ends_with("arena --run '/shared/runs/x q' --follow")), "{a}");
    }

    #[test]
    fn run_tags_are_stable_and_differ_between_runs() {
        let a = run_tag(Path::new("/a/run1"));
        assert_eq!(a, run_tag(Path::new("/a/run1")));
        assert_ne!(a, run_tag(Path::new("/b/run1")));
        assert!(a.starts_with("qz-run1-"), "{a}");
    }

    #[test]
    fn squeue_lines_are_read() {
        let q = parse_squeue(
            "12_0|RUNNING|0:05|node1\n12_[1-3]|PENDING|0:00|(Resources)\n\ngarbage\n13|RUNNING|1:00|node1\n",
        );
        assert_eq!(q.len(), 3);
        assert_eq!((q[0].id.as_str(), q[0].state.as_str()), ("12_0", "RUNNING"));
        assert_eq!(base_id(&q[1].id), "12");
        assert_eq!(q[2].reason, "node1");
    }

    #[test]
    fn render_keeps_edited_scripts_unless_forced() {
        let dir = std::env::temp_dir().join(format!("qizero-slurm-render-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let run = RunDir::new(&dir);
        run.create().expect("run dir");
        let c = SlurmConfig::default();
        let written = render(&run, &c, Path::new("/opt/qizero"), false).expect("renders");
        assert_eq!(written.len(), 3);
        let e = render(&run, &c, Path::new("/opt/qizero"), false).expect_err("kept");
        assert!(e.to_string().contains("--force"), "{e}");
        render(&run, &c, Path::new("/opt/qizero"), true).expect("forced");
        assert!(logs_dir(&RunDir::new(std::path::absolute(&dir).expect("abs"))).is_dir());
        let record =
            JobsRecord { jobs: vec![SubmittedJob { kind: JobKind::Trainer, id: "7".into(), submitted_ms: 1 }] };
        record.write(&run).expect("written");
        assert_eq!(JobsRecord::read(&run).expect("reads"), record);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
