//! The game layer: a position with the history of how it was reached, and the FMJD rules that
//! end a game. Search, MCTS, self-play and the arena all ask [`Game::outcome`], so one rule set
//! is applied everywhere.
//!
//! The rules, checked in this order after every move, from the view of the side to move:
//!
//! 1. **No legal move**: a side to move with no piece left, or with every piece blocked, loses
//!    ([`WinReason::NoMoves`]). This comes first: a side left without a move loses even on the
//!    ply where a draw rule below would also be reached (the draw rules are about the stronger
//!    side *failing* to win within a count).
//! 2. **Third repetition**: the game is drawn ([`DrawReason::Repetition`]) when the current
//!    position (board and side to move) has occurred twice before in this game. A capture and a
//!    man move are irreversible (material only ever goes down, a man never steps back), so no
//!    position from before the last of them can come back: the positions compared are those from
//!    the one right after the last capture or man move (or the game's first position, if there
//!    was none) to now, with the same side to move. Positions are compared by Zobrist key.
//! 3. **25-move rule**: drawn ([`DrawReason::KingMoves`]) when both sides have made only king
//!    moves without capture for 25 moves each: [`Game::reversible_plies`], the plies since the
//!    last capture or man move, reaches [`KING_MOVES_PLIES`] (50). At ply 49 the game goes on.
//! 4. **16-move and 5-move rules** ([`DrawReason::Endgame`]): when one side has a lone king (one
//!    king, no man) and the other has at least one king,
//!    - and three pieces (3 kings, 2 kings + a man, or a king + 2 men): drawn after 16 moves
//!      each, [`ENDGAME_16_PLIES`] (32) plies;
//!    - and one or two pieces (a king, 2 kings, or a king + a man; so king against king too):
//!      drawn after 5 moves each, [`ENDGAME_5_PLIES`] (10) plies.
//!
//!    Counted as [`Game::endgame_plies`]: the plies since the material (the number of men and of
//!    kings of each side) last changed, that is since the last capture or promotion. So:
//!    - the count starts at the first position where the material condition holds: material
//!      changes only by a capture or a promotion, which sets the count to zero there;
//!    - a man move that does not promote does *not* reset it (FMJD counts from the moment the
//!      configuration arises; unlike the 25-move count, see below for pydraughts);
//!    - a promotion inside the 16-move configuration (king + 2 men becoming 2 kings + a man)
//!      restarts it at zero;
//!    - when the lone king captures one of three pieces, the 5-move rule takes over with a fresh
//!      count of 10 plies from that capture, whatever was left of the 16-move count; a capture
//!      inside the 5-move configuration (2 kings against a king becoming king against king)
//!      restarts the count too.
//!
//! When several draw rules hold on the same ply, the first one listed names the reason.
//!
//! **Games from a FEN**: a FEN carries no counters and no history, so a game started from one
//! starts every count at zero and knows no earlier positions: from a FEN with a lone king against
//! three pieces, the 16-move count starts at that position, whatever happened before it.
//!
//! **pydraughts** (0.6.7, `draughts/core/game.py`), the differential test's oracle, agrees on
//! rules 1-3: it checks no-moves first (`get_winner` asks `has_player_won` before `is_draw`),
//! its 25-move count `consecutive_noncapture_king_moves` is reset by any capture or man move in
//! `Game.move` and draws at `>= 50`, and its threefold test counts every earlier position of the
//! game (`is_threefold`), which comes to the same as the window above. For rule 4 it reuses the
//! 25-move count (`is_draw`: `>= 32` and `>= 10`), so a man move restarts its 16- and 5-move
//! counts. FMJD counts those from the moment the configuration arises, and so do we: with men on
//! the stronger side (king + 2 men, 2 kings + a man, or king + man against a king) a game here
//! can end in a draw earlier than under pydraughts. Where FMJD leaves room (a capture or a
//! promotion inside the configuration) we restart the count as pydraughts does.

use crate::fen::FenError;
use crate::movegen::MoveList;
use crate::moves::Move;
use crate::notation::{self, NotationError};
use crate::position::{Position, Undo};
use crate::types::{Color, Kind};
use game::{DrawReason, Outcome, WinReason};
use std::fmt;

/// Plies of king moves without capture after which the game is drawn (25 moves each).
pub const KING_MOVES_PLIES: u32 = 50;
/// Plies after which a lone king against three pieces (at least one a king) draws (16 moves each).
pub const ENDGAME_16_PLIES: u32 = 32;
/// Plies after which a lone king against one or two pieces (at least one a king) draws (5 moves
/// each).
pub const ENDGAME_5_PLIES: u32 = 10;

/// One move of the history, with what is needed to take it back exactly.
#[derive(Copy, Clone, Debug)]
struct Ply {
    mv: Move,
    undo: Undo,
    /// Key of the position before the move.
    key: u64,
    /// [`Game::reversible_plies`] before the move.
    reversible: u32,
    /// [`Game::endgame_plies`] before the move.
    endgame: u32,
}

/// A draughts game: the start position, the moves played, the current position, and the counts
/// the draw rules need (see the module docs).
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    pos: Position,
    history: Vec<Ply>,
    reversible: u32,
    endgame: u32,
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

/// The endgame rule the material of `pos` falls under, as its limit in plies: 32 for a lone king
/// against three pieces, 10 for a lone king against one or two, each with at least one king.
fn endgame_limit(pos: &Position) -> Option<u32> {
    Color::BOTH.into_iter().find_map(|lone| {
        let strong = !lone;
        let lone_king = pos.count(lone, Kind::King) == 1 && pos.count(lone, Kind::Man) == 0;
        let kings = pos.count(strong, Kind::King);
        if !lone_king || kings == 0 {
            return None;
        }
        match kings + pos.count(strong, Kind::Man) {
            1 | 2 => Some(ENDGAME_5_PLIES),
            3 => Some(ENDGAME_16_PLIES),
            _ => None,
        }
    })
}

impl Game {
    /// A game from the standard start position.
    #[must_use]
    pub fn new() -> Game {
        Game::default()
    }

    /// A game starting at `pos`, with no history and every count at zero.
    #[must_use]
    pub fn from_position(pos: Position) -> Game {
        Game { start: pos, pos, history: Vec::new(), reversible: 0, endgame: 0 }
    }

    /// A game starting at the position of `fen`, every count at zero (FEN has no counters).
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

    /// Plies since the last capture or man move (or the game's start): the 25-move count, and
    /// the window in which positions can repeat.
    #[must_use]
    pub fn reversible_plies(&self) -> u32 {
        self.reversible
    }

    /// Plies since the material last changed by a capture or a promotion (or the game's start):
    /// the count the 16- and 5-move rules apply when their material holds.
    #[must_use]
    pub fn endgame_plies(&self) -> u32 {
        self.endgame
    }

    /// The endgame rule the current material falls under, as its limit in plies:
    /// [`ENDGAME_16_PLIES`], [`ENDGAME_5_PLIES`], or `None` when neither applies.
    #[must_use]
    pub fn endgame_limit(&self) -> Option<u32> {
        endgame_limit(&self.pos)
    }

    /// Plays `mv`, which must be legal in the current position: the fast entry point for search
    /// and moves already checked. [`Game::play_text`] (text) and [`game::Game::play`] (a move)
    /// are the checked ones for moves from outside.
    ///
    /// # Panics
    /// In debug builds, if `mv` is not legal here (release builds do not check).
    pub fn play_unchecked(&mut self, mv: Move) {
        debug_assert!(self.pos.is_legal(&mv), "illegal move {mv} in {}", self.pos.fen());
        let man = self.pos.piece_at(mv.from()).is_some_and(|p| p.kind == Kind::Man);
        let key = self.pos.key();
        let undo = self.pos.make(&mv);
        let promoted = man && self.pos.piece_at(mv.to()).is_some_and(|p| p.kind == Kind::King);
        self.history.push(Ply { mv, undo, key, reversible: self.reversible, endgame: self.endgame });
        self.reversible = if mv.is_capture() || man { 0 } else { self.reversible + 1 };
        self.endgame = if mv.is_capture() || promoted { 0 } else { self.endgame + 1 };
    }

    /// Reads a move (PDN or Hub, see [`notation::parse_move`]), checks it is legal, and plays it.
    ///
    /// # Errors
    /// A [`NotationError`] saying why the text is not a legal move here; nothing is played.
    pub fn play_text(&mut self, text: &str) -> Result<Move, NotationError> {
        let mv = notation::parse_move(&self.pos, text)?;
        self.play_unchecked(mv);
        Ok(mv)
    }

    /// Takes back the last move, restoring the position and every count; `None` if no move has
    /// been played.
    pub fn undo(&mut self) -> Option<Move> {
        let ply = self.history.pop()?;
        self.pos.unmake(ply.undo);
        self.reversible = ply.reversible;
        self.endgame = ply.endgame;
        Some(ply.mv)
    }

    /// How many times the current position (board and side to move) occurred earlier within the
    /// window of positions that can repeat (see the module docs): 0 or 1 while the game goes on,
    /// 2 at the third occurrence. For the network encoder, which shows it as an input.
    #[must_use]
    pub fn repetitions(&self) -> usize {
        let n = self.history.len();
        let window = (self.reversible as usize).min(n);
        let key = self.pos.key();
        (4..=window).step_by(2).filter(|&d| self.history[n - d].key == key).count()
    }

    /// True if the current position occurred at least twice before within the window of
    /// positions that can repeat (see the module docs), or once at or after `root_ply`.
    fn is_repetition(&self, root_ply: usize) -> bool {
        let n = self.history.len();
        let window = (self.reversible as usize).min(n);
        let key = self.pos.key();
        // history[n - d].key is the position d plies ago. Same side to move means even d, and a
        // position cannot come back after 2 plies: neither side can undo the other's move.
        let mut earlier = (4..=window).step_by(2).filter(|&d| self.history[n - d].key == key);
        match earlier.next() {
            None => false,
            Some(d) => n - d >= root_ply || earlier.next().is_some(),
        }
    }

    /// The result by the draw rules alone (repetition, 25-move, 16-move and 5-move rules), for
    /// search, which sees a side without moves by itself. A position recurring with its earlier
    /// occurrence at or after `root_ply` (inside the search tree) is a draw at its first
    /// recurrence; otherwise three occurrences are needed, as in a game.
    #[must_use]
    pub fn rule_outcome(&self, root_ply: usize) -> Option<Outcome> {
        if self.is_repetition(root_ply) {
            return Some(Outcome::Draw(DrawReason::Repetition));
        }
        if self.reversible >= KING_MOVES_PLIES {
            return Some(Outcome::Draw(DrawReason::KingMoves));
        }
        if self.endgame_limit().is_some_and(|limit| self.endgame >= limit) {
            return Some(Outcome::Draw(DrawReason::Endgame));
        }
        None
    }

    /// How the game has ended, if it has; see the module docs for the rules and their order.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        // With a capture on the board there is a legal move; only count quiet moves otherwise.
        if !self.pos.has_capture() && self.pos.count_legal() == 0 {
            let winner = (!self.pos.side_to_move()).into();
            return Some(Outcome::Win { winner, reason: WinReason::NoMoves });
        }
        self.rule_outcome(self.history.len())
    }
}

impl game::Game for Game {
    type Move = Move;
    type MoveList = MoveList;
    type Error = GameError;

    const NAME: &'static str = "draughts";

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

    /// The Hub form (`32-28`, `28x19x23`), which needs no position to read.
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
        let after = {
            let mut other = Game::new();
            other.play_text("32-28").expect("legal");
            other
        };
        // A move legal in another position is not one here.
        let foreign = after.legal_moves().as_ref()[0];
        let e = game::Game::play(&mut g, foreign).expect_err("not legal at the start");
        assert!(e.to_string().contains("not a legal move"), "{e}");
        assert_eq!(g.ply(), 0);
        let legal = g.legal_moves().as_ref()[0];
        game::Game::play(&mut g, legal).expect("legal");
        assert_eq!(g.ply(), 1);
    }
    use game::Side;
    use std::collections::HashSet;

    fn game(fen: &str) -> Game {
        Game::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    fn win(winner: Side) -> Option<Outcome> {
        Some(Outcome::Win { winner, reason: WinReason::NoMoves })
    }

    fn draw(reason: DrawReason) -> Option<Outcome> {
        Some(Outcome::Draw(reason))
    }

    /// Plays moves given in Hub form, asserting that each is legal and that the game goes on
    /// until the last one.
    fn play(g: &mut Game, moves: &str) {
        for text in moves.split_whitespace() {
            assert_eq!(g.outcome(), None, "game ended before {text} at ply {}", g.ply());
            let legal = g.legal_moves();
            let mv = legal.iter().find(|m| m.to_string() == text);
            let mv = *mv.unwrap_or_else(|| panic!("{text} illegal in {}: {legal:?}", g.position().fen()));
            g.play_unchecked(mv);
        }
    }

    /// Plays `plies` quiet moves that `allow(ply, position, move)` accepts, never reaching a
    /// position seen before in this game and never leaving the opponent a capture; the first
    /// such line in generation order, found depth first. Asserts that the game goes on until the
    /// last move. A deterministic way to let the counts run without captures or repetitions.
    fn walk(g: &mut Game, plies: usize, allow: impl Fn(usize, &Position, &Move) -> bool) {
        fn search(
            g: &mut Game,
            plies: usize,
            allow: &dyn Fn(usize, &Position, &Move) -> bool,
            seen: &mut HashSet<u64>,
        ) -> bool {
            if plies == 0 {
                return true;
            }
            if g.outcome().is_some() {
                return false;
            }
            let pos = *g.position();
            for mv in pos.legal_moves() {
                let next = pos.after(&mv);
                if mv.is_capture() || !allow(g.ply(), &pos, &mv) || next.has_capture() || !seen.insert(next.key()) {
                    continue;
                }
                g.play_unchecked(mv);
                if search(g, plies - 1, allow, seen) {
                    return true;
                }
                g.undo();
                seen.remove(&next.key());
            }
            false
        }
        let mut seen: HashSet<u64> = g.history.iter().map(|p| p.key).collect();
        seen.insert(g.position().key());
        let (start, fen) = (g.ply(), g.position().fen());
        assert!(search(g, plies, &allow, &mut seen), "no walk of {plies} plies from ply {start}: {fen}");
    }

    fn any(_: usize, _: &Position, _: &Move) -> bool {
        true
    }

    fn kings(pos: &Position) -> u32 {
        pos.count(Color::White, Kind::King) + pos.count(Color::Black, Kind::King)
    }

    fn king_move(_: usize, pos: &Position, mv: &Move) -> bool {
        pos.piece_at(mv.from()).is_some_and(|p| p.kind == Kind::King)
    }

    #[test]
    fn no_pieces_loses() {
        assert_eq!(game("W:W:B1").outcome(), win(Side::Second));
        assert_eq!(game("B:W31:B").outcome(), win(Side::First));
        assert_eq!(Game::new().outcome(), None);
    }

    #[test]
    fn all_pieces_blocked_loses() {
        // The white man on 46 can neither step to 41 nor jump it (37 is taken).
        let g = game("W:W46:B37,41");
        assert!(g.legal_moves().is_empty());
        assert_eq!(g.outcome(), win(Side::Second));
        // Black's man on 41 is stuck behind White's men on 46 and 47; its king on 5 is stuck
        // behind the kings on 10 and 14.
        let g = game("B:W46,47,K10,K14:B41,K5");
        assert!(g.legal_moves().is_empty());
        assert_eq!(g.outcome(), win(Side::First));
    }

    #[test]
    fn third_repetition_draws() {
        // Two kings shuffle; the men on both sides stay put.
        let shuffle = "50-44 1-7 44-50 7-1";
        let mut g = game("W:WK50,46,47:BK1,4,5");
        play(&mut g, shuffle);
        play(&mut g, "50-44 1-7 44-50");
        assert_eq!(g.outcome(), None, "second occurrence only");
        play(&mut g, "7-1");
        assert_eq!(g.ply(), 8);
        assert_eq!(g.outcome(), draw(DrawReason::Repetition));
    }

    #[test]
    fn man_move_or_capture_restarts_the_repetition_window() {
        let mut g = game("W:WK50,46,47:BK1,4,5");
        play(&mut g, "50-44 1-7 44-50 7-1 47-42");
        assert_eq!(g.reversible_plies(), 0);
        // The position after 47-42 occurs first at ply 5, then 9, then 13.
        play(&mut g, "1-7 50-44 7-1 44-50 1-7 50-44 7-1");
        assert_eq!(g.outcome(), None);
        play(&mut g, "44-50");
        assert_eq!(g.ply(), 13);
        assert_eq!(g.outcome(), draw(DrawReason::Repetition));

        // A capture, too, starts a new window (and a new endgame count).
        let mut g = game("W:WK50,25:BK1,K5,14");
        play(&mut g, "50-44 1-7 44-50 14-20");
        assert_eq!((g.reversible_plies(), g.endgame_plies()), (0, 4));
        play(&mut g, "25x14x20");
        assert_eq!((g.reversible_plies(), g.endgame_plies()), (0, 0));
    }

    #[test]
    fn twenty_five_move_rule_at_ply_50() {
        // Two kings each: no endgame rule applies.
        let mut g = game("W:WK46,K50:BK1,K5");
        assert_eq!(g.endgame_limit(), None);
        walk(&mut g, 49, any);
        assert_eq!(g.reversible_plies(), 49);
        assert_eq!(g.outcome(), None);
        walk(&mut g, 1, any);
        assert_eq!(g.reversible_plies(), 50);
        assert_eq!(g.outcome(), draw(DrawReason::KingMoves));
    }

    #[test]
    fn a_man_move_restarts_the_twenty_five_move_count() {
        let mut g = game("W:WK47,K49,45:BK2,K4,15");
        walk(&mut g, 40, king_move);
        assert_eq!(g.reversible_plies(), 40);
        walk(&mut g, 1, |_, pos, mv| !king_move(0, pos, mv));
        assert_eq!(g.reversible_plies(), 0);
        walk(&mut g, 49, king_move);
        assert_eq!(g.outcome(), None);
        walk(&mut g, 1, king_move);
        assert_eq!(g.outcome(), draw(DrawReason::KingMoves));
    }

    #[test]
    fn sixteen_move_rule_at_ply_32() {
        let mut g = game("W:WK47,K48,K49:BK3");
        assert_eq!(g.endgame_limit(), Some(ENDGAME_16_PLIES));
        walk(&mut g, 31, any);
        assert_eq!(g.outcome(), None);
        walk(&mut g, 1, any);
        assert_eq!(g.endgame_plies(), 32);
        assert_eq!(g.outcome(), draw(DrawReason::Endgame));
    }

    #[test]
    fn sixteen_move_count_runs_through_man_moves() {
        // King + 2 men against a king: White moves a man on plies 0, 8 and 16 (never promoting).
        // The 25-move count restarts with each, the 16-move count does not (pydraughts would not
        // draw at ply 32 here).
        let mut g = game("W:WK50,46,47:BK5");
        assert_eq!(g.endgame_limit(), Some(ENDGAME_16_PLIES));
        let schedule = |ply: usize, pos: &Position, mv: &Move| king_move(ply, pos, mv) != [0, 8, 16].contains(&ply);
        walk(&mut g, 31, schedule);
        assert_eq!((g.endgame_plies(), g.reversible_plies()), (31, 14));
        assert_eq!(g.outcome(), None);
        walk(&mut g, 1, schedule);
        assert_eq!(g.outcome(), draw(DrawReason::Endgame));
    }

    #[test]
    fn five_move_rule_at_ply_10() {
        // Two kings, one king, and a king and a man against a king; the man moves on ply 0 and
        // the count runs on.
        let man_first = |ply: usize, pos: &Position, mv: &Move| king_move(ply, pos, mv) == (ply > 0);
        for fen in ["W:WK47,K49:BK3", "B:WK47:BK3", "W:WK49,36:BK3"] {
            let mut g = game(fen);
            assert_eq!(g.endgame_limit(), Some(ENDGAME_5_PLIES), "{fen}");
            let men = g.position().count(Color::White, Kind::Man) > 0;
            walk(&mut g, 9, |ply, pos, mv| !men || man_first(ply, pos, mv));
            assert_eq!(g.reversible_plies(), if men { 8 } else { 9 }, "{fen}");
            assert_eq!(g.outcome(), None, "{fen}");
            walk(&mut g, 1, any);
            assert_eq!(g.endgame_plies(), 10, "{fen}");
            assert_eq!(g.outcome(), draw(DrawReason::Endgame), "{fen}");
        }
    }

    #[test]
    fn capture_hands_the_sixteen_move_count_over_to_the_five_move_rule() {
        let mut g = game("W:WK47,K48,K49:BK3");
        walk(&mut g, 24, any);
        // White offers a king; Black must take it, and White has no capture back.
        let pos = *g.position();
        let (offer, take) = pos
            .legal_moves()
            .into_iter()
            .find_map(|offer| {
                let next = pos.after(&offer);
                let take = *next.legal_moves().first()?;
                let after = next.after(&take);
                (take.is_capture() && !after.has_capture() && after.count_legal() > 0).then_some((offer, take))
            })
            .expect("an offer");
        g.play_unchecked(offer);
        assert_eq!(g.outcome(), None);
        g.play_unchecked(take);
        assert_eq!(g.ply(), 26);
        assert_eq!(g.endgame_limit(), Some(ENDGAME_5_PLIES));
        assert_eq!((g.endgame_plies(), g.reversible_plies()), (0, 0));
        // Ply 32, where the 16-move count would have run out, passes; the 5-move count ends the
        // game 10 plies after the capture.
        walk(&mut g, 9, any);
        assert_eq!(g.outcome(), None);
        walk(&mut g, 1, any);
        assert_eq!(g.ply(), 36);
        assert_eq!(g.outcome(), draw(DrawReason::Endgame));
    }

    #[test]
    fn promotion_starts_or_restarts_the_endgame_count() {
        // Three men against a king: no endgame rule until one of them promotes.
        let mut g = game("B:W7,36,47:BK46");
        assert_eq!(g.endgame_limit(), None);
        play(&mut g, "46-41 7-1");
        assert_eq!(g.endgame_limit(), Some(ENDGAME_16_PLIES));
        assert_eq!((g.endgame_plies(), g.reversible_plies()), (0, 0));

        // King + 2 men against a king, the 16-move count running: a promotion on ply 6
        // restarts it, and the game is drawn 32 plies later.
        let mut g = game("W:WK50,7,36:BK46");
        walk(&mut g, 6, king_move);
        assert_eq!(g.endgame_plies(), 6);
        walk(&mut g, 1, |_, _, mv| mv.from().number() == 7);
        assert_eq!(g.position().count(Color::White, Kind::King), 2);
        assert_eq!(g.endgame_limit(), Some(ENDGAME_16_PLIES));
        assert_eq!(g.endgame_plies(), 0);
        walk(&mut g, 31, king_move);
        assert_eq!(g.outcome(), None);
        walk(&mut g, 1, king_move);
        assert_eq!(g.ply(), 39);
        assert_eq!(g.outcome(), draw(DrawReason::Endgame));
    }

    #[test]
    fn endgame_material() {
        // Four pieces, three men, no king, no lone king.
        for fen in ["W:WK46,K47,K48,K49:BK5", "W:WK46:B1,2,3", "W:W46,47:BK5", "W:WK46,47:BK5,10"] {
            assert_eq!(game(fen).endgame_limit(), None, "{fen}");
        }
        for fen in ["W:WK46:B4,K10", "W:WK46:BK10", "B:WK46,K47:BK5"] {
            assert_eq!(game(fen).endgame_limit(), Some(ENDGAME_5_PLIES), "{fen}");
        }
        for fen in ["W:WK46:B1,2,K10", "B:W40,K41,K42:BK5"] {
            assert_eq!(game(fen).endgame_limit(), Some(ENDGAME_16_PLIES), "{fen}");
        }
    }

    #[test]
    fn no_moves_loss_beats_a_draw_on_the_same_ply() {
        // Three kings against a lone king. The black king shuttles 6-1, the white king from 45
        // walks its diagonal and back, and on ply 32, when the 16-move count runs out, the white
        // king lands on 1: the black king on 6 is shut in by the kings on 1, 11 and 17.
        let mut g = game("B:WK11,K17,K45:BK6");
        play(
            &mut g,
            "6-1 45-50 1-6 50-44 6-1 44-39 1-6 39-33 6-1 33-28 1-6 28-22 6-1 22-50 1-6 50-44 \
             6-1 44-39 1-6 39-33 6-1 33-28 1-6 28-22 6-1 22-44 1-6 44-50 6-1 50-45 1-6 45-1",
        );
        assert_eq!(g.ply(), 32);
        assert_eq!(g.endgame_plies(), ENDGAME_16_PLIES);
        assert!(g.legal_moves().is_empty());
        assert_eq!(g.outcome(), win(Side::First));
    }

    #[test]
    fn undo_restores_position_and_counts() {
        // Seeded random games from the start position, with captures, man moves, promotions and
        // king moves, each taken back move by move.
        let record = |g: &Game| (*g.position(), g.reversible_plies(), g.endgame_plies(), g.outcome());
        let (mut promotions, mut king_moves) = (0, 0);
        for seed in 1..=20_u64 {
            let mut g = Game::new();
            let mut trail = vec![record(&g)];
            let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            while g.outcome().is_none() {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let legal = g.legal_moves();
                g.play_unchecked(legal[(rng % legal.len() as u64) as usize]);
                let (before, now) = (&trail[trail.len() - 1], record(&g));
                promotions += usize::from(kings(&now.0) > kings(&before.0));
                king_moves += usize::from(now.1 > 0);
                trail.push(now);
            }
            while let Some(expected) = trail.pop() {
                assert_eq!(record(&g), expected, "seed {seed}, ply {}", g.ply());
                g.undo();
            }
            assert_eq!((g.ply(), g.undo()), (0, None));
            assert_eq!(g.position(), g.start_position());
        }
        assert!(promotions > 0 && king_moves > 0, "{promotions} promotions, {king_moves} king moves");
    }

    /// Exercises the trait as generic code sees it.
    fn trait_round_trip<G: game::Game>() -> G {
        let mut g = G::new();
        assert_eq!(g.side_to_move(), Side::First);
        assert_eq!(g.legal_moves().as_ref().len(), 9);
        let mv = g.parse_move("32-28").expect("legal");
        assert_eq!(g.move_to_string(mv), "32-28");
        let key = g.key();
        g.play_unchecked(mv);
        assert_eq!(g.side_to_move(), Side::Second);
        assert_eq!((g.ply(), g.moves_played()), (1, vec![mv]));
        assert_ne!(g.key(), key);
        assert_eq!(g.undo(), Some(mv));
        assert_eq!(g.key(), key);
        assert!(g.parse_move("33-27").is_err());
        assert!(g.parse_move("junk").is_err());
        assert!(G::from_fen("X:W1").is_err());
        let g2 = G::from_fen(&g.fen()).expect("own FEN");
        assert_eq!(g2.key(), g.key());
        g
    }

    #[test]
    fn game_trait_works() {
        let g: Game = trait_round_trip();
        assert_eq!(<Game as game::Game>::NAME, "draughts");
        assert_eq!(game::Game::fen(&g), crate::START_FEN);
        assert_eq!(game::Game::outcome(&g), None);
        let bad = <Game as game::Game>::parse_move(&g, "33-27").expect_err("illegal");
        assert!(matches!(bad, GameError::Move(NotationError::Illegal { .. })), "{bad:?}");
        assert!(matches!(<Game as game::Game>::from_fen("X:W1"), Err(GameError::Fen(FenError::BadSide(_)))));
        // A capture goes out in Hub form and comes back in PDN or Hub form.
        let mut g = game("W:W32:B28");
        let take = g.legal_moves()[0];
        assert_eq!(game::Game::move_to_string(&g, take), "32x23x28");
        assert_eq!(game::Game::parse_move(&g, "32x23"), Ok(take));
        assert_eq!(game::Game::parse_move(&g, "32x23x28"), Ok(take));
        assert_eq!(g.play_text("32x23"), Ok(take));
        assert!(g.play_text("1-6").is_err());
        assert_eq!(g.ply(), 1);
    }

    /// Checks that every legal move of `g` reads back from `move_to_string` with the strict
    /// parser, then plays one of them; `plies` times, or until the game ends.
    fn strict_round_trip_along(mut g: Game, plies: usize) {
        for ply in 0..plies {
            let legal = g.legal_moves();
            if legal.is_empty() || g.outcome().is_some() {
                return;
            }
            for mv in &legal {
                let text = game::Game::move_to_string(&g, *mv);
                let read = game::Game::parse_move_strict(&g, &text);
                assert_eq!(read.ok(), Some(*mv), "{text} in {}", g.position().fen());
            }
            g.play_unchecked(legal[(ply * 7 + 3) % legal.len()]);
        }
    }

    #[test]
    fn strict_parse_reads_back_every_legal_move() {
        let fens = [
            crate::START_FEN,
            // Two four-piece captures share origin and destination (the notation docs' example).
            "W:W20:B11,12,13,14,23,24",
            "B:W6,9-11,20-23,30,K31,33,37,41-44,46:BK17,K24",
            "W:W27,28,32,33,34,35,37,38,39,40,42,43,44,45,47,48:B3,6,7,8,9,11,12,13,14,15,16,17,18,19,20,23",
            "W:WK10,28,33:BK46,19",
        ];
        for fen in fens {
            strict_round_trip_along(game(fen), 40);
        }
    }

    #[test]
    fn strict_parse_takes_only_what_move_to_string_writes() {
        let strict_rejects = |g: &Game, text: &str| {
            assert!(game::Game::parse_move_strict(g, text).is_err(), "{text:?}");
        };
        // Other spellings of a quiet move, all of which the lenient reader takes.
        let g = game("W:W6:B45");
        let six_one = game::Game::parse_move_strict(&g, "6-1").expect("6-1");
        for text in ["06-01", " 6-1", "6 - 1"] {
            assert_eq!(game::Game::parse_move(&g, text).ok(), Some(six_one), "{text:?}");
            strict_rejects(&g, text);
        }
        // Captures: the PDN form, the captured squares out of order, `X` for `x`.
        let g = game("W:W20:B11,12,13,14,23,24");
        for mv in &g.legal_moves() {
            let hub = mv.to_string();
            let captured: Vec<String> = mv.captured().map(|s| s.to_string()).collect();
            let reversed: Vec<String> = captured.iter().rev().cloned().collect();
            let reversed = format!("{}x{}x{}", mv.from(), mv.to(), reversed.join("x"));
            let pdn = notation::to_pdn(g.position(), mv);
            let mut others = vec![pdn, hub.replace('x', "X"), format!("{hub} ")];
            if captured.len() > 1 {
                others.push(reversed);
            }
            for text in others {
                assert_eq!(game::Game::parse_move(&g, &text).ok(), Some(*mv), "{text:?}");
                strict_rejects(&g, &text);
            }
        }
        // Well formed but not legal here.
        assert!(game::Game::parse_move_strict(&g, "20-15").is_err());
    }
}
