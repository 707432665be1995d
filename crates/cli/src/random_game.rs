//! `qizero random-game`: plays one seeded game of uniformly random legal moves and prints it,
//! a quick look at the rules at work (move notation, game end).

use crate::GameName;
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Move notation for printing a xiangqi game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Notation {
    /// WXF (`C2=5`).
    Wxf,
    /// Chinese (`炮二平五`).
    Chinese,
    /// UCI coordinates, ranks 0-9 (`h2e2`).
    Uci,
}

/// Arguments of `qizero random-game`.
#[derive(Args)]
pub struct RandomGameArgs {
    /// The game.
    #[arg(long, value_enum, default_value = "xiangqi")]
    game: GameName,
    /// Start from this FEN instead of the standard start position.
    #[arg(long)]
    fen: Option<String>,
    /// Seed for the move choices: the same seed plays the same game.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How to write the moves.
    #[arg(long, value_enum, default_value = "wxf")]
    notation: Notation,
    /// Stop after this many plies even if the game is not over.
    #[arg(long, default_value_t = 1000)]
    max_plies: usize,
}

/// Runs `qizero random-game`.
pub fn run(args: &RandomGameArgs) -> Result<()> {
    match args.game {
        GameName::Xiangqi => run_xiangqi(args),
        GameName::Draughts => anyhow::bail!("random-game does not support draughts yet"),
    }
}

fn run_xiangqi(args: &RandomGameArgs) -> Result<()> {
    use xiangqi::notation::{to_chinese, to_wxf};
    let fen = args.fen.as_deref().unwrap_or(xiangqi::START_FEN);
    let mut game = xiangqi::Game::from_fen(fen).with_context(|| format!("bad FEN '{fen}'"))?;
    let mut rng = StdRng::seed_from_u64(args.seed);
    println!("[FEN \"{}\"]", game.position().fen());
    let mut line = String::new();
    while game.ply() < args.max_plies {
        if game.outcome().is_some() {
            break;
        }
        let pos = game.position();
        let moves = pos.legal_moves();
        let mv = moves[rng.random_range(0..moves.len())];
        let text = match args.notation {
            Notation::Wxf => to_wxf(pos, mv),
            Notation::Chinese => to_chinese(pos, mv),
            Notation::Uci => mv.to_string(),
        };
        if pos.side_to_move() == xiangqi::Color::Red {
            line.push_str(&format!("{}. ", pos.fullmove()));
        }
        line.push_str(&text);
        line.push(' ');
        if line.len() > 72 {
            println!("{}", line.trim_end());
            line.clear();
        }
        game.play(mv);
    }
    if !line.is_empty() {
        println!("{}", line.trim_end());
    }
    match game.outcome() {
        Some(outcome) => println!("{} after {} plies", describe(outcome), game.ply()),
        None => println!("* (stopped after {} plies)", game.ply()),
    }
    println!("[final FEN \"{}\"]", game.position().fen());
    Ok(())
}

/// The outcome in xiangqi's colours.
fn describe(outcome: game::Outcome) -> String {
    match outcome {
        game::Outcome::Win { winner, reason } => {
            let who = if winner == game::Side::First { "Red" } else { "Black" };
            format!("{} {who} wins by {reason:?}", outcome.score_str())
        }
        game::Outcome::Draw(reason) => format!("1/2-1/2 draw by {reason:?}"),
    }
}
