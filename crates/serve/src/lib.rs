//! The web lab: an HTTP service to play, watch and analyse the shipped bots
//! in a browser, and the page that uses it (`lokizero serve`).
//!
//! axum on tokio. Requests are answered on the async executor, but every
//! search runs on a tokio blocking thread ([`search::Searches`]), at most
//! [`ServeConfig::max_searches`] at once, each with a bot of its own from
//! the [`catalog::Catalog`] pool. Games live in memory
//! ([`games::Games`]) under random ids, capped in number and dropped
//! after idling. Every failure is a 4xx or 5xx with a JSON
//! `{"error": ...}` naming the problem ([`ApiError`]).
//!
//! Endpoints (the README's "Web lab" section; `assets/openapi.json`):
//! `GET /api/variants`, `POST /api/games`, `GET /api/games/{id}`,
//! `POST /api/games/{id}/moves`, `POST /api/games/{id}/bot`,
//! `POST /api/analyse`, `GET /api/openapi.json`; the page at `/`.

pub mod assets;
pub mod catalog;
pub mod config;
pub mod error;
pub mod games;
pub mod handlers;
pub mod levels;
pub mod search;
pub mod table;
pub mod variants;
pub mod view;

use std::future::Future;
use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;
use tokio::net::TcpListener;

pub use config::ServeConfig;
pub use error::{ApiError, StartError};

use catalog::Catalog;
use games::Games;
use search::Searches;

/// The service's state, shared by all requests.
pub struct Service {
    /// The settings.
    pub config: ServeConfig,
    /// The bundles and their bot pools.
    pub catalog: Arc<Catalog>,
    /// The games in play.
    pub games: Games,
    /// The search slots.
    pub searches: Searches,
}

impl Service {
    /// Load the bundles under `config.models` and set up an empty service.
    /// Blocking (reads the bundles).
    ///
    /// # Errors
    /// [`StartError`] for a missing models folder or a broken bundle.
    pub fn new(config: ServeConfig) -> Result<Service, StartError> {
        if !config.models.is_dir() {
            return Err(StartError::NoModels(config.models.clone()));
        }
        let catalog = Arc::new(Catalog::load(&config.models)?);
        Ok(Service {
            games: Games::new(config.max_games, config.idle_timeout),
            searches: Searches::new(config.max_searches, config.search_queue_timeout),
            catalog,
            config,
        })
    }
}

/// The routes of `service`.
pub fn router(service: Arc<Service>) -> Router {
    let body_limit = service.config.body_limit;
    Router::new()
        .route("/", get(assets::index))
        .route("/assets/{name}", get(assets::asset))
        .route("/api/openapi.json", get(assets::openapi))
        .route("/api/variants", get(handlers::variants))
        .route("/api/games", post(handlers::create_game))
        .route("/api/games/{id}", get(handlers::get_game))
        .route("/api/games/{id}/moves", post(handlers::play_move))
        .route("/api/games/{id}/bot", post(handlers::bot_move))
        .route("/api/analyse", post(handlers::analyse))
        .fallback(handlers::not_found)
        .method_not_allowed_fallback(handlers::method_not_allowed)
        .layer(DefaultBodyLimit::max(body_limit))
        .with_state(service)
}

/// Serve `service` on `listener` until `shutdown` completes, dropping idle
/// games in the background.
///
/// # Errors
/// The listener's I/O errors.
pub async fn serve(
    listener: TcpListener,
    service: Arc<Service>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let sweeper = tokio::spawn(sweep_idle_games(Arc::clone(&service)));
    let result = axum::serve(listener, router(service))
        .with_graceful_shutdown(shutdown)
        .await;
    sweeper.abort();
    result
}

/// Drop idle games every quarter of the idle timeout (at most every minute).
async fn sweep_idle_games(service: Arc<Service>) {
    let period = (service.config.idle_timeout / 4).clamp(
        std::time::Duration::from_millis(100),
        std::time::Duration::from_secs(60),
    );
    let mut ticks = tokio::time::interval(period);
    loop {
        ticks.tick().await;
        service.games.drop_idle();
    }
}
