//! `qizero play`: a person against any arena agent (a checkpoint's MCTS, the alpha-beta engine,
//! an external engine, random moves) at the terminal. An MCTS opponent named without a
//! checkpoint plays the shipped model of the game (`crate::models`); `--weights` names its net.
//!
//! The loop is generic over [`Table`], what a game adds for a person: the board drawn as text,
//! moves written and read in the notation people use, and a one-line reason when a typed move is
//! not one. The game layer judges the game (`outcome`), so a game here ends exactly as it would
//! in a match.
//!
//! Input is read line by line and never trusted: a line that is neither a command nor a legal
//! move gets its explanation and the prompt again, and the end of input stops the game
//! cleanly. Nothing assumes a terminal, so a whole game can be piped in; when standard input is
//! not a terminal each line read is echoed after its prompt, so the output reads as a
//! transcript.

mod draughts_board;
mod xiangqi_board;

use crate::GameName;
use anyhow::{Context, Result, bail};
use arena::spec::AgentKind;
use arena::{AgentSpec, ArenaGame};
use clap::{Args, ValueEnum};
use game::{Outcome, Side};
use std::io::{BufRead, IsTerminal, Write};
use std::time::{Duration, Instant};

/// Which side the person plays.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlaySide {
    /// The side that moves first (Red in xiangqi, White in draughts).
    First,
    /// The side that moves second (Black in both games).
    Second,
    /// Xiangqi's first mover.
    Red,
    /// Draughts' first mover.
    White,
    /// The second mover in both games.
    Black,
}

/// Arguments of `qizero play`.
#[derive(Args)]
pub struct PlayArgs {
    /// The game.
    #[arg(long, value_enum, default_value = "xiangqi")]
    game: GameName,
    /// The opponent: random, alphabeta[:depth=N,movetime=MS,nodes=N,hash=MB,book=true],
    /// mcts[:ckpt=PATH,sims=N,batch=N,reuse=false,root=gumbel], uci:PROGRAM[,...] (xiangqi) or hub:PROGRAM[,...]
    /// (draughts). Without limits of its own it thinks for --movetime per move. Here mcts
    /// without ckpt= plays the shipped model of --game (models/GAME.safetensors; ckpt=default
    /// names it in qizero match too). Default: alphabeta, or mcts with --weights.
    #[arg(long)]
    opponent: Option<AgentSpec>,
    /// The net of the mcts opponent: default (the shipped model of --game) or a checkpoint's
    /// path. Without --opponent the opponent is mcts with this net (200 simulations per move).
    #[arg(long, value_name = "default|PATH")]
    weights: Option<String>,
    /// The side you play.
    #[arg(long, value_enum, default_value = "first")]
    side: PlaySide,
    /// Start from this position (the game's FEN) instead of the standard start.
    #[arg(long)]
    fen: Option<String>,
    /// Milliseconds per move for an opponent whose spec sets no limit of its own.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    movetime: u64,
    /// Seed for the opponent's random choices (random moves, ties).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where an MCTS opponent's net runs: auto (CUDA if present, else the CPU), cpu, cuda, cuda:N.
    #[arg(long, default_value = "auto")]
    device: String,
}

/// What the play loop needs from a game beyond the arena's view of it: the board for a person,
/// and moves in the notation people read and type.
pub trait Table: ArenaGame + encode::Encode {
    /// The move notations [`Table::read_move`] takes, for the help text.
    const MOVE_FORMS: &'static str;
    /// What the board's characters mean.
    const LEGEND: &'static str;

    /// The board as text, seen from `view`'s side, with coordinates and the last move marked.
    fn draw(&self, view: Side) -> String;

    /// A note on the position for the side to move, if any: "check", "a capture is compulsory".
    fn note(&self) -> Option<&'static str>;

    /// `mv`, legal here, written for a person: the game's notation (with coordinates where that
    /// helps).
    fn show_move(&self, mv: Self::Move) -> String;

    /// Reads a move typed by the side to move.
    ///
    /// # Errors
    /// One line saying what is wrong: not a move, no piece there, someone else's piece, the
    /// piece cannot go there, ambiguous, leaves the king in check, a capture is compulsory.
    fn read_move(&self, text: &str) -> Result<Self::Move, String>;
}

/// Runs `qizero play`.
pub fn run(args: &PlayArgs) -> Result<()> {
    match args.game {
        GameName::Xiangqi => play::<xiangqi::Game>(args),
        GameName::Draughts => play::<draughts::Game>(args),
    }
}

/// The side `choice` names in game `G`, or an error for the other game's colour name.
fn human_side<G: ArenaGame>(choice: PlaySide) -> Result<Side> {
    let side = match choice {
        PlaySide::First | PlaySide::Red | PlaySide::White => Side::First,
        PlaySide::Second | PlaySide::Black => Side::Second,
    };
    let named = match choice {
        PlaySide::Red => Some("red"),
        PlaySide::White => Some("white"),
        _ => None,
    };
    if let Some(name) = named {
        if !G::SIDE_NAMES[0].eq_ignore_ascii_case(name) {
            bail!(
                "--side {name}: {} has no {name}; its sides are {} and {}",
                G::NAME,
                G::SIDE_NAMES[0],
                G::SIDE_NAMES[1]
            );
        }
    }
    Ok(side)
}

/// The opponent `--opponent` and `--weights` describe, its checkpoint not yet resolved: an mcts
/// opponent without a checkpoint gets `--weights`, or else the shipped model.
fn opponent_spec(opponent: Option<&AgentSpec>, weights: Option<&str>) -> Result<AgentSpec> {
    let spec = match opponent {
        Some(spec) => spec.clone(),
        None if weights.is_some() => AgentSpec::parse("mcts")?,
        None => AgentSpec::parse("alphabeta")?,
    };
    let AgentKind::Mcts(mcts) = &spec.kind else {
        if weights.is_some() {
            bail!("--weights gives an mcts opponent its net, but --opponent {spec} is not mcts");
        }
        return Ok(spec);
    };
    if mcts.checkpoint.is_some() {
        if weights.is_some() {
            bail!("--weights and ckpt= in --opponent {spec} both name the net: give one");
        }
        return Ok(spec);
    }
    let ckpt = weights.unwrap_or("default");
    let mut mcts = mcts.clone();
    mcts.checkpoint = Some(ckpt.into());
    // The text names the opponent on the screen: say which net it plays.
    let text = if spec.text.contains(':') { format!("{},ckpt={ckpt}", spec.text) } else { format!("mcts:ckpt={ckpt}") };
    Ok(AgentSpec { text, kind: AgentKind::Mcts(mcts) })
}

fn play<G: Table>(args: &PlayArgs) -> Result<()> {
    let human = human_side::<G>(args.side)?;
    let spec = opponent_spec(args.opponent.as_ref(), args.weights.as_deref())?;
    spec.check_game(G::NAME).with_context(|| format!("--opponent {spec}"))?;
    let spec = crate::models::resolve_spec(&spec, G::NAME).with_context(|| format!("--opponent {spec}"))?;
    let mut game = match &args.fen {
        Some(fen) => G::from_fen(fen).map_err(|e| anyhow::anyhow!("--fen {fen:?}: {e}"))?,
        None => G::new(),
    };
    let placement = nn::NetConfig { device: args.device.clone(), ..nn::NetConfig::default() };
    let service = nn::ServiceConfig { max_batch: 64, max_wait_us: 0, cache_entries: 0, net_threads: 1 };
    let nets = pipeline::CheckpointNets::<G>::new(placement, service);
    let movetime = Duration::from_millis(args.movetime);
    let mut opponent = arena::build_agent::<G>(&spec, movetime, args.seed, &nets)
        .with_context(|| format!("cannot start --opponent {spec}"))?;
    opponent.new_game().with_context(|| format!("--opponent {spec}"))?;
    let name = opponent.name();

    let stdin = std::io::stdin();
    let echo = !stdin.is_terminal();
    let mut input = stdin.lock();
    let side_name = |side: Side| G::SIDE_NAMES[side.index()];
    println!("qizero play: {}, you play {} against {name}. Type help for the commands.", G::NAME, side_name(human));
    if let AgentKind::Mcts(arena::spec::MctsSpec { checkpoint: Some(path), .. }) = &spec.kind {
        println!("{name}: the net {}", path.display());
    }
    println!("{}", G::LEGEND);

    let mut show_board = true;
    loop {
        if let Some(outcome) = game.outcome() {
            println!("{}", board_text(&game, human, &name));
            println!("{}", result_line::<G>(outcome, human));
            println!("final FEN: {}", game.fen());
            return Ok(());
        }
        if game.side_to_move() != human {
            let started = Instant::now();
            let mv = opponent.choose(&game).with_context(|| format!("the opponent {name} failed"))?;
            if !game.legal_moves().as_ref().contains(&mv) {
                bail!("the opponent {name} chose {}, which is not legal here", game.move_to_string(mv));
            }
            println!("{name} plays {} ({:.2} s)", game.show_move(mv), started.elapsed().as_secs_f64());
            game.play_unchecked(mv);
            show_board = true;
            continue;
        }
        if show_board {
            println!("{}", board_text(&game, human, &name));
            show_board = false;
        }
        print!("your move ({})> ", side_name(human));
        std::io::stdout().flush().context("cannot write to standard output")?;
        let Some(line) = read_line(&mut input)? else {
            println!();
            println!("end of input: the game stops unfinished; FEN {}", game.fen());
            return Ok(());
        };
        if echo {
            println!("{line}");
        }
        match line.trim().to_ascii_lowercase().as_str() {
            "" => {}
            "help" | "?" => println!("{}", help_text::<G>()),
            "moves" => println!("{}", moves_text(&game)),
            "board" => show_board = true,
            "fen" => println!("{}", game.fen()),
            "undo" => match take_back(&game, human) {
                Some(earlier) => {
                    game = earlier;
                    show_board = true;
                }
                None => println!("nothing to take back: you have not moved yet"),
            },
            "quit" | "exit" => {
                println!("you quit: the game stops unfinished; FEN {}", game.fen());
                return Ok(());
            }
            _ => match game.read_move(&line) {
                Ok(mv) => {
                    println!("you play {}", game.show_move(mv));
                    game.play_unchecked(mv);
                }
                Err(why) => println!("{why}"),
            },
        }
    }
}

/// The next line of input without its line ending, `None` at the end. Bytes that are not UTF-8
/// become U+FFFD: they cannot be a move, and the move reader says so.
fn read_line(input: &mut impl BufRead) -> Result<Option<String>> {
    let mut bytes = Vec::new();
    if input.read_until(b'\n', &mut bytes).context("cannot read standard input")? == 0 {
        return Ok(None);
    }
    let line = String::from_utf8_lossy(&bytes);
    Ok(Some(line.trim_end_matches(['\n', '\r']).to_string()))
}

/// The game with the person's last move taken back, and the opponent's reply to it if there
/// was one: the person is to move again. `None` if the person has made no move since the start.
fn take_back<G: game::Game>(game: &G, human: Side) -> Option<G> {
    let mut earlier = game.clone();
    while earlier.undo().is_some() {
        // After taking a move back, the side to move is the one that made it.
        if earlier.side_to_move() == human {
            return Some(earlier);
        }
    }
    None
}

/// The board, the last move and who is to move.
fn board_text<G: Table>(game: &G, human: Side, opponent: &str) -> String {
    let mut text = game.draw(human);
    let mut before = game.clone();
    if let Some(mv) = before.undo() {
        let by = if before.side_to_move() == human { "you" } else { opponent };
        text.push_str(&format!("\nlast move: {} by {by}", before.show_move(mv)));
    }
    let to_move = game.side_to_move();
    let who = if to_move == human { "you" } else { opponent };
    text.push_str(&format!("\n{} to move ({who})", G::SIDE_NAMES[to_move.index()]));
    if game.outcome().is_none() {
        if let Some(note) = game.note() {
            text.push_str(&format!(": {note}"));
        }
    }
    text
}

/// The legal moves, sorted, in columns.
fn moves_text<G: Table>(game: &G) -> String {
    let mut moves: Vec<String> = game.legal_moves().as_ref().iter().map(|&mv| game.show_move(mv)).collect();
    moves.sort();
    let width = moves.iter().map(String::len).max().unwrap_or(0) + 2;
    let per_line = (72 / width).max(1);
    let mut text = format!("{} legal move(s):", moves.len());
    for row in moves.chunks(per_line) {
        let line: String = row.iter().map(|mv| format!("{mv:width$}")).collect();
        text.push_str(&format!("\n  {}", line.trim_end()));
    }
    text
}

fn help_text<G: Table>() -> String {
    format!(
        "Type a move, or a command:\n  \
         moves  list the legal moves\n  \
         undo   take back your last move and the reply to it\n  \
         board  show the board again\n  \
         fen    print the position as FEN\n  \
         help   this text\n  \
         quit   stop the game\n\
         Moves: {}.\n{}",
        G::MOVE_FORMS,
        G::LEGEND
    )
}

/// `game over: 1-0, Red wins by checkmate: you win`.
fn result_line<G: ArenaGame>(outcome: Outcome, human: Side) -> String {
    let how = arena::termination(outcome, None, usize::MAX);
    let verdict = match outcome.winner() {
        Some(winner) => {
            let who = if winner == human { "you win" } else { "you lose" };
            format!("{} wins by {how}: {who}", G::SIDE_NAMES[winner.index()])
        }
        None => format!("{how}: nobody wins"),
    };
    format!("game over: {}, {verdict}", G::result_text(outcome.winner()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::Game;

    /// The opponent spec `--opponent` and `--weights` make, as (text, checkpoint), or the error.
    fn opponent(spec: Option<&str>, weights: Option<&str>) -> Result<(String, Option<String>), String> {
        let spec = spec.map(|s| AgentSpec::parse(s).expect("parses"));
        let spec = opponent_spec(spec.as_ref(), weights).map_err(|e| e.to_string())?;
        let ckpt = match &spec.kind {
            AgentKind::Mcts(m) => m.checkpoint.as_ref().map(|p| p.display().to_string()),
            _ => None,
        };
        Ok((spec.text, ckpt))
    }

    #[test]
    fn an_mcts_opponent_without_a_net_plays_the_shipped_model() {
        let some = |text: &str, ckpt: Option<&str>| Ok((text.to_string(), ckpt.map(str::to_string)));
        assert_eq!(opponent(None, None), some("alphabeta", None));
        assert_eq!(opponent(Some("random"), None), some("random", None));
        assert_eq!(opponent(Some("mcts"), None), some("mcts:ckpt=default", Some("default")));
        assert_eq!(opponent(Some("mcts:sims=50"), None), some("mcts:sims=50,ckpt=default", Some("default")));
        assert_eq!(opponent(None, Some("default")), some("mcts:ckpt=default", Some("default")));
        assert_eq!(opponent(None, Some("a/b.safetensors")), some("mcts:ckpt=a/b.safetensors", Some("a/b.safetensors")));
        assert_eq!(opponent(Some("mcts:sims=9"), Some("x.st")), some("mcts:sims=9,ckpt=x.st", Some("x.st")));
        assert_eq!(opponent(Some("mcts:ckpt=x.st"), None), some("mcts:ckpt=x.st", Some("x.st")));
        let both = opponent(Some("mcts:ckpt=x.st"), Some("default")).expect_err("two nets");
        assert_eq!(both, "--weights and ckpt= in --opponent mcts:ckpt=x.st both name the net: give one");
        let not_mcts = opponent(Some("alphabeta:depth=2"), Some("default")).expect_err("not mcts");
        assert_eq!(not_mcts, "--weights gives an mcts opponent its net, but --opponent alphabeta:depth=2 is not mcts");
    }

    #[test]
    fn side_names_belong_to_their_game() {
        assert_eq!(human_side::<xiangqi::Game>(PlaySide::Red).ok(), Some(Side::First));
        assert_eq!(human_side::<draughts::Game>(PlaySide::White).ok(), Some(Side::First));
        assert_eq!(human_side::<draughts::Game>(PlaySide::Black).ok(), Some(Side::Second));
        assert_eq!(human_side::<xiangqi::Game>(PlaySide::Second).ok(), Some(Side::Second));
        let err = human_side::<xiangqi::Game>(PlaySide::White).expect_err("xiangqi has no white");
        assert!(err.to_string().contains("Red and Black"), "{err}");
        assert!(human_side::<draughts::Game>(PlaySide::Red).is_err());
    }

    #[test]
    fn undo_takes_back_a_move_pair() {
        let mut game = xiangqi::Game::new();
        assert!(take_back(&game, Side::First).is_none(), "nothing played");
        for text in ["h2e2", "h9g7", "h0g2"] {
            let mv = game.parse_move(text).expect("legal");
            game.play_unchecked(mv);
        }
        // Black is to move: for Red only Red's own last move goes back.
        let back = take_back(&game, Side::First).expect("Red has moved");
        assert_eq!(back.ply(), 2);
        // For Black, Red's h0g2 and Black's h9g7 before it go back.
        let back = take_back(&game, Side::Second).expect("Black has moved");
        assert_eq!(back.ply(), 1);
        // After h2e2 alone Black has not moved yet.
        assert!(take_back(&back, Side::Second).is_none());
    }

    #[test]
    fn lines_are_read_whatever_the_bytes() {
        let mut input: &[u8] = b"h2e2\r\n\xff\xfe\nlast";
        assert_eq!(read_line(&mut input).ok().flatten().as_deref(), Some("h2e2"));
        assert_eq!(read_line(&mut input).ok().flatten().as_deref(), Some("\u{fffd}\u{fffd}"));
        assert_eq!(read_line(&mut input).ok().flatten().as_deref(), Some("last"));
        assert_eq!(read_line(&mut input).ok().flatten(), None);
    }

    #[test]
    fn results_name_the_winner_and_the_reason() {
        let mate = Outcome::Win { winner: Side::Second, reason: game::WinReason::Checkmate };
        assert_eq!(
            result_line::<xiangqi::Game>(mate, Side::First),
            "game over: 0-1, Black wins by checkmate: you lose"
        );
        let draw = Outcome::Draw(game::DrawReason::Repetition);
        assert_eq!(result_line::<draughts::Game>(draw, Side::First), "game over: 1-1, draw by repetition: nobody wins");
    }

    #[test]
    fn moves_are_listed_in_columns() {
        let text = moves_text(&draughts::Game::new());
        assert!(text.starts_with("9 legal move(s):"), "{text}");
        for mv in ["31-26", "32-28", "35-30"] {
            assert!(text.contains(mv), "{text}");
        }
        assert!(text.lines().all(|l| l.len() <= 74 && l.trim_end() == l), "{text}");
    }
}
