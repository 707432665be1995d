//! Exact and fast international draughts (10x10, FMJD rules) for qizero.
//!
//! - [`Position`]: men and kings on the 50 squares; legal move generation with the majority
//!   capture rule ([`Position::legal_moves`], see the `movegen` module docs for the rules
//!   exactly), make/unmake with an incremental Zobrist key.
//! - [`Move`]: origin, destination, captured set and route.
//! - [`perft`]: leaf counts for checking the generator.

mod bitboard;
mod fen;
mod movegen;
mod moves;
mod perft;
mod position;
mod types;

pub use fen::{FenError, START_FEN};
pub use movegen::{MAX_MOVES, MoveList};
pub use moves::{MAX_CAPTURES, Move};
pub use perft::{divide, perft};
pub use position::{Position, Undo};
pub use types::{Color, Kind, Piece, SQUARES, Square};
