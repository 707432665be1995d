//! What the arena needs from a game beyond [`alphabeta::SearchGame`]: colour names and record
//! notation, the shipped openings and book, and which engine protocol plays it. Implemented here
//! for both games, so the match runner and the records stay generic.

use crate::agent::{Agent, AgentError};
use crate::engine_agent::EngineAgent;
use crate::spec::{AgentKind, AgentSpec};
use alphabeta::SearchGame;
use alphabeta::book::Book;
use game::Side;
use std::time::Duration;

/// A game the arena can run matches in.
pub trait ArenaGame: SearchGame {
    /// What the records call the two sides, first mover first.
    const SIDE_NAMES: [&'static str; 2];
    /// File extension of a game record: `pgn` (xiangqi) or `pdn` (draughts).
    const RECORD_EXTENSION: &'static str;
    /// The shipped openings file (`data/openings/<game>.txt`), compiled in.
    const SHIPPED_OPENINGS: &'static str;

    /// The shipped alpha-beta opening book.
    fn shipped_book() -> Book<Self>;

    /// An external engine agent for this game (UCI for xiangqi, Hub for draughts).
    ///
    /// # Errors
    /// [`AgentError::WrongGame`] for the other protocol; the engine's start-up errors.
    fn engine_agent(spec: &AgentSpec, movetime: Duration) -> Result<Box<dyn Agent<Self>>, AgentError>;

    /// `mv` (legal here) as a game record writes it: WXF for xiangqi, PDN for draughts.
    fn record_move(&self, mv: Self::Move) -> String;

    /// The result as the record writes it: `1-0` / `0-1` / `1/2-1/2` for xiangqi, `2-0` / `0-2` /
    /// `1-1` (the FMJD form) for draughts.
    fn result_text(winner: Option<Side>) -> &'static str;

    /// Extra header tags of a record (notation, game type).
    fn extra_tags() -> &'static [(&'static str, &'static str)];

    /// The number of the first move in a record starting at `fen` (the FEN's move counter if
    /// it has one, else 1).
    fn first_move_number(fen: &str) -> u32;
}

impl ArenaGame for xiangqi::Game {
    const SIDE_NAMES: [&'static str; 2] = ["Red", "Black"];
    const RECORD_EXTENSION: &'static str = "pgn";
    const SHIPPED_OPENINGS: &'static str = include_str!("../../../data/openings/xiangqi.txt");

    fn shipped_book() -> Book<Self> {
        alphabeta::book::xiangqi()
    }

    fn engine_agent(spec: &AgentSpec, movetime: Duration) -> Result<Box<dyn Agent<Self>>, AgentError> {
        match &spec.kind {
            AgentKind::Uci(e) => Ok(Box::new(EngineAgent::<Self, engine::uci::UciClient>::new(e, movetime)?)),
            _ => Err(AgentError::WrongGame { spec: spec.text.clone(), game: "xiangqi" }),
        }
    }

    fn record_move(&self, mv: xiangqi::Move) -> String {
        xiangqi::notation::to_wxf(self.position(), mv)
    }

    fn result_text(winner: Option<Side>) -> &'static str {
        match winner {
            Some(Side::First) => "1-0",
            Some(Side::Second) => "0-1",
            None => "1/2-1/2",
        }
    }

    fn extra_tags() -> &'static [(&'static str, &'static str)] {
        &[("Format", "WXF")]
    }

    fn first_move_number(fen: &str) -> u32 {
        fen.split_whitespace().nth(5).and_then(|n| n.parse().ok()).filter(|&n| n > 0).unwrap_or(1)
    }
}

impl ArenaGame for draughts::Game {
    const SIDE_NAMES: [&'static str; 2] = ["White", "Black"];
    const RECORD_EXTENSION: &'static str = "pdn";
    const SHIPPED_OPENINGS: &'static str = include_str!("../../../data/openings/draughts.txt");

    fn shipped_book() -> Book<Self> {
        alphabeta::book::draughts()
    }

    fn engine_agent(spec: &AgentSpec, movetime: Duration) -> Result<Box<dyn Agent<Self>>, AgentError> {
        match &spec.kind {
            AgentKind::Hub(e) => Ok(Box::new(EngineAgent::<Self, engine::hub::HubClient>::new(e, movetime)?)),
            _ => Err(AgentError::WrongGame { spec: spec.text.clone(), game: "draughts" }),
        }
    }

    fn record_move(&self, mv: draughts::Move) -> String {
        draughts::notation::to_pdn(self.position(), &mv)
    }

    fn result_text(winner: Option<Side>) -> &'static str {
        match winner {
            Some(Side::First) => "2-0",
            Some(Side::Second) => "0-2",
            None => "1-1",
        }
    }

    fn extra_tags() -> &'static [(&'static str, &'static str)] {
        // PDN's code for international draughts on 10x10.
        &[("GameType", "20")]
    }

    fn first_move_number(_fen: &str) -> u32 {
        1
    }
}
