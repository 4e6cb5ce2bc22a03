//! `lease.json`: one trainer per store. The trainer creates the lease with
//! a create-only write (`If-None-Match: *`), renews it from a thread of its
//! own every third of its time to live, and deletes it when it stops. A
//! second trainer finds a lease that is not its own and not expired and is
//! refused, naming the holder. An expired lease (its trainer was killed) is
//! deleted and created anew; no compare-and-swap is needed because a live
//! trainer renews long before expiry (the time to live must exceed the
//! longest pause of the store or the machine).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use store::Store;

use super::keys;
use super::pointer::now_unix;
use crate::error::{Result, TrainError};

/// The lease object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeaseRecord {
    /// The holder: `host:pid:random`, unique per trainer process.
    pub owner: String,
    /// When it was last renewed (Unix seconds).
    pub renewed_unix: u64,
    /// When it lapses unless renewed (Unix seconds).
    pub expires_unix: u64,
}

/// A held lease: renewed in the background, deleted on drop.
#[derive(Debug)]
pub struct Lease {
    owner: String,
    stop: Arc<AtomicBool>,
    renewer: Option<JoinHandle<()>>,
    store: Arc<Store>,
}

/// `host:pid:random` for this process.
pub fn owner_id() -> String {
    let host = std::fs::read_to_string("/etc/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "host".into());
    format!(
        "{host}:{}:{:08x}",
        std::process::id(),
        rand::random::<u32>()
    )
}

fn record(owner: &str, ttl: Duration) -> Vec<u8> {
    let now = now_unix();
    serde_json::to_vec_pretty(&LeaseRecord {
        owner: owner.to_string(),
        renewed_unix: now,
        expires_unix: now + ttl.as_secs().max(1),
    })
    .unwrap_or_default()
}

impl Lease {
    /// Take the lease of `store` for `ttl`.
    ///
    /// # Errors
    /// [`TrainError::Leased`] when another live trainer holds it; a store
    /// error.
    pub fn acquire(store: Arc<Store>, ttl: Duration) -> Result<Lease> {
        let owner = owner_id();
        for _ in 0..2 {
            if store.put_new(keys::LEASE, &record(&owner, ttl))? {
                return Ok(Self::hold(store, owner, ttl));
            }
            let held = store
                .get(keys::LEASE)?
                .and_then(|b| serde_json::from_slice::<LeaseRecord>(&b).ok());
            match held {
                Some(h) if h.owner == owner => return Ok(Self::hold(store, owner, ttl)),
                Some(h) if h.expires_unix > now_unix() => {
                    return Err(TrainError::Leased {
                        store: store.describe(),
                        owner: h.owner,
                        seconds_left: h.expires_unix - now_unix(),
                    })
                }
                // Expired, unreadable or just deleted: a dead trainer's.
                _ => {
                    eprintln!(
                        "taking over the expired trainer lease of {}",
                        store.describe()
                    );
                    store.delete(keys::LEASE)?;
                }
            }
        }
        Err(TrainError::Leased {
            store: store.describe(),
            owner: "another trainer starting at the same time".into(),
            seconds_left: ttl.as_secs(),
        })
    }

    fn hold(store: Arc<Store>, owner: String, ttl: Duration) -> Lease {
        let stop = Arc::new(AtomicBool::new(false));
        let renewer = {
            let (store, owner, stop) = (store.clone(), owner.clone(), stop.clone());
            std::thread::spawn(move || renew_until(&store, &owner, ttl, &stop))
        };
        Lease {
            owner,
            stop,
            renewer: Some(renewer),
            store,
        }
    }

    /// The holder id written into the lease.
    pub fn owner(&self) -> &str {
        &self.owner
    }
}

/// Rewrite the lease every `ttl / 3` until `stop` (in steps of 100 ms, so a
/// drop does not wait long). A failed renewal is reported and retried.
fn renew_until(store: &Store, owner: &str, ttl: Duration, stop: &AtomicBool) {
    let period = (ttl / 3).max(Duration::from_millis(200));
    let mut waited = Duration::ZERO;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        waited += Duration::from_millis(100);
        if waited >= period {
            waited = Duration::ZERO;
            if let Err(e) = store.put(keys::LEASE, &record(owner, ttl)) {
                eprintln!("warning: cannot renew the trainer lease: {e}");
            }
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.renewer.take() {
            let _ = t.join();
        }
        let _ = self.store.delete(keys::LEASE);
    }
}
