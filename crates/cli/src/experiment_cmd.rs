//! `qizero experiment`: arms compared at an equal wall-clock budget on one Elo ladder, as
//! `pipeline::experiment` runs it. This module reads the arguments and dispatches on the game.

use anyhow::Result;
use clap::Args;
use pipeline::GameName;
use pipeline::experiment::{self, ExperimentDir, Options};
use std::path::PathBuf;

use crate::ui::{Terminal, lease_options};

/// Arguments of `qizero experiment`.
#[derive(Args)]
pub struct ExperimentArgs {
    /// The experiment spec (TOML): name, budget_minutes, seeds, a [ladder] table and one
    /// [[arm]] table per configuration (name, config preset, set = ["key=value", ...]); see
    /// experiments/*.toml. Paths in it are relative to the current directory.
    #[arg(long, value_name = "FILE")]
    spec: PathBuf,
    /// The experiment directory: runs/<arm>-s<seed>/ (run directories), ladder/pairings.jsonl,
    /// results.md, results.json, elo.png. Made if missing; an existing one is resumed.
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    /// Train nothing: rate the runs that are done (runs not done are neither started nor
    /// removed), e.g. to add checkpoints to the ladder while other runs wait.
    #[arg(long)]
    only_ladder: bool,
    /// Minutes of wall clock per run instead of the spec's budget_minutes (a quick smoke test).
    /// Part of every run's config: done runs made with another budget are refused, so use a new
    /// directory.
    #[arg(long, value_name = "MINUTES")]
    budget: Option<f64>,
}

/// `qizero experiment`.
pub fn run(args: &ExperimentArgs) -> Result<()> {
    let spec = experiment::Spec::load(&args.spec)?;
    let plan = experiment::plan(spec, args.budget)?;
    let dir = ExperimentDir::new(&args.dir);
    let stop = crate::signals::stop_flag(
        "stopping: the run in progress is dropped (it is trained again from scratch next time: every run gets \
         one uninterrupted budget), the ladder drops the pairing in progress; run the same command to go on",
    )?;
    let options = Options { only_ladder: args.only_ladder };
    let lease = lease_options();
    let results = match plan.game {
        GameName::Xiangqi => experiment::run::<xiangqi::Game>(&dir, &plan, &options, &lease, &stop, &Terminal)?,
        GameName::Draughts => experiment::run::<draughts::Game>(&dir, &plan, &options, &lease, &stop, &Terminal)?,
    };
    if results.is_none() {
        println!("experiment: stopped; run the same command to go on");
    }
    Ok(())
}
