//! The bot's playing levels (`"level"` of `POST /api/games/{id}/bot`):
//! a default node budget and a [`bot::Strength`] each.

use bot::Strength;
use serde::Serialize;

use crate::error::ApiError;

/// A named playing level.
#[derive(Clone, Debug, Serialize)]
pub struct Level {
    /// The name a request uses.
    pub name: &'static str,
    /// Node budget when the request gives neither nodes nor a time
    /// (`None`: policy-only play, one network call per action).
    pub nodes: Option<u32>,
    /// What the level does, for the page's menu.
    pub about: &'static str,
    /// Move-choice temperature (0 = the most visited move).
    #[serde(skip)]
    pub temperature: f32,
}

/// The levels, weakest first.
pub const LEVELS: [Level; 4] = [
    Level {
        name: "novice",
        nodes: None,
        about: "the network's first instinct, sampled (no search)",
        temperature: 1.0,
    },
    Level {
        name: "casual",
        nodes: Some(32),
        about: "32 nodes, moves sampled by visits",
        temperature: 0.5,
    },
    Level {
        name: "club",
        nodes: Some(200),
        about: "200 nodes, the setting of the shipped bundles' promotion matches",
        temperature: 0.0,
    },
    Level {
        name: "strong",
        nodes: Some(1600),
        about: "1600 nodes",
        temperature: 0.0,
    },
];

/// The level used when a request names none.
pub const DEFAULT_LEVEL: &str = "club";

impl Level {
    /// The level called `name`.
    ///
    /// # Errors
    /// [`ApiError::Invalid`] listing the levels.
    pub fn named(name: &str) -> Result<&'static Level, ApiError> {
        LEVELS.iter().find(|l| l.name == name).ok_or_else(|| {
            let names: Vec<&str> = LEVELS.iter().map(|l| l.name).collect();
            ApiError::Invalid(format!(
                "unknown level {name:?} (expected one of: {})",
                names.join(", ")
            ))
        })
    }

    /// The bot strength of this level.
    pub fn strength(&self) -> Strength {
        Strength {
            max_nodes: None,
            temperature: self.temperature,
            policy_only: self.nodes.is_none(),
        }
    }
}
