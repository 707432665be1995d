//! Plots of a run directory, as PNG files in `<run>/plots/`:
//!
//! - `losses.png`: policy, value and total loss against the training step (`train` lines of
//!   `metrics.jsonl`);
//! - `throughput.png`: self-play positions per second (one point per `selfplay` line, that is per
//!   shard) and trainer samples per second, against minutes since the first line of
//!   `metrics.jsonl`, one panel each;
//! - `elo.png`: each checkpoint's Elo against its training step with its 95% interval, and the
//!   baselines as labelled horizontal lines (`arena/ratings.json`, [`arena::ladder::RatingsFile`]).
//!
//! and, for `qizero experiment`, the experiment's `elo.png` ([`write_experiment_elo`]): Elo
//! against wall-clock minutes, one colour per arm, one line per seed, error bars, the anchors as
//! labelled horizontal lines.
//!
//! A plot whose data is absent is skipped. Lines of `metrics.jsonl` that do not parse (a line cut
//! short by a crash, a stray edit) are skipped and counted; events other than `train` and
//! `selfplay` are ignored. Each PNG is drawn in memory and written with [`durable::write_atomic`],
//! so a reader (a browser refreshing the file) never sees half a picture.
//!
//! # Text without system fonts
//! plotters' default `ttf` feature finds fonts through fontconfig, which a fresh Debian machine
//! (or a container) may not have, and then every title and tick label is silently missing.
//! Instead plotters' `ab_glyph` feature draws text from font bytes registered at run time, and the
//! bytes come compiled in from `epaint_default_fonts`: egui's font crate on crates.io, kept up by
//! the egui maintainers, which ships Ubuntu (Ubuntu Font Licence) and Hack (MIT/Bitstream Vera)
//! as plain `&[u8]` constants. Only the constant used ends up in the binary (about 350 KiB). It is
//! registered as `sans-serif`, the family plotters itself asks for by default.

use crate::error::PipelineError;
use crate::metrics::MetricsEvent;
use crate::report::Reporter;
use crate::run_dir::RunDir;
use arena::ladder::{RatedPlayer, RatingsFile};
use image::ImageEncoder;
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The family every text style asks for: the one font registered.
const FONT: &str = "sans-serif";

/// Pixel size of every plot.
const SIZE: (u32, u32) = (1200, 700);

/// Text sizes, in pixels.
const TITLE: u32 = 30;
const AXIS: u32 = 20;
const LABEL: u32 = 17;

/// Largest ratings file read.
const MAX_RATINGS_BYTES: u64 = 1 << 26;

/// Why a plot could not be drawn: any drawing or encoding error, as text.
#[derive(Debug)]
struct PlotError(String);

impl<E: std::error::Error> From<E> for PlotError {
    fn from(e: E) -> PlotError {
        PlotError(e.to_string())
    }
}

type Result<T> = std::result::Result<T, PlotError>;

/// Writes `<run>/plots/losses.png`, `elo.png` and `throughput.png` from the run's metrics and
/// ratings, and returns the files written. A plot whose data is absent is skipped; unreadable
/// lines of `metrics.jsonl` are skipped and their count reported as a warning, as is a
/// `ratings.json` that does not parse (then `elo.png` is skipped). Each file is written with
/// [`durable::write_atomic`].
///
/// # Errors
/// A file exists but cannot be read, `plots/` cannot be created, or a PNG cannot be drawn or
/// written.
pub fn write_all(run: &RunDir, reporter: &dyn Reporter) -> std::result::Result<Vec<PathBuf>, PipelineError> {
    register_embedded_font().map_err(|e| PipelineError::Plot(e.0))?;
    let metrics_path = run.metrics();
    let metrics = read_metrics(&metrics_path)?;
    if metrics.skipped > 0 {
        reporter.warn(&format!("plots: skipped {} unreadable line(s) of {}", metrics.skipped, metrics_path.display()));
    }
    let ratings_path = run.ratings();
    let ratings = match read_ratings(&ratings_path) {
        Ok(ratings) => ratings,
        Err(e) => {
            reporter.warn(&format!("plots: no elo.png: {e}"));
            None
        }
    };

    let dir = run.plots();
    let mut written = Vec::new();
    let mut png = |name: &str, draw: &dyn Fn(&Area<'_>) -> Result<()>| -> std::result::Result<(), PipelineError> {
        written.push(write_png(&dir, name, draw)?);
        Ok(())
    };
    if !metrics.train.is_empty() {
        png("losses.png", &|area| draw_losses(area, &metrics.train))?;
    }
    if let Some(ratings) = ratings.filter(|r| r.players.iter().any(is_plotted_checkpoint)) {
        png("elo.png", &|area| draw_elo(area, &ratings))?;
    }
    if metrics.train.iter().any(|t| t.samples_per_s.is_some()) || !metrics.selfplay.is_empty() {
        png("throughput.png", &|area| draw_throughput(area, &metrics))?;
    }
    Ok(written)
}

/// Registers the compiled-in font under [`FONT`], once per process.
fn register_embedded_font() -> Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok =
        *REGISTERED.get_or_init(|| register_font(FONT, FontStyle::Normal, epaint_default_fonts::UBUNTU_LIGHT).is_ok());
    if !ok {
        return Err(PlotError("the font compiled into qizero does not parse".into()));
    }
    Ok(())
}

/// A `train` line.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainPoint {
    /// Minutes since the first line of the file, if the line has a time.
    pub minutes: Option<f64>,
    /// The training step.
    pub step: f64,
    /// Policy (cross-entropy) loss.
    pub policy_loss: Option<f64>,
    /// Value loss.
    pub value_loss: Option<f64>,
    /// Total loss.
    pub total_loss: Option<f64>,
    /// Trainer throughput.
    pub samples_per_s: Option<f64>,
}

/// A `selfplay` line (one shard).
#[derive(Clone, Debug, PartialEq)]
pub struct SelfplayPoint {
    /// Minutes since the first line of the file.
    pub minutes: f64,
    /// Positions per second while the shard was played.
    pub positions_per_s: f64,
}

/// What `metrics.jsonl` holds for the plots.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metrics {
    /// `train` lines with a step, in file order.
    pub train: Vec<TrainPoint>,
    /// `selfplay` lines with a time and a rate, in file order.
    pub selfplay: Vec<SelfplayPoint>,
    /// Non-empty lines that are not a JSON object with an `event` string.
    pub skipped: usize,
}

/// Reads the plotted points of `metrics.jsonl` ([`crate::metrics::read`]); a missing file is
/// empty metrics. Non-finite numbers count as absent.
///
/// # Errors
/// The file exists but cannot be read.
pub fn read_metrics(path: &Path) -> std::result::Result<Metrics, PipelineError> {
    let read = crate::metrics::read(path)?;
    let mut metrics = Metrics { skipped: read.skipped, ..Metrics::default() };
    let start_ms = read.lines.iter().map(|l| l.time_ms).find(|&t| t > 0);
    for line in &read.lines {
        let minutes = start_ms.filter(|_| line.time_ms > 0).map(|t0| (line.time_ms as f64 - t0 as f64) / 60_000.0);
        match &line.event {
            MetricsEvent::Train(t) => metrics.train.push(TrainPoint {
                minutes,
                step: t.step as f64,
                policy_loss: finite(Some(t.policy_loss)),
                value_loss: finite(Some(t.value_loss)),
                total_loss: finite(Some(t.total_loss)),
                samples_per_s: finite(Some(t.samples_per_s)).filter(|&r| r > 0.0),
            }),
            MetricsEvent::Selfplay(sp) => {
                if let (Some(minutes), Some(positions_per_s)) = (minutes, finite(Some(sp.positions_per_s))) {
                    metrics.selfplay.push(SelfplayPoint { minutes, positions_per_s });
                }
            }
            _ => {}
        }
    }
    Ok(metrics)
}

fn finite(x: Option<f64>) -> Option<f64> {
    x.filter(|v| v.is_finite())
}

/// Reads `arena/ratings.json`; a missing file is `None`.
///
/// # Errors
/// The file exists but cannot be read or is not a [`RatingsFile`].
pub fn read_ratings(path: &Path) -> std::result::Result<Option<RatingsFile>, PipelineError> {
    match durable::read_bounded(path, MAX_RATINGS_BYTES) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| PipelineError::Format { path: path.to_path_buf(), message: e.to_string() }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// A checkpoint the Elo plot can place: it has a step and finite numbers.
fn is_plotted_checkpoint(p: &RatedPlayer) -> bool {
    p.kind == "checkpoint" && p.step.is_some() && [p.elo, p.lo, p.hi].iter().all(|v| v.is_finite())
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// Draws one PNG in memory and writes it to `dir/<name>` with [`durable::write_atomic`].
fn write_png(
    dir: &Path,
    name: &str,
    draw: &dyn Fn(&Area<'_>) -> Result<()>,
) -> std::result::Result<PathBuf, PipelineError> {
    std::fs::create_dir_all(dir).map_err(|e| PipelineError::file("creating", dir, e))?;
    let path = dir.join(name);
    let (w, h) = SIZE;
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    let drawn = (|| -> Result<()> {
        let area = BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area();
        area.fill(&WHITE)?;
        draw(&area)?;
        area.present()?;
        Ok(())
    })();
    drawn.map_err(|e| PipelineError::Plot(format!("drawing {}: {}", path.display(), e.0)))?;
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(&rgb, w, h, image::ColorType::Rgb8)
        .map_err(|e| PipelineError::Plot(format!("encoding {}: {e}", path.display())))?;
    durable::write_atomic(&path, &png)?;
    Ok(path)
}

/// `lo..hi` of the values with 5% room each side (a single value gets +/- 1 or 10% of itself);
/// `None` when there are no values.
fn padded_range(values: impl IntoIterator<Item = f64>) -> Option<Range<f64>> {
    let (lo, hi) = values
        .into_iter()
        .fold(None, |acc: Option<(f64, f64)>, v| Some(acc.map_or((v, v), |(a, b)| (a.min(v), b.max(v)))))?;
    let pad = if hi > lo { 0.05 * (hi - lo) } else { (0.1 * lo.abs()).max(1.0) };
    Some(lo - pad..hi + pad)
}

/// A range from 0 (or below, for negative values) to 5% past the largest value, at least 1 wide:
/// for rates and elapsed times, where the origin is worth seeing.
fn from_zero(values: impl IntoIterator<Item = f64>) -> Range<f64> {
    let (lo, hi) = values.into_iter().fold((0.0_f64, 0.0_f64), |(a, b), v| (a.min(v), b.max(v)));
    lo..(hi + 0.05 * (hi - lo)).max(lo + 1.0)
}

fn legend_line(color: RGBColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(3))
}

/// The chart every plot draws on: steps or minutes across, a quantity up.
type Chart<'a, 'b> = ChartContext<'a, BitMapBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

fn draw_legend<'a, 'b: 'a>(chart: &mut Chart<'a, 'b>, position: SeriesLabelPosition) -> Result<()> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font((FONT, LABEL))
        .draw()?;
    Ok(())
}

/// Grid, axes, tick labels (see [`tick`]) and axis titles.
fn draw_mesh<'a, 'b: 'a>(chart: &mut Chart<'a, 'b>, x_desc: &str, y_desc: &str) -> Result<()> {
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .label_style((FONT, LABEL))
        .axis_desc_style((FONT, AXIS))
        .draw()?;
    Ok(())
}

/// A tick label: at most three decimals and no trailing zeros (`200`, not `200.0`).
fn tick(v: &f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".to_string() } else { s.to_string() }
}

fn draw_losses(area: &Area<'_>, train: &[TrainPoint]) -> Result<()> {
    type Pick = fn(&TrainPoint) -> Option<f64>;
    let series: [(&str, RGBColor, Pick); 3] = [
        ("policy loss", BLUE, |t| t.policy_loss),
        ("value loss", RED, |t| t.value_loss),
        ("total loss", BLACK, |t| t.total_loss),
    ];
    let mut sorted: Vec<&TrainPoint> = train.iter().collect();
    sorted.sort_by(|a, b| a.step.total_cmp(&b.step));
    let x = padded_range(sorted.iter().map(|t| t.step)).unwrap_or(0.0..1.0);
    let y = padded_range(sorted.iter().flat_map(|t| series.iter().filter_map(move |(_, _, pick)| pick(t))))
        .map_or(0.0..1.0, |r| r.start.min(0.0)..r.end);
    let mut chart = ChartBuilder::on(area)
        .caption("Training losses", (FONT, TITLE))
        .margin(20)
        .x_label_area_size(55)
        .y_label_area_size(75)
        .build_cartesian_2d(x, y)?;
    draw_mesh(&mut chart, "training step", "loss")?;
    for (name, color, pick) in series {
        let points: Vec<(f64, f64)> = sorted.iter().filter_map(|t| pick(t).map(|v| (t.step, v))).collect();
        if points.is_empty() {
            continue;
        }
        chart.draw_series(LineSeries::new(points, color.stroke_width(2)))?.label(name).legend(legend_line(color));
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight)
}

/// One panel of `throughput.png`.
struct Panel<'a> {
    title: &'static str,
    unit: &'static str,
    legend: &'static str,
    points: &'a [(f64, f64)],
    color: RGBColor,
    /// Points only: several self-play workers interleave their shards, so a line through them
    /// would zigzag between workers.
    scatter: bool,
}

fn draw_throughput(area: &Area<'_>, metrics: &Metrics) -> Result<()> {
    let selfplay: Vec<(f64, f64)> = metrics.selfplay.iter().map(|s| (s.minutes, s.positions_per_s)).collect();
    let trainer: Vec<(f64, f64)> = metrics.train.iter().filter_map(|t| t.minutes.zip(t.samples_per_s)).collect();
    // Both panels share the time axis, so they line up.
    let x = from_zero(selfplay.iter().chain(&trainer).map(|p| p.0));
    let panels: Vec<Panel<'_>> = [
        Panel {
            title: "Self-play throughput",
            unit: "positions / s",
            legend: "one worker, per shard",
            points: &selfplay,
            color: BLUE,
            scatter: true,
        },
        Panel {
            title: "Training throughput",
            unit: "samples / s",
            legend: "trainer",
            points: &trainer,
            color: RED,
            scatter: false,
        },
    ]
    .into_iter()
    .filter(|p| !p.points.is_empty())
    .collect();
    let areas = area.split_evenly((panels.len().max(1), 1));
    for (panel, area) in panels.iter().zip(&areas) {
        let y = from_zero(panel.points.iter().map(|p| p.1));
        let mut chart = ChartBuilder::on(area)
            .caption(panel.title, (FONT, TITLE))
            .margin(20)
            .x_label_area_size(55)
            .y_label_area_size(85)
            .build_cartesian_2d(x.clone(), y)?;
        draw_mesh(&mut chart, "minutes since the run's first metrics line", panel.unit)?;
        let color = panel.color;
        if panel.scatter {
            chart
                .draw_series(panel.points.iter().map(|&p| Circle::new(p, 3, color.filled())))?
                .label(panel.legend)
                .legend(move |(x, y)| Circle::new((x + 12, y), 4, color.filled()));
        } else {
            chart
                .draw_series(LineSeries::new(panel.points.iter().copied(), color.stroke_width(2)))?
                .label(panel.legend)
                .legend(legend_line(color));
        }
        draw_legend(&mut chart, SeriesLabelPosition::LowerRight)?;
    }
    Ok(())
}

fn draw_elo(area: &Area<'_>, ratings: &RatingsFile) -> Result<()> {
    let mut checkpoints: Vec<(u64, &RatedPlayer)> =
        ratings.players.iter().filter(|p| is_plotted_checkpoint(p)).filter_map(|p| p.step.map(|s| (s, p))).collect();
    checkpoints.sort_by_key(|&(step, _)| step);
    let baselines: Vec<&RatedPlayer> =
        ratings.players.iter().filter(|p| p.kind != "checkpoint" && p.elo.is_finite()).collect();

    let x = padded_range(checkpoints.iter().map(|&(s, _)| s as f64)).unwrap_or(0.0..1.0);
    let y = padded_range(checkpoints.iter().flat_map(|(_, p)| [p.lo, p.hi]).chain(baselines.iter().map(|p| p.elo)))
        .unwrap_or(-100.0..100.0);
    let mut chart = ChartBuilder::on(area)
        .caption(format!("Elo against training step (anchor: {} = 0)", ratings.anchor), (FONT, TITLE))
        .margin(20)
        .x_label_area_size(55)
        .y_label_area_size(75)
        .build_cartesian_2d(x.clone(), y)?;
    draw_mesh(&mut chart, "training step", "Elo (95% interval)")?;

    let grey = RGBColor(110, 110, 110);
    for p in &baselines {
        chart.draw_series(DashedLineSeries::new([(x.start, p.elo), (x.end, p.elo)], 10, 6, grey.stroke_width(2)))?;
    }

    let blue = RGBColor(20, 70, 200);
    chart.draw_series(
        checkpoints.iter().map(|&(s, p)| ErrorBar::new_vertical(s as f64, p.lo, p.elo, p.hi, blue.stroke_width(2), 10)),
    )?;
    chart
        .draw_series(LineSeries::new(checkpoints.iter().map(|&(s, p)| (s as f64, p.elo)), blue.stroke_width(2)))?
        .label("checkpoint (95% interval)")
        .legend(legend_line(blue));
    if let Some(&(s, p)) = checkpoints.iter().find(|(_, p)| ratings.best.as_deref() == Some(p.name.as_str())) {
        let green = RGBColor(0, 150, 60);
        chart
            .draw_series(std::iter::once(Circle::new((s as f64, p.elo), 8, green.stroke_width(3))))?
            .label(format!("best: {}", p.name))
            .legend(move |(x, y)| Circle::new((x + 12, y), 6, green.stroke_width(3)));
    }

    // Each baseline's name sits just above its line's left end, drawn last and on a white patch
    // so that a checkpoint's error bar running through it does not hide it.
    for p in &baselines {
        let label = format!("{} {:+.0}", p.name, p.elo);
        let style = (FONT, LABEL).into_font().color(&BLACK);
        let (w, h) = area.estimate_text_size(&label, &style)?;
        let (w, h) = (i32::try_from(w).unwrap_or(i32::MAX), i32::try_from(h).unwrap_or(i32::MAX));
        chart.draw_series(std::iter::once(
            EmptyElement::at((x.start, p.elo))
                + Rectangle::new([(4, -h - 8), (w + 12, -3)], WHITE.filled())
                + Text::new(label, (8, -h - 6), style),
        ))?;
    }
    draw_legend(&mut chart, SeriesLabelPosition::LowerRight)
}

/// One rated checkpoint on an experiment's Elo plot.
#[derive(Clone, Debug, PartialEq)]
pub struct TimePoint {
    /// The arm's index in [`ExperimentPlot::arms`] (its colour).
    pub arm: usize,
    /// The run's seed (one line per arm and seed).
    pub seed: u64,
    /// Wall-clock minutes since the run began.
    pub minutes: f64,
    /// Elo.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub lo: f64,
    /// Upper end of the 95% interval.
    pub hi: f64,
}

/// What an experiment's `elo.png` shows.
#[derive(Clone, Debug, PartialEq)]
pub struct ExperimentPlot {
    /// The caption.
    pub title: String,
    /// The arms, in legend order.
    pub arms: Vec<String>,
    /// Every rated checkpoint.
    pub points: Vec<TimePoint>,
    /// The anchors: name and Elo.
    pub anchors: Vec<(String, f64)>,
}

/// The colours of the arms, in order (then again from the start).
const ARM_COLOURS: [RGBColor; 8] = [
    RGBColor(20, 70, 200),
    RGBColor(200, 40, 40),
    RGBColor(0, 140, 60),
    RGBColor(230, 130, 0),
    RGBColor(130, 50, 170),
    RGBColor(0, 150, 160),
    RGBColor(120, 80, 40),
    RGBColor(220, 60, 160),
];

/// Draws `plot` into the PNG at `path` (written with [`durable::write_atomic`]).
///
/// # Errors
/// The PNG cannot be drawn or written.
pub fn write_experiment_elo(path: &Path, plot: &ExperimentPlot) -> std::result::Result<PathBuf, PipelineError> {
    register_embedded_font().map_err(|e| PipelineError::Plot(e.0))?;
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let name = path.file_name().map_or_else(|| "elo.png".to_owned(), |n| n.to_string_lossy().into_owned());
    write_png(dir, &name, &|area| draw_experiment_elo(area, plot))
}

fn draw_experiment_elo(area: &Area<'_>, plot: &ExperimentPlot) -> Result<()> {
    // From the runs' start to just past the last checkpoint (a budget may be a fraction of a
    // minute).
    let end = plot.points.iter().map(|p| p.minutes).fold(0.0_f64, f64::max);
    let x = 0.0..(1.05 * end).max(0.01);
    let y = padded_range(plot.points.iter().flat_map(|p| [p.lo, p.hi]).chain(plot.anchors.iter().map(|a| a.1)))
        .unwrap_or(-100.0..100.0);
    let mut chart = ChartBuilder::on(area)
        .caption(&plot.title, (FONT, TITLE))
        .margin(20)
        .x_label_area_size(55)
        .y_label_area_size(75)
        .build_cartesian_2d(x.clone(), y)?;
    draw_mesh(&mut chart, "wall-clock minutes since the run began", "Elo (95% interval)")?;
    let grey = RGBColor(110, 110, 110);
    for (_, elo) in &plot.anchors {
        chart.draw_series(DashedLineSeries::new([(x.start, *elo), (x.end, *elo)], 10, 6, grey.stroke_width(2)))?;
    }
    for (i, arm) in plot.arms.iter().enumerate() {
        let colour = ARM_COLOURS[i % ARM_COLOURS.len()];
        let mine: Vec<&TimePoint> = plot.points.iter().filter(|p| p.arm == i).collect();
        let mut seeds: Vec<u64> = mine.iter().map(|p| p.seed).collect();
        seeds.sort_unstable();
        seeds.dedup();
        for (k, seed) in seeds.iter().enumerate() {
            let mut line: Vec<&TimePoint> = mine.iter().copied().filter(|p| p.seed == *seed).collect();
            line.sort_by(|a, b| a.minutes.total_cmp(&b.minutes));
            chart.draw_series(
                line.iter().map(|p| ErrorBar::new_vertical(p.minutes, p.lo, p.elo, p.hi, colour.stroke_width(2), 10)),
            )?;
            chart.draw_series(line.iter().map(|p| Circle::new((p.minutes, p.elo), 4, colour.filled())))?;
            let drawn =
                chart.draw_series(LineSeries::new(line.iter().map(|p| (p.minutes, p.elo)), colour.stroke_width(2)))?;
            if k == 0 {
                drawn.label(format!("{arm} ({} seed(s))", seeds.len())).legend(legend_line(colour));
            }
        }
    }
    for (name, elo) in &plot.anchors {
        let label = format!("{name} {elo:+.0}");
        let style = (FONT, LABEL).into_font().color(&BLACK);
        let (w, h) = area.estimate_text_size(&label, &style)?;
        let (w, h) = (i32::try_from(w).unwrap_or(i32::MAX), i32::try_from(h).unwrap_or(i32::MAX));
        chart.draw_series(std::iter::once(
            EmptyElement::at((x.start, *elo))
                + Rectangle::new([(4, -h - 8), (w + 12, -3)], WHITE.filled())
                + Text::new(label, (8, -h - 6), style),
        ))?;
    }
    draw_legend(&mut chart, SeriesLabelPosition::LowerRight)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system temp dir, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("qizero-plots-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("temp dir");
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn synthetic_metrics() -> String {
        let t0 = 1_795_995_000_000_u64;
        let mut lines = vec![format!(r#"{{"v":1,"event":"corrupt_shard","time_ms":{t0},"name":"x","fault":"y"}}"#)];
        for i in 0..30_u64 {
            let step = 40 * (i + 1);
            let x = i as f64;
            lines.push(format!(
                r#"{{"event":"selfplay","time_ms":{},"positions":9000,"games":80,"seconds":6.0,"positions_per_s":{}}}"#,
                t0 + 20_000 * i,
                1400.0 + 10.0 * x
            ));
            lines.push(format!(
                r#"{{"event":"train","time_ms":{},"step":{step},"samples_seen":2560,"positions_generated":9000,"window_positions":9000,"policy_loss":{},"value_loss":{},"total_loss":{},"learning_rate":0.02,"samples_per_s":{},"reuse":0.28,"corrupt_shards":0}}"#,
                t0 + 20_000 * i + 5_000,
                3.1 - 0.05 * x,
                0.8 - 0.01 * x,
                3.9 - 0.06 * x,
                1500.0 + 5.0 * x
            ));
            if i == 10 {
                lines.push(r#"{"event":"train","step":4"#.to_string()); // cut short by a crash
                lines.push("not json at all".to_string());
            }
        }
        lines.join("\n") + "\n"
    }

    const RATINGS: &str = r#"{"anchor":"random","players":[
        {"name":"random","kind":"baseline","step":null,"elo":0.0,"lo":0.0,"hi":0.0,"games":40,"score":0.2},
        {"name":"alphabeta:depth=1","kind":"baseline","step":null,"elo":210.0,"lo":150.0,"hi":270.0,"games":40,"score":0.5},
        {"name":"ckpt-0","kind":"checkpoint","step":0,"elo":35.0,"lo":-60.0,"hi":130.0,"games":40,"score":0.55},
        {"name":"ckpt-200","kind":"checkpoint","step":200,"elo":180.0,"lo":100.0,"hi":260.0,"games":40,"score":0.6},
        {"name":"ckpt-400","kind":"checkpoint","step":400,"elo":320.0,"lo":230.0,"hi":410.0,"games":40,"score":0.7}],
        "matches":[{"a":"ckpt-0","b":"random","wins":5,"draws":10,"losses":5}],"best":"ckpt-400"}"#;

    fn assert_png(path: &Path) {
        let bytes = std::fs::read(path).expect("the plot exists");
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{} is not a PNG", path.display());
        // A blank 1200x700 canvas compresses to a few KiB; axes, text and series make it larger.
        assert!(bytes.len() > 10_000, "{} is only {} bytes", path.display(), bytes.len());
    }

    #[test]
    fn writes_three_pngs_from_metrics_and_ratings() {
        let run = Scratch::new("all");
        std::fs::write(run.0.join("metrics.jsonl"), synthetic_metrics()).expect("write metrics");
        std::fs::create_dir_all(run.0.join("arena")).expect("arena dir");
        std::fs::write(run.0.join("arena").join("ratings.json"), RATINGS).expect("write ratings");

        let written = write_all(&RunDir::new(&run.0), &crate::report::Quiet).expect("plots");
        let plots = run.0.join("plots");
        let expected: Vec<PathBuf> =
            ["losses.png", "elo.png", "throughput.png"].iter().map(|n| plots.join(n)).collect();
        assert_eq!(written, expected);
        for path in &written {
            assert_png(path);
        }
        // No temporary file is left behind.
        let names: Vec<String> = std::fs::read_dir(&plots)
            .expect("plots dir")
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect();
        assert_eq!(names.len(), 3, "{names:?}");

        // Writing again replaces the files in place.
        assert_eq!(write_all(&RunDir::new(&run.0), &crate::report::Quiet).expect("plots again"), expected);
    }

    #[test]
    fn garbage_lines_are_skipped_and_counted() {
        let run = Scratch::new("garbage");
        let path = run.0.join("metrics.jsonl");
        std::fs::write(&path, synthetic_metrics()).expect("write metrics");
        let metrics = read_metrics(&path).expect("read");
        assert_eq!(metrics.skipped, 2);
        assert_eq!(metrics.train.len(), 30);
        assert_eq!(metrics.selfplay.len(), 30);
        // Minutes count from the first line (the corrupt_shard event), 20 s per round.
        assert_eq!(metrics.selfplay[3].minutes, 1.0);
        assert_eq!(metrics.train[0].minutes, Some(5.0 / 60.0));
        assert_eq!(metrics.train[29].step, 1200.0);
        // Only metrics: losses and throughput, no elo.png.
        let written = write_all(&RunDir::new(&run.0), &crate::report::Quiet).expect("plots");
        let names: Vec<_> = written.iter().filter_map(|p| p.file_name()).collect();
        assert_eq!(names, ["losses.png", "throughput.png"]);
        for path in &written {
            assert_png(path);
        }
    }

    #[test]
    fn only_selfplay_gives_only_throughput() {
        let run = Scratch::new("selfplay-only");
        let line =
            r#"{"event":"selfplay","time_ms":1000,"positions":900,"games":8,"seconds":6.0,"positions_per_s":150.0}"#;
        std::fs::write(run.0.join("metrics.jsonl"), format!("{line}\n{line}\n")).expect("write metrics");
        let written = write_all(&RunDir::new(&run.0), &crate::report::Quiet).expect("plots");
        assert_eq!(written, [run.0.join("plots").join("throughput.png")]);
        assert_png(&written[0]);
    }

    #[test]
    fn a_run_without_data_writes_nothing() {
        let run = Scratch::new("empty");
        assert_eq!(write_all(&RunDir::new(&run.0), &crate::report::Quiet).expect("no error"), Vec::<PathBuf>::new());
        assert!(!run.0.join("plots").exists());
        // Ratings with no checkpoint yet, and metrics with neither train nor selfplay lines.
        std::fs::create_dir_all(run.0.join("arena")).expect("arena dir");
        std::fs::write(
            run.0.join("arena").join("ratings.json"),
            r#"{"anchor":"random","players":[{"name":"random","kind":"baseline","step":null,"elo":0.0,"lo":0.0,"hi":0.0,"games":0,"score":0.5}],"matches":[],"best":null}"#,
        )
        .expect("write ratings");
        std::fs::write(run.0.join("metrics.jsonl"), "{\"event\":\"arena\",\"time_ms\":5}\n").expect("write metrics");
        assert_eq!(write_all(&RunDir::new(&run.0), &crate::report::Quiet).expect("no error"), Vec::<PathBuf>::new());
        // A ratings file that does not parse skips elo.png and nothing else.
        std::fs::write(run.0.join("arena").join("ratings.json"), "{\"anchor\":").expect("write ratings");
        assert_eq!(write_all(&RunDir::new(&run.0), &crate::report::Quiet).expect("no error"), Vec::<PathBuf>::new());
    }

    #[test]
    fn the_experiment_plot_is_a_png() {
        let dir = Scratch::new("experiment");
        let point =
            |arm, seed, minutes: f64, elo: f64| TimePoint { arm, seed, minutes, elo, lo: elo - 80.0, hi: elo + 80.0 };
        let plot = ExperimentPlot {
            title: "screen: Elo against wall-clock time".into(),
            arms: vec!["puct".into(), "gumbel".into()],
            points: vec![
                point(0, 1, 0.0, 10.0),
                point(0, 1, 4.0, 150.0),
                point(0, 2, 4.2, 120.0),
                point(1, 1, 3.9, 260.0),
            ],
            anchors: vec![("random".into(), 0.0), ("alphabeta:depth=1".into(), 230.0)],
        };
        let path = dir.0.join("elo.png");
        assert_eq!(write_experiment_elo(&path, &plot).expect("draws"), path);
        assert_png(&path);
        // Nothing rated yet still draws the axes.
        let empty = ExperimentPlot { points: vec![], anchors: vec![], ..plot };
        write_experiment_elo(&path, &empty).expect("draws");
    }

    #[test]
    fn padded_ranges() {
        assert_eq!(padded_range([]), None);
        assert_eq!(padded_range([0.0, 10.0]), Some(-0.5..10.5));
        assert_eq!(padded_range([5.0]), Some(4.0..6.0));
        assert_eq!(padded_range([100.0, 100.0]), Some(90.0..110.0));
        assert_eq!(from_zero([]), 0.0..1.0);
        assert_eq!(from_zero([0.0]), 0.0..1.0);
        assert_eq!(from_zero([100.0, 50.0]), 0.0..105.0);
    }
}
