//! Measuring strength: players behind one interface, games and matches.

pub mod game;
pub mod matches;
pub mod player;

pub use game::{play_game, GameResult};
pub use matches::{play_match, MatchGame, Wdl};
pub use player::{MctsPlayer, Player, RandomPlayer};
