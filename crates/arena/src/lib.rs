//! Measuring strength: players behind one interface (bundles with search,
//! random, greedy, pure UCT, external UCI engines), games and matches with
//! varied openings, Elo with 95 % intervals, SPRT, Bradley–Terry ladders
//! with a chart, and the per-generation evaluation hook for training.

pub mod bradley_terry;
pub mod chart;
pub mod clock;
pub mod elo;
pub mod evaluate;
pub mod fairy_stockfish;
pub mod greedy;
pub mod ladder;
pub mod matches;
pub mod opening;
pub mod player;
pub mod records;
pub mod single_game;
pub mod spec;
pub mod sprt;
pub mod uci_client;
pub mod wdl;

pub use clock::{GameClock, TimeControl};
pub use elo::EloEstimate;
pub use greedy::{GreedyPlayer, Heuristic};
pub use matches::{run_match, tally_by_side, MatchGame, MatchReport, MatchSettings};
pub use opening::{opening_seed, random_opening, random_opening_from, Opening};
pub use player::{Contestant, RandomPlayer, SearchPlayer};
pub use single_game::{play_game, Forfeit, GameResult};
pub use spec::{PlayerFactory, PlayerSpec};
pub use sprt::{SprtConfig, SprtDecision, SprtState};
pub use uci_client::{UciConfig, UciEngine, UciError, UciPlayer};
pub use wdl::WdlCounts;
