//! Self-play: workers that play many games at once with batched network
//! evaluation, the game records they produce, and the replay buffer.

pub mod record;
pub mod replay;
pub mod resign;
pub mod timed;
pub mod worker;

pub use record::{GameRecord, SearchTarget};
pub use replay::{load_window, read_chunk, write_chunk, Chunk, ReplayError};
pub use worker::{
    adjudicate, play_games, play_games_parallel, PlyCapWinner, SelfPlayConfig, SelfPlayStats,
};
