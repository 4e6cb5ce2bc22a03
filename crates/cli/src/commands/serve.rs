//! `lokizero serve`: the web lab (`crates/serve`) on an address, with the
//! bundles of a models folder; prints the page's address and serves until
//! Ctrl-C.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use serve::{ServeConfig, Service};

/// Arguments of `lokizero serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Folder with one bundle per variant (`<variant>/model.json`); a
    /// relative path is also looked up above the executable.
    #[arg(long, default_value = "models")]
    models: PathBuf,
    /// Most games held at once.
    #[arg(long, default_value_t = 1000)]
    max_games: usize,
    /// Most bot searches at once (default: one per core, at least 2).
    #[arg(long)]
    max_searches: Option<usize>,
    /// Minutes after which an untouched game is dropped.
    #[arg(long, default_value_t = 30)]
    idle_minutes: u64,
    /// Largest node budget a request may ask for.
    #[arg(long, default_value_t = 100_000)]
    max_nodes: u32,
    /// Largest time budget a request may ask for, in milliseconds.
    #[arg(long, default_value_t = 30_000)]
    max_movetime_ms: u64,
    /// Seconds a connection has to send a request header (or, kept
    /// alive, to start its next request) before it is closed.
    #[arg(long, default_value_t = 10)]
    header_timeout_secs: u64,
    /// Seconds an endpoint waits for a request body before a 408.
    #[arg(long, default_value_t = 30)]
    body_timeout_secs: u64,
}

/// Start the service and serve until Ctrl-C.
pub fn run(args: ServeArgs) -> Result<()> {
    let models = bot::paths::candidates(&args.models)
        .into_iter()
        .find(|p| p.is_dir())
        .unwrap_or_else(|| args.models.clone());
    let mut config = ServeConfig::new(models);
    config.max_games = args.max_games.max(1);
    config.max_searches = args.max_searches.unwrap_or(config.max_searches).max(1);
    config.idle_timeout = Duration::from_secs(args.idle_minutes.max(1) * 60);
    config.max_nodes = args.max_nodes.max(1);
    config.max_movetime_ms = args.max_movetime_ms.max(1);
    config.header_read_timeout = Duration::from_secs(args.header_timeout_secs.max(1));
    config.body_read_timeout = Duration::from_secs(args.body_timeout_secs.max(1));
    let service = Arc::new(Service::new(config)?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("binding {}", args.addr))?;
        let addr = listener.local_addr()?;
        let bots: Vec<String> = service
            .catalog
            .variants()
            .into_iter()
            .filter(|v| v.bot)
            .map(|v| format!("{} (generation {})", v.id, v.generation.unwrap_or(0)))
            .collect();
        println!("bots: {}", bots.join(", "));
        println!("web lab: http://{addr}/");
        let shutdown = async {
            // An error here means no signal handler; serve until killed.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        serve::serve(listener, service, shutdown)
            .await
            .context("serving")
    })
}
