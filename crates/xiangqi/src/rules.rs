//! The game layer: a position with the history of how it was reached, and the rules that end a
//! game. Search, MCTS, self-play and the arena all ask [`Game::outcome`], so one rule set is
//! applied everywhere.
//!
//! The rules, checked in this order after every move, from the view of the side to move:
//!
//! 1. **No legal move**: the side to move loses, in check (checkmate) or not (stalemate).
//! 2. **Repetition**: when the current position (board and side to move) has occurred twice
//!    before, the game ends at this third occurrence. Only positions since the last capture
//!    count (a capture makes earlier positions unreachable), and only those inside this game's
//!    history. The cycle judged runs from the first of the three occurrences to now:
//!    - if one side gave check with every one of its moves in the cycle and the other did not,
//!      the checking side loses (perpetual check); both checking throughout is a draw;
//!    - otherwise, if any move in the cycle gave check, it is a draw;
//!    - otherwise chases are looked for ([`crate::chase`]): if exactly one side chased one
//!      enemy piece with every one of its moves, that side loses (perpetual chase);
//!    - anything else is a draw.
//! 3. **Move rule**: 120 plies (60 moves each) without a capture is a draw. Counted in plies
//!    since the last capture, every move counting, checks included (the FEN half-move field
//!    starts the count). Rule 1 takes precedence: at the 120th ply a side with no legal move
//!    still loses.
//! 4. **Insufficient material**: when neither side has a rook, horse, cannon or soldier (no piece
//!    that can cross the river), nobody can ever be mated: a draw.
//!
//! Differences from Pikafish's computer rules, on purpose: Pikafish stops counting checks
//! towards the 120-ply rule after ten per side, and judges some cannon-only endings as drawn;
//! here every ply counts and only the no-attacker ending is drawn by material.

use crate::chase::perpetual_chasers;
use crate::fen::FenError;
use crate::movegen::MoveList;
use crate::notation::{self, NotationError};
use crate::position::{Position, Undo};
use crate::types::{Color, Kind, Move};
use game::{DrawReason, Outcome, WinReason};
use std::fmt;

/// Plies without a capture after which the game is drawn.
pub const MOVE_RULE_PLIES: u16 = 120;

/// What [`Game::undo`] returns for a null move: a from-to pair no piece can make.
const NULL_MOVE: Move = Move::NULL;

/// One move of the history.
#[derive(Copy, Clone, Debug)]
struct Ply {
    mv: Move,
    undo: Undo,
    /// True if the move gave check.
    check: bool,
    /// True for a null move (a search device: the side to move passes). Repetitions never
    /// reach back across one.
    null: bool,
}

/// A xiangqi game: the start position, the moves played, and the current position.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    pos: Position,
    history: Vec<Ply>,
}

/// Bad input to a [`Game`]: a FEN or a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// The FEN was rejected.
    Fen(FenError),
    /// The move text was rejected.
    Move(NotationError),
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::Fen(e) => write!(f, "bad FEN: {e}"),
            GameError::Move(e) => write!(f, "bad move: {e}"),
        }
    }
}

impl std::error::Error for GameError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GameError::Fen(e) => Some(e),
            GameError::Move(e) => Some(e),
        }
    }
}

impl From<FenError> for GameError {
    fn from(e: FenError) -> GameError {
        GameError::Fen(e)
    }
}

impl From<NotationError> for GameError {
    fn from(e: NotationError) -> GameError {
        GameError::Move(e)
    }
}

impl Default for Game {
    fn default() -> Game {
        Game::from_position(Position::startpos())
    }
}

impl Game {
    /// A game from the standard start position.
    #[must_use]
    pub fn new() -> Game {
        Game::default()
    }

    /// A game starting at `pos`, with no history.
    #[must_use]
    pub fn from_position(pos: Position) -> Game {
        Game { start: pos.clone(), pos, history: Vec::new() }
    }

    /// A game starting at the position of `fen`.
    ///
    /// # Errors
    /// The [`FenError`] if the FEN is rejected.
    pub fn from_fen(fen: &str) -> Result<Game, FenError> {
        Position::from_fen(fen).map(Game::from_position)
    }

    /// The current position.
    #[must_use]
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The position the game started from.
    #[must_use]
    pub fn start_position(&self) -> &Position {
        &self.start
    }

    /// The moves played, oldest first.
    pub fn moves(&self) -> impl ExactSizeIterator<Item = Move> + '_ {
        self.history.iter().map(|p| p.mv)
    }

    /// Number of moves played.
    #[must_use]
    pub fn ply(&self) -> usize {
        self.history.len()
    }

    /// The legal moves of the current position.
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        self.pos.legal_moves()
    }

    /// True if the side to move is in check. Known from the history after a move (each move
    /// records whether it gave check), so this is free; computed for the start position.
    #[must_use]
    pub fn in_check(&self) -> bool {
        self.history.last().map_or_else(|| self.pos.in_check(), |p| p.check)
    }

    /// Plays `mv`, which must be legal in the current position: the fast entry point for search
    /// and moves already checked. [`Game::play_text`] (text) and [`game::Game::play`] (a move)
    /// are the checked ones for moves from outside.
    ///
    /// # Panics
    /// In debug builds, if `mv` is not legal here (release builds do not check).
    pub fn play_unchecked(&mut self, mv: Move) {
        debug_assert!(self.pos.is_legal(mv), "illegal move {mv} in {}", self.pos.fen());
        let undo = self.pos.make(mv);
        let check = self.pos.in_check();
        self.history.push(Ply { mv, undo, check, null: false });
    }

    /// Reads a move (UCI, WXF or Chinese notation), checks it is legal, and plays it.
    ///
    /// # Errors
    /// A [`NotationError`] saying why the text is not a legal move here.
    pub fn play_text(&mut self, text: &str) -> Result<Move, NotationError> {
        let mv = notation::parse_move(&self.pos, text)?;
        self.play_unchecked(mv);
        Ok(mv)
    }

    /// Takes back the last move; `None` if no move has been played. Takes back a null move
    /// too (returning the null placeholder move), so search can undo either with one call.
    pub fn undo(&mut self) -> Option<Move> {
        let ply = self.history.pop()?;
        if ply.null {
            self.pos.unmake_null(ply.undo);
        } else {
            self.pos.unmake(ply.mv, ply.undo);
        }
        Some(ply.mv)
    }

    /// Passes the move to the other side (a search device for null-move pruning; the side to
    /// move must not be in check). Undo it with [`Game::undo`].
    pub fn play_null(&mut self) {
        debug_assert!(!self.pos.in_check());
        let undo = self.pos.make_null();
        self.history.push(Ply { mv: NULL_MOVE, undo, check: false, null: true });
    }

    /// The result by the history rules alone (repetition, the move rule, material), for search.
    /// Having no legal move is left to the search, which sees it anyway. A position recurring
    /// with its earlier occurrence at or after `root_ply` (inside the search tree) is judged at
    /// its first recurrence, the cycle being the moves since; one whose earlier occurrences all
    /// lie before the root needs three occurrences, as in a game. With `root_ply` equal to
    /// [`Game::ply`] this is [`Game::outcome`] without the no-legal-move rule.
    #[must_use]
    pub fn rule_outcome(&self, root_ply: usize) -> Option<Outcome> {
        if let Some(span) = self.repetition_span(root_ply) {
            return Some(self.judge_repetition(span));
        }
        if self.pos.rule_plies() >= MOVE_RULE_PLIES {
            return Some(Outcome::Draw(DrawReason::MoveRule));
        }
        if self.insufficient_material() {
            return Some(Outcome::Draw(DrawReason::InsufficientMaterial));
        }
        None
    }

    /// The key of the position before history move `i`.
    fn key_before(&self, i: usize) -> u64 {
        self.history[i].undo.key
    }

    /// How many plies back an earlier position can equal the current one: not across a capture
    /// (the capture clock), a null move, or the start of this game's history.
    fn repetition_window(&self) -> usize {
        let n = self.history.len();
        let mut window = usize::from(self.pos.rule_plies()).min(n);
        if let Some(null) = self.history.iter().rposition(|p| p.null) {
            window = window.min(n - null - 1);
        }
        window
    }

    /// If the current position recurs for the third time (or, with its earlier occurrence at
    /// or after `root_ply`, for the second), how many plies back the cycle starts.
    fn repetition_span(&self, root_ply: usize) -> Option<usize> {
        let n = self.history.len();
        let window = self.repetition_window();
        let key = self.pos.key();
        let mut seen = 0;
        for d in (4..=window).step_by(2) {
            if self.key_before(n - d) == key {
                seen += 1;
                if seen == 2 || n - d >= root_ply {
                    return Some(d);
                }
            }
        }
        None
    }

    /// The result of a repetition whose cycle is the last `span` moves.
    fn judge_repetition(&self, span: usize) -> Outcome {
        let n = self.history.len();
        let cycle = &self.history[n - span..];
        let us = self.pos.side_to_move();
        // cycle[i] was played by `us` when (span - i) is even.
        let checked_always = |by_us: bool| {
            cycle.iter().enumerate().filter(|(i, _)| ((span - i) % 2 == 0) == by_us).all(|(_, p)| p.check)
        };
        let (us_checks, them_checks) = (checked_always(true), checked_always(false));
        let lose = |loser: Color, reason| Outcome::Win { winner: (!loser).into(), reason };
        match (us_checks, them_checks) {
            (true, false) => return lose(us, WinReason::PerpetualCheck),
            (false, true) => return lose(!us, WinReason::PerpetualCheck),
            (true, true) => return Outcome::Draw(DrawReason::Repetition),
            (false, false) => {}
        }
        if cycle.iter().any(|p| p.check) {
            return Outcome::Draw(DrawReason::Repetition);
        }
        let moves: Vec<(Move, Undo)> = cycle.iter().map(|p| (p.mv, p.undo)).collect();
        match perpetual_chasers(&self.pos, &moves) {
            [true, false] => lose(Color::Red, WinReason::PerpetualChase),
            [false, true] => lose(Color::Black, WinReason::PerpetualChase),
            _ => Outcome::Draw(DrawReason::Repetition),
        }
    }

    /// How many times the current position (board and side to move) occurred earlier within the
    /// window a repetition is judged in (see the module docs): 0 or 1 while the game goes on, 2
    /// at the third occurrence. For the network encoder, which shows it as an input.
    #[must_use]
    pub fn repetitions(&self) -> usize {
        let n = self.history.len();
        let key = self.pos.key();
        (4..=self.repetition_window()).step_by(2).filter(|&d| self.key_before(n - d) == key).count()
    }

    /// How many of `color`'s most recent moves gave check, in a row: 0 if its last move did not
    /// or it has not moved in this game. A null move ends the run. For the network encoder: the
    /// perpetual-check rule turns on such runs.
    #[must_use]
    pub fn check_streak(&self, color: Color) -> usize {
        // The last move was played by the side not to move now.
        let skip = usize::from(color == self.pos.side_to_move());
        self.history.iter().rev().skip(skip).step_by(2).take_while(|p| p.check).count()
    }

    /// The position `back` plies ago: 0 is the current one, 1 the one before the last move (a
    /// null move counts as a ply); `None` if fewer than `back` moves have been played. Copies
    /// the position and takes the moves back on the copy: no allocation, cost linear in `back`.
    #[must_use]
    pub fn previous_position(&self, back: usize) -> Option<Position> {
        let n = self.history.len();
        let recent = self.history.get(n.checked_sub(back)?..)?;
        let mut pos = self.pos.clone();
        for ply in recent.iter().rev() {
            if ply.null {
                pos.unmake_null(ply.undo);
            } else {
                pos.unmake(ply.mv, ply.undo);
            }
        }
        Some(pos)
    }

    /// True if neither side has a piece that can ever cross the river.
    #[must_use]
    pub fn insufficient_material(&self) -> bool {
        [Kind::Rook, Kind::Horse, Kind::Cannon, Kind::Soldier].iter().all(|&k| self.pos.kind(k).is_empty())
    }

    /// How the game has ended, if it has; see the module docs for the rules.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        let us = self.pos.side_to_move();
        if !self.pos.has_legal_move() {
            let reason = if self.pos.in_check() { WinReason::Checkmate } else { WinReason::Stalemate };
            return Some(Outcome::Win { winner: (!us).into(), reason });
        }
        self.rule_outcome(self.history.len())
    }
}

impl game::Game for Game {
    type Move = Move;
    type MoveList = MoveList;
    type Error = GameError;

    const NAME: &'static str = "xiangqi";

    fn new() -> Game {
        Game::new()
    }

    fn from_fen(fen: &str) -> Result<Game, GameError> {
        Ok(Game::from_fen(fen)?)
    }

    fn fen(&self) -> String {
        self.pos.fen()
    }

    fn side_to_move(&self) -> game::Side {
        self.pos.side_to_move().into()
    }

    fn legal_moves(&self) -> MoveList {
        self.pos.legal_moves()
    }

    fn play_unchecked(&mut self, mv: Move) {
        Game::play_unchecked(self, mv);
    }

    fn undo(&mut self) -> Option<Move> {
        Game::undo(self)
    }

    fn outcome(&self) -> Option<Outcome> {
        Game::outcome(self)
    }

    fn key(&self) -> u64 {
        self.pos.key()
    }

    fn ply(&self) -> usize {
        self.history.len()
    }

    fn moves_played(&self) -> Vec<Move> {
        self.moves().collect()
    }

    fn move_to_string(&self, mv: Move) -> String {
        mv.to_string()
    }

    fn parse_move(&self, text: &str) -> Result<Move, GameError> {
        Ok(notation::parse_move(&self.pos, text)?)
    }

    fn parse_move_strict(&self, text: &str) -> Result<Move, GameError> {
        Ok(notation::parse_move_strict(&self.pos, text)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_play_refuses_an_illegal_move_and_changes_nothing() {
        let mut g = Game::new();
        let illegal = notation::parse_uci("e0e2").expect("coordinates");
        let e = game::Game::play(&mut g, illegal).expect_err("a king moves one step");
        assert!(e.to_string().contains("not a legal move") && e.fen == g.position().fen(), "{e}");
        assert_eq!(g.ply(), 0);
        let legal = notation::parse_uci("h2e2").expect("coordinates");
        game::Game::play(&mut g, legal).expect("legal");
        assert_eq!(g.ply(), 1);
    }
    use game::Side;

    fn game(fen: &str) -> Game {
        Game::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    /// Plays UCI moves, asserting that the game goes on until the last one.
    fn play(g: &mut Game, moves: &str) {
        for text in moves.split_whitespace() {
            assert_eq!(g.outcome(), None, "game ended before {text}");
            let mv = notation::parse_uci(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert!(g.position().is_legal(mv), "{text} illegal in {}", g.position().fen());
            g.play_unchecked(mv);
        }
    }

    fn win(winner: Side, reason: WinReason) -> Option<Outcome> {
        Some(Outcome::Win { winner, reason })
    }

    #[test]
    fn checkmate_and_stalemate_lose() {
        assert_eq!(game("R3k4/1R7/9/9/9/9/9/9/9/3K5 b").outcome(), win(Side::First, WinReason::Checkmate));
        assert_eq!(game("3k5/R8/9/9/9/9/9/9/4R4/5K3 b").outcome(), win(Side::First, WinReason::Stalemate));
        assert_eq!(game(crate::START_FEN).outcome(), None);
    }

    #[test]
    fn perpetual_check_loses_for_the_checker() {
        // The red rook checks on every move along ranks 8 and 9; the black king steps e8 <-> e9.
        let mut g = game("9/4k4/9/9/9/9/9/9/7R1/3K5 w");
        play(&mut g, "h1h8 e8e9 h8h9 e9e8 h9h8 e8e9 h8h9 e9e8 h9h8");
        assert_eq!(g.outcome(), win(Side::Second, WinReason::PerpetualCheck));
        // One move earlier, the position had occurred only twice.
        g.undo();
        assert_eq!(g.outcome(), None);
    }

    #[test]
    fn perpetual_chase_loses_for_the_chaser() {
        // The red rook attacks the unprotected black horse on every move (c7 <-> b9).
        let mut g = game("4k4/9/2n6/9/9/9/9/9/2R6/3K5 b");
        play(&mut g, "c7b9 c1b1 b9c7 b1c1 c7b9 c1b1 b9c7 b1c1");
        assert_eq!(g.outcome(), win(Side::Second, WinReason::PerpetualChase));
    }

    #[test]
    fn chasing_a_protected_piece_is_no_chase() {
        // As above, but a black rook on c9 guards both of the horse's squares, so the red rook's
        // attacks are not chases; the rooks facing each other on the c-file is a mutual attack
        // between equals, no chase either. A draw.
        let mut g = game("2r1k4/9/2n6/9/9/9/9/9/2R6/3K5 b");
        play(&mut g, "c7b9 c1b1 b9c7 b1c1 c7b9 c1b1 b9c7 b1c1");
        assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
    }

    #[test]
    fn idle_repetition_draws() {
        let mut g = game(crate::START_FEN);
        play(&mut g, "h2e2 h9g7 e2h2 g7h9 h2e2 h9g7 e2h2 g7h9");
        assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
    }

    #[test]
    fn a_capture_resets_repetition_and_the_move_rule() {
        let mut g = game("4k4/9/9/9/9/9/9/9/R8/3K5 w - - 118 70");
        play(&mut g, "a1a2");
        assert_eq!(g.outcome(), None);
        g.play_unchecked(notation::parse_uci("e9e8").expect("uci"));
        assert_eq!(g.position().rule_plies(), 120);
        assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::MoveRule)));
    }

    #[test]
    fn mate_on_the_last_ply_of_the_move_rule_still_wins() {
        // Red mates with the 120th ply without capture.
        let mut g = game("4k4/1R7/9/9/9/9/9/9/R8/3K5 w - - 119 80");
        play(&mut g, "a1a9");
        assert_eq!(g.position().rule_plies(), 120);
        assert_eq!(g.outcome(), win(Side::First, WinReason::Checkmate));
    }

    #[test]
    fn no_attacking_pieces_is_a_draw() {
        assert_eq!(
            game("3ak4/4a4/4b4/9/9/9/9/4B4/4A4/3K1A3 w").outcome(),
            Some(Outcome::Draw(DrawReason::InsufficientMaterial))
        );
        assert_eq!(game("3ak4/4a4/4b4/9/9/9/4p4/4B4/4A4/3K1A3 w").outcome(), None);
    }

    #[test]
    fn search_judges_a_repetition_inside_the_tree_at_its_first_recurrence() {
        let mut g = game(crate::START_FEN);
        play(&mut g, "h2e2 h9g7 e2h2 g7h9");
        // Back at the start position: a game goes on (second occurrence)...
        assert_eq!(g.outcome(), None);
        assert_eq!(g.rule_outcome(4), None);
        // ...but a search rooted before the cycle sees a draw.
        assert_eq!(g.rule_outcome(0), Some(Outcome::Draw(DrawReason::Repetition)));
        // A null move cuts the window: nothing before it can repeat.
        let mut n = game(crate::START_FEN);
        play(&mut n, "h2e2 h9g7");
        n.play_null();
        play(&mut n, "h7h6");
        assert_eq!(n.rule_outcome(0), None);
        assert_eq!(n.undo().map(|m| m.to_string()), Some("h7h6".into()));
        assert_eq!(n.undo(), Some(Move::NULL));
        assert_eq!(n.position().side_to_move(), Color::Red);
        assert!(n.position().is_consistent());
    }

    #[test]
    fn undo_restores_everything() {
        let mut g = Game::new();
        play(&mut g, "h2e2 h9g7 h0g2 i9h9");
        let fen = g.position().fen();
        play(&mut g, "i0h0");
        assert_eq!(g.undo().map(|m| m.to_string()), Some("i0h0".into()));
        assert_eq!(g.position().fen(), fen);
        while g.undo().is_some() {}
        assert_eq!(g.position(), &Position::startpos());
        assert_eq!(g.ply(), 0);
    }

    /// Checks that every legal move of `g` reads back from `move_to_string` with the strict
    /// parser, then plays one of them; `plies` times, or until the game ends.
    fn strict_round_trip_along(mut g: Game, plies: usize) {
        for ply in 0..plies {
            let legal = g.legal_moves();
            if legal.is_empty() || g.outcome().is_some() {
                return;
            }
            for &mv in &legal {
                let text = game::Game::move_to_string(&g, mv);
                let read = game::Game::parse_move_strict(&g, &text);
                assert_eq!(read.ok(), Some(mv), "{text} in {}", g.position().fen());
            }
            g.play_unchecked(legal[(ply * 7 + 3) % legal.len()]);
        }
    }

    #[test]
    fn strict_parse_reads_back_every_legal_move() {
        let fens = [
            crate::START_FEN,
            "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
            "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w - - 0 1",
            "4ka3/4a4/9/9/4N4/p8/9/4C3c/7n1/2BK5 b - - 0 1",
        ];
        for fen in fens {
            strict_round_trip_along(game(fen), 40);
        }
    }

    #[test]
    fn strict_parse_takes_only_what_move_to_string_writes() {
        let g = Game::new();
        let h2e2 = notation::parse_uci("h2e2").expect("h2e2");
        assert_eq!(game::Game::parse_move_strict(&g, "h2e2").ok(), Some(h2e2));
        // Other notations and spellings of the same move: the lenient reader takes them all.
        for text in ["C2=5", "炮二平五", " h2e2", "h2e2\n"] {
            assert_eq!(game::Game::parse_move(&g, text).ok(), Some(h2e2), "{text:?}");
            let err = game::Game::parse_move_strict(&g, text).expect_err(text);
            assert!(matches!(err, GameError::Move(NotationError::Syntax { .. })), "{text:?}: {err}");
        }
        // Well formed but not legal here.
        for text in ["a0a9", "h3e3", "e9e8"] {
            assert!(game::Game::parse_move_strict(&g, text).is_err(), "{text}");
        }
    }
}
