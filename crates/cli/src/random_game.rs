//! `qizero random-game`: plays one seeded game of uniformly random legal moves and prints it,
//! a quick look at the rules at work (move notation, game end).

use crate::GameName;
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Move notation for printing a game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Notation {
    /// The game's usual notation: WXF for xiangqi, PDN for draughts.
    Default,
    /// Xiangqi: WXF (`C2=5`).
    Wxf,
    /// Xiangqi: Chinese (`炮二平五`).
    Chinese,
    /// Xiangqi: UCI coordinates, ranks 0-9 (`h2e2`).
    Uci,
    /// Draughts: PDN (`32-28`, `19x30`).
    Pdn,
    /// Draughts: Hub (`28x19x23`, captured squares listed).
    Hub,
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
    #[arg(long, value_enum, default_value = "default")]
    notation: Notation,
    /// Stop after this many plies even if the game is not over.
    #[arg(long, default_value_t = 1000)]
    max_plies: usize,
}

/// Runs `qizero random-game`.
pub fn run(args: &RandomGameArgs) -> Result<()> {
    let fits = match args.game {
        GameName::Xiangqi => !matches!(args.notation, Notation::Pdn | Notation::Hub),
        GameName::Draughts => matches!(args.notation, Notation::Default | Notation::Pdn | Notation::Hub),
    };
    if !fits {
        anyhow::bail!("--notation {:?} does not apply to {:?}", args.notation, args.game);
    }
    match args.game {
        GameName::Xiangqi => run_xiangqi(args),
        GameName::Draughts => run_draughts(args),
    }
}

fn run_xiangqi(args: &RandomGameArgs) -> Result<()> {
    use xiangqi::notation::{to_chinese, to_wxf};
    let fen = args.fen.as_deref().unwrap_or(xiangqi::START_FEN);
    let game = xiangqi::Game::from_fen(fen).with_context(|| format!("bad FEN '{fen}'"))?;
    play(args, game, ("Red", "Black"), |game, mv| match args.notation {
        Notation::Chinese => to_chinese(game.position(), mv),
        Notation::Uci => mv.to_string(),
        _ => to_wxf(game.position(), mv),
    })
}

fn run_draughts(args: &RandomGameArgs) -> Result<()> {
    use draughts::notation::{to_hub, to_pdn};
    let fen = args.fen.as_deref().unwrap_or(draughts::START_FEN);
    let game = draughts::Game::from_fen(fen).with_context(|| format!("bad FEN '{fen}'"))?;
    play(args, game, ("White", "Black"), |game, mv| match args.notation {
        Notation::Hub => to_hub(&mv),
        _ => to_pdn(game.position(), &mv),
    })
}

/// Plays and prints the game, any game: numbered moves, the result, the final FEN.
fn play<G: game::Game>(
    args: &RandomGameArgs,
    mut game: G,
    names: (&str, &str),
    write: impl Fn(&G, G::Move) -> String,
) -> Result<()> {
    let mut rng = StdRng::seed_from_u64(args.seed);
    println!("[FEN \"{}\"]", game.fen());
    let mut line = String::new();
    let mut number = 1;
    while game.ply() < args.max_plies && game.outcome().is_none() {
        let moves = game.legal_moves();
        let moves = moves.as_ref();
        let mv = moves[rng.random_range(0..moves.len())];
        let first = game.side_to_move() == game::Side::First;
        if first {
            line.push_str(&format!("{number}. "));
        } else if game.ply() == 0 {
            line.push_str(&format!("{number}... "));
        }
        if !first {
            number += 1;
        }
        line.push_str(&write(&game, mv));
        line.push(' ');
        if line.len() > 72 {
            println!("{}", line.trim_end());
            line.clear();
        }
        game.play_unchecked(mv);
    }
    if !line.is_empty() {
        println!("{}", line.trim_end());
    }
    report_end(game.outcome(), game.ply(), names);
    println!("[final FEN \"{}\"]", game.fen());
    Ok(())
}

fn report_end(outcome: Option<game::Outcome>, plies: usize, names: (&str, &str)) {
    match outcome {
        Some(outcome) => println!("{} after {plies} plies", describe(outcome, names)),
        None => println!("* (stopped after {plies} plies)"),
    }
}

/// The outcome in the game's colour names (first player, second player).
fn describe(outcome: game::Outcome, names: (&str, &str)) -> String {
    match outcome {
        game::Outcome::Win { winner, reason } => {
            let who = if winner == game::Side::First { names.0 } else { names.1 };
            format!("{} {who} wins by {reason:?}", outcome.score_str())
        }
        game::Outcome::Draw(reason) => format!("1/2-1/2 draw by {reason:?}"),
    }
}
