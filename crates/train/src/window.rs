//! The replay window: the newest shards of `shards/`, parsed once and cached by file name.
//!
//! # Which shards
//! Shard names start with their creation time ([`shard::write_shard`]), so name order is time
//! order. A scan lists `shards/` ([`shard::list_shards`]: finished `*.shard` files only) and
//! walks it newest first, taking shards until they hold at least `window_positions` positions;
//! the shard that crosses the line is taken whole. Everything older is outside the window.
//!
//! # What is kept
//! A shard in the window is read, checked and replayed once ([`shard::GameRecord::replay_with`]
//! checks every move and every pi and improved move): what stays in memory is each game's start
//! position and its moves as `G::Move`, and per sample its ply, z, root value q, and the policy
//! indices of its policy target: the improved policy when it has one and the window was opened
//! with [`PolicyTarget::Auto`], else its pi (the choice is made once, at load: a window serves
//! one trainer, whose config does not change, and the other list is not kept). A batch
//! replays each sampled game to its ply with the unchecked (fast) `play` and encodes it there,
//! which costs far less than the net's step. A shard that leaves the window is dropped from
//! memory, keeping only its position count. Shards outside the window on first sight have only
//! their header read (the whole file is still checked against its checksum).
//!
//! # Corrupt shards
//! A shard that cannot be read, fails its checks, holds another game or has an invalid game is
//! skipped, never silently: the scan that first meets it reports it ([`ScanReport::corrupt`]),
//! naming the file and the fault, and it stays counted in [`ReplayWindow::corrupt`]. It is not
//! read again.
//!
//! # Positions generated
//! [`ReplayWindow::positions_generated`] counts the positions of every valid shard this window
//! has seen, including shards deleted since (so the number never goes down); the trainer's
//! reuse cap compares it with the samples trained.

use crate::TrainError;
use crate::config::PolicyTarget;
use encode::Encode;
use rayon::iter::{IntoParallelIterator, ParallelIterator};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One game of a loaded shard: where it starts and the moves played.
#[derive(Debug)]
pub(crate) struct GameData<G: Encode> {
    pub(crate) start: G,
    pub(crate) moves: Vec<G::Move>,
}

/// +1 for the first player, -1 for the second: turns a side-to-move value into the first
/// player's view and back.
fn side_sign(side: game::Side) -> f32 {
    if side.index() == 0 { 1.0 } else { -1.0 }
}

/// One sample of a loaded shard.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SampleData {
    pub(crate) game: u32,
    pub(crate) ply: u32,
    /// The game's result, side to move's view.
    pub(crate) z: f32,
    /// The search's root value, side to move's view.
    pub(crate) q: f32,
    /// The material head's target: the game's final material difference, side to move's view
    /// ([`Encode::material_target`] of the last position, its sign turned for the other side).
    pub(crate) material: f32,
    /// Range of the policy target in [`LoadedShard::policy`].
    pub(crate) policy_start: u32,
    pub(crate) policy_len: u32,
}

/// A shard parsed for training.
#[derive(Debug)]
pub struct LoadedShard<G: Encode> {
    name: String,
    pub(crate) games: Vec<GameData<G>>,
    pub(crate) samples: Vec<SampleData>,
    /// Every sample's policy target (improved or pi, as chosen at load) as (policy index,
    /// share), back to back.
    pub(crate) policy: Vec<(u32, f32)>,
}

impl<G: Encode> LoadedShard<G> {
    /// Reads, checks and replays the shard at `path`, keeping for each sample the policy
    /// target `policy` chooses (see the [module docs](self)).
    ///
    /// # Errors
    /// The shard crate's error, naming the file and the fault.
    pub fn load(path: &Path, policy: PolicyTarget) -> Result<LoadedShard<G>, shard::ShardError> {
        let data = shard::read_shard(path)?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        LoadedShard::from_shard(name, &data, path, policy)
    }

    /// [`LoadedShard::load`] of a shard already in memory, named `name`; `path` names it in
    /// errors.
    ///
    /// # Errors
    /// The shard holds another game, or a game of it does not replay.
    pub fn from_shard(
        name: String,
        data: &shard::Shard,
        path: &Path,
        policy: PolicyTarget,
    ) -> Result<LoadedShard<G>, shard::ShardError> {
        data.expect_game::<G>(path)?;
        let mut games = Vec::with_capacity(data.games.len());
        let mut samples = Vec::new();
        let mut targets = Vec::new();
        let (mut moves, mut indices) = (Vec::new(), Vec::new());
        for (g, record) in data.games.iter().enumerate() {
            let game_index = u32::try_from(g).unwrap_or(u32::MAX);
            let first_sample = samples.len();
            let end: G = record.replay_with::<G>(path, |view| {
                let target = match policy {
                    PolicyTarget::Auto if !view.improved.is_empty() => view.improved,
                    PolicyTarget::Auto | PolicyTarget::Visits => view.pi,
                };
                moves.clear();
                moves.extend(target.iter().map(|&(mv, _)| mv));
                view.game.policy_indices(&moves, &mut indices);
                let start = targets.len() as u32;
                targets.extend(indices.iter().zip(target).map(|(&i, &(_, p))| (i, p)));
                samples.push(SampleData {
                    game: game_index,
                    ply: view.sample.ply,
                    z: view.sample.z,
                    q: view.sample.root_value,
                    // The mover's sign for now; times the final material below.
                    material: side_sign(view.game.side_to_move()),
                    policy_start: start,
                    policy_len: target.len() as u32,
                });
            })?;
            let end_material = side_sign(end.side_to_move()) * end.material_target();
            for sample in &mut samples[first_sample..] {
                sample.material *= end_material;
            }
            // replay_with checked the FEN already; this second parse cannot fail.
            let start = G::from_fen(&record.start_fen)
                .map_err(|e| shard::ShardError::Decode { path: path.to_path_buf(), msg: e.to_string() })?;
            games.push(GameData { start, moves: end.moves_played() });
        }
        Ok(LoadedShard { name, games, samples, policy: targets })
    }

    /// The file name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of samples (positions).
    #[must_use]
    pub fn positions(&self) -> usize {
        self.samples.len()
    }
}

/// A shard skipped because it could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorruptShard {
    /// The file name (in `shards/`).
    pub name: String,
    /// What is wrong, as the reader said it.
    pub fault: String,
}

impl std::fmt::Display for CorruptShard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "skipping corrupt shard {}: {}", self.name, self.fault)
    }
}

/// What the window holds: its shards, oldest first, and where each one's positions start.
#[derive(Debug)]
pub struct WindowSnapshot<G: Encode> {
    pub(crate) shards: Vec<Arc<LoadedShard<G>>>,
    /// `ends[i]`: positions in shards `0..=i`.
    pub(crate) ends: Vec<u64>,
}

impl<G: Encode> WindowSnapshot<G> {
    fn empty() -> WindowSnapshot<G> {
        WindowSnapshot { shards: Vec::new(), ends: Vec::new() }
    }

    /// Positions in the window.
    #[must_use]
    pub fn positions(&self) -> u64 {
        self.ends.last().copied().unwrap_or(0)
    }

    /// The shard and sample of the window's position `index` (0 = oldest).
    pub(crate) fn locate(&self, index: u64) -> (&LoadedShard<G>, usize) {
        let s = self.ends.partition_point(|&end| end <= index);
        let begin = if s == 0 { 0 } else { self.ends[s - 1] };
        (&self.shards[s], (index - begin) as usize)
    }

    /// The number of moves in the policy target of the window's position `index`.
    pub(crate) fn pi_len(&self, index: u64) -> usize {
        let (shard, s) = self.locate(index);
        shard.samples[s].policy_len as usize
    }

    /// A summary for logs and lineage.
    #[must_use]
    pub fn info(&self) -> WindowInfo {
        WindowInfo {
            shards: self.shards.len(),
            positions: self.positions(),
            oldest: self.shards.first().map(|s| s.name.clone()),
            newest: self.shards.last().map(|s| s.name.clone()),
        }
    }

    /// The file names of the window's shards, oldest first.
    #[must_use]
    pub fn names(&self) -> Vec<&str> {
        self.shards.iter().map(|s| s.name()).collect()
    }
}

/// The window in a few numbers (what the lineage records).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WindowInfo {
    /// Shards in the window.
    pub shards: usize,
    /// Positions in the window.
    pub positions: u64,
    /// The oldest shard's file name.
    pub oldest: Option<String>,
    /// The newest shard's file name.
    pub newest: Option<String>,
}

/// What one scan found.
#[derive(Clone, Debug, Default)]
pub struct ScanReport {
    /// Shards seen for the first time (valid or not).
    pub new_shards: usize,
    /// Shards found corrupt in this scan (each is reported once, here).
    pub corrupt: Vec<CorruptShard>,
    /// Whether the window's content changed.
    pub changed: bool,
}

enum Entry<G: Encode> {
    Loaded(Arc<LoadedShard<G>>),
    Counted(u64),
    Corrupt,
}

/// The replay window over one `shards/` directory. See the [module docs](self).
pub struct ReplayWindow<G: Encode> {
    dir: PathBuf,
    window_positions: u64,
    policy: PolicyTarget,
    entries: BTreeMap<String, Entry<G>>,
    vanished_positions: u64,
    corrupt: Vec<CorruptShard>,
    snapshot: Arc<WindowSnapshot<G>>,
}

impl<G: Encode> ReplayWindow<G> {
    /// An empty window over `dir`, holding the newest `window_positions` positions once scanned,
    /// each with the policy target `policy` chooses (`train.policy_target`).
    #[must_use]
    pub fn new(dir: &Path, window_positions: usize, policy: PolicyTarget) -> ReplayWindow<G> {
        ReplayWindow {
            dir: dir.to_path_buf(),
            window_positions: window_positions as u64,
            policy,
            entries: BTreeMap::new(),
            vanished_positions: 0,
            corrupt: Vec::new(),
            snapshot: Arc::new(WindowSnapshot::empty()),
        }
    }

    /// Lists the directory again, reads what is new and moves the window to the newest shards.
    ///
    /// # Errors
    /// Only if the directory itself cannot be listed (a missing directory counts as empty); a
    /// bad shard is reported in the [`ScanReport`], not as an error.
    pub fn scan(&mut self) -> Result<ScanReport, TrainError> {
        let paths = match shard::list_shards(&self.dir) {
            Ok(paths) => paths,
            Err(shard::ShardError::Io { error, .. }) if error.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(TrainError::Shards(e.to_string())),
        };
        let mut report = ScanReport::default();
        let mut present = std::collections::HashSet::with_capacity(paths.len());
        let mut window: Vec<Arc<LoadedShard<G>>> = Vec::new();
        let mut held = 0u64;
        let newest_first: Vec<(&PathBuf, String)> = paths
            .iter()
            .rev()
            .filter_map(|p| p.file_name().and_then(|n| n.to_str()).map(|n| (p, n.to_owned())))
            .collect();
        // Shards read ahead of the walk below, several at once.
        let mut read_ahead: HashMap<String, Result<LoadedShard<G>, shard::ShardError>> = HashMap::new();
        for (k, (path, name)) in newest_first.iter().enumerate() {
            let name = name.clone();
            present.insert(name.clone());
            let inside = held < self.window_positions;
            let entry = self.entries.remove(&name);
            if entry.is_none() {
                report.new_shards += 1;
            }
            let needs_load = inside && matches!(entry, Some(Entry::Counted(_)) | None);
            if needs_load && !read_ahead.contains_key(&name) {
                // This shard, and the next few the walk has not seen, are read and replayed in
                // parallel (rayon's pool): independent, CPU-bound work. A shard read ahead that
                // ends up outside the window is only counted.
                let ahead = rayon::current_num_threads().max(1);
                let batch: Vec<(&PathBuf, String)> = std::iter::once((*path, name.clone()))
                    .chain(
                        newest_first[k + 1..]
                            .iter()
                            .filter(|(_, n)| !self.entries.contains_key(n))
                            .take(ahead - 1)
                            .map(|(p, n)| (*p, n.clone())),
                    )
                    .collect();
                let policy = self.policy;
                let loaded: Vec<_> =
                    batch.into_par_iter().map(|(p, n)| (n, LoadedShard::<G>::load(p, policy))).collect();
                read_ahead.extend(loaded);
            }
            let (entry, fault) = match (entry, inside) {
                (Some(Entry::Corrupt), _) => (Entry::Corrupt, None),
                (Some(Entry::Loaded(s)), true) => (Entry::Loaded(s), None),
                (Some(Entry::Loaded(s)), false) => (Entry::Counted(s.positions() as u64), None),
                (Some(Entry::Counted(n)), false) => (Entry::Counted(n), None),
                (Some(Entry::Counted(_)) | None, true) => {
                    match read_ahead.remove(&name).unwrap_or_else(|| LoadedShard::<G>::load(path, self.policy)) {
                        Ok(s) => (Entry::Loaded(Arc::new(s)), None),
                        Err(e) => (Entry::Corrupt, Some(e.to_string())),
                    }
                }
                (None, false) => match read_ahead.remove(&name) {
                    Some(Ok(s)) => (Entry::Counted(s.positions() as u64), None),
                    Some(Err(e)) => (Entry::Corrupt, Some(e.to_string())),
                    None => match shard::read_header(path) {
                        Ok((header, _)) if header.game != G::NAME => {
                            (Entry::Corrupt, Some(format!("shard holds {} games, not {}", header.game, G::NAME)))
                        }
                        Ok((_, counts)) => (Entry::Counted(counts.samples), None),
                        Err(e) => (Entry::Corrupt, Some(e.to_string())),
                    },
                },
            };
            if let Some(fault) = fault {
                // The reader's message starts with the path; the name says it already.
                let prefix = format!("{}: ", path.display());
                let fault = fault.strip_prefix(&prefix).map_or(fault.clone(), str::to_owned);
                let bad = CorruptShard { name: name.clone(), fault };
                report.corrupt.push(bad.clone());
                self.corrupt.push(bad);
            }
            if let Entry::Loaded(s) = &entry {
                if inside && s.positions() > 0 {
                    held += s.positions() as u64;
                    window.push(Arc::clone(s));
                }
            }
            self.entries.insert(name, entry);
        }
        // Entries whose files are gone: forget them, but keep their positions in the count.
        let gone: Vec<String> = self.entries.keys().filter(|k| !present.contains(*k)).cloned().collect();
        for name in gone {
            if let Some(entry) = self.entries.remove(&name) {
                self.vanished_positions += match entry {
                    Entry::Loaded(s) => s.positions() as u64,
                    Entry::Counted(n) => n,
                    Entry::Corrupt => 0,
                };
            }
        }
        window.reverse();
        let same = window.len() == self.snapshot.shards.len()
            && window.iter().zip(&self.snapshot.shards).all(|(a, b)| Arc::ptr_eq(a, b));
        if !same {
            let mut ends = Vec::with_capacity(window.len());
            let mut total = 0u64;
            for s in &window {
                total += s.positions() as u64;
                ends.push(total);
            }
            self.snapshot = Arc::new(WindowSnapshot { shards: window, ends });
            report.changed = true;
        }
        Ok(report)
    }

    /// The window as of the last scan.
    #[must_use]
    pub fn snapshot(&self) -> &Arc<WindowSnapshot<G>> {
        &self.snapshot
    }

    /// Every corrupt shard found so far, in the order found.
    #[must_use]
    pub fn corrupt(&self) -> &[CorruptShard] {
        &self.corrupt
    }

    /// Positions in every valid shard seen so far (see the [module docs](self)).
    #[must_use]
    pub fn positions_generated(&self) -> u64 {
        let present: u64 = self
            .entries
            .values()
            .map(|e| match e {
                Entry::Loaded(s) => s.positions() as u64,
                Entry::Counted(n) => *n,
                Entry::Corrupt => 0,
            })
            .sum();
        present + self.vanished_positions
    }

    /// The directory scanned.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The policy target its shards are loaded with.
    #[must_use]
    pub fn policy_target(&self) -> PolicyTarget {
        self.policy
    }
}
