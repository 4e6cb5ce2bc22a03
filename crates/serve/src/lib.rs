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
//! Slow clients: a connection must send each request's header within
//! [`ServeConfig::header_read_timeout`] (hyper's HTTP/1 header read
//! timeout; it also closes a kept-alive connection idle that long), else
//! it is closed without an answer; an endpoint that takes a JSON body
//! waits [`ServeConfig::body_read_timeout`] for it, else answers a JSON
//! 408 and the connection is closed. So a slow-loris client that trickles
//! a header or a body holds a connection for a bounded time only.
//!
//! The exception to the JSON error shape: requests hyper itself refuses
//! while parsing the request head, before any request reaches the router
//! (a malformed request line or header: 400; a URI over 65 534 bytes:
//! 414; a head over hyper's read buffer of about 400 KiB, or more than
//! 100 header fields: 431), are answered by hyper with the bare status
//! and an empty body. hyper 1.x builds that answer inside its HTTP/1
//! state machine and offers no hook to give it a body, and with no
//! parsed request there is nothing for an axum layer or fallback to see.
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
use std::pin::pin;
use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::serve::Listener;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::watch;

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
/// games in the background. HTTP/1 with hyper, each connection with
/// [`ServeConfig::header_read_timeout`] (which `axum::serve` cannot set).
/// On `shutdown`, no new connection is accepted, idle connections are
/// closed, and the requests in progress are answered before this returns.
///
/// # Errors
/// None in practice (kept for callers): accept errors are retried as
/// `axum::serve` does (a failed accept, e.g. out of file descriptors,
/// waits a second and tries again).
pub async fn serve(
    mut listener: TcpListener,
    service: Arc<Service>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let sweeper = tokio::spawn(sweep_idle_games(Arc::clone(&service)));
    let header_read_timeout = service.config.header_read_timeout;
    let app = router(service);
    // Each connection holds a clone of `stop_tx` (its `closed()` fires
    // when `stop_rx` is dropped: shut down gracefully) and of `done_rx`
    // (dropped when the connection ends: `done_tx.closed()` waits for all).
    let (stop_tx, stop_rx) = watch::channel(());
    let (done_tx, done_rx) = watch::channel(());
    let mut shutdown = pin!(shutdown);
    loop {
        let (stream, _peer) = tokio::select! {
            accepted = Listener::accept(&mut listener) => accepted,
            () = &mut shutdown => break,
        };
        let io = TokioIo::new(stream);
        let hyper_service = TowerToHyperService::new(app.clone());
        let stop_tx = stop_tx.clone();
        let done_rx = done_rx.clone();
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(header_read_timeout);
            let mut connection = pin!(builder.serve_connection(io, hyper_service));
            tokio::select! {
                // An error here is the client's (a parse error, a header
                // timeout, a reset): nothing to do but drop the connection.
                _ = connection.as_mut() => {}
                () = stop_tx.closed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.as_mut().await;
                }
            }
            drop(done_rx);
        });
    }
    drop(stop_rx);
    drop(done_rx);
    drop(listener);
    done_tx.closed().await;
    sweeper.abort();
    Ok(())
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
