//! `heartbeats/WORKER.json`: each worker's last report, rewritten by that
//! worker (its only writer) after every chunk; `lokizero status` counts a
//! worker as live while its heartbeat is recent.

use serde::{Deserialize, Serialize};
use store::Store;

use super::keys;
use crate::error::Result;

/// A worker's report.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Heartbeat {
    /// The worker's id.
    pub worker: String,
    /// Generation of the bundle it plays with.
    pub generation: u32,
    /// Games it uploaded since it started.
    pub games: u64,
    /// Training positions it uploaded since it started.
    pub positions: u64,
    /// Its self-play rate since it started (recorded positions per second).
    pub positions_per_second: f64,
    /// When it started (Unix seconds).
    pub started_unix: u64,
    /// When it wrote this (Unix seconds).
    pub updated_unix: u64,
}

impl Heartbeat {
    /// Write it.
    ///
    /// # Errors
    /// A store error.
    pub fn write(&self, store: &Store) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        store.put(&keys::heartbeat(&self.worker), &bytes)?;
        Ok(())
    }
}

/// Every heartbeat in the store (unreadable ones are left out).
///
/// # Errors
/// A store error.
pub fn read_all(store: &Store) -> Result<Vec<Heartbeat>> {
    let mut out = Vec::new();
    for o in store.list(keys::HEARTBEATS)? {
        if let Some(h) = store
            .get(&o.key)?
            .and_then(|b| serde_json::from_slice::<Heartbeat>(&b).ok())
        {
            out.push(h);
        }
    }
    Ok(out)
}
