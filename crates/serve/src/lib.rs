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
//! Shutdown ([`serve`]'s `shutdown` future, Ctrl-C in `lokizero serve`
//! via [`ctrl_c`]): no new connection or request is taken, running
//! searches are told to stop at once (a search's stop flag, also set when
//! its client disconnects), queued ones get a 503, and what is still in
//! progress after [`ServeConfig::shutdown_grace`] is dropped.
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
//! Endpoints (`docs/web-lab.md`; `assets/openapi.json`):
//! `GET /api/variants`, `POST /api/games`, `GET /api/games/{id}`,
//! `GET /api/games/{id}/plies/{ply}`,
//! `POST /api/games/{id}/moves`, `POST /api/games/{id}/bot`,
//! `POST /api/games/{id}/undo`,
//! `POST /api/analyse`, `GET /api/openapi.json`, `GET /api/runs`,
//! `GET /api/runs/{name}`, `GET /api/runs/{name}/games`; the pages at
//! `/` and `/runs`.
//!
//! The service answers through its router (here without a socket):
//! ```
//! use std::sync::Arc;
//! use axum::body::Body;
//! use axum::http::{Request, StatusCode};
//! use serve::{router, ServeConfig, Service};
//! use tower::ServiceExt;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let service = Arc::new(Service::new(ServeConfig::new("../../models".into()))?);
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! let request = Request::get("/api/variants").body(Body::empty())?;
//! let response = runtime.block_on(router(service).oneshot(request))?;
//! assert_eq!(response.status(), StatusCode::OK);
//! # Ok(())
//! # }
//! ```

pub mod assets;
pub mod catalog;
pub mod config;
pub mod error;
pub mod games;
pub mod handlers;
pub mod levels;
pub mod rules_doc;
pub mod runs;
pub mod search;
pub mod table;
pub mod view;

use std::future::Future;
use std::path::PathBuf;
use std::pin::pin;
use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::middleware;
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
use rules::VariantId;
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
    /// The object store of [`ServeConfig::runs_store`], opened and checked
    /// at start.
    pub runs_store: Option<Arc<store::Store>>,
}

impl Service {
    /// Load the bundles under `config.models` and set up an empty service.
    /// Blocking (reads the bundles).
    ///
    /// # Errors
    /// [`StartError`] for a setting out of range
    /// ([`ServeConfig::validate`]), a missing models folder, a broken
    /// bundle, or a runs store that does not open or answer.
    pub fn new(config: ServeConfig) -> Result<Service, StartError> {
        config.validate()?;
        let dirs: Vec<(VariantId, PathBuf)> = match &config.bundles {
            Some(bundles) => bundles
                .iter()
                .filter_map(|dir| Some((model::bundle::peek_variant(dir).ok()?, dir.clone())))
                .collect(),
            None => {
                if !config.models.is_dir() {
                    return Err(StartError::NoModels(config.models.clone()));
                }
                VariantId::ALL
                    .into_iter()
                    .map(|v| (v, config.models.join(v.as_str())))
                    .collect()
            }
        };
        // A followed run's variant is played by the run's bot only (its
        // newest checkpoint that loads, as soon as there is one).
        let followed = config.follow.as_deref().and_then(runs::run_variant);
        let dirs: Vec<(VariantId, PathBuf)> = dirs
            .into_iter()
            .filter(|(v, _)| Some(*v) != followed)
            .collect();
        let catalog = Arc::new(Catalog::load(&dirs)?);
        if let Some(run) = &config.follow {
            let mut follower = Follower::new(run);
            follower.catch_up(&catalog);
        }
        let runs_store = config
            .runs_store
            .as_deref()
            .map(|url| {
                let failed = |e: store::StoreError| StartError::Store {
                    url: url.to_string(),
                    reason: e.to_string(),
                };
                // A folder store is read, never created, here.
                if let Ok(store::Location::Local(dir)) = store::Location::parse(url) {
                    if !dir.is_dir() {
                        return Err(StartError::Store {
                            url: url.to_string(),
                            reason: "no such folder".into(),
                        });
                    }
                }
                let store = store::Store::open(url).map_err(failed)?;
                store.check_reachable().map_err(failed)?;
                Ok::<_, StartError>(Arc::new(store))
            })
            .transpose()?;
        Ok(Service {
            runs_store,
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
        .route("/api/games/{id}/plies/{ply}", get(handlers::game_at))
        .route("/api/games/{id}/moves", post(handlers::play_move))
        .route("/api/games/{id}/bot", post(handlers::bot_move))
        .route("/api/games/{id}/undo", post(handlers::undo))
        .route("/api/analyse", post(handlers::analyse))
        .route("/runs", get(assets::runs_page))
        .route("/api/runs", get(runs::list))
        .route("/api/runs/{name}", get(runs::get))
        .route("/api/runs/{name}/games", get(runs::games))
        .fallback(handlers::not_found)
        .method_not_allowed_fallback(handlers::method_not_allowed)
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(middleware::from_fn_with_state(
            Arc::clone(&service),
            handlers::refuse_when_shutting_down,
        ))
        .with_state(service)
}

/// Serve `service` on `listener` until `shutdown` completes, dropping idle
/// games in the background. HTTP/1 with hyper, each connection with
/// [`ServeConfig::header_read_timeout`] (which `axum::serve` cannot set).
///
/// On `shutdown`: no new connection is accepted; the service's searches
/// are closed ([`Searches::close`]: the running ones are told to stop at
/// once and answer with the move found so far, the queued ones and any
/// later request get [`ApiError::ShuttingDown`], a 503); idle connections
/// are closed and the requests in progress are answered, for at most
/// [`ServeConfig::shutdown_grace`]; then the remaining connections (a
/// client still sending its header or body, say) are closed unanswered
/// and this returns. The service stays shut down: serving it again
/// answers every request with a 503.
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
    let follower = service
        .config
        .follow
        .clone()
        .map(|run| tokio::spawn(follow_run(Arc::clone(&service), run)));
    // Service::new validated it; clamped again for a config changed since
    // (hyper adds it to an instant and panics on overflow).
    let header_read_timeout = service
        .config
        .header_read_timeout
        .clamp(ServeConfig::MIN_READ_TIMEOUT, ServeConfig::MAX_READ_TIMEOUT);
    let grace = service.config.shutdown_grace;
    let app = router(Arc::clone(&service));
    // Each connection holds a clone of `stop_tx` (its `closed()` fires
    // when `stop_rx` is dropped: shut down gracefully), of `kill_tx`
    // (fires when `kill_rx` is dropped: the grace is over, drop the
    // connection) and of `done_rx` (dropped when the connection ends:
    // `done_tx.closed()` waits for all).
    let (stop_tx, stop_rx) = watch::channel(());
    let (kill_tx, kill_rx) = watch::channel(());
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
        let kill_tx = kill_tx.clone();
        let done_rx = done_rx.clone();
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(header_read_timeout);
            // The connection is dropped at the end of this block, before
            // `done_rx`: a request still in progress is dropped with it,
            // and its search (if any) is told to stop.
            {
                let mut connection = pin!(builder.serve_connection(io, hyper_service));
                tokio::select! {
                    // An error here is the client's (a parse error, a
                    // header timeout, a reset): nothing to do but drop the
                    // connection.
                    _ = connection.as_mut() => {}
                    () = stop_tx.closed() => {
                        connection.as_mut().graceful_shutdown();
                        tokio::select! {
                            _ = connection.as_mut() => {}
                            () = kill_tx.closed() => {}
                        }
                    }
                }
            }
            drop(done_rx);
        });
    }
    drop(listener);
    service.searches.close();
    drop(stop_rx);
    drop(done_rx);
    if tokio::time::timeout(grace, done_tx.closed()).await.is_err() {
        drop(kill_rx);
        // Each connection task ends as soon as it sees the kill; bounded
        // all the same, so nothing here can hold the return.
        let _ = tokio::time::timeout(KILL_WAIT, done_tx.closed()).await;
    }
    sweeper.abort();
    if let Some(follower) = follower {
        follower.abort();
    }
    Ok(())
}

/// How often [`follow_run`] looks for a new generation.
pub const FOLLOW_PERIOD: std::time::Duration = std::time::Duration::from_secs(1);

/// The state of following a run: the generation served and those that
/// did not load.
struct Follower {
    dir: train::run::RunDir,
    served: Option<u32>,
    failed: std::collections::HashSet<u32>,
}

impl Follower {
    fn new(run: &std::path::Path) -> Follower {
        Follower {
            dir: train::run::RunDir {
                root: run.to_path_buf(),
            },
            served: None,
            failed: std::collections::HashSet::new(),
        }
    }

    /// Serve the run's newest checkpoint that loads and is newer than the
    /// one served; a checkpoint that does not load is reported on stderr
    /// once and passed over (an older one is tried). Blocking.
    fn catch_up(&mut self, catalog: &Catalog) {
        let mut newer: Vec<u32> = self
            .dir
            .checkpoints()
            .into_iter()
            .filter(|g| self.served.is_none_or(|s| *g > s) && !self.failed.contains(g))
            .collect();
        newer.sort_unstable_by(|a, b| b.cmp(a));
        for g in newer {
            let bundle = self.dir.checkpoint(g);
            let loaded = model::bundle::peek_variant(&bundle)
                .map_err(|e| e.to_string())
                .and_then(|v| catalog.replace(v, &bundle).map_err(|e| e.to_string()));
            match loaded {
                Ok(()) => {
                    self.served = Some(g);
                    return;
                }
                Err(e) => {
                    eprintln!("web lab: generation {g} of the followed run not served: {e}");
                    self.failed.insert(g);
                }
            }
        }
    }
}

/// Follow the training run in folder `run` ([`ServeConfig::follow`]):
/// every [`FOLLOW_PERIOD`], when the run has a checkpoint newer than the
/// one served, load the newest that loads as the bot of its variant
/// ([`Catalog::replace`]); one that does not load is reported on stderr
/// once and skipped (the bot stays the previous one). Runs until aborted.
pub async fn follow_run(service: Arc<Service>, run: PathBuf) {
    let follower = Arc::new(std::sync::Mutex::new(Follower::new(&run)));
    let mut ticks = tokio::time::interval(FOLLOW_PERIOD);
    loop {
        ticks.tick().await;
        let (follower, catalog) = (Arc::clone(&follower), Arc::clone(&service.catalog));
        let _ = tokio::task::spawn_blocking(move || {
            let mut follower = follower
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            follower.catch_up(&catalog);
        })
        .await;
    }
}

/// How long [`serve`] waits, after the grace, for the connection tasks to
/// drop their connections.
const KILL_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Completes at the first Ctrl-C (SIGINT), for [`serve`]'s `shutdown`;
/// from then on, a second Ctrl-C calls `on_second` (`lokizero serve`
/// exits at once there) instead of being ignored. Never completes if no
/// signal handler can be installed (then the default action stays: Ctrl-C
/// kills the process).
pub async fn ctrl_c(on_second: impl FnOnce() + Send + 'static) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        // One stream for both signals: one sent between the two waits is
        // not lost.
        let Ok(mut interrupts) = signal(SignalKind::interrupt()) else {
            return std::future::pending().await;
        };
        interrupts.recv().await;
        tokio::spawn(async move {
            if interrupts.recv().await.is_some() {
                on_second();
            }
        });
    }
    #[cfg(not(unix))]
    {
        if tokio::signal::ctrl_c().await.is_err() {
            return std::future::pending().await;
        }
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                on_second();
            }
        });
    }
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
