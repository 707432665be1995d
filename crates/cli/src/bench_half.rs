//! `qizero bench half`: does half-precision inference choose the moves fp32 chooses? One net,
//! loaded twice (fp32 and half, the same weights), evaluates a fixed set of positions; the
//! report compares, per position, the legal move each ranks first and the value.

use anyhow::{Context, Result};
use clap::Args;
use encode::Encode;
use game::Game;
use nn::PolicyValueNet;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tch::Tensor;

use crate::GameName;
use crate::bench_net::{NetArgs, NetShape, make_net};

/// Arguments of `qizero bench half`.
#[derive(Args)]
pub struct HalfArgs {
    #[command(flatten)]
    shape: NetShape,
    /// Positions to compare: each the end of a random playout of 0 to 150 plies from the start.
    #[arg(long, default_value_t = 1024)]
    positions: usize,
    /// Seed of the playouts: the same seed gives the same positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Largest |fp32 value - half value| accepted (values are in [-1, 1]).
    #[arg(long, default_value_t = 0.02)]
    value_tolerance: f64,
    /// Where fp32's two best legal moves are closer than this in probability, the position is a
    /// tie: half may choose either.
    #[arg(long, default_value_t = 0.01)]
    tie_margin: f64,
}

/// How two evaluations of the same positions differ.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Comparison {
    pub positions: usize,
    /// Positions where both rank the same legal move first.
    pub same_choice: usize,
    /// Positions where they differ, but fp32's two best moves are within the tie margin.
    pub tie_flips: usize,
    pub max_value_diff: f64,
    pub sum_value_diff: f64,
    /// Largest difference in one legal move's probability.
    pub max_prior_diff: f64,
}

impl Comparison {
    /// Adds one position: each side's priors over the same legal moves, and its value.
    pub(crate) fn add(&mut self, fp32: (&[f32], f32), half: (&[f32], f32), tie_margin: f64) {
        let best = |p: &[f32]| (0..p.len()).max_by(|&a, &b| p[a].total_cmp(&p[b]));
        self.positions += 1;
        let (b32, b16) = (best(fp32.0), best(half.0));
        if b32 == b16 {
            self.same_choice += 1;
        } else if let (Some(b32), Some(b16)) = (b32, b16) {
            if f64::from(fp32.0[b32] - fp32.0[b16]) < tie_margin {
                self.tie_flips += 1;
            }
        }
        let value_diff = f64::from((fp32.1 - half.1).abs());
        self.max_value_diff = self.max_value_diff.max(value_diff);
        self.sum_value_diff += value_diff;
        for (a, b) in fp32.0.iter().zip(half.0) {
            self.max_prior_diff = self.max_prior_diff.max(f64::from((a - b).abs()));
        }
    }

    /// Positions where half chose another move although fp32's choice was clear.
    pub(crate) fn real_flips(&self) -> usize {
        self.positions - self.same_choice - self.tie_flips
    }

    /// Whether half kept every clear choice and every value within `value_tolerance`.
    pub(crate) fn passes(&self, value_tolerance: f64) -> bool {
        self.real_flips() == 0 && self.max_value_diff <= value_tolerance
    }
}

/// `qizero bench half`.
pub fn run(args: &HalfArgs) -> Result<()> {
    anyhow::ensure!(args.positions > 0, "--positions must be at least 1");
    match args.shape.game {
        GameName::Xiangqi => run_game::<xiangqi::Game>(args),
        GameName::Draughts => run_game::<draughts::Game>(args),
    }
}

fn run_game<G: Encode>(args: &HalfArgs) -> Result<()> {
    let fp32 = make_net(&NetArgs { shape: args.shape.clone(), half: false, threads: 0 })?;
    let half = make_net(&NetArgs { shape: args.shape.clone(), half: true, threads: 0 })?;
    anyhow::ensure!(
        half.is_half(),
        "half precision runs on CUDA only, and this net is on {}: there is nothing to compare (use --device cuda)",
        nn::device::device_name(half.device())
    );
    let games = playouts::<G>(args.positions, args.seed);
    let mut comparison = Comparison::default();
    for chunk in games.chunks(256) {
        let a = evaluate(&fp32, chunk).context("evaluating in fp32")?;
        let b = evaluate(&half, chunk).context("evaluating in half precision")?;
        for ((pa, va), (pb, vb)) in a.iter().zip(&b) {
            comparison.add((pa, *va), (pb, *vb), args.tie_margin);
        }
    }
    let c = &comparison;
    println!("positions      {} (random playouts, seed {})", c.positions, args.seed);
    println!(
        "move choice    the same in {} of {}; {} differ where fp32's two best are within {} (ties); {} differ outside ties",
        c.same_choice,
        c.positions,
        c.tie_flips,
        args.tie_margin,
        c.real_flips()
    );
    println!(
        "value          |fp32 - half| max {:.5}, mean {:.5} (tolerance {})",
        c.max_value_diff,
        c.sum_value_diff / c.positions as f64,
        args.value_tolerance
    );
    println!("priors         |fp32 - half| max {:.5} over legal moves", c.max_prior_diff);
    anyhow::ensure!(
        c.passes(args.value_tolerance),
        "half precision is outside the tolerance: {} clear move choices differ, value difference up to {:.5}",
        c.real_flips(),
        c.max_value_diff
    );
    println!("result         PASS: every clear move choice the same, every value within {}", args.value_tolerance);
    Ok(())
}

/// `count` positions, each the end of a seeded random playout from the start (games that end
/// early are cut one ply before their end, so each position has legal moves).
fn playouts<G: Game>(count: usize, seed: u64) -> Vec<G> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let plies = rng.random_range(0..=150);
            let mut game = G::new();
            for _ in 0..plies {
                let moves = game.legal_moves();
                let moves = moves.as_ref();
                if moves.is_empty() {
                    break;
                }
                let mv = moves[rng.random_range(0..moves.len())];
                game.play_unchecked(mv);
                if game.outcome().is_some() {
                    game.undo();
                    break;
                }
            }
            game
        })
        .collect()
}

/// Each position's priors over its legal moves (in `legal_moves` order) and its value.
fn evaluate<G: Encode>(net: &PolicyValueNet, games: &[G]) -> Result<Vec<(Vec<f32>, f32)>> {
    let info = G::ENCODING;
    let refs: Vec<&G> = games.iter().collect();
    let mut planes = vec![0f32; games.len() * info.plane_len()];
    encode::encode_into(&refs, &mut planes);
    let xs = Tensor::from_slice(&planes).view([
        games.len() as i64,
        info.planes as i64,
        info.height as i64,
        info.width as i64,
    ]);
    let (policy, value) = net.f_infer(&xs)?;
    let policy = Vec::<f32>::try_from(&policy.view([-1])).context("reading the policy logits")?;
    let value = Vec::<f32>::try_from(&value.view([-1])).context("reading the values")?;
    let (mut indices, mut priors) = (Vec::new(), Vec::new());
    Ok(games
        .iter()
        .enumerate()
        .map(|(i, game)| {
            indices.clear();
            game.policy_indices(game.legal_moves().as_ref(), &mut indices);
            encode::legal_priors(&policy[i * info.policy_size..(i + 1) * info.policy_size], &indices, &mut priors);
            (priors.clone(), value[i])
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_evaluations_pass() {
        let mut c = Comparison::default();
        c.add((&[0.2, 0.5, 0.3], 0.1), (&[0.2, 0.5, 0.3], 0.1), 0.01);
        assert_eq!((c.positions, c.same_choice, c.tie_flips, c.real_flips()), (1, 1, 0, 0));
        assert!(c.passes(0.0));
    }

    #[test]
    fn a_flip_inside_the_tie_margin_is_a_tie_and_outside_it_fails() {
        let mut c = Comparison::default();
        // fp32 prefers move 1 by 0.005: half choosing move 0 is a tie.
        c.add((&[0.4975, 0.5025], 0.0), (&[0.5025, 0.4975], 0.0), 0.01);
        assert_eq!((c.same_choice, c.tie_flips, c.real_flips()), (0, 1, 0));
        assert!(c.passes(0.02));
        // fp32 prefers move 1 by 0.2: half choosing move 0 is a real flip.
        c.add((&[0.4, 0.6], 0.0), (&[0.6, 0.4], 0.0), 0.01);
        assert_eq!((c.tie_flips, c.real_flips()), (1, 1));
        assert!(!c.passes(0.02));
        assert!((c.max_prior_diff - 0.2).abs() < 1e-6);
    }

    #[test]
    fn a_value_outside_the_tolerance_fails() {
        let mut c = Comparison::default();
        c.add((&[1.0], 0.50), (&[1.0], 0.53), 0.01);
        assert!((c.max_value_diff - 0.03).abs() < 1e-6);
        assert!(c.passes(0.05));
        assert!(!c.passes(0.02));
    }

    #[test]
    fn playouts_are_seeded_and_have_moves() {
        let a = playouts::<xiangqi::Game>(20, 5);
        let b = playouts::<xiangqi::Game>(20, 5);
        assert_eq!(a.iter().map(Game::fen).collect::<Vec<_>>(), b.iter().map(Game::fen).collect::<Vec<_>>());
        assert!(a.iter().all(|g| !g.legal_moves().as_ref().is_empty() && g.outcome().is_none()));
        assert!(a.iter().map(Game::ply).max() > Some(20), "playouts reach past the opening");
    }
}
