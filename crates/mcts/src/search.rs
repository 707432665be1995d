//! [`Search`]: one tree for one game. Gathers leaves with virtual loss, hands them to an
//! evaluator in batches, backs the answers up, and afterwards reports the root statistics,
//! picks the move to play and moves the root down the tree (keeping the subtree).
//!
//! A round ([`Search::gather`] then [`Search::apply`], driven by [`crate::search_many`]) walks
//! down from the root with PUCT, playing moves on the tree's own game and undoing them on the
//! way back, so the game is always at the root between descents. A descent ends:
//! - at a proven or terminal edge: the exact value is backed up at once (a *terminal hit*; the
//!   game layer's [`game::Game::outcome`] decides, so mates, repetition rules and move-count
//!   draws count exactly as in a game and are never evaluated);
//! - at a new position: its legal moves become the child's edges, a copy of the game goes into
//!   the batch, and every edge on the path gets a virtual visit (a *leaf*);
//! - at a child still waiting for the evaluator (a *collision*): the tree stops gathering for
//!   this round, so the batch never holds one position twice.
//!
//! When a tree gets a new root (the first round, or [`Search::advance`]), every root move not yet
//! tried is played once to record immediate results (mate, rule losses) as proofs, so the move
//! choice sees them even if the search never visits them.
//!
//! Every leaf and every terminal hit is one simulation: after `run(sims)` the root's edges hold
//! exactly `sims` more visits. Expanding the root itself is not a simulation.
//!
//! All randomness (root noise, sampling the move) comes from one `StdRng` seeded at
//! construction, so the same seed, evaluator and calls give the same search.

use crate::evaluator::{EvalError, EvalRequest, Evaluation, Evaluator};
use crate::gumbel::{GumbelRoot, Sigma, gumbel_of_uniform, improved_policy};
use crate::many::{SearchStats, search_many};
use crate::noise::dirichlet;
use crate::params::MctsParams;
use crate::tree::{Edge, NONE, Proof, SelectParams, Tree, to_u32};
use game::Game;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A leaf waiting for the evaluator: its node and the path to it (a range of `Search::paths`).
#[derive(Copy, Clone, Debug)]
struct Pending {
    node: u32,
    path_start: u32,
    path_end: u32,
}

/// How one descent ended.
enum Descent {
    Leaf,
    Terminal,
    Collision,
}

/// The statistics of one root move, from [`Search::root_stats`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MoveStats<M> {
    /// The move.
    pub mv: M,
    /// Completed visits (N).
    pub visits: u32,
    /// Mean backed-up value from the mover's view (Q = W / N); `None` if never visited.
    pub q: Option<f32>,
    /// The prior the search used (P), root noise included.
    pub prior: f32,
    /// What is proven about the move.
    pub proof: Proof,
}

/// One search tree over one game. See the module docs for how a search runs.
#[derive(Debug)]
pub struct Search<G: Game> {
    game: G,
    params: MctsParams,
    rng: StdRng,
    tree: Tree<G::Move>,
    /// The arenas the next [`Search::advance`] compacts into (kept to reuse their capacity).
    spare: Tree<G::Move>,
    queue: Vec<(u32, u32)>,
    /// This round's leaves, their paths (flat), and copies of their games (`leaf_games[k]` is
    /// `pending[k]`'s; the vector only grows, slots are overwritten with `clone_from`).
    pending: Vec<Pending>,
    paths: Vec<(u32, u32)>,
    leaf_games: Vec<G>,
    noise_wanted: bool,
    noise_applied: bool,
    /// A Gumbel search asked for ([`Search::start_gumbel`]) and not yet begun: its simulations
    /// and the scale of its Gumbel draws (0: no draws).
    gumbel_wanted: Option<(u32, f32)>,
    /// The Gumbel search running at this root.
    gumbel: Option<GumbelRoot>,
}

impl<G: Game> Search<G> {
    /// A search of `game` (the root: its position and history) with `params`; `seed` drives
    /// every random choice this tree makes.
    #[must_use]
    pub fn new(game: G, params: MctsParams, seed: u64) -> Search<G> {
        Search {
            game,
            params,
            rng: StdRng::seed_from_u64(seed),
            tree: Tree::new(),
            spare: Tree::new(),
            queue: Vec::new(),
            pending: Vec::new(),
            paths: Vec::new(),
            leaf_games: Vec::new(),
            noise_wanted: false,
            noise_applied: false,
            gumbel_wanted: None,
            gumbel: None,
        }
    }

    /// The game at the root.
    #[must_use]
    pub fn game(&self) -> &G {
        &self.game
    }

    /// The parameters.
    #[must_use]
    pub fn params(&self) -> &MctsParams {
        &self.params
    }

    /// Nodes in the tree (expanded positions), for diagnostics.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.tree.nodes.len()
    }

    /// Runs `simulations` simulations on this tree alone, `leaves_per_batch` leaves per evaluator
    /// call (fewer when a collision ends a round early). Does nothing if the game is over.
    ///
    /// # Errors
    /// As [`search_many`]: the evaluator failed or broke its contract. The failed round's
    /// leaves are dropped and the tree is left consistent, holding the simulations completed
    /// before the failure: it may be read, searched again or advanced.
    pub fn run(&mut self, evaluator: &dyn Evaluator<G>, simulations: u32) -> Result<SearchStats, EvalError> {
        search_many(std::slice::from_mut(self), evaluator, simulations)
    }

    /// Asks for Dirichlet noise (`dirichlet_alpha`, `dirichlet_epsilon`) on the root priors:
    /// applied now if the root is expanded, else as soon as it is. Once per root: calling again
    /// before [`Search::advance`] does nothing. The noise draws from the tree's seeded generator.
    pub fn add_root_noise(&mut self) {
        self.noise_wanted = true;
        self.apply_root_plans();
    }

    /// Starts a Gumbel root search of `simulations` simulations at this root (see the
    /// [`crate::gumbel`] module docs): now if the root is expanded, else as soon as it is. The
    /// next `simulations` simulations then visit the root moves as Gumbel-Top-k and Sequential
    /// Halving plan, further ones by PUCT; [`Search::choose_move`] plays the plan's choice and
    /// [`Search::improved_policy`] is the policy target. Visits kept from an earlier move stay
    /// in the statistics but are not part of the plan. The Gumbel draws come from the tree's
    /// seeded generator. Calling it again restarts the plan with new draws.
    pub fn start_gumbel(&mut self, simulations: u32) {
        self.start_gumbel_tempered(simulations, 1.0);
    }

    /// [`Search::start_gumbel`] with the Gumbel draws scaled by `temperature` (the temperature
    /// [`Search::choose_move`] will be given): the plan then runs on `(log P + sigma(Q)) / T`,
    /// so the moves considered are a sample from `P^(1/T)` without replacement and a
    /// temperature-`T` choice one from about `softmax((log P + sigma(Q)) / T)`. 1 is
    /// [`Search::start_gumbel`]; a temperature of 0 or less keeps the draws unscaled (the
    /// choice at temperature 0 leaves them out). The improved policy leaves the draws out, as
    /// always.
    pub fn start_gumbel_tempered(&mut self, simulations: u32, temperature: f32) {
        let scale = if temperature > 0.0 { temperature } else { 1.0 };
        self.gumbel_wanted = Some((simulations, scale));
        self.gumbel = None;
        self.apply_root_plans();
    }

    /// [`Search::start_gumbel`] without the Gumbel draws (every `g` is 0), for play rather than
    /// self-play: the `m` moves with the highest priors are considered, Sequential Halving keeps
    /// the better half by `log P + sigma(Q)`, and [`Search::choose_move`] plays the best
    /// survivor whatever the temperature. The same root and net give the same move, whatever
    /// the seed.
    pub fn start_gumbel_greedy(&mut self, simulations: u32) {
        self.gumbel_wanted = Some((simulations, 0.0));
        self.gumbel = None;
        self.apply_root_plans();
    }

    /// True while a Gumbel search runs (or waits for the root to be expanded) at this root.
    #[must_use]
    pub fn gumbel_active(&self) -> bool {
        self.gumbel.is_some() || self.gumbel_wanted.is_some()
    }

    fn sigma(&self) -> Sigma {
        Sigma {
            c_visit: self.params.gumbel_c_visit,
            c_scale: self.params.gumbel_c_scale,
            repetition: self.params.repetition_value(),
        }
    }

    /// Applies the root noise and starts the Gumbel plan that were asked for, once the root is
    /// expanded.
    fn apply_root_plans(&mut self) {
        self.apply_noise_if_due();
        if !self.tree.nodes.first().is_some_and(|n| n.expanded) {
            return;
        }
        if let Some((simulations, scale)) = self.gumbel_wanted.take() {
            let edges = self.tree.edge_range(0).len();
            let noise: Vec<f32> = if scale > 0.0 {
                (0..edges).map(|_| scale * gumbel_of_uniform(self.rng.random::<f64>())).collect()
            } else {
                vec![0.0; edges]
            };
            let considered = self.params.gumbel_considered as usize;
            self.gumbel = Some(GumbelRoot::new(noise, edges, considered, simulations as usize));
        }
    }

    fn apply_noise_if_due(&mut self) {
        if !self.noise_wanted || self.noise_applied || !self.tree.nodes.first().is_some_and(|n| n.expanded) {
            return;
        }
        self.noise_applied = true;
        let eps = self.params.dirichlet_epsilon;
        let range = self.tree.edge_range(0);
        if range.len() < 2 || eps <= 0.0 {
            return;
        }
        let mut noise = vec![0.0; range.len()];
        dirichlet(&mut self.rng, self.params.dirichlet_alpha, &mut noise);
        for (edge, x) in self.tree.edges[range].iter_mut().zip(noise) {
            edge.prior = (1.0 - eps) * edge.prior + eps * x;
        }
    }

    /// The root's edges, empty before the first search.
    fn root_edges(&self) -> &[Edge] {
        match self.tree.nodes.first() {
            Some(_) => &self.tree.edges[self.tree.edge_range(0)],
            None => &[],
        }
    }

    /// The root's moves, in edge order, empty before the first search.
    fn root_moves(&self) -> &[G::Move] {
        if self.tree.nodes.is_empty() { &[] } else { self.tree.node_moves(0) }
    }

    /// Visits per root move (every legal move, in the search's order); empty before the first
    /// search.
    #[must_use]
    pub fn root_visits(&self) -> Vec<(G::Move, u32)> {
        self.root_moves().iter().zip(self.root_edges()).map(|(&mv, e)| (mv, e.n)).collect()
    }

    /// Visits, Q, prior and proof per root move; empty before the first search.
    #[must_use]
    pub fn root_stats(&self) -> Vec<MoveStats<G::Move>> {
        self.root_moves()
            .iter()
            .zip(self.root_edges())
            .map(|(&mv, e)| MoveStats {
                mv,
                visits: e.n,
                q: (e.n > 0).then(|| e.w / e.n as f32),
                prior: e.prior,
                proof: e.proof,
            })
            .collect()
    }

    /// Total visits of the root's moves: the simulations this tree holds (reused ones included).
    #[must_use]
    pub fn root_visit_count(&self) -> u32 {
        self.root_edges().iter().map(|e| e.n).sum()
    }

    /// The principal variation: from the root, the most visited move (ties to the higher
    /// prior) while it has visits, at most `max_len` moves. Empty before the first simulation.
    #[must_use]
    pub fn principal_variation(&self, max_len: usize) -> Vec<G::Move> {
        let mut line = Vec::new();
        let mut node = 0u32;
        while line.len() < max_len && (node as usize) < self.tree.nodes.len() {
            let range = self.tree.edge_range(node);
            let best = range.filter(|&i| self.tree.edges[i].n > 0).max_by(|&a, &b| {
                let (ea, eb) = (&self.tree.edges[a], &self.tree.edges[b]);
                // Earlier edges win ties, as in `choose_move`.
                (ea.n, ea.prior).partial_cmp(&(eb.n, eb.prior)).unwrap_or(std::cmp::Ordering::Equal).then(b.cmp(&a))
            });
            let Some(i) = best else { break };
            line.push(self.tree.moves[i]);
            let child = self.tree.edges[i].child;
            if child == NONE || !self.tree.nodes[child as usize].expanded {
                break;
            }
            node = child;
        }
        line
    }

    /// The shape of the tree, as engines report it: the mean and the greatest depth (in plies
    /// below the root) of its expanded positions, the root excluded. `(0.0, 0)` for a tree with
    /// nothing below the root. Walks the whole tree.
    #[must_use]
    pub fn depth_stats(&self) -> (f64, u32) {
        if self.tree.nodes.is_empty() {
            return (0.0, 0);
        }
        let (mut sum, mut count, mut max) = (0u64, 0u64, 0u32);
        let mut stack = vec![(0u32, 0u32)];
        while let Some((node, depth)) = stack.pop() {
            if depth > 0 {
                sum += u64::from(depth);
                count += 1;
                max = max.max(depth);
            }
            for i in self.tree.edge_range(node) {
                let child = self.tree.edges[i].child;
                if child != NONE && self.tree.nodes[child as usize].expanded {
                    stack.push((child, depth + 1));
                }
            }
        }
        if count == 0 { (0.0, 0) } else { (sum as f64 / count as f64, max) }
    }

    /// The root's mean value from its side to move's view (its own evaluation and every
    /// simulation averaged); 0 before the first search.
    #[must_use]
    pub fn root_value(&self) -> f32 {
        match self.tree.nodes.first() {
            Some(root) if root.n > 0 => root.w / root.n as f32,
            _ => 0.0,
        }
    }

    /// What is proven about the root from its side to move's view: [`Proof::Win`] if some move
    /// wins by force, [`Proof::Loss`] or [`Proof::Draw`] if every move is settled and the best
    /// loses or draws, else [`Proof::Unknown`].
    #[must_use]
    pub fn root_proof(&self) -> Proof {
        if self.tree.nodes.is_empty() { Proof::Unknown } else { self.tree.node_proof(0) }
    }

    /// The visit distribution over the root moves (pi, the policy training target): each
    /// move's share of the root visits, every legal move listed, in the search's order. Empty
    /// before the first simulation.
    #[must_use]
    pub fn policy_target(&self) -> Vec<(G::Move, f32)> {
        let total = self.root_visit_count();
        if total == 0 {
            return Vec::new();
        }
        let total = total as f32;
        self.root_moves().iter().zip(self.root_edges()).map(|(&mv, e)| (mv, e.n as f32 / total)).collect()
    }

    /// The improved policy over the root moves: `softmax(log P + sigma(completed Q))`, every
    /// legal move listed in the search's order, with the `gumbel_c_visit` and `gumbel_c_scale`
    /// of the parameters (see [`crate::gumbel`]). Defined for any searched root, PUCT or
    /// Gumbel; empty before the root is expanded.
    #[must_use]
    pub fn improved_policy(&self) -> Vec<(G::Move, f32)> {
        let Some(root) = self.tree.nodes.first().filter(|n| n.expanded) else { return Vec::new() };
        let shares = improved_policy(root.value, self.root_edges(), self.sigma());
        self.root_moves().iter().copied().zip(shares).collect()
    }

    /// The move to play; `None` if the game is over.
    ///
    /// The rules come first: a proven win (the most visited one) is always played, and a
    /// proven loss (such as a move that completes a perpetual check, or walks into mate) never
    /// while any other move exists. Among the rest, `temperature` 0 plays the most visited move
    /// (ties to the higher prior, then the earlier move); a positive temperature samples with
    /// probability proportional to `N^(1/temperature)` from the tree's seeded generator. Before
    /// any simulation, a legal move is drawn uniformly at random (also seeded).
    ///
    /// With a Gumbel search at this root ([`Search::start_gumbel`]) the move is instead the
    /// plan's: the highest `g + log P + sigma(Q)` among the most visited moves of the search,
    /// the Gumbel draws `g` included when `temperature` is positive (a sample from about the
    /// improved policy) and left out at 0 (the greedy choice). The proof rules above still
    /// come first.
    pub fn choose_move(&mut self, temperature: f32) -> Option<G::Move> {
        if self.game.outcome().is_some() {
            return None;
        }
        // Field borrows, not `root_edges()`: the generator is borrowed mutably below.
        let edges: &[Edge] = if self.tree.nodes.is_empty() { &[] } else { &self.tree.edges[self.tree.edge_range(0)] };
        if edges.iter().all(|e| e.n == 0) {
            let moves = self.game.legal_moves();
            let moves = moves.as_ref();
            if moves.is_empty() {
                return None;
            }
            return Some(moves[self.rng.random_range(0..moves.len())]);
        }
        let wins = edges.iter().any(|e| e.proof == Proof::Win);
        let avoid_losses = edges.iter().any(|e| e.proof != Proof::Loss);
        let allowed = |e: &Edge| {
            if wins { e.proof == Proof::Win } else { !avoid_losses || e.proof != Proof::Loss }
        };
        let most_visited = edges
            .iter()
            .enumerate()
            .filter(|(_, e)| allowed(e))
            .fold(None::<(usize, u32, f32)>, |best, (i, e)| match best {
                Some((_, n, p)) if (n, p) >= (e.n, e.prior) => best,
                _ => Some((i, e.n, e.prior)),
            })
            .map(|(i, n, _)| (i, n));
        let (mut pick, max_n) = most_visited?;
        if let (Some(gumbel), Some(root)) = (&self.gumbel, self.tree.nodes.first())
            && !wins
            && let Some(i) = gumbel.choice(root.value, edges, self.sigma(), temperature > 0.0, |i| allowed(&edges[i]))
        {
            return Some(self.root_moves()[i]);
        }
        if temperature > 0.0 && !wins && max_n > 0 {
            let inv_t = 1.0 / f64::from(temperature);
            let weight = |e: &Edge| {
                if allowed(e) && e.n > 0 { (f64::from(e.n) / f64::from(max_n)).powf(inv_t) } else { 0.0 }
            };
            let total: f64 = edges.iter().map(weight).sum();
            let mut x = self.rng.random::<f64>() * total;
            for (i, e) in edges.iter().enumerate() {
                let w = weight(e);
                if w > 0.0 {
                    pick = i;
                    if x < w {
                        break;
                    }
                    x -= w;
                }
            }
        }
        Some(self.root_moves()[pick])
    }

    /// [`Search::choose_move`] at the temperature the parameters' schedule gives for the
    /// current game ply ([`MctsParams::temperature_at`]).
    pub fn choose_move_scheduled(&mut self) -> Option<G::Move> {
        let temperature = self.params.temperature_at(self.game.ply());
        self.choose_move(temperature)
    }

    /// Plays `mv` (which must be legal) at the root and keeps its subtree with every statistic
    /// as the new tree; if the move was never expanded, the tree starts afresh. Root noise is
    /// not carried over: call [`Search::add_root_noise`] again for the new root.
    pub fn advance(&mut self, mv: G::Move) {
        let child = self
            .root_moves()
            .iter()
            .position(|&m| m == mv)
            .map(|i| self.root_edges()[i].child)
            .filter(|&c| c != NONE && self.tree.nodes[c as usize].expanded);
        self.game.play_unchecked(mv);
        match child {
            Some(child) => {
                self.tree.compact_into(child, &mut self.spare, &mut self.queue);
                std::mem::swap(&mut self.tree, &mut self.spare);
                self.prove_root_moves();
            }
            None => self.tree.clear(),
        }
        self.noise_wanted = false;
        self.noise_applied = false;
        self.gumbel_wanted = None;
        self.gumbel = None;
    }

    /// Plays every root move not yet tried and records the ones that end the game as proven,
    /// so that the move choice sees an immediate win or rule loss even if the search never
    /// visits it (a net may give a mate a tiny prior). Costs one play and one result per move,
    /// once per root; inner nodes learn this only by visiting, unless
    /// [`MctsParams::prove_leaves`] does the same at every new node.
    fn prove_root_moves(&mut self) {
        self.prove_moves(0);
    }

    /// Plays every move of `node` (whose position the tree's game is at) not yet tried or
    /// proven, and records the ones that end the game as proofs.
    fn prove_moves(&mut self, node: u32) {
        for i in self.tree.edge_range(node) {
            let edge = self.tree.edges[i];
            if edge.child != NONE || edge.proof != Proof::Unknown {
                continue;
            }
            self.game.play_unchecked(self.tree.moves[i]);
            if let Some(outcome) = self.game.outcome() {
                let (_, proof) = self.terminal(outcome);
                self.tree.edges[i].proof = proof;
            }
            self.game.undo();
        }
    }

    /// A finished game at the tree's current position: its value to the side to move there,
    /// and the proof for the move that led to it. A draw by repetition with a
    /// [`MctsParams::repetition_penalty`] is worth the penalty to the side to move (the repeater
    /// pays it): a [`Proof::Repetition`], exact but no result, which minimax passes over.
    fn terminal(&self, outcome: game::Outcome) -> (f32, Proof) {
        let penalty = self.params.repetition_penalty;
        if penalty > 0.0 && outcome == game::Outcome::Draw(game::DrawReason::Repetition) {
            return (penalty, Proof::Repetition);
        }
        let v = outcome.value_for(self.game.side_to_move());
        (v, Proof::of_value(-v))
    }

    /// Leaves waiting for the evaluator this round.
    pub(crate) fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// True if the root position ends the game (nothing to search).
    pub(crate) fn is_over(&self) -> bool {
        self.game.outcome().is_some()
    }

    /// Gathers up to `leaves_per_batch` leaves for this round, spending one of `budget` per leaf
    /// or terminal hit. The first round of a new tree gathers only the root (free).
    pub(crate) fn gather(&mut self, budget: &mut u32, stats: &mut SearchStats) {
        debug_assert!(self.pending.is_empty());
        if *budget == 0 {
            return;
        }
        if self.tree.nodes.is_empty() {
            let moves = self.game.legal_moves();
            let node = self.tree.add_node(moves.as_ref());
            self.prove_root_moves();
            self.push_pending(node, 0);
            return;
        }
        let limit = self.params.leaves_per_batch.max(1) as usize;
        while *budget > 0 && self.pending.len() < limit {
            match self.descend() {
                Descent::Leaf => {}
                Descent::Terminal => stats.terminal_hits += 1,
                Descent::Collision => {
                    // Not a simulation: nothing was learnt.
                    stats.collisions += 1;
                    break;
                }
            }
            *budget -= 1;
            stats.simulations += 1;
        }
    }

    /// Records a leaf at `node` whose path starts at `path_start` in `paths`, with a copy of the
    /// current game.
    fn push_pending(&mut self, node: u32, path_start: usize) {
        let k = self.pending.len();
        if k < self.leaf_games.len() {
            self.leaf_games[k].clone_from(&self.game);
        } else {
            self.leaf_games.push(self.game.clone());
        }
        self.pending.push(Pending { node, path_start: to_u32(path_start), path_end: to_u32(self.paths.len()) });
    }

    /// One walk from the root; see the module docs.
    fn descend(&mut self) -> Descent {
        let start = self.paths.len();
        let mut node = 0u32;
        let mut depth = 0;
        let root = SelectParams {
            c_puct: self.params.c_puct,
            fpu_reduction: self.params.fpu_reduction_root,
            virtual_loss: self.params.virtual_loss,
            repetition: self.params.repetition_value(),
        };
        let inner = SelectParams { fpu_reduction: self.params.fpu_reduction, ..root };
        let end = loop {
            let e = match (&self.gumbel, node) {
                (Some(gumbel), 0) => {
                    let raw = self.tree.nodes[0].value;
                    match gumbel.select(raw, &self.tree.edges[self.tree.edge_range(0)], self.sigma()) {
                        Some(i) => self.tree.edge_range(0).start + i,
                        None => self.tree.select(0, root),
                    }
                }
                _ => self.tree.select(node, if node == 0 { root } else { inner }),
            };
            if node == 0 {
                self.count_gumbel_visit(e, 1);
            }
            self.paths.push((node, to_u32(e)));
            let edge = self.tree.edges[e];
            if let Some(v) = edge.proof.exact(self.params.repetition_value()) {
                // `v` is the mover's; backup takes the view after the move.
                self.tree.backup(&self.paths[start..], -v, false);
                break Descent::Terminal;
            }
            self.game.play_unchecked(self.tree.moves[e]);
            depth += 1;
            if edge.child != NONE {
                if self.tree.nodes[edge.child as usize].expanded {
                    node = edge.child;
                    continue;
                }
                break Descent::Collision;
            }
            let moves = self.game.legal_moves();
            let outcome = self.game.outcome();
            if outcome.is_some() || moves.as_ref().is_empty() {
                // The game layer lists no move only when the game is over; a draw is the
                // only safe reading of a game without moves and without a result.
                debug_assert!(outcome.is_some(), "no legal move but no result in {:?}", self.game);
                let (v, proof) = outcome.map_or((0.0, Proof::Draw), |o| self.terminal(o));
                self.tree.edges[e].proof = proof;
                self.tree.backup(&self.paths[start..], v, false);
                self.tree.propagate_proof(&self.paths[start..]);
                break Descent::Terminal;
            }
            let child = self.tree.add_node(moves.as_ref());
            self.tree.edges[e].child = child;
            if self.params.prove_leaves {
                self.prove_moves(child);
                let proof = self.tree.node_proof(child);
                if let Some(v) = proof.value() {
                    // Settled by one of its moves (a mate on the board): exact, never evaluated.
                    self.tree.truncate(child);
                    self.tree.edges[e].child = NONE;
                    self.tree.edges[e].proof = proof.flip();
                    self.tree.backup(&self.paths[start..], v, false);
                    self.tree.propagate_proof(&self.paths[start..]);
                    break Descent::Terminal;
                }
            }
            self.tree.add_virtual(&self.paths[start..]);
            self.push_pending(child, start);
            break Descent::Leaf;
        };
        for _ in 0..depth {
            self.game.undo();
        }
        if matches!(end, Descent::Collision) {
            // Nothing was learnt: the plan gets the visit back.
            self.count_gumbel_visit(self.paths[start].1 as usize, -1);
        }
        if !matches!(end, Descent::Leaf) {
            self.paths.truncate(start);
        }
        end
    }

    /// Counts (`+1`) or takes back (`-1`) one visit of the running Gumbel plan through root edge
    /// `edge` (an index into the tree's edges).
    fn count_gumbel_visit(&mut self, edge: usize, delta: i32) {
        let first = self.tree.edge_range(0).start;
        if let Some(gumbel) = &mut self.gumbel
            && let Some(count) = gumbel.counts.get_mut(edge - first)
        {
            if delta > 0 {
                *count += 1;
                gumbel.done += 1;
            } else {
                *count = count.saturating_sub(1);
                gumbel.done = gumbel.done.saturating_sub(1);
            }
        }
    }

    /// Adds this round's requests to `batch`, in pending order.
    pub(crate) fn push_requests<'a>(&'a self, batch: &mut Vec<EvalRequest<'a, G>>) {
        for (p, game) in self.pending.iter().zip(&self.leaf_games) {
            batch.push(EvalRequest { game, moves: self.tree.node_moves(p.node) });
        }
    }

    /// Ends a round whose evaluations will not come (the evaluator failed): takes back every
    /// waiting leaf's virtual visits, unlinks the leaf from its parent edge and removes the
    /// nodes made for the leaves, so the tree is what it was before the round plus the round's
    /// terminal hits. The leaves are the last nodes added (a round adds no other node), so
    /// removing them is a truncation of the arenas.
    pub(crate) fn drop_round(&mut self) {
        let Some(first) = self.pending.first().map(|p| p.node) else { return };
        for k in 0..self.pending.len() {
            let p = self.pending[k];
            let path = &self.paths[p.path_start as usize..p.path_end as usize];
            let root_edge = path.first().map(|&(_, edge)| edge as usize);
            self.tree.remove_virtual(path);
            if let Some(&(_, edge)) = path.last() {
                self.tree.edges[edge as usize].child = NONE;
            }
            if let Some(edge) = root_edge.filter(|_| first != 0) {
                self.count_gumbel_visit(edge, -1);
            }
        }
        debug_assert!(
            self.pending.iter().enumerate().all(|(k, p)| p.node as usize == first as usize + k)
                && first as usize + self.pending.len() == self.tree.nodes.len(),
            "a round's leaves are the last nodes of the tree"
        );
        self.tree.truncate(first);
        self.pending.clear();
        self.paths.clear();
    }

    /// Takes this round's evaluations (one per pending leaf, in order) from `evals`, expands and
    /// backs up every leaf, and ends the round. The caller has checked the answer against the
    /// contract (one evaluation per leaf, one prior per move).
    pub(crate) fn apply(&mut self, evals: &mut impl Iterator<Item = Evaluation>) {
        for k in 0..self.pending.len() {
            let p = self.pending[k];
            let Some(eval) = evals.next() else { unreachable!("the answer was checked: one evaluation per leaf") };
            let range = self.tree.edge_range(p.node);
            debug_assert_eq!(eval.priors.len(), range.len(), "the answer was checked: one prior per move");
            let clean = |x: f32| if x.is_finite() && x > 0.0 { x } else { 0.0 };
            let sum: f32 = eval.priors.iter().map(|&x| clean(x)).sum();
            let uniform = 1.0 / range.len().max(1) as f32;
            for (edge, &x) in self.tree.edges[range].iter_mut().zip(&eval.priors) {
                edge.prior = if sum > 0.0 { clean(x) / sum } else { uniform };
            }
            let value = if eval.value.is_finite() { eval.value.clamp(-1.0, 1.0) } else { 0.0 };
            let node = &mut self.tree.nodes[p.node as usize];
            node.expanded = true;
            node.value = value;
            node.n += 1;
            node.w += value;
            let path = &self.paths[p.path_start as usize..p.path_end as usize];
            self.tree.backup(path, value, true);
        }
        self.pending.clear();
        self.paths.clear();
        self.apply_root_plans();
    }
}

#[cfg(test)]
mod tests;
