//! The errors of a training run: each names the file, generation or key it
//! is about and says what to do where there is something to do.

use std::path::PathBuf;

/// Why a run could not start or continue. Completed generations on disk
/// are never modified on any of these paths.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A file-system operation on a run file failed.
    #[error("cannot {what} {path}: {source}")]
    Io {
        /// What was being done (`create`, `write`, `clean temporary files in`).
        what: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A bundle could not be written or loaded.
    #[error(transparent)]
    Bundle(#[from] model::BundleError),
    /// A replay chunk could not be read or written.
    #[error(transparent)]
    Replay(#[from] selfplay::ReplayError),
    /// The run directory is in use by another live process.
    #[error(
        "run directory {root} is in use by process {owner} (if no run is using it, delete {lock})"
    )]
    Locked {
        /// The run directory.
        root: PathBuf,
        /// The owner's process id as the lock file holds it.
        owner: String,
        /// The lock file.
        lock: PathBuf,
    },
    /// The config does not fit the run directory or the `--init-from`
    /// bundle (another variant or network shape).
    #[error("{0}")]
    Mismatch(String),
    /// The newest checkpoint no longer loads.
    #[error(
        "the newest checkpoint {path} does not load ({source}); completed generations are never \
         rewritten, so restore it or move it out of the run directory and run again"
    )]
    DamagedCheckpoint {
        /// The checkpoint folder.
        path: PathBuf,
        /// Why it does not load.
        source: model::BundleError,
    },
    /// The `--init-from` bundle does not load for this variant.
    #[error("--init-from {path}: {source}")]
    InitFrom {
        /// The bundle folder.
        path: PathBuf,
        /// Why it does not load.
        source: model::BundleError,
    },
    /// The config's `start` position does not parse.
    #[error("config start position: {0}")]
    StartPosition(String),
    /// A line of the `[selfplay] branch_book` file is not a position of
    /// the variant.
    #[error("branch book {path}: {source}")]
    BranchBook {
        /// The book file.
        path: PathBuf,
        /// Why it is refused.
        source: rules::book::BookError,
    },
    /// A replayed record does not fit the current rules.
    #[error("game {game} of the replay buffer: {source}")]
    Records {
        /// The game's index in the replay window.
        game: usize,
        /// Why it does not replay.
        source: selfplay::RecordError,
    },
    /// The replay window holds no training position.
    #[error("generation {generation}: the replay buffer holds no training positions{hint}")]
    EmptyReplay {
        /// The generation being trained.
        generation: u32,
        /// Why, where it can be told.
        hint: String,
    },
    /// The metrics log cannot be read or does not parse.
    #[error("metrics log: {0}")]
    Metrics(#[from] crate::metrics::MetricsError),
    /// The learning curve could not be drawn.
    #[error("learning curve: {0}")]
    Chart(#[from] arena::chart::ChartError),
    /// Training produced no network (the optimiser lost it).
    #[error("training lost the network")]
    LostNetwork,
    /// A store operation failed (after its retries).
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// Another trainer holds the store's lease.
    #[error(
        "store {store} has a trainer already ({owner}; its lease lapses in {seconds_left} s unless renewed); \
         one trainer per store"
    )]
    Leased {
        /// The store.
        store: String,
        /// The holder named in the lease.
        owner: String,
        /// Seconds until the lease lapses.
        seconds_left: u64,
    },
    /// A run file in the store is missing or unreadable, or a bad option of
    /// a distributed run.
    #[error("{0}")]
    Cluster(String),
    /// The run config in the store does not parse.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// The config could not be written as TOML.
    #[error("cannot serialise config: {0}")]
    Serialise(#[from] toml::ser::Error),
}

impl TrainError {
    /// An I/O error while doing `what` to `path`.
    pub fn io(what: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| TrainError::Io { what, path, source }
    }
}

/// The result of the training crate's fallible functions.
pub type Result<T, E = TrainError> = std::result::Result<T, E>;
