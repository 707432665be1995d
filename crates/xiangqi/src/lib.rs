//! Exact and fast xiangqi (Chinese chess) rules for qizero.
//!
//! - [`Position`]: the raw position; legal move generation without heap allocation
//!   ([`Position::legal_moves`]), make/unmake with an incremental Zobrist key, check tests,
//!   FEN read/write ([`Position::from_fen`], [`FenError`]).
//! - [`notation`]: UCI coordinates (Pikafish ranks 0-9, Fairy-Stockfish ranks 1-10), WXF and
//!   Chinese move notation.
//! - [`Game`]: a position with its history, deciding the result by the rules (see [`rules`]
//!   for exactly which rules and how they are counted). It implements
//!   [`game::Game`], so search, MCTS, self-play and arena work on it unchanged.
//! - [`attacks`]: the attack tables behind move generation, for evaluations and other tools:
//!   what each piece kind reaches from a square given the occupancy.
//! - [`perft`]: leaf counts for checking the generator, split by root move with [`divide`]
//!   or, on a thread pool of a given size, [`divide_parallel`].

pub mod attacks;
mod bitboard;
pub mod chase;
mod fen;
mod movegen;
pub mod notation;
mod perft;
mod position;
pub mod rules;
mod types;
mod zobrist;

pub use bitboard::Bitboard;
pub use fen::{FenError, MAX_RULE_PLIES, START_FEN};
pub use movegen::{MAX_MOVES, MoveList};
pub use perft::{divide, divide_parallel, perft};
pub use position::{Position, Undo};
pub use rules::{Game, GameError, MOVE_RULE_PLIES};
pub use types::{Color, FILES, Kind, Move, Piece, RANKS, SQUARES, Square};
