//! The page and the OpenAPI file, embedded in the binary so the service
//! needs no files beside the bundles.

use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};

use crate::error::{ApiError, ApiPath};

/// The OpenAPI description of the JSON API (served at `/api/openapi.json`).
pub const OPENAPI: &str = include_str!("../assets/openapi.json");

/// The page's files: (name under `/assets/`, content type, content).
const FILES: [(&str, &str, &str); 7] = [
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("../assets/index.html"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../assets/style.css"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/app.js"),
    ),
    (
        "board.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/board.js"),
    ),
    (
        "api.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/api.js"),
    ),
    (
        "runs.html",
        "text/html; charset=utf-8",
        include_str!("../assets/runs.html"),
    ),
    (
        "runs.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/runs.js"),
    ),
];

/// A file of [`FILES`] with its content type.
fn file(name: &str) -> Result<Response, ApiError> {
    let (_, mime, body) = FILES
        .iter()
        .find(|(n, _, _)| *n == name)
        .ok_or(ApiError::NotFound)?;
    // The assets change only with the binary; `no-cache` makes a browser
    // revalidate, so a new build is never shown with an old script.
    Ok(([(CONTENT_TYPE, *mime), (CACHE_CONTROL, "no-cache")], *body).into_response())
}

/// `GET /`: the page.
pub async fn index() -> Result<Response, ApiError> {
    file("index.html")
}

/// `GET /runs`: the training runs page ([`crate::runs`]).
pub async fn runs_page() -> Result<Response, ApiError> {
    file("runs.html")
}

/// `GET /assets/{name}`.
pub async fn asset(ApiPath(name): ApiPath<String>) -> Result<Response, ApiError> {
    file(&name)
}

/// `GET /api/openapi.json`.
pub async fn openapi() -> Response {
    ([(CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}
