//! `qizero shard`: look inside training-data shards, and export them as numpy arrays for
//! analysis in Python. The format and the checks live in the `shard` crate; this module only
//! reads, re-encodes with the `encode` crate and reports.

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use encode::Encode;
use game::{Game, Side};
use ndarray::{Array1, Array2, Array4};
use ndarray_npy::NpzWriter;
use rayon::iter::{IntoParallelIterator, ParallelIterator};
use shard::{GameRecord, Shard};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `qizero shard ...`
#[derive(Subcommand)]
pub enum ShardCommand {
    /// Print a shard's header, its counts and results, and a few decoded samples.
    ///
    /// Every sample shown is rebuilt by replaying its game, so a shard that inspects cleanly
    /// also replays cleanly. A damaged shard is reported with the file and the fault.
    Inspect(InspectArgs),
    /// Write the samples of one or more shards as numpy arrays in one .npz file.
    ///
    /// Arrays (N samples): planes float32 [N, C, H, W] (the positions encoded with this build's
    /// encoding for the shards' game), policy float32 [N, P] (the visit distribution over the
    /// policy index space), improved float32 [N, P] (the search's improved policy, a row of
    /// zeros where the sample has none) and has_improved bool [N], z float32 [N] and
    /// root_value float32 [N] (side to move's view), ply int32 [N], game_id int64 [N]. Read
    /// with `numpy.load("OUT.npz")`. All shards must hold the same game. Arrays are built in
    /// memory.
    Export(ExportArgs),
}

/// Arguments of `qizero shard inspect`.
#[derive(Args)]
pub struct InspectArgs {
    /// The shard file.
    file: PathBuf,
    /// How many samples to decode and print (from the start of the file).
    #[arg(long, default_value_t = 3)]
    records: usize,
    /// How many of each sample's most visited moves to print.
    #[arg(long, default_value_t = 5)]
    top: usize,
}

/// Arguments of `qizero shard export`.
#[derive(Args)]
pub struct ExportArgs {
    /// Where to write the numpy archive.
    #[arg(long, value_name = "OUT.npz")]
    npz: PathBuf,
    /// Shard files, or directories whose `*.shard` files are all taken (in name order).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// Runs `qizero shard ...`.
pub fn run(cmd: &ShardCommand) -> Result<()> {
    match cmd {
        ShardCommand::Inspect(args) => inspect(args),
        ShardCommand::Export(args) => export(args),
    }
}

/// A shard read from disk, with the error context every command wants.
fn read(path: &Path) -> Result<Shard> {
    // ShardError already names the file and the fault.
    Ok(shard::read_shard(path)?)
}

fn inspect(args: &InspectArgs) -> Result<()> {
    let path = &args.file;
    let shard = read(path)?;
    let version = shard::read_version(path)?;
    let h = &shard.header;
    let bytes = std::fs::metadata(path).with_context(|| format!("{}", path.display()))?.len();
    let counts = shard.counts();
    println!("file      {}", path.display());
    println!("format    qizero shard version {version}, {bytes} bytes, checksum ok");
    println!("game      {}", h.game);
    println!("encoding  {}", h.encoding);
    println!("model     {}", h.model);
    println!("worker    {}", h.worker);
    println!("seed      {}", h.seed);
    println!("created   {} ({} ms since the Unix epoch)", arena::record::utc_time(h.created_ms), h.created_ms);
    let (first, second) = side_names(&h.game);
    let mut wins = [0u64; 3];
    let mut reasons: BTreeMap<&str, u64> = BTreeMap::new();
    let mut plies = 0;
    for g in &shard.games {
        wins[match g.result.winner {
            Some(shard::Winner::First) => 0,
            Some(shard::Winner::Second) => 1,
            None => 2,
        }] += 1;
        *reasons.entry(g.result.reason.as_str()).or_default() += 1;
        plies += g.moves.len() as u64;
    }
    println!("games     {} ({first} wins {}, {second} wins {}, draws {})", counts.games, wins[0], wins[1], wins[2]);
    let per_game = |n: u64| if counts.games == 0 { 0.0 } else { n as f64 / counts.games as f64 };
    println!("plies     {plies} ({:.1} per game)", per_game(plies));
    println!("samples   {} ({:.1} per game)", counts.samples, per_game(counts.samples));
    let improved = shard.games.iter().flat_map(|g| &g.samples).filter(|s| !s.improved.is_empty()).count();
    println!(
        "targets   improved policy on {improved} of {} samples{}",
        counts.samples,
        if improved == 0 { " (pi, the visit shares, is the policy target)" } else { "" }
    );
    let reasons: Vec<String> = reasons.iter().map(|(r, n)| format!("{r} {n}")).collect();
    println!("endings   {}", if reasons.is_empty() { "-".to_owned() } else { reasons.join(", ") });
    if args.records == 0 {
        return Ok(());
    }
    match h.game.as_str() {
        xiangqi::Game::NAME => print_samples::<xiangqi::Game>(&shard, path, args),
        draughts::Game::NAME => print_samples::<draughts::Game>(&shard, path, args),
        other => bail!("{}: unknown game '{other}' in the header; cannot decode its samples", path.display()),
    }
}

/// Prints the first `args.records` samples, each rebuilt by replaying its game.
fn print_samples<G: Game>(shard: &Shard, path: &Path, args: &InspectArgs) -> Result<()> {
    let (first, second) = side_names(G::NAME);
    let mut left = args.records;
    for record in &shard.games {
        if left == 0 {
            break;
        }
        println!();
        println!(
            "game {}: {} moves, {} {}, {} samples, from {}",
            record.game_id,
            record.moves.len(),
            record.result.score_str(),
            record.result.reason,
            record.samples.len(),
            record.start_fen
        );
        replay_until(record, path, &mut left, |view: shard::SampleView<'_, G>| {
            let s = view.sample;
            let mover = if view.game.side_to_move() == Side::First { first } else { second };
            println!("  ply {:>3}  {mover} to move  z {:+.0}  root value {:+.3}", s.ply, s.z, s.root_value);
            println!("    fen {}", view.game.fen());
            println!("    pi  {}", top_moves(&s.pi, args.top));
            if !s.improved.is_empty() {
                println!("    imp {}", top_moves(&s.improved, args.top));
            }
        })?;
    }
    Ok(())
}

/// The `top` largest shares of a distribution, as "move share" pairs, and how many more.
fn top_moves(shares: &[(String, f32)], top: usize) -> String {
    let mut sorted: Vec<&(String, f32)> = shares.iter().collect();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
    let shown: Vec<String> = sorted.iter().take(top).map(|(mv, p)| format!("{mv} {p:.3}")).collect();
    let more = if sorted.len() > top { format!(" (+{} more)", sorted.len() - top) } else { String::new() };
    format!("{}{more}", shown.join("  "))
}

/// Replays `record`, visiting samples while `left` is positive (and counting it down).
fn replay_until<G: Game>(
    record: &GameRecord,
    path: &Path,
    left: &mut usize,
    mut visit: impl FnMut(shard::SampleView<'_, G>),
) -> Result<()> {
    record.replay_with::<G>(path, |view| {
        if *left > 0 {
            *left -= 1;
            visit(view);
        }
    })?;
    Ok(())
}

/// The colour names of a game's sides.
fn side_names(game: &str) -> (&'static str, &'static str) {
    if game == draughts::Game::NAME { ("White", "Black") } else { ("Red", "Black") }
}

fn export(args: &ExportArgs) -> Result<()> {
    let mut paths = Vec::new();
    for path in &args.files {
        if path.is_dir() {
            paths.extend(shard::list_shards(path)?);
        } else {
            paths.push(path.clone());
        }
    }
    if paths.is_empty() {
        bail!("no shards to export (the directories given hold no *.shard files)");
    }
    let mut shards: Vec<(PathBuf, Shard)> = Vec::with_capacity(paths.len());
    for path in &paths {
        let shard = read(path)?;
        match shards.first() {
            Some((first_path, first)) if shard.header.game != first.header.game => bail!(
                "{} holds {} games but {} holds {}: export one game at a time",
                path.display(),
                shard.header.game,
                first_path.display(),
                first.header.game
            ),
            _ => shards.push((path.clone(), shard)),
        }
    }
    let game = shards[0].1.header.game.clone();
    let arrays = match game.as_str() {
        xiangqi::Game::NAME => collect::<xiangqi::Game>(&shards)?,
        draughts::Game::NAME => collect::<draughts::Game>(&shards)?,
        other => bail!("{}: unknown game '{other}' in the header", shards[0].0.display()),
    };
    let n = arrays.z.len();
    write_npz(&args.npz, arrays)?;
    let games: usize = shards.iter().map(|(_, s)| s.games.len()).sum();
    eprintln!("wrote {n} samples from {games} games in {} shards to {}", shards.len(), args.npz.display());
    Ok(())
}

/// The exported arrays.
struct Arrays {
    planes: Array4<f32>,
    policy: Array2<f32>,
    improved: Array2<f32>,
    has_improved: Array1<bool>,
    z: Array1<f32>,
    root_value: Array1<f32>,
    ply: Array1<i32>,
    game_id: Array1<i64>,
}

/// The per-sample scalars of an export row: z, root value, ply, game id, whether it has an
/// improved policy.
type Scalars = (f32, f32, i32, i64, bool);

/// Replays every game of every shard and encodes each sample with `G`'s encoding.
fn collect<G: Encode>(shards: &[(PathBuf, Shard)]) -> Result<Arrays> {
    let info = G::ENCODING;
    for (path, shard) in shards {
        shard.expect_game::<G>(path)?;
        if shard.header.encoding != info.id {
            eprintln!(
                "note: {} was played with encoding {}; its positions are exported with {}",
                path.display(),
                shard.header.encoding,
                info.id
            );
        }
    }
    let n: usize = shards.iter().map(|(_, s)| s.counts().samples as usize).sum();
    let (plane_len, policy_size) = (info.plane_len(), info.policy_size);
    let mut planes = vec![0f32; n * plane_len];
    let mut policy = vec![0f32; n * policy_size];
    let mut improved = vec![0f32; n * policy_size];
    // One job per game, each with its own rows of the arrays, encoded in parallel (rayon's
    // pool) and put back in shard and game order.
    let mut jobs = Vec::new();
    let (mut planes_left, mut policy_left, mut improved_left) =
        (planes.as_mut_slice(), policy.as_mut_slice(), improved.as_mut_slice());
    for (path, shard) in shards {
        for record in &shard.games {
            let rows = record.samples.len();
            let (p, rest) = std::mem::take(&mut planes_left).split_at_mut(rows * plane_len);
            let (q, rest2) = std::mem::take(&mut policy_left).split_at_mut(rows * policy_size);
            let (r, rest3) = std::mem::take(&mut improved_left).split_at_mut(rows * policy_size);
            (planes_left, policy_left, improved_left) = (rest, rest2, rest3);
            jobs.push((path.as_path(), record, p, q, r));
        }
    }
    let columns: Vec<Result<Vec<Scalars>>> = jobs
        .into_par_iter()
        .map(|(path, record, planes, policy, improved)| {
            let mut rows = Vec::with_capacity(record.samples.len());
            let mut scratch = Scratch::new();
            let mut k = 0;
            record.replay_with::<G>(path, |view| {
                view.game.encode(&mut planes[k * plane_len..(k + 1) * plane_len]);
                let row = k * policy_size..(k + 1) * policy_size;
                scratch.dense(view.game, view.pi, &mut policy[row.clone()]);
                scratch.dense(view.game, view.improved, &mut improved[row]);
                let s = view.sample;
                rows.push((s.z, s.root_value, s.ply as i32, record.game_id as i64, !view.improved.is_empty()));
                k += 1;
            })?;
            Ok(rows)
        })
        .collect();
    let (mut z, mut root_value, mut ply, mut game_id, mut has_improved) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for rows in columns {
        for (a, b, c, d, e) in rows? {
            z.push(a);
            root_value.push(b);
            ply.push(c);
            game_id.push(d);
            has_improved.push(e);
        }
    }
    let k = z.len();
    debug_assert_eq!(k, n);
    Ok(Arrays {
        planes: Array4::from_shape_vec((n, info.planes, info.height, info.width), planes)?,
        policy: Array2::from_shape_vec((n, info.policy_size), policy)?,
        improved: Array2::from_shape_vec((n, info.policy_size), improved)?,
        has_improved: Array1::from(has_improved),
        z: Array1::from(z),
        root_value: Array1::from(root_value),
        ply: Array1::from(ply),
        game_id: Array1::from(game_id),
    })
}

/// Buffers for turning a sparse distribution into a dense policy row.
struct Scratch<M> {
    moves: Vec<M>,
    shares: Vec<f32>,
    indices: Vec<u32>,
}

impl<M: Copy> Scratch<M> {
    fn new() -> Self {
        Scratch { moves: Vec::new(), shares: Vec::new(), indices: Vec::new() }
    }

    /// Writes `sparse` (moves of `game` with shares) into `row` over the policy index space
    /// ([`encode::policy_target`]; all zeros for an empty list).
    fn dense<G: Encode<Move = M>>(&mut self, game: &G, sparse: &[(M, f32)], row: &mut [f32]) {
        self.moves.clear();
        self.shares.clear();
        for &(mv, p) in sparse {
            self.moves.push(mv);
            self.shares.push(p);
        }
        game.policy_indices(&self.moves, &mut self.indices);
        encode::policy_target(&self.indices, &self.shares, row);
    }
}

/// Writes the arrays as an uncompressed .npz (a zip of .npy files, what `numpy.savez` makes),
/// through the one atomic writer: a half-written archive is never left under `path`.
fn write_npz(path: &Path, arrays: Arrays) -> Result<()> {
    let npz_error = |e: ndarray_npy::WriteNpzError| std::io::Error::other(e.to_string());
    durable::write_atomic_with(path, |file| {
        let mut npz = NpzWriter::new(file);
        npz.add_array("planes", &arrays.planes).map_err(npz_error)?;
        npz.add_array("policy", &arrays.policy).map_err(npz_error)?;
        npz.add_array("improved", &arrays.improved).map_err(npz_error)?;
        npz.add_array("has_improved", &arrays.has_improved).map_err(npz_error)?;
        npz.add_array("z", &arrays.z).map_err(npz_error)?;
        npz.add_array("root_value", &arrays.root_value).map_err(npz_error)?;
        npz.add_array("ply", &arrays.ply).map_err(npz_error)?;
        npz.add_array("game_id", &arrays.game_id).map_err(npz_error)?;
        npz.finish().map_err(npz_error)?;
        Ok(())
    })?;
    Ok(())
}
