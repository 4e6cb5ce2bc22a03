//! A run shared by many processes on many machines through an object
//! store ([`store::Store`]: a local folder, or S3 and compatible servers):
//! self-play workers ([`worker`]) and one trainer ([`trainer`]).
//!
//! Key layout (relative to the store's root; `docs/distributed.md`):
//! - `config.toml`: the run config, complete (`extends` and `--set` merged
//!   in; the trainer writes it, workers read it);
//! - `checkpoints/gen-GGGGGG/{model.safetensors,model.json}`: bundles;
//! - `latest.json`: the pointer to the newest published bundle
//!   ([`pointer`](mod@pointer)), written last;
//! - `replay/gen-GGGGGG/WORKER-SUFFIX-gGAMES-pPOSITIONS.bin`: replay chunks
//!   (the format of [`selfplay::replay`]), `GGGGGG` the newest published
//!   generation when they were played ([`keys::ChunkKey`]);
//! - `ledger/gen-GGGGGG.json`: the chunks each generation counted
//!   ([`ledger`]);
//! - `stats/gen-GGGGGG/WORKER-SUFFIX-gGAMES-pPOSITIONS.json`: each chunk's
//!   self-play figures (resignation samples, CPU time), written by its
//!   worker just before the chunk ([`worker::ChunkStats`]);
//! - `heartbeats/WORKER.json`: each worker's last report ([`heartbeat`]);
//! - `lease.json`: the trainer's lease ([`lease`]);
//! - `metrics.jsonl`, `learning-curve.png`: the metrics log and the chart,
//!   as in a run directory.
//!
//! Writers: replay chunks and their figures are created once by their
//! worker (create-only, unique keys); the pointer, bundles, ledgers,
//! metrics log, chart, config and lease have one writer, the trainer
//! holding the lease; each heartbeat has its worker. The lease itself is
//! taken over and renewed by compare-and-swap where the store offers one
//! ([`lease`]).

pub mod heartbeat;
pub mod keys;
pub mod lease;
pub mod ledger;
pub mod pointer;
pub mod status;
pub mod trainer;
pub mod worker;

pub use status::{store_status, StoreStatus};
pub use trainer::{check_store_config, run_trainer, TrainerOptions};
pub use worker::{read_config, run_worker, WorkerOptions, WorkerSummary};

use encoding::Encode;

use crate::config::RunConfig;
use crate::error::{Result, TrainError};

/// The position every self-play game of `config` starts from.
///
/// # Errors
/// The config's `start` does not parse.
pub(crate) fn start_position<E: Encode>(config: &RunConfig) -> Result<E> {
    match &config.start {
        Some(t) => E::from_text(t).map_err(|e| TrainError::StartPosition(e.to_string())),
        None => Ok(E::start()),
    }
}
