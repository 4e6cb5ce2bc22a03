//! Self-play: workers that play many games at once with batched network
//! evaluation, the game records they produce, and the replay buffer.
//!
//! Source layout: `config` (the `[selfplay]` settings and their checks),
//! `driver` ([`play_games`]: the games in flight and the batched steps),
//! `slot` (one game in flight and its move's search), `advance` (playing
//! a searched move), `adjudicate` (results at the ply cap), `stats`,
//! `parallel` ([`play_games_parallel`]: the worker threads); `resign`,
//! `record`, `replay` and `timed` as their names say.
//!
//! Two self-play games of Losers chess with a uniform evaluator (no network):
//! ```
//! use rules::{Game, Losers};
//! use search::{SearchConfig, UniformEvaluator};
//! use selfplay::{play_games, Games, SelfPlayConfig};
//!
//! let config = SelfPlayConfig { simulations: 8, ply_cap: 20, ..SelfPlayConfig::default() };
//! let games = Games {
//!     start: &Losers::start(),
//!     branch_starts: &[],
//!     search: &SearchConfig::default(),
//!     config: &config,
//!     count: 2,
//!     seed: 1,
//! };
//! let mut records = Vec::new();
//! let stats = play_games(&games, &mut UniformEvaluator, |record| records.push(record));
//! assert_eq!(stats.games, 2);
//! assert!(records.iter().all(|r| !r.actions.is_empty() && r.actions.len() <= 20));
//! ```

mod adjudicate;
mod advance;
mod config;
mod driver;
mod games;
mod parallel;
pub mod record;
pub mod replay;
pub mod resign;
mod slot;
mod stats;
pub mod timed;

#[cfg(test)]
mod tests;

pub use adjudicate::adjudicate;
pub use config::{PlyCapWinner, SelfPlayConfig};
pub use driver::play_games;
pub use games::Games;
pub use parallel::play_games_parallel;
pub use record::{GameRecord, RecordError, SearchTarget};
pub use replay::{load_window, read_chunk, write_chunk, Chunk, ReplayError};
pub use stats::SelfPlayStats;
