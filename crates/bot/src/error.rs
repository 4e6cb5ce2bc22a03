//! Errors of the bot API. Every message names what was wrong and, where
//! useful, how to fix it.

use std::path::PathBuf;

use rules::{ActionError, PositionError, VariantId};

/// Why a bot could not be loaded, positioned or asked for a move.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// The bundle could not be read or does not fit this build.
    #[error(transparent)]
    Bundle(#[from] model::BundleError),
    /// The bundle is for another variant than the one asked for.
    #[error("bundle {path} is for variant {found}, but variant {wanted} was asked for; point the bundle path at a {wanted} bundle or switch the variant to {found}")]
    WrongVariant {
        /// The bundle folder.
        path: PathBuf,
        /// The variant in its `model.json`.
        found: VariantId,
        /// The variant requested.
        wanted: VariantId,
    },
    /// No bundle exists where one was looked for.
    #[error(
        "no bundle for variant {variant} found (looked in: {tried}); set the bundle path, \
         or install one with `lokizero models install PATH`"
    )]
    NoBundle {
        /// The variant.
        variant: VariantId,
        /// The folders tried, comma separated.
        tried: String,
    },
    /// The position text does not parse.
    #[error("bad position: {0}")]
    Position(#[from] PositionError),
    /// A move token is malformed or illegal; `index` is its 0-based place in
    /// the move list.
    #[error("move {index} ({text:?}): {source}")]
    Move {
        /// 0-based index in the move list.
        index: usize,
        /// The token.
        text: String,
        /// What is wrong with it.
        source: ActionError,
    },
    /// The game is over in the current position: there is no move to choose.
    #[error("the game is over ({0}); there is no move to play")]
    GameOver(String),
    /// A setting is out of range (the message names it).
    #[error("{0}")]
    Setting(String),
    /// The network backend could not be set up.
    #[error("device: {0}")]
    Device(String),
}
