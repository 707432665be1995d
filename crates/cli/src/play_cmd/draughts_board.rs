//! International draughts for a person: the 10x10 board with the square numbers 1-50 beside it,
//! moves shown and read as PDN (`32-28`, `28x19`, a capture's full path `37x28x17x8`; Hub's
//! `28x19x23` is read too), with the reason when a typed move is refused.
//!
//! The rules crate's reader says only that a text fits no legal move; here it is narrowed down:
//! an empty square, the other side's piece, a compulsory capture or the majority rule (a person
//! new to the game meets those two first), or a piece that cannot go there.

use super::Table;
use draughts::notation::{self, NotationError};
use draughts::{Color, Game, Kind, Move, Piece, Position, Square};
use game::Side;

/// Rows and columns of the board.
const SIZE: u32 = 10;

impl Table for Game {
    const MOVE_FORMS: &'static str =
        "PDN square numbers, a step as 32-28, a capture as 28x19 or with its whole path 37x28x17x8";
    const LEGEND: &'static str =
        "w white man, W white king, b black man, B black king; square numbers on the right. [ ] marks the last move.";

    fn draw(&self, view: Side) -> String {
        draw(self.position(), self.moves().last(), view)
    }

    fn note(&self) -> Option<&'static str> {
        self.position().has_capture().then_some("a capture is compulsory")
    }

    fn show_move(&self, mv: Move) -> String {
        notation::to_pdn(self.position(), &mv)
    }

    fn read_move(&self, text: &str) -> Result<Move, String> {
        let pos = self.position();
        notation::parse_move(pos, text).map_err(|e| explain(pos, text.trim(), &e))
    }
}

/// The board seen from `view` (that side at the bottom), the square numbers of the dark squares
/// beside it, `last` marked with brackets on its origin and destination.
fn draw(pos: &Position, last: Option<Move>, view: Side) -> String {
    let white_below = view == Side::First;
    let turn = |i: u32| if white_below { i } else { SIZE - 1 - i };
    let (top, bottom) = if white_below { (Color::Black, Color::White) } else { (Color::White, Color::Black) };
    let mut lines = vec![format!("    {}", top.name())];
    for r in 0..SIZE {
        let (mut board, mut numbers) = (String::new(), String::new());
        for c in 0..SIZE {
            let Some(sq) = Square::from_row_column(turn(r), turn(c)) else {
                board.push_str("   ");
                numbers.push_str("   ");
                continue;
            };
            let ch = pos.piece_at(sq).map_or('.', piece_char);
            let marked = last.is_some_and(|mv| mv.from() == sq || mv.to() == sq);
            board.push_str(&if marked { format!("[{ch}]") } else { format!(" {ch} ") });
            numbers.push_str(&format!("{:>3}", sq.number()));
        }
        lines.push(format!("  {board}    {}", numbers.trim_end()).trim_end().to_string());
    }
    lines.push(format!("    {}", bottom.name()));
    lines.join("\n")
}

fn piece_char(piece: Piece) -> char {
    match (piece.color, piece.kind) {
        (Color::White, Kind::Man) => 'w',
        (Color::White, Kind::King) => 'W',
        (Color::Black, Kind::Man) => 'b',
        (Color::Black, Kind::King) => 'B',
    }
}

/// Why `text` is not a legal move in `pos`, in one line.
fn explain(pos: &Position, text: &str, error: &NotationError) -> String {
    let legal = pos.legal_moves();
    let listed = |moves: &[Move]| moves.iter().map(|mv| notation::to_pdn(pos, mv)).collect::<Vec<_>>().join(", ");
    match error {
        NotationError::Syntax { .. } => {
            format!("{text:?} is not a move or a command: type a move as 32-28 or 28x19, or help")
        }
        NotationError::Ambiguous { candidates, .. } => {
            format!("{text:?} is ambiguous: it fits {}; write the whole capture path", listed(candidates))
        }
        NotationError::Illegal { .. } => {
            let us = pos.side_to_move();
            // The text read as squares, so the first one is the origin.
            let from = text.split(['-', 'x', 'X']).next().and_then(|n| n.trim().parse().ok()).and_then(Square::new);
            let capture = !text.contains('-');
            let most = legal.iter().map(Move::capture_count).max().unwrap_or(0);
            match from.map(|sq| (sq, pos.piece_at(sq))) {
                None => format!("{text:?} fits no legal move here"),
                Some((sq, None)) => format!("{text:?}: there is no piece on {sq}"),
                Some((sq, Some(p))) if p.color != us => {
                    format!(
                        "{text:?}: {sq} holds a {} {}, and you play {}",
                        p.color.name(),
                        kind_name(p.kind),
                        us.name()
                    )
                }
                Some(_) if most > 0 && !capture => {
                    format!("{text:?}: a capture is compulsory: {}", listed(&legal))
                }
                Some(_) if most > 1 => {
                    format!("{text:?}: you must take the most pieces ({most}): {}", listed(&legal))
                }
                Some(_) if most > 0 => format!("{text:?} is not one of the captures: {}", listed(&legal)),
                Some(_) if capture => format!("{text:?}: there is nothing to capture"),
                Some((sq, Some(p))) => format!("{text:?}: the {} on {sq} cannot go there", kind_name(p.kind)),
            }
        }
    }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Man => "man",
        Kind::King => "king",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(fen: &str) -> Game {
        Game::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    fn refusal(g: &Game, text: &str) -> String {
        g.read_move(text).expect_err(text)
    }

    #[test]
    fn start_board_shows_pieces_and_numbers() {
        let g = Game::new();
        let board = g.draw(Side::First);
        let lines: Vec<&str> = board.lines().collect();
        assert_eq!(lines.len(), 12, "{board}");
        assert_eq!(lines[0], "    black");
        assert_eq!(lines[1], "      b     b     b     b     b          1     2     3     4     5");
        assert_eq!(lines[2], "   b     b     b     b     b          6     7     8     9    10");
        assert_eq!(lines[5], "      .     .     .     .     .         21    22    23    24    25");
        assert_eq!(lines[10], "   w     w     w     w     w         46    47    48    49    50");
        assert_eq!(lines[11], "    white");
        let turned = g.draw(Side::Second);
        let lines: Vec<&str> = turned.lines().collect();
        assert_eq!(lines[0], "    white");
        assert_eq!(lines[1], "      w     w     w     w     w         50    49    48    47    46");
    }

    #[test]
    fn kings_and_the_last_move_show() {
        let mut g = game("W:WK46,32:B1,K5");
        let mv = g.read_move("32-28").expect("legal");
        assert_eq!(g.show_move(mv), "32-28");
        g.play_unchecked(mv);
        let board = g.draw(Side::First);
        let lines: Vec<&str> = board.lines().collect();
        assert_eq!(lines[1], "      b     .     .     .     B          1     2     3     4     5");
        assert!(lines[6].starts_with("   .     .    [w]    .  "), "{board}");
        assert!(lines[7].starts_with("      .    [.]    .  "), "{board}");
        assert!(lines[10].starts_with("   W     .  "), "{board}");
    }

    #[test]
    fn refusals_say_what_is_wrong() {
        let g = Game::new();
        assert!(refusal(&g, "28-23").contains("no piece on 28"));
        assert!(refusal(&g, "18-23").contains("18 holds a black man, and you play white"));
        assert!(refusal(&g, "32-29").contains("the man on 32 cannot go there"));
        assert!(refusal(&g, "32x23").contains("nothing to capture"));
        assert!(refusal(&g, "e2e4").contains("is not a move or a command"));
        assert!(refusal(&g, "51-46").contains("is not a move"));
        // White 28 must take 23; 38 has nothing to take.
        let take = game("W:W28,38:B23");
        assert_eq!(take.note(), Some("a capture is compulsory"));
        assert!(refusal(&take, "38-33").contains("a capture is compulsory: 28x19"));
        assert!(refusal(&take, "38x29").contains("not one of the captures: 28x19"));
        // The majority rule: 37 takes three, 28 only one.
        let most = game("W:W37,39:B32,22,12,33");
        assert!(refusal(&most, "39x28").contains("take the most pieces (3): 37x8"), "{}", refusal(&most, "39x28"));
        // Two four-piece captures from 20 to 16.
        let twins = game("W:W20:B1,11-14,23,24");
        let text = refusal(&twins, "20x16");
        assert!(text.contains("ambiguous: it fits 20x9x18x7x16, 20x29x18x7x16"), "{text}");
        assert!(twins.read_move("20x9x18x7x16").is_ok());
    }
}
