//! The service on a real socket (`serve::serve`) against slow clients: a
//! header or a body trickled a byte at a time (slow loris), a connection
//! that sends nothing, and a graceful shutdown with a connection open.
//! The timeouts are 1 s here; every wait below has a generous upper
//! bound only so that a regression fails instead of hanging.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use serve::{ServeConfig, Service};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

mod socket;
use socket::{read_until_closed, HANG};

/// [`socket::start`] with this file's service.
async fn start() -> (
    SocketAddr,
    oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    socket::start(service()).await
}

/// The header and body read timeouts of these tests.
const TIMEOUT: Duration = Duration::from_secs(1);

/// A service of its own for each test: a shutdown (any test's server
/// stopping, even by dropping its sender at the end) marks the service as
/// shutting down for good, so a shared one would answer 503 to the tests
/// still running.
fn service() -> Arc<Service> {
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
    let mut config = ServeConfig::new(models);
    config.header_read_timeout = TIMEOUT;
    config.body_read_timeout = TIMEOUT;
    Arc::new(Service::new(config).expect("the shipped bundles load"))
}

/// Keep sending `byte` every 200 ms (a slow loris) until the connection
/// fails; returns the reading half's stream.
fn trickle(stream: TcpStream, byte: u8) -> tokio::net::tcp::OwnedReadHalf {
    let (read, mut write) = stream.into_split();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if write.write_all(&[byte]).await.is_err() {
                break;
            }
        }
    });
    read
}

/// A complete `GET /api/variants` on a new connection gets a 200.
async fn still_serves(addr: SocketAddr) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"GET /api/variants HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let answer = read_until_closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trickled_header_is_cut_off() {
    let (addr, _stop, _server) = start().await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"GET /api/variants HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        .await
        .unwrap();
    // A header byte every 200 ms: without a header read timeout the
    // connection stays open as long as the client keeps this up.
    let mut read = trickle(stream, b'a');
    let mut got = Vec::new();
    let closed = tokio::time::timeout(HANG, read.read_to_end(&mut got)).await;
    assert!(closed.is_ok(), "a trickled header held the connection");
    // hyper closes a timed-out connection without an answer.
    assert!(got.is_empty(), "{:?}", String::from_utf8_lossy(&got));
    still_serves(addr).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_connection_is_closed() {
    let (addr, _stop, _server) = start().await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    assert_eq!(read_until_closed(&mut stream).await, "");
    // A kept-alive connection idle after an answer is closed the same way.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"GET /api/variants HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let answer = read_until_closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trickled_body_gets_a_json_408_and_the_connection_closed() {
    let (addr, _stop, _server) = start().await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(
            b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
              Content-Length: 4000\r\n\r\n{\"variant\": \"losers\", \"position\": \"",
        )
        .await
        .unwrap();
    let mut read = trickle(stream, b' ');
    let mut got = Vec::new();
    let closed = tokio::time::timeout(HANG, read.read_to_end(&mut got)).await;
    let answer = String::from_utf8_lossy(&got).into_owned();
    assert!(
        closed.is_ok(),
        "a trickled body held the connection: {answer:?}"
    );
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    let head_end = answer.find("\r\n\r\n").expect("a complete answer");
    // The answer says the connection closes, as it does.
    assert!(
        answer[..head_end]
            .to_ascii_lowercase()
            .contains("\r\nconnection: close"),
        "{answer}"
    );
    let body = &answer[head_end + 4..];
    let json: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body:?}"));
    let message = json["error"].as_str().unwrap_or_default();
    assert!(message.contains("body did not arrive within 1s"), "{json}");
    still_serves(addr).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_idle_connections_and_returns() {
    let (addr, stop, server) = start().await;
    still_serves(addr).await;
    // A connection that has sent nothing yet: the shutdown closes it.
    let mut idle = TcpStream::connect(addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.send(()).unwrap();
    let result = tokio::time::timeout(HANG, server).await;
    assert!(
        matches!(result, Ok(Ok(Ok(())))),
        "serve did not return: {result:?}"
    );
    assert_eq!(read_until_closed(&mut idle).await, "");
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "still accepting after shutdown"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_header_timeout_set_after_validation_does_not_panic() {
    // Service::new refuses it; a config changed afterwards (the fields are
    // public) is clamped by serve instead of overflowing hyper's instant.
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
    let valid = Service::new(ServeConfig::new(models)).expect("the shipped bundles load");
    let mut config = valid.config.clone();
    config.header_read_timeout = Duration::from_secs(u64::MAX);
    let service = Arc::new(Service { config, ..valid });
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let _server = tokio::spawn(serve::serve(listener, service, std::future::pending()));
    still_serves(addr).await;
}
