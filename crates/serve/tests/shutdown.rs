//! The service on a real socket (`serve::serve`) at shutdown and when a
//! client goes away mid-search: a shutdown stops the running search at
//! once, refuses the queued one, and drops clients still sending after
//! the grace; a client that disconnects frees its search slot. The
//! searches here ask for 100 s; every wait has a generous upper bound
//! only so that a regression fails instead of hanging.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use serve::{ServeConfig, Service};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

mod socket;
use socket::{read_until_closed, start, HANG};

/// The time budget of the long searches.
const LONG_SEARCH_MS: u64 = 100_000;

/// A service of one search slot, long read timeouts, searches of up to
/// 120 s and a queue that waits as long, and 2 s of shutdown grace.
fn service() -> Arc<Service> {
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
    let mut config = ServeConfig::new(models);
    config.max_searches = 1;
    config.max_movetime_ms = 120_000;
    config.search_queue_timeout = Duration::from_secs(120);
    config.header_read_timeout = Duration::from_secs(60);
    config.body_read_timeout = Duration::from_secs(60);
    config.shutdown_grace = Duration::from_secs(2);
    Arc::new(Service::new(config).expect("the shipped bundles load"))
}

/// Open a connection and send a POST of `body` to `path` on it.
async fn send_post(addr: SocketAddr, path: &str, body: &Value) -> TcpStream {
    let body = body.to_string();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    stream
}

/// The status and JSON body of the answer on `stream` (read until closed).
async fn answer(stream: &mut TcpStream) -> (u16, String, Value) {
    let text = read_until_closed(stream).await;
    let status = text
        .get(9..12)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no answer: {text:?}"));
    let split = text.find("\r\n\r\n").expect("a complete answer");
    let body = serde_json::from_str(&text[split + 4..]).unwrap_or_else(|e| panic!("{e}: {text:?}"));
    (status, text[..split].to_ascii_lowercase(), body)
}

/// POST `body` to `path` on a new connection; the status and JSON answer.
async fn post(addr: SocketAddr, path: &str, body: Value) -> (u16, Value) {
    let mut stream = send_post(addr, path, &body).await;
    let (status, _head, body) = answer(&mut stream).await;
    (status, body)
}

/// A new losers game's id.
async fn new_game(addr: SocketAddr) -> String {
    let (status, game) = post(addr, "/api/games", json!({"variant": "losers"})).await;
    assert_eq!(status, 200, "{game}");
    game["id"].as_str().unwrap().to_string()
}

/// Wait until `service` has `n` search requests waiting or running.
async fn wait_for_pending(service: &Service, n: usize) {
    let waited = tokio::time::timeout(HANG, async {
        while service.searches.pending() != n {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(
        waited.is_ok(),
        "{} search requests, not {n}",
        service.searches.pending()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_stops_the_search_refuses_the_queue_and_drops_slow_clients() {
    let service = service();
    let (addr, stop, server) = start(Arc::clone(&service)).await;
    let (first, second) = (new_game(addr).await, new_game(addr).await);
    let long = json!({ "movetime_ms": LONG_SEARCH_MS });
    let mut running = send_post(addr, &format!("/api/games/{first}/bot"), &long).await;
    wait_for_pending(&service, 1).await;
    let mut queued = send_post(addr, &format!("/api/games/{second}/bot"), &long).await;
    wait_for_pending(&service, 2).await;
    assert_eq!(service.searches.running(), 1, "one slot");
    // A client halfway through its header, one halfway through its body:
    // each would hold its connection for the 60 s read timeout.
    let mut half_header = TcpStream::connect(addr).await.unwrap();
    half_header
        .write_all(b"GET /api/variants HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        .await
        .unwrap();
    let mut half_body = TcpStream::connect(addr).await.unwrap();
    half_body
        .write_all(
            b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
              Content-Length: 4000\r\n\r\n{\"variant\": \"losers\", ",
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;

    stop.send(()).unwrap();
    let returned = tokio::time::timeout(HANG, server).await;
    assert!(
        matches!(returned, Ok(Ok(Ok(())))),
        "serve did not return: {returned:?}"
    );
    // The running search stopped at once and its move was played.
    let (status, _head, body) = answer(&mut running).await;
    assert_eq!(status, 200, "{body}");
    assert!(body["bot"]["move"].is_string(), "{body}");
    // The queued one was refused, closing its connection.
    let (status, head, body) = answer(&mut queued).await;
    assert_eq!(status, 503, "{body}");
    assert!(head.contains("\r\nconnection: close"), "{head}");
    let message = body["error"].as_str().unwrap_or_default();
    assert!(message.contains("shutting down"), "{body}");
    // The slow clients were cut off unanswered.
    assert_eq!(read_until_closed(&mut half_header).await, "");
    assert_eq!(read_until_closed(&mut half_body).await, "");
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "still accepting after shutdown"
    );
    assert_eq!(service.searches.pending(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_disconnects_frees_its_search_slot() {
    let service = service();
    let (addr, _stop, _server) = start(Arc::clone(&service)).await;
    let (first, second) = (new_game(addr).await, new_game(addr).await);
    let long = json!({ "movetime_ms": LONG_SEARCH_MS });
    let gone = send_post(addr, &format!("/api/games/{first}/bot"), &long).await;
    wait_for_pending(&service, 1).await;
    assert_eq!(service.searches.running(), 1);
    // The client goes away mid-search: its search must stop and free the
    // only slot, or the next search waits the whole 100 s.
    drop(gone);
    let next = tokio::time::timeout(
        HANG,
        post(
            addr,
            &format!("/api/games/{second}/bot"),
            json!({"nodes": 50}),
        ),
    )
    .await;
    let (status, body) = next.expect("the next search waited for the abandoned one");
    assert_eq!(status, 200, "{body}");
    // The abandoned game is not left busy: its next bot move is searched.
    let (status, body) = post(
        addr,
        &format!("/api/games/{first}/bot"),
        json!({"nodes": 10}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["moves"].as_array().map(Vec::len), Some(1), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_after_the_searches_close_gets_a_503_that_closes_the_connection() {
    let service = service();
    let (addr, stop, server) = start(Arc::clone(&service)).await;
    let first = new_game(addr).await;
    // What serve does first at shutdown; a request the connection still
    // reads after that (or a listener still accepting) is not answered as
    // usual, search or not.
    service.searches.close();
    let (status, body) = post(
        addr,
        &format!("/api/games/{first}/bot"),
        json!({"nodes": 10}),
    )
    .await;
    assert_eq!(status, 503, "{body}");
    let mut stream = send_post(addr, "/api/games", &json!({"variant": "losers"})).await;
    let (status, head, body) = answer(&mut stream).await;
    assert_eq!(status, 503, "{body}");
    assert!(head.contains("\r\nconnection: close"), "{head}");
    drop(stop);
    let returned = tokio::time::timeout(HANG, server).await;
    assert!(matches!(returned, Ok(Ok(Ok(())))), "{returned:?}");
}
