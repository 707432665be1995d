//! [`MctsAgent`]: PUCT search guided by an evaluator (a checkpoint's net, or the rules alone),
//! and [`NetSource`], how the arena gets an evaluator for a checkpoint without linking a net
//! library itself.
//!
//! The agent is the engine's [`NetSearcher`], the searcher behind `qizero uci --weights`, so a
//! checkpoint plays the same in a match as in a GUI. Each move runs until the root holds the
//! spec's `sims` visits and plays the most visited move (no noise, temperature 0), so with the
//! same evaluator a game is reproducible. With `reuse` (the default) the subtree of the moves
//! played since the agent's last move is kept, and its visits count towards `sims`: the
//! simulations it saves are counted ([`MctsAgent::reuse`]). An evaluator that fails makes [`Agent::choose`] return
//! [`AgentError::Evaluation`], which stops the match (it never plays a move from a half-done
//! search). A seed still goes into each new tree: it breaks nothing but the ties a fresh
//! tree has before any simulation.

use crate::agent::{Agent, AgentError, MoveClock};
use crate::spec::MctsSpec;
use alphabeta::{Limits, SearchGame};
use engine::{NetSearcher, NetSettings, Think};
use mcts::{Evaluator, UniformEvaluator};
use std::path::Path;
use std::sync::Arc;

/// Where MCTS agents get their evaluator for a checkpoint. The command line implements it
/// with libtorch (one batching inference service per checkpoint, shared by every game played
/// at once); the arena library itself links no net.
pub trait NetSource<G: game::Game>: Send + Sync {
    /// The evaluator of the checkpoint at `checkpoint`.
    ///
    /// # Errors
    /// A message naming the file and what is wrong with it (missing, damaged, another game).
    fn evaluator(&self, checkpoint: &Path) -> Result<Arc<dyn Evaluator<G>>, String>;
}

/// A [`NetSource`] that has no nets: MCTS agents with a checkpoint cannot be built (those
/// without one, guided by the rules alone, can).
#[derive(Copy, Clone, Debug, Default)]
pub struct NoNets;

impl<G: game::Game> NetSource<G> for NoNets {
    fn evaluator(&self, checkpoint: &Path) -> Result<Arc<dyn Evaluator<G>>, String> {
        Err(format!("cannot load {}: this program plays no nets", checkpoint.display()))
    }
}

/// Simulations an agent ran and saved by tree reuse, over all its moves.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ReuseStats {
    /// Moves searched.
    pub moves: u64,
    /// Simulations run.
    pub simulations: u64,
    /// Root visits kept from earlier moves (simulations saved).
    pub reused: u64,
}

impl ReuseStats {
    /// The share of the root visits that came from reuse.
    #[must_use]
    pub fn saved_share(&self) -> f64 {
        let total = self.simulations + self.reused;
        if total == 0 { 0.0 } else { self.reused as f64 / total as f64 }
    }
}

/// MCTS with a fixed number of root visits per move.
pub struct MctsAgent<G: SearchGame> {
    name: String,
    searcher: NetSearcher<G>,
    simulations: u32,
    stats: ReuseStats,
}

impl<G: SearchGame> MctsAgent<G> {
    /// The agent `spec` describes (named `name`), its evaluator taken from `nets` when the spec
    /// names a checkpoint, the uniform evaluator otherwise; `seed` drives its tie-breaks.
    ///
    /// # Errors
    /// [`AgentError::Checkpoint`] when the checkpoint cannot be loaded.
    pub fn new(name: &str, spec: &MctsSpec, nets: &dyn NetSource<G>, seed: u64) -> Result<MctsAgent<G>, AgentError> {
        let evaluator: Arc<dyn Evaluator<G>> = match &spec.checkpoint {
            Some(path) => nets
                .evaluator(path)
                .map_err(|message| AgentError::Checkpoint { path: path.display().to_string(), message })?,
            None => Arc::new(UniformEvaluator),
        };
        let evaluator: Arc<dyn Evaluator<G>> = if spec.teacher_percent > 0 {
            let weight = spec.teacher_percent as f32 / 100.0;
            Arc::new(alphabeta::LeafTeacher::new(evaluator, weight, alphabeta::teacher::DEFAULT_SCALE))
        } else {
            evaluator
        };
        Ok(MctsAgent::with_evaluator(name, evaluator, spec, seed))
    }

    /// The agent `spec` describes, with `evaluator` (whatever checkpoint the spec names).
    #[must_use]
    pub fn with_evaluator(name: &str, evaluator: Arc<dyn Evaluator<G>>, spec: &MctsSpec, seed: u64) -> MctsAgent<G> {
        let settings = NetSettings {
            batch: spec.batch,
            tree_reuse: spec.reuse,
            gumbel_root: spec.gumbel,
            gumbel_considered: spec.considered,
            prove_leaves: spec.prove_leaves,
            ..NetSettings::default()
        };
        MctsAgent {
            name: name.to_string(),
            searcher: NetSearcher::with_evaluator(evaluator, settings, seed),
            simulations: spec.simulations,
            stats: ReuseStats::default(),
        }
    }

    /// The simulations run and saved so far.
    #[must_use]
    pub fn reuse(&self) -> ReuseStats {
        self.stats
    }

    fn search(&mut self, game: &G, limits: &Limits) -> Result<G::Move, AgentError> {
        let result = self.searcher.think(game, limits, &mut |_| {});
        if let Some(error) = self.searcher.take_error() {
            return Err(AgentError::Evaluation { agent: self.name.clone(), error });
        }
        let last = self.searcher.last();
        self.stats.moves += 1;
        self.stats.simulations += u64::from(last.simulations);
        self.stats.reused += u64::from(last.reused);
        result.best.ok_or_else(|| AgentError::NoMove { agent: self.name.clone() })
    }
}

impl<G: SearchGame> Agent<G> for MctsAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) -> Result<(), AgentError> {
        self.searcher.clear();
        Ok(())
    }

    fn choose(&mut self, game: &G) -> Result<G::Move, AgentError> {
        let limits = Limits { nodes: Some(u64::from(self.simulations)), ..Limits::default() };
        self.search(game, &limits)
    }

    /// On a clock the search stops at `sims` root visits or when the engine's time management
    /// says (see [`engine::net::TimeBudget`]), whichever comes first.
    fn choose_timed(&mut self, game: &G, clock: &MoveClock) -> Result<G::Move, AgentError> {
        let limits = Limits {
            nodes: Some(u64::from(self.simulations)),
            time_left: Some(clock.own.left),
            increment: clock.own.increment,
            moves_to_go: clock.moves_to_go,
            ..Limits::default()
        };
        self.search(game, &limits)
    }

    fn search_counts(&self) -> Option<ReuseStats> {
        Some(self.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> MctsSpec {
        match crate::AgentSpec::parse(text).expect("parses").kind {
            crate::spec::AgentKind::Mcts(m) => m,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn rules_only_mcts_mates_in_one() {
        // Red: the rook on a8 holds rank 8, the king on d0 the d-file; the rook b1 mates on b9.
        let game = xiangqi::Game::from_fen("4k4/R8/9/9/9/9/9/9/1R7/3K5 w - - 0 1").expect("fen");
        let mut agent = MctsAgent::new("mcts", &spec("mcts:sims=400"), &NoNets, 1).expect("builds");
        let mv = agent.choose(&game).expect("moves");
        let mut after = game.clone();
        after.play_unchecked(mv);
        assert!(matches!(after.outcome(), Some(game::Outcome::Win { .. })), "{mv:?} does not mate");
    }

    #[test]
    fn a_checkpoint_needs_a_net_source() {
        let e = MctsAgent::<xiangqi::Game>::new("m", &spec("mcts:ckpt=/no/such.safetensors"), &NoNets, 1)
            .err()
            .expect("no nets");
        assert!(e.to_string().contains("/no/such.safetensors"), "{e}");
    }

    /// Plays `plies` plies of a game between two agents, returning the game.
    fn play(a: &mut MctsAgent<draughts::Game>, b: &mut MctsAgent<draughts::Game>, plies: usize) -> draughts::Game {
        let mut game = draughts::Game::new();
        for ply in 0..plies {
            let agent = if ply % 2 == 0 { &mut *a } else { &mut *b };
            let mv = agent.choose(&game).expect("moves");
            game.play_unchecked(mv);
        }
        game
    }

    #[test]
    fn the_second_move_starts_with_the_reused_subtree() {
        let (mut a, mut b) = (
            MctsAgent::new("a", &spec("mcts:sims=300"), &NoNets, 1).expect("builds"),
            MctsAgent::new("b", &spec("mcts:sims=300"), &NoNets, 2).expect("builds"),
        );
        play(&mut a, &mut b, 3);
        // a's second move (ply 2) found the subtree of its first move and b's reply.
        let stats = a.reuse();
        assert_eq!(stats.moves, 2);
        assert!(stats.reused > 0, "{stats:?}");
        assert_eq!(stats.simulations + stats.reused, 600, "every move's root holds exactly sims visits");
        assert!(a.saved_fraction_is_sane());
        // Without reuse, nothing is saved and every move runs all its simulations.
        let (mut c, mut d) = (
            MctsAgent::new("c", &spec("mcts:sims=300,reuse=false"), &NoNets, 1).expect("builds"),
            MctsAgent::new("d", &spec("mcts:sims=300,reuse=false"), &NoNets, 2).expect("builds"),
        );
        play(&mut c, &mut d, 3);
        assert_eq!(c.reuse(), ReuseStats { moves: 2, simulations: 600, reused: 0 });
        // A new game starts from a fresh tree.
        assert!(a.new_game().is_ok());
        let before = a.reuse();
        assert!(a.choose(&draughts::Game::new()).is_ok());
        assert_eq!(a.reuse().reused, before.reused, "nothing kept across games");
    }

    #[test]
    fn on_a_clock_the_search_stops_in_time() {
        let mut agent = MctsAgent::new("m", &spec("mcts:sims=1000000"), &NoNets, 1).expect("builds");
        let clock = engine::go::Clock { left: std::time::Duration::from_millis(1000), increment: Default::default() };
        let start = std::time::Instant::now();
        let mv = agent.choose_timed(&xiangqi::Game::new(), &MoveClock { own: clock, other: clock, moves_to_go: None });
        let spent = start.elapsed();
        assert!(mv.is_ok());
        // About a 25th of the clock, never more than two fifths of it.
        assert!(spent < std::time::Duration::from_millis(400), "{spent:?}");
        let counts = agent.search_counts().expect("counted");
        assert!(counts.simulations > 0 && counts.simulations < 1_000_000, "{counts:?}");
    }

    impl<G: SearchGame> MctsAgent<G> {
        fn saved_fraction_is_sane(&self) -> bool {
            (0.0..1.0).contains(&self.stats.saved_share())
        }
    }
}
