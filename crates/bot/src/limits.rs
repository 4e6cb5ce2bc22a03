//! How strong the bot plays (how long it thinks is a [`search::Budget`]).

use crate::error::BotError;

/// Playing strength: how a frontend offers a weaker sparring partner.
#[derive(Clone, Debug, PartialEq)]
pub struct Strength {
    /// Cap on the node budget of a move (all actions of a Loki move
    /// together), whatever the [`search::Budget`] says (`None` = no cap).
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
