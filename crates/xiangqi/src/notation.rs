//! Move notation: UCI coordinates, WXF and Chinese, read and written.
//!
//! The search and the network only ever see [`Move`]; text is for people, logs and other
//! engines, so this module is the one place that turns moves into words and back. Writing takes
//! a move that is legal in the position and never fails. Reading (but for [`parse_move_strict`],
//! for machine-written text) is lenient about *form* (aliases, case, traditional characters,
//! surrounding whitespace) and strict about *substance*: a text that names no piece, several
//! moves, or an illegal move is a [`NotationError`] carrying the rejected text, never a guess
//! and never a panic, whatever bytes it is given.
//!
//! # Coordinates
//!
//! - [`parse_uci`] and `Move`'s `Display`: Pikafish's UCI, files `a`..`i` from Red's left, ranks
//!   `0`..`9` from Red's back rank: `h2e2`. Syntax only; any two squares are accepted.
//! - [`uci_to_fsf`] and [`parse_fsf`]: the same with ranks `1`..`10`, as Fairy-Stockfish and
//!   pyffish write them: `h3e3`, `a10a9`. The two forms overlap (`a1a2` is a move in both), so
//!   nothing guesses between them: callers say which one they have.
//! - [`parse_move_strict`]: exactly what `Move`'s `Display` writes, and legal, for text a
//!   program wrote (stored games). The one reader here that is not lenient about form.
//!
//! # WXF
//!
//! The official WXF/AXF notation (<http://www.wxf.org/xq/computer/wxf_notation.html>): a piece
//! letter (`K A E H R C P`), the file it stands on, a direction and a number, `C2=5`, `H8+7`.
//! Files are counted 1..9 from each player's *own* right, so Red's file 1 is `i` and Black's is
//! `a`. The direction is `+` forward, `-` back, `=` sideways. We write `=` rather than the
//! page's `.` because Fairy-Stockfish and many books do, and read both. For
//! straight movers (K, R, C, P) going forward or back the number counts steps; otherwise
//! (sideways, and always for the diagonal movers A, E, H) it is the destination file.
//!
//! Two pieces of one kind on one file ("tandem") are told apart by replacing the file with `+`
//! (front, nearer the enemy) or `-` (rear): `R+=3`, `C--1`. Advisors and elephants keep the
//! file, `A6+5`: only one of a tandem pair can ever make a given move, which is also what
//! Fairy-Stockfish writes. Soldiers follow the page's special cases:
//!
//! | soldiers on the file | front to rear                        |
//! |----------------------|--------------------------------------|
//! | 2                    | `P+` `P-`                            |
//! | 3                    | `P+` `P7` `P-` (middle by its file)  |
//! | 4                    | `++` `P+` `P-` `--`                  |
//! | 5                    | `++` `P+` `P7` `P-` `--`             |
//! | on two files         | `3+` `33` `3-`, `7+` `7-` (file, then `+`, file again, `-`) |
//!
//! Reading also takes lower case, `N` for horse and `B` for elephant, the sign before the letter
//! (`+R=3`), the tandem form for advisors and elephants (`A-+5`), and a plain file for a tandem
//! piece when only one of the pieces there can make the move.
//!
//! Fairy-Stockfish (checked with pyffish) writes the same text except in two places, where we
//! keep the WXF page's form. It names a tandem piece by its file when only one of the pair can
//! make the move (`C8+1` where we write `C-+1`); the page replaces the file unconditionally, and
//! we read Fairy-Stockfish's form as said above. For soldiers on two files, or three or more on
//! one, it writes place-then-file (`26=7` for the rear of two on file 6); we do not read that,
//! since `33` is the middle soldier of file 3 on the page but the third in that scheme.
//!
//! # Chinese
//!
//! The same structure in characters: Red `帅仕相马车炮兵` with numerals `一`..`九`, Black
//! `将士象马车炮卒` with ASCII digits `1`..`9`; `进` forward, `退` back, `平` sideways: `炮二平五`,
//! `马8进7`. Tandem pieces put `前`/`后` before the piece and drop the file: `前车平三`,
//! `后炮退一`. Soldiers: three on a file are `前兵` `中兵` `后兵`; four or five are `一兵`..`五兵`
//! from the front, with Chinese ordinals for Black too (`一卒`): they count places, not files,
//! and standing before the piece rather than after it says so. Soldiers on two tandem files
//! put the file where the piece would be, as the WXF form puts it where the letter would be:
//! `前三平四`, `中三平四`, `后7平6` (rear soldier of the file, Black).
//!
//! Reading accepts traditional and alternative characters (`帥 將 俥 車 傌 馬 砲 包 進 後`), any
//! numeral style (`一`, `1`, fullwidth `１`) for either side, the piece's characters of either
//! colour (the side to move decides), the piece before `前`/`后` (`車前平三`, as on the WXF
//! page), and `前`/`后` for the foremost and rearmost of four or five soldiers.
//!
//! In both notations a plain file holding three or five soldiers means the middle one, as the WXF
//! page specifies; that is what makes `P7=6` differ from `P+=6` there.

use crate::position::Position;
use crate::types::{Color, FILES, Kind, Move, RANKS, Square};
use arrayvec::ArrayVec;
use std::fmt;

/// Why a move text was rejected. Every variant carries the text as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    /// The text is not a move in the notation being read.
    Syntax {
        /// The rejected text.
        text: String,
        /// What a move in that notation looks like.
        expected: &'static str,
    },
    /// The text is well formed, but the side to move has no piece where it points.
    NoSuchPiece {
        /// The rejected text.
        text: String,
    },
    /// The text fits more than one legal move.
    Ambiguous {
        /// The rejected text.
        text: String,
        /// The legal moves it fits.
        candidates: Vec<Move>,
    },
    /// The text names a piece, but the move it describes is not legal in this position.
    Illegal {
        /// The rejected text.
        text: String,
    },
}

impl NotationError {
    /// The rejected text.
    #[must_use]
    pub fn text(&self) -> &str {
        match self {
            NotationError::Syntax { text, .. }
            | NotationError::NoSuchPiece { text }
            | NotationError::Ambiguous { text, .. }
            | NotationError::Illegal { text } => text,
        }
    }
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `{:?}` quotes the text and escapes control characters, so odd input stays readable.
        match self {
            NotationError::Syntax { text, expected } => write!(f, "{text:?} is not a move: expected {expected}"),
            NotationError::NoSuchPiece { text } => write!(f, "{text:?}: the side to move has no such piece"),
            NotationError::Ambiguous { text, candidates } => {
                write!(f, "{text:?} is ambiguous: it fits")?;
                for mv in candidates {
                    write!(f, " {mv}")?;
                }
                Ok(())
            }
            NotationError::Illegal { text } => write!(f, "{text:?} is not a legal move in this position"),
        }
    }
}

impl std::error::Error for NotationError {}

const UCI_EXPECTED: &str = "UCI coordinates like h2e2 (files a-i, ranks 0-9)";
const STRICT_EXPECTED: &str = "UCI coordinates exactly as qizero writes them, like h2e2 (files a-i, ranks 0-9)";
const FSF_EXPECTED: &str = "UCI coordinates with ranks 1-10 like h3e3 or a10a9";
const WXF_EXPECTED: &str = "WXF like C2=5 or R+=3: piece letter, file or +/-, one of + - = ., a digit 1-9";
const CHINESE_EXPECTED: &str = "Chinese notation like 炮二平五, 马8进7 or 前车平三";

// ---------------------------------------------------------------------------------------------
// Coordinates
// ---------------------------------------------------------------------------------------------

/// Reads Pikafish UCI coordinates (`h2e2`, ranks 0-9). Checks syntax only: the squares need
/// not hold anything; see [`parse_move`] for a checked read.
///
/// # Errors
/// [`NotationError::Syntax`] unless the text (trimmed) is two squares `a0`..`i9`.
pub fn parse_uci(text: &str) -> Result<Move, NotationError> {
    let t = text.trim();
    // `get` rather than slicing: a multi-byte character must not split a char boundary.
    match (t.len(), t.get(..2).and_then(Square::parse), t.get(2..).and_then(Square::parse)) {
        (4, Some(from), Some(to)) => Ok(Move::new(from, to)),
        _ => Err(syntax(text, UCI_EXPECTED)),
    }
}

/// Writes a move as Fairy-Stockfish UCI, ranks 1-10: `h3e3`, `a10a9`.
#[must_use]
pub fn uci_to_fsf(mv: Move) -> String {
    let square = |sq: Square| format!("{}{}", (b'a' + sq.file() as u8) as char, sq.rank() + 1);
    format!("{}{}", square(mv.from()), square(mv.to()))
}

/// Reads Fairy-Stockfish UCI coordinates, ranks 1-10 (`h3e3`, `a10a9`). Syntax only.
///
/// # Errors
/// [`NotationError::Syntax`] unless the text (trimmed) is two such squares.
pub fn parse_fsf(text: &str) -> Result<Move, NotationError> {
    let b = text.trim().as_bytes();
    let (from, rest) = fsf_square(b).ok_or_else(|| syntax(text, FSF_EXPECTED))?;
    match fsf_square(rest) {
        Some((to, [])) => Ok(Move::new(from, to)),
        _ => Err(syntax(text, FSF_EXPECTED)),
    }
}

/// One `a1`..`i10` square from the front of `b`, and what follows it.
fn fsf_square(b: &[u8]) -> Option<(Square, &[u8])> {
    let (&file, rest) = b.split_first()?;
    if !(b'a'..=b'i').contains(&file) {
        return None;
    }
    // "10" is the only two-digit rank; reading it greedily is safe because a square is always
    // followed by a file letter or the end, never by a digit.
    let (rank, rest) = match rest {
        [b'1', b'0', rest @ ..] => (9, rest),
        [d @ b'1'..=b'9', rest @ ..] => (usize::from(d - b'1'), rest),
        _ => return None,
    };
    Some((Square::from_coords(usize::from(file - b'a'), rank)?, rest))
}

/// Reads a move typed by a person or another program and checks it is legal in `pos`: UCI with
/// ranks 0-9 (`h2e2`), WXF (`C2=5`) or Chinese (`炮二平五`). Fairy-Stockfish's ranks 1-10 are not
/// guessed at, since `a1a2` means different moves in the two; use [`parse_fsf`] for those.
///
/// # Errors
/// [`NotationError`] saying whether the text is not a move, names no piece of the side to move,
/// fits several legal moves, or describes an illegal one.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, NotationError> {
    if let Ok(mv) = parse_uci(text) {
        return legal_uci(pos, mv, text);
    }
    // UCI and WXF cannot be confused: WXF's third character is a direction, never a file.
    if text.is_ascii() { parse_wxf(pos, text) } else { parse_chinese(pos, text) }
}

/// Reads a move exactly as `Move`'s `Display` (and so [`game::Game::move_to_string`]) writes
/// it, UCI coordinates with ranks 0-9 such as `h2e2`, and checks it is legal in `pos`. Nothing
/// else: no whitespace, no upper case, no WXF, Chinese or Fairy-Stockfish ranks. For text a
/// program wrote (stored games), where any other form means corrupt data, not a person's habit.
///
/// # Errors
/// [`NotationError::Syntax`] unless the text is four bytes, two squares `a0`..`i9`;
/// otherwise as [`parse_move`] for a UCI text ([`NotationError::NoSuchPiece`],
/// [`NotationError::Illegal`]).
pub fn parse_move_strict(pos: &Position, text: &str) -> Result<Move, NotationError> {
    // Four bytes that `parse_uci` reads are exactly what `Display` writes: it trims, so
    // anything around the squares would make the text longer, and squares are lower case only.
    match parse_uci(text) {
        Ok(mv) if text.len() == 4 => legal_uci(pos, mv, text),
        _ => Err(syntax(text, STRICT_EXPECTED)),
    }
}

/// `mv`, read from `text`, if it is legal in `pos`; otherwise why not.
fn legal_uci(pos: &Position, mv: Move, text: &str) -> Result<Move, NotationError> {
    match pos.piece_at(mv.from()) {
        Some(p) if p.color == pos.side_to_move() => {
            if pos.is_legal(mv) {
                Ok(mv)
            } else {
                Err(NotationError::Illegal { text: text.to_string() })
            }
        }
        _ => Err(NotationError::NoSuchPiece { text: text.to_string() }),
    }
}

fn syntax(text: &str, expected: &'static str) -> NotationError {
    NotationError::Syntax { text: text.to_string(), expected }
}

// ---------------------------------------------------------------------------------------------
// What WXF and Chinese share: files from the player's right, and which piece of a file
// ---------------------------------------------------------------------------------------------

/// The player's file number 1..=9 of board file `file` (0 = `a`): counted from the player's own
/// right, which is file `i` for Red and file `a` for Black.
fn file_number(color: Color, file: usize) -> usize {
    match color {
        Color::Red => FILES - file,
        Color::Black => file + 1,
    }
}

/// The board file of the player's file number `n` (1..=9).
fn board_file(color: Color, n: usize) -> usize {
    match color {
        Color::Red => FILES - n,
        Color::Black => n - 1,
    }
}

/// Rank direction of "forward" for `color`.
fn forward(color: Color) -> i32 {
    match color {
        Color::Red => 1,
        Color::Black => -1,
    }
}

/// The pieces of one colour and kind on one file, front (nearest the enemy) first. A file has
/// 10 squares, so the capacity can never overflow.
type Stack = ArrayVec<Square, RANKS>;

fn stack(pos: &Position, color: Color, kind: Kind, file: usize) -> Stack {
    let mut s: Stack = pos.pieces(color, kind).filter(|sq| sq.file() == file).collect();
    s.sort_unstable_by_key(|sq| sq.rank() as i32 * -forward(color));
    s
}

/// The files holding two or more pieces of one colour and kind.
fn tandem_files(pos: &Position, color: Color, kind: Kind) -> ArrayVec<usize, FILES> {
    let mut count = [0u8; FILES];
    for sq in pos.pieces(color, kind) {
        count[sq.file()] += 1;
    }
    (0..FILES).filter(|&f| count[f] >= 2).collect()
}

/// Direction of a move as the mover sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Dir {
    Forward,
    Back,
    Sideways,
}

/// True for the pieces whose forward/back number counts steps rather than naming a file.
fn moves_straight(kind: Kind) -> bool {
    matches!(kind, Kind::King | Kind::Rook | Kind::Cannon | Kind::Soldier)
}

/// How a written move picks its piece out of those of its kind.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Locator {
    /// By its file alone: the only one there, or an advisor or elephant (whose move tells a
    /// tandem pair apart).
    File,
    /// On the one file holding several of its kind: `index` from the front among `count`.
    Tandem { index: usize, count: usize },
    /// A soldier on one of two files holding several soldiers: file plus place on it.
    FileTandem { index: usize, count: usize },
}

/// Everything a written move says, before it is spelled in letters or characters.
struct Described {
    color: Color,
    kind: Kind,
    /// The player's file number of the from-square.
    file: usize,
    locator: Locator,
    dir: Dir,
    /// Steps, or the player's number of the destination file.
    number: usize,
}

fn describe(pos: &Position, mv: Move) -> Option<Described> {
    let piece = pos.piece_at(mv.from())?;
    let (color, kind) = (piece.color, piece.kind);
    let (from, to) = (mv.from(), mv.to());
    let here = stack(pos, color, kind, from.file());
    let index = here.iter().position(|&sq| sq == from).unwrap_or(0);
    let count = here.len();
    let locator = match kind {
        _ if count < 2 => Locator::File,
        Kind::Advisor | Kind::Elephant => Locator::File,
        Kind::Soldier if tandem_files(pos, color, kind).len() > 1 => Locator::FileTandem { index, count },
        _ => Locator::Tandem { index, count },
    };
    let advance = (to.rank() as i32 - from.rank() as i32) * forward(color);
    let dir = match advance {
        0 => Dir::Sideways,
        a if a > 0 => Dir::Forward,
        _ => Dir::Back,
    };
    let number = if dir != Dir::Sideways && moves_straight(kind) {
        advance.unsigned_abs() as usize
    } else {
        file_number(color, to.file())
    };
    Some(Described { color, kind, file: file_number(color, from.file()), locator, dir, number })
}

/// Which piece of a stack a text names.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Rel {
    /// `k`-th from the front (0 = front).
    Nth(usize),
    /// `k`-th from the rear (0 = rear).
    FromBack(usize),
    /// The middle of an odd stack of three or more.
    Middle,
    /// WXF `+`: the front one, or the second from the front when four or five stand there
    /// (the foremost is then `++`).
    WxfFront,
    /// WXF `-`: the mirror of [`Rel::WxfFront`].
    WxfRear,
}

impl Rel {
    fn pick(self, s: &Stack) -> Option<Square> {
        let n = s.len();
        let index = match self {
            Rel::Nth(k) => k,
            Rel::FromBack(k) => n.checked_sub(k + 1)?,
            Rel::Middle if n % 2 == 1 && n >= 3 => n / 2,
            Rel::Middle => return None,
            Rel::WxfFront => usize::from(n >= 4),
            Rel::WxfRear => n.checked_sub(if n >= 4 { 2 } else { 1 })?,
        };
        s.get(index).copied()
    }
}

/// Which of the mover's pieces a text names.
#[derive(Copy, Clone, Debug)]
enum Who {
    /// The pieces on this board file.
    File(usize),
    /// A place on whichever file holds several of the kind.
    Tandem(Rel),
    /// A place on this board file.
    FileTandem(usize, Rel),
}

/// A parsed WXF or Chinese move, not yet matched against the position.
struct Spec {
    kind: Kind,
    who: Who,
    dir: Dir,
    /// 1..=9.
    number: usize,
}

/// Where `kind` standing on `from` lands when moving in `dir` with `number`, if that is a shape
/// the piece can move in at all.
fn destination(color: Color, kind: Kind, from: Square, dir: Dir, number: usize) -> Option<Square> {
    let to_file = board_file(color, number) as i32;
    let df = to_file - from.file() as i32;
    let sign = match dir {
        Dir::Forward => forward(color),
        Dir::Back => -forward(color),
        Dir::Sideways if moves_straight(kind) && df != 0 => return from.offset(df, 0),
        Dir::Sideways => return None,
    };
    if moves_straight(kind) {
        return from.offset(0, sign * number as i32);
    }
    let dr = match (kind, df.abs()) {
        (Kind::Advisor, 1) => 1,
        (Kind::Elephant, 2) => 2,
        (Kind::Horse, 1) => 2,
        (Kind::Horse, 2) => 1,
        _ => return None,
    };
    from.offset(df, sign * dr)
}

/// Finds the one legal move `spec` describes.
fn resolve(pos: &Position, text: &str, spec: &Spec) -> Result<Move, NotationError> {
    let us = pos.side_to_move();
    let mut from_squares = Stack::new();
    match spec.who {
        Who::File(file) => {
            let s = stack(pos, us, spec.kind, file);
            match Rel::Middle.pick(&s) {
                Some(mid) if spec.kind == Kind::Soldier => from_squares.push(mid),
                _ => from_squares = s,
            }
        }
        Who::Tandem(rel) => {
            for file in tandem_files(pos, us, spec.kind) {
                from_squares.extend(rel.pick(&stack(pos, us, spec.kind, file)));
            }
        }
        Who::FileTandem(file, rel) => from_squares.extend(rel.pick(&stack(pos, us, spec.kind, file))),
    }
    if from_squares.is_empty() {
        return Err(NotationError::NoSuchPiece { text: text.to_string() });
    }
    let legal = pos.legal_moves();
    let candidates: Vec<Move> = from_squares
        .iter()
        .filter_map(|&from| destination(us, spec.kind, from, spec.dir, spec.number).map(|to| Move::new(from, to)))
        .filter(|mv| legal.contains(mv))
        .collect();
    match candidates.as_slice() {
        [mv] => Ok(*mv),
        [] => Err(NotationError::Illegal { text: text.to_string() }),
        _ => Err(NotationError::Ambiguous { text: text.to_string(), candidates }),
    }
}

// ---------------------------------------------------------------------------------------------
// WXF
// ---------------------------------------------------------------------------------------------

/// Writes `mv` in WXF notation (`C2=5`, `R+=3`, `P7=6`, `3-=4`); see the module docs.
///
/// `mv` should be legal in `pos`. Otherwise the text is still built from the piece on the
/// from-square and may not read back; with no piece there it is the UCI text.
#[must_use]
pub fn to_wxf(pos: &Position, mv: Move) -> String {
    let Some(d) = describe(pos, mv) else {
        return mv.to_string();
    };
    let letter = match d.kind {
        Kind::King => 'K',
        Kind::Advisor => 'A',
        Kind::Elephant => 'E',
        Kind::Horse => 'H',
        Kind::Rook => 'R',
        Kind::Cannon => 'C',
        Kind::Soldier => 'P',
    };
    let file = digit(d.file);
    let front_rear = |index: usize, count: usize| {
        if index == 0 {
            '+'
        } else if index + 1 == count {
            '-'
        } else {
            file
        }
    };
    let prefix = match d.locator {
        Locator::File => [letter, file],
        Locator::Tandem { index, count } if count >= 4 && index == 0 => ['+', '+'],
        Locator::Tandem { index, count } if count >= 4 && index + 1 == count => ['-', '-'],
        // Inside four or five, the rest are named as if the two ends were not there, which
        // gives `P+`, the middle by its file, and `P-`.
        Locator::Tandem { index, count } if count >= 4 => [letter, front_rear(index - 1, count - 2)],
        Locator::Tandem { index, count } => [letter, front_rear(index, count)],
        Locator::FileTandem { index, count } => [file, front_rear(index, count)],
    };
    let dir = match d.dir {
        Dir::Forward => '+',
        Dir::Back => '-',
        Dir::Sideways => '=',
    };
    [prefix[0], prefix[1], dir, digit(d.number)].iter().collect()
}

fn digit(n: usize) -> char {
    char::from_digit(n as u32, 10).unwrap_or('?')
}

/// Reads a WXF move and checks it is legal in `pos`. Accepts `.` or `=` for sideways, lower
/// case, `N`/`B` for horse/elephant, the sign before the letter (`+R=3`), and the tandem forms
/// of the module docs.
///
/// # Errors
/// [`NotationError`]: not WXF, no such piece, ambiguous, or illegal here.
pub fn parse_wxf(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let spec = wxf_spec(pos.side_to_move(), text).ok_or_else(|| syntax(text, WXF_EXPECTED))?;
    resolve(pos, text, &spec)
}

fn wxf_spec(us: Color, text: &str) -> Option<Spec> {
    let &[a, b, dir, n] = text.trim().as_bytes() else {
        return None;
    };
    let letter = |c: u8| match c.to_ascii_uppercase() {
        b'K' => Some(Kind::King),
        b'A' => Some(Kind::Advisor),
        b'E' | b'B' => Some(Kind::Elephant),
        b'H' | b'N' => Some(Kind::Horse),
        b'R' => Some(Kind::Rook),
        b'C' => Some(Kind::Cannon),
        b'P' => Some(Kind::Soldier),
        _ => None,
    };
    let file = |c: u8| matches!(c, b'1'..=b'9').then(|| usize::from(c - b'0'));
    let sign = |c: u8| match c {
        b'+' => Some(Rel::WxfFront),
        b'-' => Some(Rel::WxfRear),
        _ => None,
    };
    let (kind, who) = match (letter(a), file(a), sign(a), letter(b), file(b), sign(b)) {
        (Some(kind), _, _, _, Some(f), _) => (kind, Who::File(board_file(us, f))),
        (Some(kind), _, _, _, _, Some(rel)) | (_, _, Some(rel), Some(kind), _, _) => (kind, Who::Tandem(rel)),
        (_, _, Some(Rel::WxfFront), _, _, Some(Rel::WxfFront)) => (Kind::Soldier, Who::Tandem(Rel::Nth(0))),
        (_, _, Some(Rel::WxfRear), _, _, Some(Rel::WxfRear)) => (Kind::Soldier, Who::Tandem(Rel::FromBack(0))),
        // Soldiers on two tandem files: `+`/`-` or the file again for the middle one.
        (_, Some(f), _, _, _, Some(rel)) => {
            let rel = if rel == Rel::WxfFront { Rel::Nth(0) } else { Rel::FromBack(0) };
            (Kind::Soldier, Who::FileTandem(board_file(us, f), rel))
        }
        (_, Some(f), _, _, Some(g), _) if f == g => (Kind::Soldier, Who::FileTandem(board_file(us, f), Rel::Middle)),
        _ => return None,
    };
    let dir = match dir {
        b'+' => Dir::Forward,
        b'-' => Dir::Back,
        b'=' | b'.' => Dir::Sideways,
        _ => return None,
    };
    Some(Spec { kind, who, dir, number: file(n)? })
}

// ---------------------------------------------------------------------------------------------
// Chinese
// ---------------------------------------------------------------------------------------------

const CHINESE_NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// Writes `mv` in Chinese notation (`炮二平五`, `马8进7`, `前车平三`, `前三平四`); see the module
/// docs. The same contract as [`to_wxf`].
#[must_use]
pub fn to_chinese(pos: &Position, mv: Move) -> String {
    let Some(d) = describe(pos, mv) else {
        return mv.to_string();
    };
    let name = chinese_name(d.color, d.kind);
    let numeral = |n: usize| match d.color {
        Color::Red => CHINESE_NUMERALS.get(n.wrapping_sub(1)).copied().unwrap_or('?'),
        Color::Black => digit(n),
    };
    let place = |index: usize, count: usize| {
        if index == 0 {
            '前'
        } else if index + 1 == count {
            '后'
        } else {
            '中'
        }
    };
    let prefix = match d.locator {
        Locator::File => [name, numeral(d.file)],
        Locator::Tandem { index, count } if count >= 4 => [CHINESE_NUMERALS[index.min(8)], name],
        Locator::Tandem { index, count } => [place(index, count), name],
        Locator::FileTandem { index, count } => [place(index, count), numeral(d.file)],
    };
    let dir = match d.dir {
        Dir::Forward => '进',
        Dir::Back => '退',
        Dir::Sideways => '平',
    };
    [prefix[0], prefix[1], dir, numeral(d.number)].iter().collect()
}

fn chinese_name(color: Color, kind: Kind) -> char {
    match (color, kind) {
        (Color::Red, Kind::King) => '帅',
        (Color::Black, Kind::King) => '将',
        (Color::Red, Kind::Advisor) => '仕',
        (Color::Black, Kind::Advisor) => '士',
        (Color::Red, Kind::Elephant) => '相',
        (Color::Black, Kind::Elephant) => '象',
        (_, Kind::Horse) => '马',
        (_, Kind::Rook) => '车',
        (_, Kind::Cannon) => '炮',
        (Color::Red, Kind::Soldier) => '兵',
        (Color::Black, Kind::Soldier) => '卒',
    }
}

/// Reads a Chinese move and checks it is legal in `pos`; see the module docs for the
/// characters and forms accepted.
///
/// # Errors
/// [`NotationError`]: not Chinese notation, no such piece, ambiguous, or illegal here.
pub fn parse_chinese(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let spec = chinese_spec(pos.side_to_move(), text).ok_or_else(|| syntax(text, CHINESE_EXPECTED))?;
    resolve(pos, text, &spec)
}

fn chinese_spec(us: Color, text: &str) -> Option<Spec> {
    let mut chars = text.trim().chars();
    let (Some(a), Some(b), Some(dir), Some(n), None) =
        (chars.next(), chars.next(), chars.next(), chars.next(), chars.next())
    else {
        return None;
    };
    let (kind, who) = match (chinese_kind(a), numeral(a), place(a), chinese_kind(b), numeral(b), place(b)) {
        (Some(kind), _, _, _, Some(f), _) => (kind, Who::File(board_file(us, f))),
        (Some(kind), _, _, _, _, Some(rel)) | (_, _, Some(rel), Some(kind), _, _) => (kind, Who::Tandem(rel)),
        (_, Some(ordinal), _, Some(kind), _, _) => (kind, Who::Tandem(Rel::Nth(ordinal - 1))),
        (_, _, Some(rel), _, Some(f), _) => (Kind::Soldier, Who::FileTandem(board_file(us, f), rel)),
        _ => return None,
    };
    let dir = match dir {
        '进' | '進' => Dir::Forward,
        '退' => Dir::Back,
        '平' => Dir::Sideways,
        _ => return None,
    };
    Some(Spec { kind, who, dir, number: numeral(n)? })
}

/// The kind a piece character names, whichever colour's character it is.
fn chinese_kind(c: char) -> Option<Kind> {
    Some(match c {
        '帅' | '帥' | '将' | '將' => Kind::King,
        '仕' | '士' => Kind::Advisor,
        '相' | '象' => Kind::Elephant,
        '马' | '馬' | '傌' => Kind::Horse,
        '车' | '車' | '俥' => Kind::Rook,
        '炮' | '砲' | '包' => Kind::Cannon,
        '兵' | '卒' => Kind::Soldier,
        _ => return None,
    })
}

/// 1..=9 from a Chinese, ASCII or fullwidth numeral.
fn numeral(c: char) -> Option<usize> {
    if let Some(i) = CHINESE_NUMERALS.iter().position(|&x| x == c) {
        return Some(i + 1);
    }
    let n = match c {
        '1'..='9' => c as u32 - '0' as u32,
        '１'..='９' => c as u32 - '０' as u32,
        _ => return None,
    };
    Some(n as usize)
}

fn place(c: char) -> Option<Rel> {
    match c {
        '前' => Some(Rel::Nth(0)),
        '中' => Some(Rel::Middle),
        '后' | '後' => Some(Rel::FromBack(0)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    fn uci(text: &str) -> Move {
        parse_uci(text).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Hand-made positions for every tandem case, one line per move, read from
    /// `data/notation/moves.txt`: `FEN ; UCI ; WXF ; Chinese [; other accepted forms]`.
    #[test]
    fn move_file() {
        let data = include_str!("../../../data/notation/moves.txt");
        let mut cases = 0;
        for (lineno, line) in data.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split(';').map(str::trim).collect();
            let [fen, mv, wxf, chinese, rest @ ..] = fields.as_slice() else {
                panic!("line {}: expected at least 4 fields: {line}", lineno + 1);
            };
            let p = pos(fen);
            let mv = uci(mv);
            assert!(p.is_legal(mv), "line {}: {mv} is not legal", lineno + 1);
            assert_eq!(to_wxf(&p, mv), *wxf, "line {}: WXF of {mv}", lineno + 1);
            assert_eq!(to_chinese(&p, mv), *chinese, "line {}: Chinese of {mv}", lineno + 1);
            let also = rest.iter().flat_map(|r| r.split_whitespace());
            for text in [*wxf, *chinese].into_iter().chain(also) {
                assert_eq!(parse_move(&p, text), Ok(mv), "line {}: reading {text}", lineno + 1);
            }
            cases += 1;
        }
        assert!(cases >= 40, "only {cases} cases read");
    }

    #[test]
    fn opening_examples() {
        let start = Position::startpos();
        assert_eq!(to_wxf(&start, uci("h2e2")), "C2=5");
        assert_eq!(to_chinese(&start, uci("h2e2")), "炮二平五");
        assert_eq!(to_wxf(&start, uci("h0g2")), "H2+3");
        assert_eq!(to_chinese(&start, uci("h0g2")), "马二进三");
        let after = start.after(uci("h2e2"));
        assert_eq!(to_wxf(&after, uci("h9g7")), "H8+7");
        assert_eq!(to_chinese(&after, uci("h9g7")), "马8进7");
        assert_eq!(to_wxf(&after, uci("b7e7")), "C2=5");
        assert_eq!(to_chinese(&after, uci("b7e7")), "炮2平5");
        assert_eq!(parse_move(&start, "C2.5"), Ok(uci("h2e2")));
        assert_eq!(parse_move(&start, " h2e2 "), Ok(uci("h2e2")));
        assert_eq!(parse_move(&after, "馬８進７"), Ok(uci("h9g7")));
    }

    #[test]
    fn coordinates() {
        assert_eq!(uci("a0i9").to_string(), "a0i9");
        assert_eq!(uci_to_fsf(uci("h2e2")), "h3e3");
        assert_eq!(uci_to_fsf(uci("a9a8")), "a10a9");
        assert_eq!(uci_to_fsf(uci("i0i9")), "i1i10");
        for mv in Square::all().flat_map(|a| Square::all().map(move |b| Move::new(a, b))) {
            assert_eq!(parse_fsf(&uci_to_fsf(mv)), Ok(mv));
            assert_eq!(parse_uci(&mv.to_string()), Ok(mv));
        }
        for bad in ["", "a0", "a0a", "j0a0", "a0a10", "a-1a0", "A0A1", "a0a1x", "a0é1", "é0a1"] {
            assert!(matches!(parse_uci(bad), Err(NotationError::Syntax { .. })), "{bad}");
        }
        for bad in ["", "a0a1", "a11a1", "a1a11", "a01a1", "a10a", "a1a10 x", "i1j1", "a100a1", "ａ1a2"] {
            assert!(matches!(parse_fsf(bad), Err(NotationError::Syntax { .. })), "{bad}");
        }
    }

    #[test]
    fn errors_say_why() {
        let start = Position::startpos();
        let err = |text: &str| parse_move(&start, text).expect_err(text);
        assert!(matches!(err("Z2=5"), NotationError::Syntax { .. }));
        assert!(matches!(err("C2=0"), NotationError::Syntax { .. }));
        assert!(matches!(err("C2*5"), NotationError::Syntax { .. }));
        assert!(matches!(err("炮二跳五"), NotationError::Syntax { .. }));
        assert!(matches!(err("C3=5"), NotationError::NoSuchPiece { .. }));
        assert!(matches!(err("R+=4"), NotationError::NoSuchPiece { .. }));
        assert!(matches!(err("前车平四"), NotationError::NoSuchPiece { .. }));
        assert!(matches!(err("h7h6"), NotationError::NoSuchPiece { .. }));
        assert!(matches!(err("e4e4"), NotationError::NoSuchPiece { .. }));
        assert!(matches!(err("C2+9"), NotationError::Illegal { .. }));
        assert!(matches!(err("H2=3"), NotationError::Illegal { .. }));
        assert!(matches!(err("A4-5"), NotationError::Illegal { .. }));
        assert!(matches!(err("a0a5"), NotationError::Illegal { .. }));
        assert!(matches!(err("炮二进九"), NotationError::Illegal { .. }));
        // Two rooks on one file, written by file: either could go forward one.
        let rooks = pos("3k5/9/9/9/2R6/9/9/2R6/9/4K4 w - - 0 1");
        match parse_move(&rooks, "R7+1") {
            Err(NotationError::Ambiguous { candidates, .. }) => assert_eq!(candidates.len(), 2),
            other => panic!("expected ambiguity, got {other:?}"),
        }
        assert_eq!(parse_move(&rooks, "R7+4"), Ok(uci("c5c9")), "only the front rook reaches");
        let shown = err("C3=5").to_string();
        assert!(shown.contains("C3=5") && shown.contains("no such piece"), "{shown}");
        assert_eq!(err("C3=5").text(), "C3=5");
    }

    #[test]
    fn garbage_is_rejected() {
        let start = Position::startpos();
        let garbage = [
            "",
            " ",
            "\0",
            "++",
            "++++",
            "P",
            "C2=",
            "C2=55",
            "车",
            "炮二平",
            "炮二平五五",
            "e2e4e5",
            "🐴8+7",
            "C🐴=5",
            "炮🐴平五",
            "前后平五",
            "中兵",
            "一二三四",
            "\u{301}C2=5",
            "C2=5\u{301}",
            "ｃ２＝５",
            "===5",
            "PP=5",
            "K5=K",
        ];
        for text in garbage {
            assert!(parse_move(&start, text).is_err(), "{text:?}");
            assert!(parse_wxf(&start, text).is_err(), "{text:?}");
            assert!(parse_chinese(&start, text).is_err(), "{text:?}");
            assert!(parse_uci(text).is_err(), "{text:?}");
            assert!(parse_fsf(text).is_err(), "{text:?}");
        }
    }

    /// A tiny seeded xorshift, so the random tests need no dependency and never change.
    struct XorShift(u64);

    impl XorShift {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// Every legal move reads back from its WXF, Chinese and UCI text, and no two legal moves
    /// share a text.
    fn check_round_trip(p: &Position) {
        let moves = p.legal_moves();
        let mut seen = HashSet::new();
        for &mv in &moves {
            let wxf = to_wxf(p, mv);
            let chinese = to_chinese(p, mv);
            assert_eq!(parse_wxf(p, &wxf), Ok(mv), "{} : {mv} -> {wxf}", p.fen());
            assert_eq!(parse_chinese(p, &chinese), Ok(mv), "{} : {mv} -> {chinese}", p.fen());
            assert_eq!(parse_move(p, &mv.to_string()), Ok(mv), "{} : {mv}", p.fen());
            assert_eq!(parse_move(p, &wxf.to_lowercase()), Ok(mv), "{} : {mv} -> {wxf}", p.fen());
            assert!(seen.insert(wxf.clone()), "{}: {wxf} written twice", p.fen());
            assert!(seen.insert(chinese.clone()), "{}: {chinese} written twice", p.fen());
        }
    }

    #[test]
    fn random_games_round_trip() {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        let mut plies = 0;
        for _ in 0..40 {
            let mut p = Position::startpos();
            for _ in 0..150 {
                check_round_trip(&p);
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                p = p.after(moves[rng.below(moves.len())]);
                plies += 1;
            }
        }
        assert!(plies > 3000, "{plies}");
    }

    /// Random positions crowded with crossed soldiers on one or two files, so that every
    /// soldier case of the module docs comes up many times for both colours.
    #[test]
    fn soldier_crowds_round_trip() {
        let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
        let mut seen_counts = HashSet::new();
        let mut positions = 0;
        while positions < 600 {
            let mut board = [[' '; FILES]; RANKS];
            board[rng.below(3)][3 + rng.below(3)] = 'K';
            board[9 - rng.below(3)][3 + rng.below(3)] = 'k';
            for color in Color::BOTH {
                // 2..=5 soldiers, some on one file and the rest on another (or the same: then
                // fewer, where squares coincide).
                let total = 2 + rng.below(4);
                let on_first = 1 + rng.below(total);
                for (file, n) in [(rng.below(FILES), on_first), (rng.below(FILES), total - on_first)] {
                    let mut ranks = [5, 6, 7, 8, 9];
                    for i in (1..ranks.len()).rev() {
                        ranks.swap(i, rng.below(i + 1));
                    }
                    for &rank in &ranks[..n] {
                        let rank = if color == Color::Red { rank } else { 9 - rank };
                        if board[rank][file] == ' ' {
                            board[rank][file] = if color == Color::Red { 'P' } else { 'p' };
                        }
                    }
                }
                for letter in ['R', 'C', 'N', 'R'] {
                    let (rank, file) = (rng.below(RANKS), rng.below(FILES));
                    if board[rank][file] == ' ' {
                        board[rank][file] = if color == Color::Red { letter } else { letter.to_ascii_lowercase() };
                    }
                }
            }
            let fen = board_fen(&board, if rng.below(2) == 0 { 'w' } else { 'b' });
            let Ok(p) = Position::from_fen(&fen) else {
                continue;
            };
            positions += 1;
            let us = p.side_to_move();
            for file in 0..FILES {
                seen_counts.insert((
                    us,
                    stack(&p, us, Kind::Soldier, file).len(),
                    tandem_files(&p, us, Kind::Soldier).len(),
                ));
            }
            check_round_trip(&p);
        }
        for color in Color::BOTH {
            for count in 2..=5 {
                assert!(seen_counts.contains(&(color, count, 1)), "no {color:?} file of {count} soldiers");
            }
            for count in 2..=3 {
                assert!(seen_counts.contains(&(color, count, 2)), "no {color:?} pair of files with {count}");
            }
        }
    }

    fn board_fen(board: &[[char; FILES]; RANKS], side: char) -> String {
        let mut ranks = Vec::new();
        for row in board.iter().rev() {
            let mut s = String::new();
            let mut empty = 0;
            for &c in row {
                if c == ' ' {
                    empty += 1;
                } else {
                    if empty > 0 {
                        s.push(digit(empty));
                        empty = 0;
                    }
                    s.push(c);
                }
            }
            if empty > 0 {
                s.push(digit(empty));
            }
            ranks.push(s);
        }
        format!("{} {side} - - 0 1", ranks.join("/"))
    }

    /// The notation is the same for both colours seen from their own side: a Red move and the
    /// rotated Black move in the rotated position read alike in WXF.
    #[test]
    fn colours_are_symmetric() {
        let mut rng = XorShift(0xdead_beef_cafe_f00d);
        for _ in 0..20 {
            let mut p = Position::startpos();
            for _ in 0..60 {
                let flipped = rotate(&p);
                for &mv in &p.legal_moves() {
                    assert_eq!(to_wxf(&p, mv), to_wxf(&flipped, mv.rotate()), "{} : {mv}", p.fen());
                }
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                p = p.after(moves[rng.below(moves.len())]);
            }
        }
    }

    /// The position turned 180 degrees with the colours swapped.
    fn rotate(p: &Position) -> Position {
        let mut board = [[' '; FILES]; RANKS];
        for (sq, piece) in p.iter() {
            let r = sq.rotate();
            let c = piece.fen_char();
            board[r.rank()][r.file()] =
                if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() };
        }
        let side = if p.side_to_move() == Color::Red { 'b' } else { 'w' };
        pos(&board_fen(&board, side))
    }

    proptest::proptest! {
        #[test]
        fn any_text_is_an_answer_not_a_panic(text in "\\PC{0,8}", bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..12)) {
            let start = Position::startpos();
            let lossy = String::from_utf8_lossy(&bytes).into_owned();
            for t in [text.as_str(), lossy.as_str()] {
                let _ = parse_move(&start, t);
                let _ = parse_wxf(&start, t);
                let _ = parse_chinese(&start, t);
                let _ = parse_uci(t);
                let _ = parse_fsf(t);
            }
        }

        #[test]
        fn notation_shaped_text_never_panics(
            a in proptest::sample::select(vec!['前', '中', '后', '一', '五', '九', '兵', '卒', '车', '马', '相', '士', '1', '9', '+', '-', 'P', 'R', 'A', 'E']),
            b in proptest::sample::select(vec!['前', '中', '后', '一', '五', '九', '兵', '卒', '车', '炮', '1', '5', '9', '+', '-', 'P', 'C', '=']),
            dir in proptest::sample::select(vec!['进', '退', '平', '+', '-', '=', '.']),
            n in proptest::sample::select(vec!['一', '五', '九', '1', '5', '9', '０', '0']),
            fen in proptest::sample::select(vec![
                "5k3/9/9/2P6/2P6/9/6P2/9/9/4K4 w - - 0 1",
                "4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1",
                crate::START_FEN,
            ]),
        ) {
            let p = pos(fen);
            let text: String = [a, b, dir, n].iter().collect();
            let _ = parse_move(&p, &text);
        }
    }
}
