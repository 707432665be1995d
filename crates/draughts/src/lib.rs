//! Exact and fast international draughts (10x10, FMJD rules) for qizero.
//!
//! - [`Position`]: men and kings on the 50 squares; legal move generation with the majority
//!   capture rule ([`Position::legal_moves`], see the `movegen` module docs for the rules
//!   exactly), make/unmake with an incremental Zobrist key.
//! - [`Move`]: origin, destination, captured set and route.
//! - [`notation`]: PDN (`32-28`, `19x30`, the route only where needed) and Hub (`28x19x23`).
//! - [`Game`]: a position with its history and the FMJD rules that end a game (see [`rules`]
//!   for exactly how each is counted). It implements [`game::Game`].
//! - [`perft`]: leaf counts for checking the generator, split by root move with [`divide`]
//!   or, on a thread pool of a given size, [`divide_parallel`].

mod bitboard;
mod fen;
mod movegen;
mod moves;
pub mod notation;
mod perft;
mod position;
pub mod rules;
mod types;

pub use fen::{FenError, START_FEN};
pub use movegen::{MAX_MOVES, MoveList};
pub use moves::{MAX_CAPTURES, Move};
pub use perft::{divide, divide_parallel, perft};
pub use position::{Position, Undo};
pub use rules::{Game, GameError};
pub use types::{Color, Kind, Piece, SQUARES, Square};
