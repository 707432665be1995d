//! What the two engine protocols share: the line loop over standard input and output, and the
//! contract of an engine front-end.
//!
//! A front-end ([`Frontend`]) is a state machine fed one input line at a time. It answers
//! synchronous commands (`isready`, `ping`, bad input) with the lines [`Frontend::handle`]
//! returns; the search thread writes its own lines (`info`, `bestmove`, `done`) through the
//! shared [`Output`]. The loop here only moves lines, so unit tests drive the state machines
//! directly, without processes.

use rand::SeedableRng;
use rand::rngs::StdRng;
use std::io::{BufRead, Read, Write};
use std::sync::Arc;

/// Where protocol lines go: standard output in the binary, a buffer in tests. Called from the
/// protocol loop and from the search thread; each call writes one whole line.
pub type Output = Arc<dyn Fn(&str) + Send + Sync>;

/// Longest input line read; longer ones are skipped whole with an error (a 600-move game
/// fits in a few kilobytes).
pub const MAX_LINE: usize = 1 << 20;

/// An engine protocol front-end.
pub trait Frontend {
    /// Handles one input line (without its line ending) and returns the lines to answer at
    /// once. Never panics, whatever the line holds.
    fn handle(&mut self, line: &str) -> Vec<String>;

    /// True once the front-end has been told to quit.
    fn quit_requested(&self) -> bool;

    /// The line to write for an input line that could not be read (too long).
    fn error_line(&self, message: &str) -> String;

    /// Ends any search (input closed: the GUI is gone).
    fn shutdown(&mut self);
}

/// An [`Output`] writing each line to standard output and flushing it. Write errors are
/// ignored: a GUI that closed our output has gone, and the closed input ends the loop.
#[must_use]
pub fn stdout() -> Output {
    Arc::new(|line: &str| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    })
}

/// Feeds standard input to `engine` line by line until it quits or the input closes.
///
/// # Errors
/// A read error on standard input (after shutting the engine down).
pub fn serve(engine: &mut impl Frontend, out: &Output) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    serve_from(engine, out, &mut stdin.lock())
}

/// [`serve`] over any reader.
///
/// # Errors
/// A read error from `input` (after shutting the engine down).
pub fn serve_from(engine: &mut impl Frontend, out: &Output, input: &mut impl BufRead) -> std::io::Result<()> {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let read = Read::take(&mut *input, MAX_LINE as u64 + 1).read_until(b'\n', &mut buf);
        let n = match read {
            Ok(n) => n,
            Err(e) => {
                engine.shutdown();
                return Err(e);
            }
        };
        if n == 0 {
            engine.shutdown();
            return Ok(());
        }
        if buf.len() > MAX_LINE && buf.last() != Some(&b'\n') {
            if let Err(e) = input.skip_until(b'\n') {
                engine.shutdown();
                return Err(e);
            }
            out(&engine.error_line(&format!("input line longer than {MAX_LINE} bytes skipped")));
            continue;
        }
        // Bytes that are not UTF-8 become U+FFFD: such a line is then an unknown command or a
        // bad move, reported as such, never a reason to stop.
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim_end_matches(['\n', '\r']);
        for answer in engine.handle(line) {
            out(&answer);
        }
        if engine.quit_requested() {
            return Ok(());
        }
    }
}

/// The random source for choosing among book moves: seeded for reproducible games, else from
/// the system.
#[must_use]
pub fn book_rng(seed: Option<u64>) -> StdRng {
    match seed {
        Some(seed) => StdRng::seed_from_u64(seed),
        None => StdRng::from_os_rng(),
    }
}

/// A collecting [`Output`] for tests: every line written, in order.
#[must_use]
pub fn collector() -> (Output, Arc<std::sync::Mutex<Vec<String>>>) {
    let lines = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Arc::clone(&lines);
    let out: Output = Arc::new(move |l: &str| {
        if let Ok(mut v) = sink.lock() {
            v.push(l.to_string());
        }
    });
    (out, lines)
}

/// `text` fit for quoting in an error line: at most 60 characters, control characters and
/// quotes escaped the way Rust's `{:?}` writes them.
#[must_use]
pub fn quoted(text: &str) -> String {
    const MAX: usize = 60;
    let mut t: String = text.chars().take(MAX).collect();
    if text.chars().nth(MAX).is_some() {
        t.push_str("...");
    }
    format!("{t:?}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Echoes every line; quits on "quit".
    struct Echo {
        quit: bool,
        shut: bool,
    }

    impl Frontend for Echo {
        fn handle(&mut self, line: &str) -> Vec<String> {
            self.quit = line == "quit";
            vec![format!("<{line}>")]
        }
        fn quit_requested(&self) -> bool {
            self.quit
        }
        fn error_line(&self, message: &str) -> String {
            format!("error {message}")
        }
        fn shutdown(&mut self) {
            self.shut = true;
        }
    }

    fn run(input: &[u8]) -> (Vec<String>, bool) {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&lines);
        let out: Output = Arc::new(move |l: &str| sink.lock().map(|mut v| v.push(l.to_string())).unwrap_or(()));
        let mut engine = Echo { quit: false, shut: false };
        assert!(serve_from(&mut engine, &out, &mut &input[..]).is_ok());
        let got = lines.lock().map(|v| v.clone()).unwrap_or_default();
        (got, engine.shut)
    }

    #[test]
    fn lines_endings_and_bad_bytes() {
        let (lines, shut) = run(b"a\r\n\nb \xff\nlast");
        assert_eq!(lines, ["<a>", "<>", "<b \u{fffd}>", "<last>"]);
        assert!(shut, "end of input shuts the engine down");
    }

    #[test]
    fn quit_ends_the_loop() {
        let (lines, shut) = run(b"quit\nnever\n");
        assert_eq!(lines, ["<quit>"]);
        assert!(!shut);
    }

    #[test]
    fn overlong_line_is_skipped() {
        let mut input = vec![b'x'; MAX_LINE + 10];
        input.extend_from_slice(b"\nafter\n");
        let (lines, _) = run(&input);
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("error input line longer"));
        assert_eq!(lines[1], "<after>");
    }

    #[test]
    fn quoting() {
        assert_eq!(quoted("a\"b\u{1}"), "\"a\\\"b\\u{1}\"");
        assert!(quoted(&"y".repeat(100)).ends_with("...\""));
    }
}
