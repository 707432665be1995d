//! An external engine process talking lines of text over its standard input and output, with a
//! deadline on every read: the common ground of the UCI and Hub clients.
//!
//! A thread reads the engine's standard output into a channel, so waiting for a line can time
//! out (a blocking read cannot); another keeps the last lines of its standard error, which go
//! into the error when the engine dies. Dropping the process asks it to quit, waits a moment and
//! kills it: a hung engine never outlives its agent.

use crate::client::ClientError;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Lines of standard error kept for error messages.
const STDERR_LINES: usize = 8;

/// A running engine.
pub struct Process {
    /// The name used in errors: the program, until the engine names itself.
    pub name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// The command that stops the engine politely (`quit` in both protocols).
    quit: &'static str,
}

impl Process {
    /// Starts `program` with `args`.
    pub fn spawn(program: &str, args: &[String], quit: &'static str) -> Result<Process, ClientError> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| ClientError::Spawn { program: program.to_string(), source })?;
        let stdin = child.stdin.take();
        let (tx, lines) = channel();
        if let Some(stdout) = child.stdout.take() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buf = Vec::new();
                // Bytes, not `lines()`: an engine sending invalid UTF-8 is garbage to report,
                // not a reason to stop listening.
                while matches!(reader.read_until(b'\n', &mut buf), Ok(n) if n > 0) {
                    let line = String::from_utf8_lossy(&buf).trim_end_matches(['\r', '\n']).to_string();
                    buf.clear();
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        if let Some(err) = child.stderr.take() {
            let keep = Arc::clone(&stderr);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(err.take(1 << 24));
                let mut buf = Vec::new();
                while matches!(reader.read_until(b'\n', &mut buf), Ok(n) if n > 0) {
                    let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                    buf.clear();
                    if let Ok(mut lines) = keep.lock() {
                        if lines.len() == STDERR_LINES {
                            lines.pop_front();
                        }
                        lines.push_back(line);
                    }
                }
            });
        }
        Ok(Process { name: program.to_string(), child, stdin, lines, stderr, quit })
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), ClientError> {
        let result = match self.stdin.as_mut() {
            Some(stdin) => stdin.write_all(format!("{line}\n").as_bytes()).and_then(|()| stdin.flush()),
            None => Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe)),
        };
        result.map_err(|source| {
            if source.kind() == std::io::ErrorKind::BrokenPipe {
                self.crashed()
            } else {
                ClientError::Io { engine: self.name.clone(), source }
            }
        })
    }

    /// The next line, waiting until `deadline` at most.
    pub fn recv(
        &mut self,
        deadline: Instant,
        waiting_for: &'static str,
        started: Instant,
    ) -> Result<String, ClientError> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => {
                Err(ClientError::Timeout { engine: self.name.clone(), waiting_for, after: started.elapsed() })
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.crashed()),
        }
    }

    /// Reads lines until one whose first word is `word`, within `timeout`; returns that line.
    /// `each` sees every line before it (to collect `id` and `option` lines).
    pub fn wait_for(
        &mut self,
        word: &'static str,
        timeout: Duration,
        mut each: impl FnMut(&str),
    ) -> Result<String, ClientError> {
        let started = Instant::now();
        let deadline = started + timeout;
        loop {
            let line = self.recv(deadline, word, started)?;
            if line.split_whitespace().next() == Some(word) {
                return Ok(line);
            }
            each(&line);
        }
    }

    /// The error for an engine that went away: exit status and the end of its standard error.
    fn crashed(&mut self) -> ClientError {
        // Its output closed; give it a moment to finish exiting so the status is known.
        let mut status = None;
        for _ in 0..50 {
            match self.child.try_wait() {
                Ok(Some(s)) => {
                    status = Some(s);
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                Err(_) => break,
            }
        }
        let mut detail = match status {
            Some(s) => s.to_string(),
            None => "closed its output".to_string(),
        };
        // The stderr reader may still be catching up with the last lines.
        std::thread::sleep(Duration::from_millis(20));
        if let Ok(lines) = self.stderr.lock() {
            if !lines.is_empty() {
                detail.push_str("; stderr: ");
                detail.push_str(&lines.iter().cloned().collect::<Vec<_>>().join(" | "));
            }
        }
        ClientError::Crashed { engine: self.name.clone(), detail }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(format!("{}\n", self.quit).as_bytes());
            let _ = stdin.flush();
        }
        // Closing stdin (above, by dropping it) also tells most engines to stop.
        let deadline = Instant::now() + Duration::from_millis(300);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
