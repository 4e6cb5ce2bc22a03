//! Bots that frontends load: a shipped bundle plus search, behind one API
//! for every variant. `lokizero uci` and `lokizero analyse` are built on it.
//!
//! 1. [`Bot::load`] reads a bundle folder; the variant comes from its
//!    `model.json` ([`Bot::load_for`] also insists on a variant).
//! 2. [`Bot::set_position`] takes a position text (`docs/rules.md`
//!    notation; standard FEN for losers) and move tokens (UCI moves for the
//!    chess variants; a Loki token may be several atomic actions).
//! 3. [`Bot::analyse`] reports the best root actions with visits, prior,
//!    Q, WDL and principal variation; [`Bot::choose_move`] picks the move
//!    to play under a [`search::Budget`] (nodes, time, a stop flag).
//!
//! [`Strength`] makes a weaker sparring partner: a node cap, a move-choice
//! temperature (sampling from the visit distribution), or policy-only play
//! (no search).
//!
//! ```
//! use bot::{Bot, Strength};
//! use search::Budget;
//!
//! # fn main() -> Result<(), bot::BotError> {
//! let device = burn::tensor::Device::flex();
//! let mut bot = Bot::load("../../models/losers".as_ref(), &device)?;
//! bot.set_position(Some("startpos"), &["e2e3", "b7b5"])?;
//! let analysis = bot.analyse(&Budget::nodes(400), 3)?;
//! for a in &analysis.actions {
//!     println!("{} visits {} prior {:.3} q {:?} pv {:?}", a.action, a.visits, a.prior, a.q, a.pv);
//! }
//! bot.set_strength(Strength { temperature: 1.0, ..Strength::default() })?;
//! let choice = bot.choose_move(&Budget::nodes(200), &mut |_| {})?;
//! println!("bestmove {}", choice.mv);
//! # Ok(())
//! # }
//! ```

mod analysis;
mod any;
pub mod clock;
mod error;
mod game_bot;
mod limits;
mod move_text;
pub mod paths;
pub mod protocol;
pub mod uci_text;
mod untrained;

pub use analysis::{centipawns, wdl_permille, ActionInfo, Analysis, RootInfo, SearchInfo, MAX_CP};
pub use any::{validate_position, Bot};
pub use clock::Clock;
pub use error::BotError;
pub use game_bot::{
    describe_outcome, parse_position, same_position, GameBot, MoveChoice, NetPlayoutEvaluator,
    INFO_INTERVAL, MAX_PV, ROLLOUT_MAX_PLIES,
};
pub use limits::Strength;
pub use move_text::{moves_of_line, BotGame};
pub use untrained::write_untrained_bundle;
