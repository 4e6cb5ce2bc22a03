//! `lokizero serve`: the web lab (`crates/serve`) on an address, with the
//! bundles of a models folder; prints the page's address and serves until
//! Ctrl-C.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
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
    /// relative path is also looked up above the executable. Default: each
    /// variant's bundle from the bundle search path, as `lokizero models`
    /// lists them.
    #[arg(long)]
    models: Option<PathBuf>,
    /// Show training runs at /runs: a run folder (holding metrics.jsonl)
    /// or a folder of them (e.g. runs/); each page refreshes as the run
    /// writes generations.
    #[arg(long)]
    runs: Option<PathBuf>,
    /// Follow a training run folder: the bot of its variant is the run's
    /// newest generation, replaced as the run writes new ones (the page
    /// picks it up without a reload), and the run is shown at /runs
    /// (unless --runs names another folder). `lokizero train --serve
    /// ADDR` does the same from inside the run.
    #[arg(long, value_name = "RUN_DIR")]
    follow: Option<PathBuf>,
    /// Show the run of a distributed training run at /runs too: the
    /// store of `lokizero train --store URL` (`s3://BUCKET/PREFIX`, the
    /// AWS_* variables giving the endpoint and keys, or a folder).
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// Most games held at once.
    #[arg(long, default_value_t = 1000, value_parser = super::plain_int::<usize>)]
    max_games: usize,
    /// Most bot searches at once (default: one per core, at least 2).
    #[arg(long, value_parser = super::plain_int::<usize>)]
    max_searches: Option<usize>,
    /// Minutes after which an untouched game is dropped.
    #[arg(long, default_value_t = 30, value_parser = super::plain_int::<u64>)]
    idle_minutes: u64,
    /// Largest node budget a request may ask for.
    #[arg(long, default_value_t = 100_000, value_parser = super::plain_int::<u32>)]
    max_nodes: u32,
    /// The budget of an analysis request that names none.
    #[command(flatten)]
    budget: super::search_args::BudgetArgs,
    /// Largest time budget a request may ask for, in milliseconds
    /// (1 to 86400000, a day).
    #[arg(long, default_value_t = 30_000,
          value_parser = clap::value_parser!(u64).range(1..=ServeConfig::MAX_MOVETIME_MS))]
    max_movetime_ms: u64,
    /// Seconds a connection has to send a request header (or, kept
    /// alive, to start its next request) before it is closed (1 to
    /// 86400, a day).
    #[arg(long, default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=MAX_TIMEOUT_SECS))]
    header_timeout_secs: u64,
    /// Seconds an endpoint waits for a request body before a 408 (1 to
    /// 86400, a day).
    #[arg(long, default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=MAX_TIMEOUT_SECS))]
    body_timeout_secs: u64,
}

/// The service's config with each variant's bundle from the bundle
/// search path, as `lokizero models` lists them (a note on stderr when
/// there is none: games are then human against human).
fn search_path_config() -> ServeConfig {
    let bundles: Vec<PathBuf> = rules::VariantId::ALL
        .into_iter()
        .filter_map(|v| bot::paths::bundles_of(v).into_iter().next())
        .map(|(dir, _)| dir)
        .collect();
    if bundles.is_empty() {
        eprintln!(
            "note: no bundle on the bundle search path (`lokizero models` lists it; \
             `lokizero models install PATH` adds one): games are human against human"
        );
    }
    ServeConfig {
        bundles: Some(bundles),
        ..ServeConfig::new(PathBuf::from("models"))
    }
}

/// Bind `addr` and print the bots and the page's address.
async fn bind(addr: SocketAddr, service: &Service) -> Result<tokio::net::TcpListener> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("binding {addr}"))?;
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
    Ok(listener)
}

/// The web lab served beside a training run (`lokizero train --serve`),
/// on its own threads; it stops when dropped.
pub struct LabBeside {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for LabBeside {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Serve the web lab on `addr` while the run of `variant` in `run_dir`
/// trains: each variant's bundle from the search path, except the run's
/// variant, whose bot follows the run's newest generation
/// ([`ServeConfig::follow`]; none until its first checkpoint), and
/// the run's page at /runs. Binds before it returns (a taken port is an
/// error now, not after the first generation).
///
/// # Errors
/// A broken bundle on the search path, or an address that cannot be bound.
pub fn serve_beside(
    addr: SocketAddr,
    run_dir: &Path,
    variant: rules::VariantId,
) -> Result<LabBeside> {
    let mut config = search_path_config();
    // The run's variant is played by the run's bot only.
    if let Some(bundles) = &mut config.bundles {
        bundles.retain(|dir| model::bundle::peek_variant(dir).ok() != Some(variant));
    }
    config.follow = Some(run_dir.to_path_buf());
    config.runs = Some(run_dir.to_path_buf());
    // Two searches at most: the training run has the cores.
    config.max_searches = 2;
    let service = Arc::new(Service::new(config)?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    let listener = runtime.block_on(bind(addr, &service))?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("web-lab".into())
        .spawn(move || {
            let shutdown = async {
                let _ = stopped.await;
            };
            if let Err(e) = runtime.block_on(serve::serve(listener, service, shutdown)) {
                eprintln!("web lab: {e}");
            }
            runtime.shutdown_timeout(Duration::from_secs(1));
        })
        .context("starting the web lab's thread")?;
    Ok(LabBeside {
        stop: Some(stop),
        thread: Some(thread),
    })
}

/// The largest `--header-timeout-secs` and `--body-timeout-secs`:
/// [`ServeConfig::MAX_READ_TIMEOUT`] in seconds.
const MAX_TIMEOUT_SECS: u64 = ServeConfig::MAX_READ_TIMEOUT.as_secs();

/// Start the service and serve until Ctrl-C.
pub fn run(args: ServeArgs) -> Result<()> {
    let mut config = match &args.models {
        Some(given) => ServeConfig::new(
            bot::paths::candidates(given)
                .into_iter()
                .find(|p| p.is_dir())
                .unwrap_or_else(|| given.clone()),
        ),
        None => search_path_config(),
    };
    if let Some(run) = &args.follow {
        if !run.is_dir() {
            let what = if run.exists() {
                "not a folder"
            } else {
                "no such folder"
            };
            anyhow::bail!("--follow {}: {what}", run.display());
        }
        if !serve::runs::looks_like_run(run) {
            anyhow::bail!(
                "--follow {}: not a training run folder (it has no config.toml and no checkpoints; \
                 give the run's own folder, such as runs/shakti)",
                run.display()
            );
        }
        config.follow = Some(run.clone());
        config.runs = Some(run.clone());
    }
    if let Some(runs) = &args.runs {
        if !runs.is_dir() {
            anyhow::bail!("--runs {}: no such folder", runs.display());
        }
        config.runs = Some(runs.clone());
    }
    config.runs_store = args.store.clone();
    config.max_games = args.max_games.max(1);
    config.max_searches = args.max_searches.unwrap_or(config.max_searches).max(1);
    config.idle_timeout = Duration::from_secs(args.idle_minutes.max(1).saturating_mul(60));
    config.max_nodes = args.max_nodes.max(1);
    config.default_budget = args.budget.budget();
    if let Some(t) = config.default_budget.time {
        if t > Duration::from_millis(config.max_movetime_ms) {
            anyhow::bail!(
                "--movetime {t:?} is above --max-movetime-ms {} (the cap of every request)",
                config.max_movetime_ms
            );
        }
    }
    // clap checked the ranges of these three (ServeConfig::validate too).
    config.max_movetime_ms = args.max_movetime_ms;
    config.header_read_timeout = Duration::from_secs(args.header_timeout_secs);
    config.body_read_timeout = Duration::from_secs(args.body_timeout_secs);
    let service = Arc::new(Service::new(config)?);
    // Dropped last, outside the runtime: the service may own a runs
    // store, whose own runtime must not be dropped inside another's.
    let kept = Arc::clone(&service);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    let served = runtime.block_on(async move {
        let listener = bind(args.addr, &service).await?;
        let shutdown = async {
            serve::ctrl_c(|| {
                eprintln!("interrupted again: exiting at once");
                std::process::exit(130);
            })
            .await;
            eprintln!("shutting down (Ctrl-C again to exit at once)");
        };
        serve::serve(listener, service, shutdown)
            .await
            .context("serving")
    });
    // The searches were told to stop; one may still be finishing its
    // network batch on a blocking thread. Do not wait for it long.
    runtime.shutdown_timeout(Duration::from_secs(1));
    drop(kept);
    served
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    fn parse(args: &[&str]) -> Result<ServeArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("x").chain(args.iter().copied())).map(|c| c.serve)
    }

    #[test]
    fn timeouts_out_of_range_are_refused_at_startup() {
        let defaults = parse(&[]).unwrap();
        assert_eq!(
            (
                defaults.header_timeout_secs,
                defaults.body_timeout_secs,
                defaults.max_movetime_ms
            ),
            (10, 30, 30_000)
        );
        let edge = parse(&[
            "--header-timeout-secs",
            "86400",
            "--body-timeout-secs",
            "1",
            "--max-movetime-ms",
            "86400000",
        ])
        .unwrap();
        assert_eq!(
            (
                edge.header_timeout_secs,
                edge.body_timeout_secs,
                edge.max_movetime_ms
            ),
            (86_400, 1, 86_400_000)
        );
        for (flag, value) in [
            ("--header-timeout-secs", "9223372036854775807"),
            ("--header-timeout-secs", "18446744073709551615"),
            ("--header-timeout-secs", "0"),
            ("--header-timeout-secs", "86401"),
            ("--body-timeout-secs", "0"),
            ("--body-timeout-secs", "9223372036854775807"),
            ("--max-movetime-ms", "0"),
            ("--max-movetime-ms", "18446744073709551615"),
        ] {
            let err = parse(&[flag, value]).unwrap_err();
            assert_eq!(
                err.kind(),
                clap::error::ErrorKind::ValueValidation,
                "{flag} {value}"
            );
            let text = err.to_string();
            assert!(
                text.contains(flag) && text.contains("is not in 1..="),
                "{text}"
            );
        }
    }
}
