//! `serve::ctrl_c`, the shutdown `lokizero serve` uses, with real SIGINTs
//! sent to this test process (a file of its own: the signal handler is
//! process-wide): the first Ctrl-C shuts the service down, stopping a
//! search that asked for 100 s, and a second one is not ignored.

#![cfg(unix)]

use std::sync::Arc;
use std::time::Duration;

use serve::{ServeConfig, Service};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

/// How long the test waits for the server to act before calling it a hang.
const HANG: Duration = Duration::from_secs(20);

/// Send SIGINT to this process.
fn interrupt() {
    let status = std::process::Command::new("kill")
        .args(["-INT", &std::process::id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
}

/// POST `body` to `path` on a new connection; the whole answer.
async fn post(addr: std::net::SocketAddr, path: &str, body: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let read = tokio::time::timeout(HANG, stream.read_to_end(&mut got)).await;
    let text = String::from_utf8_lossy(&got).into_owned();
    assert!(read.is_ok(), "no answer within {HANG:?}: {text:?}");
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_ctrl_c_shuts_down_and_the_second_is_not_ignored() {
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
    let mut config = ServeConfig::new(models);
    config.max_searches = 1;
    config.max_movetime_ms = 120_000;
    let service = Arc::new(Service::new(config).expect("the shipped bundles load"));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (second_tx, second_rx) = oneshot::channel::<()>();
    let server = tokio::spawn(serve::serve(
        listener,
        Arc::clone(&service),
        serve::ctrl_c(move || {
            let _ = second_tx.send(());
        }),
    ));
    let game = post(addr, "/api/games", r#"{"variant": "losers"}"#).await;
    assert!(game.starts_with("HTTP/1.1 200"), "{game}");
    let id_at = game.find("\"id\":\"").expect("an id") + 6;
    let id = &game[id_at..id_at + game[id_at..].find('"').unwrap()];
    let path = format!("/api/games/{id}/bot");
    let search = tokio::spawn(async move { post(addr, &path, r#"{"movetime_ms": 100000}"#).await });
    let started = tokio::time::timeout(HANG, async {
        while service.searches.running() == 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(started.is_ok(), "the search did not start");
    // serve has polled its shutdown future (the handler is installed)
    // long before a search started; SIGINT no longer kills the process.
    interrupt();
    let returned = tokio::time::timeout(HANG, server).await;
    assert!(
        matches!(returned, Ok(Ok(Ok(())))),
        "serve did not return: {returned:?}"
    );
    let answer = search.await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    interrupt();
    let second = tokio::time::timeout(HANG, second_rx).await;
    assert!(
        matches!(second, Ok(Ok(()))),
        "the second Ctrl-C was ignored"
    );
}
