//! What the page needs from a game beyond the arena's view of it: the board as a string of
//! square characters, every move as squares and notation, the king in check, and the result in
//! words. Everything here comes from the rules crates; the page draws what it is given.
//!
//! Square indices and board characters are documented in `API.md` ("Squares and boards").

use arena::ArenaGame;
use arena::record::{GameRecord, parse_record};
use game::{Outcome, Side};
use serde::Serialize;

/// A move as the page sees it (see `API.md`, "Moves").
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveView {
    /// The engine-protocol notation: unique among the legal moves, and what the page sends back.
    pub id: String,
    /// The notation people read: WXF (xiangqi), PDN (draughts).
    pub text: String,
    /// Xiangqi's Chinese notation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cn: Option<String>,
    /// Origin square index.
    pub from: usize,
    /// Destination square index.
    pub to: usize,
    /// Every square the piece stands on, origin first.
    pub path: Vec<usize>,
    /// The squares of the pieces taken.
    pub captures: Vec<usize>,
}

/// A finished game's result, for the page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ResultView {
    /// `1-0`, `0-1` or `1/2-1/2` (whatever the game).
    pub score: &'static str,
    /// 0 = the first mover won, 1 = the second, none for a draw.
    pub winner: Option<usize>,
    /// How it ended, in words (`checkmate`, `perpetual check`, `draw by repetition`, ...).
    pub reason: String,
    /// The whole sentence: `Red wins by checkmate`, `Draw by repetition`.
    pub text: String,
}

impl ResultView {
    /// The result of `outcome` in game `G`.
    #[must_use]
    pub fn of<G: ArenaGame>(outcome: Outcome) -> ResultView {
        let reason = arena::termination(outcome, None, usize::MAX);
        let text = match outcome.winner() {
            Some(side) => format!("{} wins by {reason}", G::SIDE_NAMES[side.index()]),
            None => {
                let mut chars = reason.chars();
                chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
            }
        };
        ResultView { score: outcome.score_str(), winner: outcome.winner().map(Side::index), reason, text }
    }
}

/// A game the page can show.
pub trait WebGame: ArenaGame {
    /// Squares on the board (90 or 50).
    const SQUARES: usize;

    /// One character per square, in index order.
    fn board(&self) -> String;

    /// The square of the side to move's king when it is in check.
    fn check_square(&self) -> Option<usize>;

    /// `mv`, legal in `self`, as the page sees it.
    fn view(&self, mv: Self::Move) -> MoveView;
}

impl WebGame for xiangqi::Game {
    const SQUARES: usize = xiangqi::SQUARES;

    fn board(&self) -> String {
        let pos = self.position();
        xiangqi::Square::all().map(|s| pos.piece_at(s).map_or('.', xiangqi::Piece::fen_char)).collect()
    }

    fn check_square(&self) -> Option<usize> {
        let pos = self.position();
        pos.in_check().then(|| pos.king(pos.side_to_move()).index())
    }

    fn view(&self, mv: xiangqi::Move) -> MoveView {
        let pos = self.position();
        let (from, to) = (mv.from().index(), mv.to().index());
        MoveView {
            id: mv.to_string(),
            text: xiangqi::notation::to_wxf(pos, mv),
            cn: Some(xiangqi::notation::to_chinese(pos, mv)),
            from,
            to,
            path: vec![from, to],
            captures: if pos.piece_at(mv.to()).is_some() { vec![to] } else { Vec::new() },
        }
    }
}

impl WebGame for draughts::Game {
    const SQUARES: usize = draughts::SQUARES;

    fn board(&self) -> String {
        self.position().board_chars().replace('e', ".")
    }

    fn check_square(&self) -> Option<usize> {
        None
    }

    fn view(&self, mv: draughts::Move) -> MoveView {
        let index = |s: draughts::Square| s.number() as usize - 1;
        let (from, to) = (index(mv.from()), index(mv.to()));
        let mut path = vec![from];
        path.extend(mv.path().map(index));
        path.push(to);
        MoveView {
            id: draughts::notation::to_hub(&mv),
            text: draughts::notation::to_pdn(self.position(), &mv),
            cn: None,
            from,
            to,
            path,
            captures: mv.captured().map(index).collect(),
        }
    }
}

/// The legal moves of `game`, as the page sees them; none once the game is over.
#[must_use]
pub fn legal_views<G: WebGame>(game: &G) -> Vec<MoveView> {
    if game.outcome().is_some() {
        return Vec::new();
    }
    game.legal_moves().as_ref().iter().map(|&mv| game.view(mv)).collect()
}

/// The moves of `game` from its start, each as the page sees it with the board, FEN and
/// check square after it, and the start position.
pub struct Replayed<G: WebGame> {
    /// The game at its start (no moves).
    pub start: G,
    /// (move, the game after it), oldest first.
    pub steps: Vec<(MoveView, G)>,
}

/// Replays `game`'s moves from its start.
#[must_use]
pub fn replay<G: WebGame>(game: &G) -> Replayed<G> {
    let moves = game.moves_played();
    let mut start = game.clone();
    while start.undo().is_some() {}
    let mut at = start.clone();
    let mut steps = Vec::with_capacity(moves.len());
    for mv in moves {
        let view = at.view(mv);
        at.play_unchecked(mv);
        steps.push((view, at.clone()));
    }
    Replayed { start, steps }
}

/// The game record of `game` (PGN with WXF moves, or PDN), with the page's players.
#[must_use]
pub fn record_text<G: WebGame>(game: &G, players: [String; 2]) -> String {
    let replayed = replay(game);
    let start = &replayed.start;
    let mut moves = Vec::with_capacity(replayed.steps.len());
    let mut at = start.clone();
    for mv in game.moves_played() {
        moves.push(at.record_move(mv));
        at.play_unchecked(mv);
    }
    let outcome = game.outcome();
    let record = GameRecord {
        event: "qizero serve".to_string(),
        site: "qizero serve".to_string(),
        date: arena::record::today(),
        round: 1,
        side_names: G::SIDE_NAMES,
        players,
        result: outcome.map_or("*", |o| G::result_text(o.winner())).to_string(),
        fen: start.fen(),
        first_to_move: start.side_to_move(),
        first_move_number: G::first_move_number(&start.fen()),
        moves,
        termination: outcome.map_or_else(|| "unterminated".to_string(), |o| arena::termination(o, None, usize::MAX)),
        extra_tags: G::extra_tags().iter().map(|(n, v)| ((*n).to_string(), (*v).to_string())).collect(),
        comment: None,
    };
    record.to_string()
}

/// Reads a game record (PGN-style or PDN, as `qizero` writes them and as other programs do:
/// moves in any notation the game reads) into a game.
///
/// # Errors
/// A message naming the line or the move that does not read, or the FEN that does not.
pub fn game_from_record<G: WebGame>(text: &str) -> Result<G, String> {
    let parsed = parse_record(text).map_err(|e| e.to_string())?;
    let mut game = match parsed.tag("FEN") {
        Some(fen) => G::from_fen(fen).map_err(|e| format!("the record's FEN tag: {e}"))?,
        None => G::new(),
    };
    for (i, text) in parsed.moves.iter().enumerate() {
        if game.outcome().is_some() {
            return Err(format!("move {} ({text}): the game is already over", i + 1));
        }
        let mv = game.parse_move(text).map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
        game.play_unchecked(mv);
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::Game as _;

    #[test]
    fn xiangqi_moves_carry_squares_and_both_notations() {
        let game = xiangqi::Game::new();
        let moves = legal_views(&game);
        assert_eq!(moves.len(), 44);
        let cannon = moves.iter().find(|m| m.id == "h2e2").expect("h2e2 is legal at the start");
        assert_eq!((cannon.from, cannon.to), (25, 22));
        assert_eq!(cannon.text, "C2=5");
        assert_eq!(cannon.cn.as_deref(), Some("炮二平五"));
        assert_eq!(cannon.path, vec![25, 22]);
        assert!(cannon.captures.is_empty());
        let board = game.board();
        assert_eq!(board.len(), 90);
        assert_eq!(&board[..9], "RNBAKABNR");
        assert_eq!(board.as_bytes()[25], b'C');
    }

    #[test]
    fn xiangqi_check_names_the_king_square() {
        // Black's king on e9 faces a red rook on e1.
        let game = xiangqi::Game::from_fen("4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1").expect("valid FEN");
        assert_eq!(game.check_square(), Some(4 + 9 * 9));
        assert_eq!(xiangqi::Game::new().check_square(), None);
    }

    #[test]
    fn draughts_captures_list_path_and_taken_pieces() {
        // White man on 28 takes 23 and 13, landing on 19 and then 8.
        let game = draughts::Game::from_fen("W:W28:B23,13").expect("valid FEN");
        let moves = legal_views(&game);
        assert_eq!(moves.len(), 1, "{moves:?}");
        let m = &moves[0];
        assert_eq!(m.path, vec![27, 18, 7]);
        assert_eq!(m.captures, vec![12, 22]);
        assert_eq!(m.text, "28x8");
        assert_eq!(game.board().len(), 50);
    }

    #[test]
    fn results_read_as_sentences() {
        let win = Outcome::Win { winner: Side::First, reason: game::WinReason::Checkmate };
        let view = ResultView::of::<xiangqi::Game>(win);
        assert_eq!(view.text, "Red wins by checkmate");
        assert_eq!(view.winner, Some(0));
        let draw = ResultView::of::<draughts::Game>(Outcome::Draw(game::DrawReason::KingMoves));
        assert_eq!(draw.text, "Draw by the 25-move king rule");
        assert_eq!(draw.score, "1/2-1/2");
    }

    #[test]
    fn records_round_trip_and_bad_ones_are_named() {
        let mut game = xiangqi::Game::new();
        for text in ["h2e2", "h9g7", "h0g2"] {
            let mv = game.parse_move(text).expect("legal");
            game.play_unchecked(mv);
        }
        let text = record_text(&game, ["you".into(), "engine".into()]);
        assert!(text.contains("1. C2=5 H8+7 2. H2+3"), "{text}");
        let back: xiangqi::Game = game_from_record(&text).expect("reads back");
        assert_eq!(back.moves_played(), game.moves_played());
        let bad = game_from_record::<xiangqi::Game>("1. C2=5 X9+9").expect_err("X9+9 is no move");
        assert!(bad.contains("move 2 (X9+9)"), "{bad}");
    }
}
