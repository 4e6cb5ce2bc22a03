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
//! `moves` to none, the budget (`nodes` and/or `movetime`, e.g. `"250ms"`:
//! the budget vocabulary of every command) to the frontend's default
//! ([`search::PLAY_NODES`] root visits unless it was started with
//! `--nodes` / `--movetime`), `top` to [`DEFAULT_TOP`] (0 = all). The
//! answer ([`answer`]):
//!
//! ```json
//! {"id": "a1", "variant": "losers", "position": "<text>", "actions": [{"action","visits","prior","q","wdl","pv"}], "root": {"wdl": [w, d, l], "visits": 400}, "time_ms": 812}
//! ```
//!
//! Values are from the side to move's view; a finished game adds
//! `"outcome"` ([`outcome_json`]).

use std::path::PathBuf;

use rules::{Outcome, Player, VariantId};
use search::Budget;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::analysis::Analysis;
use crate::any::Bot;
use crate::error::BotError;

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
    /// `bundle`. Text as sent, read by [`AnalyseRequest::variant_id`] so an
    /// unknown id gets the frontend's own error (a 400 in the web service).
    pub variant: Option<String>,
    /// Position text (`None` or `"startpos"` = the start).
    pub position: Option<String>,
    /// Move tokens played from `position`.
    #[serde(default)]
    pub moves: Vec<String>,
    /// Node budget (root visits).
    pub nodes: Option<u32>,
    /// Time budget as player specs write it: `"250ms"`, `"1s"`.
    pub movetime: Option<String>,
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

    /// The search budget: `nodes` (checked against `1..=max_nodes`)
    /// and/or `movetime` (a time such as `"250ms"`); without either,
    /// `default` with its node bound capped at `max_nodes` (a service with
    /// a low cap still answers requests that name no budget).
    ///
    /// # Errors
    /// [`BotError::Setting`] naming the budget and the allowed range.
    pub fn budget(&self, default: &Budget, max_nodes: u32) -> Result<Budget, BotError> {
        if let Some(nodes) = self.nodes {
            if nodes == 0 || nodes > max_nodes {
                return Err(BotError::Setting(format!(
                    "nodes must be in 1..={max_nodes}, got {nodes}"
                )));
            }
        }
        let time = match &self.movetime {
            Some(text) => Some(
                text.parse::<Budget>()
                    .ok()
                    .and_then(|b| b.time)
                    .ok_or_else(|| {
                        BotError::Setting(format!(
                            "movetime must be a time such as \"250ms\" or \"1s\", got {text:?}"
                        ))
                    })?,
            ),
            None => None,
        };
        if self.nodes.is_none() && time.is_none() {
            return Ok(default.clone().capped(Some(max_nodes)));
        }
        Ok(Budget {
            nodes: self.nodes,
            time,
            ..Budget::default()
        })
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
