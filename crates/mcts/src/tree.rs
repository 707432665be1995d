//! The search tree: nodes and edges in flat arenas (no allocation per node), PUCT selection,
//! backup, proof propagation and subtree compaction. Knows nothing of games beyond a `Copy`
//! move type; [`crate::Search`] drives it.
//!
//! Layout: node 0 is the root. A node owns the contiguous block of edges
//! `first_edge .. first_edge + num_edges`, one per legal move; the moves live in a parallel
//! array (`moves`) so that a block of them is exactly the `&[Move]` an evaluator request needs,
//! and selection touches only the edge statistics. An edge gets a child node the first time a
//! simulation crosses it into a non-terminal position.
//!
//! **Value convention.** A node's `w` is a sum of values from the view of the side to move at
//! that node. An edge's `w` (and so its Q) is from the view of the player making the move,
//! which is the side to move at the edge's parent: the edge and its parent share a view, and
//! the child's is the opposite. Backup negates the value exactly once per ply, when it crosses
//! from a child to the edge above it ([`Tree::backup`]); nothing else flips.
//!
//! **Proofs.** Terminal positions get their exact value from the game layer and are never
//! evaluated. An edge whose child is terminal, or has been proven by minimax over proven
//! children (MCTS-solver style: a node is won if one move wins, lost if all moves lose, drawn if
//! all are settled and the best draws), carries a [`Proof`]; a simulation reaching such an edge
//! backs up its exact value without descending. Positions depend on their history (repetition
//! rules), but every node has exactly one path from the root, so a proof is exact for it.

use serde::{Deserialize, Serialize};

/// No child node (yet), in [`Edge::child`].
pub(crate) const NONE: u32 = u32::MAX;

/// What is known for certain about a move, from the view of the player making it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Proof {
    /// Nothing proven: the move's value is the search's estimate.
    Unknown,
    /// The move wins: it ends the game in the mover's favour, or every reply loses.
    Win,
    /// The move draws by force: best play from both sides ends drawn.
    Draw,
    /// The move loses: it ends the game against the mover (a rule loss such as completing a
    /// perpetual check), or the opponent has a winning reply.
    Loss,
    /// The move completes a draw by repetition that the search charges to the repeater
    /// ([`crate::MctsParams::repetition_penalty`]): its value is exact (minus the penalty, for
    /// the mover) but it is no game result, so minimax over proofs counts it as unknown.
    Repetition,
}

impl Proof {
    /// The exact game value for the mover, if proven (a charged repetition is no result:
    /// `None`).
    #[must_use]
    pub fn value(self) -> Option<f32> {
        match self {
            Proof::Unknown | Proof::Repetition => None,
            Proof::Win => Some(1.0),
            Proof::Draw => Some(0.0),
            Proof::Loss => Some(-1.0),
        }
    }

    /// The exact value the search uses for the mover, if known: a proof's value, or
    /// `repetition` (minus the penalty) for a charged repetition.
    #[inline]
    pub(crate) fn exact(self, repetition: f32) -> Option<f32> {
        if self == Proof::Repetition { Some(repetition) } else { self.value() }
    }

    /// The proof of an exact value (only -1, 0 and +1 occur: game results).
    pub(crate) fn of_value(v: f32) -> Proof {
        if v > 0.0 {
            Proof::Win
        } else if v < 0.0 {
            Proof::Loss
        } else {
            Proof::Draw
        }
    }

    /// The same fact seen from the other player.
    pub(crate) fn flip(self) -> Proof {
        match self {
            Proof::Win => Proof::Loss,
            Proof::Loss => Proof::Win,
            other => other,
        }
    }
}

/// The statistics of one move. `n` and `w` count completed visits; `in_flight` counts visits
/// whose leaf is still waiting for the evaluator (virtual loss).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Edge {
    pub prior: f32,
    pub n: u32,
    /// Sum of backed-up values from the mover's view.
    pub w: f32,
    pub in_flight: u32,
    pub child: u32,
    pub proof: Proof,
}

impl Edge {
    pub(crate) const fn new() -> Edge {
        Edge { prior: 0.0, n: 0, w: 0.0, in_flight: 0, child: NONE, proof: Proof::Unknown }
    }
}

/// A position in the tree.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Node {
    pub first_edge: u32,
    pub num_edges: u32,
    /// Completed visits: the node's own evaluation plus one per backup through an edge.
    pub n: u32,
    /// Sum of backed-up values (its own evaluation included) from the view of its side to move.
    pub w: f32,
    /// Visits below this node still waiting for the evaluator.
    pub in_flight: u32,
    /// False until the evaluator's priors and value have arrived.
    pub expanded: bool,
    /// The evaluator's value of the position (its side to move's view), once expanded: the
    /// Gumbel root's mixed value starts from it.
    pub value: f32,
}

/// What selection needs from the parameters at one node.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SelectParams {
    pub c_puct: f32,
    pub fpu_reduction: f32,
    pub virtual_loss: f32,
    /// The mover's value of a [`Proof::Repetition`] edge: minus the repetition penalty.
    pub repetition: f32,
}

/// The arenas. `edges` and `moves` are parallel.
#[derive(Clone, Debug)]
pub(crate) struct Tree<M> {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    pub moves: Vec<M>,
}

impl<M: Copy> Tree<M> {
    pub fn new() -> Tree<M> {
        Tree { nodes: Vec::new(), edges: Vec::new(), moves: Vec::new() }
    }

    pub fn clear(&mut self) {
        self.nodes.clear();
        self.edges.clear();
        self.moves.clear();
    }

    /// Adds an unexpanded node with one zero-prior edge per move; returns its index.
    pub fn add_node(&mut self, moves: &[M]) -> u32 {
        let index = to_u32(self.nodes.len());
        self.nodes.push(Node {
            first_edge: to_u32(self.edges.len()),
            num_edges: to_u32(moves.len()),
            n: 0,
            w: 0.0,
            in_flight: 0,
            expanded: false,
            value: 0.0,
        });
        self.edges.extend(std::iter::repeat_n(Edge::new(), moves.len()));
        self.moves.extend_from_slice(moves);
        index
    }

    /// The edge indices of `node`.
    #[inline]
    pub fn edge_range(&self, node: u32) -> std::ops::Range<usize> {
        let n = &self.nodes[node as usize];
        n.first_edge as usize..(n.first_edge + n.num_edges) as usize
    }

    /// The moves of `node`, in edge order.
    pub fn node_moves(&self, node: u32) -> &[M] {
        &self.moves[self.edge_range(node)]
    }

    /// The PUCT choice at an expanded node with at least one edge: the edge maximising
    /// `Q + c_puct * P * sqrt(max(1, sum N)) / (1 + N)`, counting in-flight visits as visits
    /// worth `-virtual_loss`, proven edges at their exact value, and unvisited edges at the
    /// first-play-urgency value. Ties go to the earlier edge.
    ///
    /// One pass: every unvisited edge shares the same Q, so the best of them is simply the one
    /// with the largest prior, compared with the best visited edge at the end.
    #[inline]
    pub fn select(&self, node: u32, p: SelectParams) -> usize {
        let nd = &self.nodes[node as usize];
        let range = self.edge_range(node);
        let first = range.start;
        let edges = &self.edges[range];
        let visits = (nd.n.saturating_sub(1) + nd.in_flight).max(1) as f32;
        let explore = p.c_puct * visits.sqrt();
        let mut best_visited = f32::NEG_INFINITY;
        let mut best_visited_i = usize::MAX;
        let mut best_prior = f32::NEG_INFINITY;
        let mut best_prior_i = usize::MAX;
        let mut visited_policy = 0.0f32;
        for (i, e) in edges.iter().enumerate() {
            let n = e.n + e.in_flight;
            if n == 0 && e.proof == Proof::Unknown {
                if e.prior > best_prior {
                    best_prior = e.prior;
                    best_prior_i = i;
                }
                continue;
            }
            visited_policy += e.prior;
            let q = match e.proof.exact(p.repetition) {
                Some(v) => v,
                None => (e.w - p.virtual_loss * e.in_flight as f32) / n as f32,
            };
            let score = q + explore * e.prior / (1 + n) as f32;
            if score > best_visited {
                best_visited = score;
                best_visited_i = i;
            }
        }
        if best_prior_i != usize::MAX {
            let parent_q = if nd.n > 0 { nd.w / nd.n as f32 } else { 0.0 };
            let fpu = parent_q - p.fpu_reduction * visited_policy.sqrt();
            let score = fpu + explore * best_prior;
            if score > best_visited || (score == best_visited && best_prior_i < best_visited_i) {
                return first + best_prior_i;
            }
        }
        first + best_visited_i
    }

    /// Adds virtual visits along `path` (pairs of node and the edge taken from it).
    pub fn add_virtual(&mut self, path: &[(u32, u32)]) {
        for &(node, edge) in path {
            self.nodes[node as usize].in_flight += 1;
            self.edges[edge as usize].in_flight += 1;
        }
    }

    /// Takes back the virtual visits [`Tree::add_virtual`] put along `path`.
    pub fn remove_virtual(&mut self, path: &[(u32, u32)]) {
        for &(node, edge) in path {
            self.nodes[node as usize].in_flight -= 1;
            self.edges[edge as usize].in_flight -= 1;
        }
    }

    /// Removes node `first` and every node after it, with their edges and moves (nothing before
    /// `first` may point at them).
    pub fn truncate(&mut self, first: u32) {
        let Some(node) = self.nodes.get(first as usize) else { return };
        let first_edge = node.first_edge as usize;
        self.nodes.truncate(first as usize);
        self.edges.truncate(first_edge);
        self.moves.truncate(first_edge);
    }

    /// Backs up `value`, from the view of the side to move *after* the last edge of `path`
    /// (the leaf's view), along `path`; with `virtual_visit`, also takes back the virtual visit
    /// each step had. The only place values change sides: once per edge, before adding.
    pub fn backup(&mut self, path: &[(u32, u32)], value: f32, virtual_visit: bool) {
        let mut v = value;
        for &(node, edge) in path.iter().rev() {
            v = -v;
            let e = &mut self.edges[edge as usize];
            e.n += 1;
            e.w += v;
            let nd = &mut self.nodes[node as usize];
            nd.n += 1;
            nd.w += v;
            if virtual_visit {
                e.in_flight -= 1;
                nd.in_flight -= 1;
            }
        }
    }

    /// What minimax over its edges' proofs says about `node`, from its side to move's view.
    pub fn node_proof(&self, node: u32) -> Proof {
        let mut best = Proof::Loss;
        for e in &self.edges[self.edge_range(node)] {
            match e.proof {
                Proof::Win => return Proof::Win,
                Proof::Unknown | Proof::Repetition => best = Proof::Unknown,
                Proof::Draw if best == Proof::Loss => best = Proof::Draw,
                Proof::Draw | Proof::Loss => {}
            }
        }
        best
    }

    /// After the last edge of `path` got a proof, proves what follows higher up: each node on
    /// the path whose edges now settle its value passes the proof to the edge above it.
    pub fn propagate_proof(&mut self, path: &[(u32, u32)]) {
        for i in (1..path.len()).rev() {
            let proof = self.node_proof(path[i].0);
            let above = &mut self.edges[path[i - 1].1 as usize];
            if proof == Proof::Unknown || above.proof != Proof::Unknown {
                return;
            }
            above.proof = proof.flip();
        }
    }

    /// Copies the subtree under `root` into `out` (cleared first), `root` becoming node 0, with
    /// every statistic kept. `queue` is scratch.
    pub fn compact_into(&self, root: u32, out: &mut Tree<M>, queue: &mut Vec<(u32, u32)>) {
        out.clear();
        queue.clear();
        out.nodes.push(self.nodes[root as usize]);
        queue.push((root, 0));
        let mut head = 0;
        while let Some(&(old, new)) = queue.get(head) {
            head += 1;
            let range = self.edge_range(old);
            let first = to_u32(out.edges.len());
            out.nodes[new as usize].first_edge = first;
            out.moves.extend_from_slice(&self.moves[range.clone()]);
            for &edge in &self.edges[range] {
                let mut edge = edge;
                if edge.child != NONE {
                    let child = to_u32(out.nodes.len());
                    out.nodes.push(self.nodes[edge.child as usize]);
                    queue.push((edge.child, child));
                    edge.child = child;
                }
                out.edges.push(edge);
            }
        }
    }
}

/// An arena index. Trees beyond 4 billion edges would need a bigger index type.
#[inline]
pub(crate) fn to_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or_else(|_| panic!("search tree arena index {i} exceeds u32"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> SelectParams {
        SelectParams { c_puct: 1.5, fpu_reduction: 0.0, virtual_loss: 1.0, repetition: 0.0 }
    }

    /// A root with three edges, expanded with the given priors.
    fn tree(priors: &[f32]) -> Tree<u8> {
        let mut t = Tree::new();
        let moves: Vec<u8> = (0..priors.len()).map(|i| i as u8).collect();
        t.add_node(&moves);
        for (e, &p) in t.edges.iter_mut().zip(priors) {
            e.prior = p;
        }
        t.nodes[0].expanded = true;
        t.nodes[0].n = 1;
        t
    }

    #[test]
    fn unvisited_moves_go_by_prior_then_order() {
        let t = tree(&[0.2, 0.5, 0.3]);
        assert_eq!(t.select(0, params()), 1);
        let t = tree(&[0.5, 0.5]);
        assert_eq!(t.select(0, params()), 0);
    }

    #[test]
    fn backup_flips_once_per_ply() {
        let mut t = tree(&[0.5, 0.5]);
        let child = t.add_node(&[7, 8]);
        t.edges[0].child = child;
        t.nodes[child as usize].expanded = true;
        t.nodes[child as usize].n = 1;
        // A leaf two plies below the root, valued +1 for its side to move (the root's side).
        let path = [(0, 0), (child, 2)];
        t.add_virtual(&path);
        assert_eq!(t.edges[0].in_flight, 1);
        t.backup(&path, 1.0, true);
        assert_eq!(t.edges[2].w, -1.0, "the child's move is bad for its mover");
        assert_eq!(t.nodes[child as usize].w, -1.0);
        assert_eq!(t.edges[0].w, 1.0, "the root's move is good for the root");
        assert_eq!(t.nodes[0].w, 1.0);
        assert_eq!((t.nodes[0].n, t.edges[0].n, t.edges[0].in_flight, t.nodes[0].in_flight), (2, 1, 0, 0));
    }

    #[test]
    fn virtual_loss_steers_away() {
        let mut t = tree(&[0.5, 0.5]);
        t.add_virtual(&[(0, 0)]);
        assert_eq!(t.select(0, params()), 1);
    }

    #[test]
    fn proofs_propagate_by_minimax() {
        let mut t = tree(&[0.5, 0.5]);
        let child = t.add_node(&[7, 8]);
        t.edges[0].child = child;
        // One reply loses for the child's side to move: nothing proven yet.
        t.edges[2].proof = Proof::Loss;
        t.propagate_proof(&[(0, 0), (child, 2)]);
        assert_eq!(t.edges[0].proof, Proof::Unknown);
        // The other reply draws: the child is drawn, so is the root's move.
        t.edges[3].proof = Proof::Draw;
        t.propagate_proof(&[(0, 0), (child, 3)]);
        assert_eq!(t.edges[0].proof, Proof::Draw);
        // A winning reply makes the move into it a loss.
        let mut t = tree(&[0.5, 0.5]);
        let child = t.add_node(&[7, 8]);
        t.edges[1].child = child;
        t.edges[3].proof = Proof::Win;
        t.propagate_proof(&[(0, 1), (child, 3)]);
        assert_eq!(t.edges[1].proof, Proof::Loss);
    }

    #[test]
    fn compaction_keeps_the_subtree() {
        let mut t = tree(&[0.5, 0.5]);
        let a = t.add_node(&[10, 11]);
        let b = t.add_node(&[20]);
        t.edges[1].child = a;
        t.edges[3].child = b; // under a
        t.edges[3].n = 5;
        t.nodes[a as usize].n = 9;
        let mut out = Tree::new();
        let mut queue = Vec::new();
        t.compact_into(a, &mut out, &mut queue);
        assert_eq!(out.nodes.len(), 2);
        assert_eq!(out.nodes[0].n, 9);
        assert_eq!(out.node_moves(0), &[10, 11]);
        assert_eq!(out.edges[1].n, 5);
        assert_eq!(out.node_moves(out.edges[1].child), &[20]);
    }
}
