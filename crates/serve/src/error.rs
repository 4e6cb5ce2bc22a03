//! Errors of the web service, each mapped to an HTTP status and a JSON body
//! `{"error": "<message naming the problem>"}`; nothing the client sends
//! may panic the service.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{FromRef, FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// Why a request failed. The `Display` text is what the client reads.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The body is not the JSON the endpoint takes (syntax, a missing or
    /// unknown field, a wrong type, no JSON content type), or is over the
    /// size limit; `status` is axum's (400, 413, 415 or 422).
    #[error("{message}")]
    Body {
        /// The HTTP status of the rejection.
        status: StatusCode,
        /// What was wrong, from the JSON parser.
        message: String,
    },
    /// A parameter of the URL path (a game id, an asset name) that cannot
    /// be extracted, e.g. not UTF-8 once percent-decoded
    /// (`GET /api/games/%ff%fe`); `status` is axum's (400, or 500 for a
    /// route without the parameter).
    #[error("{message}")]
    PathParam {
        /// The HTTP status of the rejection.
        status: StatusCode,
        /// What was wrong, naming the parameter.
        message: String,
    },
    /// The request body did not arrive within the configured time
    /// ([`crate::ServeConfig::body_read_timeout`]): a stalled or
    /// trickling client. hyper closes the connection after this answer.
    #[error("the request body did not arrive within {0:?}")]
    BodyTimeout(Duration),
    /// No endpoint or page at this path.
    #[error("no such endpoint or page (the API is under /api: see /api/openapi.json)")]
    NotFound,
    /// The path exists but not with this HTTP method (`GET /api/analyse`).
    #[error("method not allowed here (see /api/openapi.json for each path's methods)")]
    MethodNotAllowed,
    /// No game with this id (never created, or expired after idling).
    #[error("no game {0:?} (unknown id, or it expired after idling)")]
    UnknownGame(String),
    /// The service was started without a runs folder (`--runs DIR`).
    #[error("no training runs are served (start the service with --runs DIR or --store URL)")]
    NoRuns,
    /// No run of this name in the runs folder.
    #[error("no run {0:?} is served (see /api/runs)")]
    UnknownRun(String),
    /// The variant id is not one of the six.
    #[error("{0}")]
    UnknownVariant(#[from] rules::variant::UnknownVariant),
    /// The service has no bundle for the variant, so no bot can play it.
    #[error("no bot for variant {0}: the models folder has no bundle for it")]
    NoBot(rules::VariantId),
    /// A position text, move, budget or level the rules or the caps refuse.
    #[error("{0}")]
    Invalid(String),
    /// The game is over: no move or bot move can be played.
    #[error("the game is over ({0})")]
    GameOver(String),
    /// The game is busy with a bot search started by an earlier request.
    #[error("game {0} is busy: a bot move is being searched; retry when it is played")]
    Busy(String),
    /// The games cap is reached (after dropping idle games).
    #[error("too many games ({0}, the configured cap); retry later")]
    TooManyGames(usize),
    /// No search slot came free in time.
    #[error("all {0} search slots stayed busy; retry later")]
    SearchesBusy(usize),
    /// The service is shutting down ([`crate::serve`]'s shutdown came):
    /// no new request or search is taken. The connection is closed after
    /// this answer.
    #[error("the service is shutting down; no new requests or searches are taken")]
    ShuttingDown,
    /// A failure of the service itself (a bundle that stopped loading, a
    /// search thread that died).
    #[error("internal error: {0}")]
    Internal(String),
}

impl ApiError {
    /// The HTTP status of this error.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::Body { status, .. } | ApiError::PathParam { status, .. } => *status,
            ApiError::NotFound
            | ApiError::UnknownGame(_)
            | ApiError::NoRuns
            | ApiError::UnknownRun(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::BodyTimeout(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::UnknownVariant(_) | ApiError::Invalid(_) => StatusCode::BAD_REQUEST,
            ApiError::NoBot(_) | ApiError::GameOver(_) | ApiError::Busy(_) => StatusCode::CONFLICT,
            ApiError::TooManyGames(_) | ApiError::SearchesBusy(_) | ApiError::ShuttingDown => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        let status = rejection.status();
        let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
            format!(
                "request body is over the size limit ({})",
                rejection.body_text()
            )
        } else {
            rejection.body_text()
        };
        ApiError::Body { status, message }
    }
}

impl From<PathRejection> for ApiError {
    fn from(rejection: PathRejection) -> Self {
        ApiError::PathParam {
            status: rejection.status(),
            message: rejection.body_text(),
        }
    }
}

impl From<bot::BotError> for ApiError {
    fn from(e: bot::BotError) -> Self {
        match e {
            bot::BotError::GameOver(text) => ApiError::GameOver(text),
            bot::BotError::Bundle(_) | bot::BotError::Device(_) => {
                ApiError::Internal(e.to_string())
            }
            other => ApiError::Invalid(other.to_string()),
        }
    }
}

impl ApiError {
    /// Whether the connection is closed after this answer (so the answer
    /// says `connection: close`): a body that did not arrive in time was
    /// not read to its end, and a service shutting down takes no further
    /// request on the connection.
    pub fn closes_connection(&self) -> bool {
        matches!(self, ApiError::BodyTimeout(_) | ApiError::ShuttingDown)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Json(json!({ "error": self.to_string() }));
        if self.closes_connection() {
            (
                self.status(),
                [(header::CONNECTION, HeaderValue::from_static("close"))],
                body,
            )
                .into_response()
        } else {
            (self.status(), body).into_response()
        }
    }
}

/// How long [`ApiJson`] waits for a request body, taken from the state
/// (the service's [`crate::ServeConfig::body_read_timeout`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyReadTimeout(pub Duration);

impl FromRef<Arc<crate::Service>> for BodyReadTimeout {
    fn from_ref(service: &Arc<crate::Service>) -> Self {
        BodyReadTimeout(service.config.body_read_timeout)
    }
}

/// `axum::Json` whose rejections are [`ApiError`]s, so a malformed or
/// oversized body gets the same JSON error shape as every other failure,
/// and whose body must arrive within the state's [`BodyReadTimeout`]
/// (else [`ApiError::BodyTimeout`], a 408): hyper has no body read
/// timeout, and a client trickling its body would otherwise hold the
/// connection and this handler forever.
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    Json<T>: FromRequest<S, Rejection = JsonRejection>,
    BodyReadTimeout: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let BodyReadTimeout(limit) = BodyReadTimeout::from_ref(state);
        match tokio::time::timeout(limit, Json::<T>::from_request(req, state)).await {
            Ok(json) => json
                .map(|Json(value)| ApiJson(value))
                .map_err(ApiError::from),
            Err(_elapsed) => Err(ApiError::BodyTimeout(limit)),
        }
    }
}

/// `axum::extract::Path` whose rejections are [`ApiError`]s, so a path
/// parameter that cannot be extracted gets the same JSON error shape as
/// every other failure instead of axum's plain-text answer.
pub struct ApiPath<T>(pub T);

impl<S, T> FromRequestParts<S> for ApiPath<T>
where
    Path<T>: FromRequestParts<S, Rejection = PathRejection>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Path::<T>::from_request_parts(parts, state)
            .await
            .map(|Path(value)| ApiPath(value))
            .map_err(ApiError::from)
    }
}

/// Why the service could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// A bundle folder under the models folder does not load.
    #[error("bundle {dir}: {source}")]
    Bundle {
        /// The bundle folder.
        dir: std::path::PathBuf,
        /// Why it does not load.
        source: bot::BotError,
    },
    /// The network backend could not be set up.
    #[error("device: {0}")]
    Device(String),
    /// A setting of the [`crate::ServeConfig`] is out of range.
    #[error("{0}")]
    Config(#[from] search::InvalidSetting),
    /// The models folder does not exist.
    #[error("models folder {0} does not exist (pass --models DIR, the folder holding <variant>/model.json)")]
    NoModels(std::path::PathBuf),
    /// The runs store ([`crate::ServeConfig::runs_store`]) does not open
    /// or does not answer.
    #[error("runs store {url}: {reason}")]
    Store {
        /// The store's location as given.
        url: String,
        /// What went wrong.
        reason: String,
    },
}
