//! Tactics from `data/tactics/*.txt` (format: `FEN ; bm MOVE [MOVE...] ; depth D ; id "..."`,
//! `#` starts a comment): the search must find mates and winning shots. With the uniform
//! evaluator only the rules speak (terminal values and proofs), so these are the positions where
//! the game ends within the tree; a material-counting evaluator stands in for a net on the
//! draughts shots that only win material.

use game::Game;
use mcts::{EvalError, EvalRequest, Evaluation, Evaluator, MctsParams, Proof, Search, UniformEvaluator};

/// One suite position.
struct Case {
    fen: String,
    best: Vec<String>,
    id: String,
}

/// The suite at `data/tactics/<name>`.
fn suite(name: &str) -> Vec<Case> {
    let path = format!("{}/../../data/tactics/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut cases = Vec::new();
    for raw in text.lines() {
        let line = raw.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let mut fields = line.split(';').map(str::trim);
        let fen = fields.next().unwrap_or_default().to_string();
        let (mut best, mut id) = (Vec::new(), String::new());
        for field in fields {
            let (key, value) = field.split_once(' ').unwrap_or((field, ""));
            match key {
                "bm" => best = value.split_whitespace().map(str::to_string).collect(),
                "id" => id = value.trim().trim_matches('"').to_string(),
                _ => {}
            }
        }
        assert!(!best.is_empty(), "{path}: no bm in '{line}'");
        cases.push(Case { fen, best, id });
    }
    cases
}

/// Searches `case` with `sims` simulations; returns the move chosen (temperature 0), whether it
/// is a best move, and the root's proof.
fn solve<G: Game>(case: &Case, evaluator: &dyn Evaluator<G>, sims: u32) -> (String, bool, Proof) {
    let game = G::from_fen(&case.fen).unwrap_or_else(|e| panic!("{}: {e}", case.id));
    let best: Vec<G::Move> =
        case.best.iter().map(|m| game.parse_move(m).unwrap_or_else(|e| panic!("{}: {m}: {e}", case.id))).collect();
    let mut search = Search::new(game, MctsParams::default(), 0);
    let stats = search.run(evaluator, sims).expect("searches");
    assert_eq!(stats.simulations, u64::from(sims));
    let mv = search.choose_move(0.0).unwrap_or_else(|| panic!("{}: no move", case.id));
    (search.game().move_to_string(mv), best.contains(&mv), search.root_proof())
}

#[test]
fn xiangqi_mates_in_one() {
    let cases: Vec<Case> = suite("xiangqi.txt").into_iter().filter(|c| c.id.starts_with("mate1")).collect();
    assert!(cases.len() >= 9);
    for case in &cases {
        let (mv, best, proof) = solve::<xiangqi::Game>(case, &UniformEvaluator, 1000);
        assert!(best, "{}: played {mv}, not {:?}", case.id, case.best);
        assert_eq!(proof, Proof::Win, "{}", case.id);
    }
}

#[test]
fn xiangqi_mates_in_two_by_proof() {
    // Proofs propagate by minimax, so the uniform search proves most mates in 2 in a few
    // thousand nodes. A mate whose key move is a quiet move among many may need more.
    let cases: Vec<Case> = suite("xiangqi.txt").into_iter().filter(|c| c.id.starts_with("mate2")).collect();
    assert!(cases.len() >= 10);
    let mut proven = 0;
    for case in &cases {
        let (mv, best, proof) = solve::<xiangqi::Game>(case, &UniformEvaluator, 20_000);
        if proof == Proof::Win {
            proven += 1;
            assert!(best, "{}: proved a win but played {mv}, not {:?}", case.id, case.best);
        }
    }
    assert!(proven * 10 >= cases.len() * 8, "proved only {proven} of {} mates in 2", cases.len());
}

#[test]
fn draughts_shots_that_win_the_game() {
    // Shots whose line ends the game (the loser is left without pieces or moves) within the
    // uniform search's reach.
    let ids = ["eg-08", "eg-09", "eg-11", "eg-13", "king-01"];
    let cases: Vec<Case> =
        suite("draughts.txt").into_iter().filter(|c| ids.iter().any(|id| c.id.starts_with(id))).collect();
    assert_eq!(cases.len(), ids.len());
    for case in &cases {
        let (mv, best, proof) = solve::<draughts::Game>(case, &UniformEvaluator, 20_000);
        assert!(best, "{}: played {mv}, not {:?}", case.id, case.best);
        assert_eq!(proof, Proof::Win, "{}", case.id);
    }
}

/// Material from the side to move's view (a king counts three men), squashed into (-1, 1);
/// uniform priors. A crude stand-in for a net's value head.
struct Material;

impl Evaluator<draughts::Game> for Material {
    fn evaluate(&self, batch: &[EvalRequest<'_, draughts::Game>]) -> Result<Vec<Evaluation>, EvalError> {
        Ok(batch
            .iter()
            .map(|r| {
                let pos = r.game.position();
                let us = pos.side_to_move();
                let score =
                    |c| pos.count(c, draughts::Kind::Man) as f32 + 3.0 * pos.count(c, draughts::Kind::King) as f32;
                let value = ((score(us) - score(!us)) / 3.0).tanh();
                Evaluation { value, priors: vec![1.0 / r.moves.len() as f32; r.moves.len()] }
            })
            .collect())
    }
}

#[test]
fn draughts_short_shots_with_a_material_evaluator() {
    // Every shot whose main line (in the id, after the colon) is at most three plies long.
    let cases: Vec<Case> = suite("draughts.txt")
        .into_iter()
        .filter(|c| c.id.split_once(':').is_some_and(|(_, line)| line.split_whitespace().count() <= 3))
        .collect();
    assert!(cases.len() >= 15, "only {} short shots", cases.len());
    let misses: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let (mv, best, _) = solve::<draughts::Game>(case, &Material, 10_000);
            (!best).then(|| format!("{}: played {mv}", case.id))
        })
        .collect();
    assert!(misses.is_empty(), "missed: {misses:#?}");
}
