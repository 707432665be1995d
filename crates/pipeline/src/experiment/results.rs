//! The experiment's results: one Elo ladder ([`arena::ladder::rate`], `random` at 0, 95%
//! intervals as that module gives them) over the anchors and every rated checkpoint, a row per
//! checkpoint, and a summary per arm over its seeds. Written as `results.json` ([`Results`]),
//! `results.md` ([`markdown`]) and printed as text ([`text`]); `elo.png` is drawn from the same
//! rows ([`plot`]).
//!
//! The per-arm summary uses each run's final checkpoint: the mean Elo over the seeds, their
//! sample standard deviation (the spread between seeds, none with one seed) and range, and the
//! mean net evaluations and wall clock the runs used.

use super::ladder::{Anchor, Entrant, PairingLine, played, schedule};
use super::spec::{ANCHOR, Checkpoints, Plan};
use crate::error::PipelineError;
use crate::plots::{ExperimentPlot, TimePoint};
use crate::report::count;
use serde::{Deserialize, Serialize};

/// The version of `results.json` this build writes.
pub const RESULTS_VERSION: u32 = 1;

/// `results.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// The format version ([`RESULTS_VERSION`]).
    pub v: u32,
    /// The experiment's name.
    pub name: String,
    /// The game.
    pub game: String,
    /// Wall-clock minutes of each run.
    pub budget_minutes: f64,
    /// The seeds.
    pub seeds: Vec<u64>,
    /// The anchor at 0 Elo.
    pub anchor: String,
    /// Games per pairing.
    pub games: usize,
    /// Simulations per move of the rated checkpoints.
    pub simulations: u32,
    /// The root rule of the rated checkpoints' search.
    #[serde(default)]
    pub root: mcts::Root,
    /// Which checkpoints were rated.
    pub checkpoints: Checkpoints,
    /// The anchors, in order.
    pub anchors: Vec<Rated>,
    /// Every rated checkpoint, run by run in the plan's order, by step within a run.
    pub players: Vec<PlayerRow>,
    /// Each arm's summary, in the spec's order.
    pub arms: Vec<ArmSummary>,
    /// The pairings the ratings come from.
    pub pairings: Vec<PairingLine>,
}

/// A rating; `None` for a player without games yet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rated {
    /// The player.
    pub name: String,
    /// Elo relative to the anchor.
    pub elo: Option<f64>,
    /// Lower end of the 95% interval.
    pub lo: Option<f64>,
    /// Upper end of the 95% interval.
    pub hi: Option<f64>,
}

/// A checkpoint's result against one anchor, from the checkpoint's view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VsAnchor {
    /// The anchor.
    pub anchor: String,
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

/// One rated checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerRow {
    /// Its rating (`name` is `<run>/ckpt-<step>`).
    #[serde(flatten)]
    pub rating: Rated,
    /// The run.
    pub run: String,
    /// The arm.
    pub arm: String,
    /// The seed.
    pub seed: u64,
    /// The training step.
    pub step: u64,
    /// Whether it is the run's final checkpoint.
    pub last: bool,
    /// Wall-clock minutes from the run's start to this checkpoint.
    pub minutes: f64,
    /// The run's whole wall clock, minutes.
    pub run_minutes: f64,
    /// Self-play net evaluations by this checkpoint.
    pub evaluations: u64,
    /// Self-play positions by this checkpoint.
    pub positions: u64,
    /// Its results against each anchor it has played.
    pub vs: Vec<VsAnchor>,
}

/// One arm over its seeds (final checkpoints).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArmSummary {
    /// The arm.
    pub arm: String,
    /// Runs rated.
    pub seeds: usize,
    /// Mean Elo.
    pub mean_elo: Option<f64>,
    /// Sample standard deviation of the Elo over seeds (two seeds at least).
    pub sd_elo: Option<f64>,
    /// Lowest Elo.
    pub min_elo: Option<f64>,
    /// Highest Elo.
    pub max_elo: Option<f64>,
    /// Mean self-play net evaluations per run.
    pub mean_evaluations: Option<f64>,
    /// Mean wall-clock minutes per run.
    pub mean_minutes: Option<f64>,
}

/// Rates everyone from the log's `lines` (only those of the ladder's pairings with its
/// settings) and assembles the results.
///
/// # Errors
/// The ladder cannot be computed (a player cut off from `random`).
pub fn assemble(
    plan: &Plan,
    anchors: &[Anchor],
    entrants: &[Entrant],
    lines: &[PairingLine],
) -> Result<Results, PipelineError> {
    let ladder = &plan.spec.ladder;
    let used: Vec<PairingLine> =
        schedule(anchors, entrants, ladder).iter().filter_map(|s| played(s, lines, ladder).cloned()).collect();
    let pairings: Vec<arena::ladder::Pairing> = used.iter().map(PairingLine::pairing).collect();
    let names: Vec<String> = anchors
        .iter()
        .map(|a| a.name.clone())
        .chain(entrants.iter().map(|e| e.name.clone()))
        .filter(|n| n == ANCHOR || used.iter().any(|p| p.a == *n || p.b == *n))
        .collect();
    let ratings = arena::ladder::rate(&names, &pairings, ANCHOR)
        .map_err(|e| PipelineError::Match(format!("rating the experiment's ladder: {e}")))?;
    let rated = |name: &str| {
        let r = ratings.iter().find(|r| r.name == name);
        Rated { name: name.to_owned(), elo: r.map(|r| r.elo), lo: r.map(|r| r.lo), hi: r.map(|r| r.hi) }
    };
    let players: Vec<PlayerRow> = entrants
        .iter()
        .map(|e| PlayerRow {
            rating: rated(&e.name),
            run: e.run.clone(),
            arm: e.arm.clone(),
            seed: e.seed,
            step: e.at.step,
            last: e.last,
            minutes: e.at.seconds / 60.0,
            run_minutes: e.run_seconds / 60.0,
            evaluations: e.at.evaluations,
            positions: e.at.positions,
            vs: anchors
                .iter()
                .filter_map(|a| {
                    used.iter().find(|p| p.a == e.name && p.b == a.name).map(|p| VsAnchor {
                        anchor: a.name.clone(),
                        wins: p.wins,
                        draws: p.draws,
                        losses: p.losses,
                    })
                })
                .collect(),
        })
        .collect();
    let arms = plan.spec.arms.iter().map(|arm| summarise(&arm.name, &players)).collect();
    Ok(Results {
        v: RESULTS_VERSION,
        name: plan.spec.name.clone(),
        game: plan.game.as_str().to_owned(),
        budget_minutes: plan.spec.budget_minutes,
        seeds: plan.spec.seeds.clone(),
        anchor: ANCHOR.to_owned(),
        games: ladder.games,
        simulations: ladder.simulations,
        root: ladder.root,
        checkpoints: ladder.checkpoints,
        anchors: anchors.iter().map(|a| rated(&a.name)).collect(),
        players,
        arms,
        pairings: used,
    })
}

fn summarise(arm: &str, players: &[PlayerRow]) -> ArmSummary {
    let finals: Vec<&PlayerRow> = players.iter().filter(|p| p.arm == arm && p.last).collect();
    let elos: Vec<f64> = finals.iter().filter_map(|p| p.rating.elo).collect();
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    let mean_elo = mean(&elos);
    let sd_elo = mean_elo
        .filter(|_| elos.len() >= 2)
        .map(|m| (elos.iter().map(|e| (e - m).powi(2)).sum::<f64>() / (elos.len() - 1) as f64).sqrt());
    let evaluations: Vec<f64> = finals.iter().map(|p| p.evaluations as f64).collect();
    let minutes: Vec<f64> = finals.iter().map(|p| p.run_minutes).collect();
    ArmSummary {
        arm: arm.to_owned(),
        seeds: elos.len(),
        mean_elo,
        sd_elo,
        min_elo: elos.iter().copied().reduce(f64::min),
        max_elo: elos.iter().copied().reduce(f64::max),
        mean_evaluations: mean(&evaluations),
        mean_minutes: mean(&minutes),
    }
}

/// A table of text cells: the first `left` columns left-aligned, the rest right-aligned.
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    left: usize,
}

impl Table {
    fn markdown(&self) -> String {
        let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
        let rule: Vec<String> =
            (0..self.header.len()).map(|i| if i < self.left { "---".to_owned() } else { "---:".to_owned() }).collect();
        let mut out = line(&self.header) + &line(&rule);
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out
    }

    fn text(&self) -> String {
        let widths: Vec<usize> = (0..self.header.len())
            .map(|i| self.rows.iter().chain([&self.header]).map(|r| r[i].chars().count()).max().unwrap_or(0))
            .collect();
        let line = |cells: &[String]| {
            let padded: Vec<String> = cells
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(i, (c, &w))| if i < self.left { format!("{c:<w$}") } else { format!("{c:>w$}") })
                .collect();
            padded.join("  ").trim_end().to_owned() + "\n"
        };
        let mut out = line(&self.header);
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out
    }
}

fn elo(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_owned(), |v| format!("{v:.0}"))
}

fn interval(r: &Rated) -> String {
    match (r.lo, r.hi) {
        (Some(lo), Some(hi)) => format!("[{lo:.0}, {hi:.0}]"),
        _ => "-".to_owned(),
    }
}

fn players_table(r: &Results) -> Table {
    let mut header: Vec<String> =
        ["arm", "seed", "checkpoint", "Elo", "95% interval"].iter().map(|s| (*s).to_owned()).collect();
    header.extend(r.anchors.iter().map(|a| format!("vs {}", a.name)));
    header.extend(["evaluations", "minutes", "run minutes"].iter().map(|s| (*s).to_owned()));
    let rows = r
        .players
        .iter()
        .map(|p| {
            let mut row = vec![
                p.arm.clone(),
                p.seed.to_string(),
                format!("ckpt-{}{}", p.step, if p.last && r.checkpoints == Checkpoints::All { " (last)" } else { "" }),
                elo(p.rating.elo),
                interval(&p.rating),
            ];
            row.extend(r.anchors.iter().map(|a| {
                p.vs.iter()
                    .find(|v| v.anchor == a.name)
                    .map_or_else(|| "-".to_owned(), |v| format!("{}-{}-{}", v.wins, v.draws, v.losses))
            }));
            row.extend([count(p.evaluations as f64), format!("{:.2}", p.minutes), format!("{:.2}", p.run_minutes)]);
            row
        })
        .collect();
    Table { header, rows, left: 3 }
}

fn arms_table(r: &Results) -> Table {
    let header = ["arm", "seeds", "mean Elo", "sd", "min", "max", "mean evaluations", "mean minutes"]
        .map(str::to_owned)
        .to_vec();
    let rows = r
        .arms
        .iter()
        .map(|a| {
            vec![
                a.arm.clone(),
                a.seeds.to_string(),
                elo(a.mean_elo),
                elo(a.sd_elo),
                elo(a.min_elo),
                elo(a.max_elo),
                a.mean_evaluations.map_or_else(|| "-".to_owned(), count),
                a.mean_minutes.map_or_else(|| "-".to_owned(), |m| format!("{m:.2}")),
            ]
        })
        .collect();
    Table { header, rows, left: 1 }
}

fn anchors_table(r: &Results) -> Table {
    let header = ["anchor", "Elo", "95% interval"].map(str::to_owned).to_vec();
    let rows = r.anchors.iter().map(|a| vec![a.name.clone(), elo(a.elo), interval(a)]).collect();
    Table { header, rows, left: 1 }
}

fn intro(r: &Results) -> String {
    let which = match r.checkpoints {
        Checkpoints::Last => "each run's final checkpoint",
        Checkpoints::All => "every generation checkpoint",
    };
    let root = match r.root {
        mcts::Root::Puct => "",
        mcts::Root::Gumbel => " (a Gumbel root without its draws)",
    };
    format!(
        "{} runs of {} wall-clock minutes each (seeds {:?}); {which} rated on one ladder, {} games per pairing \
         at {} simulations per move{root}; Elo relative to {} = 0, 95% intervals.",
        r.game, r.budget_minutes, r.seeds, r.games, r.simulations, r.anchor
    )
}

/// `results.md`.
#[must_use]
pub fn markdown(r: &Results) -> String {
    format!(
        "# Experiment {}\n\n{}\n\n## Arms (final checkpoints, over seeds)\n\n{}\n## Checkpoints\n\n{}\n## Anchors\n\n{}",
        r.name,
        intro(r),
        arms_table(r).markdown(),
        players_table(r).markdown(),
        anchors_table(r).markdown()
    )
}

/// The results as the terminal shows them.
#[must_use]
pub fn text(r: &Results) -> String {
    format!(
        "experiment {}: {}\n\n{}\n{}\n{}",
        r.name,
        intro(r),
        players_table(r).text(),
        anchors_table(r).text(),
        arms_table(r).text()
    )
}

/// The Elo-against-time plot of the results.
#[must_use]
pub fn plot(r: &Results) -> ExperimentPlot {
    let arms: Vec<String> = r.arms.iter().map(|a| a.arm.clone()).collect();
    let points = r
        .players
        .iter()
        .filter_map(|p| {
            let (elo, lo, hi) = (p.rating.elo?, p.rating.lo?, p.rating.hi?);
            let arm = arms.iter().position(|a| *a == p.arm)?;
            Some(TimePoint { arm, seed: p.seed, minutes: p.minutes, elo, lo, hi })
        })
        .collect();
    ExperimentPlot {
        title: format!("{}: Elo against wall-clock time ({} = 0)", r.name, r.anchor),
        arms,
        points,
        anchors: r.anchors.iter().filter_map(|a| a.elo.map(|e| (a.name.clone(), e))).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GameName;
    use crate::experiment::ladder::anchors;
    use crate::experiment::ladder::tests::{entrant, line};
    use crate::experiment::spec::{Arm, LadderSpec, Spec};

    fn plan() -> Plan {
        let arm = |name: &str| Arm { name: name.into(), config: "unused.toml".into(), set: vec![] };
        Plan {
            spec: Spec {
                name: "hand".into(),
                budget_minutes: 8.0,
                seeds: vec![1, 2],
                ladder: LadderSpec { games: 20, ..LadderSpec::default() },
                arms: vec![arm("puct"), arm("gumbel")],
            },
            game: GameName::Xiangqi,
            runs: vec![],
        }
    }

    fn hand_made() -> Results {
        let plan = plan();
        let anchors = anchors(&plan.spec.ladder).expect("anchors");
        let entrants = [
            entrant("puct-s1", "puct", 1, 300, true),
            entrant("gumbel-s1", "gumbel", 1, 300, true),
            entrant("puct-s2", "puct", 2, 300, true),
            entrant("gumbel-s2", "gumbel", 2, 300, true),
        ];
        let id = "300-abcdef012345.safetensors";
        let ab = "alphabeta:depth=1";
        let mut lines = vec![
            line("random", "random", ab, 1, 2, 17),
            line("puct-s1/ckpt-300", id, "random", 14, 4, 2),
            line("puct-s1/ckpt-300", id, ab, 6, 4, 10),
            line("gumbel-s1/ckpt-300", id, "random", 18, 2, 0),
            line("gumbel-s1/ckpt-300", id, ab, 12, 4, 4),
            line("puct-s2/ckpt-300", id, "random", 12, 6, 2),
            line("puct-s2/ckpt-300", id, ab, 5, 5, 10),
            line("gumbel-s2/ckpt-300", id, "random", 17, 3, 0),
            line("gumbel-s2/ckpt-300", id, ab, 10, 6, 4),
        ];
        // A line of another ladder (other games) is not used.
        let mut stale = line("puct-s1/ckpt-300", id, "random", 0, 0, 40);
        stale.games = 40;
        lines.insert(1, stale);
        assemble(&plan, &anchors, &entrants, &lines).expect("assembles")
    }

    #[test]
    fn ratings_rows_and_arm_summaries_from_hand_made_pairings() {
        let r = hand_made();
        assert_eq!(r.pairings.len(), 9, "the stale line is left out");
        assert_eq!(r.anchors[0], Rated { name: "random".into(), elo: Some(0.0), lo: Some(0.0), hi: Some(0.0) });
        let ab = r.anchors[1].elo.expect("alpha-beta is rated");
        assert!(ab > 200.0, "alpha-beta scored 10% against random: {ab}");
        let elo = |run: &str| r.players.iter().find(|p| p.run == run).and_then(|p| p.rating.elo).expect("rated");
        assert!(elo("gumbel-s1") > elo("puct-s1") && elo("gumbel-s2") > elo("puct-s2"));
        let p = &r.players[0];
        assert_eq!((p.run.as_str(), p.step, p.last, p.evaluations), ("puct-s1", 300, true, 300_000));
        assert_eq!(
            p.vs,
            [
                VsAnchor { anchor: "random".into(), wins: 14, draws: 4, losses: 2 },
                VsAnchor { anchor: "alphabeta:depth=1".into(), wins: 6, draws: 4, losses: 10 },
            ]
        );
        assert!((p.minutes - 3.0).abs() < 1e-9 && (p.run_minutes - 8.0).abs() < 1e-9);
        let puct = &r.arms[0];
        assert_eq!((puct.arm.as_str(), puct.seeds), ("puct", 2));
        let (e1, e2) = (elo("puct-s1"), elo("puct-s2"));
        assert!((puct.mean_elo.expect("mean") - (e1 + e2) / 2.0).abs() < 1e-9);
        assert!((puct.sd_elo.expect("sd") - (e1 - e2).abs() / 2f64.sqrt()).abs() < 1e-9);
        assert_eq!((puct.min_elo, puct.max_elo), (Some(e1.min(e2)), Some(e1.max(e2))));
        assert_eq!(r.arms[1].arm, "gumbel");
        assert!(r.arms[1].mean_elo > puct.mean_elo);

        let md = markdown(&r);
        assert!(md.starts_with("# Experiment hand\n"), "{md}");
        assert!(md.contains("| puct | 1 | ckpt-300 |") && md.contains("| 14-4-2 | 6-4-10 |"), "{md}");
        assert!(md.contains("| gumbel | 2 |"), "{md}");
        let t = text(&r);
        assert!(t.contains("vs alphabeta:depth=1") && t.contains("mean Elo"), "{t}");
        let json: Results = serde_json::from_str(&serde_json::to_string(&r).expect("json")).expect("reads back");
        assert_eq!(json, r);
        let p = plot(&r);
        assert_eq!((p.points.len(), p.anchors.len(), p.arms.len()), (4, 2, 2));
    }

    #[test]
    fn players_without_games_are_listed_unrated() {
        let plan = plan();
        let anchors = anchors(&plan.spec.ladder).expect("anchors");
        let entrants = [entrant("puct-s1", "puct", 1, 300, true)];
        let r = assemble(&plan, &anchors, &entrants, &[]).expect("nothing played yet");
        assert_eq!(r.players[0].rating.elo, None);
        assert_eq!(r.anchors[1].elo, None);
        assert_eq!(r.arms[0].seeds, 0);
        assert!(text(&r).contains("puct"));
    }
}
