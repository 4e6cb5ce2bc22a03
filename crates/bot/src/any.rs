//! [`Bot`]: a [`GameBot`] of whichever variant a bundle was made for.

use std::path::Path;

use burn::tensor::Device;
use model::bundle::peek_variant;
use model::BundleMeta;
use rules::{Game, Outcome, Player, VariantId};

use crate::analysis::{Analysis, SearchInfo};
use crate::error::BotError;
use crate::game_bot::{parse_position, GameBot, MoveChoice};
use crate::limits::Strength;
use search::Budget;

/// The `Bot` enum, its `From<GameBot<_>>` impls and the `each!` macro
/// (`each!(bot, b => body)`: `body` with `b` bound to the inner
/// `GameBot` of whichever variant), from the variant list
/// (`rules::for_each_variant!`). `$d` is a `$` token, for the inner macro.
macro_rules! bot_enum {
    (($d:tt) $($(#[$doc:meta])* $name:ident = $id:literal, $ty:ty;)*) => {
        /// A bot of any variant, chosen at run time from a bundle's `model.json`.
        pub enum Bot {
            $($(#[$doc])* $name(GameBot<$ty>),)*
        }

        $(impl From<GameBot<$ty>> for Bot {
            fn from(bot: GameBot<$ty>) -> Bot {
                Bot::$name(bot)
            }
        })*

        macro_rules! each {
            ($d bot:expr, $d b:ident => $d body:expr) => {
                match $d bot {
                    $(Bot::$name($d b) => $d body,)*
                }
            };
        }
    };
}
rules::for_each_variant!(bot_enum! { ($) });

impl Bot {
    /// Load the bundle at `dir` onto `device`; the variant comes from its
    /// `model.json` (through `rules::with_variant!`).
    ///
    /// # Errors
    /// [`BotError::Bundle`] for a missing, unreadable or unfitting bundle.
    pub fn load(dir: &Path, device: &Device) -> Result<Bot, BotError> {
        let variant = peek_variant(dir)?;
        rules::with_variant!(variant, G => Ok(Bot::from(GameBot::<G>::from_bundle(dir, device)?)))
    }

    /// [`Bot::load`], requiring the bundle to be for `variant`.
    ///
    /// # Errors
    /// [`BotError::WrongVariant`] naming both variants, or as [`Bot::load`].
    pub fn load_for(variant: VariantId, dir: &Path, device: &Device) -> Result<Bot, BotError> {
        let found = peek_variant(dir)?;
        if found != variant {
            return Err(BotError::WrongVariant {
                path: dir.to_path_buf(),
                found,
                wanted: variant,
            });
        }
        Bot::load(dir, device)
    }

    /// The variant this bot plays.
    pub fn variant(&self) -> VariantId {
        each!(self, b => variant_of(b))
    }

    /// The bundle's metadata (`None` only for a bot not made from a
    /// bundle, which [`Bot::load`] never returns).
    pub fn meta(&self) -> Option<&BundleMeta> {
        each!(self, b => b.meta())
    }

    /// Keep the search tree from one move to the next (see
    /// [`GameBot::set_tree_reuse`]; on by default).
    pub fn set_tree_reuse(&mut self, on: bool) {
        each!(self, b => b.set_tree_reuse(on))
    }

    /// Cut the kept tree down to the subtree after the last move (see
    /// [`GameBot::settle_tree`]): call it once the move is answered.
    pub fn settle_tree(&mut self) {
        each!(self, b => b.settle_tree())
    }

    /// Bytes of the search tree kept from the last search (see
    /// [`GameBot::kept_tree_bytes`]).
    pub fn kept_tree_bytes(&self) -> Option<u64> {
        each!(self, b => b.kept_tree_bytes())
    }

    /// Overlap the network's evaluation with the tree work (see
    /// [`GameBot::set_pipeline`]; off by default).
    pub fn set_pipeline(&mut self, on: bool) {
        each!(self, b => b.set_pipeline(on))
    }

    /// Mix random playouts into the leaf values (see
    /// [`GameBot::set_rollout_mix`]).
    ///
    /// # Errors
    /// [`BotError::Setting`] for a weight outside `[0, 1]`.
    pub fn set_rollout_mix(&mut self, lambda: f32, seed: u64) -> Result<(), BotError> {
        each!(self, b => b.set_rollout_mix(lambda, seed))
    }

    /// Run the network in `precision` (see [`GameBot::set_precision`]);
    /// returns the precision in effect.
    pub fn set_precision(&mut self, precision: model::Precision) -> model::Precision {
        each!(self, b => b.set_precision(precision))
    }

    /// Set the current position: `position` text (`None` or `"startpos"` =
    /// the start) and move tokens in `docs/rules.md` notation (standard
    /// FEN / UCI moves for the chess variants; a Loki token may be several
    /// actions). On error the position is unchanged.
    ///
    /// # Errors
    /// [`BotError::Position`] or [`BotError::Move`] naming the problem.
    pub fn set_position<S: AsRef<str>>(
        &mut self,
        position: Option<&str>,
        moves: &[S],
    ) -> Result<(), BotError> {
        each!(self, b => b.set_position(position, moves))
    }

    /// The current position text.
    pub fn position_text(&self) -> String {
        each!(self, b => b.game().to_text())
    }

    /// The side to move in the current position.
    pub fn side_to_move(&self) -> Player {
        each!(self, b => b.game().side_to_move())
    }

    /// The result if the game is over in the current position.
    pub fn outcome(&self) -> Option<Outcome> {
        each!(self, b => b.game().outcome())
    }

    /// Texts of the legal atomic actions of the current position.
    pub fn legal_actions(&self) -> Vec<String> {
        each!(self, b => {
            let g = b.game();
            g.legal_vec().into_iter().map(|a| g.action_to_text(a)).collect()
        })
    }

    /// The playing strength.
    pub fn strength(&self) -> &Strength {
        each!(self, b => b.strength())
    }

    /// Change the playing strength.
    ///
    /// # Errors
    /// [`BotError::Setting`] for an out-of-range value.
    pub fn set_strength(&mut self, strength: Strength) -> Result<(), BotError> {
        each!(self, b => b.set_strength(strength))
    }

    /// Change the search settings (see [`GameBot::set_search_config`]).
    ///
    /// # Errors
    /// [`BotError::Setting`] for an out-of-range value.
    pub fn set_search_config(&mut self, config: search::SearchConfig) -> Result<(), BotError> {
        each!(self, b => b.set_search_config(config.clone()))
    }

    /// Reseed temperature sampling.
    pub fn set_seed(&mut self, seed: u64) {
        each!(self, b => b.set_seed(seed))
    }

    /// Choose a move in the current position (see [`GameBot::choose_move`]).
    ///
    /// # Errors
    /// As [`GameBot::choose_move`].
    pub fn choose_move(
        &mut self,
        budget: &Budget,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Result<MoveChoice, BotError> {
        each!(self, b => b.choose_move(budget, on_info))
    }

    /// Analyse the current position (see [`GameBot::analyse`]).
    ///
    /// # Errors
    /// As [`GameBot::analyse`].
    pub fn analyse(&mut self, budget: &Budget, top: usize) -> Result<Analysis, BotError> {
        each!(self, b => b.analyse(budget, top))
    }
}

fn variant_of<G: crate::move_text::BotGame>(_: &GameBot<G>) -> VariantId {
    G::VARIANT
}

/// Check a position and move list for `variant` with the rules alone (no
/// bundle needed); see [`parse_position`].
///
/// # Errors
/// As [`parse_position`].
pub fn validate_position<S: AsRef<str>>(
    variant: VariantId,
    position: Option<&str>,
    moves: &[S],
) -> Result<(), BotError> {
    rules::with_variant!(variant, G => parse_position::<G, S>(position, moves).map(|_| ()))
}
