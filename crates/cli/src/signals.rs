//! One Ctrl-C / SIGTERM handler for the whole process. The `ctrlc` crate allows a single handler
//! per process, and `qizero run` drives self-play, training and the arena in one process, so
//! every command takes its stop flag from here.
//!
//! The first signal raises the flag (each part finishes what it must and stops: self-play writes
//! its finished games, the trainer a checkpoint, the arena gives up the match in progress); a
//! second one exits at once, which is safe because every file is written under a temporary name
//! and renamed.
//!
//! A run directory's `STOP` file ([`stop_flag_for`]) raises the same flag: every process of a
//! run (on every machine sharing the folder) stops at its next safe point once the file is
//! there, as on a first Ctrl-C. `qizero slurm stop` writes it.
//!
//! Two details make that hold:
//! - A signal arriving within [`SAME_STOP`] of the first is the same stop delivered twice, not a
//!   second Ctrl-C: `timeout -s INT` and shells signal a process and then its process group.
//! - Quitting at once is a `SIGKILL` to ourselves, not `exit(3)`: `exit` runs C++ static
//!   destructors, among them libtorch's global context, while an inference thread may still be in
//!   a forward pass, which then fails ("Invalid (backend, op) pair") and panics. `SIGKILL` ends
//!   every thread as it stands (the shell reports the process killed).

use anyhow::{Context, Result};
use pipeline::RunDir;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

static STOP: OnceLock<Arc<AtomicBool>> = OnceLock::new();
static MESSAGE: Mutex<&'static str> = Mutex::new("stopping");
/// When the first signal came.
static FIRST: OnceLock<Instant> = OnceLock::new();

/// Signals this close to the first are the same stop delivered twice.
const SAME_STOP: Duration = Duration::from_millis(200);

/// The process's stop flag, installing the handler on first use; `message` is printed on the
/// first signal (the latest caller's message wins: say what stopping means now).
///
/// # Errors
/// The handler cannot be installed.
pub fn stop_flag(message: &'static str) -> Result<Arc<AtomicBool>> {
    if let Ok(mut m) = MESSAGE.lock() {
        *m = message;
    }
    if let Some(flag) = STOP.get() {
        return Ok(Arc::clone(flag));
    }
    let flag = Arc::new(AtomicBool::new(false));
    let handler_flag = Arc::clone(&flag);
    ctrlc::set_handler(move || {
        if handler_flag.swap(true, Ordering::SeqCst) {
            if FIRST.get().is_some_and(|t| t.elapsed() < SAME_STOP) {
                return;
            }
            eprintln!("\nquitting at once");
            let _ = nix::sys::signal::kill(nix::unistd::Pid::this(), nix::sys::signal::Signal::SIGKILL);
            // Not reached: SIGKILL cannot be caught.
            std::process::exit(130);
        }
        let _ = FIRST.set(Instant::now());
        let message = MESSAGE.lock().map_or("stopping", |m| *m);
        eprintln!("\n{message} (Ctrl-C again to quit at once)");
    })
    .context("installing the Ctrl-C handler")?;
    Ok(Arc::clone(STOP.get_or_init(|| flag)))
}

/// How often a run's `STOP` file is looked for.
const STOP_FILE_POLL: Duration = Duration::from_secs(1);

/// [`stop_flag`], also raised when `run`'s `STOP` file appears (at once if it is there already).
///
/// # Errors
/// The handler or the watching thread cannot be started.
pub fn stop_flag_for(run: &RunDir, message: &'static str) -> Result<Arc<AtomicBool>> {
    let flag = stop_flag(message)?;
    let (path, watched) = (run.stop_file(), Arc::clone(&flag));
    std::thread::Builder::new()
        .name("stop-file".into())
        .spawn(move || {
            while !watched.load(Ordering::SeqCst) {
                if path.exists() {
                    eprintln!("found {}: {message} (remove the file to run again)", path.display());
                    watched.store(true, Ordering::SeqCst);
                    return;
                }
                std::thread::sleep(STOP_FILE_POLL);
            }
        })
        .context("starting the STOP-file watcher")?;
    Ok(flag)
}
