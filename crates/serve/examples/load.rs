//! Load test of the web lab on loopback: starts the service in this
//! process on a free port, then `--games` clients each create a game and
//! ask for `--moves` bot moves at a fixed node budget, over their own
//! keep-alive HTTP/1.1 connection (a small hand-written client, so the
//! test needs no HTTP client crate). Prints requests/s and latency
//! percentiles, then checks the service still answers and every game reads
//! back exactly as its client saw it played.
//!
//! With `--runs DIR --run-pages N` the same load runs twice on the same
//! service: first alone, then with `N` training-run pages open beside it,
//! each polling what the `/runs` page reads (`/api/runs`,
//! `/api/runs/{name}`, `/api/runs/{name}/games`) every
//! [`RUN_PAGE_PERIOD`] over its own connection, as `assets/runs.js` does;
//! it prints both rounds and their ratio.
//!
//! ```sh
//! cargo run --release -p serve --example load -- --games 32 --moves 8 --nodes 64 --variant ID
//! cargo run --release -p serve --example load -- --games 32 --moves 8 --nodes 64 --variant ID --runs RUNS --run-pages 8
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use serve::{ServeConfig, Service};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// Command-line settings.
struct Settings {
    games: usize,
    moves: usize,
    nodes: u32,
    variant: String,
    searches: Option<usize>,
    runs: Option<std::path::PathBuf>,
    run_pages: usize,
}

/// How often an open run page reads its run (`REFRESH_MS` of
/// `assets/runs.js`).
const RUN_PAGE_PERIOD: Duration = Duration::from_secs(3);

fn settings() -> Result<Settings, String> {
    let mut s = Settings {
        games: 32,
        moves: 8,
        nodes: 64,
        variant: String::new(),
        searches: None,
        runs: None,
        run_pages: 0,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair
            .get(1)
            .ok_or_else(|| format!("{} needs a value", pair[0]))?;
        let number = || {
            value
                .parse::<usize>()
                .map_err(|e| format!("{}: {e}", pair[0]))
        };
        match pair[0].as_str() {
            "--games" => s.games = number()?,
            "--moves" => s.moves = number()?,
            "--nodes" => s.nodes = number()? as u32,
            "--variant" => s.variant = value.clone(),
            "--searches" => s.searches = Some(number()?),
            "--runs" => s.runs = Some(value.into()),
            "--run-pages" => s.run_pages = number()?,
            other => {
                return Err(format!(
                    "unknown option {other} (--games, --moves, --nodes, --variant, --searches, --runs, --run-pages)"
                ))
            }
        }
    }
    if s.run_pages > 0 && s.runs.is_none() {
        return Err("--run-pages needs --runs DIR (a run folder or a folder of them)".into());
    }
    if s.variant.is_empty() {
        let ids = rules::VariantId::ALL
            .map(rules::VariantId::as_str)
            .join(", ");
        return Err(format!("--variant is required (one of: {ids})"));
    }
    Ok(s)
}

/// One keep-alive HTTP/1.1 connection.
struct Client {
    stream: BufReader<TcpStream>,
}

impl Client {
    async fn connect(addr: std::net::SocketAddr) -> std::io::Result<Client> {
        Ok(Client {
            stream: BufReader::new(TcpStream::connect(addr).await?),
        })
    }

    /// Send a request; returns the status and the JSON body.
    async fn call(
        &mut self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> std::io::Result<(u16, Value)> {
        let body = body.map(Value::to_string).unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: lab\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let stream = self.stream.get_mut();
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body.as_bytes()).await?;
        let mut line = String::new();
        self.stream.read_line(&mut line).await?;
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let mut length = 0usize;
        loop {
            line.clear();
            self.stream.read_line(&mut line).await?;
            if line.trim().is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut bytes = vec![0; length];
        self.stream.read_exact(&mut bytes).await?;
        Ok((
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        ))
    }
}

/// What one client saw: its game id, the moves in order, the last
/// position, and the latency of each bot request.
struct Played {
    id: String,
    moves: Vec<String>,
    position: String,
    latencies: Vec<Duration>,
    errors: Vec<String>,
}

async fn play(
    addr: std::net::SocketAddr,
    variant: String,
    moves: usize,
    nodes: u32,
) -> std::io::Result<Played> {
    let mut client = Client::connect(addr).await?;
    let (status, game) = client
        .call("POST", "/api/games", Some(&json!({ "variant": variant })))
        .await?;
    if status != 200 {
        return Err(std::io::Error::other(format!("create: {status} {game}")));
    }
    let mut played = Played {
        id: game["id"].as_str().unwrap_or_default().to_string(),
        moves: Vec::new(),
        position: game["position"].as_str().unwrap_or_default().to_string(),
        latencies: Vec::new(),
        errors: Vec::new(),
    };
    let path = format!("/api/games/{}/bot", played.id);
    for _ in 0..moves {
        let started = Instant::now();
        let (status, answer) = client
            .call("POST", &path, Some(&json!({ "nodes": nodes })))
            .await?;
        played.latencies.push(started.elapsed());
        if status != 200 {
            played.errors.push(format!("{status} {answer}"));
            continue;
        }
        played.moves.push(
            answer["bot"]["move"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        );
        played.position = answer["position"].as_str().unwrap_or_default().to_string();
        if !answer["outcome"].is_null() {
            break;
        }
    }
    Ok(played)
}

/// What the open run pages saw: requests answered 200, their latencies,
/// and the other answers.
#[derive(Default)]
struct PagesSeen {
    latencies: Vec<Duration>,
    errors: Vec<String>,
}

/// One open `/runs` page: every [`RUN_PAGE_PERIOD`] it reads the run list,
/// the first run and its newest games, until `stop` turns true.
async fn run_page(
    addr: std::net::SocketAddr,
    stop: Arc<std::sync::atomic::AtomicBool>,
) -> std::io::Result<PagesSeen> {
    let mut client = Client::connect(addr).await?;
    let mut seen = PagesSeen::default();
    let mut ticks = tokio::time::interval(RUN_PAGE_PERIOD);
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        ticks.tick().await;
        let started = Instant::now();
        let (status, list) = client.call("GET", "/api/runs", None).await?;
        seen.latencies.push(started.elapsed());
        let Some(name) = list["runs"][0]["name"].as_str().map(str::to_string) else {
            seen.errors.push(format!("/api/runs: {status} {list}"));
            continue;
        };
        for path in [
            format!("/api/runs/{name}"),
            format!("/api/runs/{name}/games"),
        ] {
            let started = Instant::now();
            let (status, answer) = client.call("GET", &path, None).await?;
            seen.latencies.push(started.elapsed());
            if status != 200 {
                seen.errors.push(format!("{path}: {status} {answer}"));
            }
        }
    }
    Ok(seen)
}

/// One round of the load: `s.games` clients playing bot moves, with
/// `pages` run pages open beside them; prints its line and returns the
/// games played and the bot requests per second.
async fn round(
    addr: std::net::SocketAddr,
    s: &Settings,
    pages: usize,
) -> Result<(Vec<Played>, f64), Box<dyn std::error::Error>> {
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let readers: Vec<_> = (0..pages)
        .map(|_| tokio::spawn(run_page(addr, Arc::clone(&stop))))
        .collect();
    let started = Instant::now();
    let clients: Vec<_> = (0..s.games)
        .map(|_| tokio::spawn(play(addr, s.variant.clone(), s.moves, s.nodes)))
        .collect();
    let mut results = Vec::new();
    for client in clients {
        results.push(client.await??);
    }
    let wall = started.elapsed();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut pages_seen = PagesSeen::default();
    for reader in readers {
        let seen = reader.await??;
        pages_seen.latencies.extend(seen.latencies);
        pages_seen.errors.extend(seen.errors);
    }

    let mut latencies: Vec<Duration> = results
        .iter()
        .flat_map(|r| r.latencies.iter().copied())
        .collect();
    latencies.sort();
    let errors: Vec<&String> = results.iter().flat_map(|r| &r.errors).collect();
    let rate = latencies.len() as f64 / wall.as_secs_f64();
    println!(
        "{} bot requests in {:.1} s with {pages} run pages open: {rate:.1} requests/s; latency p50 {} ms, p99 {} ms, max {} ms; {} errors",
        latencies.len(),
        wall.as_secs_f64(),
        percentile(&latencies, 50.0).as_millis(),
        percentile(&latencies, 99.0).as_millis(),
        latencies.last().copied().unwrap_or_default().as_millis(),
        errors.len()
    );
    for e in errors.iter().take(5) {
        println!("  error: {e}");
    }
    if pages > 0 {
        pages_seen.latencies.sort();
        println!(
            "  run pages: {} requests, p50 {} ms, p99 {} ms; {} errors",
            pages_seen.latencies.len(),
            percentile(&pages_seen.latencies, 50.0).as_millis(),
            percentile(&pages_seen.latencies, 99.0).as_millis(),
            pages_seen.errors.len()
        );
        for e in pages_seen.errors.iter().take(5) {
            println!("  run page error: {e}");
        }
    }
    if !errors.is_empty() || !pages_seen.errors.is_empty() {
        return Err("the load test found a problem (see above)".into());
    }
    Ok((results, rate))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let s = settings()?;
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
    let mut config = ServeConfig::new(models);
    config.runs = s.runs.clone();
    if let Some(n) = s.searches {
        config.max_searches = n.max(1);
    }
    let searches = config.max_searches;
    let service = Arc::new(tokio::task::spawn_blocking(move || Service::new(config)).await??);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let server = tokio::spawn(serve::serve(
        listener,
        Arc::clone(&service),
        std::future::pending(),
    ));
    println!(
        "load: {} games x {} bot moves, {} nodes each, variant {}, {searches} search slots, service at {addr}",
        s.games, s.moves, s.nodes, s.variant
    );

    let (mut results, alone) = round(addr, &s, 0).await?;
    if s.run_pages > 0 {
        let (more, with_pages) = round(addr, &s, s.run_pages).await?;
        results.extend(more);
        println!(
            "with {} run pages open: {:.2}x the requests/s of the round without",
            s.run_pages,
            with_pages / alone
        );
    }

    // The service is still up, and every game reads back as played.
    let mut check = Client::connect(addr).await?;
    let (status, _) = check.call("GET", "/api/variants", None).await?;
    let mut consistent = 0;
    for r in &results {
        let (code, game) = check
            .call("GET", &format!("/api/games/{}", r.id), None)
            .await?;
        let moves: Vec<String> = game["moves"]
            .as_array()
            .map(|m| {
                m.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        if code == 200 && moves == r.moves && game["position"].as_str() == Some(r.position.as_str())
        {
            consistent += 1;
        }
    }
    println!(
        "after the load: /api/variants {status}; {consistent} of {} games read back exactly as played",
        results.len()
    );
    server.abort();
    if status != 200 || consistent != results.len() {
        return Err("the load test found a problem (see above)".into());
    }
    Ok(())
}
