//! Training: run configs, the generation loop (self-play -> train ->
//! export) with resume, samples and augmentation, the optimiser, metrics.
//!
//! Read and check a run config (what `lokizero train --config` does first):
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let config = train::RunConfig::load("../../configs/losers.toml".as_ref())?;
//! config.validate()?;
//! assert_eq!(config.variant.as_str(), "losers");
//! println!("{} generations, learning rate {} at the first", config.generations, config.training.lr_at(1));
//! # Ok(())
//! # }
//! ```

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
