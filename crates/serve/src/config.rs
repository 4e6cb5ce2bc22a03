//! The service's settings: where the bundles are and the caps that keep
//! one client from starving the others.

use std::path::PathBuf;
use std::time::Duration;

use search::InvalidSetting;

/// Settings of a [`crate::Service`]. [`ServeConfig::new`] gives the
/// defaults the `lokizero serve` command uses.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Folder with one bundle folder per variant (`models/<variant>`).
    pub models: PathBuf,
    /// The bundle folders to serve, each `model.json` naming its variant
    /// (at most one per variant: the first wins), instead of the
    /// `<variant>` folders of `models`; `lokizero serve` without
    /// `--models` sets them from the bundle search path.
    pub bundles: Option<Vec<PathBuf>>,
    /// Folder of training runs shown at `/runs` (a run folder, or a folder
    /// of them; [`crate::runs`]); `None`: no runs are served.
    pub runs: Option<PathBuf>,
    /// The run in an object store shown at `/runs` beside those of
    /// `runs`: `s3://BUCKET/PREFIX` (the `AWS_*` variables give the
    /// endpoint and keys) or a folder, as `lokizero train --store` takes
    /// it; `None`: none.
    pub runs_store: Option<String>,
    /// A training run folder to follow: its newest checkpoint (the layout
    /// of `train::run::RunDir`) is the bot of the run's variant, replaced
    /// as the run writes generations ([`crate::follow_run`]); `None`:
    /// the bundles stay those loaded at start.
    pub follow: Option<PathBuf>,
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
    /// The budget of an analysis request that names none (its node bound
    /// capped at `max_nodes`); [`search::PLAY_NODES`] root visits by default.
    pub default_budget: search::Budget,
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
    /// How long [`crate::serve`] waits, once shut down, for the requests
    /// in progress to be answered (their searches are told to stop at
    /// once) before it closes the remaining connections and returns.
    pub shutdown_grace: Duration,
}

impl ServeConfig {
    /// The defaults: 1000 games idle out after 30 minutes, one search per
    /// core (at least 2), 100 000 nodes or 30 s per move at most, 64 KiB
    /// bodies (a move list of a long game fits), 10 s to send a request
    /// header (or to start the next request on a kept-alive connection)
    /// and 30 s to send a body, 5 s of grace at shutdown.
    pub fn new(models: PathBuf) -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        ServeConfig {
            models,
            bundles: None,
            runs: None,
            runs_store: None,
            follow: None,
            max_games: 1000,
            idle_timeout: Duration::from_secs(30 * 60),
            max_searches: cores.max(2),
            search_queue_timeout: Duration::from_secs(60),
            max_nodes: 100_000,
            default_budget: search::Budget::nodes(search::PLAY_NODES),
            max_movetime_ms: 30_000,
            body_limit: 64 * 1024,
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(5),
        }
    }

    /// Shortest [`ServeConfig::header_read_timeout`] and
    /// [`ServeConfig::body_read_timeout`] accepted.
    pub const MIN_READ_TIMEOUT: Duration = Duration::from_millis(1);
    /// Longest [`ServeConfig::header_read_timeout`] and
    /// [`ServeConfig::body_read_timeout`] accepted: a day. hyper adds the
    /// header timeout to the current instant, which panics on overflow for
    /// a value near `Duration::MAX`.
    pub const MAX_READ_TIMEOUT: Duration = Duration::from_secs(86_400);
    /// Largest [`ServeConfig::max_movetime_ms`] accepted: a day (a search's
    /// deadline is its start plus the time asked for, which must not
    /// overflow).
    pub const MAX_MOVETIME_MS: u64 = 86_400_000;

    /// Check the settings that have a range: both read timeouts in
    /// [`ServeConfig::MIN_READ_TIMEOUT`]`..=`[`ServeConfig::MAX_READ_TIMEOUT`],
    /// `max_movetime_ms` in `1..=`[`ServeConfig::MAX_MOVETIME_MS`],
    /// `max_searches`, `max_games` and `max_nodes` at least 1.
    /// [`crate::Service::new`] calls this.
    ///
    /// # Errors
    /// [`InvalidSetting`] naming the first setting out of range.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        let timeouts = [
            ("header_read_timeout", self.header_read_timeout),
            ("body_read_timeout", self.body_read_timeout),
        ];
        for (setting, value) in timeouts {
            if !(Self::MIN_READ_TIMEOUT..=Self::MAX_READ_TIMEOUT).contains(&value) {
                return Err(InvalidSetting::new(
                    setting,
                    format!(
                        "must be in {:?}..={:?}, got {value:?}",
                        Self::MIN_READ_TIMEOUT,
                        Self::MAX_READ_TIMEOUT
                    ),
                ));
            }
        }
        if !(1..=Self::MAX_MOVETIME_MS).contains(&self.max_movetime_ms) {
            return Err(InvalidSetting::new(
                "max_movetime_ms",
                format!(
                    "must be in 1..={}, got {}",
                    Self::MAX_MOVETIME_MS,
                    self.max_movetime_ms
                ),
            ));
        }
        let counts = [
            ("max_searches", self.max_searches),
            ("max_games", self.max_games),
            ("max_nodes", self.max_nodes as usize),
        ];
        for (setting, value) in counts {
            if value == 0 {
                return Err(InvalidSetting::new(setting, "must be at least 1, got 0"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_out_of_range_are_refused() {
        let good = ServeConfig::new("models".into());
        assert_eq!(good.validate(), Ok(()));
        let mut huge = good.clone();
        huge.header_read_timeout = Duration::from_secs(u64::MAX / 2);
        let err = huge.validate().unwrap_err();
        assert_eq!(err.field, "header_read_timeout");
        assert!(err.to_string().contains("must be in"), "{err}");
        let mut zero = good.clone();
        zero.body_read_timeout = Duration::ZERO;
        assert_eq!(zero.validate().unwrap_err().field, "body_read_timeout");
        let mut edge = good.clone();
        edge.header_read_timeout = ServeConfig::MAX_READ_TIMEOUT;
        edge.body_read_timeout = ServeConfig::MIN_READ_TIMEOUT;
        edge.max_movetime_ms = ServeConfig::MAX_MOVETIME_MS;
        assert_eq!(edge.validate(), Ok(()));
        let mut movetime = good.clone();
        movetime.max_movetime_ms = u64::MAX;
        assert_eq!(movetime.validate().unwrap_err().field, "max_movetime_ms");
        let mut searches = good;
        searches.max_searches = 0;
        assert_eq!(searches.validate().unwrap_err().field, "max_searches");
    }
}
