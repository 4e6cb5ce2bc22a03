//! How long one decision may search, and how strong the bot plays.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use crate::error::BotError;

/// Bounds of one search. The search stops at the first bound reached; at
/// least one bound must be given (or [`Strength::max_nodes`] set).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Root visits (the node count; a network evaluation or a terminal
    /// scoring each).
    pub nodes: Option<u32>,
    /// Wall time for the whole move. The clock is checked between network
    /// batches, and a batch is not started when the previous batch's
    /// duration would overrun the time.
    pub time: Option<Duration>,
    /// Set to `true` from another thread to stop (UCI `stop`).
    pub stop: Option<Arc<AtomicBool>>,
}

impl Limits {
    /// A node budget only.
    pub fn nodes(nodes: u32) -> Self {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// A time budget only.
    pub fn time(time: Duration) -> Self {
        Limits {
            time: Some(time),
            ..Limits::default()
        }
    }
}

/// Playing strength: how a frontend offers a weaker sparring partner.
#[derive(Clone, Debug, PartialEq)]
pub struct Strength {
    /// Cap on root visits per decision, whatever the [`Limits`] say
    /// (`None` = no cap).
    pub max_nodes: Option<u32>,
    /// Move choice temperature: 0 plays the most visited action (or the
    /// highest prior in policy-only play); `t > 0` samples with
    /// probability proportional to `N(a)^(1/t)` (visits; AlphaZero, Silver
    /// et al. 2018) or `P(a)^(1/t)` (policy-only). `>= 0`, finite.
    pub temperature: f32,
    /// Play from the network's policy alone, without search (the weakest
    /// and fastest level: one network evaluation per action).
    pub policy_only: bool,
}

impl Default for Strength {
    /// Full strength: no cap, temperature 0, search.
    fn default() -> Self {
        Strength {
            max_nodes: None,
            temperature: 0.0,
            policy_only: false,
        }
    }
}

impl Strength {
    /// Check the temperature is finite and `>= 0` and the cap `>= 1`.
    ///
    /// # Errors
    /// [`BotError::Setting`] naming the field.
    pub fn validate(&self) -> Result<(), BotError> {
        if !(self.temperature.is_finite() && self.temperature >= 0.0) {
            return Err(BotError::Setting(format!(
                "temperature {} is out of range (expected a finite value >= 0)",
                self.temperature
            )));
        }
        if self.max_nodes == Some(0) {
            return Err(BotError::Setting(
                "max_nodes 0 is out of range (expected >= 1, or no cap)".into(),
            ));
        }
        Ok(())
    }
}
