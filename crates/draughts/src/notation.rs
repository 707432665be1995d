//! Move notation for international draughts: PDN as FMJD publishes it, and the Hub form of
//! Scan's protocol (version 2), read and written.
//!
//! The search and the network only see [`Move`]; text is for people, game files and other
//! engines. Writing takes a move that is legal in the position and never fails. Reading (but
//! for [`parse_move_strict`], for machine-written text) is lenient about *form* (surrounding whitespace, spaces around separators, `X` for `x`, a
//! leading zero) and strict about *substance*: a text that fits no legal move, or several, is a
//! [`NotationError`] carrying the rejected text, never a guess and never a panic, whatever bytes
//! it is given. A square is one or two ASCII digits naming 1..=50.
//!
//! # PDN ([`to_pdn`], [`parse_pdn`])
//!
//! A quiet move is origin and destination joined by `-` (`32-28`); a capture joins them by `x`
//! (`19x30`), whatever it takes on the way. The captured pieces are not written: the position
//! tells them, except when two legal captures share origin and destination but take different
//! pieces. Only then do we write the *full route*, every landing square in order: with a
//! white man on 20 and black men on 11-14, 23 and 24 the two four-piece captures ending on 16 are
//! `20x9x18x7x16` and `20x29x18x7x16`, while the third capture is plain `20x20`. We chose the full route over the shortest disambiguating prefix because it is
//! what other readers of PDN with intermediate squares expect, and because a full route fixes the
//! captured set on its own: each leg jumps exactly one piece, so it can never fit two moves.
//! The route written is the one the generator keeps ([`Move::path`] of the legal move), so the
//! same move always gets the same text however it was built.
//!
//! Reading takes a route the generator did not keep, and partial routes as other programs
//! write them: the squares between origin and destination must be landing squares of some route
//! of the move, in that order, not necessarily consecutive. A text that is a complete route of one
//! move is that move, even if it is also part of a longer route of another; only otherwise do
//! partial matches count, and more than one is [`NotationError::Ambiguous`] (`20x18x16` above).
//! `-` never names a capture, nor `x` a quiet move. The move returned carries the generator's
//! route.
//!
//! pydraughts 0.6.7 (checked by hand on 465 positions) writes the same text except where a
//! move has several routes: it lists each route as a move of its own, so it writes a route
//! whenever two *routes* share origin and destination, even with the same captured set
//! (`25x14x23x37` where we write `25x37`), and where we both write a route it may pick another
//! (`30x39x17x8x30` for our `30x8x17x39x30`). Each side reads every text the other writes.
//!
//! # Hub ([`to_hub`], [`parse_hub`])
//!
//! Scan's Hub protocol writes a move so that it needs no position: `32-28`, and for a capture the
//! origin, the destination, then every captured square: `28x19x23`. We write the captured squares
//! in ascending order (as `Move`'s `Display` does) and read them in any order, each once.
//!
//! [`parse_move_strict`] reads only what `Move`'s `Display` writes, byte for byte, for text a
//! program wrote (stored games): the one reader here that is not lenient about form.
//!
//! # Either ([`parse_move`])
//!
//! The two agree on quiet moves and disagree on captures: in `a x b x c` PDN reads `b` as a
//! landing square and `c` as the destination, Hub reads `b` as the destination and `c` as a
//! captured piece. [`parse_move`] tries both and collects every legal move either reading fits:
//! one is the answer, several are ambiguous. In practice they cannot collide: a Hub text of `n`
//! squares takes `n - 2` pieces and a PDN text of `n` squares at least `n - 1` (one per leg), while
//! all legal moves of a position take the same number of pieces (the majority rule). A capture
//! written with two squares (`19x30`) is PDN only: Hub always lists what it takes.

use crate::moves::{MAX_CAPTURES, Move};
use crate::position::Position;
use crate::types::{Kind, Square};
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
    /// The text is well formed, but no legal move in this position fits it.
    Illegal {
        /// The rejected text.
        text: String,
    },
    /// The text fits more than one legal move.
    Ambiguous {
        /// The rejected text.
        text: String,
        /// The legal moves it fits, in generation order.
        candidates: Vec<Move>,
    },
}

impl NotationError {
    /// The rejected text.
    #[must_use]
    pub fn text(&self) -> &str {
        match self {
            NotationError::Syntax { text, .. }
            | NotationError::Illegal { text }
            | NotationError::Ambiguous { text, .. } => text,
        }
    }
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `{:?}` quotes the text and escapes control characters, so odd input stays readable.
        match self {
            NotationError::Syntax { text, expected } => write!(f, "{text:?} is not a move: expected {expected}"),
            NotationError::Illegal { text } => write!(f, "{text:?} fits no legal move in this position"),
            NotationError::Ambiguous { text, candidates } => {
                // Candidates in Hub form, which names each one without the position.
                write!(f, "{text:?} is ambiguous: it fits")?;
                for mv in candidates {
                    write!(f, " {mv}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for NotationError {}

const PDN_EXPECTED: &str =
    "PDN like 32-28 or 19x30, squares 1-50, a capture optionally with landing squares: 15x4x22x15";
const HUB_EXPECTED: &str = "Hub like 32-28 or 28x19x23: origin, destination, then each captured square once";
const STRICT_EXPECTED: &str =
    "Hub exactly as qizero writes it, like 32-28 or 28x19x23 (captured squares ascending, no spaces)";
const MOVE_EXPECTED: &str = "a PDN or Hub move like 32-28, 19x30 or 28x19x23, squares 1-50";

/// Most squares a move text can hold: origin, destination and twenty captured pieces (Hub).
/// A PDN route is shorter (origin, 19 landing squares, destination).
const MAX_TEXT_SQUARES: usize = MAX_CAPTURES + 2;

type Squares = ArrayVec<Square, MAX_TEXT_SQUARES>;

/// A move text split into squares, before any position is looked at.
enum Shape {
    Quiet(Square, Square),
    /// At least two squares joined by `x`.
    Capture(Squares),
}

/// Splits `text` into its squares, or `None` if it is not squares joined by one kind of
/// separator. Works on `str` methods only, so any UTF-8 is safe.
fn lex(text: &str) -> Option<Shape> {
    let body = text.trim();
    let is_x = |c: char| c == 'x' || c == 'X';
    let quiet = body.contains('-');
    if quiet == body.contains(is_x) {
        return None;
    }
    let mut squares = Squares::new();
    for part in body.split(|c| if quiet { c == '-' } else { is_x(c) }) {
        squares.try_push(parse_square(part.trim())?).ok()?;
    }
    match squares.as_slice() {
        &[from, to] if quiet => Some(Shape::Quiet(from, to)),
        [_, _, ..] if !quiet => Some(Shape::Capture(squares)),
        _ => None,
    }
}

fn parse_square(token: &str) -> Option<Square> {
    // `u32::from_str` would also take a leading `+`; a square is digits only.
    if token.is_empty() || token.len() > 2 || !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok().and_then(Square::new)
}

fn syntax(text: &str, expected: &'static str) -> NotationError {
    NotationError::Syntax { text: text.to_string(), expected }
}

/// The one move in `fits`, or the error saying there are none or several.
fn unique(text: &str, mut fits: Vec<Move>) -> Result<Move, NotationError> {
    match fits.len() {
        0 => Err(NotationError::Illegal { text: text.to_string() }),
        1 => Ok(fits.remove(0)),
        _ => Err(NotationError::Ambiguous { text: text.to_string(), candidates: fits }),
    }
}

fn quiet_fits(pos: &Position, from: Square, to: Square) -> Vec<Move> {
    pos.legal_moves().into_iter().filter(|m| !m.is_capture() && m.from() == from && m.to() == to).collect()
}

/// The legal moves a PDN capture text fits (see the module docs): a complete route first,
/// then routes through the given squares in order.
fn pdn_capture_fits(pos: &Position, squares: &[Square]) -> Vec<Move> {
    let (Some(&from), Some(&to)) = (squares.first(), squares.last()) else { return Vec::new() };
    let via = &squares[1..squares.len() - 1];
    let twins: Vec<Move> =
        pos.legal_moves().into_iter().filter(|m| m.is_capture() && m.from() == from && m.to() == to).collect();
    if via.is_empty() {
        return twins;
    }
    if let Some(exact) = twins.iter().find(|m| any_route(pos, m, |route| route == via)) {
        return vec![*exact];
    }
    twins.into_iter().filter(|m| any_route(pos, m, |route| is_subsequence(via, route))).collect()
}

/// The legal move a Hub capture text names, if any; `Err` if a captured square is repeated.
fn hub_capture_fit(pos: &Position, squares: &[Square]) -> Result<Option<Move>, ()> {
    let [from, to, captured @ ..] = squares else { return Err(()) };
    if captured.is_empty() {
        return Err(());
    }
    let mut seen = 0u64;
    for s in captured {
        let b = 1u64 << s.number();
        if seen & b != 0 {
            return Err(());
        }
        seen |= b;
    }
    let mv = Move::with_captures(*from, *to, captured, &[]).ok_or(())?;
    Ok(pos.find_legal(&mv))
}

/// True if every square of `needle` occurs in `hay`, in order.
fn is_subsequence(needle: &[Square], hay: &[Square]) -> bool {
    let mut rest = hay.iter();
    needle.iter().all(|n| rest.any(|h| h == n))
}

/// The square one diagonal step from `sq`, if on the board.
fn step(sq: Square, (dr, dc): (i32, i32)) -> Option<Square> {
    let row = sq.row().checked_add_signed(dr)?;
    let column = sq.column().checked_add_signed(dc)?;
    Square::from_row_column(row, column)
}

const DIAGONALS: [(i32, i32); 4] = [(-1, -1), (-1, 1), (1, -1), (1, 1)];

/// Depth-first search over the routes of one legal capture: jumps restricted to the move's
/// captured pieces, under the same rules as the generator (captured pieces stay on the board
/// until the move ends, the origin counts as empty, a man stays a man until the move ends).
/// The generator keeps one route per move; reading needs them all.
struct RouteSearch<'a> {
    pos: &'a Position,
    origin: Square,
    to: Square,
    king: bool,
    /// Pieces of the move still to take, as bit `n` for square `n`.
    remaining: u64,
    /// Landing squares so far, the last one being where the piece stands.
    route: ArrayVec<Square, MAX_CAPTURES>,
}

impl RouteSearch<'_> {
    fn is_empty(&self, sq: Square) -> bool {
        sq == self.origin || self.pos.piece_at(sq).is_none()
    }

    fn takes(&self, sq: Square) -> bool {
        self.remaining & 1u64 << sq.number() != 0
    }

    /// Continues from `at`; true as soon as `accept` takes a complete route's inner squares.
    fn visit(&mut self, at: Square, accept: &mut impl FnMut(&[Square]) -> bool) -> bool {
        if self.remaining == 0 {
            return at == self.to && self.route.split_last().is_some_and(|(_, inner)| accept(inner));
        }
        for d in DIAGONALS {
            let mut over = step(at, d);
            if self.king {
                while let Some(s) = over.filter(|&s| self.is_empty(s)) {
                    over = step(s, d);
                }
            }
            let Some(over) = over.filter(|&s| self.takes(s)) else { continue };
            let mut land = step(over, d);
            while let Some(l) = land.filter(|&l| self.is_empty(l)) {
                let bit = 1u64 << over.number();
                self.remaining ^= bit;
                // A route never has more legs than the move has captures, so this cannot fail.
                let pushed = self.route.try_push(l).is_ok();
                let found = pushed && self.visit(l, accept);
                if pushed {
                    self.route.pop();
                }
                self.remaining ^= bit;
                if found {
                    return true;
                }
                land = if self.king { step(l, d) } else { None };
            }
        }
        false
    }
}

/// True if `accept` holds for the inner landing squares (origin and destination left out) of
/// some route of `mv`, a legal capture in `pos`.
fn any_route(pos: &Position, mv: &Move, mut accept: impl FnMut(&[Square]) -> bool) -> bool {
    let Some(piece) = pos.piece_at(mv.from()) else { return false };
    let mut search = RouteSearch {
        pos,
        origin: mv.from(),
        to: mv.to(),
        king: piece.kind == Kind::King,
        remaining: mv.captured().fold(0, |m, s| m | 1u64 << s.number()),
        route: ArrayVec::new(),
    };
    search.visit(mv.from(), &mut accept)
}

fn write_route(from: Square, via: impl Iterator<Item = Square>, to: Square) -> String {
    let mut out = from.to_string();
    for s in via.chain(std::iter::once(to)) {
        out.push('x');
        out.push_str(&s.to_string());
    }
    out
}

/// The PDN of `mv`, which should be legal in `pos`: `32-28`, `19x30`, or the full route
/// `20x9x18x7x16` when another legal capture shares origin and destination.
///
/// Given a move that is not legal in `pos`, it writes `from-to`, or `fromxto` followed by
/// nothing or the move's own route, rather than failing.
#[must_use]
pub fn to_pdn(pos: &Position, mv: &Move) -> String {
    if !mv.is_capture() {
        return format!("{}-{}", mv.from(), mv.to());
    }
    let legal = pos.legal_moves();
    let Some(own) = legal.iter().find(|m| *m == mv) else {
        return write_route(mv.from(), mv.path(), mv.to());
    };
    let twins = legal.iter().filter(|m| m.from() == mv.from() && m.to() == mv.to()).count();
    if twins > 1 { write_route(own.from(), own.path(), own.to()) } else { format!("{}x{}", own.from(), own.to()) }
}

/// Reads a PDN move (see the module docs) and returns the legal move it names, with the
/// generator's route.
///
/// # Errors
/// [`NotationError::Syntax`] if the text is not squares joined by `-` or by `x`,
/// [`NotationError::Illegal`] if no legal move fits, [`NotationError::Ambiguous`] if several do.
pub fn parse_pdn(pos: &Position, text: &str) -> Result<Move, NotationError> {
    match lex(text).ok_or_else(|| syntax(text, PDN_EXPECTED))? {
        Shape::Quiet(from, to) => unique(text, quiet_fits(pos, from, to)),
        Shape::Capture(squares) => unique(text, pdn_capture_fits(pos, &squares)),
    }
}

/// The Hub form of `mv`: `32-28`, or `28x19x23` (origin, destination, captured squares in
/// ascending order). Needs no position; the same as `mv.to_string()`.
#[must_use]
pub fn to_hub(mv: &Move) -> String {
    mv.to_string()
}

/// Reads a Hub move and returns the legal move it names, with the generator's route.
///
/// # Errors
/// [`NotationError::Syntax`] if the text is not a Hub move (a capture must list at least one
/// captured square, none twice), [`NotationError::Illegal`] if it is not legal here.
pub fn parse_hub(pos: &Position, text: &str) -> Result<Move, NotationError> {
    match lex(text).ok_or_else(|| syntax(text, HUB_EXPECTED))? {
        Shape::Quiet(from, to) => unique(text, quiet_fits(pos, from, to)),
        Shape::Capture(squares) => match hub_capture_fit(pos, &squares) {
            Err(()) => Err(syntax(text, HUB_EXPECTED)),
            Ok(fit) => unique(text, fit.into_iter().collect()),
        },
    }
}

/// Reads a move in PDN or Hub, whichever gives a legal move (see the module docs).
///
/// # Errors
/// [`NotationError::Syntax`] if the text is neither, [`NotationError::Illegal`] if neither
/// reading gives a legal move, [`NotationError::Ambiguous`] if the readings fit several.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, NotationError> {
    match lex(text).ok_or_else(|| syntax(text, MOVE_EXPECTED))? {
        Shape::Quiet(from, to) => unique(text, quiet_fits(pos, from, to)),
        Shape::Capture(squares) => {
            let mut fits = pdn_capture_fits(pos, &squares);
            if let Ok(Some(hub)) = hub_capture_fit(pos, &squares) {
                if !fits.contains(&hub) {
                    fits.push(hub);
                }
            }
            unique(text, fits)
        }
    }
}

/// Reads a move exactly as `Move`'s `Display` (and so [`game::Game::move_to_string`]) writes
/// it, the Hub form with captured squares in ascending order (`32-28`, `28x19x23`), and
/// returns the legal move it names. Nothing else: no whitespace, no `X`, no leading zeros, no
/// other order of the captured squares, no PDN capture. For text a program wrote (stored
/// games), where any other form means corrupt data, not a person's habit.
///
/// # Errors
/// [`NotationError::Syntax`] if the text is not in that exact form, [`NotationError::Illegal`]
/// if no legal move has that text, [`NotationError::Ambiguous`] if several do.
pub fn parse_move_strict(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let mv = parse_hub(pos, text).map_err(|e| match e {
        NotationError::Syntax { .. } => syntax(text, STRICT_EXPECTED),
        other => other,
    })?;
    // `parse_hub` is lenient about form: the move it found must write back as the same text.
    if mv.to_string() == text { Ok(mv) } else { Err(syntax(text, STRICT_EXPECTED)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn fen(text: &str) -> Position {
        Position::from_fen(text).expect(text)
    }

    fn sq(n: u32) -> Square {
        Square::new(n).expect("square")
    }

    /// Marsaglia's xorshift64: enough randomness for picking moves, the same on every run.
    struct XorShift(u64);

    impl XorShift {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// Every inner route of `mv`, by exhausting the search.
    fn all_routes(pos: &Position, mv: &Move) -> Vec<Vec<Square>> {
        let mut routes = Vec::new();
        any_route(pos, mv, |r| {
            routes.push(r.to_vec());
            false
        });
        routes
    }

    /// The notation contract for every legal move of `pos`; returns how many moves needed a route.
    fn check_position(pos: &Position) -> usize {
        let legal = pos.legal_moves();
        let mut texts = HashSet::new();
        let mut routed = 0;
        for mv in &legal {
            let pdn = to_pdn(pos, mv);
            assert!(texts.insert(pdn.clone()), "{pdn} written twice in {}", pos.fen());
            for parsed in [parse_pdn(pos, &pdn), parse_move(pos, &pdn)] {
                let parsed = parsed.unwrap_or_else(|e| panic!("{}: {e}", pos.fen()));
                assert_eq!(parsed, *mv, "{pdn} in {}", pos.fen());
                assert!(parsed.path().eq(mv.path()), "{pdn}: not the generator's route");
            }
            let hub = to_hub(mv);
            assert_eq!(hub, mv.to_string());
            assert_eq!(parse_hub(pos, &hub).as_ref(), Ok(mv), "{hub} in {}", pos.fen());
            assert_eq!(parse_move(pos, &hub).as_ref(), Ok(mv), "{hub} in {}", pos.fen());
            if mv.is_capture() {
                routed += usize::from(pdn.matches('x').count() > 1);
                let routes = all_routes(pos, mv);
                let generated: Vec<Square> = mv.path().collect();
                assert!(routes.contains(&generated), "{mv}: search misses the generator's route {generated:?}");
                // Every route, written in full, reads back as this move.
                for route in routes {
                    let text = write_route(mv.from(), route.into_iter(), mv.to());
                    assert_eq!(parse_pdn(pos, &text).as_ref(), Ok(mv), "{text} in {}", pos.fen());
                }
            }
        }
        routed
    }

    /// Plays random games from `start`, checking every position; returns moves needing a route.
    fn random_games(start: &Position, games: usize, seed: u64) -> usize {
        let mut rng = XorShift(seed);
        let mut routed = 0;
        for _ in 0..games {
            let mut pos = *start;
            for _ in 0..200 {
                routed += check_position(&pos);
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                pos.make(&legal[rng.below(legal.len())]);
            }
        }
        routed
    }

    #[test]
    fn quiet_moves() {
        let pos = Position::startpos();
        let mv = parse_pdn(&pos, "32-28").expect("32-28");
        assert_eq!((mv.from(), mv.to(), mv.is_capture()), (sq(32), sq(28), false));
        assert_eq!(to_pdn(&pos, &mv), "32-28");
        assert_eq!(to_hub(&mv), "32-28");
        assert_eq!(parse_hub(&pos, "32-28"), Ok(mv));
        assert_eq!(parse_move(&pos, " 32 - 28 "), Ok(mv));
        assert_eq!(parse_pdn(&pos, "32-26"), Err(NotationError::Illegal { text: "32-26".into() }));
        // Black's move, and a capture sign on a quiet move.
        assert!(matches!(parse_pdn(&pos, "19-23"), Err(NotationError::Illegal { .. })));
        assert!(matches!(parse_move(&pos, "32x28"), Err(NotationError::Illegal { .. })));
    }

    #[test]
    fn simple_capture() {
        let pos = fen("W:W28,38:B23");
        let mv = parse_pdn(&pos, "28x19").expect("28x19");
        assert_eq!(mv.captured().collect::<Vec<_>>(), [sq(23)]);
        assert_eq!(to_pdn(&pos, &mv), "28x19");
        assert_eq!(to_hub(&mv), "28x19x23");
        assert_eq!(parse_hub(&pos, "28X19X23"), Ok(mv));
        assert_eq!(parse_move(&pos, "28x19"), Ok(mv));
        assert_eq!(parse_move(&pos, "28x19x23"), Ok(mv));
        // Capturing is compulsory, and `-` never names a capture.
        assert!(matches!(parse_pdn(&pos, "38-32"), Err(NotationError::Illegal { .. })));
        assert!(matches!(parse_pdn(&pos, "28-19"), Err(NotationError::Illegal { .. })));
        // Hub must list the captured piece.
        assert!(matches!(parse_hub(&pos, "28x19"), Err(NotationError::Syntax { .. })));
        assert!(matches!(parse_hub(&pos, "28x19x23x23"), Err(NotationError::Syntax { .. })));
        assert!(matches!(parse_hub(&pos, "28x19x24"), Err(NotationError::Illegal { .. })));
    }

    #[test]
    fn multi_capture_writes_no_route_when_unique() {
        // White man on 37 takes 32, 22 and 12 by 37x28x17x8 (landing on 28, 17, 8).
        let pos = fen("W:W37:B32,22,12");
        let legal = pos.legal_moves();
        assert_eq!(legal.len(), 1);
        let mv = legal[0];
        assert_eq!(to_hub(&mv), "37x8x12x22x32");
        assert_eq!(mv.path().collect::<Vec<_>>(), [sq(28), sq(17)]);
        assert_eq!(to_pdn(&pos, &mv), "37x8");
        for text in ["37x8", "37x28x17x8", "37x28x8", "37x17x8", "37x8x22x12x32"] {
            assert_eq!(parse_move(&pos, text), Ok(mv), "{text}");
        }
        assert_eq!(parse_pdn(&pos, "37x28x17x8"), Ok(mv));
        // A landing square out of order, or one not on the route.
        assert!(matches!(parse_pdn(&pos, "37x17x28x8"), Err(NotationError::Illegal { .. })));
        assert!(matches!(parse_pdn(&pos, "37x27x8"), Err(NotationError::Illegal { .. })));
        // Read as PDN, a Hub text names landing squares that are no route.
        assert!(matches!(parse_pdn(&pos, "37x8x12x22x32"), Err(NotationError::Illegal { .. })));
    }

    #[test]
    fn twins_are_written_with_their_route() {
        // The man on 20 takes four pieces ending on 16 in two ways: 11, 12, 13, 14 along the top
        // rows, or 24, 23, 12, 11 down and back up.
        let pos = fen("W:W20:B1,11-14,23,24");
        let twins: Vec<Move> =
            pos.legal_moves().into_iter().filter(|m| m.from() == sq(20) && m.to() == sq(16)).collect();
        assert_eq!(twins.len(), 2);
        let texts: Vec<String> = twins.iter().map(|m| to_pdn(&pos, m)).collect();
        assert_eq!(texts, ["20x9x18x7x16", "20x29x18x7x16"]);
        for (mv, text) in twins.iter().zip(&texts) {
            assert_eq!(parse_pdn(&pos, text).as_ref(), Ok(mv));
        }
        let other = pos.legal_moves().into_iter().find(|m| m.to() == sq(20)).expect("the loop");
        assert_eq!(to_pdn(&pos, &other), "20x20");
        match parse_pdn(&pos, "20x16") {
            Err(NotationError::Ambiguous { text, candidates }) => {
                assert_eq!(text, "20x16");
                assert_eq!(candidates, twins);
            }
            other => panic!("20x16 should be ambiguous, got {other:?}"),
        }
        let err = parse_pdn(&pos, "20x16").expect_err("ambiguous");
        assert!(err.to_string().contains("ambiguous"), "{err}");
        // One landing square that only one of the routes visits is enough to read.
        let top = twins.iter().find(|m| m.captured().any(|s| s == sq(14))).expect("top route");
        assert_eq!(parse_pdn(&pos, "20x9x16"), Ok(*top));
        assert!(matches!(parse_pdn(&pos, "20x18x16"), Err(NotationError::Ambiguous { .. })));
        check_position(&pos);
    }

    #[test]
    fn king_twins() {
        // A king with two four-piece captures from 34 to 35 (found by random search).
        let pos = fen("W:WK34:B1,22,28,29,38,40");
        let twins: Vec<Move> =
            pos.legal_moves().into_iter().filter(|m| m.from() == sq(34) && m.to() == sq(35)).collect();
        assert_eq!(twins.len(), 2);
        assert!(matches!(parse_pdn(&pos, "34x35"), Err(NotationError::Ambiguous { .. })));
        assert!(check_position(&pos) >= 2);
    }

    #[test]
    fn random_games_round_trip() {
        // Random games from the start rarely need a route; the point is the round trip.
        random_games(&Position::startpos(), 40, 0x9e37_79b9_7f4a_7c15);
    }

    #[test]
    fn king_positions_round_trip() {
        let kings = "W:WK31,K32,K33,K34,K35,K36,K37,K38,K39,K40,K41,K42,K43,K44,K45,K46,K47,K48,K49,K50:\
                     BK1,K2,K3,K4,K5,K6,K7,K8,K9,K10,K11,K12,K13,K14,K15,K16,K17,K18,K19,K20";
        let mut routed = 0;
        for (start, seed) in [
            (kings, 1),
            ("B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46", 2),
            ("W:WK26:B17,18,20,32,38,39", 3),
            ("W:WK9,K19:B13,18,20,21,31,32,40", 4),
            ("W:WK5,K7,K36:B4,22,30-32,38,41", 5),
        ] {
            routed += random_games(&fen(start), 4, seed);
        }
        assert!(routed > 0, "no position needed a route: the test lost its teeth");
    }

    #[test]
    fn parse_move_reads_either() {
        // `a x b x c`: Hub here (one piece taken), and no PDN route since that would take two.
        let pos = fen("W:W28,38:B23");
        assert_eq!(parse_move(&pos, "28x19x23").map(|m| m.capture_count()), Ok(1));
        let pos = fen("W:W37:B32,22,12");
        assert_eq!(parse_move(&pos, "37x28x17x8").map(|m| m.to()), Ok(sq(8)));
        assert_eq!(parse_move(&pos, "37x8x32x22x12").map(|m| m.to()), Ok(sq(8)));
    }

    #[test]
    fn garbage_is_an_error() {
        let pos = Position::startpos();
        let texts = [
            "",
            " ",
            "-",
            "x",
            "32",
            "32-",
            "-28",
            "32--28",
            "32-28-23",
            "32-28x",
            "32x",
            "x28",
            "0-5",
            "51-46",
            "32-280",
            "+32-28",
            "32-+28",
            "99999999999999999999-1",
            "３２-２８",
            "٣٢-٢٨",
            "32–28",
            "e2e4",
            "32-28!",
            "32 28",
            "3 2-28",
            "é",
            "🂡x🂡",
            "32\u{0}-28",
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        ];
        for text in texts {
            for result in [parse_pdn(&pos, text), parse_hub(&pos, text), parse_move(&pos, text)] {
                match result {
                    Err(NotationError::Syntax { text: t, .. }) => assert_eq!(t, text),
                    other => panic!("{text:?} gave {other:?}"),
                }
            }
        }
        let long = ["1"; 30].join("x");
        assert!(matches!(parse_move(&pos, &long), Err(NotationError::Syntax { .. })));
        let err = parse_pdn(&pos, "32-28-23").expect_err("syntax");
        assert_eq!(err.text(), "32-28-23");
        assert!(err.to_string().starts_with("\"32-28-23\" is not a move"), "{err}");
        // Well formed but not moves here.
        for text in ["1-50", "32x28", "33x22x28", "1x2x3x4x5x6x7x8x9x10x11x12x13x14x15x16x17x18x19x20x21x22"] {
            assert!(matches!(parse_move(&pos, text), Err(NotationError::Illegal { .. })), "{text}");
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let pos = fen("W:WK34:B1,22,28,29,38,40");
        let mut rng = XorShift(7);
        let alphabet = ['1', '2', '3', '4', '5', '0', '9', 'x', 'X', '-', ' ', 'é', '€', '𝄞'];
        for _ in 0..20_000 {
            let len = rng.below(16);
            let text: String = (0..len).map(|_| alphabet[rng.below(alphabet.len())]).collect();
            for result in [parse_pdn(&pos, &text), parse_hub(&pos, &text), parse_move(&pos, &text)] {
                match result {
                    Ok(mv) => assert!(pos.is_legal(&mv), "{text}"),
                    Err(e) => assert_eq!(e.text(), text),
                }
            }
        }
    }
}
