//! [`Reporter`]: where the pipeline's processes tell the user what they do. The pipeline
//! decides what to say; the binary decides how it looks (progress bars on a terminal, plain
//! lines in a log), and tests stay quiet with [`Quiet`].

/// The user's view of a pipeline process.
pub trait Reporter: Sync {
    /// A line of news: what starts, what finished, a summary (standard output in the binary).
    fn say(&self, line: &str);

    /// A warning: something skipped or retried (standard error in the binary).
    fn warn(&self, line: &str);

    /// A piece of long work of `total` steps (`None`: open-ended) counted in `unit`
    /// (`games`, `steps`); dropping the handle ends it.
    fn progress(&self, total: Option<u64>, unit: &'static str) -> Box<dyn Progress + '_>;
}

/// One piece of long work being shown.
pub trait Progress: Send + Sync {
    /// Sets how far the work is.
    fn set_position(&self, position: u64);

    /// Advances by `n`.
    fn inc(&self, n: u64);

    /// Sets the text shown beside it (rates, scores).
    fn set_message(&self, message: &str);

    /// Prints a line above it, keeping it in view.
    fn say(&self, line: &str);
}

/// A count, short: `830`, `41.2k`, `5.12M`.
#[must_use]
pub fn count(n: f64) -> String {
    if n < 10_000.0 {
        format!("{n:.0}")
    } else if n < 10_000_000.0 {
        format!("{:.1}k", n / 1e3)
    } else {
        format!("{:.2}M", n / 1e6)
    }
}

/// A reporter that shows nothing (tests, library callers that report by themselves).
#[derive(Copy, Clone, Debug, Default)]
pub struct Quiet;

struct NoProgress;

impl Progress for NoProgress {
    fn set_position(&self, _: u64) {}
    fn inc(&self, _: u64) {}
    fn set_message(&self, _: &str) {}
    fn say(&self, _: &str) {}
}

impl Reporter for Quiet {
    fn say(&self, _: &str) {}
    fn warn(&self, _: &str) {}
    fn progress(&self, _: Option<u64>, _: &'static str) -> Box<dyn Progress + '_> {
        Box::new(NoProgress)
    }
}
