//! Measuring strength: players behind one interface (bundles with search,
//! random, greedy, pure UCT, external UCI engines, the Copenhagen engine
//! `hnefatafl-text-protocol`), games and matches with
//! varied openings, Elo with 95 % intervals, SPRT, Bradley–Terry ladders
//! with a chart, and the per-generation evaluation hook for training.
//!
//! A game between two players and an Elo estimate from a match score:
//! ```
//! use arena::{play_game, EloEstimate, Opening, RandomPlayer, WdlCounts};
//! use rules::{Game, Losers};
//!
//! let opening = Opening::at(Losers::start());
//! let result = play_game(&opening, &mut RandomPlayer::new(1), &mut RandomPlayer::new(2), 300, None);
//! assert!(result.forfeit.is_none() && !result.actions.is_empty());
//! // +32 =8 -20 is a score of 60 %, about +70 Elo.
//! let elo = EloEstimate::from_wdl(&WdlCounts { wins: 32, draws: 8, losses: 20 });
//! assert!((elo.score - 0.6).abs() < 1e-9);
//! assert!(elo.lower < elo.elo && elo.elo < elo.upper);
//! ```

pub mod bradley_terry;
pub mod chart;
pub mod clock;
pub mod elo;
pub mod evaluate;
pub mod fairy_stockfish;
pub mod greedy;
pub mod htp_client;
pub mod journal;
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
