//! `qizero eval`: what a net says about one position, head by head, before any search: the
//! value head, the material head (when the net has one), the value the search reads, and the
//! priors of the legal moves (KataGo's `kata-raw-nn`, lc0's verbose move statistics without
//! the search). For looking into a checkpoint: does it see that a rook is up, which moves does
//! it like.

use crate::GameName;
use anyhow::{Context, Result, bail};
use arena::ArenaGame;
use encode::Encode;
use game::Side;
use mcts::EvalRequest;
use nn::NetConfig;
use nn::checkpoint::CheckpointMeta;
use std::path::Path;
use tch::Tensor;

/// Arguments of `qizero eval`.
#[derive(clap::Args)]
pub struct EvalArgs {
    /// The game.
    #[arg(long, value_enum, default_value = "xiangqi")]
    game: GameName,
    /// The net: a checkpoint (.safetensors, written by `qizero train` or `qizero run`), or
    /// default for the shipped model of --game.
    #[arg(long, value_name = "CKPT", default_value = "default")]
    weights: String,
    /// The position, as the game's FEN (default: the start position).
    #[arg(long)]
    fen: Option<String>,
    /// Moves played from --fen before the position is read, in any notation `qizero play`
    /// takes (xiangqi: h2e2, C2=5; draughts: 32-28, 28x19). They are the history the net sees.
    #[arg(long, num_args = 1.., value_name = "MOVE")]
    moves: Vec<String>,
    /// How many of the legal moves to list, highest prior first (0: all).
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Print one JSON object instead of the table (every legal move's prior, --top ignored).
    #[arg(long)]
    json: bool,
    /// Where the net runs: auto (CUDA if present, else the CPU), cpu, cuda, cuda:N.
    #[arg(long, default_value = "auto")]
    device: String,
}

/// Runs `qizero eval`.
///
/// # Errors
/// A checkpoint that cannot be found or loaded (or is for the other game), a bad FEN, a move
/// that is not legal where it is played, or a forward pass that fails.
pub fn run(args: &EvalArgs) -> Result<()> {
    match args.game {
        GameName::Xiangqi => eval::<xiangqi::Game>(args),
        GameName::Draughts => eval::<draughts::Game>(args),
    }
}

/// One legal move's share of the policy.
struct Prior {
    /// In the game's engine notation.
    mv: String,
    /// Its prior (a softmax over the legal moves).
    prior: f32,
    /// Its raw logit.
    logit: f32,
}

/// Everything the net said about the position.
struct Reading {
    value: f32,
    material: Option<f32>,
    played: f32,
    /// Highest prior first (ties in the move generator's order).
    priors: Vec<Prior>,
}

fn eval<G: Encode + ArenaGame>(args: &EvalArgs) -> Result<()> {
    let game = position::<G>(args.fen.as_deref(), &args.moves)?;
    let path = crate::models::resolve_weights(&args.weights, G::NAME)
        .with_context(|| format!("--weights {}", args.weights))?;
    let placement = NetConfig { device: args.device.clone(), ..NetConfig::default() };
    let (net, meta) = nn::checkpoint::load_as_saved(&path, G::NAME, G::ENCODING, &placement)
        .with_context(|| format!("--weights {}", args.weights))?;
    let reading = read::<G>(&net, &game)?;
    if args.json {
        println!("{}", json::<G>(&path, &meta, net.config(), &game, &reading));
    } else {
        print!("{}", table::<G>(&path, &meta, net.config(), &game, &reading, args.top));
    }
    Ok(())
}

/// The position `fen` (the start without one) after `moves`.
fn position<G: Encode>(fen: Option<&str>, moves: &[String]) -> Result<G> {
    let mut game = match fen {
        Some(fen) => G::from_fen(fen).map_err(|e| anyhow::anyhow!("--fen '{fen}': {e}"))?,
        None => G::new(),
    };
    for (i, text) in moves.iter().enumerate() {
        if let Some(outcome) = game.outcome() {
            bail!("--moves: move {} ({text}) comes after the game ended ({outcome})", i + 1);
        }
        let mv = game
            .parse_move(text)
            .map_err(|e| anyhow::anyhow!("--moves: move {} ({text}) in {}: {e}", i + 1, game.fen()))?;
        game.play_unchecked(mv);
    }
    Ok(game)
}

/// One forward pass over `game`, read head by head. The position goes through the same
/// encoding as the search's ([`nn::evaluator::EncodedBatch`], one request), so the planes and
/// the legal moves' policy indices are exactly what self-play and the arena feed the net.
fn read<G: Encode>(net: &nn::PolicyValueNet, game: &G) -> Result<Reading> {
    let moves = game.legal_moves();
    let moves = moves.as_ref();
    let mut batch = nn::evaluator::EncodedBatch::default();
    batch.encode_input(&[EvalRequest { game, moves }], net.config().feature_planes);
    let xs = net.f_input(&batch.planes).context("building the input planes")?;
    let heads = net.f_heads(&xs)?;
    let first = |t: &Tensor, what: &str| -> Result<Vec<f32>> {
        Vec::<f32>::try_from(&t.f_view([-1]).with_context(|| format!("reading the {what}"))?)
            .with_context(|| format!("reading the {what}"))
    };
    let logits = first(&heads.logits, "policy logits")?;
    let scalar = |t: &Tensor, what: &str| -> Result<f32> {
        first(t, what)?.first().copied().with_context(|| format!("the net gave no {what}"))
    };
    let gathered = nn::evaluator::gather_logits(&logits, &batch.indices);
    let priors = nn::evaluator::priors_from_logits(&gathered, &batch.indices);
    let mut priors: Vec<Prior> = moves
        .iter()
        .zip(priors.iter().zip(&gathered))
        .map(|(&mv, (&prior, &logit))| Prior { mv: game.move_to_string(mv), prior, logit })
        .collect();
    priors.sort_by(|a, b| b.prior.total_cmp(&a.prior));
    Ok(Reading {
        value: scalar(&heads.value, "value")?,
        material: heads.material.as_ref().map(|m| scalar(m, "material prediction")).transpose()?,
        played: scalar(&heads.played, "played value")?,
        priors,
    })
}

fn side_name<G: ArenaGame>(side: Side) -> &'static str {
    G::SIDE_NAMES[side.index()]
}

/// The report as a table for a person.
fn table<G: Encode + ArenaGame>(
    path: &Path,
    meta: &CheckpointMeta,
    config: &NetConfig,
    game: &G,
    reading: &Reading,
    top: usize,
) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let mover = side_name::<G>(game.side_to_move());
    let _ = writeln!(out, "net       {} (step {}; {})", path.display(), meta.step, meta.architecture);
    let _ = writeln!(out, "position  {} ({mover} to move)", game.fen());
    if let Some(outcome) = game.outcome() {
        let _ = writeln!(out, "result    {outcome}: the game is over, the search never asks the net here");
    }
    let _ = writeln!(out, "value     {:+.3}  the value head, {mover}'s view (-1 a loss, +1 a win)", reading.value);
    let now = game.material();
    match reading.material {
        Some(m) => {
            let _ = writeln!(
                out,
                "material  {m:+.3}  the material head: a final material difference of {:+.1} for {mover} (x {}; now {now:+.1})",
                m * G::MATERIAL_SCALE,
                G::MATERIAL_SCALE
            );
        }
        None => {
            let _ = writeln!(out, "material  none    this net has no material head (now {now:+.1} for {mover})");
        }
    }
    let how = if reading.material.is_some() && config.material_utility > 0.0 {
        format!("the value + {} x the material, clamped", config.material_utility)
    } else {
        "the value head's alone".to_owned()
    };
    let _ = writeln!(out, "played    {:+.3}  what the search reads: {how}", reading.played);
    let legal = reading.priors.len();
    if legal == 0 {
        let _ = writeln!(out, "priors    no legal moves");
        return out;
    }
    let shown = if top == 0 { legal } else { top.min(legal) };
    let _ = writeln!(out, "priors    {shown} of {legal} legal moves, highest first");
    let width = reading.priors.iter().take(shown).map(|p| p.mv.len()).max().unwrap_or(0);
    for (rank, p) in reading.priors.iter().take(shown).enumerate() {
        let _ = writeln!(out, "  {:>3}  {:<width$}  {:>6.2}%  logit {:+.3}", rank + 1, p.mv, 100.0 * p.prior, p.logit);
    }
    out
}

/// The report as one JSON object.
fn json<G: Encode + ArenaGame>(
    path: &Path,
    meta: &CheckpointMeta,
    config: &NetConfig,
    game: &G,
    reading: &Reading,
) -> serde_json::Value {
    let priors: Vec<serde_json::Value> = reading
        .priors
        .iter()
        .map(|p| serde_json::json!({ "move": p.mv, "prior": p.prior, "logit": p.logit }))
        .collect();
    serde_json::json!({
        "checkpoint": path.display().to_string(),
        "step": meta.step,
        "architecture": meta.architecture,
        "game": G::NAME,
        "fen": game.fen(),
        "side_to_move": side_name::<G>(game.side_to_move()),
        "outcome": game.outcome().map(|o| o.score_str()),
        "value": reading.value,
        "material": reading.material,
        "material_scale": G::MATERIAL_SCALE,
        "material_now": game.material(),
        "material_utility": config.material_utility,
        "played": reading.played,
        "legal_moves": reading.priors.len(),
        "priors": priors,
    })
}
