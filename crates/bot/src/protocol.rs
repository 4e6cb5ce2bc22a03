//! The JSON request and answer of one analysis, shared by the two
//! frontends that speak it: `lokizero analyse` (JSON lines on stdin/stdout)
//! and the web lab's `POST /api/analyse` (`crates/serve`).
//!
//! A request:
//!
//! ```json
//! {"id": "a1", "variant": "losers", "position": "startpos", "moves": ["e2e3"], "nodes": 400, "top": 5, "bundle": "models/losers"}
//! ```
//!
//! `id` (any JSON value) is echoed; `position` defaults to the start,
//! `moves` to none, `nodes` to [`DEFAULT_NODES`], `top` to [`DEFAULT_TOP`]
//! (0 = all). The answer ([`answer`]):
//!
//! ```json
//! {"id": "a1", "variant": "losers", "position": "<text>", "actions": [{"action","visits","prior","q","wdl","pv"}], "root": {"wdl": [w, d, l], "visits": 400}, "time_ms": 812}
//! ```
//!
//! Values are from the side to move's view; a finished game adds
//! `"outcome"` ([`outcome_json`]).

use std::path::PathBuf;

use rules::{Outcome, Player, VariantId};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::analysis::Analysis;
use crate::any::Bot;
use crate::error::BotError;

/// Nodes searched when a request names none.
pub const DEFAULT_NODES: u32 = 200;
/// Root actions reported when a request names no `top`.
pub const DEFAULT_TOP: usize = 5;

/// One analysis request. Unknown fields are refused, so a typo is an
/// error naming the field rather than a silently ignored option.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyseRequest {
    /// Echoed in the answer (any JSON value).
    #[serde(default)]
    pub id: Value,
    /// Variant id; may be left out where the frontend can read it from
    /// `bundle`.
    pub variant: Option<String>,
    /// Position text (`None` or `"startpos"` = the start).
    pub position: Option<String>,
    /// Move tokens played from `position`.
    #[serde(default)]
    pub moves: Vec<String>,
    /// Node budget (root visits).
    pub nodes: Option<u32>,
    /// Root actions to report (0 = all).
    pub top: Option<usize>,
    /// Bundle folder (frontends may refuse it: the web service serves only
    /// its own bundles).
    pub bundle: Option<PathBuf>,
}

impl AnalyseRequest {
    /// The variant named by `variant`, if any.
    ///
    /// # Errors
    /// [`BotError::Setting`] naming an unknown variant id.
    pub fn variant_id(&self) -> Result<Option<VariantId>, BotError> {
        self.variant
            .as_deref()
            .map(|v| {
                v.parse()
                    .map_err(|e: rules::variant::UnknownVariant| BotError::Setting(e.to_string()))
            })
            .transpose()
    }

    /// The node budget: `nodes`, checked against `1..=max`; without
    /// `nodes`, [`DEFAULT_NODES`] capped at `max` (a service with a low
    /// cap still answers requests that name no budget).
    ///
    /// # Errors
    /// [`BotError::Setting`] naming the budget and the allowed range.
    pub fn node_budget(&self, max: u32) -> Result<u32, BotError> {
        let nodes = self.nodes.unwrap_or(DEFAULT_NODES.min(max));
        if nodes == 0 || nodes > max {
            return Err(BotError::Setting(format!(
                "nodes must be in 1..={max}, got {nodes}"
            )));
        }
        Ok(nodes)
    }

    /// Root actions to report.
    pub fn top(&self) -> usize {
        self.top.unwrap_or(DEFAULT_TOP)
    }
}

/// The answer to request `id`: `bot`'s current position and `analysis` of it.
pub fn answer(id: &Value, bot: &Bot, analysis: &Analysis) -> Value {
    let mut response = json!({
        "id": id,
        "variant": bot.variant().as_str(),
        "position": bot.position_text(),
        "actions": analysis.actions,
        "root": analysis.root,
        "time_ms": analysis.time_ms,
    });
    if let Some(outcome) = bot.outcome() {
        response["outcome"] = outcome_json(&outcome);
    }
    response
}

/// `{"winner": "first" | "second" | null, "reason": "<EndReason>"}`.
pub fn outcome_json(outcome: &Outcome) -> Value {
    json!({
        "winner": outcome.winner.map(player_name),
        "reason": format!("{:?}", outcome.reason),
    })
}

/// `"first"` or `"second"`, as the JSON protocols name a side.
pub fn player_name(player: Player) -> &'static str {
    match player {
        Player::First => "first",
        Player::Second => "second",
    }
}
