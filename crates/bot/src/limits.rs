//! How long one decision may search, and how strong the bot plays.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use search::SearchLimit;

use crate::error::BotError;

/// Bounds of one search, as a frontend states them (a UCI `go`): the
/// move's [`SearchLimit`] comes from these ([`Limits::search_limit`]), the
/// time counted from the start of the decision. The search stops at the
/// first bound reached; at least one bound must be given (or
/// [`Strength::max_nodes`] set).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Root visits (the node count; a network evaluation or a terminal
    /// scoring each) for the whole move: a Loki move of several actions
    /// shares it between them ([`crate::GameBot::choose_move`]).
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

    /// The search limit of a decision started at `started`: the node
    /// bound is the smaller of `nodes` and `max_nodes` (a strength cap;
    /// at least 1), the deadline `started + time`, the same stop flag.
    ///
    /// # Errors
    /// [`BotError::Setting`] when no bound is given at all.
    pub fn search_limit(
        &self,
        started: Instant,
        max_nodes: Option<u32>,
    ) -> Result<SearchLimit, BotError> {
        let nodes = match (self.nodes, max_nodes) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if nodes.is_none() && self.time.is_none() && self.stop.is_none() {
            return Err(BotError::Setting(
                "no search limit: give nodes, a time or a stop flag".into(),
            ));
        }
        Ok(SearchLimit {
            nodes: nodes.map_or(SearchLimit::NO_NODE_LIMIT, |n| n.max(1)),
            deadline: self.time.map(|t| started + t),
            stop: self.stop.clone(),
        })
    }
}

/// Playing strength: how a frontend offers a weaker sparring partner.
#[derive(Clone, Debug, PartialEq)]
pub struct Strength {
    /// Cap on root visits per move (all actions of a Loki move
    /// together), whatever the [`Limits`] say (`None` = no cap).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_limit_caps_nodes_and_needs_a_bound() {
        let started = Instant::now();
        let capped = Limits::nodes(400).search_limit(started, Some(50)).unwrap();
        assert_eq!((capped.nodes, capped.deadline), (50, None));
        let timed = Limits::time(Duration::from_millis(250));
        let limit = timed.search_limit(started, None).unwrap();
        assert_eq!(limit.nodes, SearchLimit::NO_NODE_LIMIT);
        assert_eq!(limit.deadline, Some(started + Duration::from_millis(250)));
        let cap_only = Limits::default().search_limit(started, Some(0)).unwrap();
        assert_eq!(cap_only.nodes, 1, "at least one node");
        let stop = Limits {
            stop: Some(Arc::new(AtomicBool::new(false))),
            ..Limits::default()
        };
        assert!(stop.search_limit(started, None).unwrap().is_bounded());
        assert!(Limits::default().search_limit(started, None).is_err());
    }
}
