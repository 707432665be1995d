//! A server behind pipes with every line it prints run through a protocol [`Checker`], and the
//! replay of a transcript that a Python client recorded through the same checker.
//!
//! Output is read on a thread as raw bytes, so a line the checker sees is exactly what the
//! server wrote: a carriage return, invalid UTF-8 or a last line without its newline reach the
//! checker (and fail) rather than being smoothed over by `BufRead::lines`.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// Long enough for any answer a session waits for, even on a loaded two-core machine.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// Lines of the exchange quoted when a session fails.
const TAIL: usize = 16;

/// A protocol grammar with the state it needs to judge a line (the position searched, what is
/// owed to the GUI).
pub trait Checker {
    /// Notes a command the GUI sent, before any line that answers it.
    fn sent(&mut self, command: &str);
    /// Judges one line the engine printed; `Err` says what is wrong with it.
    ///
    /// # Errors
    /// The line breaks the grammar or comes when the protocol allows no such line.
    fn check(&mut self, line: &str) -> Result<(), String>;
    /// At the end of the exchange: `Err` if something owed never came (a `bestmove` after
    /// `stop`, a `readyok`, UCCI's `bye`).
    ///
    /// # Errors
    /// Something the protocol owes the GUI is missing.
    fn finish(&mut self) -> Result<(), String>;
}

/// A line from the reader thread: text, or what made it no line of text.
enum Read {
    Line(String),
    Bad(String),
}

/// A running server whose output is checked line by line.
pub struct Session<C: Checker> {
    /// What is being tested, for messages: `qizero uci --seed 1`.
    pub label: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Read>,
    /// The grammar and its state.
    pub checker: C,
    /// Every line both ways, `> ` sent, `< ` received.
    transcript: Vec<String>,
    /// How many lines the server printed.
    pub printed: usize,
}

impl<C: Checker> Session<C> {
    /// Starts `program args...` with piped standard input and output (standard error is
    /// inherited: a warning there shows in the test log without breaking the protocol).
    ///
    /// # Panics
    /// If the program cannot be started.
    pub fn start(program: &Path, args: &[String], checker: C) -> Session<C> {
        let label = format!("qizero {}", args.join(" "));
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut raw = Vec::new();
            loop {
                raw.clear();
                let read = match reader.read_until(b'\n', &mut raw) {
                    Ok(0) => break,
                    Err(e) => Read::Bad(format!("read error: {e}")),
                    Ok(_) if raw.last() != Some(&b'\n') => {
                        Read::Bad(format!("last line without a newline: {:?}", String::from_utf8_lossy(&raw)))
                    }
                    Ok(_) => {
                        raw.pop();
                        match String::from_utf8(raw.clone()) {
                            Ok(text) => Read::Line(text),
                            Err(_) => Read::Bad(format!("invalid UTF-8: {:?}", String::from_utf8_lossy(&raw))),
                        }
                    }
                };
                if tx.send(read).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Session { label, child, stdin, lines, checker, transcript: Vec::new(), printed: 0 }
    }

    /// Sends one command.
    pub fn send(&mut self, command: &str) {
        self.checker.sent(command);
        self.transcript.push(format!("> {command}"));
        let stdin = self.stdin.as_mut().expect("stdin is open");
        if let Err(e) = writeln!(stdin, "{command}").and_then(|()| stdin.flush()) {
            self.fail(&format!("cannot write {command:?}: {e}"));
        }
    }

    /// Fails the test, quoting the end of the exchange.
    pub fn fail(&self, why: &str) -> ! {
        let from = self.transcript.len().saturating_sub(TAIL);
        panic!("{}: {why}\nlast lines exchanged:\n{}", self.label, self.transcript[from..].join("\n"));
    }

    /// Checks one printed line; fails the test on a non-conforming one.
    fn take(&mut self, read: Read) -> String {
        let line = match read {
            Read::Line(line) => line,
            Read::Bad(why) => self.fail(&format!("non-conforming output: {why}")),
        };
        self.transcript.push(format!("< {line}"));
        self.printed += 1;
        if let Err(why) = self.checker.check(&line) {
            self.fail(&format!("non-conforming line {line:?}: {why}"));
        }
        line
    }

    /// The lines up to and including the first that satisfies `done`, each checked; fails
    /// after [`PATIENCE`] or when the output ends first. `what` names the awaited line.
    pub fn until(&mut self, what: &str, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + PATIENCE;
        let mut seen = Vec::new();
        loop {
            match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(read) => {
                    let line = self.take(read);
                    let last = done(&line);
                    seen.push(line);
                    if last {
                        return seen;
                    }
                }
                Err(RecvTimeoutError::Timeout) => self.fail(&format!("no {what} within {PATIENCE:?}")),
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.exit_status();
                    self.fail(&format!("output ended before {what} ({status})"));
                }
            }
        }
    }

    /// How the server ended, waiting a moment for it (for messages).
    fn exit_status(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return format!("the server {status}"),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
                Ok(None) => return "the server closed its output but still runs".into(),
                Err(e) => return format!("cannot wait for the server: {e}"),
            }
        }
    }

    /// Whatever the server prints within `wait`, each line checked.
    pub fn idle(&mut self, wait: Duration) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut seen = Vec::new();
        while let Ok(read) = self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            seen.push(self.take(read));
        }
        seen
    }

    /// Sends `quit`, checks every line up to the end of the output, and requires a clean exit
    /// within [`PATIENCE`] with nothing owed.
    pub fn quit(mut self) {
        self.send("quit");
        let deadline = Instant::now() + PATIENCE;
        loop {
            match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(read) => {
                    self.take(read);
                }
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => self.fail("output still open after quit"),
            }
        }
        self.stdin = None;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) if status.success() => break,
                Ok(Some(status)) => self.fail(&format!("exited with {status} after quit")),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                Ok(None) => self.fail("still running after quit"),
                Err(e) => self.fail(&format!("cannot wait for the server: {e}")),
            }
        }
        if let Err(why) = self.checker.finish() {
            self.fail(&why);
        }
    }
}

impl<C: Checker> Drop for Session<C> {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs a recorded exchange (`> ` sent, `< ` received, one a line) through `checker`; `Err`
/// quotes the first non-conforming line with the lines before it. Returns the number of lines
/// the engine printed.
///
/// # Errors
/// A non-conforming line, a malformed transcript, or something owed at the end.
pub fn replay(checker: &mut dyn Checker, transcript: &str) -> Result<usize, String> {
    // Split at '\n' only: `str::lines` would also drop a '\r' the engine wrote.
    let lines: Vec<&str> = transcript.strip_suffix('\n').unwrap_or(transcript).split('\n').collect();
    let mut printed = 0;
    for (i, line) in lines.iter().enumerate() {
        let context = || lines[i.saturating_sub(TAIL)..=i].join("\n");
        let verdict = if let Some(command) = line.strip_prefix("> ") {
            checker.sent(command);
            Ok(())
        } else if let Some(out) = line.strip_prefix("< ") {
            printed += 1;
            checker.check(out).map_err(|why| format!("non-conforming line {out:?}: {why}"))
        } else {
            Err(format!("transcript line {} is neither sent nor received: {line:?}", i + 1))
        };
        verdict.map_err(|why| format!("{why}\nlast lines exchanged:\n{}", context()))?;
    }
    checker.finish()?;
    Ok(printed)
}
