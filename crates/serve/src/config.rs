//! The service's settings: where the bundles are and the caps that keep
//! one client from starving the others.

use std::path::PathBuf;
use std::time::Duration;

/// Settings of a [`crate::Service`]. [`ServeConfig::new`] gives the
/// defaults the `lokizero serve` command uses.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Folder with one bundle folder per variant (`models/<variant>`).
    pub models: PathBuf,
    /// Most games held at once; creating one more first drops idle games.
    pub max_games: usize,
    /// A game untouched this long is dropped.
    pub idle_timeout: Duration,
    /// Most bot searches running at once (each on a blocking thread with a
    /// bot of its own).
    pub max_searches: usize,
    /// How long a bot request waits for a free search slot before a 503.
    pub search_queue_timeout: Duration,
    /// Largest node budget a request may ask for.
    pub max_nodes: u32,
    /// Largest time budget a request may ask for, in milliseconds.
    pub max_movetime_ms: u64,
    /// Largest request body, in bytes.
    pub body_limit: usize,
    /// Time a connection has to send a request's whole header, counted
    /// from the connection's start (or, kept alive, from the previous
    /// answer); a connection that has not, whether it trickles bytes (slow
    /// loris) or sends nothing, is closed without an answer (hyper's
    /// HTTP/1 header read timeout).
    pub header_read_timeout: Duration,
    /// Time an endpoint that takes a JSON body waits for the whole body
    /// once the header is in; a body not in by then gets a 408 and the
    /// connection is closed.
    pub body_read_timeout: Duration,
}

impl ServeConfig {
    /// The defaults: 1000 games idle out after 30 minutes, one search per
    /// core (at least 2), 100 000 nodes or 30 s per move at most, 64 KiB
    /// bodies (a move list of a long game fits), 10 s to send a request
    /// header (or to start the next request on a kept-alive connection)
    /// and 30 s to send a body.
    pub fn new(models: PathBuf) -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        ServeConfig {
            models,
            max_games: 1000,
            idle_timeout: Duration::from_secs(30 * 60),
            max_searches: cores.max(2),
            search_queue_timeout: Duration::from_secs(60),
            max_nodes: 100_000,
            max_movetime_ms: 30_000,
            body_limit: 64 * 1024,
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
        }
    }
}
