//! Training: run configs, the generation loop (self-play -> train ->
//! export) with resume, samples and augmentation, the optimiser, metrics.

pub mod cluster;
pub mod config;
pub mod cputime;
pub mod error;
pub mod fast;
pub mod lock;
pub mod losses;
pub mod metrics;
pub mod run;
pub mod samples;
pub mod trainer;

pub use config::{ConfigError, ConfigOverride, RunConfig};
pub use error::TrainError;
pub use run::{run, RunOptions, RunSummary};
