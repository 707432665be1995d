//! How the pipeline's reports look on a terminal: [`Terminal`] implements
//! [`pipeline::Reporter`] with indicatif progress bars (hidden when standard error is not a
//! terminal), news on standard output and warnings on standard error.

use indicatif::{ProgressBar, ProgressStyle};
use pipeline::{Progress, Reporter};

/// The terminal reporter.
#[derive(Copy, Clone, Debug, Default)]
pub struct Terminal;

/// A progress bar of `total` steps (a spinner-less counter when open-ended) counted in `unit`.
pub fn bar(total: Option<u64>, unit: &str) -> ProgressBar {
    let (bar, template) = match total {
        Some(n) => (ProgressBar::new(n), format!("{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {unit}  {{msg}}")),
        None => (ProgressBar::no_length(), format!("{{elapsed_precise}} {{pos}} {unit}  {{msg}}")),
    };
    bar.set_style(
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> "),
    );
    bar
}

struct Bar(ProgressBar);

impl Progress for Bar {
    fn set_position(&self, position: u64) {
        self.0.set_position(position);
    }
    fn inc(&self, n: u64) {
        self.0.inc(n);
    }
    fn set_message(&self, message: &str) {
        self.0.set_message(message.to_owned());
    }
    /// Unlike `ProgressBar::println`, also prints when the bar is hidden (standard error not a
    /// terminal), so the line reaches logs.
    fn say(&self, line: &str) {
        self.0.suspend(|| eprintln!("{line}"));
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

impl Reporter for Terminal {
    fn say(&self, line: &str) {
        println!("{line}");
    }
    fn warn(&self, line: &str) {
        eprintln!("{line}");
    }
    fn progress(&self, total: Option<u64>, unit: &'static str) -> Box<dyn Progress + '_> {
        Box::new(Bar(bar(total, unit)))
    }
}

/// Lease options for this process: this host, and the cluster job running it (Slurm's
/// `SLURM_JOB_ID`), if any.
pub fn lease_options() -> pipeline::lease::LeaseOptions {
    let mut options = pipeline::lease::LeaseOptions::on(&pipeline::lease::host_name());
    options.job = std::env::var("SLURM_JOB_ID").ok().filter(|j| !j.is_empty());
    options
}
