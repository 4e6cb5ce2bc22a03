//! Shared by the socket tests (`shutdown`, `slow_clients`): serve on a
//! free loopback port, and read a connection until the server closes it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use serve::Service;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

/// How long a test waits for the server to act before calling it a hang.
pub const HANG: Duration = Duration::from_secs(20);

/// Serve `service` on a free loopback port until the returned sender
/// fires (or is dropped); the join handle yields `serve`'s result.
pub async fn start(
    service: Arc<Service>,
) -> (
    SocketAddr,
    oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(serve::serve(listener, service, async move {
        let _ = stopped.await;
    }));
    (addr, stop, server)
}

/// Everything the server sends until it closes the connection (a reset
/// counts as closing); panics if it is still open after [`HANG`].
pub async fn read_until_closed(stream: &mut TcpStream) -> String {
    let mut got = Vec::new();
    let read = tokio::time::timeout(HANG, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    let text = String::from_utf8_lossy(&got).into_owned();
    assert!(
        read.is_ok(),
        "connection still open after {HANG:?}; received {text:?}"
    );
    text
}
