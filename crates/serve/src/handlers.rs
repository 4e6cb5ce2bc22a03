//! The JSON endpoints (`/api/...`); the contract is in `docs/web-lab.md`
//! and `assets/openapi.json`.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use bot::protocol::{self, AnalyseRequest};
use rules::{Player, VariantId};
use search::Budget;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::{ApiError, ApiJson, ApiPath};
use crate::levels::{Level, DEFAULT_LEVEL, LEVELS};
use crate::search::choose;
use crate::table::{new_table, pgn_table, TableView};
use crate::Service;

/// A game's state with its id.
#[derive(Debug, Serialize)]
pub struct GameState {
    /// The game id.
    pub id: String,
    /// The state.
    #[serde(flatten)]
    pub view: TableView,
}

/// `POST /api/games`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// Variant id, as sent: parsed into a `VariantId` by the handler, so an
    /// unknown id is a 400 naming the choices (a typed field would make it
    /// the JSON extractor's 422).
    pub variant: String,
    /// Start position text (default: the variant's start).
    pub position: Option<String>,
    /// A PGN game to continue (its `[FEN]` start and moves, in SAN or
    /// UCI): the new game stands after its last move. Not with
    /// `position`.
    pub pgn: Option<String>,
    /// Whole-turn move tokens to play from `position` (the game text of
    /// any variant: a start position and its moves), each as
    /// `POST /api/games/{id}/moves` takes it: the new game stands after the
    /// last one. Not with `pgn`.
    pub moves: Option<Vec<String>>,
}

/// `POST /api/games/{id}/moves`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    /// A whole-turn move token.
    #[serde(rename = "move")]
    pub token: String,
}

/// `POST /api/games/{id}/undo`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UndoRequest {
    /// How many moves (plies) to take back, the last first.
    pub plies: usize,
}

/// `POST /api/games/{id}/bot`: a budget (nodes and/or time) and a level.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BotRequest {
    /// Node budget.
    pub nodes: Option<u32>,
    /// Time budget in milliseconds.
    pub movetime_ms: Option<u64>,
    /// Level name (default `club`).
    pub level: Option<String>,
}

/// The bot's move in a `POST /api/games/{id}/bot` answer.
#[derive(Debug, Serialize)]
pub struct BotMove {
    /// The move token played.
    #[serde(rename = "move")]
    pub token: String,
    /// Its atomic actions.
    pub actions: Vec<String>,
    /// The side that played it.
    pub side: &'static str,
    /// The level it played at.
    pub level: &'static str,
    /// Root `[W, D, L]` for the side that moved.
    pub wdl: [f32; 3],
    /// The same from the first player's view (for an evaluation bar).
    pub wdl_first: [f32; 3],
    /// Principal variation as move tokens, starting with the move.
    pub pv: Vec<String>,
    /// Nodes searched.
    pub nodes: u32,
    /// Search time in milliseconds.
    pub time_ms: u64,
}

/// `GET /api/variants`.
pub async fn variants(State(service): State<Arc<Service>>) -> Json<Value> {
    Json(json!({
        "variants": service.catalog.variants(),
        "levels": LEVELS,
        "default_level": DEFAULT_LEVEL,
        // The bundles may change while the page is open (a followed
        // training run): the page reads this list again now and then.
        "live": service.config.follow.is_some(),
        "limits": {
            "max_nodes": service.config.max_nodes,
            "max_movetime_ms": service.config.max_movetime_ms,
            "max_games": service.config.max_games,
            "max_searches": service.config.max_searches,
            "idle_timeout_s": service.config.idle_timeout.as_secs(),
            "body_limit": service.config.body_limit,
        },
    }))
}

/// `POST /api/games`.
pub async fn create_game(
    State(service): State<Arc<Service>>,
    ApiJson(request): ApiJson<NewGame>,
) -> Result<Json<GameState>, ApiError> {
    let variant: VariantId = request.variant.parse()?;
    let table = match (&request.pgn, &request.position) {
        (Some(_), Some(_)) => {
            return Err(ApiError::Invalid(
                "send \"pgn\" or \"position\", not both (a PGN names its start in its FEN tag)"
                    .into(),
            ))
        }
        (Some(_), None) if request.moves.is_some() => {
            return Err(ApiError::Invalid(
                "send \"pgn\" or \"moves\", not both (a PGN holds its moves)".into(),
            ))
        }
        (Some(pgn), None) => pgn_table(variant, pgn)?,
        (None, position) => new_table(variant, position.as_deref())?,
    };
    let mut table = table;
    for (i, token) in request.moves.iter().flatten().enumerate() {
        table
            .play(token)
            .map_err(|e| ApiError::Invalid(format!("move {} ({token:?}): {e}", i + 1)))?;
    }
    let (id, view) = service.games.insert(table)?;
    Ok(Json(GameState { id, view }))
}

/// `GET /api/games/{id}`.
pub async fn get_game(
    State(service): State<Arc<Service>>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<GameState>, ApiError> {
    let view = service.games.view(&id)?;
    Ok(Json(GameState { id, view }))
}

/// `GET /api/games/{id}/plies/{ply}`: the game as it stood after its
/// first `ply` moves, for looking back through it (the game is unchanged).
pub async fn game_at(
    State(service): State<Arc<Service>>,
    ApiPath((id, ply)): ApiPath<(String, usize)>,
) -> Result<Json<GameState>, ApiError> {
    let view = service.games.view_at(&id, ply)?;
    Ok(Json(GameState { id, view }))
}

/// `POST /api/games/{id}/moves`.
pub async fn play_move(
    State(service): State<Arc<Service>>,
    ApiPath(id): ApiPath<String>,
    ApiJson(request): ApiJson<MoveRequest>,
) -> Result<Json<GameState>, ApiError> {
    let view = service.games.play(&id, &request.token)?;
    Ok(Json(GameState { id, view }))
}

/// `POST /api/games/{id}/undo`.
pub async fn undo(
    State(service): State<Arc<Service>>,
    ApiPath(id): ApiPath<String>,
    ApiJson(request): ApiJson<UndoRequest>,
) -> Result<Json<GameState>, ApiError> {
    let view = service.games.undo(&id, request.plies)?;
    Ok(Json(GameState { id, view }))
}

/// `POST /api/games/{id}/bot`.
pub async fn bot_move(
    State(service): State<Arc<Service>>,
    ApiPath(id): ApiPath<String>,
    ApiJson(request): ApiJson<BotRequest>,
) -> Result<Json<Value>, ApiError> {
    let level = Level::named(request.level.as_deref().unwrap_or(DEFAULT_LEVEL))?;
    let limits = bot_limits(&service, &request, level)?;
    let (job, _busy) = service.games.begin_search(&id)?;
    if !service.catalog.has_bot(job.variant) {
        return Err(ApiError::NoBot(job.variant));
    }
    let side = job.side;
    let strength = level.strength();
    let search_job = job.clone();
    let choice = service
        .searches
        .run(&service.catalog, job.variant, move |bot, stop| {
            let limits = Budget {
                stop: Some(stop),
                ..limits
            };
            choose(bot, &search_job, &limits, strength)
        })
        .await?;
    let info = &choice.info;
    let wdl_first = match side {
        Player::First => info.wdl,
        Player::Second => [info.wdl[2], info.wdl[1], info.wdl[0]],
    };
    // A search stopped before its first simulation has no evaluation.
    let searched = (info.nodes > 0).then_some(wdl_first);
    let view = service.games.finish_search(&job, &choice.mv, searched)?;
    let answer = BotMove {
        token: choice.mv.clone(),
        actions: choice.actions.clone(),
        side: protocol::player_name(side),
        level: level.name,
        wdl: info.wdl,
        wdl_first,
        pv: info.pv.clone(),
        nodes: info.nodes,
        time_ms: info.time_ms,
    };
    let mut body = serde_json::to_value(GameState { id, view })
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    body["bot"] = serde_json::to_value(answer).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(Json(body))
}

/// `POST /api/analyse`: the request and answer of `lokizero analyse`
/// (`bot::protocol`), without `bundle` (the service plays its own bundles).
pub async fn analyse(
    State(service): State<Arc<Service>>,
    ApiJson(request): ApiJson<AnalyseRequest>,
) -> Result<Json<Value>, ApiError> {
    if request.bundle.is_some() {
        return Err(ApiError::Invalid(
            "\"bundle\" is not accepted here: the service analyses with the bundles of its models folder".into(),
        ));
    }
    let variant = request
        .variant_id()?
        .ok_or_else(|| ApiError::Invalid("the request needs \"variant\"".into()))?;
    let budget = request.budget(&service.config.default_budget, service.config.max_nodes)?;
    let max_time = Duration::from_millis(service.config.max_movetime_ms);
    if budget.time.is_some_and(|t| t.is_zero() || t > max_time) {
        return Err(ApiError::Invalid(format!(
            "movetime must be in 1ms..={}ms (the service's cap)",
            service.config.max_movetime_ms
        )));
    }
    // Check the position before queueing for a search slot.
    bot::validate_position(variant, request.position.as_deref(), &request.moves)?;
    if !service.catalog.has_bot(variant) {
        return Err(ApiError::NoBot(variant));
    }
    let answer = service
        .searches
        .run(&service.catalog, variant, move |bot, stop| {
            bot.set_position(request.position.as_deref(), &request.moves)?;
            let analysis = bot.analyse(&budget.with_stop(stop), request.top())?;
            Ok(protocol::answer(&request.id, bot, &analysis))
        })
        .await?;
    Ok(Json(answer))
}

/// Refuses every request with [`ApiError::ShuttingDown`] (a 503 that
/// closes the connection) once the service's searches are closed, i.e.
/// once [`crate::serve`]'s shutdown came: a request read after that is
/// not answered as usual. Otherwise passes the request on.
pub async fn refuse_when_shutting_down(
    State(service): State<Arc<Service>>,
    request: Request,
    next: Next,
) -> Response {
    if service.searches.is_closed() {
        return ApiError::ShuttingDown.into_response();
    }
    next.run(request).await
}

/// Unknown paths.
pub async fn not_found() -> ApiError {
    ApiError::NotFound
}

/// Known paths asked with a method they do not take (axum's own answer has
/// no JSON body).
pub async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}

/// The search limits of a bot request: its nodes and time, or the
/// level's default budget, each checked against the service's caps.
fn bot_limits(service: &Service, request: &BotRequest, level: &Level) -> Result<Budget, ApiError> {
    let config = &service.config;
    if let Some(nodes) = request.nodes {
        if nodes == 0 || nodes > config.max_nodes {
            return Err(ApiError::Invalid(format!(
                "nodes must be in 1..={} (the service's cap), got {nodes}",
                config.max_nodes
            )));
        }
    }
    if let Some(ms) = request.movetime_ms {
        if ms == 0 || ms > config.max_movetime_ms {
            return Err(ApiError::Invalid(format!(
                "movetime_ms must be in 1..={} (the service's cap), got {ms}",
                config.max_movetime_ms
            )));
        }
    }
    let time = request.movetime_ms.map(Duration::from_millis);
    let nodes = match (request.nodes, time) {
        (Some(n), _) => Some(n),
        (None, Some(_)) => None,
        // A policy-only level searches nothing; one node satisfies the
        // bot's rule that some bound is given.
        (None, None) => Some(level.nodes.unwrap_or(1).min(config.max_nodes)),
    };
    Ok(Budget {
        nodes,
        time,
        ..Budget::default()
    })
}
