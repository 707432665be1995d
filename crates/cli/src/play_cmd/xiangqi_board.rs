//! Xiangqi for a person: the board with UCI coordinates (files `a`-`i`, ranks `0`-`9` from Red's
//! side) and each player's WXF file numbers, moves shown as WXF with coordinates, and typed
//! moves read as UCI, WXF or Chinese with the reason when one is refused.
//!
//! The rules crate's reader says only which kind of error a text is; here, where a person waits
//! for an answer, it is narrowed down: which square is empty, whose piece it is, whether the
//! piece cannot go there at all or the move would leave the king in check (a pseudo-legal move
//! the legality filter removed, flying generals included).

use super::Table;
use game::Side;
use xiangqi::notation::{self, NotationError};
use xiangqi::{Color, FILES, Game, Move, Piece, Position, RANKS, Square};

impl Table for Game {
    const MOVE_FORMS: &'static str = "UCI coordinates, files a-i and ranks 0-9 from Red's side (h2e2), \
         WXF (C2=5, H8+7, R+=3; files counted 1-9 from each player's right) or Chinese (炮二平五)";

    const LEGEND: &'static str = "Pieces as in FEN, Red upper case, Black lower case: K king, A advisor, \
         B elephant, N horse, R rook, C cannon, P soldier. [ ] marks the last move.";

    fn draw(&self, view: Side) -> String {
        draw(self.position(), self.moves().last(), view)
    }

    fn note(&self) -> Option<&'static str> {
        self.in_check().then_some("check")
    }

    fn show_move(&self, mv: Move) -> String {
        format!("{} ({mv})", notation::to_wxf(self.position(), mv))
    }

    fn read_move(&self, text: &str) -> Result<Move, String> {
        let pos = self.position();
        notation::parse_move(pos, text).map_err(|e| explain(pos, text.trim(), &e))
    }
}

/// The board seen from `view` (that side at the bottom), `last` marked with brackets on its
/// origin and destination.
fn draw(pos: &Position, last: Option<Move>, view: Side) -> String {
    let red_below = view == Side::First;
    let files: Vec<usize> = if red_below { (0..FILES).collect() } else { (0..FILES).rev().collect() };
    let ranks: Vec<usize> = if red_below { (0..RANKS).rev().collect() } else { (0..RANKS).collect() };
    let (top, bottom) = if red_below { (Color::Black, Color::Red) } else { (Color::Red, Color::Black) };
    let wxf_files = |color: Color| {
        let numbers: String = files.iter().map(|&f| format!(" {} ", wxf_file(color, f))).collect();
        format!("    {numbers}   {}'s WXF files", color.name())
    };
    let mut lines = vec![wxf_files(top)];
    for (row, &rank) in ranks.iter().enumerate() {
        if row == RANKS / 2 {
            lines.push(format!("    {:~^width$}", " river ", width = 3 * FILES));
        }
        let mut line = format!("{rank:>3} ");
        for &file in &files {
            let Some(sq) = Square::from_coords(file, rank) else { continue };
            let piece = pos.piece_at(sq).map_or('.', Piece::fen_char);
            let marked = last.is_some_and(|mv| mv.from() == sq || mv.to() == sq);
            line.push_str(&if marked { format!("[{piece}]") } else { format!(" {piece} ") });
        }
        lines.push(line.trim_end().to_string());
    }
    let letters: String = files.iter().map(|&f| format!(" {} ", (b'a' + f as u8) as char)).collect();
    lines.push(format!("    {}", letters.trim_end()));
    lines.push(wxf_files(bottom));
    lines.join("\n")
}

/// WXF's number of board file `file` (0 = `a`) for `color`: 1-9 from that player's right.
fn wxf_file(color: Color, file: usize) -> usize {
    match color {
        Color::Red => FILES - file,
        Color::Black => file + 1,
    }
}

/// Why `text` is not a legal move in `pos`, in one line.
fn explain(pos: &Position, text: &str, error: &NotationError) -> String {
    let us = pos.side_to_move();
    if let Ok(mv) = notation::parse_uci(text) {
        return match pos.piece_at(mv.from()) {
            None => format!("{text:?}: there is no piece on {}", mv.from()),
            Some(p) if p.color != us => {
                format!(
                    "{text:?}: {} holds a {} {}, and you play {}",
                    mv.from(),
                    p.color.name(),
                    p.kind.name(),
                    us.name()
                )
            }
            Some(p) if pos.pseudo_legal_moves().contains(&mv) => {
                format!(
                    "{text:?}: moving the {} on {} to {} would leave your king in check",
                    p.kind.name(),
                    mv.from(),
                    mv.to()
                )
            }
            Some(p) => format!("{text:?}: the {} on {} cannot go to {}", p.kind.name(), mv.from(), mv.to()),
        };
    }
    match error {
        NotationError::Syntax { .. } => {
            format!("{text:?} is not a move or a command: type a move as UCI (h2e2) or WXF (C2=5), or help")
        }
        NotationError::NoSuchPiece { .. } => format!("{text:?}: you ({}) have no such piece there", us.name()),
        NotationError::Ambiguous { candidates, .. } => {
            let fits: Vec<String> =
                candidates.iter().map(|&mv| format!("{} ({mv})", notation::to_wxf(pos, mv))).collect();
            format!("{text:?} is ambiguous: it fits {}", fits.join(", "))
        }
        NotationError::Illegal { .. } => match unsafe_move(pos, text) {
            Some(mv) => format!("{text:?} ({mv}) would leave your king in check"),
            None => format!("{text:?}: that piece cannot go there"),
        },
    }
}

/// The move a WXF or Chinese `text` describes if it is one the legality filter removed (it
/// would leave the mover's king attacked): matched against what the writer makes of each
/// pseudo-legal move, upper case and `=` for `.` as the reader allows.
fn unsafe_move(pos: &Position, text: &str) -> Option<Move> {
    let wanted = text.to_ascii_uppercase().replace('.', "=");
    pos.pseudo_legal_moves()
        .into_iter()
        .filter(|&mv| !pos.is_legal(mv))
        .find(|&mv| notation::to_wxf(pos, mv) == wanted || notation::to_chinese(pos, mv) == text)
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
    fn start_board_has_coordinates_river_and_files() {
        let g = Game::new();
        let board = g.draw(Side::First);
        let lines: Vec<&str> = board.lines().collect();
        assert_eq!(lines[0], "     1  2  3  4  5  6  7  8  9    black's WXF files");
        assert_eq!(lines[1], "  9  r  n  b  a  k  a  b  n  r");
        assert!(lines[6].contains(" river "), "{board}");
        assert_eq!(lines[11], "  0  R  N  B  A  K  A  B  N  R");
        assert_eq!(lines[12], "     a  b  c  d  e  f  g  h  i");
        assert_eq!(lines[13], "     9  8  7  6  5  4  3  2  1    red's WXF files");
        // Black's view: turned round, Red's numbers at the top.
        let turned = g.draw(Side::Second);
        let lines: Vec<&str> = turned.lines().collect();
        assert_eq!(lines[0], "     1  2  3  4  5  6  7  8  9    red's WXF files");
        assert_eq!(lines[1], "  0  R  N  B  A  K  A  B  N  R");
        assert_eq!(lines[12], "     i  h  g  f  e  d  c  b  a");
        assert_eq!(lines[13], "     9  8  7  6  5  4  3  2  1    black's WXF files");
    }

    #[test]
    fn last_move_is_marked() {
        let mut g = Game::new();
        let mv = g.read_move("C2=5").expect("legal");
        assert_eq!(g.show_move(mv), "C2=5 (h2e2)");
        g.play_unchecked(mv);
        let board = g.draw(Side::First);
        assert!(board.lines().any(|l| l == "  2  .  C  .  . [C] .  . [.] ."), "{board}");
    }

    #[test]
    fn refusals_say_what_is_wrong() {
        let g = Game::new();
        assert!(refusal(&g, "e4e5").contains("no piece on e4"));
        assert!(refusal(&g, "h7h6").contains("holds a black cannon, and you play red"));
        assert!(refusal(&g, "a0a5").contains("the rook on a0 cannot go to a5"));
        assert!(refusal(&g, "C2+9").contains("that piece cannot go there"));
        assert!(refusal(&g, "C3=5").contains("no such piece"));
        assert!(refusal(&g, "hello").contains("is not a move or a command"));
        assert!(refusal(&g, "\u{fffd}").contains("is not a move"));
        // Two rooks on one file, written by file.
        let rooks = game("3k5/9/9/9/2R6/9/9/2R6/9/4K4 w - - 0 1");
        let text = refusal(&rooks, "R7+1");
        assert!(text.contains("ambiguous") && text.contains("(c5c6)") && text.contains("(c2c3)"), "{text}");
    }

    #[test]
    fn moves_into_check_are_named() {
        // The red rook on e3 shields its king from the black rook on e9: it is pinned.
        let pinned = game("3kr4/9/9/9/9/9/4R4/9/9/4K4 w - - 0 1");
        assert!(refusal(&pinned, "e3d3").contains("would leave your king in check"));
        assert!(refusal(&pinned, "R5=6").contains("(e3d3) would leave your king in check"));
        assert!(refusal(&pinned, "r5=6").contains("would leave your king in check"));
        // Flying generals: the king may not step onto the open file of the other.
        let kings = game("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1");
        assert!(refusal(&kings, "e0d0").contains("would leave your king in check"));
        assert!(refusal(&kings, "K5=6").contains("would leave your king in check"));
        assert!(kings.note().is_none());
        let checked = game("4k4/9/9/9/9/9/9/9/4r4/3K5 b - - 0 1");
        assert!(checked.read_move("e1d1").is_ok());
        let mut g = checked.clone();
        g.play_unchecked(g.read_move("e1d1").expect("legal"));
        assert_eq!(g.note(), Some("check"));
    }
}
