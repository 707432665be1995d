//! Leases: one live trainer and one live arena per run directory, on one machine or many.
//!
//! A lease is a small JSON file, `leases/<role>.lease` ([`LeaseInfo`]: role, host, pid, an
//! optional cluster job id, when it was taken and its last heartbeat). The holder rewrites it
//! every `heartbeat` ([`durable::write_atomic`]); dropping the [`Lease`] removes it.
//!
//! Taking a lease does not use `flock` (unreliable over NFS): the file is published with
//! [`durable::write_new`], which fails when a lease is already there. Then the lease found is
//! judged: it is **live** if its heartbeat is younger than `stale_after` and, when it names this
//! host, its process still runs; a live lease makes [`Lease::acquire`] fail at once, naming the
//! holder. A **stale** lease (a holder killed with `kill -9`, a machine gone) is taken over: it
//! is renamed aside under a unique name (only one taker's rename can succeed) and the new lease
//! published in its place.
//!
//! Each heartbeat first checks that the file still names this holder; if another process took
//! the lease over (this one was stopped longer than `stale_after`), the heartbeat stops and
//! [`Lease::lost`] turns true, so the holder can stop before it writes anything more.

use crate::error::PipelineError;
use crate::run_dir::{Role, RunDir};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// The `format` of a lease file.
pub const LEASE_FORMAT: &str = "qizero-lease-1";

/// How often a holder rewrites its lease by default.
pub const HEARTBEAT: Duration = Duration::from_secs(5);

/// A heartbeat older than this by default makes a lease stale.
pub const STALE_AFTER: Duration = Duration::from_secs(30);

/// What a lease file says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseInfo {
    /// `qizero-lease-1`.
    pub format: String,
    /// `trainer`, `arena` or `experiment`.
    pub role: String,
    /// The holder's host name.
    pub host: String,
    /// The holder's process id.
    pub pid: u32,
    /// The cluster job that runs the holder, if any.
    pub job: Option<String>,
    /// When the lease was taken, milliseconds since the Unix epoch.
    pub started_ms: u64,
    /// The holder's last heartbeat, milliseconds since the Unix epoch.
    pub heartbeat_ms: u64,
    /// What the holder holds it for, when that is a brief task rather than the role's whole
    /// work: [`GENERATION_ZERO`] for a self-play process writing the step-0 checkpoint under the
    /// trainer's lease. Absent in leases written before the field existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purpose: Option<String>,
}

/// The [`LeaseInfo::purpose`] of a self-play process writing generation 0 under the trainer's
/// lease: a trainer starting meanwhile waits for it instead of failing.
pub const GENERATION_ZERO: &str = "generation 0";

impl LeaseInfo {
    fn same_holder(&self, other: &LeaseInfo) -> bool {
        self.host == other.host && self.pid == other.pid && self.started_ms == other.started_ms
    }

    /// The holder in words: `pid 4242 on node7 (job 1234), heartbeat 3 s ago`.
    #[must_use]
    pub fn describe(&self) -> String {
        let age = crate::metrics::now_ms().saturating_sub(self.heartbeat_ms) as f64 / 1000.0;
        let job = self.job.as_ref().map(|j| format!(" (job {j})")).unwrap_or_default();
        let purpose = self.purpose.as_ref().map(|p| format!(", for {p}")).unwrap_or_default();
        format!("pid {} on {}{job}{purpose}, heartbeat {age:.0} s ago", self.pid, self.host)
    }
}

/// How leases are judged and kept.
#[derive(Clone, Debug)]
pub struct LeaseOptions {
    /// This process's host name.
    pub host: String,
    /// The cluster job running this process, if any.
    pub job: Option<String>,
    /// How often the holder rewrites its lease.
    pub heartbeat: Duration,
    /// A heartbeat older than this makes a lease stale.
    pub stale_after: Duration,
}

impl LeaseOptions {
    /// The defaults ([`HEARTBEAT`], [`STALE_AFTER`]) for a process on `host`.
    #[must_use]
    pub fn on(host: &str) -> LeaseOptions {
        LeaseOptions { host: host.to_owned(), job: None, heartbeat: HEARTBEAT, stale_after: STALE_AFTER }
    }
}

/// This host's name, as leases record it.
#[must_use]
pub fn host_name() -> String {
    gethostname::gethostname().to_string_lossy().into_owned()
}

/// Whether process `pid` runs on this machine. Where that cannot be told (no `/proc`), it is
/// taken as running and the heartbeat's age alone decides.
fn process_alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
}

/// A held lease; dropping it removes the lease file.
pub struct Lease {
    path: PathBuf,
    info: LeaseInfo,
    lost: Arc<AtomicBool>,
    stop: Arc<(Mutex<bool>, Condvar)>,
    heartbeat: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Lease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease").field("path", &self.path).field("info", &self.info).finish_non_exhaustive()
    }
}

impl Lease {
    /// Takes the `role` lease of `run` (see the module docs).
    ///
    /// # Errors
    /// [`PipelineError::LeaseHeld`] naming the live holder; a lease file that cannot be read or
    /// written.
    pub fn acquire(run: &RunDir, role: Role, options: &LeaseOptions) -> Result<Lease, PipelineError> {
        Lease::acquire_at(&run.leases(), run.lease(role), role.name(), None, options)
    }

    /// [`Lease::acquire`] for a brief task, named in the lease as its `purpose` (see
    /// [`LeaseInfo::purpose`]).
    ///
    /// # Errors
    /// As [`Lease::acquire`].
    pub fn acquire_for(
        run: &RunDir,
        role: Role,
        purpose: &str,
        options: &LeaseOptions,
    ) -> Result<Lease, PipelineError> {
        Lease::acquire_at(&run.leases(), run.lease(role), role.name(), Some(purpose), options)
    }

    /// The live holder of the `role` lease of `run`, if any.
    ///
    /// # Errors
    /// The lease file cannot be read.
    pub fn holder(run: &RunDir, role: Role, options: &LeaseOptions) -> Result<Option<LeaseInfo>, PipelineError> {
        Ok(read_lease(&run.lease(role))?.filter(|found| is_live(found, options)))
    }

    /// Takes the lease at `path` (in the folder `leases`, made if missing) for `role`, as
    /// [`Lease::acquire`] does: the experiment harness holds one on its own directory.
    ///
    /// # Errors
    /// As [`Lease::acquire`].
    pub(crate) fn acquire_at(
        leases: &Path,
        path: PathBuf,
        role: &str,
        purpose: Option<&str>,
        options: &LeaseOptions,
    ) -> Result<Lease, PipelineError> {
        std::fs::create_dir_all(leases).map_err(|e| PipelineError::file("creating", leases, e))?;
        let now = crate::metrics::now_ms();
        let info = LeaseInfo {
            format: LEASE_FORMAT.to_owned(),
            role: role.to_owned(),
            host: options.host.clone(),
            pid: std::process::id(),
            job: options.job.clone(),
            started_ms: now,
            heartbeat_ms: now,
            purpose: purpose.map(str::to_owned),
        };
        let bytes = to_json(&path, &info)?;
        for attempt in 0..8 {
            match durable::write_new(&path, &bytes) {
                Ok(()) => return Ok(Lease::start(path, info, options)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e.into()),
            }
            let Some(found) = read_lease(&path)? else { continue };
            if is_live(&found, options) {
                return Err(PipelineError::LeaseHeld(format!(
                    "another {role} holds {}: {}; stop it first (a lease goes stale {} s after its last heartbeat)",
                    path.display(),
                    found.describe(),
                    options.stale_after.as_secs()
                )));
            }
            // Stale: move it aside (only one taker's rename succeeds), then publish ours.
            let aside = path.with_extension(format!("stale-{}-{attempt}", std::process::id()));
            match std::fs::rename(&path, &aside) {
                Ok(()) => {
                    let _ = std::fs::remove_file(&aside);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(PipelineError::file("taking over", &path, e)),
            }
        }
        Err(PipelineError::LeaseHeld(format!("could not take {}: other processes keep taking it", path.display())))
    }

    fn start(path: PathBuf, info: LeaseInfo, options: &LeaseOptions) -> Lease {
        let lost = Arc::new(AtomicBool::new(false));
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let (p, mine, l, s, every) =
            (path.clone(), info.clone(), Arc::clone(&lost), Arc::clone(&stop), options.heartbeat);
        let heartbeat = std::thread::Builder::new()
            .name("lease-heartbeat".into())
            .spawn(move || beat(&p, mine, &l, &s, every))
            .ok();
        if heartbeat.is_none() {
            // No heartbeat thread: the lease will go stale; say so through `lost`.
            lost.store(true, Ordering::Relaxed);
        }
        Lease { path, info, lost, stop, heartbeat }
    }

    /// What the lease file says about this holder.
    #[must_use]
    pub fn info(&self) -> &LeaseInfo {
        &self.info
    }

    /// True once another process has taken the lease over (or the heartbeat could not run).
    #[must_use]
    pub fn lost(&self) -> bool {
        self.lost.load(Ordering::Relaxed)
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let (lock, wake) = &*self.stop;
        if let Ok(mut stopped) = lock.lock() {
            *stopped = true;
            wake.notify_all();
        }
        if let Some(h) = self.heartbeat.take() {
            let _ = h.join();
        }
        if read_lease(&self.path).ok().flatten().is_some_and(|f| f.same_holder(&self.info)) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The heartbeat loop: rewrite the lease every `every` while it is ours.
fn beat(path: &Path, mut mine: LeaseInfo, lost: &AtomicBool, stop: &(Mutex<bool>, Condvar), every: Duration) {
    let (lock, wake) = stop;
    loop {
        let Ok(guard) = lock.lock() else { return };
        let Ok((guard, _)) = wake.wait_timeout_while(guard, every, |stopped| !*stopped) else { return };
        if *guard {
            return;
        }
        drop(guard);
        match read_lease(path) {
            Ok(Some(found)) if found.same_holder(&mine) => {
                mine.heartbeat_ms = crate::metrics::now_ms();
                if let Ok(bytes) = to_json(path, &mine) {
                    // A failed heartbeat is retried next time; a lease left stale is taken over.
                    let _ = durable::write_atomic(path, &bytes);
                }
            }
            // Gone or taken over: not ours any more.
            _ => {
                lost.store(true, Ordering::Relaxed);
                return;
            }
        }
    }
}

fn is_live(found: &LeaseInfo, options: &LeaseOptions) -> bool {
    let age = crate::metrics::now_ms().saturating_sub(found.heartbeat_ms);
    if u128::from(age) > options.stale_after.as_millis() {
        return false;
    }
    found.host != options.host || process_alive(found.pid)
}

fn to_json(path: &Path, info: &LeaseInfo) -> Result<Vec<u8>, PipelineError> {
    serde_json::to_vec_pretty(info)
        .map_err(|e| PipelineError::Format { path: path.to_path_buf(), message: e.to_string() })
}

/// The lease at `path`; `None` if there is none. A file that does not read counts as a stale
/// lease of nobody (its heartbeat 0), so it is taken over rather than blocking the run forever.
fn read_lease(path: &Path) -> Result<Option<LeaseInfo>, PipelineError> {
    match durable::read_text_bounded(path, 1 << 16) {
        Ok(text) => Ok(Some(serde_json::from_str(&text).unwrap_or(LeaseInfo {
            format: String::new(),
            role: String::new(),
            host: String::new(),
            pid: 0,
            job: None,
            started_ms: 0,
            heartbeat_ms: 0,
            purpose: None,
        }))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(name: &str) -> RunDir {
        let root = std::env::temp_dir().join(format!("qizero-lease-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        RunDir::new(root)
    }

    fn fast(host: &str) -> LeaseOptions {
        LeaseOptions {
            host: host.into(),
            job: None,
            heartbeat: Duration::from_millis(20),
            stale_after: Duration::from_secs(30),
        }
    }

    #[test]
    fn a_brief_holder_says_what_for_and_old_leases_still_read() {
        let run = run("purpose");
        let held = Lease::acquire_for(&run, Role::Trainer, GENERATION_ZERO, &fast("here")).expect("takes");
        let holder = Lease::holder(&run, Role::Trainer, &fast("here")).expect("reads").expect("held");
        assert_eq!(holder.purpose.as_deref(), Some(GENERATION_ZERO));
        let e = Lease::acquire(&run, Role::Trainer, &fast("here")).expect_err("held").to_string();
        assert!(e.contains(", for generation 0, heartbeat"), "{e}");
        drop(held);
        assert_eq!(Lease::holder(&run, Role::Trainer, &fast("here")).expect("reads"), None, "released");
        // A lease written before `purpose` existed: read as held for the role's whole work.
        let old = format!(
            "{{\"format\": \"qizero-lease-1\", \"role\": \"trainer\", \"host\": \"here\", \"pid\": {}, \
             \"job\": null, \"started_ms\": 1, \"heartbeat_ms\": {}}}",
            std::process::id(),
            crate::metrics::now_ms()
        );
        std::fs::write(run.lease(Role::Trainer), old).expect("writes");
        let holder = Lease::holder(&run, Role::Trainer, &fast("here")).expect("reads").expect("live");
        assert_eq!((holder.purpose, holder.pid), (None, std::process::id()));
        let _ = std::fs::remove_dir_all(run.root());
    }

    #[test]
    fn one_holder_at_a_time_and_released_on_drop() {
        let run = run("one");
        let first = Lease::acquire(&run, Role::Trainer, &fast("here")).expect("takes");
        let e = Lease::acquire(&run, Role::Trainer, &fast("here")).expect_err("held");
        let text = e.to_string();
        assert!(text.contains(&format!("pid {}", std::process::id())) && text.contains("here"), "{text}");
        // Another role is another lease.
        let arena = Lease::acquire(&run, Role::Arena, &fast("here")).expect("the arena's own");
        drop(first);
        assert!(!run.lease(Role::Trainer).exists(), "removed on drop");
        let again = Lease::acquire(&run, Role::Trainer, &fast("here")).expect("free again");
        drop((again, arena));
        let _ = std::fs::remove_dir_all(run.root());
    }

    #[test]
    fn stale_leases_are_taken_over() {
        let run = run("stale");
        std::fs::create_dir_all(run.leases()).expect("dir");
        let dead = |host: &str, pid: u32, heartbeat_ms: u64| LeaseInfo {
            format: LEASE_FORMAT.into(),
            role: "trainer".into(),
            host: host.into(),
            pid,
            job: None,
            started_ms: heartbeat_ms,
            heartbeat_ms,
            purpose: None,
        };
        let write = |info: &LeaseInfo| {
            std::fs::write(run.lease(Role::Trainer), serde_json::to_vec(info).expect("json")).expect("writes")
        };
        // This host, a process that does not run (pid beyond the kernel's maximum): stale at once.
        write(&dead("here", 4_000_000_000, crate::metrics::now_ms()));
        let lease = Lease::acquire(&run, Role::Trainer, &fast("here")).expect("takes over a dead pid");
        assert_eq!(lease.info().pid, std::process::id());
        drop(lease);
        // Another host with a fresh heartbeat: live. With an old one: stale.
        write(&dead("elsewhere", 1, crate::metrics::now_ms()));
        assert!(Lease::acquire(&run, Role::Trainer, &fast("here")).is_err());
        write(&dead("elsewhere", 1, 1));
        assert!(Lease::acquire(&run, Role::Trainer, &fast("here")).is_ok());
        // A damaged lease file is taken over too.
        std::fs::write(run.lease(Role::Trainer), b"{not json").expect("writes");
        assert!(Lease::acquire(&run, Role::Trainer, &fast("here")).is_ok());
        let _ = std::fs::remove_dir_all(run.root());
    }

    #[test]
    fn heartbeats_and_loss() {
        let run = run("beat");
        let lease = Lease::acquire(&run, Role::Arena, &fast("here")).expect("takes");
        let first = read_lease(&run.lease(Role::Arena)).expect("reads").expect("there");
        // The heartbeat moves on.
        let moved = (0..500).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            read_lease(&run.lease(Role::Arena)).ok().flatten().is_some_and(|f| f.heartbeat_ms > first.heartbeat_ms)
        });
        assert!(moved, "no heartbeat");
        assert!(!lease.lost());
        // Someone else takes it over: the holder notices.
        let mut other = first.clone();
        other.pid += 1;
        std::fs::write(run.lease(Role::Arena), serde_json::to_vec(&other).expect("json")).expect("writes");
        let noticed = (0..500).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            lease.lost()
        });
        assert!(noticed, "loss not noticed");
        drop(lease);
        assert!(run.lease(Role::Arena).exists(), "the new holder's lease is not removed");
        let _ = std::fs::remove_dir_all(run.root());
    }
}
