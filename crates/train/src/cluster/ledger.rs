//! `ledger/gen-GGGGGG.json`: the replay chunks generation `G` counted as
//! new data (and the objects it skipped, with why). Written by the trainer
//! after the bundle and before the pointer; the union of the ledgers up to
//! the pointer's generation is what has been counted, so a restarted
//! trainer counts no chunk twice.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use store::Store;

use super::keys;
use crate::error::{Result, TrainError};

/// One counted chunk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Counted {
    /// Its key.
    pub key: String,
    /// Games read from it.
    pub games: u64,
    /// Training positions read from it.
    pub positions: u64,
}

/// An object under `replay/` that was not used, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    /// Its key.
    pub key: String,
    /// Why (corrupt, truncated, another variant, not a chunk key, older
    /// than the replay window).
    pub reason: String,
}

/// A generation's ledger.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    /// The generation it belongs to.
    pub generation: u32,
    /// Chunks counted as new positions by this generation.
    pub counted: Vec<Counted>,
    /// Objects skipped by this generation.
    pub skipped: Vec<Skipped>,
}

impl Ledger {
    /// Write it (the trainer only).
    ///
    /// # Errors
    /// A store error.
    pub fn write(&self, store: &Store) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        store.put(&keys::ledger(self.generation), &bytes)?;
        Ok(())
    }
}

/// The keys the ledgers of generations `from..=to` counted or skipped.
///
/// # Errors
/// A store error, or a ledger that does not parse (named).
pub fn seen_keys(store: &Store, from: u32, to: u32) -> Result<BTreeSet<String>> {
    let mut seen = BTreeSet::new();
    for g in from..=to {
        let key = keys::ledger(g);
        let Some(bytes) = store.get(&key)? else {
            continue;
        };
        let ledger: Ledger = serde_json::from_slice(&bytes).map_err(|e| {
            TrainError::Cluster(format!("{}/{key}: not a ledger: {e}", store.describe()))
        })?;
        seen.extend(ledger.counted.into_iter().map(|c| c.key));
        seen.extend(ledger.skipped.into_iter().map(|s| s.key));
    }
    Ok(seen)
}
